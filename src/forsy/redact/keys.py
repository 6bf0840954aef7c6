"""Keys written whole: PEM and OpenSSH private keys, other armored key blocks, PuTTY's .ppk
files, private keys encoded in base64, and the secret keys of minisign and signify.

Each is masked whole, from its first line to its last (or to the end of its body when the
output was cut before it).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from ._anchors import Anchors
from ._base import PRIVATE_KEY, Hit

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




# Any other armored key (`-----BEGIN OpenVPN Static key V1-----`, `… tls-crypt-v2 client key-----`):
# a block whose label names a key and not a public one is the key itself, whoever made it
KEY_BLOCK_ANCHORS = ("-----BEGIN ",)
_KEY_BLOCK = re.compile(r"-----BEGIN (?P<label>[A-Za-z0-9][A-Za-z0-9 ._-]{0,80}?)-----")
_KEY_WORD = re.compile(r"(?i)\bkey\b")
_PUBLIC_LABEL = re.compile(r"(?i)\bpublic\b|PRIVATE KEY")  # public; or the PEM rule's own


def key_block(text: str, anchors: Anchors) -> Iterator[Hit]:
    """An armored block of a secret key other than a PEM private key, BEGIN to END."""
    pos = 0
    for i in anchors.find(KEY_BLOCK_ANCHORS):
        if i < pos:
            continue
        m = _KEY_BLOCK.match(text, i)
        if m is None or not _KEY_WORD.search(m["label"]) or _PUBLIC_LABEL.search(m["label"]):
            continue
        end_mark = f"-----END {m['label']}-----"
        e = text.find(end_mark, m.end(), m.end() + PEM_MAX)
        pos = e + len(end_mark) if e >= 0 else _body_end(text, m.end())
        yield Hit(i, pos, PRIVATE_KEY, "key-block")


# ---------------------------------------------------------------- PuTTY private keys
# PuTTY-User-Key-File-2/3: header lines, Public-Lines, Private-Lines (base64), Private-MAC;
# raw or with JSON-escaped newlines. Masked whole, like a PEM block.
_PUTTY_HEAD = re.compile(r"PuTTY-User-Key-File-\d{1,2}: [^\n\\]{0,200}")
# ---------------------------------------------------------------- private keys in base64
# A key file encoded whole (a kubeconfig's client-key-data, a Kubernetes Secret's tls.key, a CI
# variable) begins with "-----BEGIN" encoded, whatever the key's kind; the name it stands under
# says nothing, so the encoding is the rule. The engine finds whole keys; one cut before its END
# (output cut by size) is found only here.
_B64_BEGIN = "LS0tLS1CRUdJTi"  # base64 of "-----BEGIN" at the start of the encoded data
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_B64_BREAK = re.compile(r"\r?\n|(?:\\{1,3}r)?\\{1,3}n")  # a real or an escaped newline
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def base64_private_key(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A private key encoded in base64, on one line or wrapped in lines of one width (real or
    escaped newlines), to where the encoding stops: its END may be cut off."""
    for i in anchors.find((_B64_BEGIN,)):
        if i > 0 and text[i - 1] in _B64_CHARS:
            continue  # inside a longer run: this is not where the encoded data begins
        m = _B64_LINE.match(text, i)
        assert m is not None  # the anchor itself matches
        head = m.group()[:64]
        try:
            decoded = base64.b64decode(head[: len(head) // 4 * 4]).decode("latin-1")
        except (binascii.Error, ValueError):
            continue
        if not _PEM_BEGIN.match(decoded):
            continue  # a certificate, a public key, a signature: public
        end, width = m.end(), m.end() - i
        # wrapped as base64 tools wrap (64, 76 columns): each next line a whole line of base64 no
        # wider than the first; a key on one long line has nothing after it
        while _WRAP_MIN <= width <= _WRAP_MAX and not m.group().endswith("=") and end - m.start() == width:
            brk = _B64_BREAK.match(text, end)
            nxt = _B64_LINE.match(text, brk.end()) if brk else None
            if brk is None or nxt is None or len(nxt.group()) > width or not _line_ends(text, nxt.end()):
                break
            m, end = nxt, nxt.end()
        yield Hit(i, end, PRIVATE_KEY, "base64-private-key")


_WRAP_MIN, _WRAP_MAX = 44, 128


def _line_ends(text: str, at: int) -> bool:
    return at == len(text) or text[at] in "\"'\r\n" or _B64_BREAK.match(text, at) is not None


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


# ---------------------------------------------------------------- minisign and signify secret keys
# Their key files are two lines: `untrusted comment: <anything> secret key` and the key in base64
# (minisign, rsign2, signify, OpenBSD's). The comment says what the next line is.
SIGNING_KEY_ANCHORS = ("untrusted comment:",)
_SIGNING_COMMENT = re.compile(r"untrusted comment:[^\n\\]{0,200}?\bsecret key\b[^\n\\]{0,80}")
_SIGNING_LINE = re.compile(r"(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)(?P<v>[A-Za-z0-9+/]{40,}={0,2})")


def signing_secret_key(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The base64 line after a minisign or signify comment that says a secret key follows."""
    for i in anchors.find(SIGNING_KEY_ANCHORS):
        head = _SIGNING_COMMENT.match(text, i)
        line = _SIGNING_LINE.match(text, head.end()) if head is not None else None
        if line is not None:
            yield Hit(line.start("v"), line.end("v"), PRIVATE_KEY, "signing-secret-key")
