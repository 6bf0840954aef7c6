"""One session's bytes in, its dataset rows out: the function an engine maps.

`retrace_bytes` writes the session (and its parts: subagents, tool results) into a private
temporary folder laid out as on disk, runs the same pipeline as `forsy retrace`
(`run.retrace_one`, redaction on unless asked, no sink, traces kept), and turns each
outcome into a row. It reads no global state and writes nothing outside its temporary
folder, so Ray (or a process pool) can call it anywhere; the folder's name never reaches a
row (it is cut out of error messages), so a row depends on the bytes alone.

A row per session the file holds (an evaluation file holds several): `status` is `traced`
(trace, provenance and manifest as JSON), `skipped` (no work in it: `error` says why, no
trace) or `failed` (`error` says why, no trace).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from .. import sources
from ..errors import InputError
from ..run import Outcome, RetraceOptions, retrace_one

Row = dict[str, Any]

# the columns of a row, in order; `source_id` and `source_sha256` are set by the build
COLUMNS = (
    "source_id", "source_sha256", "status", "error", "trace_id", "session_id", "agent", "agent_version",
    "model", "project", "started_at", "ended_at", "month", "steps", "turns", "confidence", "redactions",
    "redaction_by_kind", "trace", "provenance", "manifest",
)
UNKNOWN = "unknown"  # the agent of a file no reader takes, the month of a row without a time


def _safe_part(name: str) -> PurePosixPath:
    """A part's name relative to the session's folder, refused when it would leave it."""
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise InputError(f"a part's name leaves the session's folder: {name!r}")
    return p


def _empty(status: str, error: str, agent: str) -> Row:
    row: Row = dict.fromkeys(COLUMNS)
    row.update(status=status, error=error, agent=agent, month=UNKNOWN, steps=0, turns=0, redactions=0)
    return row


def _project(config: Mapping[str, Any] | None) -> str | None:
    """The project a session worked in: the last part of its working directory (as redacted)."""
    wd = (config or {}).get("working_directory")
    if not isinstance(wd, str) or not wd.strip("/\\"):
        return None
    return wd.replace("\\", "/").rstrip("/").split("/")[-1]


def _row(o: Outcome, agent: str, tmp: str) -> Row:
    if o.status != "traced" or o.assembled is None:
        message = (o.message or o.status).replace(tmp + "/", "").replace(tmp, "")
        return _empty("failed" if o.status == "failed" else "skipped", message, agent)
    a = o.assembled
    t, m = a.trace, a.manifest
    cfg = t.agent_config or {}
    started = t.started_at or None
    by_kind = {str(k): int(v) for k, v in sorted((m.redaction.get("by_kind") or {}).items())}
    row = _empty("traced", "", m.source_kind or agent)
    row.update(
        error=None, trace_id=t.trace_id, session_id=m.session_id, agent_version=cfg.get("agent_version"),
        model=cfg.get("model"), project=_project(cfg), started_at=started, ended_at=t.ended_at or None,
        month=started[:7] if started and len(started) >= 7 else UNKNOWN,
        steps=len(t.steps), turns=t.summary.total_turns if t.summary else 0, confidence=m.agent_confidence,
        redactions=sum(by_kind.values()), redaction_by_kind=orjson.dumps(by_kind).decode(),
        trace=t.__pydantic_serializer__.to_json(t).decode(),
        provenance=a.provenance.__pydantic_serializer__.to_json(a.provenance).decode(),
        manifest=m.model_dump_json(),
    )
    return row


def retrace_bytes(name: str, data: bytes, side_files: Mapping[str, bytes] | None = None, *,
                  redact: bool = True) -> list[Row]:
    """The rows of one session given as bytes: `name` is its file name (readers sniff by it),
    `side_files` its parts by name relative to its folder (`<stem>/subagents/agent-x.jsonl`,
    `<stem>/tool-results/id.txt`, a task folder's other files). Never raises for what is wrong
    with the log: that is a failed row."""
    tmp = tempfile.mkdtemp(prefix="forsy-dataset-")
    try:
        folder = Path(tmp) / "session"
        folder.mkdir()
        try:
            path = folder / _safe_part(PurePosixPath(name).name or "session.jsonl")
            path.write_bytes(data)
            for part, content in sorted((side_files or {}).items()):
                dest = folder / _safe_part(part)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(content)
        except (InputError, OSError) as e:
            return [_empty("failed", str(getattr(e, "message", e)).replace(tmp, ""), UNKNOWN)]
        try:
            agent = sources.detect(path).name
        except InputError:
            agent = UNKNOWN
        outcomes = retrace_one(path, RetraceOptions(redact=redact), sink=None, keep=True)
        return [_row(o, agent, str(folder)) for o in outcomes]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
