"""A fourth held-out set, written before the rules for secret names made of a qualifier and
a secret word run together (`dbpass`, `rootpwd`), for `name value` pairs given positionally
to a command, and for pre-shared keys: see heldout.py for how these sets are used. None of
its forms is one of the three misses of the first set that led to those rules."""

from __future__ import annotations

from heldout import Case, _Gen


def heldout4_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 300)
    out: list[Case] = []

    def add(category: str, form: str, text: str | tuple[str, ...], *secrets: str, keep: tuple[str, ...] = ()) -> None:
        out.append(Case(category, form, (text,) if isinstance(text, str) else text, secrets, keep))

    c = "run-together name"
    p = g.pw()
    add(c, "--adminpass VALUE", f"wp core install --url=blog.corp.io --admin_user=ops --adminpass {p}", p)
    p = g.pw()
    add(c, "--rootpwd=", f"./install.sh --rootpwd={p} --port 3306", p)
    p = g.human()
    add(c, "-smtppass=", f"go run ./cmd/mailer -smtppass={p} -to ops@corp.io", p)
    p = g.pw()
    add(c, "yaml mailpass:", f"mail:\n  host: smtp.corp.io\n  mailpass: {p}\n", p)
    p = g.pw()
    add(c, "json \"ftppass\"", f'{{"host": "ftp.corp.io", "ftppass": "{p}"}}', p)
    p = g.human()
    add(c, "ini userpwd =", f"[db]\nuserpwd = {p}\n", p)
    p = g.pw()
    add(c, "ldappass in env", f"export LDAPPASS={p}", p)

    c = "positional pair"
    t = g.tok(40)
    add(c, "config set KEY VALUE", f"mycli config set api_token {t}", t)
    t = g.tok(32)
    add(c, "remote add … client_secret VALUE", f"rclone config create gd drive client_id app.apps client_secret {t}", t)
    t = g.tok(40)
    add(c, "set-credentials … auth_key VALUE", f"tool profile add prod region eu-west-1 auth_key {t} output json", t)
    p = g.pw()
    add(c, "key value in a heredoc", f"cat > cfg <<EOF\nserver db.corp.io\ndb_password {p}\nEOF", p)

    c = "pre-shared key"
    p = g.pw()
    add(c, "nmcli wifi-sec.psk", f"nmcli con modify office wifi-sec.psk {p}", p)
    p = g.human()
    add(c, "hostapd wpa_passphrase=", f"interface=wlan0\nssid=office\nwpa_passphrase={p}\n", p)
    p = g.pw()
    add(c, "ipsec PSK", f'%any 10.0.0.1 : PSK "{p}"', p)
    p = g.pw()
    add(c, "pre_shared_key:", f"vpn:\n  peer: 10.0.0.1\n  pre_shared_key: {p}\n", p)
    p = g.pw()
    add(c, "PSK= in .env", f"WIFI_PSK={p}", p)
    return out


def heldout4_lookalikes(seed: int = 3) -> list[str]:
    """Text that must come out unchanged: words ending in a secret word, names before words."""
    g = _Gen(seed + 301)
    return [
        "bypass = true",
        "--bypass-cache --no-verify",
        "compass: north",
        "the renderpass = device.createRenderPass(info)",
        "surpass the target by 10%",
        "trespass: forbidden",
        "keepass_db = ~/vault.kdbx",
        "config set api_token",
        "rclone config create gd drive client_id app.apps",
        "the db_password is stored in the vault",
        "psk: see the wifi sheet",
        "wpa_passphrase is required",
        f"set auth_key {g.chars('abcdef0123456789', 8)} style ids in the docs",
        "client_secret must be rotated every 90 days",
        "mycli config get api_token",
    ]
