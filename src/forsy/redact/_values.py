"""Is a value the literal secret of a name? Secret names (`name_tier`) and values (`accept_value`)."""

from __future__ import annotations

import functools
import re

from ._base import _WORDY, PLACEHOLDER_RE, is_template, looks_random
from .otp import otp_seed

# "icon@2x.png" is a file name, not an address
FILE_EXTENSIONS = frozenset(
    "png jpg jpeg gif svg webp ico bmp tif tiff js mjs cjs ts mts tsx jsx json jsonl py pyc pyi rs go rb java kt "
    "swift c h cc cpp hpp cs php md mdx txt css scss sass less html htm xml yml yaml toml ini cfg conf lock sh "
    "bash zsh fish log csv tsv sql db sqlite zip gz tgz tar bz2 xz whl jar map wasm vue svelte lua pl r dart ex "
    "exs erl hs ml scala gradle env example tmp bak pdf doc docx xls xlsx ppt pptx mp3 mp4 mov wav ogg webm ttf "
    "otf woff woff2 eot patch diff orig swp pem crt key pub so dylib dll exe bin o a out class pkl pt onnx "
    "ipynb".split()
)


_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_OPEN_QUOTE = re.compile(r"\\{0,3}[\"'`]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[[^\]]*\])+")

# Every secret name holds one of these (name_tier's words and endings begin so): where rules
# look for a name
# (`pw` finds `pwd` and `pword` too; `psw` finds `pswd`)
NAME_KEYWORDS = ("pass", "pw", "psw", "psk", "secret", "token", "key", "auth", "cred", "salt", "hmac")
# a password's short and misspelt forms are names people give it too (`DB_PW`, `pswd`, `SMTP_PWORD`)
PASSWORD_FORMS = frozenset({"pw", "psw", "pswd", "pwd", "pword", "pwrd", "passw", "paswd", "passwrd", "pasword"})
LITERAL_WORDS = frozenset({"password", "passwd", "passphrase", "passcode", "pass", "secret", "psk"} | PASSWORD_FORMS)
_SHORT_FORMS = PASSWORD_FORMS - {"pwd"}
_NAME_WORDS = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+")
LITERAL_ENDINGS = ("password", "passwd", "passphrase", "secret")
# a salt: only a machine-made value (`salt = bcrypt.gensalt()`, `salt_rounds: 10` stay)
RANDOM_WORDS = frozenset({"token", "key", "apikey", "auth", "credential", "credentials", "cred", "creds", "secrets",
                          "salt", "hmac"})
RANDOM_ENDINGS = ("token", "apikey", "accesskey", "privatekey", "secretkey", "authkey", "creds", "credentials")
# `auth` run together with what it is for, a word of three letters at least (`masterauth`,
# `replicaauth`, `proxyauth`), not a prefix of one or two (`oauth`, `xauth`, `deauth`, `reauth`)
_AUTH_FOR = 3
# A secret word run together with what it is for (`dbpass`, `smtppass`, `rootpwd`, `dbpw`,
# slapd's `rootpw`, `bindpw`, `adminpswd`), but not an English word ending in one, a graphics
# render pass, a password manager, or the shell's OLDPWD; what it is for has two letters at least
_RUN_TOGETHER = tuple(sorted(PASSWORD_FORMS | {"pass"}, key=len, reverse=True))
_ONE_LETTER_BEFORE = frozenset({"pass", "pwd"})  # (`xpass`, `mpwd`: read so before the short forms were)
_NOT_RUN_TOGETHER = frozenset({"bypass", "compass", "encompass", "surpass", "trespass", "overpass", "underpass",
                               "impass", "renderpass", "subpass", "multipass", "onepass", "firstpass", "secondpass",
                               "lastpass", "keepass", "oldpwd"})
# "<word>_key" names that hold identifiers or public values, not secrets
_PUBLIC_KEY_KINDS = frozenset({"recv", "public", "pub", "publishable", "primary", "foreign", "sort", "partition",
                               "cache", "idempotency", "dedup", "hot", "route", "lookup", "object", "map", "dict",
                               "unique", "composite", "row", "group", "react", "translation", "i18n", "shortcut",
                               "gpg", "pgp"})  # a GPG key's id is public (a signing key is a secret: see _KEY_ID)
# After the secret word a name may go on only with words that keep it a secret value
TRAILING_OK = frozenset({"base", "value", "content", "material", "string", "plain", "plaintext", "raw",
                          "b64", "base64", "hex", "new", "old", "current", "confirm", "confirmation", "again",
                          "repeat", "verify", "prod", "dev", "test", "staging", "live", "v1", "v2"})
# Words after a word for a password or a secret that make the name one about it, not its value
# (`secret_name`, `password_min_length`, `pw_hash_rounds`, `secret_arn`); after other words the
# name still holds one (`secret_sauce_value`, `secret_id`), if the value looks like one (tier 2)
ABOUT_WORDS = frozenset({
    "name", "names", "arn", "path", "paths", "file", "files", "dir", "folder", "ref", "refs", "reference", "version",
    "versions", "count", "counts", "num", "length", "len", "size", "min", "max", "limit", "type", "types", "kind",
    "store", "manager", "provider", "backend", "engine", "mount", "url", "uri", "env", "var", "field", "fields",
    "label", "prompt", "hint", "policy", "policies", "rule", "rules", "rotation", "ttl", "expiry", "expires",
    "expiration", "created", "updated", "changed", "at", "date", "time", "timestamp", "scope", "scopes", "rounds",
    "iterations", "cost", "algorithm", "alg", "algo", "hash", "hashed", "digest", "sha", "md5", "enabled",
    "disabled", "required", "regex", "pattern", "format", "source", "location", "strength", "mode",
    "method", "selector", "placeholder", "input", "error", "errors", "message", "title", "description", "help",
    "visible", "visibility", "toggle", "flag", "schema", "class", "accessor"})
# Values that are types, flags or words, not secrets
STOPWORDS = frozenset({
    "str", "string", "int", "integer", "bool", "boolean", "bytes", "none", "null", "nil", "true", "false",
    "undefined", "required", "optional", "any", "object", "text", "char", "varchar", "unknown", "empty",
    "hidden", "redacted", "masked", "sensitive", "yes", "no", "on", "off", "enabled", "disabled", "env",
    "value", "default", "secretstr", "secretbytes", "secretstring", "password", "passwd", "secret", "token",
    "key", "string;", "number", "void", "self", "cls", "this", "na", "n/a", "tbd", "todo", "see", "set",
    "unset", "missing", "invalid", "valid", "expired", "provided", "present", "absent", "included",
    # words that go on a sentence or a statement, never a value (`SET PASSWORD FOR 'bob'@'%' = …`)
    "for", "from", "with", "the", "and", "into", "onto", "when", "then", "than", "via",
    # a statement after a condition's colon (`if not pw: return`)
    "return", "raise", "break", "continue", "yield", "await", "lambda", "assert", "throw", "else", "elif",
    # a machine's architecture: apt and dpkg name a package `name:arch` (`Setting up
    # libsecret-1-0:amd64 (0.20.5-2) ...`), as toolchains and release files name their builds
    "amd64", "arm64", "i386", "i686", "armhf", "armel", "arm", "x86", "x64", "x86_64", "aarch64", "ppc64el",
    "ppc64le", "s390x", "riscv64", "mips64el", "loong64", "noarch",
})
_CODE_PREFIXES = ("os.", "process.", "self.", "this.", "env.", "ENV[", "config.", "settings.", "args.",
                  "options.", "opts.", "req.", "request.", "window.", "import.", "getenv", "kwargs", "params.")


@functools.lru_cache(maxsize=4096)
def name_tier(name: str) -> int:
    """0: not a secret name; 1: any literal value is secret; 2: only token-like values are."""
    parts = _joined_words([p.lower() for p in _NAME_PARTS.findall(name)])
    if len(parts) >= 2 and parts[-1] in ("key", "keys") and parts[-2] in _PUBLIC_KEY_KINDS:
        return 0
    literal = [p in LITERAL_WORDS or p.endswith(LITERAL_ENDINGS) or _run_together(p) for p in parts]
    if any(p in _SHORT_FORMS for p in parts):
        # a short form is a word of the name (`DB_PW`, `pswd`), not letters inside one (`-pS3cretPw`)
        # (or a word of a camelCase name, `rootPw`: no digit in it, as there is in `-pS3cretPw`)
        words = {w.lower() for w in _NAME_WORDS.split(name)} | (set(parts) if _CAMEL.fullmatch(name) else set())
        literal = [lit and (p not in _SHORT_FORMS or p in words) for p, lit in zip(parts, literal, strict=True)]
    if len(parts) >= 2 and parts[-1] == "key" and parts[-2] in ("shared", "preshared"):
        literal[-1] = True  # a pre-shared key is a passphrase a person chose, like a password
    secret = [lit or p in RANDOM_WORDS or p.endswith(RANDOM_ENDINGS) or (p.endswith("auth") and len(p) >= 4 + _AUTH_FOR)
              or _key_run_together(p) for p, lit in zip(parts, literal, strict=True)]
    if not any(secret):
        return 2 if otp_seed(name) else 0  # `MFA_TOTP_SEED`: an authenticator's seed, machine-made
    last = max(i for i, s in enumerate(secret) if s)
    rest = parts[last + 1 :]
    if not all(p.isdigit() or p in TRAILING_OK for p in rest):
        if literal[last] and parts[last] != "pass" and not any(p in ABOUT_WORDS for p in rest):
            # `secret_sauce_value`, `vault_secret_id`: a value that looks like a secret is one
            # (not after `pass`, a verb too: `pass_through`, `pass_context`)
            return 2
        # a hierarchical key whose level names a secret (`pypi-token.pypi`, `auth.token.github`):
        # only a machine-made value is one (`password.policy strict`, `token.expiry 3600` stay)
        levels = name.split(".")
        return 2 if len(levels) > 1 and any(name_tier(level) for level in levels[:-1]) else 0
    if parts == [parts[last]] and parts[last] in _SHORT_FORMS:
        return 2  # `pw` alone is a word in lists (`DEBUG=pw:api`): its value must look like one
    return 1 if any(literal[: last + 1]) else 2


def _joined_words(parts: list[str]) -> list[str]:
    """Parts that spell a word for a password together are that word (`pass_word`, `PassPhrase`,
    `pass-code`)."""
    out: list[str] = []
    for p in parts:
        if out and out[-1] + p in LITERAL_WORDS:
            out[-1] += p
        else:
            out.append(p)
    return out


def _run_together(part: str) -> bool:
    word = next((w for w in _RUN_TOGETHER if part.endswith(w)), None)
    return word is not None and part not in _NOT_RUN_TOGETHER and (
        len(part) - len(word) >= (1 if word in _ONE_LETTER_BEFORE else 2))


def _key_run_together(part: str) -> bool:
    """`key` run together with what it is for (`masterkey`, `appkey`, `hmackey`, `encryptionkey`):
    a machine-made value is a secret (tier 2), as under `master_key`; not an English word that
    ends in `key` (`monkey`, `hockey`), nor a key that is public or names a row (`pubkey`,
    `sortkey`, `hotkey`) or a GPG key's id (git's `signingkey`)."""
    if not part.endswith("key") or len(part) < 6 or part in _KEY_WORDS:
        return False
    what = part[:-3]
    return what not in _PUBLIC_KEY_KINDS and what not in ("signing", "primary", "foreign")


_KEY_WORDS = frozenset({"monkey", "donkey", "turkey", "hockey", "jockey", "whiskey", "lackey", "flunkey", "malarkey",
                        "turnkey", "latchkey", "passkey", "keykey"})


def _pathlike(value: str) -> bool:
    if value.startswith(("/", "./", "../", "~/", "http://", "https://", "file:")):
        return True
    head, dot, ext = value.rpartition(".")
    if dot and ext.lower() in FILE_EXTENSIONS:
        return True
    segments = value.split("/")
    return len(segments) > 1 and all(_WORDY.fullmatch(s) or s.isdigit() or not s for s in segments)


def accept_value(name: str, tier: int, value: str, *, quoted: bool, code: bool = False) -> bool:
    """Is this the literal secret of `name`, rather than code, a type, a word or a template?

    `code`: the assignment reads as program code (`password = x`, `f(password=x)`, `{"password": x}`),
    where a bare word is a variable; elsewhere (YAML, .env, CLI flags) it is the value itself."""
    if not value or is_template(value) or PLACEHOLDER_RE.search(value) or value.lower() in STOPWORDS:
        return False
    if value.lower() == name.lower().lstrip("-") or (not quoted and _code_like(value, code)):
        return False
    if is_doc_placeholder(value) or _DIGEST.fullmatch(value) or value.startswith("arn:"):
        return False  # (an ARN names a resource: `--secret-id arn:aws:secretsmanager:…`)
    if _KEY_ID.fullmatch(value) and "signing" in name.lower():
        return False  # `signingKey: 3AA5C34371567BD2`: a GPG key's id, public (the key itself is not)
    if tier == 2:  # a token's name: machine-made, or a password a person made (`Spring2025!Deploy`)
        if _FORMAT.search(value):
            return False  # a format string: `toolskey = "VS%0.f0COMNTOOLS" % version`
        need = 20 if name.lower().strip("-_.") == "key" else 16
        return (looks_random(value, need) or password_like(value)) and not _pathlike(value) and not (
            _SNAKE.fullmatch(value) or _CONSTANT.fullmatch(value))  # (a constant's name: `AGENT365_CLIENT_ID`)
    return len(value) >= 3


def _code_like(value: str, code: bool) -> bool:
    """A bare value that reads as code: a call, an object, a variable name."""
    if value.startswith(("{", "[", "(", "<")) or _call_like(value) or value.startswith(_CODE_PREFIXES):
        return True
    bare = value.lstrip("&| ")  # `&ref`, `|| default`; "&QsT!#9" is a literal
    if value.startswith(("&", "|")) and not (_IDENT.fullmatch(bare) or _DOTTED.fullmatch(bare)):
        return False
    if _DOTTED.fullmatch(bare) and not any(c.isdigit() for c in bare):
        return True  # settings.db_password
    if not _IDENT.fullmatch(bare) or any(c.isdigit() for c in bare):
        return False
    # a variable name: in code any word-like one; elsewhere only snake_case ("letmein" is a value)
    return bool(_WORDY.fullmatch(bare)) if code else "_" in bare.strip("_")



# a call's name, and what may follow its `)`: a member, another call, a subscript (`vault.read(p).data`)
_CALLEE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_SUBSCRIPT = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\[(?:[^\[\]]|\[[^\[\]]*\])*\])*"
                        r"(?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]|\[)")  # (`NotRequired[Optional[str]]`)
_CALL_TAIL = re.compile(r"(?:\.[A-Za-z_$][\w$]*|\([^()]*\)?|\[[^\]]*\]?|\))*[,;]?")


def _call_like(value: str) -> bool:
    """A call or a subscript (`get_password()`, `os.getenv(` cut at its quote, `f(a)[0]`,
    `auth[2]`), not a literal with a bracket in it (`Zq81(QMU2m0)x`: a letter after the `)` is no
    part of code)."""
    if _SUBSCRIPT.fullmatch(value):
        return True  # `auth[2]`, `config[` cut at its quote
    paren = value.find("(")
    if paren < 0 or not _CALLEE.fullmatch(value, 0, paren):
        return False
    close = value.rfind(")")
    return close < 0 or _CALL_TAIL.fullmatch(value, close + 1) is not None


def _closing_quote(text: str, pos: int, opener: str) -> int:
    """Where the string opened by `opener` (a quote after k backslashes) ends, or -1.

    k = 0: the first quote after an even number of backslashes. k > 0 (a string inside
    escaped JSON): the first quote after exactly k; one after more is escaped deeper, part of
    the value (whose exact end the JSON-unescaped view then finds)."""
    quote, k = opener[-1], len(opener) - 1
    limit = min(len(text), pos + 1024)
    i = text.find(quote, pos, limit)
    while i >= 0:
        b = i
        while b > pos and text[b - 1] == "\\":
            b -= 1
        n = i - b
        if (k == 0 and n % 2 == 0) or (k > 0 and n <= k):
            return i - n if k else i
        i = text.find(quote, i + 1, limit)
    return -1



# What documentation writes where a secret goes: `your_password`, `your-api-key-here`,
# `changeme`, `change-in-production`, `replace-me`, `<token>`, `xxxx` (templates: is_template)
_DOC_PLACEHOLDER = re.compile(
    r"(?i)(?:^|[-_.\s])(?:your|my)[-_.]?(?:[a-z]+[-_.]?){0,4}$|^(?:your|enter|insert|put|add)[-_.]?your|"
    r"change[-_.]?(?:me|it|this)(?:$|[-_.!0-9])|change[-_.]?(?:in|for|before)[-_.]?prod|replace[-_.]?(?:me|with|this)|"
    r"(?:^|[-_.])(?:placeholder|dummy|example|sample)(?:$|[-_.])|[-_.]here$")


def is_doc_placeholder(value: str) -> bool:
    """A value documentation writes in a secret's place: reported as a placeholder, not masked."""
    return len(value) <= 64 and (_DOC_PLACEHOLDER.search(value) is not None or _caps_placeholder(value))


# A name in capitals that says what goes there (`PASSWORD`, `DB_PASSWORD`, `YOUR_TOKEN`, `API_KEY`,
# `postgres://USER:PASSWORD@HOST`): documentation's slot, as `<password>` is; a password a person
# chose is not a word for a password in capitals
_CAPS_NAME = re.compile(r"[A-Z]+(?:_[A-Z]+){0,4}")
_SLOT_WORDS = frozenset({"PASSWORD", "PASSWD", "PASS", "PWD", "PW", "SECRET", "TOKEN", "KEY", "APIKEY", "PASSPHRASE",
                         "CREDENTIAL", "CREDENTIALS", "PIN"})


def _caps_placeholder(value: str) -> bool:
    return _CAPS_NAME.fullmatch(value) is not None and any(w in _SLOT_WORDS for w in value.split("_"))


# a GPG key's id or fingerprint: 8, 16 or 40 hex digits
_KEY_ID = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})")


# A digest labelled with its version or algorithm (`v2:<64 hex>`, `sha256:<hex>`): a cache
# key or checksum, not a secret (a bare hex value under a secret name stays one)
_DIGEST = re.compile(r"(?:v\d{1,2}|sha1|sha224|sha256|sha384|sha512|md5|blake2b?):[0-9a-f]{32,128}")


# ---------------------------------------------------------------- what a password looks like
_SYMBOLS_WEAK = frozenset("-_./:")  # in identifiers, versions, paths: not a password's symbol
# words (`MyProject2`, `release_v2`, `HTTPServer`) or a version: a name, not a password
_IDENTIFIER = re.compile(r"[A-Za-z][a-z]*(?:[A-Z]?[a-z]{3,}|[A-Z]{2,5}(?![a-z]))*[-_.]?(?:[A-Z]?\d{1,6}[A-Z]?)?"
                         r"|[a-z][a-z0-9]*(?:_[A-Za-z0-9]{1,10}){2,}"  # snake_case: `actions_dreamed_t0_to_H`
                         r"|v?\d+(?:\.\d+){1,3}[A-Za-z0-9.+-]*")
_JOINED = re.compile(r"[-_.+ ]")
_WORD_PART = re.compile(r"[A-Za-z][a-z]{2,}\d{0,6}|[A-Z]{3,}\d{0,6}|\d{1,6}")  # `Base64`, `encoded`, `UTF8`
_WORDS_JOINED = re.compile(r"[A-Za-z]+(?:[-+_. ][A-Za-z]+)+")  # `Control+Shift+T`, `read-only`
_PW_CHARS = re.compile(r"[\x21-\x7e]+")
_BRACKETS = frozenset("[]{}()<>")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[A-Za-z0-9]{1,10}){2,}")  # `actions_dreamed_t0_to_H`: a name
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# `r.C0.ESC+`, `e.key`, `self.x`: a member of a (minified) object, code
_MEMBER = re.compile(r"(?:^|[\s(=,:!?])(?:[A-Za-z_$]{1,2}|self|this|env|os|process)\.[A-Za-z_$]")
# `net.ipv6.conf.x=0`, `Configuration=Release`: a setting, not a password
_KEY_VALUE = re.compile(r"[a-z]{2,}(?:[._-][a-z0-9_]+)*=|[A-Z][a-z]{2,}(?:[A-Z][a-z]{2,})*="
                        r"|[A-Z][A-Z0-9_]{2,}=")


def code_like(value: str) -> bool:
    """A dotted name or an identifier without digits (`env.CODEMIE_API_KEY`, `params.apiKey`)."""
    bare = value.rstrip(",;")
    return bool(_DOTTED.fullmatch(bare) or _IDENT.fullmatch(bare)) and not any(c.isdigit() for c in bare)


def password_like(value: str, min_len: int = 8) -> bool:
    """A value that reads as a password or token, not a word, path, number or identifier:
    `Spring2025!Deploy`, `f7DEiBGEyHrxeGvf`, `x9#kQ2`; not `MyProject2`, `8080:80`, `no:cache`."""
    if len(value) < min_len or len(value) > 256 or not _PW_CHARS.fullmatch(value):
        return False
    if is_template(value) or is_doc_placeholder(value) or value.lower() in STOPWORDS or "/" in value or (
            PLACEHOLDER_RE.search(value)):
        return False
    if _WORDY.fullmatch(value) or _IDENTIFIER.fullmatch(value) or value.startswith(("http", "-", "$", "%", "{", "_")):
        return False
    if _WORDS_JOINED.fullmatch(value) or all(_WORD_PART.fullmatch(p) for p in _JOINED.split(value) if p):
        return False  # words or names joined: `Control+Shift+T`, `Base64-encoded`
    if code_brackets(value) or code_like(value) or "&#" in value or _setting(value) or _MEMBER.search(value):
        return False  # a pattern (`ya29.[a-z]{100,}`), a call or `env.API_KEY`: code, not a password
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in _SYMBOLS_WEAK for c in value)
    if not (lower or upper):
        return False
    if symbol and digit:
        return True
    return lower + upper + digit + symbol >= 3 and looks_random(value, min_len)


def code_brackets(value: str) -> bool:
    """Brackets as code has them: a pair, one that opens or closes the value, one after a name
    or before one (`f(x`, `arr[i`, `S3SigV4Auth(credentials`: a call a line break cut). One
    bracket inside a password's characters is a symbol of it (`Lr8(Tq2vW`, `2xV[9mQp#L`)."""
    found = [i for i, c in enumerate(value) if c in _BRACKETS]
    if not found:
        return False
    if len(found) > 1 or found[0] in (0, len(value) - 1):
        return True
    at = found[0]
    return _PLAIN_NAME.fullmatch(value, 0, at) is not None or _PLAIN_NAME.fullmatch(value, at + 1) is not None


_PLAIN_NAME = re.compile(r"[A-Za-z_$][A-Za-z_$.-]*")
_FORMAT = re.compile(r"%[-+ #0]?\d*(?:\.\d*)?[sdifxXeEgG]")


def _setting(value: str) -> bool:
    """`name=value` with a plain value (`net.ipv4.ip_forward=1`, `OPENAI_API_KEY=sk-...`); not
    `pbm-qr=^94N`, whose `=` is one of a password's symbols."""
    m = _KEY_VALUE.match(value)
    return m is not None and _PLAIN_VALUE.fullmatch(value, m.end()) is not None


_PLAIN_VALUE = re.compile(r"[\w.:/,+-]*")


def mixed_literal(value: str) -> bool:
    """Letters and digits, 6+ chars, not a name: enough where the position itself is strong
    (`user:X`, a quoted value right after "password")."""
    return (len(value) >= 6 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            and not _IDENTIFIER.fullmatch(value) and not code_like(value) and not is_template(value)
            and not any(c in _BRACKETS for c in value) and "&#" not in value)


def mixed_case_literal(value: str) -> bool:
    """`mixed_literal` with upper and lower case too (`LRs8GRUyLu`): enough after `-p` or in
    "the password is X", where a lower-case `a1b2c3` may be a folder or a word."""
    return mixed_literal(value) and any(c.isupper() for c in value) and any(c.islower() for c in value)
