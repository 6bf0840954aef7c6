"""The elements of an array that is one member of a top-level JSON object, located exactly.

Gemini CLI saves a chat as one JSON object whose `messages` member is the list of messages
(the first Codex CLI saved its rollouts the same way, under `items`). Each message becomes
one `Evidence` covering its exact bytes inside the file (with the line where it starts), so
`forsy verify` can re-read and hash it like a JSONL line. The other top-level members are
returned parsed, for the session's facts; one nested deeper than MAX_DEPTH (too deep for the
later stages, which walk values recursively) is left out and named, as a too-deep element is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..evidence import Evidence
from ._records import MAX_DEPTH, Record, _scrub, element_end, too_deep, value_end
from .lines import sha256


@dataclass
class Doc:
    header: dict[str, Any] = field(default_factory=dict)  # top-level members but the array
    records: list[Record] = field(default_factory=list)
    problems: list[tuple[str, str, int]] = field(default_factory=list)  # (code, message, line)
    elements: int = 0  # elements met in the array, objects or not
    has_array: bool = False  # the array member was there (an empty one too)
    # where each other top-level member's value is: (line, byte offset, its exact bytes)
    spans: dict[str, tuple[int, int, bytes]] = field(default_factory=dict)
    deep: list[str] = field(default_factory=list)  # the members left out, nested deeper than MAX_DEPTH


# what may stand before a value, and between two members or two elements
_BLANKS = re.compile("[ \t\r\n]*")
_GAP = re.compile("[ \t\r\n,]*")


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.text = data.decode("utf-8", "surrogateescape")
        self.pos = 0
        self.byte = 0
        self.line = 1

    def advance(self, to: int) -> None:
        chunk = self.text[self.pos : to]
        self.byte += len(chunk.encode("utf-8", "surrogateescape"))
        self.line += chunk.count("\n")
        self.pos = to

    def skip(self, gap: re.Pattern[str]) -> str:
        """Skip what `gap` matches (a regex, so no index can stall); the next character ("" at the end)."""
        i = gap.match(self.text, self.pos).end()  # type: ignore[union-attr]  # `*` matches anywhere
        self.advance(i)
        return self.text[i] if i < len(self.text) else ""


def read_object_array(data: bytes, source: str, key: str | None) -> Doc | None:
    """The top-level object's members, and the elements of its array member `key` as records
    (None: an object of members only). None when the data is not a JSON object whose members
    can be walked."""
    doc = Doc()
    cur = _Cursor(data.removeprefix(b"\xef\xbb\xbf"))
    dec = json.JSONDecoder()
    if data.startswith(b"\xef\xbb\xbf"):
        cur.byte = 3
    if cur.skip(_BLANKS) != "{":
        return None
    cur.advance(cur.pos + 1)
    while True:
        ch = cur.skip(_GAP)
        if ch == "}":
            return doc
        if ch != '"':
            return _broken(doc, cur, key, ch)
        try:
            name, end = dec.raw_decode(cur.text, cur.pos)
        except ValueError:  # a name the file ends in has no closing quote
            return _broken(doc, cur, key, ch if '"' in cur.text[cur.pos + 1 :] else "")
        cur.advance(end)
        if (ch := cur.skip(_BLANKS)) != ":":
            return _broken(doc, cur, key, ch)
        cur.advance(cur.pos + 1)
        ch = cur.skip(_BLANKS)
        if key is not None and name == key and ch == "[":
            doc.has_array = True
            cur.advance(cur.pos + 1)
            if not _elements(cur, dec, source, doc):
                return doc  # the rest of the file is lost: reported by _elements
            continue
        try:
            value, end = dec.raw_decode(cur.text, cur.pos)
        except ValueError:
            doc.problems.append(("unparsable-member", f"member {name!r} is not JSON; stopped reading", cur.line))
            return doc
        except RecursionError:  # deeper than the parser goes: passed over whole, when it ends
            if (deep_end := value_end(cur.text, cur.pos)) is None:
                doc.problems.append(("unparsable-member", f"member {name!r} is not JSON; stopped reading", cur.line))
                return doc
            _deep_member(doc, name, cur.line)
            cur.advance(deep_end)
            continue
        raw = cur.text[cur.pos : end].encode("utf-8", "surrogateescape")
        if too_deep(raw, value):
            # later stages walk values recursively (the scrub below too): a member nested deeper
            # than MAX_DEPTH is left out, as an element is, and the members after it are read
            _deep_member(doc, name, cur.line)
        else:
            doc.header[str(name)] = _scrub(value)
            doc.spans[str(name)] = (cur.line, cur.byte, raw)
        cur.advance(end)


def _deep_member(doc: Doc, name: object, line: int) -> None:
    doc.deep.append(str(name))
    doc.problems.append(("too-deep", f"member {name!r} nests values more than {MAX_DEPTH} levels deep; not read", line))


_DEEP_ELEMENT = ("too-deep", f"element nests values more than {MAX_DEPTH} levels deep; skipped")


def _broken(doc: Doc, cur: _Cursor, key: str | None, ch: str) -> Doc | None:
    """The object breaks off at `cur` (`ch` its next character, "" at the end): before its array,
    nothing says it is such a document (None); after it, the records read are kept and the break
    said (a file read while being written ends anywhere)."""
    if not doc.has_array:
        return None
    if not ch:
        doc.problems.append(("truncated", "the file ends inside the object (still being written?)", cur.line))
    else:
        doc.problems.append(("unparsable-member", f"the file is cut or broken after the {key!r} list; stopped reading",
                             cur.line))
    return doc


def _elements(cur: _Cursor, dec: json.JSONDecoder, source: str, doc: Doc) -> bool:
    while True:
        ch = cur.skip(_GAP)
        if ch == "]":
            cur.advance(cur.pos + 1)
            return True
        if not ch:
            doc.problems.append(("truncated", "the file ends inside the array (still being written?)", cur.line))
            return False
        try:
            value, end = dec.raw_decode(cur.text, cur.pos)
        except (ValueError, RecursionError) as e:
            lost = element_end(cur.text, cur.pos)
            if lost is None:
                doc.problems.append(("unparsable-element", f"element is not JSON; stopped reading (bytes {cur.byte}- "
                                     "of the file lost)", cur.line))
                return False
            doc.elements += 1
            if isinstance(e, RecursionError):  # deeper than the parser goes: passed over whole, as a too-deep one
                doc.problems.append(_DEEP_ELEMENT + (cur.line,))
            else:  # damaged (a raw control character in a string): it alone is lost, as a damaged JSONL line
                size = len(cur.text[cur.pos:lost].encode("utf-8", "surrogateescape"))
                doc.problems.append(("unparsable-element", f"element is not JSON; skipped (bytes {cur.byte}-"
                                     f"{cur.byte + size} of the file lost)", cur.line))
            cur.advance(lost)
            continue
        raw = cur.text[cur.pos : end].encode("utf-8", "surrogateescape")
        doc.elements += 1
        if not isinstance(value, dict):
            doc.problems.append(("not-an-object", f"element is {type(value).__name__}, not an object; skipped",
                                 cur.line))
        elif too_deep(raw, value):
            doc.problems.append(_DEEP_ELEMENT + (cur.line,))
        else:
            rtype = value.get("type") if isinstance(value.get("type"), str) else None
            ev = Evidence.make(source, cur.line, cur.byte, raw, sha256(raw), rtype)
            doc.records.append(Record(ev, _scrub(value)))
        cur.advance(end)
