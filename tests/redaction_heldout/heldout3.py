"""A third held-out set, written after the second was measured and before the last round of
rules (SQL statements, quoted values after a secret word, `user:password` flags of any
tool) was written: see heldout.py for how these sets are used."""

from __future__ import annotations

from heldout import ALNUM, Case, _Gen


def heldout3_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 200)
    out: list[Case] = []

    def add(category: str, form: str, text: str | tuple[str, ...], *secrets: str, keep: tuple[str, ...] = ()) -> None:
        out.append(Case(category, form, (text,) if isinstance(text, str) else text, secrets, keep))

    c = "sql"
    p = g.pw()
    add(c, "CREATE USER IDENTIFIED BY", f"CREATE USER 'app'@'%' IDENTIFIED BY '{p}';", p)
    p = g.pw()
    add(c, "ALTER ROLE PASSWORD", f"psql -c \"ALTER ROLE app WITH LOGIN PASSWORD '{p}';\"", p)
    p = g.human()
    add(c, "SET PASSWORD FOR", f"SET PASSWORD FOR 'root'@'localhost' = '{p}';", p)
    p = g.pw()
    add(c, "CREATE LOGIN WITH PASSWORD", f"CREATE LOGIN app WITH PASSWORD = '{p}', CHECK_POLICY = OFF;", p)

    c = "cmdline"
    p = g.pw()
    add(c, "httpie -a user:pass", f"http -a admin:{p} GET https://api.corp.io/me", p)
    p = g.pw()
    add(c, "--auth user:pass", f"hey -n 100 --auth bob:{p} https://api.corp.io/", p)
    p = g.human()
    add(c, "-u user:pass to another tool", f"ab -n 10 -A deploy:{p} https://web.corp.io/", p)
    t = g.tok(40)
    add(c, "--client-secret", f"az login --service-principal -u {g.tok(12)} --client-secret {t} --tenant corp", t)
    p = g.pw()
    add(c, "gpg --passphrase-fd 0 <<<", f"gpg --batch --passphrase-fd 0 --decrypt s.gpg <<< '{p}'", p)
    t = g.tok(32)
    add(c, "-H Authorization: token", f"curl -H 'Authorization: token {t}' https://api.github.com/user", t)
    p = g.pw()
    add(c, "--pass=", f"./backup.sh --host db1 --pass={p} --out /tmp/x", p)

    c = "config"
    p = g.pw()
    add(c, "YAML password: quoted", f'database:\n  username: app\n  password: "{p}"\n', p)
    t = g.tok(40)
    add(c, "TOML api_key =", f'[service]\napi_key = "{t}"\n', t)
    p = g.pw()
    add(c, "XML <Password>", f"<Credentials><User>app</User><Password>{p}</Password></Credentials>", p)
    p = g.pw()
    add(c, "JS object password:", f"const db = {{ user: 'app', password: '{p}', host: 'db' }};", p)
    p = g.human()
    add(c, "Python kwargs", f"conn = psycopg2.connect(host='db', user='app', password='{p}')", p)

    c = "prose"
    p = g.pw()
    add(c, "password 'X'", f"Log in with password '{p}' and change it.", p)
    p = g.human()
    add(c, "use X as the password", f"use {p} as the password", p)
    t = g.tok(36)
    add(c, "token below", f"Here's the token:\n{t}", t)
    p = g.pw()
    add(c, "pass: X (chat)", f"user: admin pass: {p}", p)

    c = "known_once"
    p = g.pw()
    add(c, "SQL then log", (f"CREATE USER app IDENTIFIED BY '{p}';", f"login failed: {p}"), p)
    t = g.chars(ALNUM, 40)
    add(c, "config then stack trace", (f'api_key = "{t}"', f"401 Unauthorized for key {t}"), t)
    return out


def heldout3_lookalikes(seed: int = 3) -> list[str]:
    return [
        "CREATE USER app IDENTIFIED BY PASSWORD;",
        "ALTER ROLE app WITH PASSWORD NULL;",
        "docker run --user 1000:1000 img",
        "http -a $USER:$PASS GET https://api.corp.io",
        "password: ${{ secrets.DB_PASSWORD }}",
        "The password 'must' be 12 characters",
        "<Password></Password>",
        "SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$PW');",
        "git log -u origin:main",
        "ssh -A bob@bastion",
        "const password = req.body.password;",
        "password: '<your password>'",
    ]
