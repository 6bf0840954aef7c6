"""`codex exec --json` saved as it came (CI jobs, benchmark harnesses: `codex exec --json … > run.jsonl`).

Codex's headless mode prints one event a line on stdout. What the writer emits, read from its
code (openai/codex, codex-rs/exec/src): the event types in `exec_events.rs` (c. 1ebb1bc,
08a1f30 and its first version `ConversationEvent`), when each is written in
`event_processor_with_jsonl_output.rs` (c669eb5, from the core's events; 029bf4d, from the
app server's notifications) and, before it, `experimental_event_processor_with_json_output.rs`
(12c4760) and `event_processor_with_json_output.rs` (015ba68):

* `thread.started` {`thread_id`} first, once a process: `codex exec resume <id>` starts a new
  process on the same thread and writes it again with the same id, the id of the thread's
  rollout (its session_meta `id`, the uuid in `rollout-…-<id>.jsonl`), so the trace's session
  id is the thread id. The first version wrote `session.created` {`session_id`}; one stored
  version of the types has an optional `timestamp` (when the session was created), the only time
  any version names: no event carries a time, so the steps have none;
* `turn.started` {} a turn; `turn.completed` {`usage`} or `turn.failed` {`error.message`} its
  end. `usage` is the thread's running total (the core's `total_token_usage`, the app server's
  `usage.total`, restored on resume), never one turn's: the last one stands. An interrupted turn
  ends with neither;
* `item.started` / `item.updated` / `item.completed` {`item`}: an item has an `id` (`item_0`,
  `item_1`… counted again from 0 by every process; `itm_0` in the first version) and its kind
  under `type` (`item_type` in the first versions, when `agent_message` was `assistant_message`
  and a file change could be `patch_apply`). A command is started when it is spawned, updated
  as its output grows, completed when it exits; a to-do list is started by the first plan,
  updated by each new plan and completed, unchanged, when the turn ends; messages, reasoning,
  errors and (in some versions) file changes and web searches are only completed;
* `error` {`message`}: the stream failed (a failed or retried model request; the older writer
  repeats the last one as the turn's `turn.failed`).

Neither the prompt given on the command line nor the model, the cwd or the version is written:
the task comes from T-task/no-user-message, never invented.

What forsy makes of it (one session per thread id in the file, in the order they first come;
another thread's records are set aside in each):

* `agent_message` → the agent's text; `reasoning` → reasoning (a summary);
* `command_execution` → a call of tool `command_execution` whose input is the exact `command`,
  answered by `aggregated_output` with `exit_code`; status `failed` or `declined` (or a non-zero
  exit code) is a failure, `completed` with exit code 0 a success, with none (a command the
  older writer closed at the turn's end) unknown;
* `file_change` → a call of `file_change` with its `changes`; its result is the `status`;
* `mcp_tool_call` → a call of `mcp:<server>.<tool>` with its `arguments`; the result's text
  blocks, else the error's `message` (a failure), else the status;
* `collab_tool_call` → a call of the collab `tool` with its `prompt`; the agents' states its result;
* `web_search` → a search call with its `query` (the result stays on the server);
* `todo_list` → a plan call (tool `todo_list`, input the `items`) for each plan the agent wrote:
  the list as started and as each update changed it; written again unchanged, a duplicate;
* `plan` (plan mode) and `error` items (warnings, deprecation notices, a model reroute: the
  writer's "non-fatal error surfaced as an item") → notes, as the rollout's plans and warnings;
* `error` events → error steps (R-error); a `turn.failed` whose message the turn's last `error`
  event already gave is a duplicate, any other an error step too. A last turn that failed
  declares the ending (T-termination/declared: `error_unrecoverable`).

An item's records are one item (the key: the run and the item's id): the call and its result
are read from its completed record, where the writer has them whole (a web search's query is
known only then); its earlier records are duplicates in the ledger. An item started but never
completed is a call with no result, read from its last record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...evidence import Event, Quality, Ref, Session, SessionMeta, SourceFile
from ...payloads import MessageInfo, NoteInfo
from .. import ReadContext
from .._records import Record, iter_jsonl
from ..lines import read_bytes, sha256, source_name
from ._exec_items import ItemReader

STARTS = frozenset({"thread.started", "session.created"})
# each event type the writer's versions name, with a field it always writes (None: the type alone)
EVENTS: dict[str, str | None] = {
    "thread.started": "thread_id", "session.created": "session_id", "turn.started": None,
    "turn.completed": "usage", "turn.failed": "error", "item.started": "item", "item.updated": "item",
    "item.completed": "item", "error": "message", "item.plan.delta": "item_id", "request_user_input": "call_id",
}  # fmt: skip
# serde writes an internally tagged enum's tag first: a line longer than the head still opens so
_OPENING = re.compile(rb'\{"type":"(?:' + b"|".join(re.escape(t.encode()) for t in EVENTS) + rb')"')
_SNIFF_LINES = 20
TURN_STARTED = "turn_started"  # the note the segmenter reads as a turn without its request (R-turn/unlogged)
OTHER_THREAD = "another thread's run in the same file (read as its own trace)"
TURN_BOUNDARY = "turn boundaries carry no work"
_SET_ASIDE = {"item.plan.delta": "a plan's text streamed in parts (the plan item holds it whole)",
              "request_user_input": "a question to the person that the stream holds no answer to"}


def is_exec_stream(head: bytes) -> bool:
    """Whether a file's first bytes are `codex exec --json` events: the first record with a
    type names one of the writer's events, with the field that event always has, and no
    rollout envelope (`payload`)."""
    for i, raw in enumerate(head.split(b"\n")[:_SNIFF_LINES]):
        raw = (raw.removeprefix(b"\xef\xbb\xbf") if i == 0 else raw).strip()
        if not raw:
            continue
        try:
            d = orjson.loads(raw)
        except orjson.JSONDecodeError:
            if _OPENING.match(raw) and b'"payload":' not in raw[:200]:
                return True  # a line longer than the head (or cut): its opening says what it is
            continue  # a damaged line says nothing of the format: the next one does
        if not isinstance(d, dict) or not isinstance(d.get("type"), str):
            continue
        t = d["type"]
        if t not in EVENTS or "payload" in d:
            return False
        key = EVENTS[t]
        if key is None:
            return set(d) == {"type"}
        if key in d:
            return t != "error" or set(d) == {"type", "message"}
    return False


@dataclass
class _Run:
    """The records one process wrote: from a `thread.started` to the next one."""

    thread_id: str | None
    recs: list[Record] = field(default_factory=list)


def read_exec_stream(path: Path, ctx: ReadContext) -> list[Session]:
    rel = source_name(path, ctx.root)
    data = read_bytes(path, ctx.limits)
    sf = SourceFile(rel, str(path.resolve()), "codex", len(data), sha256(data))
    warnings: list[Any] = []
    counters: dict[str, int] = {}
    recs = list(iter_jsonl(data, rel, warnings, counters, _is_event))
    del data
    runs = _runs(recs) or [_Run(None)]  # nothing readable: one session, empty, says so
    ids = list(dict.fromkeys(r.thread_id for r in runs))
    sessions = []
    for tid in ids:
        s = Session("codex", tid or path.stem, [sf], {}, [], SessionMeta(agent="codex-cli"), Quality())
        s.warnings.extend(warnings)
        s.quality.records = counters.get("records", 0)
        s.quality.unparsable_records = counters.get("unparsable", 0)
        # its own records first: the trace's own fields cite the session's first record (T-id, T-task)
        for run in sorted(runs, key=lambda run: run.thread_id != tid):
            for r in run.recs:
                s.add_evidence(r.ev)
        _Thread(s, rel, [(run, run.thread_id == tid) for run in runs]).build()
        sessions.append(s)
    return sessions


def _type(r: Record) -> str:
    """The event's type, "" when it has none (or one that is not text)."""
    t = r.data.get("type")
    return t if isinstance(t, str) else ""


def _is_event(d: dict[str, Any]) -> bool:
    """What a whole event looks like, for recovery from a damaged line."""
    return isinstance(d.get("type"), str) and d["type"] in EVENTS


def _runs(recs: list[Record]) -> list[_Run]:
    """The file's runs, each with its thread id. A start written again before any other record
    is the same run; a run whose start is missing or unreadable continues the thread before it
    (or, the first, the thread of the next one)."""
    runs: list[_Run] = []
    for r in recs:
        t = _type(r)
        if t in STARTS:
            tid = r.data.get("thread_id" if t == "thread.started" else "session_id")
            tid = tid if isinstance(tid, str) and tid else None
            cur = runs[-1] if runs else None
            if cur is not None and all(_type(x) in STARTS for x in cur.recs) and \
                    (tid is None or cur.thread_id in (None, tid)):
                cur.thread_id = cur.thread_id or tid
                cur.recs.append(r)
                continue
            runs.append(_Run(tid))
        elif not runs:
            runs.append(_Run(None))
        runs[-1].recs.append(r)
    named = [r.thread_id for r in runs if r.thread_id]
    last = named[0] if named else None
    for run in runs:
        run.thread_id = last = run.thread_id or last
    return runs


class _Thread:
    """One thread's runs → its session's events, facts and ledger marks."""

    def __init__(self, session: Session, source: str, runs: list[tuple[_Run, bool]]) -> None:
        self.s, self.source, self.runs = session, source, runs
        self.items = ItemReader(session, source, self._event)
        self.turn_errors: list[str] = []  # the `error` events' messages since the turn started
        self.last_end: Record | None = None  # the last turn.completed / turn.failed
        self.turns = self.failed = 0
        self.unknown: set[str] = set()

    def build(self) -> None:
        mine = [(i, r) for i, (run, own) in enumerate(self.runs) if own for r in run.recs]
        self.items.prepare(mine)
        for i, (run, own) in enumerate(self.runs):
            for r in run.recs:
                if own:
                    self._record(i, r)
                else:
                    self.s.mark(r.ev.id, "set_aside", OTHER_THREAD)
        self.items.finish()
        self._facts()
        for e in self.s.events:
            sub = e.info.subtype if isinstance(e.info, NoteInfo) else None
            if e.kind == "note" and sub != TURN_STARTED:
                for ref in e.refs:
                    self.s.mark(ref.ev, "set_aside", "notes are not steps", sub)

    def _event(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        e = Event(kind, fields.pop("actor", "agent"), None, [Ref(rec.ev.id, ptr)], **fields)
        self.s.events.append(e)
        return e

    def _str(self, rec: Record, obj: dict[str, Any], key: str, want: type = str) -> Any:
        return self.items.typed(rec, obj, key, want)

    def _record(self, run: int, r: Record) -> None:
        t = _type(r)
        if t in STARTS:
            self.s.mark(r.ev.id, "metadata", "the thread's id (a run's start: codex exec, or codex exec resume)")
            when = self._str(r, r.data, "timestamp")
            if when is not None and self.s.meta.started_at is None:
                self.s.meta.started_at, self.s.meta.started_at_ref = when, Ref(r.ev.id, "/timestamp")
        elif t == "turn.started":
            self.turns += 1
            self.turn_errors = []
            # its request (the command line's prompt) is not in the stream: the segmenter ends the
            # answer pending here and counts a new turn (R-turn/unlogged)
            self._event("note", r, "", actor="system", info=NoteInfo(subtype=TURN_STARTED))
            self.s.mark(r.ev.id, "set_aside", TURN_BOUNDARY)
        elif t == "turn.completed":
            self.last_end = r
            self._usage(r)
        elif t == "turn.failed":
            self.last_end = r
            self.failed += 1
            self._turn_failed(r)
        elif t == "error":
            msg = self._str(r, r.data, "message")
            if msg is not None:
                self.turn_errors.append(msg)
            self._error(r, "/message" if msg is not None else "", msg)
        elif t in ("item.started", "item.updated", "item.completed"):
            self.items.record(run, r)
        elif t in _SET_ASIDE:
            self.s.mark(r.ev.id, "set_aside", _SET_ASIDE[t])
        else:
            self.s.quality.unknown_records += 1
            what = repr(t) if t else "with no type"
            if what not in self.unknown:
                self.unknown.add(what)
                self.s.warn("unknown_record", f"event {what} is not one codex exec writes; skipped (reported once)",
                            self.source, r.ev.line)

    def _error(self, r: Record, ptr: str, msg: str | None) -> None:
        # the stream's words for a failed model request: an error step (R-error), as Claude Code's
        self._event("agent_text", r, ptr, text=msg, info=MessageInfo(api_error=True))

    def _turn_failed(self, r: Record) -> None:
        err = self._str(r, r.data, "error", dict)
        msg = self._str(r, err, "message") if err is not None else None
        if msg is not None and self.turn_errors and self.turn_errors[-1] == msg:
            self.s.mark(r.ev.id, "duplicate", "turn.failed repeats the turn's last error event")
            return
        self._error(r, "/error/message" if msg is not None else "", msg)

    def _usage(self, r: Record) -> None:
        self.s.mark(r.ev.id, "metadata", "usage (the thread's running total)")
        usage = self._str(r, r.data, "usage", dict)
        if usage is None:
            return
        total = {k: v for k in usage if (v := self._str(r, usage, k, int)) is not None}
        self.s.meta.token_usage = total  # a running total: the last one stands, never a sum

    def _facts(self) -> None:
        meta = self.s.meta
        meta.extra["codex_exec"] = {"runs": sum(1 for _, own in self.runs if own), "turns": self.turns,
                                    "failed_turns": self.failed}
        end = self.last_end
        if end is not None and _type(end) == "turn.failed":
            err = end.data.get("error")
            ptr = "/error/message" if isinstance(err, dict) and isinstance(err.get("message"), str) else ""
            meta.ending, meta.ending_ref = "error_unrecoverable", Ref(end.ev.id, ptr)


__all__ = ["is_exec_stream", "read_exec_stream"]
