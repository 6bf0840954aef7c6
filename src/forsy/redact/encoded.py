"""Secrets inside base64: a config, a key file or a credential encoded whole, as a Kubernetes
Secret's `data:` holds them (`.dockerconfigjson`, an `.env` file), as a CI variable holds a
service account's JSON key, as `echo … | base64 -d` decodes them. The encoded text hides every
word a rule reads; decoded, it is text like any other.

Where a word of a secret's name stands encoded (`password`, `secret`, `token`, `auth`,
`private`, `credential`, `api_key`… in the three ways base64 can align it: `cGFzc`, `Bhc3`,
`wYXNz` for `pass`), the run of base64 around it is decoded; when that is text, it is a view
(_views.View) scanned by every rule, and a secret found in it masks the whole run. Runs
wrapped over lines of one width (`base64`'s 76 columns, 60 or more) are read as one. Speed: the engine
reports where the encoded words stand in its own pass, so text without them costs nothing;
a run must decode to text in a small window around the word before it is decoded whole.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING

from ._views import View

if TYPE_CHECKING:
    from ._anchors import Anchors

# the words of a secret's name, as a config writes them (lower, capitals, capitalised)
_WORDS = ("pass", "secret", "token", "auth", "private", "_key", "apikey", "apiKey", "credential")


def _encoded(word: bytes) -> list[str]:
    """The base64 of `word` at each of the three alignments, cut to the characters that depend
    on its bytes only (so they stand in the encoding whatever comes before or after)."""
    out = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + word + b"\0\0").decode()
        first = -(-offset * 8 // 6)  # the first character whose 6 bits are all the word's
        last = (offset + len(word)) * 8 // 6
        out.append(encoded[first:last])
    return out


ENCODED_ANCHORS = tuple(dict.fromkeys(
    a for w in _WORDS for form in dict.fromkeys((w, w.upper(), w.capitalize())) for a in _encoded(form.encode())
    if len(a) >= 4))
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_RUN = re.compile(r"[A-Za-z0-9+/_-]*")
_PADDING = re.compile(r"={0,2}")
_WRAP = re.compile(r"(?:\r?\n|\\r\\n|\\n)[ \t]*(?=[A-Za-z0-9+/_-])")
_LINE_END = re.compile(r"[ \t]*(?:\r?\n|\\[rn]|[\"'`]|\Z)")
_SPACE = re.compile(r"\s+|\\[rn]")
_WHOLE = re.compile(r"(?s).+")
MIN_RUN = 16
MAX_RUN = 1 << 20
_WINDOW = 48


def base64_views(text: str, anchors: Anchors) -> list[tuple[int, View]]:
    """Decoded views of the base64 runs around encoded secret words that decode to text, with
    their offsets in the text; each view maps any span of it back to its whole run."""
    out: list[tuple[int, View]] = []
    done = -1
    for i in anchors.find(ENCODED_ANCHORS):
        if i < done or not _text_near(text, i):
            continue
        start, end = _run(text, i)
        done = end
        if end - start < MIN_RUN or end - start > MAX_RUN or _jwt_part(text, start, end):
            continue
        decoded = _decode(text[start:end])
        if decoded is not None:
            out.append((start, View("base64", text[start:end], _WHOLE, _Whole(decoded), decoded)))
    return out


class _Whole:
    """A view's decoding of its one replacement, the run: the text the run decodes to."""

    def __init__(self, decoded: str) -> None:
        self.decoded = decoded

    def __call__(self, m: re.Match[str]) -> str:
        return self.decoded


def _match_end(pattern: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where `pattern` (which matches the empty string too) stops matching from `pos`."""
    m = pattern.match(text, pos) if endpos is None else pattern.match(text, pos, endpos)
    return pos if m is None else m.end()


def _text_near(text: str, i: int) -> bool:
    """Whether the base64 around `i` decodes to text at one of its four alignments (random
    data, an image's bytes, holds an encoded word by chance now and then: it is not decoded)."""
    lo = i
    while lo > 0 and i - lo < _WINDOW and text[lo - 1] in _B64_CHARS:
        lo -= 1
    hi = _match_end(_RUN, text, i, min(len(text), i + _WINDOW))
    for a in range(4):
        part = text[lo + a : hi]
        part = part[: len(part) // 4 * 4]
        if len(part) >= 8 and (decoded := _bytes_text(part)) is not None and len(decoded) >= 6:
            return True
    return False


def _run(text: str, i: int) -> tuple[int, int]:
    """The run of base64 that holds `i`, with its padding, and the lines it is wrapped over."""
    start, end = _one_run(text, i)
    width = _line_width(text, start, end)
    while width >= 60 and width % 4 == 0 and (wrap := _WRAP.match(text, end)) is not None:
        nxt = _one_run(text, wrap.end())
        if nxt[1] - nxt[0] > width or not _LINE_END.match(text, nxt[1]):
            break  # longer than the lines before it, or not alone on its line: no continuation
        end = nxt[1]
        if nxt[1] - nxt[0] < width:
            break  # a wrapped run's last line is its shortest
    return start, end


def _one_run(text: str, i: int) -> tuple[int, int]:
    window = text[max(0, i - MAX_RUN) : i]
    start = i - _match_end(_RUN, window[::-1], 0)
    if start >= 1 and text[start - 1] == "\\" and text[start] in "nrt":
        start += 1  # `\ncGFz…` in JSON text: the `n` is the escape's
    end = _match_end(_PADDING, text, _match_end(_RUN, text, i))
    return start, end


def _line_width(text: str, start: int, end: int) -> int:
    """The width of the last line of a run (its wrapped lines are all as wide)."""
    cut = max(text.rfind("\n", start, end) + 1, start)
    return end - cut


def _jwt_part(text: str, start: int, end: int) -> bool:
    """A run that is a part of a JWT (`xxx.yyy.zzz`): the token rule masks it whole."""
    return (start > 0 and text[start - 1] == "." and start > 1 and text[start - 2] in _B64_CHARS) or (
        text[end : end + 1] == "." and text[end + 1 : end + 2] in _B64_CHARS and text[end + 1 : end + 2] != "")


def _decode(run: str) -> str | None:
    """The text a base64 run encodes, or None (not base64, or not text)."""
    return _bytes_text(_SPACE.sub("", run).rstrip("="))


def _bytes_text(b64: str) -> str | None:
    if len(b64) % 4 == 1:
        return None
    alt = b"-_" if "-" in b64 or "_" in b64 else None
    if alt is not None and ("+" in b64 or "/" in b64):
        return None
    try:
        decoded = base64.b64decode(b64 + "=" * (-len(b64) % 4), altchars=alt, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    plain = sum(c.isprintable() or c in "\n\r\t" for c in decoded)
    return decoded if decoded and plain >= 0.97 * len(decoded) else None
