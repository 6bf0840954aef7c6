"""asciinema terminal recordings (`.cast`, asciicast v2 and v3) → `Session`s of commands.

One recording is one `Session` (source_kind "asciinema"). A terminal recording holds what was
written to the terminal and (when input was captured) the keys typed, never a structured
call: commands are found from the shell prompt and the line typed after it, by the rule in
`_commands` (docs/sources.md, "asciinema recordings"). Each command gives:

* a `tool_call` of tool `shell_command`, actor `human:terminal` (the recording cannot say who
  typed: a person, or a harness sending keys for an agent), `args` the command's text. It
  cites where the text was read: the input event (`i`) whose data holds it (`CallInfo.span`:
  the slice, rule C-span), else the events of the keys or of the echo (a text rebuilt from
  the echo, line editing applied, is derived by R-shell/decoded, not copied); the header's
  `command` for a one-program recording;
* a `tool_result`: the output shown until the next prompt, as plain text (`_term`: escapes
  removed, carriage-return overwrites applied), citing every output event in between. When
  that text is not a plain copy of the events' data (escapes, overwrites, line ends), it is
  derived by R-output/rendered (`ResultInfo.decoded` says how), not copied: nothing of the
  output is left out, but `forsy verify` cannot compare a rendering byte for byte.

Times: the header's `timestamp` plus each event's offset (v3 intervals summed), ISO 8601 UTC
to the microsecond (R-time); the call is timed by the Enter key, the result by the next prompt.
No header timestamp, no times.

What a recording does not hold: exit codes (a shell does not print them; `success` stays null
and `quality.extra["exit_codes_unrecorded"]` counts the commands, except a one-program
recording's v3 `x` event), the working directory (only what a prompt happens to show), and
who typed. Evidence keeps the exact bytes: every line of the file is one `Evidence`, and every
one that no command cites is marked in the ledger (the header, prompts, echoes, resizes,
markers, input to a running program) or set aside by a named rule (output before the first
prompt, empty lines, v3 comments).

`read_history` gives the same commands as `shell_command` events (the kind shell histories
give), for `forsy retrace LOG --history rec.cast`: the timeline merge matches them to the
agent's calls like a history's commands. Each carries the call id of the `tool_result` after
it, the same output as above: a command merged as a step of its own takes it as its output;
a command the agent ran keeps the agent's result (the recording's output is then a duplicate
in the ledger).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Event, Session, SessionMeta, SourceFile
from ...ids import make_id
from ...payloads import CallInfo, ResultInfo, ShellInfo
from .. import ReadContext
from .._records import warn_problems
from ..lines import discover_sniffed, read_bytes, sha256, source_name
from ._cast import Cast, header_of, parse
from ._commands import Command, Reader

ACTOR = "human:terminal"
TOOL = "shell_command"
DECODED = ("terminal recording: the line typed at the prompt (input events, else the echo after the prompt), "
           "escapes removed, line editing applied")
RENDERED = ("terminal recording: the output events' data as the screen showed it (escape sequences removed, "
            "carriage-return overwrites and backspaces applied, lines ended by a newline)")


class AsciinemaSource:
    name: ClassVar[str] = "asciinema"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)

    def sniff(self, path: Path, head: bytes) -> bool:
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        return first.startswith(b"{") and header_of(first) is not None

    def discover(self, path: Path) -> list[Path]:
        return discover_sniffed(path, self.sniff, ("*.cast",), recursive=True)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        session, cast, commands = _load(path, ctx)
        data = {e.ev.id: e.data for e in cast.events}  # the strings already read, not copies
        for cmd in commands:
            _add_command(session, cast, cmd, data)
        return [session]

    def read_history(self, path: Path, ctx: ReadContext) -> list[Session]:
        """The recording's commands as `shell_command` events, for the timeline merge; each is
        followed by its output, the `tool_result` `read` gives (same call id, text and refs)."""
        session, cast, commands = _load(path, ctx)
        data = {e.ev.id: e.data for e in cast.events}
        for cmd in commands:
            call_id = _call_id(session, cmd)
            info = ShellInfo(shell=_shell(cast), decoded=DECODED)
            session.events.append(Event("shell_command", ACTOR, cast.iso(cmd.start), cmd.refs, text=cmd.text,
                                        call_id=call_id, info=info))
            session.events.append(_result(session, cast, cmd, data, call_id))
        return [session]


def _load(path: Path, ctx: ReadContext) -> tuple[Session, Cast, list[Command]]:
    data = read_bytes(path, ctx.limits)
    src = source_name(path, ctx.root)
    cast = parse(data, src)
    if cast is None:
        raise InputError("not an asciicast v2/v3 recording: the first line is not its header", path=path)
    digest = sha256(data)
    extra: dict[str, object] = {"format": f"asciicast v{cast.version}"}
    for key in ("title", "command"):
        if isinstance(cast.header.get(key), str):
            extra[key] = cast.header[key]
    session = Session("asciinema", make_id("asciinema", path.name, digest),
                      [SourceFile(src, str(path.resolve()), "asciinema", len(data), digest)], {}, [],
                      SessionMeta(agent="terminal", extra=extra))
    reader = Reader(cast)
    commands = reader.run()
    _account(session, cast, reader, src)
    return session, cast, commands


def _shell(cast: Cast) -> str | None:
    env = cast.header.get("env")
    sh = env.get("SHELL") if isinstance(env, dict) else None
    return sh.rsplit("/", 1)[-1] if isinstance(sh, str) and sh else None


def _account(session: Session, cast: Cast, reader: Reader, src: str) -> None:
    """Every line read is evidence, marked unless a command cites it; problems are warnings."""
    q = session.quality
    session.add_evidence(cast.header_ev)
    session.mark(cast.header_ev.id, "metadata", "the recording's header (start time, terminal, environment)")
    for ev in cast.comments:
        session.add_evidence(ev)
        session.mark(ev.id, "set_aside", "comment lines (asciicast v3) are not events")
    for e in cast.events:
        session.add_evidence(e.ev)
        mark = reader.marks.by_id.get(e.ev.id)
        if mark is not None:
            session.mark(e.ev.id, mark[0], mark[1])
        elif e.code not in "oirmx":
            q.unknown_records += 1
            session.warn("unknown-record", f"event code {e.code!r} is not one asciicast defines; kept unread", src,
                         e.ev.line)
    q.records = 1 + len(cast.comments) + len(cast.events)
    warn_problems(session, src, cast.problems, frozenset({"unparsable-line"}))
    for key, n in reader.marks.counts.items():
        q.extra[key] = n
    commands = reader.commands
    q.extra["commands"] = len(commands)
    unrecorded = sum(1 for c in commands if c.exit_code is None)
    if unrecorded:
        q.extra["exit_codes_unrecorded"] = unrecorded
    if not reader.prompts and not commands:
        session.warn("no-prompt", "no shell prompt was recognised and the header names no command: no commands "
                     "found (the output is set aside)", src)
    for c in commands:
        if not c.finished:
            session.warn("unfinished-command", f"the recording ends while {c.text[:60]!r} runs (no prompt after it)",
                         src, _line(session, c))


def _line(session: Session, c: Command) -> int | None:
    ev = session.evidence.get(c.refs[0].ev) if c.refs else None
    return ev.line if ev is not None else None


def _call_id(session: Session, cmd: Command) -> str:
    """The id joining a command to its output: its first ref and its place in the session."""
    return f"{cmd.refs[0].ev}:{len(session.events)}" if cmd.refs else f"cmd{len(session.events)}"


def _add_command(session: Session, cast: Cast, cmd: Command, data: dict[str, str]) -> None:
    call_id = _call_id(session, cmd)
    # a command rebuilt from the echo (highlighting redraws, backspaces) is derived, not copied
    info = CallInfo(span=cmd.span, decoded=DECODED if cmd.rebuilt else None)
    session.events.append(Event("tool_call", ACTOR, cast.iso(cmd.start), cmd.refs, call_id=call_id, tool=TOOL,
                                args=cmd.text, info=info))
    session.events.append(_result(session, cast, cmd, data, call_id))


def _result(session: Session, cast: Cast, cmd: Command, data: dict[str, str], call_id: str) -> Event:
    """The command's output: the text shown until the next prompt, citing its output events."""
    text = cmd.output()
    pieces = [data[r.ev] for r in cmd.out_refs]
    # a plain copy when every event's data is in the text as forsy verify checks it; else a rendering
    plain = all(p in text for p in pieces if p.strip())
    res = ResultInfo(exit_code=cmd.exit_code, exit_code_from=cmd.exit_ref, decoded=None if plain else RENDERED)
    refs = cmd.out_refs or cmd.refs
    end = cast.iso(cmd.end) if cmd.end is not None else None
    if not plain:
        session.quality.extra["rendered_outputs"] = session.quality.extra.get("rendered_outputs", 0) + 1
    return Event("tool_result", ACTOR, end, refs, text=text, call_id=call_id, tool=TOOL,
                 is_error=(cmd.exit_code != 0) if cmd.exit_code is not None else None, info=res)
