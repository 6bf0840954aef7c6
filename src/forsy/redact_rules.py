"""forsy's own detection rules: what the kingfisher engine misses in agent logs.

Each rule is small and named; it yields `Hit`s (str offsets of the secret itself, never
the surrounding name or header, so the context stays readable). Rules are written to
run in linear time: every regex is anchored on a literal or a short keyword, repeats
are bounded, and a rule only runs when one of its trigger literals occurs in the text.

Escaped and encoded forms: token rules accept a left boundary of `\\n`, `\\t`, `\\u00XX`
or `%XX`, because agent logs keep text JSON-escaped or URL-encoded; the redactor also
scans decoded views of such text (redact.py).
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
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


Finder = Callable[[str, "Anchors"], Iterator[Hit]]


# ---------------------------------------------------------------- value checks
def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_WORDY = re.compile(r"[a-z]+(?:[_\-.][a-z]+)*|[A-Z]+(?:_[A-Z]+)*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)+")
# `$VAR`, `${VAR}`, `$(cmd)`, `$HOME/…`, `%(name)s`, `{{ var }}`, `<your-key>`, `****`, `xxxx`, `[MASKED]`…
# (a literal that merely starts with "$", like "$*Aw9" or "$RI2Zq8", is not one)
# cmd's `%VAR%` and PowerShell's `$env:VAR` are references too.
_TEMPLATE = re.compile(r"^(?:\$(?:\{|\(|(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)(?:$|/))|%\(|%s|\{\{|\{%|"
                       r"<[A-Za-z_ -]*>?$|\*{3,}|x{4,}$|X{4,}$|\.{3}|…|\[[A-Z_]+\]$|"
                       r"%[A-Za-z_][A-Za-z0-9_]*%$|\$[Ee][Nn][Vv]:)")


def is_template(value: str) -> bool:
    """A variable reference, template slot or mask rather than a literal secret."""
    return bool(_TEMPLATE.match(value)) or bool(PLACEHOLDER_RE.fullmatch(value))


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~+/=:%-]+")


def looks_random(value: str, min_len: int = 12) -> bool:
    """Machine-made value (token-like): long, token chars only, mixed classes, enough entropy, not words."""
    if len(value) < min_len or is_template(value) or _WORDY.fullmatch(value) or not _TOKEN_CHARS.fullmatch(value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value)))
    if classes < 2 or value.isdigit():
        return False
    return entropy(value) >= 3.0


# ---------------------------------------------------------------- anchored regex rules
# Python's regex engine is slow (10-20 MB/s) on patterns that start with a lookbehind or
# an alternation; str.find is ~2 GB/s. So every rule is anchored on literals: find them,
# check the left boundary in Python, then `pattern.match` at that position.
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
RB = r"(?![A-Za-z0-9])"


def left_ok(text: str, i: int) -> bool:
    """A token may start here: after a non-alphanumeric char, or after an escape that ends
    in one ("\\nghp_…" in JSON text, "%3Dghp_…" URL-encoded, "\\u0022ghp_…")."""
    if i == 0 or text[i - 1] not in _ALNUM:
        return True
    c = text[i - 1]
    if i >= 2 and text[i - 2] == "\\" and c in "nrt":
        return True
    if i >= 3 and text[i - 3] == "%" and c in _HEX and text[i - 2] in _HEX:
        return True
    return i >= 6 and text[i - 6 : i - 4] == "\\u" and all(ch in _HEX for ch in text[i - 4 : i])


_CONTINUATION = bytes.maketrans(bytes(range(0x80, 0xC0)), b"\x80" * 0x40)


class Anchors:
    """Where literals occur in a text: found in its UTF-8 bytes (memchr-fast, and `bytes.lower`
    is ASCII-only so offsets do not move), returned as sorted str indices.

    Rare literals (NATIVE_ANCHORS) are found by the engine in its own single pass when it
    can (`engine` = their positions); then they are not searched for here at all.
    """

    def __init__(self, text: str, data: bytes | None = None, engine: list[int] | None = None) -> None:
        self.text = text
        self.data = text.encode("utf-8") if data is None else data
        self.engine = engine  # positions of NATIVE_ANCHORS, or None: search them here
        self.phone: list[int] | None = None  # where phone numbers may start, if the engine said
        self._lower: bytes | None = None
        self._marks: bytes | None = None
        self._by_head: dict[str, list[int]] | None = None
        # set by rules that met a secret name or URL whose value holds an escape
        self.want_json_view = False

    def find(self, literals: Iterable[str], *, ignore_case: bool = False) -> list[int]:
        out: list[int] = []
        for lit in literals:
            if self.engine is None or lit not in NATIVE_ANCHORS:
                out += self._search(lit, ignore_case)
            elif self.engine:
                n, text = len(lit), self.text
                cands = self._buckets().get(lit[:2].lower(), ())
                out += [i for i in cands if (text[i : i + n].lower() if ignore_case else text[i : i + n]) == lit]
        out.sort()
        return out

    def _buckets(self) -> dict[str, list[int]]:
        """Engine anchor positions by their first two chars (lower-cased)."""
        if self._by_head is None:
            self._by_head = {}
            for i in self.engine or ():
                self._by_head.setdefault(self.text[i : i + 2].lower(), []).append(i)
        return self._by_head

    def _search(self, lit: str, ignore_case: bool) -> list[int]:
        if ignore_case and self._lower is None:
            self._lower = self.data.lower()
        hay = self._lower if ignore_case and self._lower is not None else self.data
        needle = (lit.lower() if ignore_case else lit).encode("utf-8")
        found = []
        i = hay.find(needle)
        while i >= 0:
            found.append(i)
            i = hay.find(needle, i + 1)
        return self.chars(found)

    def chars(self, offsets: list[int]) -> list[int]:
        """Sorted byte offsets (at char starts) -> str indices."""
        if len(self.data) == len(self.text) or not offsets:
            return offsets
        if self._marks is None:  # every continuation byte becomes 0x80: counted in C below
            self._marks = self.data.translate(_CONTINUATION)
        out, prev, chars = [], 0, 0
        for b in offsets:
            chars += (b - prev) - self._marks.count(b"\x80", prev, b)
            prev = b
            out.append(chars)
        return out


@dataclass(frozen=True)
class RegexRule:
    """A regex tried where one of its literals occurs; group `v` (or the match) is the secret."""

    name: str
    kind: str
    pattern: re.Pattern[str]
    literals: tuple[str, ...]
    accept: Callable[[str], bool] | None = None
    ignore_case: bool = False
    bounded: bool = True  # the literal must start a token (see left_ok)

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        skip = -1
        for i in anchors.find(self.literals, ignore_case=self.ignore_case):
            if i >= skip and (not self.bounded or left_ok(text, i)):
                hit, skip = self.try_at(text, i)
                if hit is not None:
                    yield hit

    def try_at(self, text: str, i: int) -> tuple[Hit | None, int]:
        """The hit at i, if any, and where the next attempt of this rule may start.

        After a failure inside a very long token-char run, the rest of the run is skipped:
        "eyJ-eyJ-eyJ-…" would otherwise cost a long scan per anchor (quadratic time)."""
        m = self.pattern.match(text, i)
        if m is not None:
            start, stop = m.span("v") if "v" in self.pattern.groupindex else m.span()
            if start >= 0 and (self.accept is None or self.accept(text[start:stop])):
                return Hit(start, stop, self.kind, self.name), m.end()
        run = _TOKEN_RUN.match(text, i)
        return None, run.end() if run is not None and run.end() - i > 512 else i + 1


_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]*+")


class TokenRules:
    """All token-prefix rules, run at the positions of their prefixes (found in one pass)."""

    def __init__(self, rules: tuple[RegexRule, ...]) -> None:
        self.rules = rules
        self.literals = tuple(dict.fromkeys(lit for r in rules for lit in r.literals))
        self.by_literal: dict[str, list[RegexRule]] = {}
        for r in rules:
            for lit in r.literals:
                self.by_literal.setdefault(lit, []).append(r)
        self.lengths = sorted({len(lit) for lit in self.literals})

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        skip: dict[str, int] = {}
        for i in anchors.find(self.literals):
            bounded = left_ok(text, i)
            for n in self.lengths:
                for rule in self.by_literal.get(text[i : i + n], ()):
                    if i >= skip.get(rule.name, -1) and (bounded or not rule.bounded):
                        hit, skip[rule.name] = rule.try_at(text, i)
                        if hit is not None:
                            yield hit


def _rx(name: str, pattern: str, literals: tuple[str, ...], *, ignore_case: bool = False,
        accept: Callable[[str], bool] | None = None, kind: str = CREDENTIAL, bounded: bool = True) -> RegexRule:
    flags = re.IGNORECASE if ignore_case else 0
    return RegexRule(name, kind, re.compile(pattern, flags), literals, accept, ignore_case, bounded)


def _token_like(v: str) -> bool:
    return looks_random(v, 16)


TOKEN_RULES: tuple[RegexRule, ...] = (
    _rx("aws-access-key-id", r"(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})" + RB,
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    _rx("github-token", r"(?P<v>gh[pousr]_[A-Za-z0-9]{36,251})" + RB, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    _rx("github-fine-grained-pat", r"(?P<v>github_pat_[A-Za-z0-9_]{40,251})" + RB, ("github_pat_",)),
    _rx("gitlab-token", r"(?P<v>gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,250}"
        r"(?:\.[A-Za-z0-9_-]{2,250}){0,3})", ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-",
                                               "glsoat-", "glft-", "glimt-", "glagent-")),
    _rx("slack-token", r"(?P<v>xox[abposre]-[A-Za-z0-9-]{10,250})", ("xox",)),
    _rx("slack-app-token", r"(?P<v>xapp-\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{20,})", ("xapp-",)),
    _rx("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9+/_-]{20,200})",
        ("hooks.slack.com",)),
    _rx("stripe-key", r"(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247})" + RB, ("sk_live_", "sk_test_",
                                                                                  "rk_live_", "rk_test_")),
    _rx("stripe-webhook-secret", r"(?P<v>whsec_[A-Za-z0-9+/=]{20,100})", ("whsec_",)),
    _rx("anthropic-key", r"(?P<v>sk-ant-[A-Za-z0-9_-]{20,250})", ("sk-ant-",)),
    _rx("openai-key", r"(?P<v>sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,250})", ("sk-",),
        accept=_token_like),
    _rx("google-api-key", r"(?P<v>AIza[0-9A-Za-z_-]{35})" + RB, ("AIza",)),
    _rx("google-oauth", r"(?P<v>(?:ya29\.[0-9A-Za-z_-]{20,2000}|GOCSPX-[0-9A-Za-z_-]{20,60}))",
        ("ya29.", "GOCSPX-")),
    _rx("huggingface-token", r"(?P<v>hf_[A-Za-z0-9]{30,60})" + RB, ("hf_",), accept=_token_like),
    _rx("npm-token", r"(?P<v>npm_[A-Za-z0-9]{36})" + RB, ("npm_",)),
    _rx("pypi-token", r"(?P<v>pypi-AgE[A-Za-z0-9_-]{50,400})", ("pypi-AgE",)),
    _rx("jwt", r"(?P<v>eyJ[A-Za-z0-9_-]{5,4000}+\.eyJ[A-Za-z0-9_-]{5,8000}+\.[A-Za-z0-9_-]{0,1000}+)", ("eyJ",)),
    # Sentry-style DSN: the 32-hex key is the URL user name
    _rx("dsn-key", r"://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@", ("://",), bounded=False),
)

TOKEN_FINDER = TokenRules(TOKEN_RULES)

# ---------------------------------------------------------------- headers and commands
_HEADER_VALUE = r"[A-Za-z0-9._~+/=-]"
HEADER_RULES: tuple[RegexRule, ...] = (
    _rx("auth-header",
        r"authorization\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?[ \t]*"
        r"(?:(?:bearer|basic|token|bot|apikey|sso-key|key)[ \t]+)?(?P<v>" + _HEADER_VALUE + r"{8,4096})",
        ("authorization",), ignore_case=True,
        accept=lambda v: looks_random(v, 8) or is_basic_credential(v)),
    _rx("auth-scheme", r"(?:bearer|basic)[ \t]+(?P<v>" + _HEADER_VALUE + r"{12,4096})",
        ("bearer", "basic"), ignore_case=True,
        accept=lambda v: looks_random(v, 12) or is_basic_credential(v)),
    _rx("mysql-password",
        r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb(?:-dump)?)\b"
        r"[^\n|;&]{0,300}?[ \t]-p(?P<q>(?:\\{0,3}['\"])?)(?P<v>[^\s'\"\\;&|<>()`]{1,200})(?P=q)", ("mysql", "mariadb"),
        accept=lambda v: not is_template(v)),
    _rx("curl-user", r"(?:-u|--user)[ \t]+['\"]?[^\s:'\"@]{1,100}:(?P<v>[^\s'\"@]{1,200})['\"]?",
        ("-u ", "-u\t", "--user"), accept=lambda v: not is_template(v) and not v.startswith("//")),  # not a URL
    _rx("sshpass-password", r"sshpass[ \t]+(?:-[a-oq-zA-Z]\S*[ \t]+)*-p[ \t]*(?P<q>['\"]?)(?P<v>[^\s'\"]{1,200})(?P=q)",
        ("sshpass",), accept=lambda v: not is_template(v)),
    _rx("openssl-pass", r"pass:(?P<v>[^\s'\"]{1,200})", ("pass:",), ignore_case=False,
        accept=lambda v: not is_template(v)),
)

# Tools whose flags or arguments carry a credential: (the command as typed, where its
# secret is). The command's words are the anchor; what follows is read as shell words up to
# the end of the command (newline, `;`, `&`, `|`, `(`, `)`, a redirection). Where:
#   -p      the next word, or -p=VALUE           -p+   also attached: -pVALUE
#   -p*     attached only (-pVALUE; "-p VALUE" means something else there: 7z, xfreerdp /p:)
#   -U%     the flag's value is user%SECRET (also "," and ":"); only the part after it
#   #2      the 2nd argument that is not a flag (#-1: the last); #1/ user/SECRET[@db]
#   #-1?b   ... only when the short option b is given (htpasswd -b)
#   #1~     ... only a machine-made value (looks_random): "vault login first" is prose
# Not repeated here, older rules cover them: mysql* -pX (mysql-password), curl -u user:X
# (curl-user), sshpass -p (sshpass-password), openssl pass:X (openssl-pass); and any flag
# named like a secret, --password X, -Password X, --api-key=X (secret-assignment).
_MONGO = "-p --password"
_LDAP = "-w+"
CLI_SECRETS: tuple[tuple[str, str], ...] = (
    # registries and clouds
    ("docker login", "-p --password"), ("podman login", "-p --password"), ("nerdctl login", "-p --password"),
    ("buildah login", "-p --password"), ("skopeo login", "-p --password"), ("oras login", "-p --password"),
    ("helm registry login", "-p --password"), ("crane auth login", "-p --password"),
    ("az login", "-p --password"), ("az acr login", "-p --password"), ("oc login", "-p --password --token"),
    ("cf login", "-p"), ("cf auth", "#2"), ("expo login", "-p --password"), ("twine upload", "-p --password"),
    ("dotnet nuget push", "-k --api-key"), ("dotnet nuget add source", "-p --password"),
    ("nuget", "-Password -ApiKey"), ("gh secret set", "-b --body"), ("kubectl", "--token --password"),
    ("consul", "-token"), ("nomad", "-token"), ("vault login", "#1~"), ("cargo login", "#1~"),
    ("ngrok authtoken", "#1~"), ("ngrok config add-authtoken", "#1~"), ("snyk auth", "#1~"),
    ("doctl auth init", "-t --access-token"), ("mc alias set", "#4"), ("mc config host add", "#4"),
    ("ConvertTo-SecureString", "#1 -String"),
    # databases, brokers, directories, shares, remote shells
    ("redis-cli", "-a --pass"), ("redis-server", "--requirepass --masterauth"),
    ("sqlcmd", "-P+"), ("bcp", "-P+"), ("osql", "-P+"), ("influx", "-password"),
    ("mongo", _MONGO), ("mongosh", _MONGO), ("mongodump", _MONGO), ("mongorestore", _MONGO),
    ("mongoexport", _MONGO), ("mongoimport", _MONGO), ("mongostat", _MONGO), ("mongotop", _MONGO),
    ("sqlplus", "#1/"), ("rabbitmqctl add_user", "#2"), ("rabbitmqctl change_password", "#2"),
    ("mosquitto_pub", "-P --pw"), ("mosquitto_sub", "-P --pw"),
    ("ldapsearch", _LDAP), ("ldapadd", _LDAP), ("ldapmodify", _LDAP), ("ldapdelete", _LDAP),
    ("ldapwhoami", _LDAP), ("ldapcompare", _LDAP), ("ldapmodrdn", _LDAP), ("ldapexop", _LDAP),
    ("ldappasswd", "-w+ -s -a"), ("smbclient", "-U% --user%"), ("rpcclient", "-U% --user%"),
    ("smbget", "-U% --user%"), ("smbmap", "-p"), ("psexec", "-p"), ("xfreerdp", "/p:* /password:*"),
    ("rdesktop", "-p"), ("lftp", "-u,"), ("snmpwalk", "-A -X"), ("snmpget", "-A -X"), ("snmpset", "-A -X"),
    # keys, archives, keychains
    ("keytool", "-storepass -keypass -srcstorepass -deststorepass -srckeypass -destkeypass -new"),
    ("jarsigner", "-storepass -keypass"), ("openssl", "-k"), ("ssh-keygen", "-N -P"),
    ("zip", "-P --password"), ("unzip", "-P"), ("7z", "-p*"), ("7za", "-p*"), ("rar", "-p*"), ("unrar", "-p*"),
    ("htpasswd", "#-1?b"), ("security add-generic-password", "-w"), ("security add-internet-password", "-w"),
    ("security unlock-keychain", "-p"), ("security create-keychain", "-p"),
)


@dataclass(frozen=True, slots=True)
class CliSlot:
    """One place a command's secret is (a parsed CLI_SECRETS entry)."""

    flag: str = ""  # "" for a positional argument
    separate: bool = True  # -p VALUE, -p=VALUE
    attached: bool = False  # -pVALUE
    split: str = ""  # user%SECRET: the part after this char
    position: int = 0  # N-th plain argument, -1 the last
    when: str = ""  # a short option that must be given
    machine: bool = False  # the value must look machine-made


def _cli_slot(spec: str) -> CliSlot:
    m = re.fullmatch(r"(?:#(?P<pos>-?\d)|(?P<flag>[-/][A-Za-z0-9:-]*?))(?P<mode>[+*]?)(?P<split>[%,:/]?)"
                     r"(?:\?(?P<when>[A-Za-z]))?(?P<machine>~?)", spec)
    if m is None:
        raise ValueError(f"bad CLI_SECRETS entry {spec!r}")
    mode = m["mode"]
    return CliSlot(m["flag"] or "", mode != "*", mode in "+*" and mode != "", m["split"], int(m["pos"] or 0),
                   m["when"] or "", m["machine"] == "~")


CLI_TABLE: dict[str, list[tuple[tuple[str, ...], tuple[CliSlot, ...]]]] = {}
for _cmd, _specs in CLI_SECRETS:
    _first, *_sub = _cmd.split()
    CLI_TABLE.setdefault(_first, []).append((tuple(_sub), tuple(_cli_slot(s) for s in _specs.split())))
# with the blank after it: "rar " is not in "library", and a command with a secret has arguments
CLI_ANCHORS = tuple(cmd + " " for cmd, _ in CLI_SECRETS)

# Literals rare in logs, so cheap for the engine to report (each report costs ~7 µs) but
# costly to search for here (one pass over the text each). Common ones stay here.
NATIVE_ANCHORS_CASED = TOKEN_FINDER.literals + CLI_ANCHORS
NATIVE_ANCHORS_ANY_CASE = ("authorization", "bearer", "basic", "cookie", "mysql", "mariadb", "-u ", "-u\t",
                           "--user", ":\\/\\/", "sshpass", "pass:")
NATIVE_ANCHORS = frozenset(NATIVE_ANCHORS_CASED + NATIVE_ANCHORS_ANY_CASE)


def is_basic_credential(value: str) -> bool:
    """A Basic auth value: base64 of `user:password`."""
    if len(value) < 8 or len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


# ---------------------------------------------------------------- URLs with passwords
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_URL_USERINFO = re.compile(r"[^\s:/?#@\"'\\<>]{0,128}:(?P<v>[^\s/?#\"'\\<>]{1,256})@(?=[A-Za-z0-9\[_-])")
_URL_USERINFO_ESCAPED = re.compile(r"[^\s:/?#@\"'<>]{0,128}:[^\s/?#\"'<>]{1,256}@")


def url_password(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`scheme://user:password@host`: the password (kept encoded as it appears)."""
    if "@" not in text:
        return
    for i in anchors.find(("://", ":\\/\\/")):
        j = i
        while j > 0 and i - j < 21 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        if j == i or not text[j].isalpha():  # no scheme before "://"
            continue
        at = i + (3 if text[i + 1] == "/" else 5)
        m = _URL_USERINFO.match(text, at)
        if m is None and "\\" in text[at : at + 400] and _URL_USERINFO_ESCAPED.match(text, at):
            anchors.want_json_view = True  # user info with an escape in it: read it decoded
        if m is None or is_template(m.group("v")) or PLACEHOLDER_RE.search(m.group("v")):
            continue
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "url-password")


# ---------------------------------------------------------------- PEM private keys
_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Body lines after a BEGIN with no END (truncated tool output): base64 or "Key: value"
# headers (tried first: "Proc-Type" would otherwise end the body as base64 "Proc"),
# separated by real or escaped newlines.
_PEM_BODY = re.compile(
    r"(?:(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)(?:[A-Za-z][A-Za-z0-9-]{0,29}: [^\n\\]{0,200}|[A-Za-z0-9+/=]{1,128})?)*"
)
PEM_MAX = 64 * 1024


def private_key(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A whole PEM/OpenSSH/PGP private key block, BEGIN to END (or to the end of its body)."""
    if "PRIVATE KEY" not in text:
        return
    pos = 0
    end_at, end_stop = -1, -1  # the first END after the last search (start, end); end_stop -1: none
    while (m := _PEM_BEGIN.search(text, pos)) is not None:
        if end_at < m.end():  # search again only once past it: linear in the text
            e = _PEM_END.search(text, m.end())
            end_at, end_stop = (e.start(), e.end()) if e else (len(text) + 1, -1)
        end = end_stop if end_stop >= 0 and end_at - m.end() <= PEM_MAX else _body_end(text, m.end())
        yield Hit(m.start(), end, PRIVATE_KEY, "private-key")
        pos = end


def _body_end(text: str, pos: int) -> int:
    body = _PEM_BODY.match(text, pos, pos + PEM_MAX)
    return body.end() if body else pos


# ---------------------------------------------------------------- emails
_EMAIL_DOMAIN = re.compile(
    r"@(?P<d>[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*"
    r"\.(?P<tld>[A-Za-z]{2,24}))(?![A-Za-z0-9-]|\.[A-Za-z0-9]|/)"
)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
# Not personal: machine senders
_EMAIL_LOCAL_SKIP = frozenset({"git", "noreply", "no-reply", "donotreply", "do-not-reply", "mailer-daemon"})
# "icon@2x.png" is a file name, not an address
FILE_EXTENSIONS = frozenset(
    "png jpg jpeg gif svg webp ico bmp tif tiff js mjs cjs ts mts tsx jsx json jsonl py pyc pyi rs go rb java kt "
    "swift c h cc cpp hpp cs php md mdx txt css scss sass less html htm xml yml yaml toml ini cfg conf lock sh "
    "bash zsh fish log csv tsv sql db sqlite zip gz tgz tar bz2 xz whl jar map wasm vue svelte lua pl r dart ex "
    "exs erl hs ml scala gradle env example tmp bak pdf doc docx xls xlsx ppt pptx mp3 mp4 mov wav ogg webm ttf "
    "otf woff woff2 eot patch diff orig swp pem crt key pub so dylib dll exe bin o a out class pkl pt onnx "
    "ipynb".split()
)


def email(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Email addresses: the domain is matched by regex, the local part by walking left.

    Not followed by "/": "pkg@scope.io/name" is a package path, not an address."""
    if "@" not in text:
        return
    for m in _EMAIL_DOMAIN.finditer(text):
        if m.group("tld").lower() in FILE_EXTENSIONS:
            continue
        start = _local_start(text, m.start())
        local = text[start : m.start()]
        if not local or local.endswith(".") or local.lower() in _EMAIL_LOCAL_SKIP:
            continue  # ("Promise.@resolve" is code, not an address)
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
# compact), or a North-American number written with the usual punctuation. Not inside a
# longer token (versions, hashes, timestamps, ports: the boundary checks).
# (possessive digit groups: a long digit run has one way to be split, not thousands)
_PHONE_INTL = re.compile(r"\+(?P<v>[1-9]\d{0,2}+(?:[ .\-]?\(\d{1,4}+\))?(?:[ .\-]?\d{1,5}+){1,5})(?![\w\-+/]|[.:]\d)")
_PHONE_NANP = re.compile(r"[2-9]\d\d(?P<s>[\-.])[2-9]\d\d(?P=s)\d{4}(?![\w\-+/]|[.:]\d)")
_PHONE_PAREN = re.compile(r"\([2-9]\d\d\)[ \-.]?[2-9]\d\d[\-.]\d{4}(?![\w\-+/]|[.:]\d)")
_NOT_BEFORE_PHONE = frozenset("_+/=.-:") | _ALNUM


def phone(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Phone numbers in international or NANP notation."""
    native = anchors.phone
    if native is not None:  # the engine found where numbers may start: match only there
        matches = [m for i in native for rx in _PHONES if (m := rx.match(text, i)) is not None]
    else:
        matches = [m for rx in _PHONES for m in rx.finditer(text)]
    for m in matches:
        if m.re is _PHONE_INTL:
            digits = sum(c.isdigit() for c in m.group("v"))
            if not (8 <= digits <= 15 and (not m.group("v").isdigit() or digits >= 10)):
                continue
        if _phone_left(text, m.start()):
            yield Hit(m.start(), m.end(), PHONE, "phone")


_PHONES = (_PHONE_INTL, _PHONE_NANP, _PHONE_PAREN)
# The same three shapes, loosely, in the engine's regex dialect (no look-around): it reports
# where one may start, _PHONES decide.
PHONE_ANCHOR_PATTERN = r"(\+[1-9][0-9 .()-]{7,24}|[2-9][0-9]{2}[-.][2-9][0-9]{2}[-.][0-9]{4}|\([2-9][0-9]{2}\))"


def _phone_left(text: str, i: int) -> bool:
    return i == 0 or text[i - 1] not in _NOT_BEFORE_PHONE or (text[i - 1] in _ALNUM and left_ok(text, i))


# ---------------------------------------------------------------- home paths
_SEPS = ("/", "\\/", "\\")
_HOME_NAME = re.compile(r"(?:Users|home)(?:\\/|/|\\{1,4})(?P<v>[A-Za-z0-9_][A-Za-z0-9._-]{0,63})"
                        r"(?=$|\\|/|[\s\"'`:;,)\]}>|])")
GENERIC_ACCOUNTS = frozenset({
    "shared", "public", "default", "user", "username", "you", "yourname", "your-name", "your_name", "me", "runner",
    "ubuntu", "root", "admin", "ec2-user", "vagrant", "node", "app", "circleci", "jenkins", "travis", "docker",
    "codespace", "vscode", "linuxbrew", "guest", "nobody", "name", "example", "foo", "bar", "john", "jane",
    "johndoe", "developer", "dev", "all users", "default user", "defaultapppool",
})


def home_path_user(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The account name in /Users/NAME, /home/NAME, C:\\Users\\NAME (also JSON-escaped)."""
    for i in anchors.find(("Users", "home")):
        if i == 0 or text[i - 1] not in "/\\":  # a path component, not a word
            continue
        m = _HOME_NAME.match(text, i)
        if m is None or m.group("v").lower() in GENERIC_ACCOUNTS:
            continue
        yield Hit(m.start("v"), m.end("v"), PATH_USER, "home-path")


# ---------------------------------------------------------------- cookies
_COOKIE = re.compile(r"(?:cookie\\{0,3}[\"']?[ \t]*:|(?P<flag>cookie[ \t]+))[ \t]*\\{0,3}[\"']?"
                     r"(?P<v>[^\r\n\"'\\]{1,8192})", re.IGNORECASE)
COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority", "version"})


def cookie(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Values of `Cookie:` / `Set-Cookie:` / `curl --cookie` pairs (attributes like Path stay)."""
    for i in anchors.find(("cookie",), ignore_case=True):
        if i > 0 and text[i - 1] in _ALNUM:
            continue
        m = _COOKIE.match(text, i)
        if m is None or (m.group("flag") and text[i - 2 : i] != "--"):
            continue  # "cookie VALUE" only as curl's "--cookie VALUE"
        yield from _cookie_values(text, m.start("v"), m.end("v"))


def _cookie_values(text: str, start: int, end: int) -> Iterator[Hit]:
    """The value of each `name=value` of a cookie list (split in Python: linear time)."""
    pos = start
    for part in text[start:end].split(";"):
        name, eq, value = part.partition("=")
        stripped = value.strip()
        if eq and name.strip() and stripped and name.strip().lower() not in COOKIE_ATTRIBUTES and not is_template(
                stripped):
            vstart = pos + len(name) + 1 + (len(value) - len(value.lstrip()))
            yield Hit(vstart, vstart + len(stripped), CREDENTIAL, "cookie")
        pos += len(part) + 1


# ---------------------------------------------------------------- name = value assignments
# Found keyword-first (then the name is grown around it) so that no regex ever starts
# with an unbounded identifier repeat: that would be quadratic on long base64 runs.
_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# "my password is Tr0ub4dor&3": a prose separator, for values that are not plain words
_PROSE_SEP = r"|[ \t]+(?:is|was)[ \t]+(?=\S)"
_PROSE_SECRET = re.compile(r"(?=\S{6})\S*[^A-Za-z\s.,;:!?'\")]")
_SEPARATOR = re.compile(
    r"(?P<nq>\\{0,3}[\"'])?[ \t]*(?P<sep>:=|=>|==(?=[^\s=])|(?<![=!<>])=(?![=>]|~\s)|:(?![:/=])|\|(?=[ \t])"
    + _PROSE_SEP + r")[ \t]*")
_CLI_SEPARATOR = re.compile(r"(?P<nq>)(?P<sep>=|[ \t]+)")
# `DB_PASSWORD==x`: for an env-style name, "==" is a value starting with "=", not a comparison
_ENV_SEPARATOR = re.compile(r"(?P<nq>\\{0,3}[\"'])?[ \t]*(?P<sep>:=|=>|=|:(?![:/=])|\|(?=[ \t]))[ \t]*")
# `<password>value</password>` and netrc's `login NAME password VALUE`
_XML_VALUE = re.compile(r">(?P<v>[^<>\n]{1,1024})</")
_NETRC_LOGIN = re.compile(r"\blogin[ \t]+\S+[ \t\n]+$")
_NETRC_VALUE = re.compile(r"[ \t]+(?P<v>\S{1,1024})")
_OPEN_QUOTE = re.compile(r"\\{0,3}[\"'`]")
_BARE = re.compile(r"[^\s\"'`\\,;<>]{1,1024}")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORM_FIELD = re.compile(r"&(?=[A-Za-z_][A-Za-z0-9_.-]{0,40}=)")
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[[^\]]*\])+")

LITERAL_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pass", "secret"})
LITERAL_ENDINGS = ("password", "passwd", "passphrase", "secret")
RANDOM_WORDS = frozenset({"token", "key", "apikey", "auth", "credential", "credentials", "cred", "creds", "secrets"})
RANDOM_ENDINGS = ("token", "apikey", "accesskey", "privatekey", "secretkey", "authkey")
# "<word>_key" names that hold identifiers or public values, not secrets
_PUBLIC_KEY_KINDS = frozenset({"recv", "public", "pub", "publishable", "primary", "foreign", "sort", "partition",
                               "cache", "idempotency", "dedup", "hot", "route", "lookup", "object", "map", "dict",
                               "unique", "composite", "row", "group", "react", "translation", "i18n", "shortcut"})
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


@functools.lru_cache(maxsize=4096)
def name_tier(name: str) -> int:
    """0: not a secret name; 1: any literal value is secret; 2: only token-like values are."""
    parts = [p.lower() for p in _NAME_PARTS.findall(name)]
    if len(parts) >= 2 and parts[-1] in ("key", "keys") and parts[-2] in _PUBLIC_KEY_KINDS:
        return 0
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


def accept_value(name: str, tier: int, value: str, *, quoted: bool, code: bool = False) -> bool:
    """Is this the literal secret of `name`, rather than code, a type, a word or a template?

    `code`: the assignment reads as program code (`password = x`, `f(password=x)`, `{"password": x}`),
    where a bare word is a variable; elsewhere (YAML, .env, CLI flags) it is the value itself."""
    if not value or is_template(value) or PLACEHOLDER_RE.search(value) or value.lower() in STOPWORDS:
        return False
    if value.lower() == name.lower().lstrip("-") or (not quoted and _code_like(value, code)):
        return False
    if tier == 2:
        need = 20 if name.lower().strip("-_.") == "key" else 16
        return looks_random(value, need) and not _pathlike(value)
    return len(value) >= 3


def _code_like(value: str, code: bool) -> bool:
    """A bare value that reads as code: a call, an object, a variable name."""
    if value.startswith(("{", "[", "(", "<")) or "(" in value or value.startswith(_CODE_PREFIXES):
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


def assignment(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`name = value`, `name: value`, `"name": "value"`, `--name=value` with a secret-looking name."""
    done = 0
    n = len(text)
    for i in anchors.find(_KEYWORDS, ignore_case=True):
        if i < done:
            continue
        m = _NAME_TAIL.match(text, i)
        end = done = m.end() if m else i
        # most keyword hits ("input_tokens": 12, "the key is") are ruled out here, cheaply
        if end >= n or text[end] not in _AFTER_NAME or not name_tier(text[i:end]):
            continue  # (no secret word before the first keyword, so the tail's tier bounds the name's)
        start = _name_start(text, i)
        name = text[start:end]
        tier = name_tier(name)
        if tier:
            hit = (_value_after(text, name, tier, end, anchors) or _markup_value(text, start, end, name, tier)
                   or setter_value(text, start, end, name, tier, anchors))
            if hit is not None:
                done = hit.end
                yield hit


_NAME_TAIL = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_AFTER_NAME = frozenset(" \t\"':=\\|>")


def _name_start(text: str, start: int) -> int:
    lo = max(0, start - 64)
    while start > lo and text[start - 1] in _NAME_CHARS:
        start -= 1
    # "\nPASSWORD=…" in escaped text: the "n" of the escape is not part of the name
    if start >= 1 and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1
    elif start >= 1 and text[start - 1] == "%" and re.match(r"[0-9A-Fa-f]{2}", text[start : start + 2]):
        start += 2
    return start


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


def _markup_value(text: str, start: int, end: int, name: str, tier: int) -> Hit | None:
    """`<password>value</password>`, or netrc's `… login NAME password VALUE`."""
    if start > 0 and text[start - 1] == "<" and text[end : end + 1] == ">":
        m = _XML_VALUE.match(text, end)
        if m and text.startswith(name + ">", m.end()) and accept_value(name, tier, m["v"], quoted=True):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    elif name.lower() == "password" and _NETRC_LOGIN.search(text, max(0, start - 200), start):
        m = _NETRC_VALUE.match(text, end)
        if m and accept_value(name, tier, m["v"], quoted=True):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    return None


def _value_after(text: str, name: str, tier: int, pos: int, anchors: Anchors) -> Hit | None:
    """The secret value after `name` at `pos`, if a literal one follows a separator.

    A value that holds an escape (`\\\"` in a quoted one, `\\\\` in a bare one) cannot be
    cut right here: it asks for the JSON-unescaped view (anchors.want_json_view)."""
    # a flag: `--name`, or `-name` as a word of its own (Go, PowerShell, keytool style)
    before = pos - len(name) - 1
    flag = name.startswith("--") or (name.startswith("-") and (before < 0 or text[before] in " \t\"'("))
    if flag:
        sep_re = _CLI_SEPARATOR
    else:
        sep_re = _ENV_SEPARATOR if name.isupper() else _SEPARATOR
    sep = sep_re.match(text, pos)
    if sep is None:
        return None
    vstart = sep.end()
    spaced = sep.start("sep") > pos + len(sep.group("nq") or "") or vstart > sep.end("sep")
    env_style = (name.isupper() or name.startswith("-") or (before >= 0 and text[before] == "=")) and not spaced
    # on a command line a bare word is the value itself, never a variable (that is `$x`)
    code = not flag and not env_style and (sep.group("sep") != ":" or bool(sep.group("nq")))
    opener = _OPEN_QUOTE.match(text, vstart)
    if opener is not None:
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close < 0 or "\\" in value:
            anchors.want_json_view = anchors.want_json_view or "\\" in text[vstart : vstart + 1024]
        if close > opener.end() and "\n" not in value and accept_value(name, tier, value, quoted=True):
            return Hit(opener.end(), close, CREDENTIAL, "secret-assignment")
        return None
    prose = sep.group("sep").strip() in ("is", "was")
    if (name.lower() == "pass" and sep.group("sep") == ":") or (prose and tier == 1 and not _PROSE_SECRET.match(
            text, vstart)):
        return None  # "PASS: test_x" is a test result; "the password is wrong" is not one
    if flag:
        return _flag_value(text, name, tier, vstart, sep.group("sep") != "=", anchors)
    # `NAME=value` (shell, .env) or `--from-literal=name=value`: a comma is part of the value
    # (a trailing one is not: stripped below)
    bare = (_ENV_BARE if env_style and sep.group("sep") == "=" else _BARE).match(text, vstart)
    if bare is None:
        return None
    stop = bare.end()
    if text[stop : stop + 1] == "\\" and text[stop + 1 : stop + 2] not in ("n", "r", "t", '"', ""):
        anchors.want_json_view = True
    value = _FORM_FIELD.split(bare.group(), 1)[0].rstrip(")]}.:,")  # `password=x&remember=1`: x
    if accept_value(name, tier, value, quoted=False, code=code):
        return Hit(vstart, vstart + len(value), CREDENTIAL, "secret-assignment")
    return None


# ---------------------------------------------------------------- command lines (CLI_SECRETS: above)
# Shell words: a word ends at whitespace or an operator; `\n` `\r` (JSON-escaped newlines)
# end the command, `\t` is a blank.
_WORD_STOP = frozenset(" \t\n\r;&|()<>`")
_COMMAND_END = frozenset("\n\r;&|()<>`#")
_QUOTES = frozenset("\"'")
CLI_MAX = 600  # chars of a command read after its name
_CLI_BEFORE = frozenset(" \t\n\r;&|(`'\"/=$")


def shell_words(text: str, pos: int, limit: int) -> Iterator[tuple[int, int]]:
    """Spans of the shell words from `pos` to the end of the command (or `limit`).

    A quote opens a string only at the start of a word or in a flag (`--body="x"`, `-p'x'`,
    `/p:"x"`); elsewhere it ends the word: in JSON text a bare `"` closes the string the
    command is in (`"cmd --token abc="`). A string not closed on its line ends the command."""
    i = pos
    while i < limit:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c == "\\" and (esc := _escape_len(text, i)):
            if text[i + esc - 1] != "t":
                return  # an escaped newline ends the command
            i += esc
            continue
        if c in _COMMAND_END:
            return
        start = i
        while i < limit:
            c = text[i]
            if c in _WORD_STOP:
                break
            if c == "\\":
                if _escape_len(text, i):
                    break
                opener = _OPEN_QUOTE.match(text, i)
                if opener is None:
                    i += 2  # a shell escape: the next char is literal
                    continue
            elif c not in _QUOTES:
                i += 1
                continue
            opener = _OPEN_QUOTE.match(text, i)
            if opener is None or not (i == start or (text[start] in "-/" and (text[i - 1] in "=:" or i - start == 2))):
                break
            close = _closing_quote(text, opener.end(), opener.group())
            if close < 0 or "\n" in text[opener.end() : close]:
                return  # unclosed on its line: not one we can read (nor, batched, the next text's)
            i = close + len(opener.group())
        if i > start:
            yield start, min(i, limit)
        if i < limit and text[i] in _QUOTES:
            return  # a bare quote: the end of the JSON string holding the command


def _escape_len(text: str, i: int) -> int:
    """Length of a JSON-escaped newline/tab (`\\n`, `\\\\n`, `\\\\\\n`) at i, else 0."""
    j = i
    while j < len(text) and j - i < 3 and text[j] == "\\":
        j += 1
    return j - i + 1 if j < len(text) and text[j] in "nrt" and j > i else 0


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    """The span inside the quotes of a quoted word (part), else the part itself."""
    opener = _OPEN_QUOTE.match(text, start)
    if opener is not None and text.endswith(opener.group(), start, end) and end - start >= 2 * len(opener.group()):
        return start + len(opener.group()), end - len(opener.group())
    return start, end


def cli_literal(value: str) -> bool:
    """A literal secret, not a reference (`$PW`, `%PW%`, `$(cat f)`), a word or a placeholder."""
    return len(value) >= 3 and not is_template(value) and not PLACEHOLDER_RE.search(value) and (
        value.lower() not in STOPWORDS)


def cli_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The secret flag values and arguments of the tools in CLI_SECRETS."""
    seen = -1
    for i in anchors.find(CLI_ANCHORS):
        if i <= seen or not (i == 0 or text[i - 1] in _CLI_BEFORE or (text[i - 1] in _ALNUM and left_ok(text, i))):
            continue
        seen = i
        end = text.find(" ", i, i + 64)
        for sub, slots in CLI_TABLE.get(text[i:end], ()):
            words = list(shell_words(text, end, min(len(text), end + CLI_MAX)))
            if len(words) > len(sub) and all(text[s:e] == w for (s, e), w in zip(words, sub, strict=False)):
                for slot, start, stop in _cli_values(text, words[len(sub) :], slots):
                    value = text[start:stop]
                    if "\\" in value:
                        anchors.want_json_view = True  # the exact value is read in the unescaped view
                    elif cli_literal(value) and (not slot.machine or looks_random(value, 16)):
                        yield Hit(start, stop, CREDENTIAL, "cli-secret")
                seen = words[-1][1] if words else seen  # the rest of this command was read
                break


def _cli_values(text: str, words: list[tuple[int, int]],
                slots: tuple[CliSlot, ...]) -> Iterator[tuple[CliSlot, int, int]]:
    """Where the secrets are among a command's words (spans of the values, unquoted)."""
    plain = [(s, e) for s, e in words if text[s] != "-" or e - s == 1]
    shorts = "".join(text[s + 1 : e] for s, e in words if text[s] == "-" and text[s + 1 : s + 2] != "-")
    for slot in slots:
        if slot.when and slot.when not in shorts:
            continue
        if slot.position:
            if len(plain) >= abs(slot.position):
                yield from _split(slot, text, *_unquoted(text, *plain[slot.position - (slot.position > 0)]))
            continue
        n = len(slot.flag)
        for k, (s, e) in enumerate(words):
            word = text[s:e]
            if word == slot.flag and slot.separate and k + 1 < len(words):
                vs, ve = words[k + 1]
                if text[vs] != "-":
                    yield from _split(slot, text, *_unquoted(text, vs, ve))
            elif word.startswith(slot.flag) and e - s > n:
                if word[n] == "=" and slot.separate:
                    yield from _split(slot, text, *_unquoted(text, s + n + 1, e))
                elif slot.attached:
                    yield from _split(slot, text, *_unquoted(text, s + n, e))


def _split(slot: CliSlot, text: str, start: int, end: int) -> Iterator[tuple[CliSlot, int, int]]:
    """user%SECRET -> SECRET (user/SECRET@db -> SECRET); no user, or no separator: nothing."""
    sep = slot.split
    if not sep:
        yield slot, start, end
        return
    cut = text.find(sep, start, end)
    if cut > start:
        stop = text.rfind("@", cut, end) if sep == "/" else -1
        yield slot, cut + 1, stop if stop > cut else end


# `set -x NAME VALUE` (fish), `setx NAME VALUE` (cmd), `aws configure set NAME VALUE`,
# `npm config set //host/:_authToken VALUE`, `git config --global NAME VALUE`,
# `Set-Item Env:NAME -Value VALUE`: a verb that sets a variable right before its name.
# (Not a bare `env:NAME`: that is also openssl's `-passin env:VAR`, a reference.)
# (fish: -e erases, -q queries, -n/-S list: no value follows.)
_SETTER = re.compile(
    r"(?:(?<![\w.-])(?:set(?P<flags>(?:[ \t]+--?[A-Za-z]+)*)|setx|(?:npm|yarn|pnpm)[ \t]+config[ \t]+set|npm[ \t]+set"
    r"|aws[ \t]+configure[ \t]+set|git[ \t]+config(?:[ \t]+--(?:global|local|system|worktree))?"
    r"|user-secrets[ \t]+set|poetry[ \t]+config)[ \t]+(?:\S{0,80}:)?"
    r"|(?:[Ss]et|[Nn]ew)-[Ii]tem(?:[ \t]+-[Pp]ath)?[ \t]+[Ee]nv:)$")
_SETTER_WORDS = ("set", "config", "-Item", "-item")
_SETTER_VALUE = re.compile(r"[ \t]+(?:-[Vv]alue[ \t]+)?")
# SetEnvironmentVariable("NAME", "VALUE"), os.Setenv("NAME", "VALUE"), setenv/putenv, setdefault
_ENV_CALL = re.compile(r"(?:SetEnvironmentVariable|[Ss]etenv|putenv|setdefault)[ \t]*\([ \t]*\\{0,3}[\"']$")
_ENV_CALL_NEXT = re.compile(r"\\{0,3}[\"'][ \t]*,[ \t]*")
_NO_VALUE_FLAGS = frozenset("eqnS")


def setter_value(text: str, start: int, end: int, name: str, tier: int, anchors: Anchors) -> Hit | None:
    """The value of NAME set by a command (`set -x NAME VALUE`) or an env-setting call."""
    window = text[max(0, start - 120) : start]
    if "(" in window[-40:] and _ENV_CALL.search(window) is not None:
        nxt = _ENV_CALL_NEXT.match(text, end)
        opener = _OPEN_QUOTE.match(text, nxt.end()) if nxt is not None else None
        if opener is None:
            return None  # a variable, not a literal
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close < 0 or "\\" in value:
            anchors.want_json_view = True
        elif accept_value(name, tier, value, quoted=True):
            return Hit(opener.end(), close, CREDENTIAL, "secret-assignment")
        return None
    if not any(w in window for w in _SETTER_WORDS) or (m := _SETTER.search(window)) is None:
        return None
    flags = m.group("flags") or ""
    if any(c in _NO_VALUE_FLAGS for word in flags.split() if not word.startswith("--") for c in word) or any(
            word in ("--erase", "--query", "--names", "--show") for word in flags.split()):
        return None
    sep = _SETTER_VALUE.match(text, end)
    if sep is None:
        return None
    word = next(shell_words(text, sep.end(), min(len(text), sep.end() + 1024)), None)
    if word is None or word[0] != sep.end() or text[word[0]] in "-=:":
        return None
    vstart, vend = _unquoted(text, *word)
    value = text[vstart:vend]
    if "\\" in value:
        anchors.want_json_view = True
        return None
    if accept_value(name, tier, value, quoted=True) and cli_literal(value):
        return Hit(vstart, vend, CREDENTIAL, "secret-assignment")
    return None


# ---------------------------------------------------------------- PuTTY private keys
# PuTTY-User-Key-File-2/3: header lines, Public-Lines, Private-Lines (base64), Private-MAC;
# raw or with JSON-escaped newlines. Masked whole, like a PEM block.
_PUTTY_HEAD = re.compile(r"PuTTY-User-Key-File-\d{1,2}: [^\n\\]{0,200}")
_PUTTY_MAC = re.compile(r"Private-MAC: [0-9a-fA-F]{1,128}")


def putty_key(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A PuTTY .ppk key, from its first line to its Private-MAC (or the end of its body)."""
    if "PuTTY-User-Key-File-" not in text:
        return
    pos = 0
    while (start := text.find("PuTTY-User-Key-File-", pos)) >= 0:
        head = _PUTTY_HEAD.match(text, start)
        if head is None:
            pos = start + 1
            continue
        body_end = _body_end(text, head.end())
        mac = _PUTTY_MAC.search(text, head.end(), body_end)
        end = mac.end() if mac is not None else body_end
        yield Hit(start, end, PRIVATE_KEY, "private-key")
        pos = end


def _flag_value(text: str, name: str, tier: int, vstart: int, spaced: bool, anchors: Anchors) -> Hit | None:
    """The bare value of `--name value` / `--name=value`: one shell word, exactly (a `,` or a
    trailing `.` is part of it); after a blank, a word starting with "-" is the next flag."""
    word = _CLI_BARE.match(text, vstart)
    if word is None or (spaced and text[vstart] == "-"):
        return None
    stop = word.end()
    if text[stop : stop + 1] == "\\" and text[stop + 1 : stop + 2] not in ("n", "r", "t", '"', ""):
        anchors.want_json_view = True
    if accept_value(name, tier, word.group(), quoted=True) and cli_literal(word.group()):
        return Hit(vstart, stop, CREDENTIAL, "secret-assignment")
    return None


_ENV_BARE = re.compile(r"[^\s\"'`\\;<>]{1,1024}")
_CLI_BARE = re.compile(r"[^\s\"'`\\;&|<>()]{1,1024}")


# ---------------------------------------------------------------- given names
class WordList:
    """Whole-word occurrences of given strings (user names, git author names)."""

    def __init__(self, words: list[str], kind: str, rule: str, *, ignore_case: bool) -> None:
        self.kind, self.rule = kind, rule
        forms = {w for word in words for w in ((word, word.lower(), word.upper(), word.title()) if ignore_case
                                               else (word,))}
        self.words = tuple(sorted(forms, key=len, reverse=True))

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        taken = -1
        for i in anchors.find(self.words):
            if i < taken:
                continue
            for w in self.words:  # longest first
                end = i + len(w)
                if text.startswith(w, i) and (left_ok(text, i) and (i == 0 or text[i - 1] != "_")) and (
                        end == len(text) or text[end] not in _WORD):
                    taken = end
                    yield Hit(i, end, self.kind, self.rule)
                    break


_WORD = _ALNUM | {"_"}


def json_view_rules() -> tuple[Finder, ...]:
    """The rules run again on JSON-unescaped text: those whose values may hold escapes. The
    others read escapes in the raw text (tokens, paths, emails, phones, names, PEM blocks)."""
    return (url_password, assignment, cli_secret)


def project_rules() -> tuple[Finder, ...]:
    """The fixed rules, in reporting order (when spans tie, the earlier rule names the hit)."""
    return (private_key, putty_key, TOKEN_FINDER, *HEADER_RULES, url_password, cookie, assignment, cli_secret,
            email, phone, home_path_user)
