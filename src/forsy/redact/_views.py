"""Decoded views of escaped text (JSON escapes, %XX) that map spans back to the raw text; offsets."""

from __future__ import annotations

import functools
import re
import urllib.parse
from array import array
from bisect import bisect_right
from collections.abc import Callable


# ---------------------------------------------------------------- offsets
def byte_spans_to_char(chunk: str, data: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte offsets into `data` (UTF-8 of `chunk`) -> str indices, widened to whole chars."""
    if len(data) == len(chunk):  # ASCII: bytes and chars line up
        return spans
    n = len(data)
    wanted: set[int] = set()
    snapped = []
    for start, end in spans:
        start, end = max(0, min(start, n)), max(0, min(end, n))
        while 0 < start < n and data[start] & 0xC0 == 0x80:
            start -= 1
        while 0 < end < n and data[end] & 0xC0 == 0x80:
            end += 1
        snapped.append((start, end))
        wanted.update((start, end))
    index: dict[int, int] = {}
    prev_b = prev_c = 0
    for b in sorted(wanted):
        prev_c += len(data[prev_b:b].decode("utf-8", "replace"))
        prev_b = b
        index[b] = prev_c
    return [(index[s], index[e]) for s, e in snapped]


# ---------------------------------------------------------------- decoded views
JSON_ESCAPE = _JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _unescape_one(m: re.Match[str]) -> str:
    if m.group(1) is None:
        return _SIMPLE_ESCAPES[m.group(2)]
    return _unicode(m.group(1))


_UNICODE_RUN = re.compile(r"(?:\\u[0-9a-fA-F]{4})+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SIMPLE_PAIRS = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\/", "/"), ("\\b", "\b"),
                 ("\\f", "\f"))
_PUA = "\ue000"


def json_unescape(text: str) -> str:
    """JSON string escapes decoded (tolerant: text need not be a JSON string).

    Same result as `_JSON_ESCAPE.sub(_unescape_one, text)` (which View's map relies on),
    but with str.replace: escaped backslashes are set aside first, so the later
    replacements cannot see a backslash that was part of one."""
    if "\\" not in text:
        return text
    if _PUA in text:
        return _JSON_ESCAPE.sub(_unescape_one, text)
    out = text.replace("\\\\", _PUA)
    for escape, char in _SIMPLE_PAIRS:
        if escape in out:
            out = out.replace(escape, char)
    if "\\u" in out:
        out = _UNICODE_RUN.sub(_unicode_run, out)
    return out.replace(_PUA, "\\")


def _unicode_run(m: re.Match[str]) -> str:
    """A run of \\uXXXX escapes, one char each (a surrogate half becomes U+FFFD, as in _unicode)."""
    run = m.group()
    if len(run) == 6:  # the usual case ("\\u001b[0m"): one escape
        return _unicode(run[2:])
    decoded = run.encode("ascii").decode("unicode_escape")
    return _SURROGATE.sub("\ufffd", decoded) if _SURROGATE.search(decoded) else decoded


@functools.lru_cache(maxsize=1024)
def _unicode(hex4: str) -> str:
    code = int(hex4, 16)
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)  # a view must stay encodable


class View:
    """A decoded copy of a text that knows where each of its spans came from.

    Decoding only replaces escape sequences, so the map is the sorted list of those
    replacements: (view start, view length, raw start, raw end); between two of them view
    and raw text are equal, shifted. The map is built only when a span must be mapped.
    """

    def __init__(self, kind: str, raw: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str],
                 text: str | None = None) -> None:
        self.kind = kind  # "json" or "url"
        self._raw_text, self._pattern, self._decode = raw, pattern, decode
        self.text = pattern.sub(decode, raw) if text is None else text
        self._map: tuple[array[int], array[int], array[int], array[int]] | None = None

    def _build_map(self) -> tuple[array[int], array[int], array[int], array[int]]:
        v_start, v_len, r_start, r_end = array("q"), array("q"), array("q"), array("q")
        shift = 0
        for m in self._pattern.finditer(self._raw_text):
            rep = self._decode(m)
            v_start.append(m.start() + shift)
            v_len.append(len(rep))
            r_start.append(m.start())
            r_end.append(m.end())
            shift += len(rep) - (m.end() - m.start())
        return v_start, v_len, r_start, r_end

    def _raw(self, v: int, *, end: bool) -> int:
        """Raw index of view index v (a start), or just past the raw char of view index v (an end)."""
        if self._map is None:
            self._map = self._build_map()
        v_start, v_len, r_start, r_end = self._map
        i = bisect_right(v_start, v) - 1
        if i < 0:
            return v + end
        if v < v_start[i] + v_len[i]:  # v is part of a decoded escape: take the whole escape
            return r_end[i] if end else r_start[i]
        return r_end[i] + (v - v_start[i] - v_len[i]) + end

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        return self._raw(start, end=False), self._raw(end - 1, end=True)


def neutralise_escapes(text: str) -> str:
    """Escaped newlines, tabs and quotes as whitespace and plain quotes, same length (for the
    engine, which needs only token boundaries, and whose offsets must stay raw offsets)."""
    for escape, same_length in (("\\n", "\n "), ("\\r", "\r "), ("\\t", "\t "), ('\\"', '" ')):
        if escape in text:
            text = text.replace(escape, same_length)
    return text


_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


def escapes_letters(text: str) -> bool:
    """Whether `text` holds a JSON escape of a letter or digit (`\\u0070`, `\\u00f1`, `\\u5bc6`):
    writers escape quotes, control characters, `<>&` and, with `ensure_ascii`, every letter
    beyond ASCII; an escaped ASCII letter hides a word on purpose."""
    i = text.find("\\u")
    while i >= 0:
        hex4 = text[i + 2 : i + 6]
        if _HEX4.fullmatch(hex4) and _unicode(hex4).isalnum():
            return True
        i = text.find("\\u", i + 2)
    return False


def letter_views(text: str) -> list[tuple[int, View]]:
    """JSON-decoded views of the lines that hold an escaped letter (`escapes_letters`), with
    their offsets in the text: only those lines, as for %XX escapes (a JSON string holds no raw
    newline, so an escaped name and its value are on one line)."""
    out: list[tuple[int, View]] = []
    pos = 0
    while (i := text.find("\\u", pos)) >= 0:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if escapes_letters(line):
            out.append((start, View("json", line, _JSON_ESCAPE, _unescape_one, json_unescape(line))))
        pos = end
    return out


def json_view(text: str) -> View | None:
    """The text JSON-unescaped, if it holds JSON escapes."""
    if "\\" in text and _JSON_ESCAPE.search(text):
        return View("json", text, _JSON_ESCAPE, _unescape_one, json_unescape(text))
    return None


def url_views(text: str) -> list[tuple[int, View]]:
    """URL-decoded views of the lines that hold %XX escapes, with their offsets in the text.

    Only those lines: decoding and rescanning all of a text for a few escapes costs more
    than everything else (URL-encoded data has no raw newline, so a secret is on one line)."""
    out: list[tuple[int, View]] = []
    pos = 0
    while "%" in text and (m := _PERCENT.search(text, pos)) is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        out.append((start, View("url", text[start:end], _PERCENT_RUN, _unquote_run)))
        pos = end
    return out


def _unquote_run(m: re.Match[str]) -> str:
    return urllib.parse.unquote(m.group(), errors="replace")


# A terminal's colour and style codes (CSI `ESC [ … m`, cursor moves) and titles and links
# (OSC `ESC ] … BEL`): a coloured `password: X` in a tool's output hides the name from its value
_ANSI = re.compile(r"\x1b\[[0-?]{0,32}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)")


def _drop(m: re.Match[str]) -> str:
    return ""


def ansi_views(text: str) -> list[tuple[int, View]]:
    """Views of the lines that hold terminal escape codes, without them, with their offsets in
    the text (only those lines, as for %XX escapes)."""
    out: list[tuple[int, View]] = []
    pos = 0
    while (i := text.find("\x1b", pos)) >= 0:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if _ANSI.search(line):
            out.append((start, View("ansi", line, _ANSI, _drop)))
        pos = end
    return out

