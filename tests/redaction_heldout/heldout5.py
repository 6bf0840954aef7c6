"""A fifth held-out set, written in one sitting before any rule change made from it: forms an
engineer thought of as a user would paste them (code in several languages, config files, command
lines, URLs, prose, other languages), most of which the rules already mask. See heldout.py for
how these sets are used; its misses led to the rules for typed declarations, other assignment
operators, key/value element pairs, a token as a URL's user, and more secret words."""

from __future__ import annotations

from heldout import Case, _Gen


def heldout5_cases(seed: int = 3) -> list[Case]:
    g = _Gen(seed + 400)
    out: list[Case] = []

    def add(category: str, form: str, template: str, secret: str | None = None) -> None:
        s = secret if secret is not None else g.tok(g.rng.randint(20, 40))
        out.append(Case(category, form, (template.replace("{S}", s),), (s,)))

    c = "code"
    add(c, "JS object auth:", 'const client = new Octokit({ auth: "{S}" });')
    add(c, "Python dict header", 'headers = {"X-Api-Key": "{S}"}')
    add(c, "Perl/Ruby => bare key", 'signing_key => "{S}",')
    add(c, "Lisp setq", '(setq openai-api-key "{S}")')
    add(c, "Rust let: &str", 'let token: &str = "{S}";')
    add(c, "Rust const: &'static str", "const API_TOKEN: &'static str = \"{S}\";")
    add(c, "Java static final", 'private static final String SECRET = "{S}";')
    add(c, "Kotlin val: String", 'val password: String = "{S}"', g.pw())
    add(c, "Kotlin nullable", 'var apiToken: String? = "{S}"')
    add(c, "TS const: string", 'const token: string = "{S}";')
    add(c, "TS union type", 'let authToken: string | undefined = "{S}";')
    add(c, "Python annotated", 'password: str = "{S}"', g.pw())
    add(c, "Python Final", 'API_KEY: Final[str] = "{S}"')
    add(c, "Go var typed", 'var apiKey string = "{S}"')
    add(c, "Go :=", 'apiKey := "{S}"')
    add(c, "Swift let typed", 'let secretKey: String = "{S}"')
    add(c, "R <-", 'secret <- "{S}"')
    add(c, "R <- api_key", 'api_key <- "{S}"')
    add(c, "PHP array =>", "'api_key' => '{S}',")
    add(c, "Ruby symbol =>", ':api_key => "{S}",')
    add(c, "Elixir keyword", 'config :app, MyApp.Endpoint, secret_key_base: "{S}"')
    add(c, "Python tuple auth", 'auth = ("user", "{S}")')
    add(c, "HTTPBasicAuth", 'requests.get(url, auth=HTTPBasicAuth("me", "{S}"))')
    add(c, "login call", 'client.login("admin", "{S}")')
    add(c, "$config[]", "$config['db_password'] = '{S}';")

    c = "config"
    add(c, "yaml DB_PASS", 'DB_PASS: "{S}"')
    add(c, "k8s env value", 'env:\n  - name: API_TOKEN\n    value: "{S}"\n')
    add(c, "k8s env value bare", 'env:\n- name: DB_PASSWORD\n  value: {S}\n')
    add(c, "spring properties", 'spring.datasource.password={S}')
    add(c, "nuget ClearTextPassword", '  <add key="ClearTextPassword" value="{S}" />')
    add(c, ".NET connection string", 'ConnectionStrings__Default="Server=db;Database=app;User Id=sa;Password={S};"')
    add(c, "plist key/string", '<key>password</key>\n<string>{S}</string>', g.pw())
    add(c, "hadoop name/value", '<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{S}</value>\n</property>')
    add(c, "xml element", '<password>{S}</password>', g.pw())
    add(c, "npmrc _authToken", '//registry.npmjs.org/:_authToken={S}')
    add(c, "aws credentials yaml", 'credentials:\n  secret_access_key: {S}\n')
    add(c, "Laravel APP_KEY", 'APP_KEY=base64:{S}=')
    add(c, "SECRET_KEY_BASE space", 'SECRET_KEY_BASE {S}')
    add(c, "json client_secret", '"client_secret": "{S}"')
    add(c, "json bearer_token", '"bearer_token": "{S}"')
    add(c, "apiKey yaml", 'apiKey: "{S}"')
    add(c, "ApiKey=", 'ApiKey={S}')
    add(c, "api-key:", 'api-key: {S}')
    add(c, "salt =", 'salt = "{S}"')
    add(c, "totp seed", 'totp seed: {S}')
    add(c, "recovery code", 'recovery code: {S}')
    add(c, "webhook_secret", 'webhook_secret: {S}')
    add(c, "credentials =", 'credentials = "{S}"')
    add(c, "refresh_token:", 'refresh_token: {S}')

    c = "command line"
    add(c, "curl X-Auth-Token", 'curl -H "X-Auth-Token: {S}" https://api.example.com/v1/items')
    add(c, "mysql -p", 'mysql -u root -p{S} -h db.internal', g.pw())
    add(c, "sshpass -p", 'sshpass -p {S} ssh deploy@10.0.0.5', g.pw())
    add(c, "docker login --password", 'docker login -u bot --password {S} registry.example.com')
    add(c, "redis-cli -a", 'redis-cli -a {S} ping', g.pw())
    add(c, "PGPASSWORD=", 'PGPASSWORD={S} psql -h db -U app', g.pw())
    add(c, "PowerShell $env:", '$env:AZURE_CLIENT_SECRET = "{S}"')
    add(c, "fish set -x", 'set -x API_SECRET {S}')
    add(c, "kubectl --from-literal", 'kubectl create secret generic app --from-literal=token={S}')
    add(c, "vault kv put", 'vault kv put secret/app apikey={S}')
    add(c, "wandb login", 'wandb login {S}')
    add(c, "ngrok authtoken", 'ngrok config add-authtoken {S}')
    add(c, "poetry config token", 'poetry config pypi-token.pypi {S}')
    add(c, "twine -p", 'twine upload -u __token__ -p {S} dist/*')
    add(c, "curl -u", 'curl -u admin:{S} http://localhost:9200', g.pw())
    add(c, "wget --password=", 'wget --password={S} ftp://x', g.pw())
    add(c, "aws configure set", 'aws configure set aws_secret_access_key {S}')
    add(c, "az -p", 'az login --service-principal -u app -p {S} --tenant t')
    add(c, "helm --set", 'helm install x --set auth.rootPassword={S}', g.pw())
    add(c, "docker -e", 'docker run -e POSTGRES_PASSWORD={S} postgres', g.pw())
    add(c, "--build-arg", 'docker build --build-arg NPM_TOKEN={S} .')
    add(c, "heroku config:set", 'heroku config:set SECRET={S}')
    add(c, "TF_VAR_", 'TF_VAR_db_password={S} terraform apply', g.pw())
    add(c, "openssl -k", 'openssl enc -aes-256-cbc -k {S} -in a -out b', g.pw())
    add(c, "zip -P", 'zip -P {S} out.zip file', g.pw())
    add(c, "7z -p", '7z a -p{S} out.7z file', g.pw())
    add(c, "htpasswd -b", 'htpasswd -b .htpasswd admin {S}', g.pw())
    add(c, "gh --with-token <<<", 'gh auth login --with-token <<< {S}')
    add(c, "echo | --password-stdin", 'echo "{S}" | docker login --password-stdin')

    c = "url"
    add(c, "git oauth2:", 'git clone https://oauth2:{S}@gitlab.example.com/group/repo.git')
    add(c, "pip __token__:", 'pip install --index-url https://__token__:{S}@pypi.example.com/simple pkg')
    add(c, "token as the user", 'git remote set-url origin https://{S}@github.com/me/repo.git')
    add(c, "Sentry DSN", 'SENTRY_DSN=https://{S}@o123.ingest.sentry.io/456', g.chars("0123456789abcdef", 32))
    add(c, "mongodb+srv", 'mongodb+srv://app:{S}@cluster0.abc.mongodb.net/db')
    add(c, "amqp", 'amqp://guest:{S}@rabbit:5672/')
    add(c, "jdbc password=", 'jdbc:postgresql://db/app?user=app&password={S}')
    add(c, "ftp user:pass", 'ftp://user:{S}@ftp.example.com/file')
    add(c, "?access_token=", '?access_token={S}&foo=1')

    c = "headers"
    add(c, "Authorization Token token=", 'Authorization: Token token="{S}"')
    add(c, "x-goog-api-key", 'x-goog-api-key: {S}')
    add(c, "Ocp-Apim-Subscription-Key", 'Ocp-Apim-Subscription-Key: {S}')
    add(c, "PRIVATE-TOKEN", 'PRIVATE-TOKEN: {S}')
    add(c, "X-Vault-Token", 'X-Vault-Token: {S}')
    add(c, "Proxy-Authorization", 'Proxy-Authorization: Bearer {S}')
    add(c, "Set-Cookie session", 'session_cookie={S}; Path=/; HttpOnly')
    add(c, "Set-Cookie header", 'Set-Cookie: sid={S}; Secure; HttpOnly')

    c = "prose"
    add(c, "webhook secret is", 'The webhook secret is {S}, keep it safe.')
    add(c, "encryption key:", 'encryption key: {S}')
    add(c, "wifi password is", 'The wifi password is {S}', g.pw())
    add(c, "passcode", 'Use passcode {S} to join', g.pw())
    add(c, "API key in parentheses", 'The API key you gave me ({S}) is invalid.')
    add(c, "token expires", 'Your token {S} expires tomorrow.')
    add(c, "set the secret to", 'I set the secret to {S} in .env')
    add(c, "netrc", 'machine api.example.com login bot password {S}', g.pw())

    c = "other languages"
    add(c, "French est", 'Le mot de passe est {S}', g.pw())
    add(c, "German lautet", 'Das Passwort lautet: {S}', g.pw())
    add(c, "Spanish =", 'contraseña={S}', g.pw())
    letters = "".join(g.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz") for _ in range(16))
    add(c, "Chinese full-width colon", '密码：{S}', letters)
    add(c, "Russian", 'пароль: {S}', g.pw())
    add(c, "Japanese", 'パスワード: {S}', g.pw())
    add(c, "Korean", '비밀번호: {S}', g.pw())
    add(c, "Portuguese", 'senha: {S}', g.pw())
    return out


def heldout5_lookalikes(seed: int = 3) -> list[str]:
    """Text that must come out unchanged: the same shapes holding no secret."""
    g = _Gen(seed + 401)
    return [
        "val password: String = readPassword()",
        "let token: &str = &args[1];",
        "const token: string = process.env.GITHUB_TOKEN ?? '';",
        "password: str = Field(default=None, repr=False)",
        "var apiKey string = os.Getenv(\"API_KEY\")",
        "secret <- Sys.getenv(\"SECRET\")",
        "token_type => 'bearer',",
        "git clone https://git@github.com/acme/widgets.git",
        "ssh://git@gitlab.example.com:2222/group/repo.git",
        "open https://jane.doe@example.com/profile",
        f"https://{g.chars('abcdef0123456789', 7)}@github.com is not a valid remote",
        "<key>CFBundleName</key>\n<string>Widgets</string>",
        "<name>fs.s3a.endpoint</name>\n<value>s3.eu-west-1.amazonaws.com</value>",
        "<key>password</key>\n<string></string>",
        "Set-Cookie: theme=dark; Path=/",
        "salt = bcrypt.gensalt()",
        "recovery code: see the printed sheet",
        "Use passcode authentication for the kiosk",
        "The API key you gave me (see above) is invalid.",
        "密码：错误",
        "wandb login --relogin",
        "poetry config virtualenvs.in-project true",
    ]
