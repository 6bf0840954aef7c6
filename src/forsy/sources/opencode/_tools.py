"""A tool part (message-v2.ts ToolPart) read into a call and its result.

The writer (session/processor.ts) keeps one file per call, rewritten as the call goes:
`state.status` pending (the input still streaming: `input` {}, `raw` the text so far), running
(`input`, `time.start`), then completed (`output`, `title`, `metadata`, `time.end`) or error
(`error`, `time.end`). A call still pending or running when OpenCode stopped has no result;
one the person stopped is set to error "Tool execution aborted" when the turn ends, with what
it printed until then in `metadata.output` (`metadata.interrupted` true): the model is given
that output, so the result is that output, then the error (failed). A call the person
refused is error "The user rejected permission to use this specific tool call." (with
"with the following feedback: …" when they said why; permission/next.ts RejectedError and
CorrectedError, written through `Error.toString()`, so "Error: " may open it); one a rule
refused, "The user has specified a rule which prevents you from using this specific tool
call…" (DeniedError). The bash tool records the command's exit status in `metadata.exit`
(tool/bash.ts), its status completed whatever that is. The task tool names the subagent
session it ran in `metadata.sessionId` (tool/task.ts), while it runs and when it is done.
"""

from __future__ import annotations

from typing import Any

from ...evidence import Event, Ref, pointer
from ...payloads import CallInfo, ResultInfo
from .._records import Record
from ._emit import Emitter, Time

REJECTED = "The user rejected permission to use this specific tool call"
DENIED = "The user has specified a rule which prevents you from using this specific tool call"
ABORTED = "Tool execution aborted"
SHELL_TOOLS = frozenset({"bash"})
TASK_TOOL = "task"


def _error_text(text: str) -> str:
    """The error as the tool gave it (the writer's `toString()` may open it with "Error: ")."""
    return text.removeprefix("Error: ")


class ToolReader:
    """The tool parts of one session. `spawned`: subagent session id → the task call that ran
    it; `tasks`: the task calls, in order."""

    def __init__(self, b: Emitter) -> None:
        self.b = b
        self.spawned: dict[str, str] = {}
        self.tasks: list[Event] = []

    def part(self, p: Record, group: str, t: Time) -> None:
        b, d = self.b, p.data
        raw_state = d.get("state")
        state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
        name = _text(d.get("tool"))
        call_id = _text(d.get("callID")) or _text(d.get("id")) or p.ev.id
        status = _text(state.get("status"))
        args = state.get("input")
        ptr = "/state/input" if "input" in state else "/state" if isinstance(raw_state, dict) else ""
        if name is None:
            b.s.warn("field-type", "a tool part with no tool name", p.ev.source, None)
        call = b.ev("tool_call", p, ptr, b.first(b.time(p, "state", "time", "start"), t), call_id=call_id, tool=name,
                    args=args, group=group, name_ref=Ref(p.ev.id, "/tool") if name else None,
                    info=CallInfo(status=status, no_result=status not in ("completed", "error")))
        if name == TASK_TOOL:
            self.tasks.append(call)
            child = _get(state, "metadata", "sessionId")
            if isinstance(child, str) and child:
                self.spawned.setdefault(child, call_id)
        end = b.first(b.time(p, "state", "time", "end"), t)
        output, error = state.get("output"), state.get("error")
        if status == "completed" and isinstance(output, str):
            self._completed(p, state, output, call_id, name, end)
        elif status == "error" and isinstance(error, str):
            self._failed(p, state, error, call_id, name, end)
        else:
            b.s.quality.missing_results += 1
            why = f"it was still {status} when the log ends" if status in ("pending", "running") else \
                f"its state is {status!r} with no output" if status else "it has no state"
            b.s.warn("no-result", f"tool call {call_id} ({name}) has no result: {why}", p.ev.source, None)
            if status in ("pending", "running"):
                b.count("interrupted_calls")

    def _completed(self, p: Record, state: dict[str, Any], output: str, call_id: str, name: str | None,
                   t: Time) -> None:
        b = self.b
        info = ResultInfo()
        code = _get(state, "metadata", "exit")
        failed = False
        if name in SHELL_TOOLS and isinstance(code, int) and not isinstance(code, bool):
            info.exit_code, info.exit_code_from = code, Ref(p.ev.id, pointer("state", "metadata", "exit"))
            failed = code != 0  # the command failed though the tool ran (R-call/error-flag: its exit code)
        attachments = state.get("attachments")
        if isinstance(attachments, list):
            info.images = sum(1 for a in attachments if isinstance(a, dict) and str(a.get("mime", "")).startswith(
                "image/"))
        b.ev("tool_result", p, "/state/output", t, call_id=call_id, tool=name, text=output, is_error=failed,
             info=info)

    def _failed(self, p: Record, state: dict[str, Any], error: str, call_id: str, name: str | None,
                t: Time) -> None:
        b = self.b
        info = ResultInfo()
        said = _error_text(error)
        if said.startswith(REJECTED):  # the person refused the call (and may have said why)
            info.rejected = True
            b.count("rejected_calls")
        elif said.startswith(DENIED):
            b.count("denied_calls")
        elif said.startswith(ABORTED):
            b.count("aborted_calls")
        partial = _get(state, "metadata", "output") if _get(state, "metadata", "interrupted") is True else None
        if not isinstance(partial, str) or not partial:
            b.ev("tool_result", p, "/state/error", t, call_id=call_id, tool=name, text=error, is_error=True, info=info)
            return
        # what a stopped call printed before it stopped is what OpenCode gives the model as the
        # call's output (message-v2.ts toModelMessages); the error says why it stopped: both kept
        b.count("interrupted_outputs")
        res = b.ev("tool_result", p, "/state/metadata/output", t, call_id=call_id, tool=name,
                   text=f"{partial}\n{error}", is_error=True, info=info)
        res.refs.append(Ref(p.ev.id, "/state/error"))


def _text(v: Any) -> str | None:
    """A string the writer gave (a name, an id), or None when it is no string or empty."""
    return v if isinstance(v, str) and v else None


def _get(d: Any, *path: str) -> Any:
    for k in path:
        d = d.get(k) if isinstance(d, dict) else None
    return d
