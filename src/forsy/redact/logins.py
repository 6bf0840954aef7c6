"""A user and a secret given together, by position: `auth=("bob", "X")` (requests, httpx),
`HTTPBasicAuth('bob', 'X')`, `aiohttp.BasicAuth`, `new NetworkCredential("bob", "X")`,
`UsernamePasswordCredentials`, `Credentials.basic("bob", "X")`, `smtp.login("bob@x.io", "X")`,
`ftp.login`, `imap.login`, `ldap.simple_bind_s(dn, "X")`, superagent's `.auth("bob", "X")`.

The callee (any of its dotted parts) or the keyword is named for signing in (its last word:
auth, credential(s), login, logon, bind, authentication; `…Async` too), and its second argument is a string
literal: that is the secret, when it looks like one on its own (the name is a guess: a word,
a file name, `"admin"` stay). The first, the user, may be a literal or a name. No list of
libraries: the shape is the rule.

Some sign-in calls take more before the password: a connection (`ldap_bind($conn, dn, "X")`),
an identity (`smtp.PlainAuth("", "bob", "X", host)`): where the second argument is a literal
that is no secret (a user, a DN, a host), the literals after it are read the same way. A
credentials type built by its constructor (`Credentials::new("bob", "X")`) signs in as its
class does, and a value converted on the spot (`"X".to_string()`) is still the literal. A
sign-in call given one literal alone (`redis.auth("X")`, `jedis.auth("X")`: Redis's AUTH takes
only the password) gives the secret, when it reads as a password by itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, PLACEHOLDER, PLACEHOLDER_RE, Hit, is_template
from ._values import _OPEN_QUOTE, _closing_quote, accept_value, is_doc_placeholder, mixed_literal, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

# each ends where the arguments open: rare in logs, so the engine reports them (_native.py)
LOGIN_ANCHORS = ("Auth(", "auth(", "auth=(", "auth = (", "auth=[", "auth = [", "Credential(", "Credentials(",
                 "credential(", "credentials(", "login(", "Login(", "logon(", "Logon(", "bind_s(", "simple_bind(",
                 "Authentication(", "basic(", "_bind(", "Bind(", "Credentials::new(", "Credentials.new(",
                 "enticateAsync(", "LoginAsync(", "BindAsync(")
_SIGN_IN = frozenset({"auth", "credential", "credentials", "login", "logon", "bind", "authentication", "authenticate"})
# a constructor's name after the type it builds (`Credentials::new`): the type says what it is
_CONSTRUCTORS = frozenset({"new", "create", "of"})
_CALLEE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.:")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# the first argument (a literal, or a name: `user`, `self.user`, `cfg["user"]`), then a comma
_FIRST = re.compile(r"[ \t]*(?:[rRbBuU@$]?(?P<q>\\{0,3}[\"'`]).{0,256}?(?P=q)(?:\.to_\w{1,12}\(\))?"
                    r"|[\w$.]{1,128}(?:\[[^\]\n]{1,64}\])?)[ \t]*,[ \t]*(?:[rRbBuU@$](?=[\"'`\\]))?")
# what may follow the literal in its argument: the next argument, the call's end, or a
# conversion of the literal itself (`.toCharArray()`, Rust's `.to_string()` / `.to_owned()`)
_AFTER = re.compile(r"(?:\.toCharArray\(\)|\.to_\w{1,12}\(\))?[ \t]*(?P<end>[,)\]])")
# the start of the next argument, when it is a literal (its prefix: `r"…"`, `@"…"`, `$"…"`)
_NEXT = re.compile(r"[ \t]*(?:[rRbBuU@$](?=[\"'`\\]))?")
# a literal that is no secret but may come before one: an LDAP DN (`cn=bob,dc=x`), an address;
# past the second argument, a host too (`PlainAuth(…, "X", "mail.x.io")`: a password may read as one)
_NOT_SECRET = re.compile(r"[A-Za-z]+=[^,=]+(?:,[A-Za-z]+=[^,=]+)+|[^\s@]+@[^\s@]+\.[A-Za-z]{2,}")
_HOST = re.compile(r"(?i)localhost|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?::\d+)?")
# how many literals past the second argument are read for the secret (`PlainAuth("", user, "X", host)`)
_FURTHER = 2


def login_pair(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The secret of a user and a secret given by position to a sign-in call or keyword."""
    done = -1
    for i in anchors.find(LOGIN_ANCHORS):
        if i < done:
            continue
        opening = min((j for j in (text.find("(", i, i + 20), text.find("[", i, i + 20)) if j >= 0), default=-1)
        if opening < 0 or not _signs_in(text, i, opening):
            continue
        first = _FIRST.match(text, opening + 1)
        if first is None:
            hit = _alone(text, opening)
            if hit is not None:
                done = hit.end
                yield hit
            continue
        pos = first.end()
        for further in range(1 + _FURTHER):
            opener = _OPEN_QUOTE.match(text, pos)
            if opener is None:
                break  # a name: not a literal
            close = _closing_quote(text, opener.end(), opener.group())
            if close <= opener.end():
                break
            value = text[opener.end() : close]
            after = _AFTER.match(text, close + len(opener.group()))
            if "\n" in value or after is None:
                break
            done = close
            if "\\" in value:
                anchors.want_json_view = True  # an escape inside: read decoded
                break
            if _secret(value) and not (further and _HOST.fullmatch(value)):
                yield Hit(opener.end(), close, CREDENTIAL, "login-pair")  # not `render_login(req, "login.html")`
                break
            if is_doc_placeholder(value):
                yield Hit(opener.end(), close, PLACEHOLDER, "login-pair")
                break
            if after["end"] != ",":
                break  # the call's last argument
            pos = after.end()
            if (prefix := _NEXT.match(text, pos)) is not None:
                pos = prefix.end()


def _secret(value: str) -> bool:
    return accept_value("password", 1, value, quoted=True) and (password_like(value, 6) or mixed_literal(value)) and (
        not _NOT_SECRET.fullmatch(value))


def _alone(text: str, opening: int) -> Hit | None:
    """A sign-in call's one argument, a literal that reads as a password by itself (`auth("X")`)."""
    opener = _OPEN_QUOTE.match(text, opening + 1)
    if opener is None:
        return None
    close = _closing_quote(text, opener.end(), opener.group())
    if close <= opener.end():
        return None
    value = text[opener.end() : close]
    after = _AFTER.match(text, close + len(opener.group()))
    if after is None or after["end"] != ")" or "\n" in value or "\\" in value:
        return None
    if accept_value("password", 1, value, quoted=True) and password_like(value) and not _HOST.fullmatch(value):
        return Hit(opener.end(), close, CREDENTIAL, "login-pair")
    return None


def _signs_in(text: str, i: int, opening: int) -> bool:
    """The callee or keyword ending at `opening` (`auth=(`: the keyword) is named for signing in."""
    end = opening
    while end > i and text[end - 1] in " \t=":
        end -= 1
    start = end
    while start > 0 and end - start < 128 and text[start - 1] in _CALLEE_CHARS:
        start -= 1
    for part in re.split(r"[.:]+", text[start:end]):
        words = [w.lower() for w in _WORDS.findall(part)]
        if words[-1:] in (["s"], ["async"]):  # LDAP's synchronous `simple_bind_s`, .NET's `AuthenticateAsync`
            words.pop()
        if words and words[-1] in _SIGN_IN:
            return True
    return False


# ---------------------------------------------------------------- Redis's AUTH command
# `AUTH [user] password` typed at a Redis prompt (`127.0.0.1:6379> AUTH default X`, `redis> auth X`):
# the command's last word is the password, whatever it reads as (the place says it)
AUTH_COMMAND_ANCHORS = ("> AUTH ", "> auth ")
# redis-cli's prompt: `host:port` (`[db]` after it when one is selected), or `redis`
_REDIS_PROMPT = re.compile(r"(?:(?<![\w.-])[\w.-]{1,253}:\d{2,5}(?:\[\d{1,2}\])?|(?<!\w)redis)\Z")
_AUTH_ARGS = re.compile(r"(?:[^\s\"'`\\]{1,128}[ \t]+)?(?P<v>[^\s\"'`\\]{1,256})[ \t]*(?=\r?\n|\\r|\\n|\Z)")


def auth_command(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The password given to Redis's AUTH command at its prompt."""
    for i in anchors.find(AUTH_COMMAND_ANCHORS):
        if not _REDIS_PROMPT.search(text, max(0, i - 270), i):
            continue
        m = _AUTH_ARGS.match(text, i + len(AUTH_COMMAND_ANCHORS[0]))
        if m is None or is_template(m["v"]) or PLACEHOLDER_RE.search(m["v"]):
            continue
        kind = PLACEHOLDER if is_doc_placeholder(m["v"]) else CREDENTIAL
        yield Hit(m.start("v"), m.end("v"), kind, "auth-command")
