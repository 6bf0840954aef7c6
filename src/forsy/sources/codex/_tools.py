"""Tool calls and their results in a Codex rollout, linked by `call_id`.

Calls: `function_call` (arguments are a JSON string, parsed), `custom_tool_call` (raw
`input` text, e.g. apply_patch), `local_shell_call` (`action`), `web_search_call`
(`action`; its result stays on the server, so no result is expected), `tool_search_call`,
`image_generation_call`. Results: `function_call_output`, `custom_tool_call_output`,
`tool_search_output`; later `*_end` events add exit codes and success flags.

When `info.inner_pointer` is set on an event, its ref points at a JSON *string*: parse
that string and follow `inner_pointer` inside it to get the event's text/args.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ...evidence import Event, Ref, Session, pointer
from ...payloads import CallInfo, ResultInfo
from ._activity import item_exit_code, item_success
from ._index import Index
from ._read import Rec, bad_type, typed
from ._text import (
    REJECTIONS,
    Output,
    failed_by_text,
    is_error,
    json_args,
    parse_output,
    stated_exit_code,
    truncated_by_codex,
)

CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "image_generation_call",
    }
)
RESULTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
NO_RESULT_EXPECTED = frozenset({"web_search", "image_generation"})
# unified exec writes the exit code into the answer of whichever call sees the process gone: the
# exec_command itself, or a later write_stdin (process_manager.rs write_stdin: the status it refreshes
# after polling is Exited { exit_code }, which the answer states as `Process exited with code N`)
EXIT_BY_POLL = "R-call/codex-exit-by-poll"

NewEvent = Callable[..., Event]  # (kind, rec, *pointer parts, info=..., **fields) -> Event


@dataclass
class ToolTracker:
    session: Session
    source: str
    index: Index
    new_event: NewEvent  # (kind, rec, *pointer parts, **fields) -> Event
    calls: dict[str, Event] = field(default_factory=dict)
    results: set[str] = field(default_factory=set)
    exec_sessions: dict[int, str] = field(default_factory=dict)  # unified exec id -> call_id
    exec_session_refs: dict[int, list[Ref]] = field(default_factory=dict)  # ... -> the output that stated it
    spawned: dict[str, str] = field(default_factory=dict)  # agent id from spawn_agent output -> call_id
    call_events: list[tuple[Event, CallInfo]] = field(default_factory=list)
    result_events: dict[str, Event] = field(default_factory=dict)  # call_id -> its result

    def _typed(self, rec: Rec, obj: dict[str, Any], key: str, *want: type) -> Any:
        return typed(self.session, self.source, rec.line, obj, key, *want)

    def _str(self, rec: Rec, obj: dict[str, Any], key: str) -> str | None:
        """A string field; an empty one counts as absent."""
        return self._typed(rec, obj, key, str) or None

    # ------------------------------------------------------------------ calls
    def call(self, rec: Rec, group: str | None) -> Event:
        p = rec.payload
        sub = rec.sub
        call_id = self._str(rec, p, "call_id")
        info = CallInfo()
        if sub == "function_call":
            tool, args, ptr = self._function(rec, info)
        elif sub == "custom_tool_call":
            tool, args, ptr = self._str(rec, p, "name"), p.get("input"), "input"
            info.namespace = self._str(rec, p, "namespace")  # models.rs CustomToolCall.namespace (5ef96ab)
        elif sub == "local_shell_call":
            tool, args, ptr = "local_shell", p.get("action"), "action"
            call_id = call_id or self._str(rec, p, "id")
        elif sub == "web_search_call":
            tool, args, ptr = "web_search", p.get("action"), "action"
            call_id = self.index.web_search_ids.get(rec.idx)
            if call_id:
                info.call_id_from = "web_search_end"
        elif sub == "tool_search_call":
            tool, args, ptr = "tool_search", p.get("arguments"), "arguments"
        else:  # image_generation_call
            tool, args, ptr = "image_generation", p.get("revised_prompt"), "revised_prompt"
            call_id = call_id or self._str(rec, p, "id")
        info.status = self._typed(rec, p, "status", str)
        parts = (ptr,) if ptr in p else ()
        ev = self.new_event("tool_call", rec, *parts, call_id=call_id, tool=tool, args=args, group=group, info=info)
        if call_id:
            self.calls.setdefault(call_id, ev)
        sid = args.get("session_id") if tool == "write_stdin" and isinstance(args, dict) else None
        if isinstance(sid, int):
            info.process = str(sid)
        if isinstance(sid, int) and sid in self.exec_sessions:  # it writes to a process a call started
            info.continues, info.continues_refs = self.exec_sessions[sid], self.exec_session_refs[sid]
        self.call_events.append((ev, info))
        return ev

    def _function(self, rec: Rec, info: CallInfo) -> tuple[str | None, Any, str]:
        p = rec.payload
        name = self._str(rec, p, "name")
        raw = p.get("arguments")
        args, ok = json_args(raw)
        if isinstance(raw, str):
            if ok:
                info.inner_pointer = ""
            else:
                info.args_unparsed = True
                q = self.session.quality.extra
                q["unparsable_arguments"] = q.get("unparsable_arguments", 0) + 1
                if q["unparsable_arguments"] == 1:
                    self.session.warn(
                        "unparsable_arguments",
                        f"arguments of {name!r} are not JSON (or nest deeper than forsy reads); kept as the raw string "
                        "(reported once; quality.extra counts them all)",
                        self.source,
                        rec.line,
                    )
        ns = self._str(rec, p, "namespace")
        own_id = _str(p.get("call_id"))
        end = self.index.ends.get(own_id) if own_id else None  # no id: no end event is this call's
        inv = end.payload.get("invocation") if end is not None and end.sub == "mcp_tool_call_end" else None
        if isinstance(inv, dict) and isinstance(inv.get("server"), str) and isinstance(inv.get("tool"), str):
            # Codex names MCP tools `server__tool`; its mcp_tool_call_end says which is which.
            name = f"mcp:{inv['server']}.{inv['tool']}"
        elif ns and ns.startswith("mcp__") and name:
            name = f"mcp:{ns[5:].rstrip('_')}.{name}"
        elif ns:
            info.namespace = ns
        return name, args, "arguments"

    # ---------------------------------------------------------------- results
    def result(self, rec: Rec) -> Event:
        p = rec.payload
        call_id = self._str(rec, p, "call_id")
        info = ResultInfo()
        out, parts = self._output(rec, info)
        stated = out.exit_code  # what the output's own header says, before an end event or failure text
        success = out.success
        end = self.index.ends.get(call_id) if call_id else None
        if end is not None:
            success = self._from_end(end, out, info, success)
        if out.text is not None and out.text.lstrip().startswith(REJECTIONS):
            info.rejected = True  # the person declined the approval Codex asked for
            q = self.session.quality.extra
            q["rejected_calls"] = q.get("rejected_calls", 0) + 1
        if out.exit_code is None and success is None and failed_by_text(out.text):
            # no flag, no exit header: the failure is read from Codex's own words (and the code they state)
            info.failure_rule = "R-call/codex-failure-text"
            out.exit_code = stated_exit_code(out.text)
        info.exit_code, info.duration_s, info.inner_pointer = out.exit_code, out.duration_s, out.inner
        info.truncated_by_codex = truncated_by_codex(out.text)
        ev = self.new_event(
            "tool_result", rec, *parts, call_id=call_id, text=out.text,
            is_error=is_error(out.exit_code, success, out.text), info=info,
        )  # fmt: skip
        if info.truncated_by_codex:
            self.session.quality.truncated_outputs += 1
        if call_id:
            self.results.add(call_id)
            self.result_events.setdefault(call_id, ev)
            self._link(call_id, out, info)
            if info.exec_call_id is not None and stated is not None:
                self._exit_by_poll(info.exec_call_id, stated, ev)
            if out.exec_session is not None and self.exec_sessions.get(out.exec_session) == call_id:
                self.exec_session_refs[out.exec_session] = list(ev.refs)  # the output that states the id
            info.orphan = call_id not in self.calls
        return ev

    def _output(self, rec: Rec, info: ResultInfo) -> tuple[Output, tuple[str | int, ...]]:
        p = rec.payload
        if rec.sub == "tool_search_output":
            info.tools = p.get("tools")
            return Output(None), ("tools",) if "tools" in p else ()
        o = p.get("output")
        if isinstance(o, str):
            out = parse_output(o)
            if out.extra:
                info.raw = o
            return out, ("output",)
        if isinstance(o, dict):
            # The early object form {content, success}.
            text = self._typed(rec, o, "content", str)
            out = parse_output(text) if text is not None else Output(None)
            out.success = self._typed(rec, o, "success", bool)
            return out, ("output", "content") if text is not None else ("output",)
        if isinstance(o, list):
            return self._items(rec, o, info)
        if o is not None:
            bad_type(self.session, self.source, rec.line, "output", o, (str, dict, list))
        return Output(None), ()

    def _items(self, rec: Rec, items: list[Any], info: ResultInfo) -> tuple[Output, tuple[str | int, ...]]:
        texts: list[tuple[int, str]] = []
        for k, b in enumerate(items):
            if not isinstance(b, dict):
                bad_type(self.session, self.source, rec.line, k, b, (dict,))
            elif (t := self._typed(rec, b, "text", str)) is not None:
                texts.append((k, t))
        info.images = sum(1 for b in items if isinstance(b, dict) and b.get("type") == "input_image")
        if len(texts) == 1:
            k, t = texts[0]
            return parse_output(t), ("output", k, "text")
        if texts:
            # Several text parts: joined with "\n"; `parts` holds each part's pointer.
            info.joined = "\n"
            info.parts = [pointer("output", k, "text") for k, _ in texts]
            return Output("\n".join(t for _, t in texts)), ("output",)
        return Output(None), ("output",)

    def _from_end(self, end: Rec, out: Output, info: ResultInfo, success: bool | None) -> bool | None:
        p = end.payload

        def ref(key: str) -> Ref:
            return Ref(end.ev, pointer("payload", key))

        if end.sub == "exec_command_end":
            code = self._typed(end, p, "exit_code", int)
            if out.exit_code is None and code is not None:
                # Unified exec answers "Process running…" first; the exit comes later here.
                out.exit_code = code
                info.exit_code_from = ref("exit_code")
            dur = self._typed(end, p, "duration", dict)
            if out.duration_s is None and dur is not None:
                secs, nanos = self._typed(end, dur, "secs", int), self._typed(end, dur, "nanos", int)
                if secs is not None and nanos is not None:
                    out.duration_s = secs + nanos / 1e9
                    info.duration_from = ref("duration")
        elif end.sub == "patch_apply_end" and (ok := self._typed(end, p, "success", bool)) is not None:
            success = ok if success is None else success
            info.success_from = ref("success")
        elif end.sub == "item_completed" and isinstance(item := p.get("item"), dict):
            success = self._from_item(end, item, out, info, success)
        elif end.sub == "mcp_tool_call_end":
            res = self._typed(end, p, "result", dict)
            if res is not None and "Err" in res:
                success = False
            elif res is not None and (ok_part := self._typed(end, res, "Ok", dict)) is not None:
                err = ok_part.get("isError", ok_part.get("is_error"))
                success = not err if isinstance(err, bool) else success
            info.success_from = ref("result")
        return success

    def _from_item(self, end: Rec, item: dict[str, Any], out: Output, info: ResultInfo,
                   success: bool | None) -> bool | None:
        """A paginated thread's completed call item (CommandExecution, FileChange, McpToolCall,
        DynamicToolCall): its status says the outcome, a command's item its exit code too."""
        code, code_key = item_exit_code(item)
        if out.exit_code is None and code is not None and code_key is not None:
            out.exit_code = code
            info.exit_code_from = Ref(end.ev, pointer("payload", "item", code_key))
        ok, ok_key = item_success(item)
        if ok is not None and ok_key is not None and success is None:
            success = ok
            info.success_from = Ref(end.ev, pointer("payload", "item", ok_key))
        return success

    def _link(self, call_id: str, out: Output, info: ResultInfo) -> None:
        call = self.calls.get(call_id)
        if out.exec_session is not None:
            info.exec_session_id = out.exec_session
            if call is not None and call.tool != "write_stdin":
                self.exec_sessions[out.exec_session] = call_id
        if call is None:
            return
        if call.tool == "write_stdin" and isinstance(call.args, dict):
            sid = call.args.get("session_id")
            if isinstance(sid, int) and sid in self.exec_sessions:
                # A poll of a unified exec process: name the call that started it.
                info.exec_call_id = self.exec_sessions[sid]
        if call.tool == "spawn_agent" and isinstance(out.text, str) and out.text.startswith("{"):
            try:
                obj = orjson.loads(out.text)
            except orjson.JSONDecodeError:
                return
            if isinstance(obj, dict) and isinstance(obj.get("agent_id"), str):
                self.spawned[obj["agent_id"]] = call_id

    def _exit_by_poll(self, started_by: str, code: int, poll: Event) -> None:
        """A poll states the exit code of the process a call started: that call's outcome, when
        nothing of its own (its output, its exec_command_end) stated one."""
        started = self.result_events.get(started_by)
        sinfo = started.info if started is not None and isinstance(started.info, ResultInfo) else None
        if started is None or sinfo is None or sinfo.exit_code is not None or started.is_error is not None \
                or sinfo.rejected:
            return
        sinfo.exit_code, sinfo.failure_rule, sinfo.outcome_refs = code, EXIT_BY_POLL, list(poll.refs)
        started.is_error = code != 0

    def finish(self) -> None:
        """Calls without a result are kept; they are counted and flagged."""
        for ev, info in self.call_events:
            if ev.tool in NO_RESULT_EXPECTED:
                info.result_in_log = False
                continue
            if ev.call_id is None or ev.call_id not in self.results:
                info.no_result = True
                self.session.quality.missing_results += 1


def _str(v: object) -> str | None:
    return v if isinstance(v, str) and v else None
