"""Secrets given to a call by their place, with no name beside them: the key of a signing or
encryption primitive (`jwt.encode(payload, "s3cr3t", …)`, `hmac.new(b"k", msg, sha256)`,
`crypto.createHmac("sha256", "k")`, `Fernet(b"…")`, `AES.new(b"…", AES.MODE_GCM)`,
`hmac.New(sha256.New, []byte("k"))`, `new SecretKeySpec("k".getBytes(), "HmacSHA256")`), the
password of a connection (`pymysql.connect(host, "app", "pw", "db")`, `new PDO($dsn, 'app', 'pw')`,
`DriverManager.getConnection(url, "app", "pw")`), keyring's (`set_password("svc", "bob", "pw")`),
a client built from one token (`new Stripe("…")`, `Client("…")`), a client of a protocol that
signs in, opened with its settings in a row (`Net::SMTP.start(host, port, helo, user, "pw")`,
`StrictRedis(host, port, db, "pw")`, `new XMPPTCPConnection(user, "pw", host)`, Erlang's
`:ftp.user(pid, user, "pw")`), and a user and password kept
under a name for credentials (`DEFAULT_CREDS = ("admin", "pw")`). A sign-in call's
(`smtp.login(user, "pw")`, `HTTPBasicAuth("bob", "pw")`, `auth=(…)`) is logins.py's.

The callee's words say which argument is the secret, in any language: a primitive's key is
its first argument past an algorithm's name (`"sha256"`, `sha256.New`, `"aes-256-gcm"`,
`OpenSSL::Digest.new('sha1')`), whether the primitive is built (`new HMACSHA256(…)`, `hmac.New`)
or computes at once (`OpenSSL::HMAC.hexdigest('sha256', 'k', data)`, `hmac.digest(…)`); where
an API takes the data first (PHP's `hash_hmac('sha256', $data, 'k')`, `openssl_encrypt`,
CryptoJS's `HmacSHA256(msg, 'k')`), the key is the argument after the data; a key object is
built from its material (`new SymmetricSecurityKey(…)`, `EncodingKey::from_secret(…)`,
`crypto.subtle.importKey('raw', …)`, a framework's signer: `URLSafeTimedSerializer('k')`); a
JWT's encode, decode, sign or verify takes the claims or the token first and the key next, and
a JWT builder's `.sign(…)`/`.signWith(…)` at the end of its chain takes the key alone
(`new SignJWT(c).setProtectedHeader(h).sign(k)`); a connection takes a host, a user, then the
password (`new mysqli(…)`, `ftplib.FTP(…)`, `Net::FTP.new(…)`), and Go's DSN writes them
`user:password@tcp(host)`; a user-and-password value takes the user first (`url.UserPassword`);
a protocol's client takes its password somewhere past the first setting, the one literal of
them that reads as a password (a host, a domain, a port, a user's plain name do not).
The literal may be wrapped in what makes it bytes: `b"…"`, `[]byte("…")`, `Buffer.from('…')`,
`Encoding.UTF8.GetBytes("…")`, `new TextEncoder().encode('…')`, `"…".getBytes(UTF_8)`,
`"…".toByteArray()`, `"…".as_ref()`, `"…".encode()`; quoted with ', " or backticks.

A primitive's key is masked whatever it reads as (a test's `"secret"` or `"changeme"` is the
key the code ran with; documentation's `"your-secret-key"` is reported, not masked); a
connection's password unless it is a word of prose, a file or a host. A variable, an
environment look-up (`os.getenv("JWT_SECRET")`: a name) or a template stays. A client's single
argument must look machine-made (a UUID, a hex id, a path, a file's name stay).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import _ALNUM, CREDENTIAL, PLACEHOLDER, PLACEHOLDER_RE, Hit, is_template, looks_random
from ._values import (
    _OPEN_QUOTE,
    _closing_quote,
    _pathlike,
    accept_value,
    is_doc_placeholder,
    mixed_literal,
    name_tier,
    password_like,
)

if TYPE_CHECKING:
    from ._anchors import Anchors

# words in a callee that name a keyed primitive: its key is its first argument
KEY_WORDS = frozenset({"hmac", "fernet", "aes", "aesgcm", "aesccm", "aessiv", "aesocb3", "chacha20", "xchacha20",
                       "chacha20poly1305", "xchacha20poly1305", "salsa20", "xsalsa20", "secretbox", "blowfish", "des3",
                       "arc4", "cipheriv", "decipheriv", "pbkdf2", "scrypt", "wallet", "signedstring"})
# `SecretKeySpec("k".getBytes(), "HmacSHA256")`: a key built from words that say so
_KEY_PHRASES = (("secret", "key"), ("signing", "key"), ("private", "key"), ("symmetric", "key"), ("encoding", "key"),
                ("decoding", "key"), ("import", "key"), ("timed", "serializer"), ("safe", "serializer"),
                ("message", "verifier"), ("message", "encryptor"))
# what a keyed primitive's module or class computes at once, given its key (`OpenSSL::HMAC.hexdigest`)
_COMPUTES = frozenset({"digest", "hexdigest", "base64digest"})
# APIs that take the data first and the key after it: PHP's, and CryptoJS's
_DATA_FIRST = frozenset({"hashhmac", "hashhmacfile", "opensslencrypt", "openssldecrypt"})
_DATA_FIRST_OWNERS = frozenset({"cryptojs"})
_CHAIN_SIGN = frozenset({"sign", "signwith"})
# a connection's class or function (besides `connect` and the `Connection`s): host, user, password
_CONNECTIONS = frozenset({"mysqli", "ftp", "ftptls"})
# protocols whose clients sign in with a password given among their settings, and the words of
# a call that opens or builds such a client (or names its class: `StrictRedis`, `XMPPTCPConnection`)
_PROTOCOLS = ("smtp", "imap", "pop3", "ftp", "sftp", "ldap", "redis", "xmpp", "amqp", "nntp")
_OPENERS = frozenset({"new", "start", "open", "connect", "dial", "user", "connection", "client"})
JWT_OBJECTS = frozenset({"jwt", "jws", "jwe", "jose", "jsonwebtoken"})
JWT_VERBS = frozenset({"encode", "decode", "sign", "verify"})
# what a JWT is built by, a call at a time: its last `.sign(…)` takes the key
JWT_BUILDERS = JWT_OBJECTS | {"jwts", "signjwt", "encryptjwt"}
_CONSTRUCTORS = frozenset({"new", "create", "init"})
# a getter's literal is what it looks up (`getCredentials("prod")`), never the secret
_GETTERS = frozenset({"get", "load", "read", "fetch", "from", "lookup", "find", "has", "delete", "remove", "is"})
# words in the anchors: where a call of one of these kinds may stand (any case)
CALL_ANCHORS = ("jwt", "jws", "jose", "hmac", "fernet", "aes", "chacha", "salsa", "secretbox", "blowfish", "des3",
                "arc4", "cipheriv", "pbkdf2", "scrypt", "wallet", "signedstring", "keyspec", "connect(", "connection(",
                "pdo(", "set_password(")
# the engine is given each lower, capitalised and in capitals: the words written in camel case
# inside a name are given as written too (`ChaCha20Poly1305`, `SecretBox`, `SecretKeySpec`)
# Cased only, found as written (a name always written so: PHP's functions, a class's name)
CALL_ANCHORS_CASED = ("openssl_", "mysqli", "FTP", "SecurityKey", "EncodingKey", "DecodingKey", "importKey",
                      "SecretKey", "TimedSerializer", "SafeSerializer", "MessageVerifier", "MessageEncryptor",
                      "UserPassword", "UsernamePassword", "@tcp(", "@unix(", "SMTP.start(", "POP3.start(", "Redis(",
                      "ftp.user(")
CALL_ANCHORS_CAMEL = ("ChaCha", "SecretBox", "SignedString", "KeySpec", *CALL_ANCHORS_CASED)
# a call with one quoted argument (a client built from a token), found where it opens: the
# engine reports a call whose one argument is a long run of token characters (its data has
# `\\"` as `" `); a text the engine did not scan is searched for the openings
CALL_SHAPES = {"token-call": r"\(\\{0,3}[\"'] ?[A-Za-z0-9_:=+-]{20,512}\\{0,3}[\"'] ?\)"}
TOKEN_CALL_ANCHORS = ('("', "('", '(\\"', "(\\'")

_CALLEE = re.compile(r"[\w$]+(?:(?:\.|::|->)[\w$]+|::<[\w:, ]{1,40}>)*\Z")
_CALLEE_CHARS = _ALNUM | frozenset("_$.:<>-, ")
_PARTS = re.compile(r"\.|::|->|<|>|,")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_KEYWORD_ARG = re.compile(r"[A-Za-z_$][\w$]*[ \t]*(?:=(?!=)|:(?![:/]))")
# a literal, or one wrapped in what makes it bytes: a prefix (`b"…"`), Go's `[]byte(`, or a call
# that converts it (`Buffer.from(`, `Encoding.UTF8.GetBytes(`, `new TextEncoder().encode(`,
# `bytes.fromhex(`, `String::from(`), reached through the names and calls before it
_LITERAL = re.compile(r"(?:[bBrRuU]{1,2}|\[\]byte\(|(?:new[ \t]+)?(?:[\w$]+(?:\(\))?(?:\.|::))*"
                      r"(?:[Ee]ncode|[Gg]et[Bb]ytes|from|fromhex|unhexlify|b64decode|[Dd]ecode|FromBase64String|"
                      r"bytes|bytearray|to[Bb]yte[Aa]rray)\()?(?P<o>\\{0,3}[\"'`])")
# what may follow a literal in its argument and leave it the value (`"k".encode()`,
# `.getBytes(StandardCharsets.UTF_8)`, `.toByteArray()`, `.as_ref()`, Ruby's `.b`)
_AFTER_LITERAL = re.compile(r"[ \t]*(?:[,)]|(?:\.(?:encode|getBytes|GetBytes|as_bytes|as_ref|toCharArray|"
                            r"toByteArray|to_vec|to_owned|into|bytes|encode_utf8|b)(?:\([^()]{0,40}\))?|\)){0,3}"
                            r"[ \t]*\Z|\Z)")
_ALGORITHM = re.compile(r"(?i)(?:[hrep]s(?:256|384|512)|eddsa|none|sha-?\d{0,3}|sha3[-_]\d{3}|md5|blake2[bs]?|"
                        r"hmac-?sha\d{1,3}|aes(?:[-_]?\d{3})?(?:[-_][a-z0-9]{2,8})*|des3?(?:-\w+)?|"
                        r"chacha20(?:-poly1305)?|utf-?8|utf-?16|ascii|latin-?1|iso-8859-1|hex|base64|binary|raw)")
_ALGORITHM_REF = re.compile(r"(?i)(?:[\w$]+\.)*(?:sha\d{0,3}|sha3_\d{3}|md5|blake2[bs]?|digestmod)(?:\.new|\(\))?")
# an argument that names the algorithm by code, not by a string: a digest built on the spot
# (`OpenSSL::Digest.new('sha1')`, `OpenSSL::Digest::SHA256.new`, `hashes.SHA256()`), an atom
# (`:sha256`), a JWT algorithm's constant (`SignatureAlgorithm.HS256`); a name of a key is none
_ALGORITHM_CODE = re.compile(r"(?i)(?![\w$.:]*(?:key|secret))[\w$.:]*(?:sha\d{0,3}|sha3_?\d{3}|md5|blake2[bs]?|"
                             r"ripemd\d*|digest|[hrep]s\d{3})[\w$.:]*(?:\([^()]{0,40}\))?(?:\.new(?:\(\))?)?")
_HOST = re.compile(r"(?i)localhost|[\w-]+(?:\.[\w-]+)+(?::\d+)?|[\w.-]*[:/@][\w.:/@-]*")
_TOKEN_ARG = re.compile(r"\((?P<o>\\{0,3}[\"'])(?P<v>[A-Za-z0-9_:=+.-]{20,512})(?P=o)\)")
# a class or call whose one argument is an id or a value of its own type, not a client's token
_NOT_CLIENTS = frozenset({"uuid", "guid", "id", "object", "decimal", "path", "url", "uri", "regex", "regexp", "re",
                          "pattern", "date", "time", "buffer", "color", "version", "hash", "digest", "symbol", "error",
                          "exception", "text", "string", "str", "label", "image", "icon", "name", "bytes", "big",
                          "int", "number", "hex", "from", "parse", "compile", "require", "import", "log", "print"})
_PAIR_NAME_ANCHORS = ("cred",)  # (`auth=(…)` is logins.py's)
_PAIR = re.compile(r"[ \t]*(?::=|=|:)[ \t]*[(\[][ \t]*(?P<o1>\\{0,3}[\"'])(?P<u>[^\"'\\\n]{1,128})(?P=o1)[ \t]*,[ \t]*"
                   r"(?P<o2>\\{0,3}[\"'])(?P<v>[^\"'\\\n]{1,256})(?P=o2)[ \t]*[)\]]")


def call_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A literal key, password or token given to a call by its place (see the module)."""
    seen: set[int] = set()
    found = anchors.find(CALL_ANCHORS, ignore_case=True)
    if cased := anchors.find(CALL_ANCHORS_CASED):
        found = sorted(set(found).union(cased))
    for i in found:
        if text.startswith(_DSN_ANCHORS, i):
            yield from _dsn_password(text, i)
            continue
        paren = _paren_after(text, i)
        if paren is None or paren in seen:
            continue
        seen.add(paren)
        yield from _secret_args(text, paren, anchors)
    shapes = anchors.shapes
    opens = [s for s, _ in shapes["token-call"]] if shapes is not None else anchors.find(TOKEN_CALL_ANCHORS)
    for i in opens:
        if i in seen or (m := _TOKEN_ARG.match(text, i)) is None:
            continue
        seen.add(i)
        words, new, last = _callee_words(text, i)
        if _client(words, new, last) and _token(m["v"]):
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "call-secret")


_DSN_ANCHORS = ("@tcp(", "@unix(")
# Go's data source name (go-sql-driver's, and the drivers written after it): `user:password@tcp(host)/db`
_DSN_USER = re.compile(r"(?:^|(?<=[\s\"'`=]))[^\s\"'`:@/]{1,64}:(?P<v>[^\s\"'`@]{1,128})\Z")


def _dsn_password(text: str, at: int) -> Iterator[Hit]:
    m = _DSN_USER.search(text, max(0, at - 200), at)
    if m is not None and _literal_secret(m["v"]) and not is_doc_placeholder(m["v"]):
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "call-secret")
    elif m is not None and is_doc_placeholder(m["v"]):
        yield Hit(m.start("v"), m.end("v"), PLACEHOLDER, "call-secret")


def credential_pair(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The second of two literals kept under a name for a sign-in (`auth=("bob", "pw")`,
    `DEFAULT_CREDS = ("admin", "pw")`): a user and their password."""
    for i in anchors.find(_PAIR_NAME_ANCHORS, ignore_case=True):
        end = i
        while end < len(text) and end - i < 40 and (text[end] in _ALNUM or text[end] == "_"):
            end += 1
        start = i
        while start > 0 and i - start < 40 and (text[start - 1] in _ALNUM or text[start - 1] == "_"):
            start -= 1
        if not name_tier(text[start:end]):
            continue
        m = _PAIR.match(text, end)
        if m is None or not _literal_secret(value := m["v"]):
            continue
        if accept_value("password", 1, value, quoted=True) and (password_like(value, 6) or mixed_literal(value)):
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "call-secret")  # (as logins.py judges a pair's)
        elif is_doc_placeholder(value):
            yield Hit(m.start("v"), m.end("v"), PLACEHOLDER, "call-secret")


# ---------------------------------------------------------------- the call
def _paren_after(text: str, i: int) -> int | None:
    """The `(` that opens the call whose name holds position i (`jwt` in `jwt.encode(`)."""
    j = i
    limit = min(len(text), i + 80)
    while j < limit and (text[j] in _ALNUM or text[j] in "_$.:<>-"):
        if text[j] == "-" and text[j + 1 : j + 2] != ">":
            return None
        j += 1
    return j if j < len(text) and text[j] == "(" else None


def _callee_words(text: str, paren: int) -> tuple[list[list[str]], bool, str]:
    """The callee's parts (`jwt`, `encode`), each as its lower-case words; whether `new`
    precedes it; its last part as written."""
    lo = max(0, paren - 80)
    start = paren
    while start > lo and text[start - 1] in _CALLEE_CHARS:
        start -= 1
    m = _CALLEE.search(text, start, paren)
    if m is None:
        return [], False, ""
    parts = [p.strip() for p in _PARTS.split(m.group()) if p.strip()]
    new = text[max(0, m.start() - 4) : m.start()] == "new "
    return [[w.lower() for w in _WORDS.findall(p)] for p in parts], new, parts[-1]


def _role(parts: list[list[str]]) -> str | None:
    """Which argument holds the secret: `key` (a primitive's first past an algorithm), `data`
    (a JWT call's second), `after-data` (an API's that takes the data first: the one after it),
    `connect` (after host and user), `pair` (after the user), `last`, `chain` (a JWT builder's:
    the key goes to the `.sign(…)` its chain ends with), `protocol` (a password-like literal among
    a protocol client's settings)."""
    if not parts or not parts[-1]:
        return None
    verb = parts[-1]
    joined = "".join(verb)
    owners = {w for p in parts[:-1] for w in p} | {"".join(p) for p in parts[:-1]}
    if verb[-1] == "connect" or joined in ("connection", "getconnection", "pdo") or (
            joined in _CONNECTIONS or (owners & _CONNECTIONS and joined in ("new", "open"))):
        return "connect"  # (`getConnection(url, user, password)`: a getter that takes them)
    if joined in _DATA_FIRST or (owners & _DATA_FIRST_OWNERS and (_keyed(verb) or joined in ("encrypt", "decrypt"))):
        return "after-data"
    words = set(verb) | owners
    key_object = any(a in words and b in words for a, b in _KEY_PHRASES)
    if verb[0] in _GETTERS and len(verb) > 1 and not (verb[0] == "from" and key_object):
        return None  # (but a key object made from its secret: `EncodingKey::from_secret("k")`)
    if joined in JWT_VERBS and owners & JWT_OBJECTS:
        return "data"
    if _keyed(verb) or joined in KEY_WORDS or any(a in verb and b in verb for a, b in _KEY_PHRASES):
        return "key"
    if parts[:-1] and (_keyed(parts[-2]) or key_object) and (
            verb[0] in _CONSTRUCTORS or joined.startswith("new") or joined in _COMPUTES or verb[0] == "from"):
        return "key"  # `hmac.new(`, `AES.new(`, `Hmac::<Sha256>::new_from_slice(`, `OpenSSL::HMAC.digest(`
    if verb == ["set", "password"]:
        return "last"  # keyring's `set_password(service, user, password)`
    if "password" in verb and ("user" in verb or "username" in verb):
        return "pair"  # `url.UserPassword("bob", "pw")`, `UsernamePasswordAuthenticationToken`
    if any(w.startswith(_PROTOCOLS) for w in words) and (verb[-1] in _OPENERS or any(
            w.startswith(_PROTOCOLS) for w in verb)):
        return "protocol"
    if words & JWT_BUILDERS:
        return "chain"
    return None  # a sign-in's (user, password) is logins.py's


def _keyed(words: list[str]) -> bool:
    """Words naming a keyed primitive (`hmac`, `aes`…; `HMACSHA256` is one word, `hmacsha`)."""
    return any(w in KEY_WORDS or w.startswith("hmac") for w in words)


def _secret_args(text: str, paren: int, anchors: Anchors) -> Iterator[Hit]:
    parts, _, _ = _callee_words(text, paren)
    role = _role(parts)
    if role is None:
        return
    called = _arguments(text, paren + 1)
    if called is None:
        return
    args, close = called
    if role == "chain":
        yield from _chained_key(text, close)
        return
    positional = [(s, e) for s, e in args if not _KEYWORD_ARG.match(text, s, e)]
    literals = [_literal(text, s, e) for s, e in positional]
    if role in ("key", "data", "after-data"):
        skip = 1 if role in ("data", "after-data") else 0
        for (s, e), lit in list(zip(positional, literals, strict=True)):
            if lit is None and (_ALGORITHM_REF.fullmatch(text, s, e) or _algorithm_code(text, s, e)):
                continue  # `sha256.New`, `hashlib.sha256`, `OpenSSL::Digest.new('sha1')`: the hash the key is for
            if lit is not None and _ALGORITHM.fullmatch(text[lit[0] : lit[1]]):
                continue  # `"sha256"`, `"HS256"`, `"aes-256-gcm"`
            if skip:
                skip -= 1  # the claims, the token, the data
                continue
            if lit is not None and _literal_secret(text[lit[0] : lit[1]]):
                kind = PLACEHOLDER if _documentation(text[lit[0] : lit[1]]) else CREDENTIAL
                yield Hit(lit[0], lit[1], kind, "call-secret")
            break  # the key is the first argument past the algorithm (and the data), literal or not
        return
    if role == "connect":  # (host, user, password, …) past numbers (a port); cx_Oracle's (user, password, dsn)
        strings = [lit for (s, e), lit in zip(positional, literals, strict=True) if not text[s:e].isdigit()]
        if len(strings) < 3:
            return
        at = strings[2]
        if at is not None and _HOST.fullmatch(text[at[0] : at[1]]) and strings[1] is not None:
            at = strings[1]
        picked = at
    elif role == "protocol":  # the last literal past the first setting that reads as a password
        shaped = [lit for lit in literals[1:] if lit is not None and _protocol_password(text[lit[0] : lit[1]])]
        picked = shaped[-1] if shaped else None
    elif role == "pair":
        picked = literals[1] if len(literals) >= 2 else None
    else:
        picked = literals[-1] if len(literals) >= 3 else None
    if picked is not None and _password(text[picked[0] : picked[1]]):
        yield Hit(picked[0], picked[1], CREDENTIAL, "call-secret")


def _algorithm_code(text: str, start: int, end: int) -> bool:
    return end - start <= 120 and _ALGORITHM_CODE.fullmatch(text, start, end) is not None


# a call chained on the one before it (`).setProtectedHeader({…})`), across lines too
_CHAINED = re.compile(r"(?:\s|\\[nrt])*\.[ \t]*(?P<name>[A-Za-z_$][\w$]*)[ \t]*\(")


def _chained_key(text: str, close: int) -> Iterator[Hit]:
    """The key given to the `.sign(…)` or `.signWith(…)` a JWT builder's chain ends with."""
    for _ in range(8):
        m = _CHAINED.match(text, close + 1)
        if m is None:
            return
        called = _arguments(text, m.end())
        if called is None:
            return
        args, close = called
        if m["name"].lower() in _CHAIN_SIGN:
            for s, e in args:
                lit = _literal(text, s, e)
                if lit is None and (_ALGORITHM_REF.fullmatch(text, s, e) or _algorithm_code(text, s, e)):
                    continue  # jjwt's `signWith(SignatureAlgorithm.HS256, "k")`
                if lit is not None and _ALGORITHM.fullmatch(text[lit[0] : lit[1]]):
                    continue
                if lit is not None and _literal_secret(text[lit[0] : lit[1]]):
                    kind = PLACEHOLDER if _documentation(text[lit[0] : lit[1]]) else CREDENTIAL
                    yield Hit(lit[0], lit[1], kind, "call-secret")
                return


def _arguments(text: str, pos: int) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of a call's top-level arguments from `pos` (just past its `(`) to its `)`, and
    where that `)` stands."""
    args: list[tuple[int, int]] = []
    depth, start, i = 0, pos, pos
    limit = min(len(text), pos + 2000)
    while i < limit:
        c = text[i]
        if c in "\"'`\\":
            opener = _OPEN_QUOTE.match(text, i)
            if opener is None:
                i += 2 if c == "\\" else 1  # an escape that is no quote (`\n`)
                continue
            close = _closing_quote(text, opener.end(), opener.group())
            if close < 0:
                return None
            i = close + len(opener.group())
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if text[start:i].strip():
                    args.append(_stripped(text, start, i))
                return args, i
            depth -= 1
        elif c == "," and depth == 0:
            args.append(_stripped(text, start, i))
            start = i + 1
        i += 1
    return None


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start] in " \t\r\n" or text.startswith(("\\n", "\\t", "\\r"), start)):
        start += 2 if text[start] == "\\" else 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return start, end


def _literal(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the string an argument is (`"k"`, `b"k"`, `[]byte("k")`, `"k".encode()`), if it is one."""
    m = _LITERAL.match(text, start, end)
    if m is None:
        return None
    close = _closing_quote(text, m.end(), m["o"])
    if close < 0 or close > end or not _AFTER_LITERAL.match(text, close + len(m["o"]), end):
        return None
    return m.end(), close


def _documentation(value: str) -> bool:
    """Documentation's stand-in (`your-secret-key`, `<key>`): reported, not masked. A plain
    `changeme` is not one here: given to a primitive, it is the key the code ran with."""
    return is_doc_placeholder(value) and not _CHANGE_ME.fullmatch(value)


_CHANGE_ME = re.compile(r"(?i)change[-_.]?(?:me|it|this)")


def _password(value: str) -> bool:
    """A connection's password by its place: a literal, not a word of prose, a file, a host, a
    placeholder (the place is the API's, so `root` or `secret` there is one)."""
    return (_literal_secret(value) and accept_value("password", 1, value, quoted=True) and not _pathlike(value)
            and not _HOST.fullmatch(value) and not (" " in value and all(w.isalpha() for w in value.split())))


def _protocol_password(value: str) -> bool:
    """A password among a client's settings, where no name marks it: one that reads as one."""
    return _password(value) and (password_like(value, 6) or mixed_literal(value))


def _literal_secret(value: str) -> bool:
    return (len(value) >= 3 and "\n" not in value and not is_template(value) and not PLACEHOLDER_RE.search(value)
            and not value.startswith(("-----BEGIN PUBLIC", "ssh-", "$", "{{", "%(")))


def _token(value: str) -> bool:
    """A client's token: machine-made, with capitals, small letters and digits (a UUID or a hex
    id has no capitals; a path has `/`; a file's or a module's name has `.`)."""
    return "." not in value and looks_random(value, 20) and any(c.isupper() for c in value) and any(
        c.islower() for c in value) and any(c.isdigit() for c in value)


def _client(parts: list[list[str]], new: bool, last: str) -> bool:
    """A client or an SDK built from one token: a class (`Stripe(`, `new Client(`) or a call that
    signs in or sets one up (`init`, `login`, `auth`), not a value's own type (`UUID(`)."""
    if not parts or not parts[-1]:
        return False
    words = set(parts[-1])
    if words & _NOT_CLIENTS or parts[-1][0] in _GETTERS:
        return False
    return new or last[:1].isupper() or bool(words & {"client", "sdk", "api", "init", "initialize", "configure",
                                                     "setup", "auth", "authenticate", "login", "connect", "token"})
