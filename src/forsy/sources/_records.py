"""Records of JSON logs (JSONL, or one JSON array) with exact byte positions.

Each record comes with its `Evidence` (source, line, byte offset and length, sha256 of the
bytes). Damaged lines are reported and skipped, never fatal: a line that is not JSON, two
records spliced on one line, NUL runs, invalid UTF-8, values nested deeper than any later
stage can walk.

Recovery from a damaged line keeps only what is provably a whole top-level record: an object
that starts the line, or starts right after a whole object that did (records spliced on one
line), and that the caller's `is_record` accepts. An object found further in (e.g. the
subagent message nested inside a cut `agent_progress` record) is never taken for a record:
everything not kept is reported with its byte range. Each line costs one parse attempt per
object kept, so recovery is linear in the line's size.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from ..evidence import Evidence, ReadingWarning, Session
from .lines import RawLine, iter_lines, sha256

# What a top-level record of the log looks like (a caller's rule, e.g. Claude Code's keys).
IsRecord = Callable[[dict[str, Any]], bool]
# A reader's cheaper parse of lines it needs only some fields of (e.g. Claude Code's progress
# records): the record cut down to every field any later stage reads of it, exactly as the
# whole parse would give them, or None to parse the line whole. It is asked only of complete
# lines too shallow to be too deep, and must answer None where the whole parse would not give
# an object (so a damaged line is still recovered and reported the same way).
Partial = Callable[[bytes], dict[str, Any] | None]

# Deepest nesting a record may have. Later stages (redaction, segmenter, writers) walk values
# recursively; real logs nest ~11 levels, so 200 leaves them a wide margin while keeping a
# hostile record from ending in an internal error far from its file and line.
MAX_DEPTH = 200


@dataclass(slots=True)
class Record:
    ev: Evidence
    data: dict[str, Any]
    # JSON pointer of `data` inside the record's bytes: "" for the record itself, else e.g.
    # "/data/message" for a subagent message copied inside an `agent_progress` record
    prefix: str = ""


# a JSON number of 19+ digits starts right after one of : , [ (and optional spaces); looking
# only there is several times faster than scanning every digit run inside strings
_LONG_DIGITS = re.compile(rb"[:,\[]\s*-?\d{19}")
# and only when the line has a run of 19 digits at all: digits → NUL, then one substring
# search (bytes.translate and `in` run in C, about 5× faster than the regex on agent logs)
_DIGITS_TO_NUL = bytes.maketrans(b"0123456789", b"\0" * 10)
_NUL_RUN = b"\0" * 19
# what may stand between two records spliced on a line, and between two elements of an array
_LINE_GAP = re.compile("[ \t\r]*")
_ARRAY_GAP = re.compile("[ \t\r\n,]*")


@dataclass(slots=True)
class Problem:
    """A line a reader could not use (or used with a caveat): a warning naming it."""

    code: str
    message: str
    line: int | None


MAX_WARNINGS = 20  # per kind and file: past it, one summary (a binary file would give thousands)


def warn_problems(session: Session, src: str, problems: list[Problem], unparsable: frozenset[str]) -> None:
    """Each problem a warning with file and line, up to MAX_WARNINGS of a kind, then one line
    counting the rest; the codes in `unparsable` are lines that could not be read at all."""
    seen: dict[str, int] = {}
    for p in problems:
        if p.code in unparsable:
            session.quality.unparsable_records += 1
        seen[p.code] = seen.get(p.code, 0) + 1
        if seen[p.code] <= MAX_WARNINGS:
            session.warn(p.code, p.message, src, p.line)
    for code, n in seen.items():
        if n > MAX_WARNINGS:
            session.warn(code, f"{n - MAX_WARNINGS} more lines with this problem", src)


def _long_number(raw: bytes) -> bool:
    return _NUL_RUN in raw.translate(_DIGITS_TO_NUL) and _LONG_DIGITS.search(raw) is not None


# msgspec keeps integers of any size exact (orjson needs the long-number check first); where a
# line may nest deeper than orjson's limit (1024), orjson's answer stands (deep lines have
# always been refused as not JSON), so msgspec takes only lines with fewer brackets than that
_MSGSPEC_BRACKETS = 512
_DECODE = msgspec.json.Decoder().decode


def brackets(raw: bytes) -> int:
    """How many `[` and `{` the line holds: an upper bound of how deep its value nests."""
    return raw.count(b"[") + raw.count(b"{")


def _loads(raw: bytes, n_brackets: int | None = None) -> Any:
    if (n_brackets if n_brackets is not None else brackets(raw)) <= _MSGSPEC_BRACKETS:
        try:
            return _DECODE(raw)
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass  # not JSON, or what only the stdlib reads (bad UTF-8, lone surrogates...)
    elif not _long_number(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    # else: orjson turns integers beyond 64 bits into floats (losing digits); the stdlib keeps them
    # orjson refuses invalid UTF-8, lone surrogates, integers beyond 64 bits and >1024-deep
    # nesting; the stdlib parser takes the rest (depth up to the recursion limit). What it
    # returns is made writable again: bad bytes and lone surrogates become U+FFFD, integers
    # beyond 64 bits stay exact Python ints (the writer falls back to the stdlib for them).
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return _MISSING
    # a value nested past MAX_DEPTH is left as parsed: the caller skips it as too deep, and
    # scrubbing it (a recursive walk) could end in a RecursionError that reads as "not JSON"
    return value if too_deep(raw, value, n_brackets) else _scrub(value)


def _scrub(v: Any) -> Any:
    """`v` with lone surrogates replaced. Recursive: only for a value known to nest no deeper
    than MAX_DEPTH (`too_deep`), or the walk can end in a RecursionError."""
    if isinstance(v, str):
        try:
            v.encode("utf-8")
            return v
        except UnicodeEncodeError:
            return _SURROGATE.sub("\ufffd", v)
    if isinstance(v, list):
        return [_scrub(x) for x in v]
    if isinstance(v, dict):
        return {_scrub(k): _scrub(x) for k, x in v.items()}
    return v


_MISSING = object()
_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")


def too_deep(raw: bytes, value: Any, n_brackets: int | None = None) -> bool:
    """Whether `value` (parsed from `raw`) nests deeper than MAX_DEPTH. A line with fewer
    brackets than that cannot, so most lines cost two byte counts; the walk is iterative."""
    if (n_brackets if n_brackets is not None else brackets(raw)) <= MAX_DEPTH:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(v, dict):
            stack.extend((x, depth + 1) for x in v.values() if isinstance(x, dict | list))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v if isinstance(x, dict | list))
    return False


def too_deep_members(raw: bytes, obj: dict[str, Any]) -> list[str]:
    """The members of `obj` (parsed from `raw`) whose values nest deeper than MAX_DEPTH, each
    value counted as a record is (its own first level is 1)."""
    n_brackets = brackets(raw)
    if n_brackets <= MAX_DEPTH:
        return []
    return [k for k, v in obj.items() if too_deep(raw, v, n_brackets)]


def _count(counters: dict[str, int], key: str) -> None:
    counters[key] = counters.get(key, 0) + 1


def iter_jsonl(
    data: bytes, source: str, warnings: list[ReadingWarning], counters: dict[str, int],
    is_record: IsRecord | None = None,
) -> Iterator[Record]:
    """Records of a JSONL log; problems go to `warnings` with file and line. `is_record` says
    what a top-level record looks like (used when recovering records from a damaged line)."""
    return iter_jsonl_lines(iter_lines(data), source, warnings, counters, is_record)


def iter_jsonl_lines(
    lines: Iterable[RawLine], source: str, warnings: list[ReadingWarning], counters: dict[str, int],
    is_record: IsRecord | None = None, partial: Partial | None = None,
) -> Iterator[Record]:
    """`iter_jsonl` over lines already split (e.g. a `LineStream`, which never holds the file
    whole); `partial` is the reader's cheaper parse of some lines, if it has one."""
    for rl in lines:
        raw, offset = rl.raw, rl.offset
        if offset == 0 and raw.startswith(_BOM):  # Windows editors and PowerShell 5 begin a file with one
            raw, offset = raw[len(_BOM):], len(_BOM)
            warnings.append(ReadingWarning("bom", "the file starts with a UTF-8 byte order mark (not JSON); "
                                           "read from the byte after it", source, rl.line))
        n_brackets = brackets(raw)
        if partial is not None and rl.complete and n_brackets <= MAX_DEPTH:
            cut = partial(raw)
            if cut is not None:
                _count(counters, "records")
                yield _record(source, rl.line, offset, raw, cut)
                continue
        value = _loads(raw, n_brackets)
        if value is _MISSING and b"\x00" in raw:
            stripped = raw.replace(b"\x00", b"")
            if not stripped.strip():
                _count(counters, "unparsable")
                warnings.append(ReadingWarning("nul-run", f"a run of {len(raw)} NUL bytes; skipped", source, rl.line))
                continue
            value = _loads(stripped)
            if value is not _MISSING:
                warnings.append(ReadingWarning("nul-bytes", "NUL bytes removed from the line", source, rl.line))
        if value is _MISSING:  # the whole line, a BOM too: the lost ranges are the line's own bytes
            yield from _recover(rl.raw, rl.offset, rl.complete, source, rl.line, warnings, counters, is_record)
            continue
        if not rl.complete:
            warnings.append(ReadingWarning("no-final-newline", "last line has no newline (file still being written?)",
                                     source, rl.line))
        _count(counters, "records")
        if not isinstance(value, dict):
            _count(counters, "unparsable")
            warnings.append(ReadingWarning("not-an-object", "line is JSON but not an object; skipped", source, rl.line))
            continue
        if too_deep(raw, value, n_brackets):
            _count(counters, "unparsable")
            warnings.append(ReadingWarning(
                "too-deep", f"record nests values more than {MAX_DEPTH} levels deep; skipped", source, rl.line))
            continue
        yield _record(source, rl.line, offset, raw, value)


def _record(source: str, line: int, offset: int, raw: bytes, value: dict[str, Any]) -> Record:
    rtype = value.get("type") if isinstance(value.get("type"), str) else None
    return Record(Evidence.make(source, line, offset, raw, sha256(raw), rtype), value)


def _ranges(spans: list[tuple[int, int]]) -> str:
    return ", ".join(f"bytes {a}-{b}" for a, b in spans)


def _top_level(raw: bytes, is_record: IsRecord | None) -> tuple[list[tuple[dict[str, Any], int, int]],
                                                                   list[tuple[int, int]]]:
    """(kept, lost) of a damaged line: the whole records that start it, one after another,
    with their byte start and end; and the byte ranges of everything else."""
    text = raw.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    kept: list[tuple[dict[str, Any], int, int]] = []
    lost: list[tuple[int, int]] = []
    pos = 1 if text.startswith("\ufeff") else 0
    byte_pos = len(text[:pos].encode("utf-8", "surrogateescape"))
    n = len(text)
    # each turn but the last moves past an object (two characters at least): n turns are enough
    # (none for an empty line), so the loop ends whatever the positions say
    for _ in range(n):
        skip = _LINE_GAP.match(text, pos).end()  # type: ignore[union-attr]  # `*` matches anywhere
        byte_pos += len(text[pos:skip].encode("utf-8", "surrogateescape"))
        pos = skip
        if pos >= n:
            break
        try:  # one attempt per start position: only where a top-level record can start
            value, end = dec.raw_decode(text, pos) if text[pos] == "{" else (None, -1)
        except (ValueError, RecursionError):
            end = -1
        if end == -1:
            lost.append((byte_pos, len(raw)))
            return kept, lost
        b1 = byte_pos + len(text[pos:end].encode("utf-8", "surrogateescape"))
        try:
            value = _scrub(value)
        except RecursionError:
            value = None
        if (isinstance(value, dict) and (is_record is None or is_record(value))
                and not too_deep(raw[byte_pos:b1], value)):
            kept.append((value, byte_pos, b1))
        else:
            lost.append((byte_pos, b1))  # whole JSON, but not a record of this log
        pos, byte_pos = end, b1
    return kept, lost


def _recover(raw: bytes, offset: int, complete: bool, source: str, line: int, warnings: list[ReadingWarning],
             counters: dict[str, int], is_record: IsRecord | None) -> Iterator[Record]:
    """What can still be read from a damaged line: the whole records that start it."""
    found, lost = _top_level(raw, is_record) if len(raw) < 64_000_000 else ([], [(0, len(raw))])
    if not found:
        _count(counters, "unparsable")
        if not complete:
            warnings.append(ReadingWarning("truncated-line", "last line is cut off (file still being written?); "
                                     f"skipped: {_ranges(lost)} lost", source, line))
        else:
            warnings.append(ReadingWarning("unparsable-line", f"line is not JSON ({len(raw)} bytes); "
                                     f"skipped: {_ranges(lost)} lost", source, line))
        return
    warnings.append(ReadingWarning("damaged-line",
                                   f"line is damaged (spliced, cut or with junk); kept the {len(found)} "
                                   f"whole record(s) that start it; {_ranges(lost) or 'nothing'} lost", source, line))
    _count(counters, "damaged")
    for value, b0, b1 in found:
        _count(counters, "records")
        yield _record(source, line, offset + b0, raw[b0:b1], value)


def _after_array(text: str, pos: int, line: int, data: bytes, source: str, warnings: list[ReadingWarning]) -> None:
    """Text after the array's closing bracket (a second write appended, garbage) is not read:
    said, with the line it starts on and its bytes, rather than dropped without a word."""
    rest = text[pos:]
    lead = len(rest) - len(rest.lstrip())
    if lead == len(rest):
        return
    start = len(text[: pos + lead].encode("utf-8", "surrogateescape"))
    warnings.append(ReadingWarning("after-array", f"text after the array's end is not read (bytes {start}-{len(data)} "
                                   "of the file)", source, line + text.count("\n", pos, pos + lead)))


def value_end(text: str, pos: int) -> int | None:
    """Where the array or object starting at `text[pos]` ends (the index after its closing
    bracket), found without parsing it: for a value the parser refused (nested deeper than it
    goes, or damaged inside a string: a raw control character), whose place must be known to
    read on after it. None when the text ends first. Iterative, each character looked at once."""
    if not text.startswith(("[", "{"), pos):
        return None
    depth = 0
    while True:
        m = _STRUCTURE.search(text, pos)
        if m is None:
            return None
        ch, pos = m.group(), m.end()
        if ch == '"':
            m = _STRING_END.match(text, pos)
            if m is None:
                return None
            pos = m.end()
        elif ch in "[{":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return pos


# the characters that open or close a value, and the rest of a string (escapes passed over)
_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING_END = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NEXT = re.compile(r"[ \t\r\n]*[,\]]")  # what follows an element the array goes on after


def element_end(text: str, pos: int) -> int | None:
    """The end of the array element at `pos` that the parser refused, when the array visibly
    goes on after it (a `,` or the `]` next): so one damaged element costs its own bytes, as a
    damaged line of a JSONL log costs that line; None when its end cannot be told."""
    end = value_end(text, pos)
    return end if end is not None and _NEXT.match(text, end) is not None else None


def iter_json_array(
    data: bytes, source: str, warnings: list[ReadingWarning], counters: dict[str, int]
) -> Iterator[Record]:
    """Records of a log re-saved as one JSON array (a Stop hook's transcript dump).

    Each element's evidence covers its exact bytes inside the array, with the line where
    it starts, so it can be re-read and hashed like a JSONL line. An array the file ends in
    (cut while written) is said, with the line it ends on.
    """
    text = data.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    opened = text.find("[")
    pos = opened + 1
    byte_pos = len(text[:pos].encode("utf-8", "surrogateescape"))
    line = 1 + text.count("\n", 0, pos)
    n = len(text)
    # each turn but the last moves past an element (a character at least), so the loop ends whatever
    # the positions say: after n turns every element was read (n of them only in a file of
    # digits with no `[`, whose end says nothing), as when the end is met
    for _ in range(n):
        skip = _ARRAY_GAP.match(text, pos).end()  # type: ignore[union-attr]  # `*` matches anywhere
        if skip >= n:
            break
        if text[skip] == "]":
            _after_array(text, skip + 1, line + text.count("\n", pos, skip), data, source, warnings)
            return
        line += text.count("\n", pos, skip)
        byte_pos += len(text[pos:skip].encode("utf-8", "surrogateescape"))
        try:
            value, end = dec.raw_decode(text, skip)
        except (ValueError, RecursionError):
            _count(counters, "unparsable")
            lost = element_end(text, skip)
            if lost is None:
                warnings.append(ReadingWarning("unparsable-element", "array element is not JSON; stopped reading "
                                         f"(bytes {byte_pos}-{len(data)} of the file lost)", source, line))
                return
            size = len(text[skip:lost].encode("utf-8", "surrogateescape"))
            warnings.append(ReadingWarning("unparsable-element", "array element is not JSON; skipped (bytes "
                                     f"{byte_pos}-{byte_pos + size} of the file lost)", source, line))
            line += text.count("\n", skip, lost)
            byte_pos += size
            pos = lost
            continue
        raw = text[skip:end].encode("utf-8", "surrogateescape")
        _count(counters, "records")
        if not isinstance(value, dict):
            _count(counters, "unparsable")
            warnings.append(ReadingWarning("not-an-object", f"array element is {type(value).__name__}, not an object; "
                                     "skipped", source, line))
        elif too_deep(raw, value):
            _count(counters, "unparsable")
            warnings.append(ReadingWarning(
                "too-deep", f"record nests values more than {MAX_DEPTH} levels deep; skipped", source, line))
        else:
            rtype = value.get("type") if isinstance(value.get("type"), str) else None
            yield Record(Evidence.make(source, line, byte_pos, raw, sha256(raw), rtype), _scrub(value))
        line += text.count("\n", skip, end)
        byte_pos += len(raw)
        pos = end
    if opened != -1:
        warnings.append(ReadingWarning("truncated", "the file ends inside the array (still being written?)",
                                       source, line + text.count("\n", pos, n)))


def omitted_mark(kind: str, media: object) -> str:
    """What stands where a reader does not copy a block (an image, a file's bytes): its kind and
    the media type the log names (`[image omitted by forsy: image/png]`); readers of a person's
    turn of attachments alone state each one so, never with a caption of their own."""
    return f"[{kind} omitted by forsy: {media if isinstance(media, str) and media else 'unknown type'}]"
