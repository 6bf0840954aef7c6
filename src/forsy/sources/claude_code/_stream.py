"""Claude Code's print-mode stream and the Agent SDK's messages, saved as they came.

`claude -p --output-format stream-json --verbose` writes one message a line; the same messages
saved whole are a JSON array (`--output-format json --verbose`, claude-code-action's execution
file). CI jobs, benchmark harnesses and SDK programs keep these instead of (or beside) the
session transcript. What the writer emits, read from the SDK's parser of it
(anthropics/claude-agent-sdk-python e8bde60, `_internal/message_parser.py`, `types.py`):

* `system`/`init`: `session_id`, `cwd`, `model`, `tools`, `claude_code_version`, `permissionMode`;
* `assistant`: `message` (an API message, one content block a line as in the transcript),
  `parent_tool_use_id` (the Task/Agent call whose subagent said it, else null), `error` (why a
  model call failed: the message is Claude Code's, not the model's);
* `user`: `message` (tool results; a subagent's prompt), `parent_tool_use_id`, `tool_use_result`
  (the transcript's `toolUseResult`), `isSynthetic` (Claude Code wrote it, nobody typed it);
* `result`, once a turn: `subtype` (`success`, `error_max_turns`, `error_max_budget_usd`,
  `error_during_execution`, `error_max_structured_output_retries`), `is_error`, `result` (the
  last answer's text again), `errors`, `terminal_reason`, `stop_reason` (the last model call's:
  `refusal` when the model refused, under a `success` subtype), `num_turns`, `usage`,
  `total_cost_usd`, `permission_denials`;
* `system`/`model_refusal_fallback` (`original_model`, `fallback_model`,
  `retracted_message_uuids`…) and `system`/`model_refusal_no_fallback`: a refusal, read as the
  transcript's are (`_refusals`);
* `stream_event` (partial deltas with `--include-partial-messages`; the whole message follows),
  `rate_limit_event`, and `system` notices (`hook_started`, `hook_response`, `task_started`,
  `task_progress`, `task_notification`, `status`, …): no work, set aside by name.

No message carries a time, and the prompt given on the command line is not in the stream (the
trace's task stays null, unless the stream replays it). Each message is read in the transcript's
words (`session_id` → `sessionId`, `tool_use_result` → `toolUseResult`, `error` →
`isApiErrorMessage`, `isSynthetic` → `isMeta`, a refusal's fields in camelCase) by the
transcript's own event builder; pointers
stay those of the stream's line. A subagent's messages are linked to their call exactly by
`parent_tool_use_id` (nested ones inside their spawner's). The last `result` states how the
run ended (T-termination/declared): a turn or budget limit reached is `partial_then_stopped`,
an error during execution or a model's refusal (`stop_reason` `refusal`: the turn ended as an
error) `error_unrecoverable`, a cancelled turn (`terminal_reason` `aborted_*`) `user_abandoned`;
`success` leaves it to the steps.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ...evidence import Quality, Ref, Session, SessionMeta
from .. import ReadContext
from .._records import Record
from ._events import EventBuilder
from ._graph import _dedupe, _result_ids
from ._load import load_records
from ._refusals import FAILED_CALLS, note_fallback, withdrawn
from ._rich import rich_of
from ._threads import WORK_TYPES, Thread, _merge_threads, _root_prompt

RICH = "/tool_use_result"
LINK_RULE = "parent_tool_use_id"
_SESSION = re.compile(rb'"session_id"\s*:\s*"')
_SHAPE = re.compile(rb'"parent_tool_use_id"\s*:|"subtype"\s*:\s*"init"|"type"\s*:\s*"result"')
# Gemini CLI's headless stream names its session `session_id` and ends on a `result` too; its
# first line is `{"type":"init","timestamp":…}` (Claude Code's init is a `system` message)
_GEMINI_INIT = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{\s*"type"\s*:\s*"init"\s*,\s*"timestamp"', re.M)
STREAM_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event", "rate_limit_event",
                          "conversation_reset"})
# what a message that is no work is, in the ledger's words
_SET_ASIDE = {"stream_event": "partial message deltas (the whole message follows)",
              "rate_limit_event": "rate limit status", "conversation_reset": "a conversation reset notice"}
_NOTICES = "system notices of the stream are not steps"
# `result.subtype` (and `terminal_reason`) → termination_reason; `success` is not declared
ENDINGS = {"error_max_turns": "partial_then_stopped", "error_max_budget_usd": "partial_then_stopped",
           "error_during_execution": "error_unrecoverable",
           "error_max_structured_output_retries": "error_unrecoverable"}
ABORTED = ("aborted_streaming", "aborted_tools")
_RESULT_KEYS = ("subtype", "terminal_reason", "num_turns", "total_cost_usd", "duration_ms", "errors")
# a refusal's fields as the stream names them → the transcript's names (`_refusals` reads those)
_REFUSAL_WORDS = {"original_model": "originalModel", "fallback_model": "fallbackModel",
                  "retracted_message_uuids": "retractedMessageUuids", "api_refusal_category": "apiRefusalCategory"}


def is_stream(head: bytes) -> bool:
    """Whether a file's first bytes are print-mode messages: objects naming their session as
    `session_id` (the transcript writes `sessionId`) in the stream's shape."""
    return _SESSION.search(head) is not None and _SHAPE.search(head) is not None and b'"sessionId"' not in head \
        and _GEMINI_INIT.search(head) is None


def read_stream(path: Path, ctx: ReadContext) -> Session:
    session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
    recs: list[Record] = []
    results: list[Record] = []
    for r in load_records(path, ctx, session):
        t = r.data.get("type")
        if t == "result":
            results.append(r)
        elif t in _SET_ASIDE:
            session.mark(r.ev.id, "set_aside", _SET_ASIDE[str(t)])
        elif t == "system" and r.data.get("subtype") not in ("init", "compact_boundary", *FAILED_CALLS):
            sub = r.data.get("subtype")
            session.mark(r.ev.id, "set_aside", _NOTICES, sub if isinstance(sub, str) else None)
        elif t in STREAM_TYPES:
            recs.append(Record(r.ev, _in_transcript_words(r.data), r.prefix))
        else:
            session.warn("unknown-record-type", f"message type {t!r} is not known; skipped", r.ev.source, r.ev.line)
            session.quality.unknown_records += 1
    recs = _dedupe(recs, session)
    _meta(recs, session)
    main = [r for r in recs if not r.data.get("isSidechain")]
    builder = EventBuilder("agent", set(), session.warn)
    builder.rich_pointer = RICH
    builder.withdrawn = withdrawn(main, session.warn)
    events = [e for r in main if r.data.get("type") in WORK_TYPES for e in builder.from_record(r)]
    threads = _threads([r for r in recs if r.data.get("isSidechain")], recs)
    session.events = _merge_threads(events, threads, session)
    _ending(results, session)
    return session


def _in_transcript_words(d: dict[str, Any]) -> dict[str, Any]:
    out = dict(d)
    if isinstance(d.get("session_id"), str):
        out["sessionId"] = d["session_id"]
    if "tool_use_result" in d:
        out["toolUseResult"] = d["tool_use_result"]
    if isinstance(d.get("parent_tool_use_id"), str):
        out["isSidechain"] = True
    if d.get("type") == "assistant" and isinstance(d.get("error"), str):
        out["isApiErrorMessage"] = True
    if d.get("type") == "user" and d.get("isSynthetic") is True:
        out["isMeta"] = True
    if d.get("type") == "system" and isinstance(d.get("claude_code_version"), str):
        out["version"] = d["claude_code_version"]
    if d.get("type") == "system" and "compact_metadata" in d:
        out["compactMetadata"] = d["compact_metadata"]
    if d.get("type") == "system" and d.get("subtype") in FAILED_CALLS:
        out.update({camel: d[snake] for snake, camel in _REFUSAL_WORDS.items() if snake in d})
    return out


def _meta(recs: list[Record], session: Session) -> None:
    meta = session.meta
    for r in recs:
        d = r.data
        if session.session_id == "" and isinstance(d.get("sessionId"), str) and not d.get("isSidechain"):
            session.session_id = d["sessionId"]
        if d.get("type") == "system" and d.get("subtype") == "init":
            session.mark(r.ev.id, "metadata", "tools", "init")
            if isinstance(d.get("version"), str):
                meta.agent_version = d["version"]
            if isinstance(d.get("cwd"), str) and meta.cwd is None:
                meta.cwd = d["cwd"]
            if isinstance(d.get("tools"), list):
                meta.tools = [x for x in d["tools"] if isinstance(x, str)]
            if isinstance(d.get("permissionMode"), str):
                meta.extra["permission_mode"] = d["permissionMode"]
        elif d.get("type") == "system" and d.get("subtype") == "compact_boundary":
            session.mark(r.ev.id, "metadata", "compaction trigger", "compact_boundary")
        note_fallback(d, r.ev.line, meta)
        msg = d.get("message")
        if d.get("type") == "assistant" and isinstance(msg, dict):
            session.mark(r.ev.id, "metadata", "model and usage")  # when no step cites it
            model = msg.get("model")
            if isinstance(model, str) and model != "<synthetic>" and model not in meta.models:
                meta.models.append(model)


def _threads(inline: list[Record], recs: list[Record]) -> list[Thread]:
    """A subagent's messages, by the call they belong to (`parent_tool_use_id`); its id is the
    `agentId` the call's result names, else the call's id."""
    agents: dict[str, str] = {}
    for r in recs:
        rich = rich_of(r.data)
        if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
            for cid in _result_ids(r.data):
                agents.setdefault(cid, rich["agentId"])
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in inline:
        groups[str(r.data["parent_tool_use_id"])].append(r)
    return [Thread(agents.get(call, call), rs, "stream", _root_prompt(rs), call_id=call, link_rule=LINK_RULE,
                   rich_pointer=RICH) for call, rs in groups.items()]


def _ending(results: list[Record], session: Session) -> None:
    for r in results:
        session.mark(r.ev.id, "metadata", "how the run ended (termination_reason), its usage and cost",
                     r.data.get("subtype") if isinstance(r.data.get("subtype"), str) else None)
        denials = r.data.get("permission_denials")
        if isinstance(denials, list) and denials:
            session.quality.extra["permission_denials"] = session.quality.extra.get("permission_denials", 0) + len(
                denials)
    if not results:
        return
    last = results[-1].data
    sub, why = last.get("subtype"), last.get("terminal_reason")
    if isinstance(sub, str) and sub in ENDINGS:
        session.meta.ending, session.meta.ending_ref = ENDINGS[sub], Ref(results[-1].ev.id, "/subtype")
    elif last.get("stop_reason") == "refusal":  # the model refused: the turn ended as an error, whatever the subtype
        session.meta.ending, session.meta.ending_ref = "error_unrecoverable", Ref(results[-1].ev.id, "/stop_reason")
    elif isinstance(why, str) and why in ABORTED:
        session.meta.ending, session.meta.ending_ref = "user_abandoned", Ref(results[-1].ev.id, "/terminal_reason")
    ended = {k: last[k] for k in _RESULT_KEYS if last.get(k) is not None}
    if ended:
        session.meta.extra["run_result"] = ended
