"""`forsy ls`: the session files forsy would read, without retracing them.

Cheap reads only: the file's size, its record count (lines) and, for agent logs, the first
and last record times and the working directory of the first record that names one. The
same look decides which sessions a `--since`/`--until` window keeps (`outside`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path, PurePath
from typing import Annotated, Any

import orjson
import typer

from ..errors import InputError
from ..times import aware, parse_iso
from ._output import DebugOpt, JsonOpt, emit_json, friendly, plural, safe, set_debug

_LOOK = 200  # records read from each end of a log for its times and directory


@dataclass(frozen=True)
class SessionInfo:
    path: str
    agent: str  # the source that reads it: claude_code, codex, shell
    project: str | None  # the last part of the working directory of the first record naming one
    start: str | None  # the first record time, as written
    end: str | None  # the last record time, as written
    size: int  # bytes
    records: int | None  # lines (None for a compressed or binary file)


def look(source: str, path: Path) -> SessionInfo:
    """What one session file is, from a cheap read of it (never raises for its content)."""
    from ..sources._lines import read_bytes

    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None
    if path.suffix == ".zst" or path.name == "history.db":
        return SessionInfo(str(path), source, None, None, None, size, None)
    data = read_bytes(path)
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    if source == "shell":
        return SessionInfo(str(path), source, None, None, None, size, len(lines))
    head = [_record(ln) for ln in lines[:_LOOK]]
    tail = [_record(ln) for ln in lines[-_LOOK:]]
    times = [t for t in (_time(r) for r in head) if t]
    last = [t for t in (_time(r) for r in tail) if t]
    cwd = next((c for c in (_cwd(r) for r in head) if c), None)
    project = PurePath(cwd.replace("\\", "/")).name if cwd else None
    return SessionInfo(str(path), source, project, times[0] if times else None, last[-1] if last else None,
                       size, len(lines))


def _record(line: bytes) -> dict[str, Any]:
    try:
        r = orjson.loads(line)
    except orjson.JSONDecodeError:
        return {}
    return r if isinstance(r, dict) else {}


def _time(r: dict[str, Any]) -> str | None:
    p = r.get("payload")
    for t in (r.get("timestamp"), p.get("timestamp") if isinstance(p, dict) else None):
        if isinstance(t, str) and parse_iso(t) is not None:
            return t
    return None


def _cwd(r: dict[str, Any]) -> str | None:
    p = r.get("payload")
    for c in (r.get("cwd"), p.get("cwd") if isinstance(p, dict) else None):
        if isinstance(c, str) and c:
            return c
    return None


def outside(info: SessionInfo, since: datetime | None, until: datetime | None) -> bool:
    """True when the session lies wholly outside the window (a session without times is kept:
    it cannot be placed, so it is not dropped)."""
    start, end = parse_iso(info.start), parse_iso(info.end)
    if start is None or end is None:
        return False
    return (since is not None and aware(end) < since) or (until is not None and aware(start) > until)


@friendly
def ls(
    paths: Annotated[list[Path], typer.Argument(help="Session files, session directories or project directories.",
                                                show_default=False)],
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """List the sessions forsy would read (agent, project, start, size, records) without retracing them."""
    from ..pipeline import discover

    set_debug(debug)
    found = discover([p.expanduser() for p in paths])
    infos = [look(src.name, p) for src, p in found]
    if as_json:
        for i in infos:
            emit_json(asdict(i), indent=False)
        return
    for i in infos:
        typer.echo(f"{i.agent:<12} {safe(i.project or '-'):<24} {i.start or '-':<26} {i.size:>12,} B "
                   f"{'-' if i.records is None else i.records:>7} rec  {safe(i.path)}")
    typer.echo(f"forsy: {plural(len(infos), 'session')}, {sum(i.size for i in infos):,} bytes", err=True)
