"""forsy's own detection rules: what the kingfisher engine misses in agent logs.

Each rule is small and named; it yields `Hit`s (str offsets of the secret itself, never
the surrounding name or header, so the context stays readable). Rules are written to
run in linear time: every regex is anchored on a literal or a short keyword, repeats
are bounded, and a rule only runs when one of its trigger literals occurs in the text.

Escaped and encoded forms: token rules accept a left boundary of `\\n`, `\\t`, `\\u00XX`
or `%XX`, because agent logs keep text JSON-escaped or URL-encoded; the redactor also
scans decoded views of such text (see redact.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

CREDENTIAL = "CREDENTIAL"
PRIVATE_KEY = "PRIVATE_KEY"
EMAIL = "EMAIL"
PHONE = "PHONE"
PERSON = "PERSON"
PATH_USER = "PATH_USER"

# Placeholders this module writes; text already holding them must come out unchanged.
PLACEHOLDER_RE = re.compile(r"\[(?:(?:CREDENTIAL|PRIVATE_KEY|EMAIL|PHONE|PERSON)_\d+|PATH_USER|UNSCANNABLE_TEXT)\]")


@dataclass(frozen=True, slots=True)
class Hit:
    """A span of text (str indices) to mask, with its kind and the rule that found it."""

    start: int
    end: int
    kind: str
    rule: str


Finder = Callable[[str, str], Iterator[Hit]]


# ---------------------------------------------------------------- value checks
def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_WORDY = re.compile(r"[a-z]+(?:[_\-.][a-z]+)*|[A-Z]+(?:_[A-Z]+)*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)+")
_TEMPLATE = re.compile(r"^(?:\$|%\(|%s|\{\{|\{%|<[A-Za-z_ -]*>?$|\*{3,}|x{4,}$|X{4,}$|\.{3}|…|\[[A-Z_]+\]$)")


def is_template(value: str) -> bool:
    """A variable reference, template slot or mask rather than a literal secret."""
    return bool(_TEMPLATE.match(value)) or bool(PLACEHOLDER_RE.fullmatch(value))


def looks_random(value: str, min_len: int = 12) -> bool:
    """Machine-made value (token-like): long, mixed classes, enough entropy, not words."""
    if len(value) < min_len or is_template(value) or _WORDY.fullmatch(value):
        return False
    if any(c.isspace() for c in value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value)))
    if classes < 2 or value.isdigit():
        return False
    return entropy(value) >= 3.0


# ---------------------------------------------------------------- regex rules
# A token may follow a non-alphanumeric char, or an escape that ends in a letter or hex
# digit: "\nghp_…" in JSON text, "%3Dghp_…" in a URL-encoded query string.
LB = r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt])|(?<=\\u[0-9a-fA-F]{4})|(?<=%[0-9a-fA-F]{2}))"
RB = r"(?![A-Za-z0-9])"


@dataclass(frozen=True)
class RegexRule:
    """A regex whose group `v` (or whole match) is the secret; runs only when a trigger occurs."""

    name: str
    kind: str
    pattern: re.Pattern[str]
    triggers: tuple[str, ...]
    lower: bool = False  # triggers are checked against the lower-cased text
    accept: Callable[[str], bool] | None = None

    def __call__(self, text: str, lowered: str) -> Iterator[Hit]:
        hay = lowered if self.lower else text
        if not any(t in hay for t in self.triggers):
            return
        has_v = "v" in self.pattern.groupindex
        for m in self.pattern.finditer(text):
            start, end = m.span("v") if has_v else m.span()
            if start < 0 or (self.accept is not None and not self.accept(text[start:end])):
                continue
            yield Hit(start, end, self.kind, self.name)


def _rx(name: str, pattern: str, triggers: tuple[str, ...], *, flags: int = 0, lower: bool = False,
        accept: Callable[[str], bool] | None = None, kind: str = CREDENTIAL) -> RegexRule:
    return RegexRule(name, kind, re.compile(pattern, flags), triggers, lower, accept)


def _mixed_case_or_digit(v: str) -> bool:
    return looks_random(v, 16)


TOKEN_RULES: tuple[RegexRule, ...] = (
    _rx("aws-access-key-id", LB + r"(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})" + RB,
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    _rx("github-token", LB + r"(?P<v>gh[pousr]_[A-Za-z0-9]{36,251})" + RB,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _rx("github-fine-grained-pat", LB + r"(?P<v>github_pat_[A-Za-z0-9_]{40,251})" + RB, ("github_pat_",)),
    _rx("gitlab-token", LB + r"(?P<v>gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,250}"
        r"(?:\.[A-Za-z0-9_-]{2,250}){0,3})", ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-",
                                               "glsoat-", "glft-", "glimt-", "glagent-")),
    _rx("slack-token", LB + r"(?P<v>xox[abposre]-[A-Za-z0-9-]{10,250})", ("xox",)),
    _rx("slack-app-token", LB + r"(?P<v>xapp-\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{20,})", ("xapp-",)),
    _rx("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9+/_-]{20,200})",
        ("hooks.slack.com",)),
    _rx("stripe-key", LB + r"(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247})" + RB, ("sk_", "rk_")),
    _rx("stripe-webhook-secret", LB + r"(?P<v>whsec_[A-Za-z0-9+/=]{20,100})", ("whsec_",)),
    _rx("anthropic-key", LB + r"(?P<v>sk-ant-[A-Za-z0-9_-]{20,250})", ("sk-ant-",)),
    _rx("openai-key", LB + r"(?P<v>sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,250})",
        ("sk-",), accept=_mixed_case_or_digit),
    _rx("google-api-key", LB + r"(?P<v>AIza[0-9A-Za-z_-]{35})" + RB, ("AIza",)),
    _rx("google-oauth", LB + r"(?P<v>(?:ya29\.[0-9A-Za-z_-]{20,2000}|GOCSPX-[0-9A-Za-z_-]{20,60}))",
        ("ya29.", "GOCSPX-")),
    _rx("huggingface-token", LB + r"(?P<v>hf_[A-Za-z0-9]{30,60})" + RB, ("hf_",), accept=_mixed_case_or_digit),
    _rx("npm-token", LB + r"(?P<v>npm_[A-Za-z0-9]{36})" + RB, ("npm_",)),
    _rx("pypi-token", LB + r"(?P<v>pypi-AgE[A-Za-z0-9_-]{50,400})", ("pypi-AgE",)),
    _rx("jwt", LB + r"(?P<v>eyJ[A-Za-z0-9_-]{5,4000}\.eyJ[A-Za-z0-9_-]{5,8000}\.[A-Za-z0-9_-]{0,1000})",
        ("eyJ",)),
    # Sentry-style DSN: the 32-hex key is the URL user name
    _rx("dsn-key", r"://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@", ("://",)),
)

# ---------------------------------------------------------------- headers and commands
_HEADER_VALUE = r"[A-Za-z0-9._~+/=-]"
HEADER_RULES: tuple[RegexRule, ...] = (
    _rx("auth-header",
        r"(?i)(?<![A-Za-z0-9-])(?:proxy-)?authorization\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?[ \t]*"
        r"(?:(?:bearer|basic|token|bot|apikey|sso-key|key)[ \t]+)?(?P<v>" + _HEADER_VALUE + r"{8,4096})",
        ("authorization",), lower=True, accept=lambda v: looks_random(v, 8) or is_basic_credential(v)),
    _rx("auth-scheme", r"(?i)(?<![A-Za-z0-9])(?:bearer|basic)[ \t]+(?P<v>" + _HEADER_VALUE + r"{12,4096})",
        ("bearer", "basic"), lower=True, accept=lambda v: looks_random(v, 12) or is_basic_credential(v)),
    _rx("mysql-password",
        r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb(?:-dump)?)\b"
        r"[^\n|;&]{0,300}?[ \t]-p(?P<q>['\"]?)(?P<v>[^\s'\"]{1,200})(?P=q)", ("mysql", "mariadb"),
        accept=lambda v: not is_template(v)),
    _rx("curl-user", r"(?<![\w-])(?:-u|--user)[ \t]+['\"]?[^\s:'\"@]{1,100}:(?P<v>[^\s'\"@]{1,200})['\"]?",
        ("-u", "--user"), accept=lambda v: not is_template(v)),
)


def is_basic_credential(value: str) -> bool:
    """A Basic auth value: base64 of `user:password`."""
    import base64
    import binascii

    if len(value) < 8 or len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


# ---------------------------------------------------------------- URLs with passwords
_URL_PW = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\\?/\\?/"
    r"[^\s:/?#@\"'\\<>]{0,128}:(?P<v>[^\s/?#\"'\\<>]{1,256})@(?=[A-Za-z0-9\[_-])"
)


def url_password(text: str, lowered: str) -> Iterator[Hit]:
    """`scheme://user:password@host`: the password (kept encoded as it appears)."""
    if "//" not in text or "@" not in text:
        return
    for m in _URL_PW.finditer(text):
        value = m.group("v")
        if is_template(value) or PLACEHOLDER_RE.search(value):
            continue
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "url-password")


# ---------------------------------------------------------------- PEM private keys
_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Body lines after a BEGIN with no END (truncated tool output): base64 or "Key: value"
# headers, separated by real or escaped newlines.
_PEM_BODY = re.compile(
    r"(?:(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)(?:[A-Za-z0-9+/=]{1,128}|[A-Za-z-]{1,30}: [^\n\\]{0,200})?)*"
)
PEM_MAX = 64 * 1024


def private_key(text: str, lowered: str) -> Iterator[Hit]:
    """A whole PEM/OpenSSH/PGP private key block, BEGIN to END (or to the end of its body)."""
    if "PRIVATE KEY" not in text:
        return
    pos = 0
    while (m := _PEM_BEGIN.search(text, pos)) is not None:
        end_m = _PEM_END.search(text, m.end(), m.end() + PEM_MAX)
        end = end_m.end() if end_m else _body_end(text, m.end())
        yield Hit(m.start(), end, PRIVATE_KEY, "private-key")
        pos = end


def _body_end(text: str, pos: int) -> int:
    body = _PEM_BODY.match(text, pos, pos + PEM_MAX)
    return body.end() if body else pos


# ---------------------------------------------------------------- emails
_EMAIL_DOMAIN = re.compile(
    r"@(?P<d>[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*"
    r"\.(?P<tld>[A-Za-z]{2,24}))(?![A-Za-z0-9-]|\.[A-Za-z0-9])"
)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
# Not personal: machine senders, and "name@2x.png"-style file names
_EMAIL_LOCAL_SKIP = frozenset({"git", "noreply", "no-reply", "donotreply", "do-not-reply", "mailer-daemon"})
FILE_EXTENSIONS = frozenset(
    "png jpg jpeg gif svg webp ico bmp tif tiff js mjs cjs ts mts tsx jsx json jsonl py pyc pyi rs go rb java kt "
    "swift c h cc cpp hpp cs php md mdx txt css scss sass less html htm xml yml yaml toml ini cfg conf lock sh "
    "bash zsh fish log csv tsv sql db sqlite zip gz tgz tar bz2 xz whl jar map wasm vue svelte lua pl r dart ex "
    "exs erl hs ml scala gradle env example tmp bak pdf doc docx xls xlsx ppt pptx mp3 mp4 mov wav ogg webm ttf "
    "otf woff woff2 eot patch diff orig swp pem crt key pub so dylib dll exe bin o a out class pkl pt onnx "
    "ipynb".split()
)


def email(text: str, lowered: str) -> Iterator[Hit]:
    """Email addresses: the domain is matched by regex, the local part by walking left."""
    if "@" not in text:
        return
    for m in _EMAIL_DOMAIN.finditer(text):
        if m.group("tld").lower() in FILE_EXTENSIONS:
            continue
        start = _local_start(text, m.start())
        local = text[start : m.start()]
        if not local or local.lower() in _EMAIL_LOCAL_SKIP:
            continue
        yield Hit(start, m.end(), EMAIL, "email")


def _local_start(text: str, at: int) -> int:
    start = at
    while start > 0 and at - start < 64 and text[start - 1] in _LOCAL_CHARS:
        start -= 1
    # "\nalice@…" (JSON escape) or "%0Aalice@…" (URL escape): the escape is not the address
    if start >= 1 and text[start - 1] == "\\" and start < at and text[start] in "nrtbf":
        start += 1
    elif start >= 1 and text[start - 1] == "%" and re.match(r"[0-9A-Fa-f]{2}", text[start : start + 2]):
        start += 2
    while start < at and text[start] in ".+-":
        start += 1
    return start


# ---------------------------------------------------------------- phone numbers
# Conservative: an international "+CC …" number of 8-15 digits with separators (or 10+ digits
# compact), or a North-American number written with the usual punctuation.
_PHONE_INTL = re.compile(
    r"(?<![\w+/=.\-:])\+(?P<v>[1-9]\d{0,2}(?:[ .\-]?\(\d{1,4}\))?(?:[ .\-]?\d{1,5}){1,5})(?![\w.\-+/]|:\d)"
)
_PHONE_NANP = re.compile(
    r"(?<![\w+/=.\-:])(?:\([2-9]\d\d\)[ \-.]?|[2-9]\d\d(?P<s>[\-.]))[2-9]\d\d(?(s)(?P=s)|[\-.])\d{4}(?![\w.\-+/]|:\d)"
)


def phone(text: str, lowered: str) -> Iterator[Hit]:
    """Phone numbers in international or NANP notation."""
    if "+" in text:
        for m in _PHONE_INTL.finditer(text):
            digits = sum(c.isdigit() for c in m.group("v"))
            compact = m.group("v").isdigit()
            if 8 <= digits <= 15 and (not compact or digits >= 10):
                yield Hit(m.start(), m.end(), PHONE, "phone")
    if "-" in text or "." in text or "(" in text:
        for m in _PHONE_NANP.finditer(text):
            yield Hit(m.start(), m.end(), PHONE, "phone")


# ---------------------------------------------------------------- home paths
_SEP = r"(?:\\/|/|\\{1,4})"
_HOME = re.compile(r"(?:" + _SEP + r"(?:Users|home)|[A-Za-z]:\\{1,4}Users)" + _SEP
                   + r"(?P<v>[A-Za-z0-9_][A-Za-z0-9._-]{0,63})(?=$|" + _SEP + r"|[\s\"'`:;,)\]}>|])")
GENERIC_ACCOUNTS = frozenset({
    "shared", "public", "default", "user", "username", "you", "yourname", "your-name", "your_name", "me", "runner",
    "ubuntu", "root", "admin", "ec2-user", "vagrant", "node", "app", "circleci", "jenkins", "travis", "docker",
    "codespace", "vscode", "linuxbrew", "guest", "nobody", "name", "example", "foo", "bar", "john", "jane",
    "johndoe", "developer", "dev", "all users", "default user", "defaultapppool",
})


def home_path_user(text: str, lowered: str) -> Iterator[Hit]:
    """The account name in /Users/NAME, /home/NAME, C:\\Users\\NAME (also escaped)."""
    if "users" not in lowered and "home" not in lowered:
        return
    for m in _HOME.finditer(text):
        if m.group("v").lower() in GENERIC_ACCOUNTS:
            continue
        yield Hit(m.start("v"), m.end("v"), PATH_USER, "home-path")


# ---------------------------------------------------------------- cookies
_COOKIE = re.compile(
    r"(?i)(?:(?<![A-Za-z0-9-])(?:set-)?cookie\\{0,3}[\"']?[ \t]*:|--cookie[ \t]+)[ \t]*\\{0,3}[\"']?"
    r"(?P<v>[^\r\n\"'\\]{1,8192})"
)
_COOKIE_PAIR = re.compile(r"(?P<n>[^=;,\s]{1,256})=(?P<v>[^;\s]{1,4096})")
COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority", "version"})


def cookie(text: str, lowered: str) -> Iterator[Hit]:
    """Values of `Cookie:` / `Set-Cookie:` / `curl --cookie` pairs (attributes like Path stay)."""
    if "cookie" not in lowered:
        return
    for m in _COOKIE.finditer(text):
        for pair in _COOKIE_PAIR.finditer(text, m.start("v"), m.end("v")):
            value = pair.group("v")
            if pair.group("n").lower() in COOKIE_ATTRIBUTES or is_template(value):
                continue
            yield Hit(pair.start("v"), pair.end("v"), CREDENTIAL, "cookie")


# ---------------------------------------------------------------- name = value assignments
# Found keyword-first (then the name is grown around it) so that no regex ever starts
# with an unbounded identifier repeat: that would be quadratic on long base64 runs.
_KEYWORD = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cred")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SEPARATOR = re.compile(r"(?P<nq>\\{0,3}[\"'])?[ \t]*(?P<sep>:=|=>|(?<![=!<>])=(?![=>~])|:(?![:/=]))[ \t]*")
_CLI_SEPARATOR = re.compile(r"(?P<nq>)(?P<sep>=|[ \t]+)")
# `DB_PASSWORD==x`: for an env-style name, "==" is a value starting with "=", not a comparison
_ENV_SEPARATOR = re.compile(r"(?P<nq>\\{0,3}[\"'])?[ \t]*(?P<sep>:=|=>|=|:(?![:/=]))[ \t]*")
_OPEN_QUOTE = re.compile(r"\\{0,3}[\"'`]")
_BARE = re.compile(r"[^\s\"'`\\,;<>]{1,1024}")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[[^\]]*\])+")

LITERAL_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pass", "pw", "secret", "secrets"})
LITERAL_ENDINGS = ("password", "passwd", "passphrase", "secret")
RANDOM_WORDS = frozenset({"token", "key", "apikey", "auth", "credential", "credentials", "cred", "creds"})
RANDOM_ENDINGS = ("token", "apikey", "accesskey", "privatekey", "secretkey", "authkey")
# After the secret word a name may go on only with words that keep it a secret value
_TRAILING_OK = frozenset({"base", "value", "plain", "plaintext", "raw", "b64", "base64", "hex", "new", "old",
                          "current", "confirm", "confirmation", "again", "repeat", "verify", "prod", "dev",
                          "test", "staging", "live", "v1", "v2"})
# Values that are types, flags or words, not secrets
STOPWORDS = frozenset({
    "str", "string", "int", "integer", "bool", "boolean", "bytes", "none", "null", "nil", "true", "false",
    "undefined", "required", "optional", "any", "object", "text", "char", "varchar", "unknown", "empty",
    "hidden", "redacted", "masked", "sensitive", "yes", "no", "on", "off", "enabled", "disabled", "env",
    "value", "default", "secretstr", "secretbytes", "secretstring", "password", "passwd", "secret", "token",
    "key", "string;", "number", "void", "self", "cls", "this", "na", "n/a", "tbd", "todo", "see", "set",
    "unset", "missing", "invalid", "valid", "expired", "provided", "present", "absent", "included",
})
_CODE_PREFIXES = ("os.", "process.", "self.", "this.", "env.", "ENV[", "config.", "settings.", "args.",
                  "options.", "opts.", "req.", "request.", "window.", "import.", "getenv", "kwargs", "params.")


def name_tier(name: str) -> int:
    """0: not a secret name; 1: any literal value is secret; 2: only token-like values are."""
    parts = [p.lower() for p in _NAME_PARTS.findall(name)]
    literal = [p in LITERAL_WORDS or p.endswith(LITERAL_ENDINGS) for p in parts]
    secret = [lit or p in RANDOM_WORDS or p.endswith(RANDOM_ENDINGS) for p, lit in zip(parts, literal, strict=True)]
    if not any(secret):
        return 0
    last = max(i for i, s in enumerate(secret) if s)
    if not all(p.isdigit() or p in _TRAILING_OK for p in parts[last + 1 :]):
        return 0
    return 1 if any(literal[: last + 1]) else 2


def _pathlike(value: str) -> bool:
    if value.startswith(("/", "./", "../", "~/", "http://", "https://", "file:")):
        return True
    head, dot, ext = value.rpartition(".")
    if dot and ext.lower() in FILE_EXTENSIONS:
        return True
    segments = value.split("/")
    return len(segments) > 1 and all(_WORDY.fullmatch(s) or s.isdigit() or not s for s in segments)


def accept_value(name: str, tier: int, value: str, *, quoted: bool, spaced: bool) -> bool:
    """Is this the literal secret of `name`, rather than code, a type, a word or a template?"""
    if not value or is_template(value) or PLACEHOLDER_RE.search(value) or value.lower() in STOPWORDS:
        return False
    if value.lower() == name.lower().lstrip("-"):
        return False
    # Env/CLI style (`DB_PASSWORD=x`, `--password=x`): the value is a literal, never code
    env_style = (name.isupper() or name.startswith("-")) and not spaced
    if not quoted and not env_style and _code_like(value):
        return False
    if tier == 2:
        need = 20 if name.lower().strip("-_.") == "key" else 16
        return looks_random(value, need) and not _pathlike(value)
    return len(value) >= 3


def _code_like(value: str) -> bool:
    """A bare value that reads as code: a call, an object, a (dotted) variable name."""
    if value.startswith(("{", "[", "(", "&", "|", "<")) or "(" in value or value.startswith(_CODE_PREFIXES):
        return True
    if any(c.isdigit() for c in value):
        return False
    # `password = pw`, `f(password=pw)`, `password: settings.db_password`
    return bool(_IDENT.fullmatch(value) or _DOTTED.fullmatch(value))


def assignment(text: str, lowered: str) -> Iterator[Hit]:
    """`name = value`, `name: value`, `"name": "value"`, `--name=value` with a secret-looking name."""
    done = 0
    for m in _KEYWORD.finditer(text):
        if m.start() < done:
            continue
        start, end = _grow_name(text, m.start(), m.end())
        done = end
        name = text[start:end]
        tier = name_tier(name)
        if tier:
            hit = _value_after(text, name, tier, end)
            if hit is not None:
                done = hit.end
                yield hit


def _grow_name(text: str, start: int, end: int) -> tuple[int, int]:
    lo = max(0, start - 64)
    while start > lo and text[start - 1] in _NAME_CHARS:
        start -= 1
    hi = min(len(text), end + 64)
    while end < hi and text[end] in _NAME_CHARS:
        end += 1
    # "\nPASSWORD=…" in escaped text: the "n" of the escape is not part of the name
    if start >= 1 and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1
    elif start >= 1 and text[start - 1] == "%" and re.match(r"[0-9A-Fa-f]{2}", text[start : start + 2]):
        start += 2
    return start, end


def _value_after(text: str, name: str, tier: int, pos: int) -> Hit | None:
    if name.startswith("--"):
        sep_re = _CLI_SEPARATOR
    else:
        sep_re = _ENV_SEPARATOR if name.isupper() else _SEPARATOR
    sep = sep_re.match(text, pos)
    if sep is None:
        return None
    vstart = sep.end()
    spaced = sep.start("sep") > pos + len(sep.group("nq") or "") or vstart > sep.end("sep")
    opener = _OPEN_QUOTE.match(text, vstart)
    if opener is not None:
        close = text.find(opener.group(), opener.end(), opener.end() + 1024)
        if close > opener.end() and "\n" not in text[opener.end() : close]:
            value = text[opener.end() : close]
            if accept_value(name, tier, value, quoted=True, spaced=spaced):
                return Hit(opener.end(), close, CREDENTIAL, "secret-assignment")
        return None
    bare = _BARE.match(text, vstart)
    if bare is None:
        return None
    value = bare.group().rstrip(")]}.")
    if accept_value(name, tier, value, quoted=False, spaced=spaced):
        return Hit(vstart, vstart + len(value), CREDENTIAL, "secret-assignment")
    return None


# ---------------------------------------------------------------- given names
class WordList:
    """Whole-word occurrences of given strings (user names, git author names)."""

    def __init__(self, words: list[str], kind: str, rule: str, *, ignore_case: bool) -> None:
        self.kind, self.rule, self.ignore_case = kind, rule, ignore_case
        self.words = sorted({w.lower() if ignore_case else w for w in words}, key=len, reverse=True)
        alternation = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in self.words)
        flags = re.IGNORECASE if ignore_case else 0
        self.pattern = re.compile(r"(?<![A-Za-z0-9_])(?:" + alternation + r")(?![A-Za-z0-9_])", flags)

    def __call__(self, text: str, lowered: str) -> Iterator[Hit]:
        hay = lowered if self.ignore_case else text
        if not self.words or not any(w.split(" ")[0] in hay for w in self.words):
            return
        for m in self.pattern.finditer(text):
            yield Hit(m.start(), m.end(), self.kind, self.rule)


def project_rules() -> tuple[Finder, ...]:
    """The fixed rules, in reporting order (when spans tie, the earlier rule names the hit)."""
    return (private_key, *TOKEN_RULES, *HEADER_RULES, url_password, cookie, assignment, email, phone,
            home_path_user)
