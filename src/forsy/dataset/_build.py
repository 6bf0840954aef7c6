"""`build`: sources in, the dataset folder out (units → engine → writer → state and card)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from .._atomic import replace_file
from ..errors import ForsyError, InputError
from ._engines import CRASHED, run_local, run_ray
from ._row import UNKNOWN, Row, _empty
from ._units import Unit, Unread, _digest, find, source_id
from ._write import CARD, DATA, GENERATOR, State, Writer, remove_rows, summary, units_todo

Engine = Literal["local", "ray"]
MARK = "`forsy dataset build`"  # in every card forsy writes: a README.md without it is not replaced


@dataclass
class BuildResult:
    out: Path
    found: int  # sessions and unread files found under the sources
    retraced: int  # units retraced by this run
    rows: int  # rows written by this run
    replaced: int  # sources whose earlier row this run replaced (they changed)
    duplicates: int  # units whose trace was already in the dataset
    failed: int  # failed rows written by this run
    # (where, why) of each: the rows keep only a hash of the place, so this is where it is named
    failures: list[tuple[str, str]] = field(default_factory=list)


def _unread_rows(unread: Sequence[Unread]) -> list[tuple[Unit, list[Row]]]:
    out = []
    for u in unread:
        try:
            data = Path(u.path).read_bytes()
        except OSError as e:
            data = str(e).encode()
        unit = Unit(u.key, "file", u.path, name=Path(u.path).name, sha256=_digest([(Path(u.path).name, data)]))
        row = _empty("failed", u.why, UNKNOWN)
        row["source_id"], row["source_sha256"] = source_id(u.key), unit.sha256
        out.append((unit, [row]))
    return out


def _check_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ForsyError("forsy dataset writes Parquet with pyarrow: pip install 'forsy[dataset]'") from None


def build(sources: Sequence[str | Path], out: str | Path, *, engine: Engine = "local", num_cpus: int | None = None,
          address: str | None = None, redact: bool = True) -> BuildResult:
    """Retrace every session under `sources` not already in the dataset at `out` (or changed
    since), and write their rows, the state and the card."""
    _check_pyarrow()
    out = Path(out).expanduser()
    state = State.load(out)
    units, unread = find([Path(s) for s in sources], skip=out)
    if not units and not unread:
        raise InputError("no session logs or dataset rows were found", path=str(sources[0]) if sources else None)
    out.mkdir(parents=True, exist_ok=True)
    known_sha = {s.get("sha256"): sid for sid, s in state.sources.items() if not s.get("duplicate_of")}
    todo: list[Unit] = []
    dup_units: list[tuple[Unit, str]] = []
    for u in units_todo(units, state):
        first = known_sha.get(u.sha256)
        if first is not None and first != source_id(u.key):  # the same bytes elsewhere: one row
            dup_units.append((u, first))
            continue
        known_sha[u.sha256] = source_id(u.key)
        todo.append(u)
    unread_todo = [(u, rows) for u, rows in _unread_rows(unread)
                   if state.sources.get(source_id(u.key), {}).get("sha256") != u.sha256]
    cpus = num_cpus or 1
    results: Iterator[tuple[Unit, list[Row]]]
    if engine == "ray":
        results = run_ray(todo, num_cpus, address, redact)
    elif engine == "local":
        results = run_local(todo, cpus, redact)
    else:
        raise InputError(f"unknown engine {engine!r} (local or ray)")
    writer = Writer(out)
    traces = state.trace_ids()
    changed = ({source_id(u.key) for u in todo} | {source_id(u.key) for u, _ in unread_todo}) & set(state.sources)
    result = BuildResult(out, len(units) + len(unread), len(todo), 0, len(changed), len(dup_units), 0)
    new: dict[str, dict[str, Any]] = {}
    try:
        for unit, rows in _chain(results, unread_todo):
            sid = source_id(unit.key)
            kept: list[Row] = []
            for r in rows:
                tid = r["trace_id"]
                if tid is not None and traces.get(tid, sid) != sid:
                    continue  # this trace is already a row (a copy of a session, under another name)
                if tid is not None:
                    traces[tid] = sid
                kept.append(r)
            # a session whose worker died is tried again by the next run (no digest: it looks changed)
            crashed = any(r["error"] == CRASHED for r in kept)
            entry = {"sha256": "" if crashed else unit.sha256,
                     "trace_ids": [r["trace_id"] for r in kept if r["trace_id"]]}
            if not kept:
                entry["duplicate_of"] = next(traces[r["trace_id"]] for r in rows if r["trace_id"])
                result.duplicates += 1
            entry.update(summary(kept))
            new[sid] = entry
            for r in kept:
                writer.add(r)
                result.rows += 1
                if r["status"] == "failed":
                    result.failed += 1
                    result.failures.append((_where(unit), str(r["error"] or "")))
    except BaseException:
        writer.abort()
        raise
    closed = writer.close()
    remove_rows(out, state, changed)
    for sid, entry in new.items():
        where = writer.where.get(sid)
        if where is not None:
            entry["part"], _ = closed[where]
        state.sources[sid] = entry
    for u, first in dup_units:
        state.sources[source_id(u.key)] = {"sha256": u.sha256, "trace_ids": [], "duplicate_of": first, "rows": []}
    for part, sha in closed.values():
        state.parts[part] = sha
    state.save(out)
    write_card(out, state)
    return result


def _where(unit: Unit) -> str:
    if unit.kind == "parquet":
        return f"{unit.path} (row {unit.row})"
    if unit.kind == "jsonl":
        return f"{unit.path} (the line at byte {unit.row})"
    return unit.path


CARD_ERROR = 160  # characters of an error in the card (one line of a list)


def card_error(text: str) -> str:
    """`text`, or its first CARD_ERROR characters cut where a word ends, marked with an ellipsis."""
    if len(text) <= CARD_ERROR:
        return text
    head = text[:CARD_ERROR + 1]
    at = max(head.rfind(" "), head.rfind(","))
    return (text[:at].rstrip(" ,;:") if at > 0 else text[:CARD_ERROR]) + "…"


def _chain(results: Iterator[tuple[Unit, list[Row]]],
           more: list[tuple[Unit, list[Row]]]) -> Iterator[tuple[Unit, list[Row]]]:
    yield from results  # streamed: the rows of one unit at a time
    yield from more


def write_card(out: Path, state: State) -> None:
    """The dataset card (Hugging Face's README.md with its YAML head), from the state alone."""
    card = out / CARD
    if card.exists() and MARK not in card.read_text(errors="replace"):
        raise InputError("README.md here was not written by forsy; not replaced", path=card)
    rows = [r for s in state.sources.values() for r in s.get("rows", [])]
    status = Counter(r["status"] for r in rows)
    agents = Counter(r["agent"] for r in rows)
    months = Counter(r["month"] for r in rows)
    redacted: Counter[str] = Counter()
    for r in rows:
        redacted.update(r["redaction_by_kind"])
    errors = Counter(card_error(r["error"] or "") for r in rows if r["status"] == "failed")
    dups = sum(1 for s in state.sources.values() if s.get("duplicate_of"))
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        '  data_files: "data/**/*.parquet"',
        "tags: [agent-work-trace, retraced, forsy]",
        "---",
        f"# Forsy traces ({GENERATOR})",
        "",
        f"One row per session retraced by {MARK} (docs/dataset.md): the trace, its provenance and",
        "its manifest as JSON columns, partitioned as `data/<agent>/<month>/`. Secrets and personal data were",
        "masked before anything was written (counts below; the values are nowhere in the dataset).",
        "",
        "| | rows |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in sorted(status.items())),
        f"| sources that were copies of another (not written again) | {dups} |",
        "",
        "## Agents",
        "",
        *(f"- {k}: {v}" for k, v in sorted(agents.items())),
        "",
        "## Months",
        "",
        *(f"- {k}: {v}" for k, v in sorted(months.items())),
        "",
        "## Redacted (masked values, by kind)",
        "",
        *([f"- {k}: {v}" for k, v in sorted(redacted.items())] or ["- nothing was masked"]),
        "",
        "## Failed (no trace; the row says why)",
        "",
        *([f"- {v} × {orjson.dumps(k).decode()}" for k, v in sorted(errors.items(), key=lambda kv: (-kv[1], kv[0]))]
          or ["- none"]),
        "",
        f"Read with `pyarrow.parquet.read_table('{DATA}')` or `datasets.load_dataset('<this folder>')`.",
        "",
    ]
    replace_file(card, "\n".join(lines).encode())
