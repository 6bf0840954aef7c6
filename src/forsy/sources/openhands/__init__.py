"""OpenHands trajectories and evaluation outputs → `Session`s.

The software-agent SDK (OpenHands V1) writes events of its own (`kind`, action and
observation objects): they are read by `_v1.py`, wherever they are (an output.jsonl's
`history`, a saved array, or the SDK's one-file-per-event conversation: `_events_dir.py`).
The older event stream is read here. Two shapes hold it:

* a trajectory (`~/.openhands/sessions/<id>/...` exported, or saved with
  `save_trajectory_path`): one JSON array of events. Each event is one `Evidence` (its exact
  bytes inside the file). An event is an action (`action`, `args`, `source`, `id`,
  `timestamp`, `tool_call_metadata`) or an observation (`observation`, `content`, `cause` =
  the id of the action it answers, `extras`);
* an evaluation or resolver `output.jsonl`: one instance per line (`instruction`,
  `history`, `metrics`, ...); each line is one `Evidence` and one session, its events cited
  at `/history/<i>`. Older outputs write events without `id`, `cause`, `source` or
  `timestamp`: an observation then answers the oldest action still waiting whose type it
  names (`run` answers `run`), else the oldest waiting one; the pairing rule is counted in
  `quality.extra["paired_by_order"]`.

What each event gives:

* `message` from the user → `user` (the words from `args.content`); from the agent →
  `agent_text`. `system` → the session's system prompt. `finish` → `agent_text` (its
  `final_thought`, else its `thought`, else `message`). `think` → `reasoning`.
* any other action (run, run_ipython, edit, read, write, browse, ...) → its `thought` as
  `reasoning`, then a `tool_call`: the tool is the action type, the arguments the action's
  exact `args`; the model and token counts come from `tool_call_metadata` / `llm_metrics`.
* its observation → `tool_result` with `content`; an `error` observation, `success: false`
  or a non-zero exit code (`extras.metadata.exit_code`, or `exit_code`) is an error.
* `recall` actions and observations (workspace context OpenHands injects) → `note`s;
  `change_agent_state`, `agent_state_changed` and `null` observations are bookkeeping and
  are counted in `quality.extra["state_events"]`, not made events.

Every event of a trajectory that no step cites is marked in the manifest's ledger with why it
was read: state bookkeeping, `null` placeholders, `recall` context, messages with no words,
observations that answer nothing (`Session.mark`). An output.jsonl line is one record: its
steps cite it.

Not recorded by the format: the working directory (only as `extras.metadata.working_dir`
of shell observations, not per session) and, in older outputs, any time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...evidence import Event, LedgerHeading, Ref, Session, SessionMeta, SourceFile, Warning_, pointer
from .. import ReadContext
from .._lines import discover_sniffed, read_bytes, sha256, source_name
from .._records import Record, iter_json_array, iter_jsonl
from . import _events_dir, _v1

STATE = frozenset({"change_agent_state", "agent_state_changed", "null"})
NOTES = frozenset({"recall"})
ERROR_OBS = frozenset({"error"})
STATE_WHY = "agent state bookkeeping (counted as state_events), not work"
NULL_WHY = "a 'No observation' placeholder (counted as state_events)"
NOTE_WHY = "workspace context OpenHands injects (a note, not a step)"


class OpenHandsSource:
    name: ClassVar[str] = "openhands"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources._walk)
    # under the home folder: the V0 sessions, and the conversations the SDK persists (its examples'
    # ~/.openhands/conversations/<id>/events/)
    default_roots: ClassVar[tuple[str, ...]] = (".openhands/sessions", ".openhands/conversations")

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if h.startswith(b"["):
            # the first event may be a system prompt of tens of KiB: look at the whole head
            first = h[1:].lstrip()
            if first.startswith(b"{") and _v1.SNIFF.search(first[:4096]) and b'"source"' in first:
                return True  # the SDK's events: `kind` names an event class
            return first.startswith(b"{") and (b'"action"' in first or b'"observation"' in first) and (
                b'"args"' in first or b'"extras"' in first) and (b'"source"' in first or b'"cause"' in first
                                                                  or b'"thought"' in first)
        if h.startswith(b"{") and _events_dir.is_event_file(path):
            return b'"kind"' in h[:4096] and b'"source"' in h[:4096]  # one event of a persisted conversation
        if h.startswith(b"{"):
            line = h.split(b"\n", 1)[0]
            return b'"history"' in line[:65536] and b'"instruction"' in line[:65536] or (
                b'"instruction"' in h[:4096] and b'"history": [' in h)
        return False

    def discover(self, path: Path) -> list[Path]:
        # any *.jsonl: benchmark outputs are named output.jsonl, output.critic_attempt_1.jsonl, or renamed
        return _events_dir.first_of_each(discover_sniffed(path, self.sniff, ("*.json", "*.jsonl"), recursive=True))

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if _events_dir.is_event_file(path):
            return [_events_dir.read(path, ctx, _Builder)]
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), self.name, len(data), sha256(data))
        warnings: list[Warning_] = []
        counters: dict[str, int] = {}
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            s = _session(path.stem, file)
            recs = list(iter_json_array(data, name, warnings, counters))
            b = _Builder(s)
            for rec in recs:
                s.add_evidence(rec.ev)
                b.event(rec, rec.data, "")
            b.finish()
            s.quality.records = counters.get("records", 0)
            s.quality.unparsable_records = counters.get("unparsable", 0)
            s.warnings[:0] = warnings
            return [s]
        out = []
        for rec in iter_jsonl(data, name, warnings, counters, lambda d: "history" in d):
            out.append(_instance(rec, file, path))
        if not out:
            out.append(_session(path.stem, file))
        out[0].warnings[:0] = warnings
        out[0].quality.unparsable_records += counters.get("unparsable", 0)
        return out


def _session(sid: str, file: SourceFile) -> Session:
    return Session("openhands", sid, [file], {}, [], SessionMeta(agent="openhands"))


def _instance(rec: Record, file: SourceFile, path: Path) -> Session:
    d = rec.data
    sid = d.get("instance_id")
    issue = d.get("issue")
    if not isinstance(sid, str | int) and isinstance(issue, dict):
        sid = f"{issue.get('owner')}/{issue.get('repo')}#{issue.get('number')}"
    s = _session(str(sid) if isinstance(sid, str | int) else f"{path.stem}:L{rec.ev.line}", file)
    s.add_evidence(rec.ev)
    s.quality.records = 1
    hist = d.get("history")
    b = _Builder(s)
    if not isinstance(hist, list):
        s.warn("no-history", "the instance has no history list", rec.ev.source, rec.ev.line)
        return s
    for i, e in enumerate(hist):
        if isinstance(e, dict):
            b.event(rec, e, pointer("history", i))
        elif isinstance(e, list) and len(e) == 2 and all(isinstance(x, dict) for x in e):
            # the oldest outputs write (action, observation) pairs
            b.event(rec, e[0], pointer("history", i, 0))
            b.event(rec, e[1], pointer("history", i, 1))
        else:
            s.warn("not-an-object", f"history[{i}] is not an event; skipped", rec.ev.source, rec.ev.line)
    b.finish()
    return s


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


class _Builder:
    def __init__(self, s: Session) -> None:
        self.s = s
        self.waiting: list[tuple[str, str]] = []  # (call id, action type), oldest first
        self.by_id: dict[str, str] = {}  # event id -> call id
        self.answered: set[str] = set()
        self.seen_agent = False
        self.finished: set[str] = set()  # SDK finish/think calls: their words are the step, not a call

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
        self.seen_agent = True
        if action == "finish":
            got = self._text(rec, base, e, "args/final_thought", "args/thought", "message", "thought")
            if got:
                self.ev("agent_text", rec, base, got[1], e, text=got[0])
            else:
                self.mark(rec, base, e, "set_aside", "a finish with no words")
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
        self.waiting.append((call_id, action))
        if isinstance(eid, int | str):
            self.by_id[str(eid)] = call_id

    def _observation(self, rec: Record, e: dict[str, Any], base: str) -> None:
        s, obs = self.s, e.get("observation")
        if obs in STATE:
            s.quality.extra["state_events"] = s.quality.extra.get("state_events", 0) + 1
            self.mark(rec, base, e, "set_aside", NULL_WHY if obs == "null" else STATE_WHY)
            return
        if obs in NOTES:
            got = self._text(rec, base, e, "content", "message")
            self.ev("note", rec, base, got[1] if got else "", e, actor="system", text=got[0] if got else None)
            self.mark(rec, base, e, "set_aside", NOTE_WHY)
            return
        cause = e.get("cause")
        call_id = self.by_id.get(str(cause)) if isinstance(cause, int | str) else None
        if call_id is None and cause is None and self.waiting:
            pick = next((w for w in self.waiting if w[1] == obs), self.waiting[0])
            call_id = pick[0]
            s.quality.extra["paired_by_order"] = s.quality.extra.get("paired_by_order", 0) + 1
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
        text = content if isinstance(content, str) else orjson.dumps(content).decode() if content is not None else ""
        extras = e.get("extras")
        meta = extras.get("metadata") if isinstance(extras, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else e.get("exit_code")
        failed = obs in ERROR_OBS or e.get("success") is False or (isinstance(code, int) and code != 0)
        self.ev("tool_result", rec, base, "/content", e, call_id=call_id, text=text, is_error=failed)

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

    def finish(self) -> None:
        for call_id, action in self.waiting:
            self.s.quality.missing_results += 1
            self.s.warn("no-result", f"action {action!r} ({call_id}) has no observation", None, None)
