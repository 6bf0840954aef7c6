"""A sixth held-out set, written in one sitting before any rule change made from it: what tools
print, as an agent's tool results and a pasted terminal hold it (CLI listings and dumps, REPLs,
database and cache shells, diffs and search results, network and device configuration, command
lines of remote-login tools). See heldout.py for how these sets are used."""

from __future__ import annotations

import base64

from heldout import URLSAFE, Case, _Gen


def heldout6_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 500)
    out: list[Case] = []

    def add(category: str, form: str, template: str, secret: str | None = None) -> None:
        s = secret if secret is not None else g.tok(g.rng.randint(20, 40))
        out.append(Case(category, form, (template.replace("{S}", s),), (s,)))

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    c = "cli listings"
    add(c, "heroku config", "=== acme-api Config Vars\nLOG_LEVEL:        info\nSTRIPE_SECRET:    {S}\n")
    add(c, "vercel env pull", '# Created by Vercel CLI\nVERCEL_OIDC_TOKEN="{S}"\n')
    add(c, "kubectl secret yaml data", "apiVersion: v1\ndata:\n  password: {S}\nkind: Secret\n", b64(g.pw()))
    add(c, "docker inspect Env", '"Env": [\n    "POSTGRES_PASSWORD={S}",\n    "PATH=/usr/local/sbin:/usr/bin"\n],')
    add(c, "docker compose config", "services:\n  cache:\n    environment:\n      REDIS_PASSWORD: {S}\n", g.pw())
    add(c, "aws sts credentials", '{\n    "Credentials": {\n        "AccessKeyId": "ASIAXXXXEXAMPLE",\n'
        '        "SecretAccessKey": "{S}",\n        "Expiration": "2026-11-29T01:00:00Z"\n    }\n}', g.tok(40))
    add(c, "terraform output -json", '{\n  "db_password": {\n    "sensitive": true,\n    "type": "string",\n'
        '    "value": "{S}"\n  }\n}', g.pw())
    add(c, "terraform console result", '> random_password.db.result\n"{S}"', g.pw())
    add(c, "vault kv get table", "====== Data ======\nKey        Value\n---        -----\napi_key    {S}\nowner      "
        "team-a\n")
    add(c, "pip config list", "global.index-url='https://ci:{S}@pypi.corp.example/simple'", g.pw())
    add(c, "git config extraheader", "http.https://github.com/.extraheader=AUTHORIZATION: basic {S}",
        b64("x-access-token:" + g.tok(36)))
    add(c, "git credential fill", "protocol=https\nhost=github.com\nusername=me\npassword={S}\n")
    add(c, "docker config.json auth", '{\n  "auths": {\n    "registry.example.com": {\n      "auth": "{S}"\n'
        '    }\n  }\n}', b64("deploy:" + g.pw()))
    add(c, ".pgpass line", "db.example.com:5432:app:app:{S}", g.pw())
    add(c, "rclone config show", "[s3]\ntype = s3\nprovider = AWS\nsecret_access_key = {S}\n", g.tok(40))
    add(c, "gh hosts.yml", "github.com:\n    user: me\n    oauth_token: {S}\n    git_protocol: https\n")
    add(c, "spring actuator env", '"spring.datasource.password": {\n  "value": "{S}",\n  "origin": "class path '
        'resource [application.yml] - 3:15"\n}', g.pw())
    add(c, "consul kv export", '[{"key": "app/db/password", "flags": 0, "value": "{S}"}]', b64(g.pw()))
    add(c, "etcdctl get", "/app/secrets/api_key\n{S}\n")
    add(c, "ssm get-parameter", '{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", '
        '"Value": "{S}", "Version": 3}}', g.pw())
    add(c, "grafana key created", '{"id":7,"name":"ci-bot","key":"{S}"}', g.tok(44))
    add(c, "npm token create box", "┌────────────────┬──────────────────────────────────────┐\n"
        "│ token          │ {S} │\n│ readonly       │ false                                │\n"
        "└────────────────┴──────────────────────────────────────┘", g.tok(36))
    add(c, "firebase login:ci", "✔  Success! Use this token to login on a CI server:\n\n{S}\n\n"
        "Example: firebase deploy --token \"$FIREBASE_TOKEN\"", "1//0" + g.chars(URLSAFE, 60))
    add(c, "supabase status", "         API URL: http://127.0.0.1:54321\n      JWT secret: {S}\n")
    add(c, "ngrok config", "version: \"2\"\nauthtoken: {S}\n", g.tok(49))
    add(c, "ansible -vvv var", '"ansible_become_password": "{S}",', g.pw())
    add(c, "helm get values", "postgresql:\n  auth:\n    username: app\n    password: {S}\n", g.pw())
    add(c, "stripe listen", "> Ready! Your webhook signing secret is {S} (^C to quit)")

    c = "printed by a command"
    add(c, "kubectl jsonpath | base64 -d", "$ kubectl get secret api -o jsonpath='{.data.token}' | base64 -d\n{S}\n")
    add(c, "keyring get", "$ keyring get github-api me\n{S}\n")
    add(c, "secret-tool lookup", "$ secret-tool lookup service smtp user bot\n{S}\n", g.pw())
    add(c, "cat /run/secrets", "$ cat /run/secrets/db_password\n{S}\n", g.pw())
    add(c, "jq -r .token", "$ jq -r .token ~/.config/acme/credentials.json\n{S}\n")
    add(c, "yq password", "$ yq '.auth.password' values.yaml\n{S}\n", g.pw())
    add(c, "node -e apiKey", "$ node -e \"console.log(require('./config').apiKey)\"\n{S}\n")
    add(c, "aws ecr get-login-password", "$ aws ecr get-login-password --region eu-west-1\n{S}\n",
        "eyJwYXlsb2FkIjoi" + g.tok(80))
    add(c, "openssl rand", "$ openssl rand -base64 32\n{S}\n", b64(g.tok(24)))
    add(c, "heroku auth:token", "$ heroku auth:token\n{S}\n", g.chars("0123456789abcdef-", 36))

    c = "repl"
    add(c, "python >>> environ", '>>> os.environ["STRIPE_KEY"]\n\'{S}\'')
    add(c, "ipython Out", "In [3]: settings.SECRET_KEY\nOut[3]: '{S}'")
    add(c, "node > process.env", "> process.env.API_TOKEN\n'{S}'")
    add(c, "rails console =>", 'irb(main):001> Rails.application.credentials.stripe_key\n=> "{S}"')
    add(c, "browser localStorage", "> localStorage.getItem('token')\n'{S}'")

    c = "database and cache shells"
    add(c, "redis CONFIG GET requirepass", '127.0.0.1:6379> CONFIG GET requirepass\n1) "requirepass"\n2) "{S}"',
        g.pw())
    add(c, "redis AUTH", "127.0.0.1:6379> AUTH {S}\nOK", g.pw())
    add(c, "mongo createUser pwd", 'db.createUser({user: "app", pwd: "{S}", roles: ["readWrite"]})', g.pw())
    add(c, "ALTER USER PASSWORD", "postgres=# ALTER USER app WITH PASSWORD '{S}';\nALTER ROLE", g.pw())
    add(c, "mysql IDENTIFIED BY", "mysql> CREATE USER 'app'@'%' IDENTIFIED BY '{S}';", g.pw())
    add(c, "psql one column", "app=# SELECT api_key FROM integrations LIMIT 1;\n             api_key\n"
        "----------------------------------\n {S}\n(1 row)", g.tok(32))

    c = "diffs and search"
    add(c, "git diff +", "diff --git a/.env b/.env\n@@ -1,2 +1,2 @@\n-LOG_LEVEL=info\n+STRIPE_SECRET_KEY={S}\n")
    add(c, "git diff -", "@@ -3 +3 @@\n-GITHUB_TOKEN={S}\n+GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}")
    add(c, "diff > normal", "3c3\n< password: changeme\n---\n> password: {S}", g.pw())
    add(c, "grep -rn", "./config/settings.py:14:API_KEY = \"{S}\"")
    add(c, "rg with colon", "src/app.ts:12:const apiKey = \"{S}\";")
    add(c, "pytest -l locals", "api_key    = '{S}'\nclient     = <Client object at 0x7f>")
    add(c, "http.client debug send", "send: b'GET /v1/me HTTP/1.1\\r\\nHost: api.example.com\\r\\nX-Api-Key: {S}\\r\\n"
        "Accept: */*\\r\\n\\r\\n'")
    add(c, "HAR cookie", '{"name": "session_id", "value": "{S}", "path": "/", "httpOnly": true}')

    c = "network and devices"
    add(c, "netsh wlan key=clear", "    Authentication         : WPA2-Personal\n    Key Content            : {S}\n",
        g.pw())
    add(c, "nmcli psk", "802-11-wireless-security.psk:           {S}", g.pw())
    add(c, "wpa_supplicant psk", 'network={\n    ssid="home"\n    psk="{S}"\n}', g.pw())
    add(c, "hostapd wpa_passphrase", "interface=wlan0\nssid=lab\nwpa_passphrase={S}\n", g.pw())
    add(c, "cisco username password 0", "username admin privilege 15 password 0 {S}", g.pw())
    add(c, "cisco snmp community", "snmp-server community {S} RO", g.pw())
    add(c, "juniper plain-text", "set system root-authentication plain-text-password-value {S}", g.pw())
    add(c, "wireguard PrivateKey", "[Interface]\nPrivateKey = {S}\nAddress = 10.0.0.2/32", b64(g.tok(32))[:43] + "=")
    add(c, "openvpn static key", "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{S}\n"
        "-----END OpenVPN Static key V1-----\n</tls-auth>", g.chars("0123456789abcdef", 32))
    add(c, "putty ppk", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@laptop\n"
        "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIExample\nPrivate-Lines: 1\n{S}\nPrivate-MAC: ab12",
        "AAAAI" + g.tok(39))
    add(c, "minisign secret key", "untrusted comment: minisign encrypted secret key\n{S}\n", "RWRTY0Iy" + g.tok(150))

    c = "remote-login command lines"
    add(c, "smbclient user%pass", "smbclient //fs01/share -U backup%{S}", g.pw())
    add(c, "xfreerdp /p:", "xfreerdp /v:10.0.0.5 /u:admin /p:{S} /cert:ignore", g.pw())
    add(c, "net use /user", r"net use Z: \\fs01\share /user:CORP\backup {S}", g.pw())
    add(c, "ipmitool -P", "ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P {S} chassis status", g.pw())
    add(c, "curl --oauth2-bearer", "curl --oauth2-bearer {S} https://api.example.com/v1/me")
    add(c, "httpie -a", "http -a admin:{S} POST :8000/api/items", g.pw())
    add(c, "wget --password", "wget --user=ci --password={S} https://repo.example.com/pkg.tgz", g.pw())
    add(c, "lftp -u", "lftp -u deploy,{S} sftp://files.example.com", g.pw())
    return out


def heldout6_lookalikes(seed: int = 3) -> list[str]:
    """Text that must come out unchanged: the same shapes holding no secret."""
    g = _Gen(seed + 501)
    return [
        "secret_key                ****************ABCD shared-credentials-file",
        "//registry.npmjs.org/:_authToken = (protected)",
        "DEPLOY_TOKEN: ***",
        "interface: wg0\n  public key: " + base64.b64encode(b"x" * 32).decode() + "\n  private key: (hidden)",
        f"$ uuidgen\n{g.chars('0123456789abcdef', 8)}-2f4e-4b1a-9c3d-0a1b2c3d4e5f",
        "a1b2c3d fix: rotate the api key after the leak",
        "256 SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 me@laptop (ED25519)",
        '{"db_host": {"sensitive": false, "type": "string", "value": "db.internal"}}',
        '"spring.datasource.url": {\n  "value": "jdbc:postgresql://db/app"\n}',
        '[{"key": "app/db/host", "flags": 0, "value": "ZGIuaW50ZXJuYWw="}]',
        "app=# SELECT count(*) FROM api_keys;\n count\n-------\n    42\n(1 row)",
        '127.0.0.1:6379> CONFIG GET maxmemory\n1) "maxmemory"\n2) "0"',
        "In [4]: settings.ENVIRONMENT\nOut[4]: 'production'",
        "snmp-server location Building 4",
        "    Authentication         : WPA2-Personal\n    Cipher                 : CCMP",
        "+PASSWORD_MIN_LENGTH=12",
        '>>> len(os.environ["API_KEY"])\n40',
        "smbclient -L //fs01 -N",
        "xfreerdp /v:10.0.0.5 /u:admin /cert:ignore",
        "✔  Success! Use this token to login on a CI server:",
        "Private-Lines: 14",
        "$ keyring --list-backends\nkeyring.backends.SecretService.Keyring (priority: 5)",
    ]
