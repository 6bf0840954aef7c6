"""Fresh fake secrets in real formats, and harmless look-alikes, for leak tests.

Every value is random (seedable), so a test that plants them in logs and then
searches the outputs for them cannot pass by accident: a leaked value is found
verbatim (or JSON-escaped) in the output, a masked one is not.

    gen = SecretGen(seed=7)
    planted = gen.planted(500)         # list[Planted]: text to plant + secrets in it
    clean = gen.lookalikes(200)        # list[str]: must come out unchanged

`Planted.secrets` are the exact strings that must not survive redaction.
`SecretGen.write_secret_file(path, planted)` writes them one per line, the format
of `shared/tools/forsy_check.py secrets PATH SECRET_FILE`.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import string
import urllib.parse
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
# Password alphabet: no quote, backslash, space or '@:/' so plain contexts stay parseable
PW_CHARS = ALNUM + "!#$%^&*-_+=.~"


@dataclass(frozen=True)
class Planted:
    """One planted snippet: `text` to put into a log, `secrets` that must be masked."""

    kind: str
    text: str
    secrets: tuple[str, ...]

    def leaks(self, output: str) -> list[str]:
        """The secrets of this snippet still readable in `output` (in any encoded form)."""
        return [s for s in self.secrets if any(f in output for f in forms(s))]


def forms(secret: str) -> set[str]:
    """The ways a secret shows up in logs: raw, JSON-escaped once or twice, URL-encoded."""
    once = json.dumps(secret)[1:-1]
    twice = json.dumps(once)[1:-1]
    return {secret, once, twice, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class SecretGen:
    """Random generator of fake credentials in their real shapes (seedable)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------ primitives
    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def _mixed(self, alphabet: str, n: int) -> str:
        """Random string guaranteed to hold a digit and a letter (like real tokens)."""
        while True:
            s = self.chars(alphabet, n)
            if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
                return s

    def password(self) -> str:
        """A human-ish or random password (what people paste into configs)."""
        if self.rng.random() < 0.3:
            word = self.rng.choice(["summer", "dragon", "Monkey", "Sunshine", "letmein", "Welcome", "qwerty"])
            return f"{word}{self.rng.randint(10, 9999)}{self.rng.choice('!#$%&*')}"
        return self._mixed(PW_CHARS, self.rng.randint(12, 24))

    # ------------------------------------------------------------ token formats
    def aws_key_id(self) -> str:
        return self.rng.choice(["AKIA", "ASIA"]) + self.chars(string.ascii_uppercase + "234567", 16)

    def aws_secret(self) -> str:
        return self._mixed(B64, 40)

    def github(self) -> str:
        # Real classic tokens end in a base62 CRC32 of the random part
        prefix = self.rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
        body = self._mixed(ALNUM, 30)
        crc = binascii.crc32(body.encode())
        check = ""
        while crc:
            crc, r = divmod(crc, 62)
            check = B62[r] + check
        return prefix + body + check.rjust(6, "0")

    def github_fine(self) -> str:
        return "github_pat_" + self._mixed(ALNUM, 22) + "_" + self._mixed(ALNUM, 59)

    def gitlab(self) -> str:
        return "glpat-" + self._mixed(URLSAFE, 20)

    def slack(self) -> str:
        kind = self.rng.choice("bpoars")
        nums = "-".join(str(self.rng.randint(10**9, 10**13)) for _ in range(2))
        return f"xox{kind}-{nums}-{self._mixed(ALNUM, 24)}"

    def stripe(self) -> str:
        return self.rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + self._mixed(ALNUM, self.rng.choice([24, 99]))

    def openai(self) -> str:
        if self.rng.random() < 0.5:
            return "sk-" + self._mixed(ALNUM, 20) + "T3BlbkFJ" + self._mixed(ALNUM, 20)
        return "sk-proj-" + self._mixed(URLSAFE, 74) + "T3BlbkFJ" + self._mixed(URLSAFE, 74)

    def anthropic(self) -> str:
        return "sk-ant-api03-" + self._mixed(URLSAFE, 93) + "AA"

    def google(self) -> str:
        return "AIza" + self._mixed(URLSAFE, 35)

    def huggingface(self) -> str:
        return "hf_" + self.chars(string.ascii_letters, 34)

    def npm(self) -> str:
        return "npm_" + self._mixed(ALNUM, 36)

    def jwt(self) -> str:
        header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = {"sub": str(self.rng.randint(10**6, 10**9)), "name": self.chars(string.ascii_lowercase, 8),
                  "iat": self.rng.randint(1_500_000_000, 1_800_000_000)}
        payload = _b64url(json.dumps(claims).encode())
        sig = _b64url(self.rng.randbytes(32))
        return f"{header}.{payload}.{sig}"

    def pem(self) -> str:
        label = self.rng.choice(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])
        body = base64.b64encode(self.rng.randbytes(self.rng.choice([120, 600, 1190]))).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def hex_secret(self, n: int = 32) -> str:
        return self.chars(HEX, n)

    # ------------------------------------------------------------ planted snippets
    def _p(self, kind: str, text: str, *secrets: str) -> Planted:
        return Planted(kind, text, tuple(secrets))

    def p_aws(self) -> Planted:
        kid, sec = self.aws_key_id(), self.aws_secret()
        text = self.rng.choice([
            f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {sec}\n",
            f"export AWS_ACCESS_KEY_ID={kid}\nexport AWS_SECRET_ACCESS_KEY={sec}",
            f'{{"AccessKeyId": "{kid}", "SecretAccessKey": "{sec}"}}',
        ])
        return self._p("aws", text, kid, sec)

    def p_aws_id_alone(self) -> Planted:
        kid = self.aws_key_id()
        return self._p("aws-key-id", f"the key {kid} was rotated", kid)

    def p_token(self) -> Planted:
        maker, names = self.rng.choice(self._token_makers())
        tok = maker()
        name = self.rng.choice(names)
        text = self.rng.choice([
            f"export {name}={tok}",
            f'{name}="{tok}"',
            f"I used {tok} to log in",
            f"token: {tok}",
            f"curl -H 'X-Api-Key: {tok}' https://api.example.com/v1/items",
            f'{{"env": {{"{name}": "{tok}"}}}}',
            f"{tok}",
        ])
        return self._p(maker.__name__, text, tok)

    def _token_makers(self) -> list[tuple[Callable[[], str], list[str]]]:
        return [
            (self.github, ["GITHUB_TOKEN", "GH_TOKEN"]), (self.github_fine, ["GITHUB_PAT"]),
            (self.gitlab, ["GITLAB_TOKEN"]), (self.slack, ["SLACK_BOT_TOKEN"]),
            (self.stripe, ["STRIPE_SECRET_KEY"]), (self.openai, ["OPENAI_API_KEY"]),
            (self.anthropic, ["ANTHROPIC_API_KEY"]), (self.google, ["GOOGLE_API_KEY"]),
            (self.huggingface, ["HF_TOKEN"]), (self.npm, ["NPM_TOKEN"]), (self.jwt, ["ACCESS_TOKEN"]),
        ]

    def p_pem(self) -> Planted:
        key = self.pem()
        text = self.rng.choice([key, f"$ cat ~/.ssh/id_rsa\n{key}\n$ ", f'PRIVATE_KEY="{key}"'])
        # Every body line is secret on its own: a half-masked key still leaks
        body = [line for line in key.splitlines() if len(line) >= 16 and not line.startswith("-----")]
        return self._p("pem", text, *body)

    def p_url(self) -> Planted:
        pw = self.password()
        enc = urllib.parse.quote(pw, safe="")
        user = self.chars(string.ascii_lowercase, 6)
        text = self.rng.choice([
            f"postgres://{user}:{enc}@db.internal:5432/app",
            f"DATABASE_URL=postgresql://{user}:{enc}@10.0.0.5/prod",
            f"mongodb+srv://{user}:{enc}@cluster0.ab12c.mongodb.net/?retryWrites=true",
            f"redis://:{enc}@cache.local:6379/0",
            f"git clone https://{user}:{enc}@git.example.com/team/repo.git",
            f"amqp://{user}:{enc}@rabbit:5672//",
        ])
        return self._p("url-password", text, enc)

    def p_auth_header(self) -> Planted:
        if self.rng.random() < 0.3:
            tok = base64.b64encode(f"{self.chars(string.ascii_lowercase, 6)}:{self.password()}".encode()).decode()
            return self._p("basic-auth", f"Authorization: Basic {tok}", tok)
        tok = self._mixed(URLSAFE + ".", self.rng.randint(24, 64))
        text = self.rng.choice([
            f"Authorization: Bearer {tok}",
            f'curl -s -H "Authorization: Bearer {tok}" https://api.example.com/me',
            f'{{"headers": {{"Authorization": "Bearer {tok}"}}}}',
            f"authorization: bearer {tok}",
        ])
        return self._p("bearer", text, tok)

    def p_cookie(self) -> Planted:
        val = self._mixed(URLSAFE, 32)
        text = self.rng.choice([f"Cookie: session={val}", f"Set-Cookie: sid={val}; Path=/; HttpOnly; Secure"])
        return self._p("cookie", text, val)

    def p_env(self) -> Planted:
        name = self.rng.choice(["DB_PASSWORD", "SECRET_KEY", "STRIPE_SECRET", "API_TOKEN", "JWT_SECRET",
                                "POSTGRES_PASSWORD", "SESSION_SECRET", "APP_KEY", "SMTP_PASS", "AUTH_TOKEN"])
        val = self.password() if "PASS" in name else self._mixed(ALNUM, self.rng.randint(24, 48))
        return self._p("env", f"NODE_ENV=production\n{name}={val}\nPORT=3000", val)

    def p_mysql(self) -> Planted:
        pw = self._mixed(ALNUM + "!#%^*_", self.rng.randint(10, 18))
        text = self.rng.choice([
            f"mysql -u root -p{pw} -h 127.0.0.1 shop",
            f"mysqldump --user=admin --password={pw} shop > dump.sql",
            f"mysql -uroot -p'{pw}' -e 'show databases'",
        ])
        return self._p("mysql", text, pw)

    def p_generic(self) -> Planted:
        pw = self.password()
        hexv = self.hex_secret(self.rng.choice([32, 40, 64]))
        choice = self.rng.randrange(7)
        if choice == 0:
            return self._p("generic", f'password = "{pw}"', pw)
        if choice == 1:
            return self._p("generic", json.dumps({"username": "svc", "password": pw}), pw)
        if choice == 2:
            return self._p("generic", f"database:\n  user: app\n  password: {pw}\n  host: db", pw)
        if choice == 3:
            return self._p("generic", f"api_key: {hexv}", hexv)
        if choice == 4:
            return self._p("generic", f"client_secret='{pw}'", pw)
        if choice == 5:
            tok = self._mixed(ALNUM, 40)
            return self._p("generic", f"config.access_token = '{tok}'", tok)
        return self._p("generic", f"--api-key={hexv}", hexv)

    def p_config(self) -> Planted:
        """Config and tool formats seen in logs beyond plain `name=value` lines."""
        pw, tok = self.password(), self._mixed(ALNUM, self.rng.randint(24, 40))
        b64 = base64.b64encode(pw.encode()).decode()
        user = self.chars(string.ascii_lowercase, 5)
        choices = [
            (f"<configuration><password>{pw}</password></configuration>", pw),
            (f"[client]\nuser = {user}\npassword = {pw}\n", pw),
            (f'[database]\npassword = "{pw}"\nport = 5432', pw),
            (f"machine api.example.com\n  login {user}\n  password {pw}\n", pw),
            (f"apiVersion: v1\nkind: Secret\ndata:\n  password: {b64}\n", b64),
            (f"docker run -e API_KEY={tok} -p 8080:8080 app", tok),
            (f"curl -X POST https://api.example.com/login -d 'username={user}&password={pw}&remember=1'", pw),
            (f"const client = new Client({{ apiKey: '{tok}', region: 'eu' }})", tok),
            (f"| name | value |\n|---|---|\n| SECRET_KEY | {tok} |", tok),
            (f"settings = {{'db_password': '{pw}', 'debug': False}}", pw),
            (f'headers = {{"X-Api-Key": "{tok}"}}', tok),
            (f"HEROKU_API_KEY={uuid.UUID(int=self.rng.getrandbits(128), version=4)}", ""),
        ]
        text, secret = self.rng.choice(choices)
        if not secret:  # a UUID is a secret next to a key name
            secret = text.split("=", 1)[1]
        return self._p("config", text, secret)

    def planted_one(self) -> Planted:
        makers = [self.p_aws, self.p_aws_id_alone, self.p_token, self.p_token, self.p_token, self.p_pem,
                  self.p_url, self.p_auth_header, self.p_cookie, self.p_env, self.p_mysql, self.p_generic,
                  self.p_config, self.p_config]
        return self.rng.choice(makers)()

    def planted(self, n: int, *, contexts: bool = True) -> list[Planted]:
        """n planted snippets, each optionally wrapped in a random log context."""
        out = [self.planted_one() for _ in range(n)]
        return [self.in_context(p) for p in out] if contexts else out

    # ------------------------------------------------------------ contexts
    def in_context(self, p: Planted) -> Planted:
        """Wrap a snippet like agent logs do: prose, JSON-in-string, tool output, URL-encoded..."""
        how = self.rng.randrange(8)
        t = p.text
        if how == 0:
            text = f"Here is what I found:\n\n```\n{t}\n```\nLet me continue."
        elif how == 1:  # a tool argument: JSON held in a string, so quotes and newlines are escaped
            text = json.dumps({"command": t, "description": "run it"})
        elif how == 2:  # JSON-in-string inside a JSONL record: escaped twice
            text = json.dumps({"type": "tool_use", "input": json.dumps({"content": t})})
        elif how == 3:
            text = f"$ cat .env\n{t}\n$ echo done\ndone"
        elif how == 4:  # URL-encoded, as in a logged query string
            text = "GET /callback?state=abc&data=" + urllib.parse.quote(t, safe="") + " HTTP/1.1"
        elif how == 5:
            text = f"- step 3: configured the client ({t}) and retried"
        else:
            text = t
        return Planted(p.kind, text, p.secrets)

    # ------------------------------------------------------------ look-alikes
    def lookalike(self) -> str:
        makers: list[Callable[[], str]] = [
            lambda: str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
            lambda: f"commit {self.hex_secret(40)}\nAuthor: CI <ci@localhost>",
            lambda: f'"sha": "{self.hex_secret(40)}"',
            lambda: f"sha256:{self.hex_secret(64)}",
            lambda: f"{self.hex_secret(64)}  dist/app.tar.gz",
            lambda: f'"integrity": "sha512-{base64.b64encode(self.rng.randbytes(64)).decode()}"',
            lambda: "data:image/png;base64," + base64.b64encode(self.rng.randbytes(3000)).decode(),
            lambda: json.dumps({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                            "data": base64.b64encode(self.rng.randbytes(2400))
                                                            .decode()}}),
            lambda: f"v{self.rng.randint(0, 30)}.{self.rng.randint(0, 99)}.{self.rng.randint(0, 999)}",
            lambda: f"version {self.rng.randint(1, 9)}.{self.rng.randint(0, 20)}.{self.rng.randint(0, 20)}-rc.1",
            lambda: f"2024-0{self.rng.randint(1, 9)}-1{self.rng.randint(0, 9)}T12:{self.rng.randint(10, 59)}:07.123Z",
            lambda: f"src/app/main.py:{self.rng.randint(1, 9999)}:{self.rng.randint(1, 80)}",
            lambda: f"listening on http://localhost:{self.rng.randint(1024, 65535)}",
            lambda: f'{{"input_tokens": {self.rng.randint(1, 99999)}, "output_tokens": {self.rng.randint(1, 9999)}}}',
            lambda: f"max_tokens={self.rng.randint(256, 8192)}",
            lambda: 'password = os.environ["DB_PASSWORD"]',
            lambda: "token = get_token(session)",
            lambda: "api_key=${OPENAI_API_KEY}",
            lambda: '"token_type": "bearer"',
            lambda: f"toolu_01{self.chars(ALNUM, 22)}",
            lambda: f'"id": "msg_01{self.chars(ALNUM, 22)}"',
            lambda: f"#{self.hex_secret(6)}",
            lambda: f"pid {self.rng.randint(100, 99999)} exited with code {self.rng.randint(0, 255)}",
            lambda: "def check_password(password: str) -> bool:",
            lambda: f"docker pull ghcr.io/acme/app@sha256:{self.hex_secret(64)}",
        ]
        return self.rng.choice(makers)()

    def lookalikes(self, n: int) -> list[str]:
        return [self.lookalike() for _ in range(n)]

    @staticmethod
    def write_secret_file(path: Path, planted: Iterable[Planted]) -> None:
        """One secret per line, as read by forsy_check.py secrets."""
        lines = [s for p in planted for s in p.secrets]
        path.write_text("# planted by tests/secretgen.py\n" + "\n".join(lines) + "\n", encoding="utf-8")
