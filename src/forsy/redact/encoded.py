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

Hex is read the same way (`xxd -p`, `.hex()`, `hexdump -ve '1/1 "%.2X"'`, `od -An -tx1`,
`printf '\\x70\\x61…'`, `xxd -i`'s `0x70, 0x61, …`), but found by its shape, not its words:
a run of hex that holds a dozen printable bytes in a row (the engine reports where) is decoded,
wrapped over lines or not, and read as a view when it is text, whatever secret it holds. A
private key's DER bytes in hex (PKCS#1, PKCS#8, SEC1: `3082…020100…`) are no text: recognised
by their header, they are read as the PEM block they are.
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
# Hex is found by its shape, in the engine's pass: twelve bytes of text in a row (each byte's
# first digit 2-7: a printable character), run together or as the tools that print bytes one by
# one write them; and a private key's DER header (PKCS#1: version 0 then an integer of 129 bytes
# or more; PKCS#8: version 0 then the algorithm's identifier; SEC1: version 1 then the key).
# A hash, a UUID or random bytes has no such run but by rare chance, and is then not text.
ENCODED_SHAPES = {
    "hex-text": r"(?:[2-7][0-9A-Fa-f]){12,}|(?:\\x[2-7][0-9A-Fa-f]){8,}|(?:[2-7][0-9A-Fa-f] ){8,}"
                r"|(?:0[xX][2-7][0-9A-Fa-f], ?){8,}",
    "hex-der": r"020100(?:028[12]|30[01][0-9A-Fa-f]06)|02010104[23]0",
}
_HEX_SHAPES = {name: re.compile(pattern) for name, pattern in ENCODED_SHAPES.items()}
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
    """Decoded views of the base64 and hex runs around encoded secret words that decode to
    text, with their offsets in the text; each view maps any span of it back to its whole run."""
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
    return out + hex_views(text, anchors)


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


# ---------------------------------------------------------------- hex
# one line of hex in each way it is written: bytes run together (`xxd -p`, `.hex()`), escaped
# (`\x70\x61`), as C writes them (`0x70, 0x61,`) or apart (`od -An -tx1`, `xxd -g1`)
_HEX_LINES = {
    "plain": re.compile(r"[0-9A-Fa-f]{2,}"),
    "escaped": re.compile(r"(?:\\x[0-9A-Fa-f]{2})+"),
    "c": re.compile(r"0[xX][0-9A-Fa-f]{2}(?:,[ \t]*0[xX][0-9A-Fa-f]{2})*,?"),
    "spaced": re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{2}(?:[ ]{1,2}[0-9A-Fa-f]{2}(?![0-9A-Fa-f]))+"),
}
_HEX_DIGITS = "0123456789abcdefABCDEF"
_NOT_HEX = re.compile(r"[^0-9A-Fa-f]+")
_ESCAPED_X = re.compile(r"\\x|0[xX]")
_LINE_BREAK = re.compile(r"\r?\n|\\r\\n|\\n")
_INDENT = re.compile(r"[ \t]*")
MIN_HEX_BYTES = 8
_LINE_WINDOW = 1 << 16  # a line is looked for this far around an anchor (a run of one line may be longer)
_DER_VERSION = re.compile(rb"\x02\x01\x00(?:\x02[\x81\x82]|\x30[\x00-\x1f]\x06)|\x02\x01\x01\x04[\x20\x30]")


def hex_views(text: str, anchors: Anchors) -> list[tuple[int, View]]:
    """Decoded views of the hex runs that are text (and of a private key's DER in hex, as its
    PEM block), each mapping any span of it back to its whole run."""
    shapes = anchors.shapes
    if shapes is not None:
        found = shapes["hex-text"] + shapes["hex-der"]
        if not found:
            return []
        starts = sorted({s for s, _ in found})
    else:
        starts = sorted({m.start() for pattern in _HEX_SHAPES.values() for m in pattern.finditer(text)})
    out: list[tuple[int, View]] = []
    done = -1
    for i in starts:
        if i < done:
            continue
        run = _hex_run(text, i)
        if run is None:
            continue
        start, end, data = run
        done = end
        decoded = _der_pem(data) or _text_of(data)
        if decoded is not None:
            out.append((start, View("hex", text[start:end], _WHOLE, _Whole(decoded), decoded)))
    return out


def _form(text: str, i: int) -> str:
    if text.startswith("\\x", i):
        return "escaped"
    if text.startswith(("0x", "0X"), i):
        return "c"
    return "spaced" if text[i + 2 : i + 3] == " " else "plain"


def _hex_run(text: str, i: int) -> tuple[int, int, bytes] | None:
    """The hex run that holds `i` (its lines joined when it is wrapped over several, each alone
    on its line), and its bytes; None when it is not whole bytes, or too short or too long."""
    form = _form(text, i)
    pattern = _HEX_LINES[form]
    line = _line_at(text, i)
    if form == "plain":  # (a run of one line may be longer than the window a line is looked for in)
        start, end = _plain_start(text, i), _plain_end(text, i)
    else:
        m = next((m for m in pattern.finditer(text, *line) if m.start() <= i < m.end()), None)
        if m is None:
            return None
        start, end = m.start(), m.end()
    width = end - start
    wraps = form != "plain" or (width >= 32 and width % 2 == 0)  # (`xxd -p` wraps at 60, `fold` at 64…)
    if wraps and _alone(text, line, start, end):  # wrapped: the lines before and after it that are runs alone
        first = line
        while (prev := _prev_line(text, first[0])) is not None and (p := _whole_line(text, prev, pattern)):
            if form == "plain" and p[1] - p[0] != width:
                break  # a wrapped run's lines are all as wide but the last
            start, first = p[0], prev
        last = line
        while (nxt := _next_line(text, last[1])) is not None and (n := _whole_line(text, nxt, pattern)):
            if (form == "plain" and n[1] - n[0] > width) or n[1] - start > MAX_RUN:
                break
            end, last = n[1], nxt
            if form == "plain" and n[1] - n[0] < width:
                break  # and the last is its shortest
    if form == "plain" and (i - start) % 2:
        start += 1  # a stray character before the bytes (an anchor stands where a byte starts)
    digits = _NOT_HEX.sub("", text[start:end] if form == "plain" else _ESCAPED_X.sub("", text[start:end]))
    if len(digits) % 2:
        if form != "plain":
            return None
        digits, end = digits[:-1], end - 1
    if not MIN_HEX_BYTES * 2 <= len(digits) <= MAX_RUN or digits.isdigit():
        return None  # (text's hex has letters: `a`-`o` are 61-6f; a table of numbers has none)
    return start, end, bytes.fromhex(digits)


def _plain_start(text: str, i: int) -> int:
    """Where the run of hex digits that holds `i` starts (walked back a block at a time)."""
    j = i
    while j > 0 and i - j < MAX_RUN:
        lo = max(0, j - 256)
        kept = text[lo:j].rstrip(_HEX_DIGITS)
        if kept:
            return lo + len(kept)
        j = lo
    return j


def _plain_end(text: str, i: int) -> int:
    j = i
    while j < len(text) and j - i < MAX_RUN:
        hi = min(len(text), j + 256)
        block = text[j:hi]
        kept = block.lstrip(_HEX_DIGITS)
        if kept:
            return hi - len(kept)
        j = hi
    return j


def _line_at(text: str, i: int) -> tuple[int, int]:
    """The line that holds `i` (broken by real newlines or JSON-escaped ones), within a window."""
    lo_bound, hi_bound = max(0, i - _LINE_WINDOW), min(len(text), i + _LINE_WINDOW)
    nl, esc = text.rfind("\n", lo_bound, i), text.rfind("\\n", lo_bound, i)
    lo = max(nl + 1 if nl >= 0 else lo_bound, esc + 2 if esc >= 0 else lo_bound)
    ends = [j for j in (text.find("\n", i, hi_bound), text.find("\\n", i, hi_bound)) if j >= 0]
    hi = min(ends, default=hi_bound)
    if hi > lo and text[hi - 1] == "\r":
        hi -= 1
    return lo, hi


def _prev_line(text: str, lo: int) -> tuple[int, int] | None:
    brk = next((m for m in _LINE_BREAK.finditer(text, max(0, lo - 4), lo) if m.end() == lo), None)
    return _line_at(text, brk.start()) if brk is not None and brk.start() > 0 else None


def _next_line(text: str, hi: int) -> tuple[int, int] | None:
    brk = _LINE_BREAK.match(text, hi)
    return _line_at(text, brk.end()) if brk is not None and brk.end() < len(text) else None


def _whole_line(text: str, line: tuple[int, int], pattern: re.Pattern[str]) -> tuple[int, int] | None:
    """The run a line is, after its indent, alone on it (but for a closing `,`)."""
    lo = _INDENT.match(text, line[0], line[1])
    m = pattern.match(text, lo.end() if lo else line[0], line[1])
    if m is None or m.end() == m.start() or text[m.end() : line[1]].strip(" \t,"):
        return None
    return m.start(), m.end()


def _alone(text: str, line: tuple[int, int], start: int, end: int) -> bool:
    """Whether the run is all its line holds (but for its indent and a closing `,`)."""
    return not text[line[0] : start].strip() and not text[end : line[1]].strip(" \t,")


def _text_of(data: bytes) -> str | None:
    """The text `data` is (UTF-8, printable but for line breaks and tabs), or None."""
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    plain = sum(c.isprintable() or c in "\n\r\t" for c in decoded)
    return decoded if decoded and plain >= 0.97 * len(decoded) else None


def _der_pem(data: bytes) -> str | None:
    """A private key's DER (a SEQUENCE whose first element is the key's version, then the key or
    its algorithm), written as the PEM block it is; None for anything else."""
    if len(data) < 16 or data[0] != 0x30:
        return None
    n = data[1]
    head = 2 + (n & 0x7F if n & 0x80 else 0)
    if not _DER_VERSION.match(data, head):
        return None
    body = base64.b64encode(data).decode()
    return ("-----BEGIN PRIVATE KEY-----\n" + "\n".join(body[j : j + 64] for j in range(0, len(body), 64))
            + "\n-----END PRIVATE KEY-----\n")
