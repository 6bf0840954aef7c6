"""The dataset folder a build writes, and what makes a second run incremental.

    DIR/data/<agent>/<month>/part-<sha256>.parquet   the rows (one per session)
    DIR/README.md                                    the dataset card (counts, redactions, failures)
    DIR/forsy-dataset.json                           the state: every source seen, its digest, its part

Partition folders are plain names, not `agent=…`: the columns are in the files, and readers
that infer hive partitions would otherwise meet each column twice. A part's name is the hash
of its bytes, so the same rows make the same files whatever the engine.

The state is what a second run reads: a source whose digest is unchanged is not retraced;
one that changed (a session that grew) is retraced and its old row taken out of the part
that held it. forsy only rewrites or removes parts its state lists with the hash it wrote;
a folder holding anything else is refused, never cleaned.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from .._atomic import replace_file
from ..errors import InputError
from ._row import COLUMNS, UNKNOWN, Row
from ._units import Unit, source_id

STATE = "forsy-dataset.json"
CARD = "README.md"
DATA = "data"
GENERATOR = f"forsy {__version__}"
FLUSH_ROWS = 256  # rows buffered per partition before a row group is written
FLUSH_BYTES = 16 * 1024 * 1024  # text buffered over all partitions before the largest is written


def schema() -> Any:
    import pyarrow as pa

    ints = {"steps", "turns", "confidence", "redactions"}
    return pa.schema([(c, pa.int64() if c in ints else pa.string()) for c in COLUMNS])


@dataclass
class State:
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)  # source_id → what became of it
    parts: dict[str, str] = field(default_factory=dict)  # part path under DIR → sha256 of its bytes

    @classmethod
    def load(cls, out: Path) -> State:
        path = out / STATE
        if not path.exists():
            if out.exists() and any(out.iterdir()):
                raise InputError("the output folder holds files forsy did not write (no forsy-dataset.json): "
                                 "name an empty or new folder", path=out)
            return cls()
        doc = orjson.loads(path.read_bytes())
        if not isinstance(doc, dict) or not str(doc.get("generator", "")).startswith("forsy"):
            raise InputError("forsy-dataset.json here was not written by forsy", path=path)
        state = cls(doc.get("sources", {}), doc.get("parts", {}))
        for part, sha in state.parts.items():
            if _sha(out / part) != sha:
                raise InputError("a part forsy wrote was changed or removed since; refusing to add to it",
                                 path=out / part)
        return state

    def save(self, out: Path) -> None:
        doc = {"generator": GENERATOR, "sources": dict(sorted(self.sources.items())),
               "parts": dict(sorted(self.parts.items()))}
        replace_file(out / STATE, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")

    def trace_ids(self) -> dict[str, str]:
        return {t: sid for sid, s in self.sources.items() for t in s.get("trace_ids", [])}


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class _Partition:
    def __init__(self, out: Path, agent: str, month: str, n: int) -> None:
        import pyarrow.parquet as pq

        self.dir = out / DATA / _safe(agent) / _safe(month)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.tmp = self.dir / f".part-{os.getpid()}-{n}.parquet.tmp"  # hidden: readers skip it
        self.writer = pq.ParquetWriter(self.tmp, schema())
        self.rows: list[Row] = []
        self.size = 0

    def flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=schema()))
        self.rows, self.size = [], 0

    def close(self, out: Path) -> tuple[str, str]:
        self.flush()
        self.writer.close()
        sha = hashlib.sha256(self.tmp.read_bytes()).hexdigest()
        final = self.dir / f"part-{sha[:16]}.parquet"
        os.replace(self.tmp, final)
        return final.relative_to(out).as_posix(), sha


def _safe(name: str) -> str:
    """A partition folder name: the agent or month as given, anything odd replaced."""
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".")
    return cleaned or UNKNOWN


class Writer:
    """Rows in, partitions out; memory bounded by FLUSH_BYTES plus the largest row."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.parts: dict[tuple[str, str], _Partition] = {}
        self.buffered = 0
        self.where: dict[str, str] = {}  # source_id → partition key (its part is named on close)

    def add(self, row: Row) -> None:
        key = (str(row["agent"] or UNKNOWN), str(row["month"] or UNKNOWN))
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = _Partition(self.out, *key, len(self.parts))
        part.rows.append(row)
        size = sum(len(v) for v in row.values() if isinstance(v, str))
        part.size += size
        self.buffered += size
        self.where[row["source_id"]] = f"{key[0]}\x00{key[1]}"
        if len(part.rows) >= FLUSH_ROWS:
            self.buffered -= part.size
            part.flush()
        while self.buffered > FLUSH_BYTES:
            big = max(self.parts.values(), key=lambda p: p.size)
            self.buffered -= big.size
            big.flush()

    def close(self) -> dict[str, tuple[str, str]]:
        """Partition key → (part path under DIR, sha256)."""
        return {f"{a}\x00{m}": p.close(self.out) for (a, m), p in sorted(self.parts.items())}

    def abort(self) -> None:
        for p in self.parts.values():
            p.writer.close()
            p.tmp.unlink(missing_ok=True)


def remove_rows(out: Path, state: State, gone: set[str]) -> None:
    """Take the rows of sources in `gone` (replaced by new rows) out of the parts that hold them."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    parts = sorted({state.sources[s]["part"] for s in gone if state.sources.get(s, {}).get("part")})
    for part in parts:
        path = out / part
        table = pq.read_table(path, schema=schema())
        keep = table.filter(pc.invert(pc.is_in(table.column("source_id"), value_set=_strings(gone))))
        del state.parts[part]
        if keep.num_rows == 0:
            path.unlink()
            continue
        tmp = path.with_name(f".{path.name}.tmp")
        pq.write_table(keep, tmp)
        sha = hashlib.sha256(tmp.read_bytes()).hexdigest()
        final = path.with_name(f"part-{sha[:16]}.parquet")
        os.replace(tmp, final)
        if final != path:
            path.unlink(missing_ok=True)
        state.parts[final.relative_to(out).as_posix()] = sha
        for s in state.sources.values():
            if s.get("part") == part:
                s["part"] = final.relative_to(out).as_posix()


def _strings(values: Iterable[str]) -> Any:
    import pyarrow as pa

    return pa.array(sorted(values), pa.string())


def summary(rows: Iterable[Row]) -> dict[str, Any]:
    """What the state keeps of a unit's rows (enough for the card)."""
    out: dict[str, Any] = {"rows": []}
    for r in rows:
        out["rows"].append({"status": r["status"], "agent": r["agent"], "month": r["month"],
                            "redaction_by_kind": orjson.loads(r["redaction_by_kind"] or "{}"),
                            "error": r["error"]})
    return out


def units_todo(units: Iterable[Unit], state: State) -> Iterator[Unit]:
    for u in units:
        known = state.sources.get(source_id(u.key))
        if known is None or known.get("sha256") != u.sha256:
            yield u
