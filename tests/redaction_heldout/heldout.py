"""A held-out set of credential forms, written before the rules that should find them.

Not used by any rule's tests and not to be tuned on: it measures how the redactor
generalizes to forms nobody listed (bench/bench_redaction_recall.py). A form added here
after a rule was written for it stops being held-out: add new forms to a new set instead.

    cases = heldout_cases(seed=3)       # list[Case]: a session's texts, the secrets, what must stay
    clean = heldout_lookalikes(seed=3)  # list[str]: text that must come out unchanged

A case is a list of texts redacted in order by one Redactor (one session), so "known once,
masked everywhere" is measured too: a secret given in one text may be repeated bare in
another, before or after it. `keep` are strings that must still be readable (the host of a
connection string: a mask no wider than the secret).
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from dataclasses import dataclass, field

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
SHELL_SAFE = ALNUM + "-_.+^~!*%,="
WORDS = ("river", "candle", "orbit", "maple", "granite", "velvet", "harbor", "lantern", "copper", "meadow",
         "falcon", "tundra", "saffron", "quartz", "willow", "ember", "prairie", "cobalt", "juniper", "basalt")
SEASONS = ("Spring", "Summer", "Autumn", "Winter", "Monday", "Friday", "October", "Welcome", "Company", "Office")


@dataclass(frozen=True)
class Case:
    """Texts of one session, the secrets in them (absent from every output), strings to keep."""

    category: str
    form: str
    texts: tuple[str, ...]
    secrets: tuple[str, ...]
    keep: tuple[str, ...] = field(default=())


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
                return s

    def pw(self) -> str:
        """A random password, shell-safe when bare."""
        return self.chars(SHELL_SAFE, self.rng.randint(10, 20))

    def human(self) -> str:
        """A human-made password: `Spring2025!Deploy`."""
        return (self.rng.choice(SEASONS) + str(self.rng.randint(1990, 2030)) + self.rng.choice("!#@$%&*?")
                + self.rng.choice(WORDS).capitalize())

    def tok(self, n: int = 32) -> str:
        return self.chars(ALNUM, n)

    def phrase(self) -> str:
        return " ".join(self.rng.sample(WORDS, self.rng.randint(3, 5)))

    def digits(self, n: int) -> str:
        return str(self.rng.randint(10 ** (n - 1), 10**n - 1))


def heldout_cases(seed: int = 3) -> list[Case]:
    """Every held-out form once, with fresh values."""
    g = _Gen(seed)
    out: list[Case] = []

    def add(category: str, form: str, text: str | tuple[str, ...], *secrets: str, keep: tuple[str, ...] = ()) -> None:
        texts = (text,) if isinstance(text, str) else text
        out.append(Case(category, form, texts, secrets, keep))

    # ------------------------------------------------ secret positions on command lines
    c = "cmdline"
    p = g.pw()
    add(c, "--dbpass=", f"pg_backup --host db --dbpass={p} --out /var/backups", p)
    p = g.pw()
    add(c, "wp --admin_password=''", f"wp core install --url=shop.io --admin_user=admin --admin_password='{p}'", p)
    p = g.pw()
    add(c, "clickhouse --password X", f"clickhouse-client --host ch1 --user default --password {p} -q 'SELECT 1'", p)
    p = g.pw()
    add(c, "mariadb -p''", f"mariadb -u root -p'{p}' shop", p)
    p = g.pw()
    add(c, "-e ansible_become_pass=", f"ansible-playbook site.yml -i hosts -e ansible_become_pass={p}", p)
    p = g.pw()
    add(c, "-var 'db_password='", f"terraform apply -auto-approve -var 'db_password={p}'", p)
    p = g.pw()
    add(c, "--set a.b.password=", f"helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={p}", p)
    p = g.pw()
    add(c, "-Dx.keyStorePassword=", f"java -Djavax.net.ssl.keyStorePassword={p} -jar server.jar", p)
    t = g.tok(40)
    add(c, "-H 'X-Api-Key: '", f'curl -s -H "X-Api-Key: {t}" https://api.weatherly.io/v2/forecast', t)
    t = g.tok(32)
    add(c, "?api_key=&", f'curl "https://api.listings.io/v1/items?api_key={t}&limit=5"', t)
    p = g.pw()
    add(c, "libpq conninfo password=", f'psql "host=db.internal port=5432 user=app password={p} dbname=app"', p,
        keep=("db.internal",))
    t, p = g.tok(20), g.tok(40)
    add(c, "rclone positional key value", f"rclone config create s3r s3 access_key_id {t} secret_access_key {p}", p)
    p = g.pw()
    add(c, "mysqladmin password X", f"mysqladmin -u root password {p}", p)
    p = g.pw()
    add(c, "--http-passwd=", f"wget --http-user=bob --http-passwd={p} https://files.corp/x.tgz", p)
    p = g.pw()
    add(c, "svn --password", f"svn checkout https://svn.corp/repo/trunk --username bob --password {p}", p)
    t = g.tok(40)
    add(c, "s3cmd --secret_key=", f"s3cmd --access_key=AKIAIOSFODNN7EXAMPLE --secret_key={t} ls s3://bkt", t)
    t = g.tok(64)
    add(c, "--account-key X", f"az storage blob upload --account-name st1 --account-key {t} -f a.zip -c c", t)
    t = g.tok(40)
    add(c, "heroku config:set NAME=", f"heroku config:set STRIPE_SECRET={t} -a shop-prod", t)
    p = g.pw()
    add(c, "fly secrets set NAME=", f"fly secrets set DATABASE_PASSWORD={p} --app api", p)
    p = g.pw()
    add(c, "ipmitool -P X", f"ipmitool -I lanplus -H 10.0.0.5 -U admin -P {p} chassis status", p)
    p = g.pw()
    add(c, "plink -pw X", f"plink -ssh -pw {p} admin@10.0.0.9 uptime", p)
    p = g.pw()
    add(c, "evil-winrm -p X", f"evil-winrm -i 10.0.0.5 -u administrator -p {p}", p)
    p = g.pw()
    add(c, "mount -o username=,password=", f"mount -t cifs //nas/share /mnt/nas -o username=bob,password={p},vers=3.0",
        p, keep=("vers=3.0",))
    t = g.tok(40)
    add(c, "pip https://__token__:X@", f"pip install --index-url https://__token__:{t}@pypi.corp.io/simple pkg", t,
        keep=("pypi.corp.io",))
    p = g.pw()
    add(c, "Invoke-Sqlcmd -Password ''",
        f"Invoke-Sqlcmd -ServerInstance sql1 -Username sa -Password '{p}' -Query 'x'", p)
    p = g.pw()
    add(c, "cmdkey /pass:X", f"cmdkey /add:fileserver /user:CORP\\bob /pass:{p}", p)
    p = g.pw()
    add(c, "net use \\\\srv X /user:", f"net use Z: \\\\fs01\\share {p} /user:CORP\\bob", p)
    p = g.pw()
    add(c, "net user NAME X /add", f"net user svc_backup {p} /add", p)
    p = g.pw()
    add(c, "setenv DB_PASS X", f"setenv DB_PASS {p}", p)
    t = g.tok(36)
    add(c, "setenv API_TOKEN X", f"setenv API_TOKEN {t}", t)
    p = g.human()
    add(c, "-p human password", f"sshpass -p '{p}' ssh deploy@web1 'sudo systemctl restart app'", p)
    t = g.tok(30)
    add(c, "KEY: X header", f"curl https://api.x.io -H 'PRIVATE-TOKEN: {t}'", t)
    p = g.pw()
    add(c, "user%X", f"smbcacls //fs01/share dir -U 'CORP\\bob%{p}'", p)
    p = g.pw()
    add(c, "user:X@ no scheme", f"lftp sftp://deploy:{p}@files.corp.io -e 'put a.zip; bye'", p, keep=("files.corp.io",))

    # ------------------------------------------------ stdin fed to password readers
    c = "stdin"
    p = g.pw()
    add(c, "echo X | sudo -S", f"echo {p} | sudo -S apt-get install -y nginx", p)
    p = g.pw()
    add(c, "echo \"X\" | sudo -S -u", f'echo "{p}" | sudo -S -u postgres psql -c "select 1"', p)
    p = g.pw()
    add(c, "echo 'u:X' | chpasswd", f"echo 'deploy:{p}' | sudo chpasswd", p)
    p = g.pw()
    add(c, "echo X | passwd --stdin", f"echo '{p}' | passwd --stdin deploy", p)
    p = g.pw()
    add(c, "printf X | docker login --password-stdin",
        f"printf '%s' '{p}' | docker login -u bob --password-stdin registry.corp.io", p)
    t = g.tok(40)
    add(c, "gh auth login --with-token <<<", f'gh auth login --with-token <<< "{t}"', t)
    t = g.tok(40)
    add(c, "wrangler secret put <<<", f'npx wrangler secret put API_KEY <<< "{t}"', t)
    p = g.pw()
    add(c, "echo -e X\\nX | passwd", f'echo -e "{p}\\n{p}" | passwd bob', p)
    p = g.pw()
    add(c, "sudo -S <<<", f"sudo -S <<< '{p}' systemctl restart nginx", p)
    p = g.pw()
    add(c, "echo X | kinit", f"echo '{p}' | kinit admin@CORP.IO", p)

    # ------------------------------------------------ credential files, wherever their content shows
    c = "credfile"
    p = g.pw()
    add(c, ".pgpass line", f"$ cat ~/.pgpass\ndb.internal:5432:appdb:app:{p}\n", p,
        keep=("db.internal:5432:appdb:app",))
    p = g.pw()
    add(c, ".pgpass wildcard", f"*:*:*:postgres:{p}", p)
    t = g.tok(36)
    add(c, ".netrc multiline", f"machine api.heroku.com\n  login bob@corp.io\n  password {t}\n", t)
    p = g.pw()
    add(c, ".my.cnf", f"[client]\nuser=root\npassword={p}\nhost=localhost\n", p)
    t = g.tok(40)
    add(c, "aws credentials", f"[prod]\naws_access_key_id = AKIAI44QH8DHBEXAMPLE\naws_secret_access_key = {t}\n", t)
    h = "$apr1$" + g.chars(ALNUM, 8) + "$" + g.chars(ALNUM + "./", 22)
    add(c, "htpasswd apr1 line", f"admin:{h}", h)
    h = "$2y$05$" + g.chars(ALNUM + "./", 53)
    add(c, "htpasswd bcrypt line", f"alice:{h}\nbob:{'$2y$05$' + g.chars(ALNUM + './', 53)}", h)
    h = "{SHA}" + base64.b64encode(g.rng.randbytes(20)).decode()
    add(c, "htpasswd sha line", f"deploy:{h}", h)
    t = g.tok(40)
    add(c, ".env no secret word", f"SESSION_SECRET={t}\nJWT_SIGNING_KEY={g.tok(48)}\nPORT=3000", t)
    p = g.pw()
    add(c, "wpa_supplicant psk", f'network={{\n  ssid="office"\n  psk="{p}"\n}}', p)
    t = g.tok(40)
    add(c, ".s3cfg", f"[default]\naccess_key = AKIAI44QH8DHBEXAMPLE\nsecret_key = {t}\n", t)
    t = g.tok(40)
    add(c, "git-credentials", f"https://bob:{t}@github.com", t, keep=("github.com",))
    b = base64.b64encode(f"bob:{g.pw()}".encode()).decode()
    add(c, "docker config auth", f'{{"auths": {{"registry.corp.io": {{"auth": "{b}"}}}}}}', b)

    # ------------------------------------------------ URLs carrying secrets in their path
    c = "url_path"
    t = g.chars(URLSAFE, 68)
    add(c, "discord webhook", f"curl -X POST https://discord.com/api/webhooks/{g.digits(18)}/{t} -d @msg.json", t)
    t = g.chars(URLSAFE, 68)
    add(c, "discordapp webhook", f'WEBHOOK = "https://discordapp.com/api/webhooks/{g.digits(19)}/{t}"', t)
    t = g.chars(URLSAFE, 35)
    add(c, "telegram bot", f"https://api.telegram.org/bot{g.digits(10)}:{t}/sendMessage?chat_id=-100123", t)
    t = g.chars(URLSAFE, 35)
    add(c, "telegram bot in prose", f"I called api.telegram.org/bot{g.digits(9)}:{t}/getUpdates and got 409", t)
    t = g.chars(HEX, 32)
    add(c, "teams webhook", f"https://corp.webhook.office.com/webhookb2/{uuid.UUID(int=g.rng.getrandbits(128))}"
        f"@{uuid.UUID(int=g.rng.getrandbits(128))}/IncomingWebhook/{t}/{uuid.UUID(int=g.rng.getrandbits(128))}", t)
    t = g.chars(URLSAFE, 22)
    add(c, "ifttt key", f"https://maker.ifttt.com/trigger/door_open/with/key/{t}", t)
    t = g.tok(40)
    add(c, "?token= in query", f"https://gitlab.corp.io/api/v4/projects/12/trigger/pipeline?token={t}&ref=main", t)
    t = g.tok(48)
    add(c, "mattermost hook", f"https://chat.corp.io/hooks/{t}", t)

    # ------------------------------------------------ prose
    c = "prose"
    p = g.pw()
    add(c, "admin password X", f"The site is up. admin password {p} (change it after login)", p)
    p = g.pw()
    add(c, "the admin password is X", f"OK, the admin password is {p}", p)
    p = g.human()
    add(c, "password: human", f"Use password: {p} for the staging box", p)
    t = g.tok(32)
    add(c, "my api token X", f"here is my api token {t} please use it", t)
    p = g.pw()
    add(c, "root pw is X", f"the root pw is {p}, ssh in and fix it", p)
    t = g.tok(40)
    add(c, "secret: X", f"client id: 81723, secret: {t}", t)
    p = g.pw()
    add(c, "new password for X is now Y", f"Done. The new password for deploy is now {p}.", p)
    p = g.human()
    add(c, "password for the db is X", f"password for the db is {p}", p)

    # ------------------------------------------------ encoded
    c = "encoded"
    p = g.pw()
    b = base64.b64encode(p.encode()).decode()
    add(c, "echo '<b64>' | base64 -d", f"echo '{b}' | base64 -d", b)
    b = base64.b64encode(f"admin:{g.pw()}".encode()).decode()
    add(c, "echo b64(u:p) | base64 --decode", f"echo {b} | base64 --decode", b)
    b = base64.b64encode(g.tok(40).encode()).decode()
    add(c, "base64 -d <<<", f"TOKEN=$(base64 -d <<< '{b}')", b)
    b = base64.b64encode(g.pw().encode()).decode()
    add(c, "FromBase64String", f"[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('{b}'))", b)

    # ------------------------------------------------ quoted passphrases with spaces
    c = "passphrase"
    p = g.phrase()
    add(c, 'PASSPHRASE="a b c"', f'PASSPHRASE="{p}"', p)
    p = g.phrase()
    add(c, "export GPG_PASSPHRASE='a b c'", f"export GPG_PASSPHRASE='{p}'", p)
    p = g.phrase()
    add(c, 'passphrase = "a b c"', f'[signing]\npassphrase = "{p}"', p)
    p = g.phrase()
    add(c, '--passphrase "a b c"', f'gpg --batch --passphrase "{p}" -d secrets.gpg', p)

    # ------------------------------------------------ human-made passwords in secret positions
    c = "human"
    p = g.human()
    add(c, "api_token: human", f"api_token: {p}", p)
    p = g.human()
    add(c, "--token human", f"deployctl push --token {p} --env prod", p)
    p = g.human()
    add(c, "auth_key = human", f'auth_key = "{p}"', p)
    p = g.human()
    add(c, "SECRET_KEY=human", f"SECRET_KEY={p}", p)

    # ------------------------------------------------ known once, masked everywhere
    c = "known_once"
    t = g.tok(40)
    add(c, ".env then bare in a title and a message",
        (f"cat .env\nAPI_SECRET={t}\n", f"Rotate {t}", f"I replaced {t} in the curl call"), t)
    p = g.pw()
    add(c, "bare before the assignment",
        (f"why does {p} show up in the log?", f"export DB_PASSWORD={p}"), p)
    p = g.pw()
    add(c, "flag then pasted alone", (f"mysql -u root -p{p} shop", f"{p}"), p)
    t = g.tok(36)
    add(c, "url then bare", (f"git remote set-url origin https://bob:{t}@git.corp.io/r.git", f"token was {t}"), t)
    p = g.human()
    add(c, "json field then prose", ('{"password": "' + p + '"}', f"it says {p} is invalid"), p)

    # ------------------------------------------------ masks no wider than the secret
    c = "narrow"
    p = g.pw()
    add(c, "postgres", f"postgres://app:{p}@db.internal:5432/appdb", p, keep=("db.internal:5432/appdb", "app:"))
    p = g.pw()
    add(c, "mysql", f"mysql://root:{p}@10.0.0.7:3306/shop", p, keep=("10.0.0.7:3306/shop",))
    p = g.pw()
    add(c, "amqp", f"amqp://guest:{p}@rabbit:5672/vhost", p, keep=("rabbit:5672/vhost",))
    p = g.pw()
    add(c, "redis", f"redis://default:{p}@redis-1.cache.local:6380/0", p, keep=("redis-1.cache.local:6380/0",))
    p = g.pw()
    add(c, "mongodb+srv", f"mongodb+srv://app:{p}@cluster0.ab1cd.mongodb.net/app?retryWrites=true", p,
        keep=("cluster0.ab1cd.mongodb.net/app?retryWrites=true",))
    p = g.pw()
    add(c, "ADO.NET", f"Server=tcp:srv1.database.windows.net,1433;Database=shop;User ID=app;Password={p};", p,
        keep=("Database=shop", "srv1.database.windows.net"))
    return out


def heldout_lookalikes(seed: int = 3) -> list[str]:
    """Text that must come out unchanged: it names secrets or looks random, but holds none."""
    g = _Gen(seed + 1)
    sha = g.chars(HEX, 40)
    return [
        "mkdir -p /srv/app/releases/20250101",
        "docker run -p 8080:80 -p 127.0.0.1:5432:5432 nginx",
        "ssh -p 2222 deploy@web1.corp.io",
        "pytest -p no:cacheprovider -q tests/",
        "git log --format=%H -n 5",
        f"git checkout {sha}",
        f"https://github.com/org/repo/commit/{sha}",
        f"docker pull ghcr.io/org/img@sha256:{g.chars(HEX, 64)}",
        'echo "$PASSWORD" | sudo -S true',
        'echo "$DB_PASS" | docker login -u bob --password-stdin',
        "cat ~/.pgpass && chmod 600 ~/.pgpass",
        "chpasswd < users.txt",
        "passwd --stdin bob < /root/pw.txt",
        "sudo -S systemctl restart nginx",
        f"request id {uuid.UUID(int=g.rng.getrandbits(128))} failed",
        "token_count = 512",
        "max_tokens: 4096",
        "the password is wrong, try again",
        "password reset link sent to the user",
        "def get_password(self) -> str:",
        "const authToken = getToken();",
        "base64 -d < payload.b64 > payload.bin",
        "echo 'aGVsbG8gd29ybGQ=' | base64 -d",
        "https://api.telegram.org/bot<token>/getMe",
        "https://discord.com/api/webhooks",
        "setenv PATH /usr/local/bin:$PATH",
        "setenv EDITOR vim",
        "net user bob /domain",
        "net use Z: \\\\fs01\\share /persistent:yes",
        "--password-file /run/secrets/db_password",
        'psql -h db -U app -p 5432 -c "select 1"',
        "key: ctrl+shift+p",
        "The admin password is stored in Vault under kv/admin.",
        "the token is expired",
        "secret: true",
        "/tmp/pytest-of-bob/pytest-12/test_login0/out.json",
        "node_modules/.pnpm/react-dom@18.2.0_react@18.2.0/node_modules/react-dom/index.js",
        f"https://storage.googleapis.com/builds/{g.chars(HEX, 16)}.tar.gz",
        "https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.min.js",
        "src/components/PasswordResetForm.tsx:42:7",
        "export const SECRET_NAME = 'prod/db/password'",
        "admin password policy: min 12 chars",
        f"integrity sha512-{base64.b64encode(g.rng.randbytes(64)).decode()}",
        "curl -H 'Accept: application/json' https://api.github.com/repos/org/repo",
        "https://hooks.slack.com/services",
        "ls /api/webhooks/handlers/",
        "git clone git@github.com:org/repo.git",
        "postgres://localhost:5432/appdb",
        "mysql -u root -p shop",
        "openssl rand -base64 32",
        "echo $API_TOKEN | wc -c",
    ]
