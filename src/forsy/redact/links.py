"""Links that grant access on their own: whoever holds one is let in, with no password asked.

- a capability path: a random token right after a path segment that resets a password, signs
  in by mail, accepts an invitation, verifies or confirms an address, activates an account,
  shares a file or a document, joins a meeting or a team, unsubscribes
  (`https://app.acme.io/reset-password/<token>`, `/auth/magic/<token>`, `/invite/accept/<token>`,
  `/s/<id>`, `/share/<id>`, `/document/d/<id>/edit?usp=sharing`);
- a query parameter that carries a sign-in's proof: an OAuth code (`callback?code=<code>&state=…`),
  a JWT, a session id, a one-time password, a CAS ticket (the parameters named for a token or a
  secret are the assignment rule's: `?token=`, `?api_key=`);
- an authenticator's export (`otpauth-migration://offline?data=…`), which holds every seed.

The position says what the value is for, not that it is one: a token must look machine-made
(`/verify/overview`, `?code=200`, `?session=new` stay).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, is_template, looks_random
from .structure import URL_STOP, in_url

if TYPE_CHECKING:
    from ._anchors import Anchors

# ---------------------------------------------------------------- capability paths
# A path segment made of these words (one of the first ones in it) says the next one is its token
_CAPABILITY_WORDS = frozenset({"reset", "magic", "invite", "invites", "invitation", "invitations", "verify",
                               "verification", "confirm", "confirmation", "activate", "activation", "passwordless",
                               "share", "shared", "sharing", "s", "join", "d", "unsubscribe"})
# A shared file's or document's id is its token: shorter for a share's (Dropbox's `/s/` ids are
# 15 characters), longer for a bare `/d/` (Google's documents: 33 or 44; a dashboard's `/d/<uid>`
# of a dozen stays)
_MIN_TOKEN = {"s": 12, "share": 12, "shared": 12, "sharing": 12, "d": 25}
_SEGMENT_WORDS = frozenset({"password", "passwd", "email", "mail", "account", "link", "login", "signin", "sign",
                            "in", "user", "accept", "new", "set", "forgot", "auth", "token", "registration"})
# segments that may stand between the capability and its token (`/invite/accept/<token>`)
_STEP_WORDS = _SEGMENT_WORDS | _CAPABILITY_WORDS
CAPABILITY_ANCHORS = ("/reset", "/magic", "/invit", "/verif", "/confirm", "/activat", "/passwordless", "/share",
                      "/s/", "/join", "/d/", "/unsubscribe")
_WORD_SPLIT = re.compile(r"[-_.]")
_HEX_TOKEN = re.compile(r"[0-9a-fA-F]{20,128}")


def capability_link(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The token after a URL path segment that resets a password, signs in, accepts an
    invitation, verifies, confirms or activates."""
    done = -1
    for i in anchors.find(CAPABILITY_ANCHORS):
        if i < done or not in_url(text, i):
            continue
        segment, pos = _segment(text, i + 1)
        if not _names_capability(segment):
            continue
        least = _MIN_TOKEN.get(segment.lower(), 16)
        for _ in range(3):  # the token, or up to two steps before it (`/accept/`, `/email/`)
            if pos >= len(text) or text[pos] != "/":
                break
            value, end = _segment(text, pos + 1)
            if _token(value, least):
                done = end
                yield Hit(pos + 1, end, CREDENTIAL, "capability-link")
                break
            if value.lower() not in _STEP_WORDS:
                break
            pos = end


def _segment(text: str, start: int) -> tuple[str, int]:
    end = start
    while end < len(text) and end - start < 512 and text[end] not in URL_STOP and text[end] != "/":
        end += 1
    return text[start:end], end


def _names_capability(segment: str) -> bool:
    words = [w for w in _WORD_SPLIT.split(segment.lower()) if w]
    return (bool(words) and len(segment) <= 40 and any(w in _CAPABILITY_WORDS for w in words)
            and all(w in _CAPABILITY_WORDS or w in _SEGMENT_WORDS for w in words))


def _token(value: str, least: int = 16) -> bool:
    value = urllib.parse.unquote(value)
    return not is_template(value) and (looks_random(value, least) or (
        len(value) >= least and _HEX_TOKEN.fullmatch(value) is not None))


# ---------------------------------------------------------------- access parameters
# Query parameters that carry a sign-in's proof; `code` is OAuth's authorization code (what the
# callback turns into tokens), `ticket` CAS's, `sid` and `sessionid` a session's
# (Dropbox's `rlkey` opens a shared file)
_ACCESS_PARAMS = ("code", "jwt", "sid", "sessionid", "session_id", "session", "otp", "ticket", "oauth_verifier",
                  "auth_code", "magic", "login_token", "rlkey")
# where a query parameter starts: `?`, `&`, or `&amp;` (in HTML)
ACCESS_ANCHORS = tuple(lead + p + "=" for p in _ACCESS_PARAMS for lead in ("?", "&", "&amp;"))
_QUERY_VALUE = re.compile(r"[^&\s\"'<>#\\]{1,2048}")


def access_param(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a URL's query parameter that carries a sign-in's proof, when it looks
    machine-made (`?code=q0p3…&state=xyz`, `?jwt=…`, `&sid=…`)."""
    for i in anchors.find(ACCESS_ANCHORS, ignore_case=True):
        eq = text.index("=", i)
        m = _QUERY_VALUE.match(text, eq + 1)
        value = m.group().rstrip(".,;)") if m is not None else ""  # (a sentence's end is not the value's)
        if m is not None and _token(value):
            yield Hit(m.start(), m.start() + len(value), CREDENTIAL, "access-param")


# ---------------------------------------------------------------- an authenticator's export
MIGRATION_ANCHORS = ("otpauth-migration://",)
_MIGRATION = re.compile(r"otpauth-migration://[\w.-]{0,40}\?(?:[^\s\"'<>#\\]{0,200}?&)?data=(?P<v>[^&\s\"'<>#\\]{8,8192})")


def authenticator_export(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The data of a Google Authenticator export link: every account's seed, base64-encoded."""
    for i in anchors.find(MIGRATION_ANCHORS):
        m = _MIGRATION.match(text, i)
        if m is not None:
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "authenticator-export")


LINK_ANCHORS_CASED = (*CAPABILITY_ANCHORS, *MIGRATION_ANCHORS)
