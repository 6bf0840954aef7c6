"""Must-match and must-not-match samples of the structure rules (as gitleaks keeps them).

`MUST_MATCH[rule]`: templates whose `{pw}` / `{tok}` / `{b64pw}` / `{human}` slots get fresh values;
each value must be masked. `MUST_NOT_MATCH[rule]`: text that must come out unchanged. The
rules were written from these samples, so recall on them is optimistic by construction;
the held-out set (tests/redaction_heldout) is the honest measure. Used by
tests/test_redact_structure.py and bench/bench_redaction_recall.py.
"""

from __future__ import annotations

import base64
import random
import string
from dataclasses import dataclass

from mnemonic import Mnemonic

ALNUM = string.ascii_letters + string.digits
PW = ALNUM + "-_.+^~!*%,="

MUST_MATCH: dict[str, tuple[str, ...]] = {
    "stdin-secret": (
        "echo {pw} | sudo -S apt-get update",
        "echo '{pw}' | sudo -kS reboot",
        'echo "root:{pw}" | chpasswd',
        "echo '{pw}' | passwd --stdin alice",
        "printf '%s\\n' '{pw}' | podman login -u bob --password-stdin quay.io",
        "echo {tok} | gh auth login --with-token",
        "gh secret set API_TOKEN <<< '{tok}'",
        "sudo -S <<< {pw} apt-get upgrade",
        "echo -n {tok} | npx wrangler secret put TOKEN",
        "yes '{pw}' | sudo -S true",
        "passwd deploy <<EOF\n{pw}\n{pw}\nEOF",
        "sudo -S bash <<'END'\n{human}\nEND",
        "ansible-playbook site.yml --vault-password-file=/dev/stdin <<< '{pw}'",
        "echo '{pw}' | ansible-vault view --vault-password-file /dev/stdin vault.yml",
        "restic -r s3:bucket backup --password-file - <<< '{pw}'",
        "kubectl create secret generic db --from-file=password=/dev/stdin <<< '{pw}'",
        "borg init -e repokey --passphrase-file=/dev/fd/0 repo <<< {human}",
    ),
    "prompt-answer": (
        "spawn ssh bob@host\nexpect \"*assword*\"\nsend \"{pw}\\r\"\ninteract",
        "expect -c 'spawn sudo -k id; expect password:; send \"{pw}\\r\"'",
        "child.expect('[Pp]assword:')\nchild.sendline('{pw}')",
        "child.expect(['Password: ', pexpect.EOF])\nchild.sendline(\"{human}\")",
        "chan.recv_until(b'assword: ')\nchan.send('{pw}\\n')",
        "expect \"Enter passphrase for key\" {{ send -- \"{tok}\\r\" }}",
    ),
    "seed-phrase": (
        'export MNEMONIC="{seed}"',
        "wallet = Wallet.from_mnemonic('{seed}')",
        "Your recovery phrase:\n{seed}\nWrite it down.",
    ),
    "login-pair": (
        'requests.get(url, auth=("deploy", "{pw}"))',
        "conn.auth = HTTPDigestAuth(user, '{pw}')",
        'var cred = new NetworkCredential("svc", "{pw}");',
        'server.login("alerts@corp.io", "{pw}")',
        'conn.simple_bind_s("cn=admin,dc=corp", "{pw}")',
    ),
    "table-value": (
        " id | login |   password   \n----+-------+--------------\n  1 | bob   | {pw}\n(1 row)",
        "+----+-----------+\n| id | api_token |\n+----+-----------+\n|  1 | {tok} |\n+----+-----------+",
        'user,email,password\nbob,bob@corp.io,"{pw}"\n',  # a writer quotes a cell holding a comma
        "host\tdb_password\nprod\t{pw}\n",
        "| service | secret |\n|---|---|\n| billing | {tok} |",
        "COPY accounts (id, passphrase) FROM stdin;\n1\t{human}\n\\.",
        "NAME      ACCESS_TOKEN\nci-bot    {tok}\n",
    ),
    "pgpass-line": (
        "localhost:5432:mydb:alice:{pw}",
        "$ cat ~/.pgpass\\ndb.prod.internal:*:*:app:{pw}\\n",
        "*:5432:*:postgres:{pw}",
        "cat .pgpass\\\\ndb:5432:app:bob:{pw}\\\\n",  # escaped twice: JSON in JSON
    ),
    "password-hash-line": (
        "admin:$apr1${salt}${tok}",
        "root:$6${salt}${tok}:19700:0:99999:7:::",
        "deploy:{{SHA}}{b64pw}",
    ),
    "url-path-token": (
        "https://discord.com/api/webhooks/123456789012345678/{tok}",
        "https://api.telegram.org/bot123456789:{tok}/getMe",
        "POST chat.corp.io/hooks/{tok} 200",
        "https://maker.ifttt.com/trigger/evt/with/key/{tok}",
    ),
    "base64-secret": (
        "echo '{b64pw}' | base64 -d",
        "echo {b64pw} | base64 --decode > /tmp/pw",
        "PW=$(base64 -d <<< {b64pw})",
        "[Convert]::FromBase64String('{b64pw}')",
    ),
    "flag-secret": (
        "ipmitool -H 10.0.0.1 -U admin -P {pw} power status",
        "pscp -pw {pw} a.txt bob@host:/tmp",
        "crackmapexec smb 10.0.0.0/24 -u admin -p {pw}",
        "cmdkey /add:srv /user:bob /pass:{pw}",
        "smbcacls //srv/share dir -U 'DOM\\bob%{pw}'",
        "somecli -p {human} --verbose",
        "tool -P{human}",
    ),
    "net-secret": (
        "net user backup {pw} /add",
        "net use Z: \\\\srv\\share {pw} /user:DOM\\bob",
        "NET USER svc {pw}",
    ),
    "prose-secret": (
        "admin password {pw}",
        "the admin password is {human}",
        "password for the staging db is {pw}",
        "my api token {tok}",
        "New password: {human}",
        "root pw is {pw}, change it",
    ),
    "sql-password": (
        "CREATE USER 'app'@'%' IDENTIFIED BY '{pw}';",
        "ALTER USER app IDENTIFIED BY PASSWORD '{pw}';",
        'psql -c "ALTER ROLE app WITH LOGIN PASSWORD \'{pw}\';"',
        "CREATE LOGIN app WITH PASSWORD = '{human}';",
        "SET PASSWORD FOR 'root'@'localhost' = '{pw}';",
        "SET PASSWORD FOR bob = PASSWORD('{pw}');",
    ),
    "flag-pair": (
        "http -a admin:{pw} GET https://api.x.io",
        "ab -n 5 -A deploy:{human} https://x.io/",
        "hey --auth=bob:{pw} https://x.io/",
        "tool --basic-auth bob:{tok}",
    ),
    "prose-quoted": (
        "Log in with password '{pw}' and change it.",
        'I set the password to "{human}" for now',
        "use {human} as the password",
        "Here is the token:\n{tok}",
        "user: admin pass: {pw}",
    ),
    "secret-assignment": (
        "setenv DB_PASS {pw}",
        "setenv GITHUB_TOKEN {tok}",
        "api_token: {human}",
        "--token {human}",
        # an element its `name`/`key` attribute names: Java properties in XML, Hibernate, Ant, log4j
        '<entry key="db.password">{pw}</entry>',
        "<property name=\"hibernate.connection.password\">{pw}</property>",
        "<item id=\"7\" key='smtp_password' type=\"string\">{pw}</item>",
        '<entry key=\\"api.token\\">{tok}</entry>',
    ),
}

MUST_NOT_MATCH: dict[str, tuple[str, ...]] = {
    "login-pair": ('requests.get(url, auth=(user, password))', 'render_login(request, "login.html")',
                   'HTTPBasicAuth("bob", "<password>")', "fn.bind(this, 'click')"),
    "table-value": ("| Variable | Description |\n|---|---|\n| API_TOKEN | Your API token |",
                    "name,password\nalice,changeme\nbob,${DB_PASSWORD}\n",
                    "model  token_count\ngpt-4  123456\n", "key\tvalue\nretries\t3\n",
                    "grep -r token src | wc -l\nfoo | bar"),
    "stdin-secret": ('echo "$PW" | sudo -S true', "echo $TOKEN | gh auth login --with-token", "echo hi | cat",
                     "echo done | tee log.txt", "sudo -S ls < /dev/null", "echo y | apt-get install x",
                     "yes | sudo apt-get install nginx", "cat <<EOF > notes.txt\nhello world 2024!\nEOF",
                     "std::cout << value << std::endl;", "passwd bob <<EOF\n$PW\n$PW\nEOF",
                     "cat <<< 'hello' | wc -c", "jq . /dev/stdin <<< '{\"a\": \"hello2024!\"}'",
                     "tool --config-file /dev/stdin <<< 'debug=true'", "kubectl apply -f - <<< 'apiVersion: v1'",
                     "tool --input-file=/dev/stdin <<< 'Tr0ub4dor&3'", "python - <<< 'print(12345)'"),
    "prompt-answer": ("expect \"*assword*\"\nsend \"$env(PW)\\r\"", "child.expect('Password:')\nchild.sendline(pw)",
                      "expect \"$ \"\nsend \"ls -la\\r\"", "Please send the password reset email to the user.",
                      "expect \"login:\"\nsend \"bob\\r\"\nexpect \"assword:\"\nsend \"$pw\\r\"",
                      "child.expect('Password:')\nchild.sendline(os.environ['PW'])"),
    "pgpass-line": ("12:30:45:99:00", "localhost:5432:mydb", "at 2025-01-01T10:20:30:40:50", "a:b:c:d:e",
                    "host:5432:db:user:$PGPASSWORD", "File \"x.py\", line 12, in f: 1:2:3:4"),
    "password-hash-line": ("price: $5$ each", "echo $1$2", "cost:$2y$ (bcrypt)"),
    "url-path-token": ("https://discord.com/api/webhooks", "https://api.telegram.org/bot<token>/getMe",
                       "see /hooks/useState/README.md", "https://github.com/org/repo/blob/main/src/hooks/useAuth.ts",
                       "https://example.com/key/value", "/api/v1/tokens/list"),
    "base64-secret": ("echo 'aGVsbG8gd29ybGQ=' | base64 -d", "base64 -d < in.b64", "echo $B64 | base64 -d",
                      "echo 'IyEvYmluL2Jhc2gKZWNobyBoaQo=' | base64 -d | bash"),
    "flag-secret": ("mkdir -p src/app/components",
                    "mkdir -p ../AOJ-101-integration_agent/.github/workflows", "docker run -p 8080:80 nginx",
                    "ssh -p 2222 host",
                    "pytest -p no:cacheprovider", "mvn -P release-2024 package", "cp -p a b", "gcc -pthread x.c",
                    "sysctl -w net.ipv4.ip_forward=1", "msbuild x.sln /p:Configuration=Release", "patch -p1 < x.diff",
                    "python -m pip install -P constraints.txt",
                    "hf secrets add me/x -s OPENAI_API_KEY=sk-...", "sed -n 1,20p file", "tar -xzf a.tgz -C /tmp",
                    "smbclient -U bob", "date -u +%H:%M", "kubectl logs -p pod-7d9f8", "hugo -p MyTheme2",
                    "zstd -k -p 4 file"),
    "net-secret": ("net user bob /domain", "net user", "net use Z: \\\\srv\\share /persistent:yes",
                   "net use \\\\srv\\share * /user:bob", "net use Z: /delete", "the net user count"),
    "prose-secret": ("token limits the served OpenAI-compatible deployments",
                     "the password is wrong", "password reset link sent", "Token usage: 1234 tokens",
                     "the admin password policy requires 12 chars", "password: ${DB_PASSWORD}",
                     "your api token here", "apiKey: env.API_KEY,", "password hashing with bcrypt",
                     "secret manager path prod/db/password", "token: string;", "token expires in 3600 seconds",
                     "password:O,rawPassword:k,level:ee", "password for the db is stored in Vault"),
    "sql-password": ("CREATE USER app IDENTIFIED BY PASSWORD;", "ALTER ROLE app WITH PASSWORD NULL;",
                     "SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$PW');", "<Password></Password>",
                     "-- password 'x' is too short"),
    "flag-pair": ("docker run --user 1000:1000 img", "http -a $USER:$PASS GET x", "ssh -A bob@bastion",
                  "ls -a /tmp", "tar -A -f a.tar b.tar", "tool -a key:value"),
    "prose-quoted": ('(r.M,{ref:u,type:p?"text":"password",disabled:o,className:e})',
                     "The password 'must' be 12 characters", "PASS: test_login", "password: '<your password>'",
                     "use it as the password field", "Here is the token:\nexpired", "pass: true"),
    "secret-assignment": ("setenv PATH /usr/bin:$PATH", "setenv EDITOR vim", "api_token: string",
                          "--token-file /run/tok", "max_tokens: 4096", "key: ctrl+shift+p",
                          # found in library code once tier-2 names took human-made passwords
                          'key: "Control+Shift+T"', "credentials: Base64-encoded credentials",
                          "def f(self, key: PositionalIndexer2D) -> Self:", "o.key=t?r.C0.ESC+`OA`:r.C0.ESC+`[A`",
                          'char *key = "__f2py_cb_#name#";', '"result_key": "ProductsV2"',
                          'key = "actions_dreamed_t0_to_H_BxT"',
                          '<entry key="password.min.length">12</entry>',
                          '<entry key="db.password">${DB_PASSWORD}</entry>',
                          '<property name="passwordEncoder" ref="encoder"/><bean>x</bean>',
                          '<label for="password">Password</label>'),
}


@dataclass(frozen=True)
class Sample:
    rule: str
    template: str
    text: str
    secrets: tuple[str, ...]


def _fill(template: str, rng: random.Random) -> tuple[str, tuple[str, ...]]:
    def mixed(alphabet: str, n: int) -> str:
        while True:
            s = rng.choice(ALNUM) + "".join(rng.choice(alphabet) for _ in range(n - 1))  # not a flag
            if any(c.isdigit() for c in s) and any(c.islower() for c in s) and any(c.isupper() for c in s):
                return s

    values = {
        "pw": mixed(PW, rng.randint(10, 18)),
        "tok": mixed(ALNUM, rng.randint(32, 48)),
        "salt": mixed(ALNUM, 8),
        "human": rng.choice(["Spring", "Winter", "Harbor", "Falcon"]) + str(rng.randint(1990, 2030))
        + rng.choice("!#@%*") + rng.choice(["Deploy", "Ops", "Admin", "Team"]),
    }
    values["b64pw"] = base64.b64encode(values["pw"].encode()).decode()
    # a wallet's recovery phrase from its own generator (the others' values stay as they were)
    values["seed"] = Mnemonic("english").to_mnemonic(random.Random(f"{template}{rng.getstate()[1][0]}").randbytes(16))
    text = template.format(**values)
    used = [k for k in ("pw", "tok", "human", "b64pw", "seed") if "{" + k + "}" in template]
    return text, tuple(values[k] for k in used)


def samples(seed: int = 5) -> list[Sample]:
    rng = random.Random(seed)
    out = []
    for rule, templates in MUST_MATCH.items():
        for t in templates:
            text, secrets = _fill(t, rng)
            out.append(Sample(rule, t, text, secrets))
    return out


@dataclass(frozen=True)
class _Case:
    category: str
    form: str
    texts: tuple[str, ...]
    secrets: tuple[str, ...]
    keep: tuple[str, ...] = ()


def structure_cases(seed: int = 5) -> list[_Case]:
    """The must-match samples as bench cases (bench/bench_redaction_recall.py)."""
    return [_Case(s.rule, s.template, (s.text,), s.secrets) for s in samples(seed)]


def structure_lookalikes() -> list[str]:
    return [t for ts in MUST_NOT_MATCH.values() for t in ts]
