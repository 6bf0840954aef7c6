"""R-cause/exec-session: a call that writes to a process another call started is caused by it.

Codex's unified exec (openai/codex codex-rs/core/src/tools/handlers/unified_exec.rs): an
`exec_command` whose process still runs when it yields says `Process running with session ID N`
in its output; a later `write_stdin` {`session_id`: N, `chars`} (empty chars: a poll) writes to
that process and reads what it printed since, up to `Process exited with code N`. The source
names the call that started the session (`CallInfo.continues`, with the output that stated the
id); the step is caused by that call's step, not by whatever results came just before it. What process a
call writes to also keeps R-retry from pairing two polls of different processes, whose inputs
differ only in the id.
"""

from __future__ import annotations

from ..evidence import Event
from ..payloads import CallInfo
from .draft import Draft, derived

RULE = "R-cause/exec-session"


def writes_to(e: Event) -> tuple[str | None, str | None] | None:
    """The process a call writes to: the call that started it and its id as the log names it
    (Codex reuses a process id once its process is gone, so the id alone is not the process)."""
    info = e.info if isinstance(e.info, CallInfo) else None
    if info is None or (info.continues is None and info.process is None):
        return None
    return info.continues, info.process


def other_process(a: Draft, b: Draft) -> bool:
    """Whether two calls write to different processes (or one writes to a process and the other
    does not): a poll of one process repeats no call made to another, however alike their inputs."""
    return (a.writes_to is not None or b.writes_to is not None) and a.writes_to != b.writes_to


def continues_cause(d: Draft, e: Event, calls: dict[str, int], me: int, drafts: list[Draft]) -> bool:
    """Set the causal link of a call that continues another call's process; False when it
    does not (or the call it continues is not an earlier step)."""
    info = e.info if isinstance(e.info, CallInfo) else None
    idx = calls.get(info.continues) if info is not None and info.continues else None
    if info is None or idx is None or idx >= me:
        return False
    refs = [*e.refs, *info.continues_refs]  # the call's session_id, and the output that stated it
    tool = drafts[idx].values.get("tool")
    d.set("caused_by", [idx + 1], derived(RULE, refs))
    d.set("causal_type", "dependency_on_tool_result", derived(RULE, refs))
    d.set("causal_note", f"Writes to the process the {tool} call in step {idx + 1} started (it was still "
          "running).", derived(RULE, refs))
    return True
