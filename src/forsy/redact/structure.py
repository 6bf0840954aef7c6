"""Secrets found by where they stand, not by a list of tools: stdin fed to a program that
reads a password, credential-file lines (.pgpass, htpasswd, shadow), URL paths that carry a
token (webhooks, bot tokens), base64 decoded on the command line, short password flags of
any tool, Windows `net user`/`net use` (prose, "admin password X": prose.py).

Where the position alone is weak (a short flag, prose), the value must look like a password:
`password_like` (mixed character classes, a symbol or randomness; not a word, path, number,
identifier or version). Every rule yields the secret's span only.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, after_escape, is_template, looks_random
from ._values import mixed_case_literal, mixed_literal, password_like
from .cmdline import _COMMAND_END, _unquoted, cli_literal, shell_words
from .prose import pathish

if TYPE_CHECKING:
    from ._anchors import Anchors

# ---------------------------------------------------------------- stdin fed to password readers
# A command that reads a password (or token) on its standard input
_READER_WORDS = frozenset({"chpasswd", "passwd", "kinit", "smbpasswd", "vncpasswd", "cryptsetup", "chgpasswd",
                           "--password-stdin", "--pass-stdin", "--token-stdin", "--with-token", "--stdin",
                           "--password-from-stdin", "-password-stdin", "--passphrase-fd", "stdin"})
_READER_PAIRS = (("secret", "put"), ("secret", "set"), ("secrets", "set"), ("env", "add"), ("login", "-"))
_FEEDERS = ("echo ", "printf ", "yes ", "<<<", "<<")
# a here-document: `passwd bob <<EOF` then the lines up to EOF (raw or JSON-escaped newlines)
_HEREDOC = re.compile(r"<<-?[ \t]*(?P<q>['\"]?)(?P<tag>[A-Za-z_][A-Za-z0-9_]{0,15})(?P=q)")
_NEWLINE = re.compile(r"\r?\n|(?:\\r)?\\n")


# standard input named as a file: `--vault-password-file=/dev/stdin`, `--password-file -`,
# `--from-file=password=/dev/stdin`: an option naming a secret reads it from stdin
_STDIN_FILES = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_SECRET_PARTS = frozenset({"password", "passwd", "pass", "passphrase", "pw", "pwd", "token", "secret", "pin",
                           "credential", "credentials", "key", "apikey", "passin"})
_PART = re.compile(r"[a-z]+")


def _names_secret(word: str) -> bool:
    return any(part in _SECRET_PARTS for part in _PART.findall(word))


def _secret_from_stdin(low: list[str]) -> bool:
    """An option that names a secret takes standard input as its file (`=/dev/stdin`, or `-`
    or `/dev/stdin` as the next word)."""
    for n, w in enumerate(low):
        bare = w in _STDIN_FILES or w == "-"
        named = next((w[: -len(f)] for f in _STDIN_FILES if w.endswith(f) and len(w) > len(f)), None)
        dash = named is None and w.endswith("=-")
        if dash:
            named = w[:-2]
        # `--password-file=-`, and a parameter as `vault login` takes it: `password=-`
        if named is not None and (named.startswith("-") or dash) and _names_secret(named):
            return True
        if bare and n > 0 and low[n - 1].startswith("-") and "=" not in low[n - 1] and _names_secret(low[n - 1]):
            return True
    return False


def _is_reader(words: list[str]) -> bool:
    low = [w.lower() for w in words]
    if any(w in _READER_WORDS for w in low) or _secret_from_stdin(low):
        return True
    if any(w in ("secret", "secrets") for w in low) and any(w == "-" or w.endswith(("=-", *_STDIN_FILES)) for w in low):
        return True  # a secret store's command reading its value from stdin: `gcloud secrets create db --data-file=-`
    if "sudo" in low and any(w == "--stdin" or (w.startswith("-") and not w.startswith("--") and "S" in w)
                             for w in words[low.index("sudo") + 1 :]):
        return True
    return any(a == x and b == y for a, b in zip(low, low[1:], strict=False) for x, y in _READER_PAIRS)


def _line_start(text: str, i: int) -> int:
    """Where the command holding i starts (after a newline, escaped or not, `;`, `&&`, `(`)."""
    lo = max(0, i - 400)
    j = i
    while j > lo and text[j - 1] not in "\n\r;&(`":
        if text[j - 1] == "n" and text[j - 2 : j - 1] == "\\":
            break
        j -= 1
    return j


def _words(text: str, start: int, stop: int | None = None) -> list[tuple[int, int]]:
    limit = min(len(text), start + 600 if stop is None else stop)
    return list(shell_words(text, start, limit))


def stdin_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`echo X | sudo -S …`, `printf '%s' X | docker login --password-stdin`, `echo 'u:X' |
    chpasswd`, `cmd --with-token <<< X`, `sudo -S <<< X cmd`: X (each line of it)."""
    seen = -1
    for i in anchors.find(_FEEDERS):
        if i <= seen:
            continue
        if text.startswith("<<<", i):
            seen = i + 2
            yield from _here_string(text, i)
            continue
        if text.startswith("<<", i):
            yield from _here_document(text, i)
            continue
        if i > 0 and text[i - 1] not in " \t\n;&(`$\"'" and not (text[i - 1] == "n" and text[i - 2 : i - 1] == "\\"):
            continue
        if text[i - 2 : i] == "<(":
            yield from _substituted(text, i)
            continue
        words = _words(text, i)
        stop = words[-1][1] if words else i
        pipe = stop
        while pipe < len(text) and text[pipe] in " \t":
            pipe += 1
        if text.startswith(">", pipe):  # `echo X > ~/.config/app/token`: written to a file named for a secret
            yield from _written_to_secret_file(text, i, words, pipe)
            continue
        if not text.startswith("|", pipe) or text.startswith("||", pipe):
            continue
        reader = [text[s:e] for s, e in _words(text, pipe + 1)]
        basic = reader[:1] == ["base64"]  # `echo -n user:X | base64`: a Basic credential made
        if not (basic or _is_reader(reader)):
            continue
        chpasswd = "chpasswd" in reader or "chgpasswd" in reader
        for s, e in _echoed(text, i, words):
            if basic:
                yield from _basic_secret(text, *_unquoted(text, s, e))
            else:
                yield from _values_in(text, *_unquoted(text, s, e), after_colon=chpasswd)


def _written_to_secret_file(text: str, i: int, words: list[tuple[int, int]], redirect: int) -> Iterator[Hit]:
    """`echo X > ~/.app/token`, `printf '%s' X >> .secrets/api_key`: X, when the file's name
    names a secret (`token`, `db_password.txt`, `credentials`) and X looks like one on its own
    (`echo done > status`, `echo 3 > retries_token_count`... stay)."""
    target = _words(text, redirect + (2 if text.startswith(">>", redirect) else 1))
    if not target:
        return
    name = text[target[0][0] : target[0][1]].strip("\"'").rsplit("/", 1)[-1].lower()
    if not _names_secret(name.lstrip(".").split(".")[0]) or name.endswith((".pub", ".crt", ".pem.pub")):
        return
    for s, e in _echoed(text, i, words):
        s, e = _unquoted(text, s, e)
        value = text[s:e]
        if "\\" not in value and (looks_random(value, 16) or password_like(value)):
            yield Hit(s, e, CREDENTIAL, "stdin-secret")


def _echoed(text: str, i: int, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The arguments `echo`/`printf` at i writes out: not its short flags, nor printf's format."""
    args = [(s, e) for s, e in words[1:] if not (text[s] == "-" and e - s <= 3)]
    if text.startswith("printf", i) and args and "%" in text[args[0][0] : args[0][1]]:
        args = args[1:]
    return args


def _substituted(text: str, i: int) -> Iterator[Hit]:
    """`--vault-password-file <(echo X)`, `--passphrase-file=<(printf X)`: a process substitution
    given as the file of an option that names a secret is that secret (each line of X)."""
    close = text.find(")", i, i + 400)
    if close < 0:
        return
    before = _words(text, _line_start(text, i - 2), i - 2)
    if not before:
        return
    option = text[before[-1][0] : before[-1][1]].lower().rstrip("=")
    if not (option.startswith("-") and _names_secret(option)):
        return
    for s, e in _echoed(text, i, _words(text, i, close)):
        yield from _values_in(text, *_unquoted(text, s, e), after_colon=False)


def _here_document(text: str, i: int) -> Iterator[Hit]:
    """`passwd bob <<EOF` / X / X / `EOF`: each line (at most 4) when the command reads a password."""
    m = _HEREDOC.match(text, i)
    if m is None:
        return
    command = [text[s:e] for s, e in _words(text, _line_start(text, i), i)]
    if not _is_reader(command):
        return
    nl = _NEWLINE.search(text, m.end(), m.end() + 200)
    pos = nl.end() if nl is not None else -1
    for _ in range(4):
        if pos < 0:
            return
        nl = _NEWLINE.search(text, pos, pos + 300)
        if nl is None:
            return
        line = text[pos : nl.start()]
        if line.strip() == m["tag"] or "\x1e" in line:
            return  # the end of the document, or of this text in a batch (Redactor.SEPARATOR)
        value = line.strip()
        if cli_literal(value) and " " not in value and "\\" not in value:
            start = pos + line.index(value)
            yield Hit(start, start + len(value), CREDENTIAL, "stdin-secret")
        pos = nl.end()


def _here_string(text: str, i: int) -> Iterator[Hit]:
    value = _words(text, i + 3)
    if not value or value[0][0] > i + 3 + 4:
        return
    start = _line_start(text, i)
    command = [text[s:e] for s, e in _words(text, start, i)] + [text[s:e] for s, e in value[1:]]
    if _is_reader(command):
        yield from _values_in(text, *_unquoted(text, *value[0]), after_colon=False)


def _basic_secret(text: str, start: int, end: int) -> Iterator[Hit]:
    """The secret of `user:secret` encoded for a Basic header, when it looks like one on its own."""
    colon = text.find(":", start, end)
    value = text[colon + 1 : end]
    if colon > start and "\\" not in value and (password_like(value, 6) or mixed_literal(value)):
        yield Hit(colon + 1, end, CREDENTIAL, "stdin-secret")


def _values_in(text: str, start: int, end: int, *, after_colon: bool) -> Iterator[Hit]:
    """The literal values of an echo argument: each line (`X\\nX`), after `user:` for chpasswd."""
    pos = start
    while pos < end:
        cut = text.find("\\n", pos, end)
        stop = end if cut < 0 else cut
        s = pos
        if after_colon:
            colon = text.find(":", pos, stop)
            s = colon + 1 if colon >= 0 else stop
        if cli_literal(text[s:stop]) and "\\" not in text[s:stop]:
            yield Hit(s, stop, CREDENTIAL, "stdin-secret")
        pos = stop + 2


# ---------------------------------------------------------------- credential-file lines
# .pgpass: hostname:port:database:username:password, one a line
_PGPASS = re.compile(r"(?P<host>[A-Za-z0-9.*_\[\]-]{1,128}):(?:\d{1,5}|\*):[\w.*$-]{1,64}:[\w.*@$-]{1,64}:"
                     r"(?P<v>[^\s:\"'\\]{3,256})(?=$|\r?\n|\\{1,3}[rn]|[ \t]*$)", re.MULTILINE)  # escaped: 1-3 levels
# the shape after the host, searched in one pass (a bare `:5432:` is everywhere in JSON and times)
_PGPASS_ANCHOR = re.compile(r":(?:\d{1,5}|\*):[\w.*$-]{1,64}:[\w.*@$-]{1,64}:[^\s:\"'\\]{3}")
# user:HASH lines of htpasswd and /etc/shadow (apr1, bcrypt, SHA, crypt's $1$ $5$ $6$ $y$)
_HASH_PREFIXES = (":$apr1$", ":$2y$", ":$2a$", ":$2b$", ":{SHA}", ":$1$", ":$5$", ":$6$", ":$y$")
_HASH = re.compile(r":(?P<v>(?:\$[0-9a-z]{1,4}\$|\{SHA\})[A-Za-z0-9./+=$]{8,200})")
_LINE_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}$")


def credential_lines(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The password of a .pgpass line; the hash of an htpasswd or shadow line (`user:$apr1$…`)."""
    if ":" not in text:
        return
    for port in _PGPASS_ANCHOR.finditer(text):
        start = _line_start_plain(text, port.start())
        line = _PGPASS.match(text, start)
        if line is not None and line.start("v") > port.start() and any(c.isalpha() or c == "*" for c in line["host"]):
            value = line["v"]
            if cli_literal(value) and not value.isdigit():
                yield Hit(line.start("v"), line.end("v"), CREDENTIAL, "pgpass-line")
    for i in anchors.find(_HASH_PREFIXES):
        lo = _line_start_plain(text, i)
        if _LINE_USER.fullmatch(text, lo, i) is None:
            continue
        found = _HASH.match(text, i)
        if found is not None:
            yield Hit(found.start("v"), found.end("v"), CREDENTIAL, "password-hash-line")


def _line_start_plain(text: str, i: int) -> int:
    """Start of the line holding i (after a newline, an escaped newline or `$ ` prompt-free)."""
    lo = max(0, i - 200)
    j = i
    while j > lo and text[j - 1] not in "\n\r \t\"'`":
        if text[j - 1] == "n" and text[j - 2 : j - 1] == "\\":
            return j
        j -= 1
    return j


# ---------------------------------------------------------------- URLs with a token in their path
# A path segment after one of these holds the secret (Discord/Slack/Mattermost/Teams/IFTTT
# webhooks, Telegram's bot<id>:<token>, .../key/<key>, .../token/<token>)
_PATH_PREFIXES = ("/webhooks/", "/webhook/", "/webhookb2/", "/IncomingWebhook/", "/hooks/", "/key/", "/keys/",
                  "/token/", "/tokens/", "/secret/", "/bot", "/Webhooks/", "/Hooks/", "/Key/", "/Token/", "/Secret/")
URL_STOP = frozenset(" \t\r\n\"'`<>()[]{}?#\\,;|")
_TELEGRAM = re.compile(r"/bot(?P<id>\d{5,12}):(?P<v>[A-Za-z0-9_-]{30,50})(?![A-Za-z0-9_-])")


def url_path_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Random-looking path segments after a secret-bearing prefix of a URL path."""
    done = -1
    for i in anchors.find(_PATH_PREFIXES):
        if i < done:
            continue
        if text.startswith("/bot", i):
            m = _TELEGRAM.match(text, i)
            if m is not None:
                done = m.end()
                yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "url-path-token")
            continue
        if not in_url(text, i):
            continue
        pos = text.index("/", i + 1) + 1
        while pos < len(text) and pos - i < 1024:
            end = pos
            while end < len(text) and text[end] not in URL_STOP and text[end] != "/":
                end += 1
            segment = text[pos:end]
            done = end
            if looks_random(segment, 16) and not is_template(segment):
                yield Hit(pos, end, CREDENTIAL, "url-path-token")
            if end >= len(text) or text[end] != "/":
                break
            pos = end + 1


def in_url(text: str, i: int) -> bool:
    """A host before the path: `https://host/…` or `host.tld/…` on the same word."""
    j = i
    lo = max(0, i - 200)
    while j > lo and text[j - 1] not in URL_STOP:
        j -= 1
    head = text[j:i]
    return "://" in head or (head.count(".") >= 1 and "/" not in head.split(".", 1)[0] and head[:1].isalnum())


# ---------------------------------------------------------------- base64 decoded on a command line
_B64_DECODERS = ("base64 -d", "base64 --decode", "base64 -D", "FromBase64String(", "b64decode(", "atob(")
_B64 = re.compile(r"[A-Za-z0-9+/_-]{8,4096}={0,2}")


def base64_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`echo '<b64>' | base64 -d`, `base64 -d <<< '<b64>'`, `FromBase64String('<b64>')`: the
    base64 when what it decodes to is a credential (random, password-like or `user:password`)."""
    for i in anchors.find(_B64_DECODERS):
        if text[i : i + 6] == "base64":
            rest = _words(text, i)
            here = text.find("<<<", i, (rest[-1][1] + 8) if rest else i)
            if here >= 0:
                spans = _words(text, here + 3)[:1]
            else:
                spans = _fed_by_echo(text, i)
        else:
            close = text.find(")", i)
            spans = [(i + text[i:].index("(") + 1, close)] if 0 < close - i < 5000 else []
        for s, e in spans:
            s, e = _unquoted(text, s, e)
            m = _B64.fullmatch(text, s, e)
            if m is not None and _decodes_to_secret(m.group()):
                yield Hit(s, e, CREDENTIAL, "base64-secret")


def _fed_by_echo(text: str, i: int) -> list[tuple[int, int]]:
    """The argument of the `echo`/`printf` piped into the decoder at i."""
    bar = text.rfind("|", max(0, i - 4200), i)
    if bar < 0 or text[bar + 1 : i].strip() or text[bar - 1 : bar] == "|":
        return []
    start = _line_start(text, bar)
    words = _words(text, start, bar)
    while words and text[words[0][0] : words[0][1]] not in ("echo", "printf"):
        words = words[1:]
    args = [(s, e) for s, e in words[1:] if text[s] != "-"]
    return args[-1:]


def _decodes_to_secret(b64: str) -> bool:
    try:
        raw = base64.b64decode(b64 + "=" * (-len(b64) % 4), altchars=b"-_" if "-" in b64 or "_" in b64 else None)
        decoded = raw.decode("utf-8").strip()
    except (binascii.Error, ValueError):
        return False
    if not decoded or "\n" in decoded or len(decoded) > 512 or not decoded.isprintable():
        return False
    user, colon, pw = decoded.partition(":")
    if colon and _LINE_USER.match(user) and len(pw) >= 3 and " " not in pw:
        return True  # user:password (an Authorization: Basic value)
    # letters of both cases and digits, one word: decoded on the command line, that is a secret
    # even when it reads like a setting (`N2R=YOf9wD`, which password_like takes for `name=value`)
    one_word = " " not in decoded and mixed_case_literal(decoded)
    return password_like(decoded, 6) or looks_random(decoded, 16) or one_word


# ---------------------------------------------------------------- SASL: SMTP, IMAP, POP3, LDAP sign-ins
# `AUTH PLAIN <b64>` / `AUTHENTICATE PLAIN` (+ the next line): the base64 of `[authzid]\0user\0password`;
# `AUTH LOGIN`: the base64 line answering the server's `334 UGFzc3dvcmQ6` ("Password:")
_SASL_ANCHORS = ("PLAIN", "UGFzc3dvcmQ6", "cGFzc3dvcmQ6")
_SASL_NEXT = re.compile(r"(?:[\s'\"+]|\\[rnt]|[A-Z]: |\d{3} )*(?P<v>[A-Za-z0-9+/]{4,4096}={0,2})(?![A-Za-z0-9+/=])")


def sasl_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A SASL PLAIN message (whose decoding holds the user and the password, split by NULs),
    and the base64 answer to a LOGIN exchange's password challenge, as a mail client's or
    `openssl s_client`'s transcript shows them."""
    for i in anchors.find(_SASL_ANCHORS):
        plain = text.startswith("PLAIN", i)
        end = i + (5 if plain else 12)
        if (i > 0 and text[i - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
            continue
        m = _SASL_NEXT.match(text, end, min(len(text), end + 4200))
        if m is None:
            continue
        decoded = _b64_text(m["v"])
        if decoded is None:
            continue
        parts = decoded.split("\0")
        if (plain and len(parts) == 3 and parts[1] and len(parts[2]) >= 3) or (
                not plain and "\0" not in decoded and len(decoded.strip()) >= 3):
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "sasl-secret")


def _b64_text(b64: str) -> str | None:
    try:
        decoded = base64.b64decode(b64 + "=" * (-len(b64) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if decoded.replace("\0", "").isprintable() else None


# ---------------------------------------------------------------- short password flags of any tool
# `-p X`, `-pX`, `-P X`, `-pw X`, `-pass X`, `/pass:X`, `/p:X`, `/rp X`; `-U user%X`; the value
# must look like a password (ports, paths, profiles, `no:plugin` do not).
_SHORT_FLAGS = ("-p", "-P", "-pw", "-pwd", "-pass", "-passwd", "-passw", "-pword", "-k", "-w", "-s")
_STRONG_FLAGS = frozenset({"-pw", "-pwd", "-pass", "-passwd", "-passw", "-pword"})
_ATTACHED = ("-p", "-P")
_WIN_FLAGS = re.compile(r"/(?:pass|password|pw|p|rp):(?P<v>[^\s\"'/]{3,256})", re.IGNORECASE)
_USER_FLAGS = ("-U", "--user", "--username", "-u")
_FLAG_ANCHORS = (" -p", " -P", "\t-p", " -k", " -w", " -s", "/pass:", "/PASS:", "/p:", "/password:", "/pw:",
                 " -U", " --user", " -u", " -a", " -A", " --auth", " --basic-auth", " --http-auth", " --cred")
# user:password after these (`http -a u:p`, `ab -A u:p`, `--auth=u:p`); not -u (curl-user's)
_AUTH_FLAGS = frozenset({"-a", "-A", "--auth", "--basic-auth", "--http-auth", "--credentials", "--creds"})
_NET = ("net user ", "net use ", "NET USER ", "NET USE ")


def flag_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Password-looking values of a short password flag, of any command."""
    done = -1
    for i in anchors.find(_FLAG_ANCHORS):
        if i < done:
            continue
        if text[i] == "/":
            if i > 0 and text[i - 1] not in " \t\"'":
                continue
            m = _WIN_FLAGS.match(text, i)
            if m is not None and cli_literal(m["v"]) and "=" not in m["v"]:  # msbuild's /p:Name=value
                done = m.end()
                yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "flag-secret")
            continue
        words = list(islice(shell_words(text, i + 1, min(len(text), i + 600)), 2))  # the flag, its value
        if len(words) < 1:
            continue
        fs, fe = words[0]
        flag = text[fs:fe]
        done = fe
        if flag in _USER_FLAGS and len(words) > 1:
            yield from _user_percent(text, *_unquoted(text, *words[1]))
            continue
        name, eq, attached = flag.partition("=")
        if name in _AUTH_FLAGS and (eq or len(words) > 1):
            vs, ve = _unquoted(text, fs + len(name) + 1, fe) if eq else _unquoted(text, *words[1])
            yield from _auth_pair(text, vs, ve, strong=name.startswith("--"))
            continue
        if flag in _SHORT_FLAGS and len(words) > 1:
            vs, ve = _unquoted(text, *words[1])
            value = text[vs:ve]
            strong = flag in _STRONG_FLAGS
            if (strong and cli_literal(value) and not value.startswith("-")) or password_like(value) or (
                    mixed_case_literal(value) and flag in ("-p", "-P") and not pathish(value)):
                done = ve
                yield Hit(vs, ve, CREDENTIAL, "flag-secret")
        elif flag[:2] in _ATTACHED and len(flag) > 2 and flag[2] not in "-=":
            vs, ve = _unquoted(text, fs + 2, fe)
            if password_like(text[vs:ve]):
                yield Hit(vs, ve, CREDENTIAL, "flag-secret")


def _auth_pair(text: str, start: int, end: int, *, strong: bool) -> Iterator[Hit]:
    """`-a user:SECRET` (httpie, ab -A, hey): SECRET; after a short flag it must look like one."""
    cut = text.find(":", start, end)
    if cut <= start or not re.fullmatch(r"[\w.@\\-]{1,64}", text[start:cut]):
        return
    value = text[cut + 1 : end]
    # `user:` before it is evidence enough for a value with letters and digits that is no name
    if cli_literal(value) and (password_like(value) or mixed_literal(value) or (strong and not value.isdigit())):
        yield Hit(cut + 1, end, CREDENTIAL, "flag-secret")


def _user_percent(text: str, start: int, end: int) -> Iterator[Hit]:
    """`-U 'DOMAIN\\user%SECRET'` (Samba's user%password): SECRET."""
    cut = text.find("%", start, end)
    if cut > start and re.fullmatch(r"[\w.\\-]{1,64}", text[start:cut]) and cli_literal(text[cut + 1 : end]):
        yield Hit(cut + 1, end, CREDENTIAL, "flag-secret")


# ---------------------------------------------------------------- Windows account commands
def net_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`net user NAME PASSWORD [/add]`, `net use [Z:] \\\\srv\\share PASSWORD /user:…`."""
    for i in anchors.find(_NET):
        if i > 0 and text[i - 1] not in " \t\n;&(\"'>" and not after_escape(text, i):
            continue
        words = _words(text, i)
        plain = [(s, e) for s, e in words[2:] if text[s] != "/"]
        verb = text[words[1][0] : words[1][1]].lower() if len(words) > 1 else ""
        slot = None
        if verb == "user" and len(plain) >= 2:
            slot = plain[1]
        elif verb == "use":
            share = next((k for k, (s, e) in enumerate(plain) if text.startswith("\\\\", s)), None)
            if share is not None and share + 1 < len(plain):
                slot = plain[share + 1]
        if slot is not None:
            vs, ve = _unquoted(text, *slot)
            value = text[vs:ve]
            if value != "*" and cli_literal(value) and text[vs] not in _COMMAND_END:
                yield Hit(vs, ve, CREDENTIAL, "net-secret")


# ---------------------------------------------------------------- SQL statements
# CREATE USER u IDENTIFIED BY 'X'; ALTER ROLE u WITH LOGIN PASSWORD 'X'; CREATE LOGIN u WITH
# PASSWORD = 'X'; SET PASSWORD FOR 'u'@'h' = 'X' (also PASSWORD('X'))
_SQL_VALUE = re.compile(r"[ \t]*(?:=[ \t]*)?(?:PASSWORD[ \t]*\([ \t]*)?(?P<q>['\"])(?P<v>[^'\"\n\\]{1,256})(?P=q)",
                        re.IGNORECASE)
# (after a word boundary or a JSON-escaped newline: `\nSET PASSWORD …`)
_SQL_STATEMENT = re.compile(r"(?:(?<!\w)|(?<=\\n)|(?<=\\t))(?:CREATE|ALTER|SET|GRANT)\b[^;\n]{0,200}$", re.IGNORECASE)
_SQL_FOR = re.compile(r"[ \t]+FOR[ \t]+[^;\n=]{1,120}", re.IGNORECASE)


def sql_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The quoted password of a SQL statement that sets one."""
    for i in anchors.find(("identified by", "pass"), ignore_case=True):
        head = text[i : i + 13].lower()
        if i > 0 and text[i - 1].isalnum() and not after_escape(text, i):
            continue
        if head.startswith("identified by"):
            end = i + 13
            m = _SQL_VALUE.match(text, end)
            if m is None and text[end : end + 10].strip().lower().startswith("password"):
                m = _SQL_VALUE.match(text, text.lower().index("password", end) + 8)  # IDENTIFIED BY PASSWORD '*hash'
        elif head.startswith("password") and not text[i + 8 : i + 9].isalnum():
            if _SQL_STATEMENT.search(text, max(0, i - 200), i) is None:
                continue  # "password 'x'" in prose is the prose rule's
            end = i + 8
            target = _SQL_FOR.match(text, end)  # SET PASSWORD FOR 'u'@'h' = 'X'
            m = _SQL_VALUE.match(text, target.end() if target else end)
        else:
            continue
        if m is not None and cli_literal(m["v"]) and " " not in m["v"].strip():
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "sql-password")


# The literals these rules look for are rare in logs: the engine reports where they occur in
# its single pass (a bytes.find per literal here cost more than the rules themselves).
# (Not `<<<`: the engine reports no match without a letter or digit in it. Overlapping
# literals are found: _pass.engine_pass gives every place inside a match.)
NATIVE_ANCHORS = tuple(lit for lit in (*_FEEDERS, *_HASH_PREFIXES, *_PATH_PREFIXES, *_B64_DECODERS, *_FLAG_ANCHORS,
                                       *_NET, *_SASL_ANCHORS) if any(c.isalnum() for c in lit))
