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

from ..errors import ExitCode, InputError
from ..times import aware, parse_iso
from ._output import DebugOpt, JsonOpt, emit_json, friendly, path_arg, plural, safe, set_debug

_LOOK = 200  # records read from each end of a log for its times and directory

# The agent each source's sessions name (`SessionMeta.agent`, set by its reader): the name the
# queue, `forsy review list`, the draft page and trace.json show, and the one `forsy ls` shows,
# so a name seen here is the name to filter the queue by. (The source's own name, `claude_code`,
# is the manifest's `source_kind`; filters take it too.) Roo Code's reader names Kilo Code's
# folders `kilo-code` (`agent_of`); a source not listed here is named by its source.
# tests/test_cli_ls_agents.py reads a log of each source and checks its sessions say the same.
AGENTS: dict[str, str] = {
    "claude_code": "claude-code", "codex": "codex-cli", "shell": "shell", "git": "git", "gemini": "gemini-cli",
    "qwen_code": "qwen-code", "openhands": "openhands", "roo_code": "roo-code", "cline": "cline", "aider": "aider",
    "asciinema": "terminal", "invariant": "invariant", "mini_swe_agent": "mini-swe-agent", "opencode": "opencode",
    "copilot_cli": "copilot-cli", "goose": "goose", "openai_chat": "openai-chat", "atif": "atif",
    "forsy_v1": "forsy-v1",
}  # fmt: skip


@dataclass(frozen=True)
class SessionInfo:
    path: str
    agent: str  # the agent's name as its traces say it (`agent_name`): claude-code, codex-cli, shell
    project: str | None  # the last part of the working directory of the first record naming one
    start: str | None  # the first record time, as written
    end: str | None  # the last record time, as written
    size: int  # bytes
    records: int | None  # records as retrace counts them (None for a compressed or binary file)
    version: str | None = None  # the agent version the first records name (Claude Code, Codex)
    work: bool | None = None  # False: only records retrace takes no work from (it skips the file)
    source_kind: str = ""  # the source that reads it (claude_code, codex): the manifest's source_kind


def agent_name(source: str, path: Path) -> str:
    """The agent a session file's traces name, from the source that reads it (and, for Roo Code's
    reader, the folder it is in): what the queue shows, never the source's own name but for a
    source forsy does not know."""
    if source == "roo_code":
        from ..sources.roo_code.source import agent_of

        return agent_of(path.parent) or AGENTS[source]
    return AGENTS.get(source, source)


def look(source: str, path: Path) -> SessionInfo:
    """What one session file is, from a cheap read of it (never raises for its content)."""
    from ..sources.lines import read_bytes

    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None
    agent = agent_name(source, path)
    if path.suffix == ".zst" or path.name == "history.db":
        return SessionInfo(str(path), agent, None, None, None, size, None, source_kind=source)
    data = read_bytes(path)
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    if source == "shell":
        return SessionInfo(str(path), agent, None, None, None, size, len(lines), source_kind=source)
    doc = _document(lines)
    if doc is not None:  # one JSON document (Gemini's session-*.json, Cline's arrays): its records
        records, head = _doc_records(doc)
        tail = head[-_LOOK:]
        head = head[:_LOOK]
    else:
        records = len(lines)
        head = [_record(ln) for ln in lines[:_LOOK]]
        tail = [_record(ln) for ln in lines[-_LOOK:]]
    times = [t for t in (_time(r) for r in head) if t]
    last = [t for t in (_time(r) for r in tail) if t]
    cwd = next((c for c in (_cwd(r) for r in head) if c), None)
    project = PurePath(cwd.replace("\\", "/")).name if cwd else _project_from_place(source, path)
    version = next((v for v in (_version(r) for r in head) if v), None)
    work = None
    if source == "claude_code" and len(lines) <= 2 * _LOOK:
        # every record seen: a file of metadata only (a teleport stub, titles) is skipped by retrace
        work = any(r.get("type") in ("user", "assistant", "system") for r in head + tail)
    return SessionInfo(str(path), agent, project, times[0] if times else None, last[-1] if last else None,
                       size, records, version, work, source)


def _document(lines: list[bytes]) -> Any:
    """The file as one JSON document when it is one (pretty-printed over several lines), else None."""
    if not lines or not lines[0].lstrip().startswith((b"{", b"[")) or (len(lines) > 1 and _record(lines[0])):
        return None  # not JSON, or JSON Lines (a whole object on its first line)
    try:
        return orjson.loads(b"\n".join(lines))
    except orjson.JSONDecodeError:
        return None


def _doc_records(doc: Any) -> tuple[int, list[dict[str, Any]]]:
    """(records, the records as objects) of a JSON document: an array's items, or the messages
    of a Gemini session object (the document itself is the first, for its times and ids)."""
    if isinstance(doc, list):
        return len(doc), [x for x in doc if isinstance(x, dict)]
    if isinstance(doc, dict):
        items = next((doc[k] for k in ("messages", "history", "items") if isinstance(doc.get(k), list)), None)
        if items is None:
            return 1, [doc]
        return len(items), [doc, *(x for x in items if isinstance(x, dict))]
    return 1, []


def _project_from_place(source: str, path: Path) -> str | None:
    """The project where the log's place names it and no record does: aider writes into the
    repository's root; Gemini CLI keeps chats under `~/.gemini/tmp/<project>/chats/` (a name
    or a hash, as written)."""
    if source == "aider":
        return path.parent.name or None
    if source == "gemini" and path.parent.name == "chats":
        return path.parent.parent.name or None
    return None


def _version(r: dict[str, Any]) -> str | None:
    p = r.get("payload")
    for v in (r.get("version"), p.get("cli_version") if isinstance(p, dict) else None):
        if isinstance(v, str) and v:
            return v
    return None


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
                                                show_default=False, parser=path_arg)],
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """List the sessions forsy would read (agent, project, start, size, records) without retracing them."""
    from ..run import discover

    set_debug(debug)
    unread: list[tuple[Path, str]] = []
    failed: list[InputError] = []  # a path named that gave nothing, a file that may not be read
    found = discover([p.expanduser() for p in paths], unread, failed)
    infos: list[SessionInfo] = []
    for src, p in found:
        try:
            infos.append(look(src.name, p))
        except InputError as e:  # one file that may not be read is named; the others are listed
            failed.append(e)
    for path, why in unread:  # under a folder named: what was not read, and why
        typer.echo(f"forsy: not read: {safe(str(path))}: {safe(why)}", err=True)
    for err in failed:
        typer.echo(f"forsy: failed: {safe(str(err))}", err=True)
    if as_json:
        for i in infos:
            emit_json(asdict(i), indent=False)
        if failed:
            raise typer.Exit(ExitCode.PARTIAL)
        return
    width = max([12, *(len(i.agent) for i in infos)])  # the longest agent listed (mini-swe-agent is 14)
    for i in infos:
        skip = "  (no work: retrace skips it)" if i.work is False else ""
        typer.echo(f"{i.agent:<{width}} {safe(i.project or '-'):<24} {i.start or '-':<26} {i.size:>12,} B "
                   f"{'-' if i.records is None else i.records:>7} rec  {safe(i.path)}{skip}")
    left = f"; {len(failed)} could not be read" if failed else ""
    left += f"; {len(unread)} not read (above)" if unread else ""
    typer.echo(f"forsy: {plural(len(infos), 'session')}, {sum(i.size for i in infos):,} bytes{left}", err=True)
    if failed:
        raise typer.Exit(ExitCode.PARTIAL)
