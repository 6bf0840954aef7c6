"""The items of a `codex exec --json` stream (`item.started` / `item.updated` / `item.completed`)
→ events: what each kind of item is to forsy, and which of an item's records is read.

Read from the writer (openai/codex, codex-rs/exec/src/exec_events.rs and
event_processor_with_jsonl_output.rs; the module docstring of `_exec_json` names the versions).
An item's records share its `id` within one process's run: the key is (run, id). The completed
record holds the item whole (a web search's query, a command's output and exit code), so the
call and its result are read from it, at the place the item first appeared; the item's other
records are duplicates. A to-do list is the exception: each plan the agent wrote is a step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...evidence import Event, Ref, Session
from ...jsontext import json_text
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .._records import Record
from ._read import typed

NewEvent = Callable[..., Event]  # (kind, record, pointer, **fields) -> Event
Key = tuple[int, str]

# the first versions' names for the same kinds (ConversationItemDetails)
ALIASES = {"assistant_message": "agent_message", "patch_apply": "file_change"}
TEXTS = {"agent_message": "agent_text", "reasoning": "reasoning"}
NOTES = {"plan": ("plan", "text"), "error": ("error", "message")}  # kind -> (note subtype, text field)
CALLS = frozenset({"command_execution", "file_change", "mcp_tool_call", "collab_tool_call", "web_search"})
PLAN = "todo_list"
KINDS = frozenset(TEXTS) | frozenset(NOTES) | CALLS | {PLAN}
FAILED = frozenset({"failed", "declined"})  # CommandExecutionStatus, PatchApplyStatus, McpToolCallStatus …
EARLIER = "an earlier state of an item whose last record is read (item.started / item.updated)"
AGAIN = "an item's record written again after the one read"
NO_WORDS = "an item with no words"


class ItemReader:
    def __init__(self, session: Session, source: str, new_event: NewEvent) -> None:
        self.s, self.source, self.new = session, source, new_event
        self.logs: dict[Key, list[Record]] = {}
        self.final: dict[Key, Record] = {}
        self.calls: list[tuple[Event, CallInfo]] = []
        self.answered: set[str] = set()
        self.plans: dict[Key, Any] = {}  # a to-do list's items as last written
        self.unknown: set[str] = set()

    def typed(self, rec: Record, obj: dict[str, Any], key: str, *want: type) -> Any:
        return typed(self.s, self.source, rec.ev.line or 0, obj, key, *want)

    def prepare(self, recs: list[tuple[int, Record]]) -> None:
        """Each item's records, and the one read: its first completed record, else its last."""
        for run, r in recs:
            key = _key(run, r)
            if key is not None:
                self.logs.setdefault(key, []).append(r)
        for key, rs in self.logs.items():
            done = [r for r in rs if r.data.get("type") == "item.completed"]
            self.final[key] = done[0] if done else rs[-1]

    def record(self, run: int, r: Record) -> None:
        item = self.typed(r, r.data, "item", dict)
        tag = next((k for k in ("type", "item_type") if isinstance((item or {}).get(k), str)), None)
        if item is None or tag is None:
            self._unknown(r, "an item event with no item kind" if item is None or "type" not in item
                          else "an item whose kind is not text")
            return
        kind = ALIASES.get(item[tag], item[tag])
        if kind not in KINDS:
            self._unknown(r, f"item kind {item[tag]!r} is not one codex exec writes")
            return
        key = _key(run, r)
        if kind == PLAN:
            self._plan(key, r, item, tag)
            return
        recs = self.logs.get(key, [r]) if key is not None else [r]
        fin = self.final.get(key, r) if key is not None else r
        if recs[0] is r:
            self._item(kind, tag, key, fin)
        if r is not fin:
            self.s.mark(r.ev.id, "duplicate", EARLIER if recs.index(r) < recs.index(fin) else AGAIN, kind)
        elif kind in CALLS and kind != "web_search" and r.data.get("type") == "item.completed":
            self._result(kind, _call_id(key, fin), fin)

    def finish(self) -> None:
        """Calls whose item never completed: kept, with no result (T-termination/no-result)."""
        for e, info in self.calls:
            if info.result_in_log and e.call_id not in self.answered:
                info.no_result = True
                self.s.quality.missing_results += 1

    def _unknown(self, r: Record, what: str) -> None:
        self.s.quality.unknown_records += 1
        if what not in self.unknown:
            self.unknown.add(what)
            self.s.warn("unknown_record", f"{what}; skipped (reported once)", self.source, r.ev.line)

    # ------------------------------------------------------------------ items
    def _item(self, kind: str, tag: str, key: Key | None, fin: Record) -> None:
        item: dict[str, Any] = fin.data["item"]
        if kind in TEXTS:
            text = self.typed(fin, item, "text", str)
            if not text:
                self.s.mark(fin.ev.id, "set_aside", NO_WORDS, kind)
                return
            info = MessageInfo(part="summary") if kind == "reasoning" else MessageInfo()
            self.new(TEXTS[kind], fin, "/item/text", text=text, info=info)
        elif kind in NOTES:
            sub, field = NOTES[kind]
            text = self.typed(fin, item, field, str)
            self.new("note", fin, f"/item/{field}" if text is not None else "/item", actor="system", text=text,
                     info=NoteInfo(subtype=sub))
        else:
            self._call(kind, tag, key, fin, item)

    def _call(self, kind: str, tag: str, key: Key | None, fin: Record, item: dict[str, Any]) -> None:
        info = CallInfo(status=self.typed(fin, item, "status", str))
        tool: str | None = kind
        # copied where the record read says it as written (else derived: a first version's name)
        name_ref: Ref | None = Ref(fin.ev.id, f"/item/{tag}") if item.get(tag) == kind else None
        if kind == "command_execution":
            args, field = self.typed(fin, item, "command", str), "command"
        elif kind == "file_change":
            args, field = self.typed(fin, item, "changes", list), "changes"
        elif kind == "mcp_tool_call":
            server, name = self.typed(fin, item, "server", str), self.typed(fin, item, "tool", str)
            if server is not None and name is not None:  # named as the rollout reader names MCP tools
                tool, name_ref, info.raw_name = f"mcp:{server}.{name}", None, name
            args, field = item.get("arguments"), "arguments"  # any JSON value; absent in the first versions
        elif kind == "collab_tool_call":
            name = self.typed(fin, item, "tool", str)
            if name is not None:
                tool, name_ref = name, Ref(fin.ev.id, "/item/tool")
            args, field = self.typed(fin, item, "prompt", str), "prompt"
        else:  # web_search: the query (empty while it runs), else the action; the result stays on the server
            info.result_in_log = False
            args, field = self.typed(fin, item, "query", str) or None, "query"
            if args is None and isinstance(item.get("action"), dict):
                args, field = item["action"], "action"
        ptr = f"/item/{field}" if args is not None else "/item"
        e = self.new("tool_call", fin, ptr, call_id=_call_id(key, fin), tool=tool, args=args, name_ref=name_ref,
                     info=info)
        self.calls.append((e, info))

    def _result(self, kind: str, call_id: str, fin: Record) -> None:
        item: dict[str, Any] = fin.data["item"]
        status = self.typed(fin, item, "status", str)
        info = ResultInfo()
        is_error = True if status in FAILED else False if status == "completed" else None
        text, ptr = status, "/item/status"  # what the item says of its outcome when it holds no output
        if kind == "command_execution":
            text, ptr = self.typed(fin, item, "aggregated_output", str), "/item/aggregated_output"
            info.exit_code = code = self.typed(fin, item, "exit_code", int)
            if code is not None and code != 0:
                is_error = True
            elif code is None and status == "completed":
                is_error = None  # the older writer closed a command still running at the turn's end so
        elif kind == "mcp_tool_call":
            text, ptr, failed = self._mcp(fin, item, text, ptr)
            is_error = True if failed else is_error
        elif kind == "collab_tool_call" and "agents_states" in item:
            text, ptr = json_text(item["agents_states"]), "/item/agents_states"
        if status == "declined":
            q = self.s.quality.extra
            q["declined_calls"] = q.get("declined_calls", 0) + 1
        self.new("tool_result", fin, ptr if text is not None else "/item", call_id=call_id, text=text,
                 is_error=is_error, info=info)
        self.answered.add(call_id)

    def _mcp(self, fin: Record, item: dict[str, Any], text: str | None, ptr: str) -> tuple[str | None, str, bool]:
        """An MCP call's answer: the error's message (a failure), else the result's text blocks,
        joined by newlines (else its structured content), else the status."""
        err = self.typed(fin, item, "error", dict)
        if err is not None and (msg := self.typed(fin, err, "message", str)) is not None:
            return msg, "/item/error/message", True
        res = self.typed(fin, item, "result", dict)
        if res is None:
            return text, ptr, err is not None
        content = self.typed(fin, res, "content", list)
        if content is not None and (content or res.get("structured_content") is None):
            texts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
            return "\n".join(texts), "/item/result/content", False
        if res.get("structured_content") is not None:
            return json_text(res["structured_content"]), "/item/result/structured_content", False
        return text, ptr, False

    def _plan(self, key: Key | None, r: Record, item: dict[str, Any], tag: str) -> None:
        """Each plan the agent wrote (the list as started, then as each update changed it) is a
        plan call; the list written again unchanged (at the turn's end) is a duplicate."""
        items = self.typed(r, item, "items", list)
        if key is not None and key in self.plans and self.plans[key] == items:
            self.s.mark(r.ev.id, "duplicate", "the to-do list written again unchanged", PLAN)
            return
        if key is not None:
            self.plans[key] = items
        info = CallInfo(result_in_log=False)
        e = self.new("tool_call", r, "/item/items" if items is not None else "/item",
                     call_id=f"{_call_id(key, r)}@{r.ev.line}", tool=PLAN, args=items,
                     name_ref=Ref(r.ev.id, f"/item/{tag}"), info=info)
        self.calls.append((e, info))


def _key(run: int, r: Record) -> Key | None:
    item = r.data.get("item")
    iid = item.get("id") if isinstance(item, dict) else None
    return (run, iid) if isinstance(iid, str) and iid else None


def _call_id(key: Key | None, r: Record) -> str:
    return f"{key[0]}:{key[1]}" if key is not None else f"line:{r.ev.line}"
