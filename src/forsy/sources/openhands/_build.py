"""The older OpenHands event stream (actions and observations), turned into events: what each
event gives is said in the package's docstring."""

from __future__ import annotations

from typing import Any

import orjson

from ...evidence import Event, Evidence, LedgerHeading, Ref, Session
from ...jsontext import json_text
from ...payloads import MessageInfo, NoteInfo, ResultInfo
from .._records import Record
from . import _v1

STATE = frozenset({"change_agent_state", "agent_state_changed", "null"})
NOTES = frozenset({"recall"})
# actions that are no call and get no observation (openhands/events/action/agent.py): the
# controller's and the person's controls; their observation-side twins are notes too
CONTROL_ACTIONS = frozenset({"condensation_request", "loop_recovery"})
CONTROL_OBS = frozenset({"loop_detection", "condense"})
CONTROL_WHY = "a control of the conversation (condensation request, loop detection and recovery), not a step"
REJECTED_OBS = "user_rejected"  # UserRejectObservation: the person rejected the action (confirmation mode)
# MCPObservation (mcp/utils.py call_tool_mcp): its content is the MCP CallToolResult as JSON text, the
# server's `isError` inside it; a timeout and an McpError are written so too ({"isError": true, "error"})
MCP_OBS = "mcp"
# BrowserOutputObservation (runtime/browser/utils.py browse): `error`, serialised into `extras`, is
# its flag for a failed page load or browser action, which the content only shows in words
BROWSE_OBS = "browse"
ERROR_OBS = frozenset({"error"})
ERROR_STATE = "error"  # AgentState.ERROR: the controller stopped on an error (extras.reason says which)
STILL_RUNNING = -1  # CmdOutputMetadata's exit code of a command still running (no exit status yet)
STATE_WHY = "agent state bookkeeping (counted as state_events), not work"
NULL_WHY = "a 'No observation' placeholder (counted as state_events)"
NOTE_WHY = "workspace context OpenHands injects (a note, not a step)"


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


class Builder:
    def __init__(self, s: Session) -> None:
        self.s = s
        # (call id, action type, the call's record: a call left unanswered is warned at it), oldest first
        self.waiting: list[tuple[str, str, Evidence]] = []
        self.by_id: dict[str, str] = {}  # event id -> call id
        self.answered: set[str] = set()
        self.seen_agent = False
        self.finished: set[str] = set()  # SDK finish/think calls: their words are the step, not a call
        self.tree: list[tuple[Any, Any, Any, str]] = []  # SDK events: (id, parent_id, kind, record id)
        self.messages = 0  # MessageEvents read so far: an ACP call id is reused across them
        self.acp_calls: dict[str, tuple[int, Event]] = {}  # ACP call id → (messages then, its call event)

    def ev(self, kind: Any, rec: Record, base: str, key: str, e: dict[str, Any], **fields: Any) -> Event:
        ts = _s(e.get("timestamp"))
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, base + key)],
                   ts_ref=Ref(rec.ev.id, base + "/timestamp") if ts else None, **fields)
        self.s.events.append(ev)
        return ev

    def mark(self, rec: Record, base: str, e: dict[str, Any], heading: LedgerHeading, why: str) -> None:
        """Say why an event no step cites was read (the manifest's ledger). Only an event that is
        a record of its own (a trajectory's element): an output.jsonl line holds a whole instance."""
        if base:
            return
        if isinstance(e.get("kind"), str):  # an SDK event: its class names it
            self.s.mark(rec.ev.id, heading, why, f"kind:{e['kind']}")
            return
        what = "action" if "action" in e else "observation"
        name = e.get(what)
        self.s.mark(rec.ev.id, heading, why, f"{what}:{name}" if isinstance(name, str) else what)

    def event(self, rec: Record, e: dict[str, Any], base: str) -> None:
        if _v1.is_v1(e):
            if not base:  # an event that is a record of its own (a file, an array's element)
                self.tree.append((e.get("id"), e.get("parent_id"), e.get("kind"), rec.ev.id))
            _v1.event(self, rec, e, base)
        elif not isinstance(e.get("action", e.get("observation", "")), str):
            self.s.quality.unknown_records += 1
            self.s.warn("unknown-record", f"event at {base or '/'} names its action or observation with a "
                        f"{type(e.get('action', e.get('observation'))).__name__}, not text; skipped",
                        rec.ev.source, rec.ev.line)
        elif "action" in e:
            self._action(rec, e, base)
        elif "observation" in e:
            self._observation(rec, e, base)
        else:
            self.s.quality.unknown_records += 1
            self.s.warn("unknown-record", f"event at {base or '/'} is neither an action nor an observation; skipped",
                        rec.ev.source, rec.ev.line)

    def _text(self, rec: Record, base: str, e: dict[str, Any], *keys: str) -> tuple[str, str] | None:
        """The first non-empty text among `keys` ("args/x" or "x") with its pointer."""
        for k in keys:
            obj: Any = e
            for part in k.split("/"):
                obj = obj.get(part) if isinstance(obj, dict) else None
            if isinstance(obj, str) and obj.strip():
                return obj, "/" + k
        return None

    def _action(self, rec: Record, e: dict[str, Any], base: str) -> None:
        s, action = self.s, e.get("action")
        source = _s(e.get("source"))
        self._metrics(e)
        if action in STATE:
            s.quality.extra["state_events"] = s.quality.extra.get("state_events", 0) + 1
            self.mark(rec, base, e, "set_aside", STATE_WHY)
            return
        if action == "message":
            got = self._text(rec, base, e, "args/content", "message", "content")
            user = source == "user" or (source is None and not self.seen_agent)
            if got:
                kind = "user" if user else "agent_text"
                self.ev(kind, rec, base, got[1], e, actor="user" if user else "agent", text=got[0])
            else:
                self.mark(rec, base, e, "set_aside", "a message with no words")
            return
        if action == "system":
            got = self._text(rec, base, e, "args/content", "message")
            if got and s.meta.system_prompt is None:
                s.meta.system_prompt = got[0]
                s.meta.system_prompt_ref = Ref(rec.ev.id, base + got[1])
            else:
                self.mark(rec, base, e, "set_aside", "a system prompt after the first, or one with no words "
                           "(the first is the session's)")
            return
        if action in NOTES:
            got = self._text(rec, base, e, "args/query", "message")
            self.ev("note", rec, base, got[1] if got else "", e, actor="system", text=got[0] if got else None)
            self.mark(rec, base, e, "set_aside", NOTE_WHY)
            return
        if action == "condensation":  # CondensationAction: the condenser forgot events (with a summary)
            got = self._text(rec, base, e, "args/summary")
            self.ev("compaction", rec, base, got[1] if got else "", e, actor="system", text=got[0] if got else None)
            s.quality.compactions += 1
            return
        if action in CONTROL_ACTIONS:
            self.ev("note", rec, base, "", e, actor="user" if source == "user" else "system",
                    info=NoteInfo(subtype=str(action)))
            self.mark(rec, base, e, "set_aside", CONTROL_WHY)
            return
        self.seen_agent = True
        if action in ("finish", "reject"):  # AgentRejectAction: the agent gives the task up, with its reason
            got = self._text(rec, base, e, "args/final_thought", "args/thought", "args/outputs/reason", "message",
                             "thought")
            if got:
                self.ev("agent_text", rec, base, got[1], e, text=got[0])
            else:
                self.mark(rec, base, e, "set_aside", f"a {action} with no words")
            return
        thought = self._text(rec, base, e, "args/thought", "thought")
        if thought:
            self.ev("reasoning", rec, base, thought[1], e, text=thought[0])
        if action == "think":
            if not thought:
                self.mark(rec, base, e, "set_aside", "a think action with no words")
            return
        if not isinstance(action, str):
            s.quality.unknown_records += 1
            s.warn("field-type", f"action at {base or '/'} is not text; skipped", rec.ev.source, rec.ev.line)
            return
        eid = e.get("id")
        tcm = e.get("tool_call_metadata")
        tcid = tcm.get("tool_call_id") if isinstance(tcm, dict) else None
        call_id = str(eid) if isinstance(eid, int | str) else _s(tcid) or f"{rec.ev.id}{base}"
        # the oldest outputs write the arguments beside `action`: the whole event is cited
        args_key = "/args" if "args" in e else ""
        args = e.get("args") if args_key else e
        self.ev("tool_call", rec, base, args_key, e, call_id=call_id, tool=action, args=args,
                 name_ref=Ref(rec.ev.id, base + "/action"))
        self.waiting.append((call_id, action, rec.ev))
        if isinstance(eid, int | str):
            self.by_id[str(eid)] = call_id

    def _observation(self, rec: Record, e: dict[str, Any], base: str) -> None:
        s, obs = self.s, e.get("observation")
        extras = e.get("extras")
        if obs == "agent_state_changed" and isinstance(extras, dict) and extras.get("agent_state") == ERROR_STATE:
            # the agent stopped on an error: an error step, its words the reason the controller gave
            reason = extras.get("reason")
            why = reason if isinstance(reason, str) and reason.strip() else None
            self.ev("agent_text", rec, base, "/extras/reason" if why else "", e, text=why,
                    info=MessageInfo(api_error=True))
            s.quality.extra["agent_errors"] = s.quality.extra.get("agent_errors", 0) + 1
            return
        if obs in STATE:
            s.quality.extra["state_events"] = s.quality.extra.get("state_events", 0) + 1
            self.mark(rec, base, e, "set_aside", NULL_WHY if obs == "null" else STATE_WHY)
            return
        if obs in NOTES or obs in CONTROL_OBS:
            got = self._text(rec, base, e, "content", "message")
            self.ev("note", rec, base, got[1] if got else "", e, actor="system", text=got[0] if got else None,
                    info=NoteInfo(subtype=str(obs)) if obs in CONTROL_OBS else None)
            self.mark(rec, base, e, "set_aside", NOTE_WHY if obs in NOTES else CONTROL_WHY)
            return
        cause = e.get("cause")
        call_id = self.by_id.get(str(cause)) if isinstance(cause, int | str) else None
        if call_id is None and cause is None and self.waiting:
            pick = next((w for w in self.waiting if w[1] == obs), self.waiting[0])
            call_id = pick[0]
            s.quality.extra["paired_by_order"] = s.quality.extra.get("paired_by_order", 0) + 1
        if (call_id is None or call_id in self.answered) and obs in ERROR_OBS:
            # an error that answers no action (the controller's, the runtime's): an error step
            err = self._text(rec, base, e, "content", "message")
            self.ev("agent_text", rec, base, err[1] if err else "", e, text=err[0] if err else None,
                    info=MessageInfo(api_error=True))
            s.quality.extra["agent_errors"] = s.quality.extra.get("agent_errors", 0) + 1
            return
        if call_id is None or call_id in self.answered:
            s.quality.extra["unpaired_observations"] = s.quality.extra.get("unpaired_observations", 0) + 1
            s.warn("unpaired-observation", f"observation {obs!r} at {base or '/'} answers no waiting action "
                   f"(cause {cause!r}); kept out of the trace", rec.ev.source, rec.ev.line)
            self.mark(rec, base, e, "set_aside", "an observation that answers no waiting action (warned: "
                       "unpaired-observation)")
            return
        self.waiting = [w for w in self.waiting if w[0] != call_id]
        self.answered.add(call_id)
        content = e.get("content")
        text = json_text(content) if content is not None else ""  # an integer past 64 bits crashed orjson
        code = _exit_code(e)
        failed: bool | None = obs in ERROR_OBS or e.get("success") is False or (code is not None and code != 0)
        if code == STILL_RUNNING and not (obs in ERROR_OBS or e.get("success") is False):
            failed = None  # no exit status yet: the command ran on (a server, the no-output timeout)
        info = None
        if obs == REJECTED_OBS:  # the person said no to the action: a failed call, their rejection
            failed, info = True, ResultInfo(rejected=True)
            s.quality.extra["rejected_calls"] = s.quality.extra.get("rejected_calls", 0) + 1
        elif obs == MCP_OBS and _mcp_is_error(content):
            failed = True  # the flag is in the content, which the result cites already
        elif obs == BROWSE_OBS and isinstance(extras, dict) and extras.get("error") is True:
            # the flag is beside the content: the outcome cites it, not the page text
            failed, info = True, ResultInfo(outcome_refs=[Ref(rec.ev.id, base + "/extras/error")])
        self.ev("tool_result", rec, base, "/content", e, call_id=call_id, text=text, is_error=failed, info=info)

    def _metrics(self, e: dict[str, Any]) -> None:
        tcm = e.get("tool_call_metadata")
        resp = tcm.get("model_response") if isinstance(tcm, dict) else None
        model = resp.get("model") if isinstance(resp, dict) else None
        if isinstance(model, str) and model and model not in self.s.meta.models:
            self.s.meta.models.append(model)
        llm = e.get("llm_metrics")
        usage = llm.get("accumulated_token_usage") if isinstance(llm, dict) else None
        if isinstance(usage, dict):  # accumulated: the last one holds the session's totals
            for k in ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens"):
                v = usage.get(k)
                if isinstance(v, int) and not isinstance(v, bool):
                    self.s.meta.token_usage[k] = v

    def finish(self, head: _v1.Head | None = None) -> None:
        """`head`: the HEAD base_state.json saved, which ends the active branch (`_v1.off_branch`)."""
        for call_id, action, at in self.waiting:
            self.s.quality.missing_results += 1
            self.s.warn("no-result", f"action {action!r} ({call_id}) has no observation", at.source, at.line)
        off, said = _v1.off_branch(self.tree, head)
        if said is not None and head is not None:
            self.s.warn("state-head", said, head.source, None)
        if off:
            marked = [e for e in self.s.events if e.refs and e.refs[0].ev in off and not e.abandoned]
            for e in marked:
                e.abandoned = True
            self.s.quality.abandoned_events += len(marked)
            # named at the first of them the log holds (a branch may span many event files)
            first = next((self.s.evidence[rid] for *_, rid in self.tree if rid in off and rid in self.s.evidence),
                         None)
            self.s.warn("abandoned-branch", f"{len(off)} events are on branches the conversation left (navigate_to, "
                        "fork): kept, marked abandoned", first.source if first else None,
                        first.line if first else None)


def _mcp_is_error(content: Any) -> bool:
    """An MCP observation's content that parses as a JSON object whose `isError` is true."""
    if not isinstance(content, str):
        return False
    try:
        doc = orjson.loads(content)
    except orjson.JSONDecodeError:
        return False
    return isinstance(doc, dict) and doc.get("isError") is True


def _exit_code(e: dict[str, Any]) -> int | None:
    """A command observation's exit code, where each version wrote it: `extras.metadata.exit_code`
    (CmdOutputMetadata, 0.2x on), `extras.exit_code` (the older CmdOutputObservation field), or
    `exit_code` beside the content (the oldest outputs, flat)."""
    extras = e.get("extras")
    meta = extras.get("metadata") if isinstance(extras, dict) else None
    for where in (meta, extras, e):
        code = where.get("exit_code") if isinstance(where, dict) else None
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None
