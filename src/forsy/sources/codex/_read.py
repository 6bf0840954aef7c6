"""Codex rollouts, line by line: bytes → evidence → classified records.

Each line is parsed once. A line that is not JSON is counted and reported, never fatal;
a `.jsonl.zst` file is decompressed first (evidence offsets then refer to the
decompressed stream, which `SourceFile.sha256` does not cover: it is the file on disk).
Decompression stops with an InputError once the stream expands past the size or ratio
caps of `lines.Limits` (a "zstd bomb" is refused, never held whole in memory).

A record nested deeper than MAX_DEPTH is skipped with a warning (Codex writes about 10
levels; a thousand would break every recursive step after reading). Every field the
reader uses is read through `typed`: a value of another type than Codex writes is a
warning naming file and line, and the field is treated as absent.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import zstandard

from ...errors import InputError
from ...evidence import Evidence, Session, SourceFile
from .._records import MAX_DEPTH, too_deep
from ..lines import ENV_DECOMPRESSED, ENV_RATIO, RATIO_FLOOR, Limits, iter_lines, read_bytes, sha256

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MAX_TYPE_WARNINGS = 20  # per file; quality.extra["bad_field_types"] counts them all


@dataclass(slots=True)
class Rec:
    """One parsed record of a rollout."""

    idx: int  # position among the records of its file
    line: int
    ev: str  # evidence id
    kind: str  # envelope type, "state", "bare_header", or "unknown"
    sub: str | None  # payload["type"] when it is a string
    ts: str | None  # envelope timestamp (bare records have none)
    payload: dict[str, Any]
    base: tuple[str, ...]  # pointer prefix of the payload: ("payload",) or () for bare records
    lossy: bool = False  # bytes were not valid UTF-8 and were decoded with U+FFFD
    # the envelope's `metadata` beside a response item's payload (CodexHarnessMetadata: what the
    # harness records about the item, e.g. an assistant message written again as retained context)
    harness: dict[str, Any] | None = None


@dataclass(slots=True)
class LoadedFile:
    path: Path
    source: str  # evidence source: path relative to the root, or the file name
    recs: list[Rec]
    file: SourceFile
    decompressed: bool


def decompress(data: bytes, session: Session, source: str, path: Path, limits: Limits) -> bytes:
    """All of a zstd stream that can be read; a damaged tail is reported, not fatal: what
    the frames before the damage held is kept, and a stream that ends inside a frame (a
    file cut while copied or written) is said. Past the caps of `limits` it is an
    InputError, raised before more is read."""
    out = io.BytesIO()
    dctx = zstandard.ZstdDecompressor()
    frame = None  # the frame being read, while one is open
    try:
        for at in range(0, len(data), _SLICE):
            rest = data[at : at + _SLICE]
            while rest:
                if frame is None:
                    frame = dctx.decompressobj(read_across_frames=False)
                out.write(frame.decompress(rest))
                _check_expansion(out.tell(), len(data), path, limits)
                rest, frame = (frame.unused_data, None) if frame.eof else (b"", frame)
    except zstandard.ZstdError as e:
        session.warn("zstd_damaged", f"zstd stream could not be read to its end: {e}", source)
    else:
        if frame is not None:
            session.warn("zstd_damaged", "zstd stream ends inside a frame (cut short?); what it held before "
                         "the cut is read", source)  # fmt: skip
    return out.getvalue()


# compressed bytes read per step: at most 32 MiB come out of them (a 4-byte RLE block is 128 KiB)
_SLICE = 1 << 10


def _check_expansion(size: int, packed: int, path: Path, limits: Limits) -> None:
    if size > limits.max_decompressed_bytes:
        raise InputError(
            f"zstd stream expands past {limits.max_decompressed_bytes} bytes ({ENV_DECOMPRESSED}); refused",
            path=path,
        )
    if size > RATIO_FLOOR and size > packed * limits.max_ratio:
        raise InputError(
            f"zstd stream expands past {limits.max_ratio} times its size ({packed} bytes, {size} "
            f"read so far): a zstd bomb? refused ({ENV_RATIO} raises the limit)",
            path=path,
        )


def head_text(path: Path, head: bytes) -> bytes:
    """The first bytes of a file as text, decompressing a zstd head when needed."""
    if not head.startswith(ZSTD_MAGIC):
        return head
    out = io.BytesIO()
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(head))
    try:
        while (chunk := reader.read(65536)) and out.tell() < (1 << 20):
            out.write(chunk)
    except zstandard.ZstdError:
        pass  # a head cut inside a frame: keep what was decoded
    return out.getvalue()


BOM = b"\xef\xbb\xbf"


def load_file(path: Path, source: str, session: Session, limits: Limits) -> LoadedFile:
    data = read_bytes(path, limits)
    digest = sha256(data)
    packed = data.startswith(ZSTD_MAGIC)
    text = decompress(data, session, source, path, limits) if packed else data
    sf = SourceFile(source, str(path.resolve()), "codex", len(data), digest)
    recs: list[Rec] = []
    for rl in iter_lines(text):
        session.quality.records += 1
        if rl.offset == 0 and rl.raw.startswith(BOM):  # a Windows editor's save: the record starts after it
            rl.raw, rl.offset = rl.raw[len(BOM):], len(BOM)
            session.warn("bom", "the file starts with a UTF-8 byte order mark (not JSON); read from the byte "
                         "after it", source, rl.line)
        raw_digest = sha256(rl.raw)
        obj, lossy = _parse(rl.raw)
        deep = too_deep(rl.raw, obj)
        rec = _classify(obj, len(recs), rl.line) if isinstance(obj, dict) and not deep else None
        rtype = _record_type(rec) if rec is not None else None
        ev = session.add_evidence(Evidence.make(source, rl.line, rl.offset, rl.raw, raw_digest, rtype))
        if not rl.complete:
            what = "and could not be parsed" if obj is None else "but parsed"
            session.warn("truncated_last_line", f"last line has no newline {what}", source, rl.line)
        if obj is None:
            session.quality.unparsable_records += 1
            # `null` parses, to the value _parse also gives for a line that does not
            why = "line is JSON null, not a record" if rl.raw.strip() == b"null" else "line is not JSON"
            session.warn("unparsable", f"{why}; skipped", source, rl.line)
            continue
        if deep:
            session.quality.unparsable_records += 1
            session.warn("too_deep", f"JSON nested deeper than {MAX_DEPTH} levels; skipped", source, rl.line)
            continue
        if rec is None:
            session.quality.unknown_records += 1
            session.warn("unknown_record", "JSON value is not a rollout record; skipped", source, rl.line)
            continue
        if lossy:
            session.quality.extra["invalid_utf8_records"] = session.quality.extra.get("invalid_utf8_records", 0) + 1
            session.warn("invalid_utf8", "invalid UTF-8 replaced by U+FFFD to read the line", source, rl.line)
        rec.ev = ev
        rec.lossy = lossy
        recs.append(rec)
        if (when := obj.get("timestamp")) is not None and not isinstance(when, str):
            bad_type(session, source, rl.line, "timestamp", when, (str,))
    return LoadedFile(path, source, recs, sf, packed)



_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a list",
               dict: "an object"}  # fmt: skip


def _type_name(v: Any) -> str:
    return "null" if v is None else _TYPE_NAMES.get(type(v), type(v).__name__)


def typed(session: Session, source: str, line: int, obj: dict[str, Any], key: str, *want: type) -> Any:
    """obj[key] when it is of a type in `want`; None when absent or null (Codex writes null
    for optional fields); otherwise None and a warning naming the line (a bool is not an
    integer here)."""
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, want) and not (isinstance(v, bool) and bool not in want):
        return v
    bad_type(session, source, line, key, v, want)
    return None


def bad_type(session: Session, source: str, line: int, key: str | int, v: Any, want: tuple[type, ...]) -> None:
    q = session.quality.extra
    q["bad_field_types"] = n = q.get("bad_field_types", 0) + 1
    if n <= MAX_TYPE_WARNINGS:
        wanted = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in want)
        what = f"field {key!r}" if isinstance(key, str) else f"item {key}"
        session.warn("bad_field_type", f"{what} is {_type_name(v)}, not {wanted}; ignored", source, line)
    elif n == MAX_TYPE_WARNINGS + 1:
        session.warn("bad_field_type", "more fields of an unexpected type (quality.extra counts them)", source)


def _parse(raw: bytes) -> tuple[Any, bool]:
    try:
        obj = orjson.loads(raw)
        lossy = False
    except orjson.JSONDecodeError:
        # Codex writes valid UTF-8; invalid bytes mean damage. Read what the line still says.
        try:
            raw.decode("utf-8")
            return None, False
        except UnicodeDecodeError:
            pass
        try:
            obj = orjson.loads(raw.decode("utf-8", "replace"))
        except orjson.JSONDecodeError:
            return None, False
        lossy = True
    return obj, lossy


def _classify(d: dict[str, Any], idx: int, line: int) -> Rec | None:
    t = d.get("type")
    ts = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
    if isinstance(t, str) and "payload" in d:
        p = d["payload"]
        if not isinstance(p, dict):
            return None
        sub = p.get("type") if isinstance(p.get("type"), str) else None
        harness = d.get("metadata") if isinstance(d.get("metadata"), dict) else None
        return Rec(idx, line, "", t, sub, ts, p, ("payload",), harness=harness)
    if "record_type" in d:
        return Rec(idx, line, "", "state", None, None, d, ())
    if t is None and "id" in d and "timestamp" in d:
        # The bare format's first line: {id, timestamp, instructions, git}.
        return Rec(idx, line, "", "bare_header", None, ts, d, ())
    if isinstance(t, str):
        # A bare response item of the early format, without envelope (or, as written then, a time).
        return Rec(idx, line, "", "response_item", t, ts, d, ())
    return None


def _record_type(rec: Rec) -> str:
    return f"{rec.kind}:{rec.sub}" if rec.sub and rec.kind in ("response_item", "event_msg") else rec.kind
