"""A second held-out set, written after the structure rules and before any change made
from it: forms none of the rules' samples nor the first held-out set holds. Measured by
bench/bench_redaction_recall.py --set heldout2; not to be tuned on (see heldout.py)."""

from __future__ import annotations

import base64

from heldout import ALNUM, URLSAFE, Case, _Gen


def heldout2_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 100)
    out: list[Case] = []

    def add(category: str, form: str, text: str | tuple[str, ...], *secrets: str, keep: tuple[str, ...] = ()) -> None:
        out.append(Case(category, form, (text,) if isinstance(text, str) else text, secrets, keep))

    c = "cmdline"
    p = g.pw()
    add(c, "mysql --password=''", f"mysql -h db -u app --password='{p}' app < schema.sql", p)
    p = g.pw()
    add(c, "pg_restore PGPASSWORD= prefix", f"PGPASSWORD={p} pg_restore -h db -U app -d app dump.sql", p)
    p = g.pw()
    add(c, "ftp URL in wget", f"wget ftp://backup:{p}@ftp.corp.io/db.tgz", p, keep=("ftp.corp.io/db.tgz",))
    p = g.pw()
    add(c, "openssl -passout pass:", f"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{p}", p)
    p = g.pw()
    add(c, "-Password (ConvertTo-SecureString)",
        f"$pw = ConvertTo-SecureString '{p}' -AsPlainText -Force; New-LocalUser bob -Password $pw", p)
    p = g.pw()
    add(c, "docker run -e PASSWORD=", f"docker run -d -e MYSQL_ROOT_PASSWORD={p} -p 3306:3306 mysql:8", p)
    t = g.tok(40)
    add(c, "docker build --build-arg TOKEN=", f"docker build --build-arg NPM_TOKEN={t} -t app .", t)
    p = g.pw()
    add(c, "-storepass on jarsigner", f"jarsigner -keystore ks.jks -storepass {p} app.apk alias", p)
    p = g.pw()
    add(c, "hydra-like -P? sqlmap --auth-cred", f"sqlmap -u http://t/x --auth-type=basic --auth-cred=admin:{p}", p)
    p = g.pw()
    add(c, "--db-pass", f"./migrate --db-host db --db-user app --db-pass {p}", p)
    p = g.human()
    add(c, "-pass (human)", f"vpncli connect -user bob -pass {p} -server vpn.corp.io", p)
    p = g.pw()
    add(c, "sshpass -p in rsync -e", f"rsync -e \"sshpass -p {p} ssh\" -av dist/ deploy@web:/srv", p)
    p = g.pw()
    add(c, "winrs -p:", f"winrs -r:srv01 -u:admin -p:{p} ipconfig", p)
    p = g.pw()
    add(c, "runas-like psexec -p", f"psexec \\\\srv01 -u admin -p {p} cmd", p)
    t = g.tok(36)
    add(c, "TF_VAR_x_token=", f"TF_VAR_cloudflare_api_token={t} terraform plan", t)

    c = "stdin"
    p = g.pw()
    add(c, "yes X | cmd", f"yes '{p}' | sudo -S true", p)
    p = g.pw()
    add(c, "heredoc to passwd", f"passwd bob <<EOF\n{p}\n{p}\nEOF", p)
    p = g.pw()
    add(c, "expect send", f'expect -c \'spawn ssh bob@h; expect "password:"; send "{p}\\r"; interact\'', p)
    t = g.tok(40)
    add(c, "echo | vault login -", f"echo {t} | vault login -", t)
    p = g.pw()
    add(c, "printf | openssl -passin stdin", f"printf '{p}' | openssl rsa -in k.pem -passin stdin -out k.txt", p)

    c = "credfile"
    p = g.pw()
    add(c, "docker-compose environment list",
        f"    environment:\n      - POSTGRES_PASSWORD={p}\n      - POSTGRES_DB=app", p)
    t = g.tok(40)
    add(c, "kubeconfig token", f"users:\n- name: admin\n  user:\n    token: {t}\n", t)
    p = g.pw()
    add(c, "application.properties",
        f"spring.datasource.url=jdbc:mysql://db:3306/app\nspring.datasource.password={p}", p)
    p = g.pw()
    add(c, "ini [database] pass =", f"[database]\nhost = db\nuser = app\npass = {p}\n", p)
    p = g.pw()
    add(c, "XML connectionString", f'<add name="Db" connectionString="Server=db;User Id=sa;Password={p};" />', p,
        keep=("Server=db",))
    p = g.pw()
    add(c, "shadow line sha512", f"deploy:$6${g.chars(ALNUM, 8)}${g.chars(ALNUM + './', 86)}:19800:0:99999:7:::",
        "")  # the hash is checked below
    out.pop()
    h = "$6$" + g.chars(ALNUM, 8) + "$" + g.chars(ALNUM + "./", 86)
    add(c, "shadow line sha512", f"deploy:{h}:19800:0:99999:7:::", h)
    p = g.pw()
    add(c, "rclone.conf pass =", f"[remote]\ntype = sftp\nhost = files.corp.io\nuser = bob\npass = {p}\n", p)

    c = "url_path"
    t = g.chars(URLSAFE, 68)
    add(c, "discord webhook (ptb host)", f"https://ptb.discord.com/api/webhooks/{g.digits(18)}/{t}", t)
    t = g.chars(URLSAFE, 35)
    add(c, "telegram file URL", f"https://api.telegram.org/file/bot{g.digits(10)}:{t}/photos/file_1.jpg", t)
    t = g.tok(32)
    add(c, "generic ?access_token=", f"GET /v1/me?access_token={t} HTTP/1.1", t)
    t = g.tok(40)
    add(c, "ntfy/gotify ?token=", f"curl 'https://push.corp.io/message?token={t}' -F message=hi", t)
    t = g.chars(ALNUM, 24)
    add(c, "zapier hook id", f"https://hooks.zapier.com/hooks/catch/{g.digits(7)}/{t}/", t)

    c = "prose"
    p = g.pw()
    add(c, "creds are user / X", f"creds are admin / {p}", p)
    p = g.human()
    add(c, "login with X", f"log in as root with password {p}", p)
    t = g.tok(40)
    add(c, "the key is X", f"The API key is {t}, keep it safe", t)
    p = g.pw()
    add(c, "pw: X in a list", f"- host: db01\n- user: admin\n- pw: {p}", p)
    p = g.human()
    add(c, "password (quoted in prose)", f'I set the password to "{p}" for now', p)

    c = "encoded"
    b = base64.b64encode(f"{g.pw()}".encode()).decode()
    add(c, "base64 --decode <<<", f"base64 --decode <<< {b}", b)
    b = base64.b64encode(f"admin:{g.pw()}".encode()).decode()
    add(c, "Authorization: Basic in curl -H", f'curl -H "Authorization: Basic {b}" https://api.corp.io', b)
    b = base64.b64encode(g.tok(32).encode()).decode()
    add(c, "python b64decode", f"python3 -c \"import base64;print(base64.b64decode('{b}'))\"", b)

    c = "known_once"
    p = g.pw()
    add(c, "flag then log line", (f"ipmitool -H 10.0.0.5 -U admin -P {p} power on", f"auth failed for {p}"), p)
    t = g.tok(40)
    add(c, "URL token then error", (f"https://api.telegram.org/bot{g.digits(10)}:{t}/getMe",
                                    f"Error: token {t} rejected"), t)
    p = g.human()
    add(c, "prose then command", (f"admin password {p}", f"mysql -u admin -p'{p}'", f"pasted {p}"), p)

    c = "narrow"
    p = g.pw()
    add(c, "jdbc with params", f"jdbc:postgresql://db.corp.io:5432/app?user=app&password={p}&ssl=true", p,
        keep=("db.corp.io:5432/app", "ssl=true"))
    p = g.pw()
    add(c, "mssql URL", f"mssql://sa:{p}@sql01.corp.io:1433/shop", p, keep=("sql01.corp.io:1433/shop",))
    p = g.pw()
    add(c, "smb URL", f"smb://bob:{p}@nas.local/share", p, keep=("nas.local/share",))
    return out


def heldout2_lookalikes(seed: int = 3) -> list[str]:
    g = _Gen(seed + 101)
    return [
        "ssh-keygen -t ed25519 -C deploy@ci -f ~/.ssh/id_ed25519 -N ''",
        "docker run -e POSTGRES_PASSWORD=$POSTGRES_PASSWORD postgres:16",
        "echo \"$(date)\" | tee -a build.log",
        "yes | sudo apt-get install nginx",
        f"git show {g.chars('0123456789abcdef', 40)}:src/app.py",
        "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
        "openssl rand -hex 32 | tee secret.key",
        "The password field must be at least 12 characters.",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "Authorization: Bearer <token>",
        "Use `--password-stdin` instead of `-p`.",
        "net user %USERNAME% /domain",
        "python -m http.server -b 127.0.0.1 8000",
        "grep -rn 'password' src/ | head",
        "Set-Cookie: theme=dark; Path=/",
        "https://discord.com/api/webhooks/{id}/{token}",
        "docs/api/hooks/useSessionToken.md",
        "psql -h localhost -p 5433 -U postgres",
        "curl -u \"$USER:$PASS\" https://api.corp.io",
        "secret = os.environ['APP_SECRET']",
    ]
