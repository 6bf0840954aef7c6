"""A user and a secret given together, by position: `auth=("bob", "X")` (requests, httpx),
`HTTPBasicAuth('bob', 'X')`, `aiohttp.BasicAuth`, `new NetworkCredential("bob", "X")`,
`UsernamePasswordCredentials`, `Credentials.basic("bob", "X")`, `smtp.login("bob@x.io", "X")`,
`ftp.login`, `imap.login`, `ldap.simple_bind_s(dn, "X")`, superagent's `.auth("bob", "X")`.

The callee (any of its dotted parts) or the keyword is named for signing in (its last word:
auth, credential(s), login, logon, bind, authentication), and its second argument is a string
literal: that is the secret, when it looks like one on its own (the name is a guess: a word,
a file name, `"admin"` stay). The first, the user, may be a literal or a name. No list of
libraries: the shape is the rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, PLACEHOLDER, Hit
from ._values import _OPEN_QUOTE, _closing_quote, accept_value, is_doc_placeholder, mixed_literal, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

# each ends where the arguments open: rare in logs, so the engine reports them (_native.py)
LOGIN_ANCHORS = ("Auth(", "auth(", "auth=(", "auth = (", "auth=[", "auth = [", "Credential(", "Credentials(",
                 "credential(", "credentials(", "login(", "Login(", "logon(", "Logon(", "bind_s(", "simple_bind(",
                 "Authentication(", "basic(")
_SIGN_IN = frozenset({"auth", "credential", "credentials", "login", "logon", "bind", "authentication"})
_CALLEE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# the first argument (a literal, or a name: `user`, `self.user`, `cfg["user"]`), then a comma
_FIRST = re.compile(r"[ \t]*(?:[rRbBuU@$]?(?P<q>\\{0,3}[\"'`]).{0,256}?(?P=q)|[\w$.]{1,128}(?:\[[^\]\n]{1,64}\])?)"
                    r"[ \t]*,[ \t]*(?:[rRbBuU@$](?=[\"'`\\]))?")
_AFTER = re.compile(r"[ \t]*(?:[,)\]]|\.toCharArray\(\))")


def login_pair(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The secret of a user and a secret given by position to a sign-in call or keyword."""
    done = -1
    for i in anchors.find(LOGIN_ANCHORS):
        if i < done:
            continue
        opening = min((j for j in (text.find("(", i, i + 16), text.find("[", i, i + 16)) if j >= 0), default=-1)
        if opening < 0 or not _signs_in(text, i, opening):
            continue
        first = _FIRST.match(text, opening + 1)
        if first is None:
            continue
        opener = _OPEN_QUOTE.match(text, first.end())
        if opener is None:
            continue  # a name: not a literal
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close <= opener.end() or "\n" in value or not _AFTER.match(text, close + len(opener.group())):
            continue
        done = close
        if "\\" in value:
            anchors.want_json_view = True  # an escape inside: read decoded
        elif accept_value("password", 1, value, quoted=True) and (password_like(value, 6) or mixed_literal(value)):
            yield Hit(opener.end(), close, CREDENTIAL, "login-pair")  # not `render_login(req, "login.html")`
        elif is_doc_placeholder(value):
            yield Hit(opener.end(), close, PLACEHOLDER, "login-pair")


def _signs_in(text: str, i: int, opening: int) -> bool:
    """The callee or keyword ending at `opening` (`auth=(`: the keyword) is named for signing in."""
    end = opening
    while end > i and text[end - 1] in " \t=":
        end -= 1
    start = end
    while start > 0 and end - start < 128 and text[start - 1] in _CALLEE_CHARS:
        start -= 1
    for part in text[start:end].split("."):
        words = [w.lower() for w in _WORDS.findall(part)]
        if words[-1:] == ["s"]:  # LDAP's synchronous `simple_bind_s`
            words.pop()
        if words and words[-1] in _SIGN_IN:
            return True
    return False
