"""What a dataset build retraces: one `Unit` per session, found the way `forsy retrace` finds them.

A unit is a small, picklable description (where the bytes are, never the bytes), so the
driver of a run over millions of sessions holds names, not logs, and an engine's worker
loads the one session it retraces (`load`): memory per worker is bounded by the largest
session. Two kinds:

* a session file, found by the same walk as `forsy retrace DIR` (`run.discover`), with
  the files that belong to it: its `<stem>/` folder (Claude Code's `subagents/` and
  `tool-results/`), the older `agent-*.jsonl` beside it that name its session, and, when the
  folder holds this one session only (a Cline task folder, a Gemini chat folder), the other
  files of that folder (metadata the reader may look at). The session and its parts travel
  together, so a subagent is never retraced apart from its session.
* a row of a corpus that is itself a dataset (Parquet, or JSON Lines the walk does not read
  as a log), whose text column holds a raw log; the row's name column, when there is one,
  names it (its file name matters to the readers that sniff by name).

`key` names the unit inside its source (`<root name>/<path under the root>`, or
`<dataset file>#<row>`): the build keeps only its hash in the output, since a folder name can
be a person's name, and uses it to tell a second run what it has already done.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from .. import sources
from ..errors import InputError
from ..run import NOT_READ, discover

# text and name columns of corpus rows, tried in this order (the names public agent-log
# datasets use for a raw log and for the file it came from)
TEXT_COLUMNS = ("log", "raw", "content", "text", "jsonl", "data")
NAME_COLUMNS = ("path", "file", "filename", "file_name", "name", "session_id", "id")
# what a reader may read beside a session in its own folder (Cline's task files, Gemini's logs.json):
# a log's metadata, never a project's binaries
SIDE_SUFFIXES = frozenset({".json", ".jsonl", ".txt", ".md", ".zst"})
SIDE_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Unit:
    key: str
    kind: str  # "file" | "parquet" | "jsonl"
    path: str  # the session file, or the dataset file
    side: tuple[str, ...] = ()  # for "file": its parts, relative to the session file's folder
    row: int = -1  # for a dataset file: the row (Parquet) or the byte offset of the line (JSON Lines)
    column: str = ""
    name: str = ""  # the file name the session is given
    sha256: str = ""  # of the session's bytes and its parts' (names and bytes)

    def to_json(self) -> str:
        return orjson.dumps(self.__dict__).decode()

    @classmethod
    def from_json(cls, text: str) -> Unit:
        d = orjson.loads(text)
        d["side"] = tuple(d["side"])
        return cls(**d)


@dataclass(frozen=True)
class Unread:
    """A file under a named folder that no reader takes and that holds no corpus rows: a
    failure row, so a broken log is in the dataset's count rather than left out silently."""

    key: str
    path: str
    why: str


def source_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _digest(parts: Sequence[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for name, data in parts:
        h.update(orjson.dumps([name, len(data)]))
        h.update(data)
    return h.hexdigest()


def _side_files(session: Path, found: set[Path], alone: bool) -> list[str]:
    folder = session.parent
    side: list[str] = []
    own = folder / session.stem
    if own.is_dir() and not own.is_symlink():
        side += [p.relative_to(folder).as_posix() for p in sorted(own.rglob("*")) if p.is_file()]
    for p in sorted(folder.glob("agent-*.jsonl")):  # Claude Code before 2.1: subagents beside the session
        if p in found or not p.is_file():
            continue
        with p.open("rb") as fh:
            head = fh.read(8192).replace(b": ", b":")
        if f'"sessionId":"{session.stem}"'.encode() in head:
            side.append(p.name)
    if alone:  # the folder is this session's own: its other log-like files are its parts
        for p in sorted(folder.iterdir()):
            if (p != session and p.is_file() and not p.is_symlink() and p.name not in side
                    and p.suffix in SIDE_SUFFIXES and p.stat().st_size <= SIDE_MAX_BYTES
                    and not p.name.startswith(".")):
                side.append(p.name)
    return side


def _file_unit(key: str, session: Path, side: list[str]) -> Unit:
    data = session.read_bytes()
    parts = [(session.name, data)] + [(s, (session.parent / s).read_bytes()) for s in side]
    return Unit(key, "file", str(session), tuple(side), name=session.name, sha256=_digest(parts))


def _columns(names: Sequence[str]) -> tuple[str, str] | None:
    text = next((c for c in TEXT_COLUMNS if c in names), "")
    name = next((c for c in NAME_COLUMNS if c in names), "")
    return (text, name) if text else None


def _row_name(value: object, fallback: str) -> str:
    """A row's name column (a path, a file name or an id): its last part, else `fallback`."""
    name = value.replace("\\", "/").rstrip("/").split("/")[-1] if isinstance(value, str) else ""
    return name if name not in ("", ".", "..") else fallback


def _parquet_units(path: Path, key: str) -> Iterator[Unit]:
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(path)
    except Exception as e:  # pyarrow's own errors (not Parquet, truncated): this file only
        raise InputError(f"not a Parquet file pyarrow reads: {str(e)[:200]}", path=path) from None
    cols = _columns(f.schema_arrow.names)
    if cols is None:
        raise InputError(f"no column holding a log ({', '.join(TEXT_COLUMNS)})", path=path)
    text, name = cols
    n = 0
    for batch in f.iter_batches(batch_size=64, columns=[c for c in (text, name) if c]):
        d = batch.to_pydict()
        for i, value in enumerate(d[text]):
            data = value.encode() if isinstance(value, str) else bytes(value or b"")
            fallback = f"{path.stem}-{n}.jsonl"
            nm = _row_name(d[name][i], fallback) if name else fallback
            yield Unit(f"{key}#{n}", "parquet", str(path), row=n, column=text, name=nm,
                       sha256=_digest([(nm, data)]))
            n += 1


def _jsonl_columns(path: Path) -> tuple[str, str] | None:
    with path.open("rb") as fh:
        first = fh.readline()
    try:
        rec = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(rec, dict):
        return None
    cols = _columns(list(rec))
    # the walk did not read it as a log: a first record whose text column is a string is a corpus row
    return cols if cols is not None and isinstance(rec.get(cols[0]), str) else None


def _jsonl_units(path: Path, key: str, cols: tuple[str, str]) -> Iterator[Unit]:
    text, name = cols
    offset = 0
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            rec = orjson.loads(line)
            value = rec.get(text) if isinstance(rec, dict) else None
            data = value.encode() if isinstance(value, str) else b""
            fallback = f"{path.stem}-{n}.jsonl"
            nm = _row_name(rec.get(name), fallback) if name and isinstance(rec, dict) else fallback
            yield Unit(f"{key}#{n}", "jsonl", str(path), row=start, column=text, name=nm,
                       sha256=_digest([(nm, data)]))
            n += 1


def _key(root: Path, p: Path) -> str:
    base = root.name or root.resolve().name
    if p == root:
        return base
    return f"{base}/{p.relative_to(root).as_posix()}"


def find(roots: Sequence[Path], skip: Path | None = None) -> tuple[list[Unit], list[Unread]]:
    """Every unit under `roots`, sorted by key (so both engines see the same order), and what
    the walk found there but no reader takes; nothing under `skip` (the dataset being written,
    when it lies inside a source: its parts are not a corpus)."""
    below = skip.resolve() if skip is not None else None

    def keep(p: Path) -> bool:
        return below is None or not p.resolve().is_relative_to(below)

    units, unread = _find(roots, keep)
    return [u for u in units if keep(Path(u.path))], [u for u in unread if keep(Path(u.path))]


def _find(roots: Sequence[Path], keep: Callable[[Path], bool]) -> tuple[list[Unit], list[Unread]]:
    units: dict[str, Unit] = {}
    unread: list[Unread] = []
    for root in roots:
        root = root.expanduser()
        if not root.exists():
            raise InputError("no such file or directory", path=root)
        datasets: list[Path] = []
        logs: list[Path] = []
        skipped: list[tuple[Path, str]] = []
        if root.is_dir():
            datasets = sorted(p for p in root.rglob("*.parquet") if p.is_file() and not _hidden(root, p) and keep(p))
            try:
                found = [p for _, p in discover([root], skipped)]
            except InputError:
                if not datasets:  # a folder of dataset files only has no logs for the walk
                    skipped = [(p, NOT_READ) for p in sorted(root.rglob("*.jsonl")) if not _hidden(root, p)]
                found = []
            logs = found
        elif root.suffix == ".parquet":
            datasets = [root]
        else:
            try:
                sources.detect(root)
                logs = [root]
            except InputError as e:
                skipped = [(root, e.message)]
        seen = set(logs)
        per_folder: dict[Path, int] = {}
        for p in logs:
            per_folder[p.parent] = per_folder.get(p.parent, 0) + 1
        top = root if root.is_dir() else root.parent
        for p in logs:
            key = _key(top, p) if root.is_dir() else root.name
            units[key] = _file_unit(key, p, _side_files(p, seen, per_folder[p.parent] == 1))
        for p in datasets:
            key = _key(top, p) if root.is_dir() else root.name
            try:
                units.update((u.key, u) for u in _parquet_units(p, key))
            except InputError as e:  # a Parquet file without a log column, or not Parquet at all
                unread.append(Unread(key, str(p), e.message))
        for p, why in skipped:
            if not p.is_file():
                continue  # a folder not searched: `forsy retrace` says so; it holds no session row
            key = _key(top, p) if root.is_dir() else root.name
            cols = _jsonl_columns(p) if p.suffix == ".jsonl" else None
            if cols is not None:
                units.update((u.key, u) for u in _jsonl_units(p, key, cols))
            else:
                unread.append(Unread(key, str(p), why))
    return [units[k] for k in sorted(units)], sorted(unread, key=lambda u: u.key)


def _hidden(root: Path, p: Path) -> bool:
    return any(part.startswith(".") for part in p.relative_to(root).parts)


def load(unit: Unit) -> tuple[str, bytes, dict[str, bytes]]:
    """The session's file name, bytes and parts (name relative to its folder → bytes): what
    `retrace_bytes` takes. Runs in the worker."""
    path = Path(unit.path)
    if unit.kind == "file":
        return unit.name, path.read_bytes(), {s: (path.parent / s).read_bytes() for s in unit.side}
    if unit.kind == "jsonl":
        with path.open("rb") as fh:
            fh.seek(unit.row)
            rec = orjson.loads(fh.readline())
        value = rec.get(unit.column) if isinstance(rec, dict) else None
        return unit.name, value.encode() if isinstance(value, str) else b"", {}
    import pyarrow.parquet as pq

    f = pq.ParquetFile(path)
    first = 0
    for g in range(f.num_row_groups):  # one row group in memory, not the file
        rows = f.metadata.row_group(g).num_rows
        if unit.row < first + rows:
            value = f.read_row_group(g, columns=[unit.column]).column(0)[unit.row - first].as_py()
            data = value.encode() if isinstance(value, str) else bytes(value or b"")
            return unit.name, data, {}
        first += rows
    raise InputError(f"row {unit.row} is not in the file (it changed since it was listed)", path=path)

