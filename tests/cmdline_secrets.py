"""Labelled command lines: credentials given as a flag value or an environment assignment.

    gen = CmdlineGen(seed=7)
    cases = gen.must_mask(200)        # list[CmdCase]: a command line + the exact secrets in it
    clean = gen.must_not_mask(200)    # list[str]: look-alikes that must come out unchanged

Every secret is fresh (tests/secretgen.py's generators, seeded), so a test cannot pass by
accident: a leaked value is found verbatim in the output, a masked one is not. Templates
are the shapes people and agents type (docs examples, CI scripts, agent Bash calls); each
`{pw}`/`{tok}`/… slot gets a new value. Values written bare use a shell-safe alphabet (no
quote, space, `$ & ; | < > ( )`); quoted ones may hold `$ & # !` too.
"""

from __future__ import annotations

import base64
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from secretgen import ALNUM, SecretGen

# Bare (unquoted) shell words: nothing the shell would split or expand
BARE_CHARS = ALNUM + "-_.+^~!*%:,="
QUOTED_CHARS = BARE_CHARS + "$&#;|()<> "


@dataclass(frozen=True)
class CmdCase:
    """A command line and the secrets in it (each must be absent from the redacted line)."""

    template: str
    text: str
    secrets: tuple[str, ...]


# ---------------------------------------------------------------- must mask
# Slots: {pw} a bare password, {qpw} one in quotes (may hold shell metachars), {tok} a
# machine token, {uid} a UUID token, {b64} base64 user:pass; {user}/{host} are not secrets.
MUST_MASK: tuple[str, ...] = (
    # cloud CLIs and config setters (positional NAME VALUE)
    "aws configure set aws_secret_access_key {tok}",
    "aws configure set aws_session_token {tok} --profile prod",
    "aws configure set default.aws_secret_access_key {tok}",
    "npm config set //registry.npmjs.org/:_authToken {tok}",
    "npm config set _auth {b64}",
    "yarn config set npmAuthToken {tok}",
    "pnpm config set //npm.pkg.github.com/:_authToken {tok}",
    "git config --global github.token {tok}",
    "az login -u {user}@example.com -p {pw}",
    "az login --service-principal -u http://app-deployer -p {pw} --tenant contoso.onmicrosoft.com",
    "gh secret set DEPLOY_KEY --body {tok}",
    "gh secret set NPM_TOKEN -b {tok} --repo acme/app",
    'gh secret set SLACK_WEBHOOK --body "{qpw}"',
    "gh secret set API_URL_SECRET --body={tok} --env prod",
    "vault login {tok}",
    "fly secrets set DATABASE_PASSWORD={pw} STRIPE_KEY={tok} -a app",
    "flyctl secrets set SESSION='{qpw}'",
    "doppler secrets set SMTP={pw}",
    "supabase secrets set OPENAI={tok}",
    "vault kv put secret/app db={pw} api={tok}",
    "vault kv patch -mount=secret app db={pw}",
    "kubectl create secret generic db --from-literal=token={tok} --from-literal=pass={pw}",
    "oc create secret generic api --from-literal=key={tok}",
    "aws secretsmanager create-secret --name prod/db --secret-string {pw}",
    "aws secretsmanager put-secret-value --secret-id prod/db --secret-string '{qpw}'",
    'az keyvault secret set --vault-name kv --name db --value "{qpw}"',
    "vercel secrets add db-pass {pw}",
    "aws ssm put-parameter --name /prod/db/password --type SecureString --value '{qpw}'",
    "aws ssm put-parameter --name /prod/api --type=SecureString --value={tok} --overwrite",
    "consul kv get -token {uid} config/app",
    "consul members -token={uid}",
    "nomad job run -token {uid} job.nomad",
    "kubectl --token {tok} get pods -n prod",
    "kubectl get nodes --token={tok}",
    "kubectl config set-credentials admin --password={pw} --username=admin",
    "oc login -u {user} -p {pw} https://api.cluster.local:6443",
    "cf login -a https://api.cf.example.com -u {user} -p {pw}",
    "cargo login {tok}",
    "ngrok config add-authtoken {tok}",
    "snyk auth {uid}",
    "doctl auth init -t {tok}",
    "mc alias set minio http://localhost:9000 {user} {pw}",
    "$cred = New-Object PSCredential('bob', (ConvertTo-SecureString '{qpw}' -AsPlainText -Force))",
    # registries
    "docker login -u {user} -p {pw} registry.example.com",
    "docker login --username {user} --password {pw} ghcr.io",
    "docker login --username={user} --password={pw}",
    "podman login -u {user} -p {pw} quay.io",
    "helm registry login registry.example.com -u {user} -p {pw}",
    "helm repo add private https://charts.example.com --username {user} --password {pw}",
    "oras login -u {user} -p {pw} localhost:5000",
    "skopeo login -u {user} -p {pw} quay.io",
    "nerdctl login -u {user} -p {pw}",
    "twine upload -u __token__ -p {pw} dist/*",
    "dotnet nuget push app.nupkg -k {tok} -s https://api.nuget.org/v3/index.json",
    "nuget sources add -Name corp -Source https://nuget.corp/v3 -Username {user} -Password {pw}",
    "nuget push app.nupkg -ApiKey {tok}",
    # databases and servers
    "redis-cli -h cache.internal -a {pw} ping",
    "redis-cli -a '{qpw}' --no-auth-warning INFO",
    "redis-cli -p 6380 --pass {pw} KEYS '*'",
    "redis-server --requirepass {pw} --port 6380",
    "sqlcmd -S db.internal -U sa -P {pw} -Q \"SELECT 1\"",
    "sqlcmd -S tcp:srv,1433 -d app -U admin -P '{qpw}' -i schema.sql",
    "bcp dbo.users out users.dat -S srv -U sa -P {pw} -c",
    "mongosh --host db -u admin -p {pw} --authenticationDatabase admin",
    "mongo -u root -p {pw} admin",
    "mongodump --username backup --password {pw} --out /backup",
    "influx -username admin -password {pw} -execute 'SHOW DATABASES'",
    "PGPASSWORD={pw} psql -h db -U app -d app -c 'select 1'",
    "MYSQL_PWD={pw} mysql -u root -e 'show databases'",
    "mysql -u root -p{pw} shop",
    "sqlplus scott/{pw}@orcl",
    "rabbitmqctl add_user {user} {pw}",
    "rabbitmqctl change_password {user} {pw}",
    "mosquitto_pub -h broker -u {user} -P {pw} -t sensors/a -m 1",
    # directories, shares, remote shells
    "ldapsearch -x -H ldap://ldap.example.org -D \"cn=admin,dc=example,dc=org\" -w {pw} -b dc=example,dc=org",
    "ldapadd -x -D cn=admin,dc=corp -w '{qpw}' -f users.ldif",
    "ldapmodify -H ldaps://dc1 -D admin@example.com -w {pw} -f change.ldif",
    "ldappasswd -x -D cn=admin,dc=corp -w {pw} -s {pw2} uid=bob,dc=corp",
    "smbclient //fs01/share -U {user}%{pw}",
    "smbclient -L //fs01 -U 'CORP\\{user}%{qpw}'",
    "rpcclient -U {user}%{pw} 10.0.0.5",
    "psexec \\\\srv01 -u admin -p {pw} cmd",
    "xfreerdp /u:administrator /p:{pw} /v:10.0.0.7",
    "sshpass -p {pw} ssh deploy@host",
    "lftp -u {user},{pw} ftp.example.com",
    "wget --user={user} --password={pw} https://files.example.com/a.tgz",
    "wget --http-user={user} --http-password {pw} https://files.example.com/b.tgz",
    "curl -u {user}:{pw} https://jenkins.local/api/json",
    "curl --user '{user}:{qpw}' https://api.example.com",
    "git -c http.extraheader=\"Authorization: Basic {b64}\" clone https://git.example.com/r.git",
    "git -c http.extraHeader=\"AUTHORIZATION: bearer {tok}\" fetch",
    # keys, archives, keychains
    "keytool -genkeypair -alias app -keystore app.jks -storepass {pw} -keypass {pw2} -dname CN=app",
    "keytool -importcert -file ca.crt -keystore truststore.jks -storepass '{qpw}' -noprompt",
    "keytool -storepasswd -keystore app.jks -storepass {pw} -new {pw2}",
    "jarsigner -keystore release.jks -storepass {pw} -keypass {pw2} app.apk release",
    "openssl enc -aes-256-cbc -salt -in a.txt -out a.enc -k {pw}",
    "openssl pkcs12 -export -in c.crt -inkey c.key -out c.p12 -passout pass:{pw}",
    "ssh-keygen -t ed25519 -N '{qpw}' -f deploy_key",
    "ssh-keygen -p -f id_rsa -P {pw} -N {pw2}",
    "zip -P {pw} -r backup.zip data/",
    "unzip -P {pw} backup.zip",
    "7z a -p{pw} -mhe=on secrets.7z docs/",
    "htpasswd -b /etc/nginx/.htpasswd {user} {pw}",
    "htpasswd -nb {user} {pw}",
    "htpasswd -bc .htpasswd {user} {pw}",
    "security add-generic-password -a {user} -s api -w {pw}",
    "security unlock-keychain -p {pw} ~/Library/Keychains/login.keychain-db",
    # environment assignments: bash/zsh, fish, PowerShell, cmd
    "export DB_PASSWORD={pw}",
    "export API_TOKEN=\"{tok}\"",
    "export GITHUB_TOKEN='{tok}' && gh pr list",
    "declare -x SMTP_PASSWORD={pw}",
    "typeset -x APP_SECRET={pw}",
    "DEPLOY_TOKEN={tok} ./deploy.sh prod",
    "STRIPE_API_KEY={tok} npm test",
    "env AWS_SECRET_ACCESS_KEY={tok} aws s3 ls",
    "set -x DB_PASSWORD {pw}",
    "set -gx API_TOKEN {tok}",
    "set -Ux OPENAI_API_KEY {tok}",
    "set --export GITHUB_TOKEN {tok}",
    "set -x REDIS_PASSWORD '{qpw}'",
    "set -g SECRET_KEY {tok}",
    "$env:API_KEY = \"{tok}\"",
    "$Env:DB_PASSWORD='{qpw}'",
    "$env:CLIENT_SECRET=\"{pw}\"; ./run.ps1",
    "[Environment]::SetEnvironmentVariable(\"X_SECRET\", \"{qpw}\", \"User\")",
    "[System.Environment]::SetEnvironmentVariable('API_TOKEN','{tok}','Machine')",
    "[Environment]::SetEnvironmentVariable(\"DB_PASSWORD\", \"{pw}\")",
    "Set-Item -Path Env:DB_PASSWORD -Value '{qpw}'",
    "set DB_PASSWORD={pw}",
    "setx API_TOKEN {tok}",
    "setx DB_PASSWORD \"{qpw}\" /M",
    "docker run -e DB_PASSWORD={pw} -p 8080:80 app",
    "docker run --env=API_TOKEN={tok} app",
    "kubectl create secret generic db --from-literal=password={pw}",
    # wrapped: inside $( ), after &&, in a pipe
    "TOKEN=$(vault login -token-only {tok})",
    "cd app && docker login -u ci -p {pw} && docker push app",
    "result=$(redis-cli -a {pw} GET key)",
    "sudo -E env PGPASSWORD={pw} pg_dump -h db app | gzip > app.sql.gz",
)

# ---------------------------------------------------------------- must not mask
# Slots: {n} a number, {port} a port, {user}/{host} names, {path} a path, {word} a variable name.
MUST_NOT_MASK: tuple[str, ...] = (
    "vault kv get secret/app",
    "aws ssm put-parameter --name /app/region --type String --value eu-west-{port}",
    "vault kv put secret/app cert=@server.pem",
    "fly secrets set FOO=$BAR",
    "fly secrets list",
    "kubectl create secret generic app --from-file=key=./k.pem",
    "aws secretsmanager get-secret-value --secret-id prod/db",
    "docker run -p {port}:80 nginx",
    "docker run -d -p 127.0.0.1:{port}:{port} --name web app",
    "podman run -p {port}:8080 app",
    "mysql -u root -p",
    "mysql -u root -p {user}",
    "mysql -h db -P {port} -u app -p --database app",
    "psql -h localhost -p {port} -U postgres",
    "psql -p {port} -d app -c 'select 1'",
    "redis-cli -p {port} ping",
    "redis-cli -a --no-auth-warning ping",
    "docker login -u {user} --password-stdin ghcr.io",
    "echo \"$CR_PAT\" | docker login ghcr.io -u {user} --password-stdin",
    "docker login -u {user} -p \"$DOCKER_PASSWORD\" registry.example.com",
    "docker login -u {user} -p $DOCKER_PASSWORD",
    "docker login -u {user} -p ${{REGISTRY_PASSWORD}}",
    "docker login -u {user} --password \"$(cat {path})\"",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "sqlcmd -S db -U sa -P \"$SA_PASSWORD\" -Q 'SELECT 1'",
    "ldapsearch -x -D cn=admin,dc=corp -W -b dc=corp",
    "ldapsearch -x -D cn=admin,dc=corp -y {path} -b dc=corp",
    "keytool -list -keystore app.jks -storepass:env KS_PASS",
    "keytool -list -keystore app.jks -storepass:file {path}",
    "jarsigner -keystore ks.jks -storepass:env STORE_PASS app.jar alias",
    "openssl rsa -in key.pem -passin env:KEY_PASS",
    "openssl pkcs12 -in c.p12 -passin file:{path}",
    "gh secret set DEPLOY_KEY < {path}",
    "gh secret set API_TOKEN --body \"$API_TOKEN\"",
    "gh secret set -f .env",
    "gh secret list --repo acme/app",
    "vault login -method=github",
    "vault token lookup",
    "kubectl --token-file {path} get pods",
    "consul kv get -token-file={path} config/app",
    "nomad job run -token-file {path} job.nomad",
    "kubectl get pods -n prod --kubeconfig {path}",
    "export DB_PASSWORD=$DB_PASSWORD_FROM_VAULT",
    "export API_TOKEN=\"${{API_TOKEN:-}}\"",
    "export GITHUB_TOKEN=$(gh auth token)",
    "export TOKEN_COUNT={n}",
    "export MAX_TOKENS={n}",
    "export PASSWORD_MIN_LENGTH={n}",
    "PASSWORD_MAX_AGE={n} ./check.sh",
    "export SECRET_NAME=prod/db",
    "export PASSWORD_FILE={path}",
    "export TOKEN_URL=https://auth.example.com/token",
    "set -x",
    "set -x; make test",
    "set -euo pipefail",
    "set -o errexit",
    "set -e PATH",
    "set -x PATH $PATH /usr/local/bin",
    "set -gx EDITOR vim",
    "set -q GITHUB_TOKEN; or echo missing",
    "set -e GITHUB_TOKEN",
    "set -x API_TOKEN $API_TOKEN_FROM_KEYCHAIN",
    "$env:API_KEY = $secret",
    "$env:PATH += \";C:\\tools\"",
    "$env:DB_PASSWORD = (Get-Content {path})",
    "[Environment]::SetEnvironmentVariable(\"PATH\", $newPath, \"User\")",
    "[Environment]::SetEnvironmentVariable(\"API_TOKEN\", $token, \"User\")",
    "setx PATH \"%PATH%;C:\\tools\"",
    "setx JAVA_HOME C:\\jdk",
    "setx API_TOKEN %API_TOKEN%",
    "set PATH=%PATH%;C:\\tools",
    "aws configure set region us-east-1",
    "aws configure set aws_access_key_id_file {path}",
    "aws configure set output json --profile prod",
    "aws configure get aws_secret_access_key",
    "npm config set registry https://registry.npmjs.org/",
    "npm config get //registry.npmjs.org/:_authToken",
    "yarn config set npmRegistryServer https://npm.corp",
    "git config --global init.defaultBranch main",  # (`user.name {user}` holds a person's name: masked)
    "git config --global credential.helper store",
    "git -c core.autocrlf=false clone https://github.com/acme/app.git",
    "az login --use-device-code",
    "az login -t {uid}",
    "curl -u {user} https://api.example.com",
    "curl -u \"$USER:$PASS\" https://api.example.com",
    "wget --password-file={path} https://files.example.com",
    "wget --ask-password --user={user} https://files.example.com",
    "sshpass -f {path} ssh deploy@host",
    "sshpass -e ssh deploy@host",
    "smbclient //fs01/share -U {user}",
    "smbclient //fs01/share -A {path}",
    "htpasswd -c .htpasswd {user}",
    "htpasswd -D .htpasswd {user}",
    "ssh-keygen -t ed25519 -N '' -f deploy_key",
    "ssh-keygen -t rsa -b 4096 -C deploy-key -f {path}",
    "zip -r backup.zip data/",
    "unzip -o backup.zip -d out",
    "7z x archive.7z -o{path}",
    "kubectl create secret generic db --from-file={path}",
    "kubectl create secret generic db --from-literal=password=$DB_PASSWORD",
    "security find-generic-password -s api -w",
    "twine upload --repository testpypi dist/*",
    "mongosh --host db -u admin -p --authenticationDatabase admin",
    "mongo --port {port} admin",
    "influx -host db -port {port}",
    "mosquitto_sub -h broker -p {port} -t sensors/#",
    "oc login --web https://api.cluster.local:6443",
    "oc login -u {user} https://api.cluster.local:6443",
    "cf login -a https://api.cf.example.com --sso",
    "rabbitmqctl list_users",
    "rabbitmqctl add_user {user} \"$RABBIT_PASSWORD\"",
    "sqlplus /nolog",
    "sqlplus {user}@orcl",
    "xfreerdp /u:administrator /v:10.0.0.7 /cert:ignore",
    "psexec \\\\srv01 -s cmd",
    "ldapadd -x -D cn=admin,dc=corp -W -f users.ldif",
    "lftp -u {user} ftp.example.com",
    "cargo login",
    "doctl auth init --context prod",
    "mc alias set minio http://localhost:9000",
    "mc alias list",
    "$secure = ConvertTo-SecureString $plain -AsPlainText -Force",
    "$pw | ConvertTo-SecureString -AsPlainText -Force",
    "vault login",
    "ngrok http {port}",
    "redis-server --port {port} --appendonly yes",
    "nuget push app.nupkg -Source https://nuget.corp/v3",
    "security unlock-keychain ~/Library/Keychains/login.keychain-db",
    "dotnet nuget push app.nupkg -k $NUGET_API_KEY -s https://api.nuget.org/v3/index.json",
    "helm install web ./chart --set service.port={port}",
    "ps -p {n} -o pid,cmd",
    "tar -cf out.tar -p data/",
    "grep -P '\\d+' {path}",
    "rsync -a -P src/ dst/",
    "scp -P {port} file {user}@host:/tmp/",
    "ssh -p {port} {user}@host",
    "nc -w 5 host {port}",
    "ls -a --color=auto",
    "echo the token count is {n}",
    "python -m pytest -k test_password_reset -p no:cacheprovider",
    "go test -run TestToken ./...",
    "npm run test -- --password-strength-check",
)


class CmdlineGen:
    """The labelled set, filled with fresh values from a fixed seed."""

    def __init__(self, seed: int = 20261117) -> None:
        self.gen = SecretGen(seed=seed)
        self.rng = self.gen.rng

    # ------------------------------------------------------------ values
    def password(self, alphabet: str = BARE_CHARS) -> str:
        """10-20 chars that start and end with a letter or digit (a leading "$" or "-" reads as
        a variable or a flag; a trailing "," or "." as prose), hold a letter and a digit."""
        return self.rng.choice(ALNUM) + self.gen._mixed(alphabet, self.rng.randint(8, 18)) + self.rng.choice(ALNUM)

    def token(self) -> str:
        return self.rng.choice(ALNUM) + self.gen._mixed(ALNUM + "_-", self.rng.choice([23, 31, 39]))

    def b64(self) -> str:
        user = self.gen.chars(string.ascii_lowercase, 6)
        return base64.b64encode(f"{user}:{self.password()}".encode()).decode()

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def user(self) -> str:
        return self.rng.choice(["ci", "deploy", "admin", "svc-build", "alice", "jenkins"])

    # ------------------------------------------------------------ filling
    def fill(self, template: str) -> CmdCase:
        secrets: list[str] = []

        def secret(make: Callable[[], str]) -> str:
            value = make()
            secrets.append(value)
            return value

        slots = {
            "pw": lambda: secret(self.password), "pw2": lambda: secret(self.password),
            "qpw": lambda: secret(lambda: self.password(QUOTED_CHARS.replace(" ", ""))),
            "tok": lambda: secret(self.token), "uid": lambda: secret(self.uid),
            "b64": lambda: secret(self.b64), "user": self.user,
            "host": lambda: self.rng.choice(["db.internal", "10.0.0.5", "cache"]),
            "port": lambda: str(self.rng.choice([80, 443, 3000, 5432, 6379, 8080, 9000])),
            "n": lambda: str(self.rng.randint(1, 99999)),
            "path": lambda: self.rng.choice(["~/.secrets/pw", "/run/secrets/db", "secret.txt", "./token"]),
        }
        text = template.format_map(_Lazy(slots))
        return CmdCase(template, text, tuple(secrets))

    def must_mask(self, n: int | None = None) -> list[CmdCase]:
        """Every template once, then random ones, up to n (at least one of each)."""
        templates = list(MUST_MASK)
        while n is not None and len(templates) < n:
            templates.append(self.rng.choice(MUST_MASK))
        return [self.fill(t) for t in templates]

    def must_not_mask(self, n: int | None = None) -> list[str]:
        templates = list(MUST_NOT_MASK)
        while n is not None and len(templates) < n:
            templates.append(self.rng.choice(MUST_NOT_MASK))
        return [self.fill(t).text for t in templates]


class _Lazy(dict[str, str]):
    """format_map mapping that calls a maker per slot occurrence (each `{pw}` a new value)."""

    def __init__(self, makers: dict[str, Callable[[], str]]) -> None:
        super().__init__()
        self.makers = makers

    def __missing__(self, key: str) -> str:
        return self.makers[key]()
