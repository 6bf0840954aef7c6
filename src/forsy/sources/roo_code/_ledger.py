"""Why each Roo Code record that no step cites was read (the manifest's ledger).

The UI messages (`ui_messages.json`, `ClineMessage` in packages/types/src/message.ts: its `say`
and `ask` kinds, every version's) are what the person saw: most show again what the API history
holds, the rest are Roo Code's bookkeeping. Each is marked by its kind (record type `say/<kind>`
or `ask/<kind>`): `KINDS`, or, for a kind whose words an API message holds (`TEXTS`), a
duplicate only when they are found in one near it in time; a kind not listed stays `unknown`.

`history_item.json` (the task's entry in Roo Code's history, core/task-persistence/
TaskHistoryStore.ts from February 2026) and `task_metadata.json` (FileContextTracker.ts: the
files the task had in context) are read one record per top-level key (`read_keys`).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping

from ...evidence import Evidence, LedgerHeading, Session
from ...jsontext import valid_value
from .._records import Record
from ..cline import kind_of, members, request_tokens
from ..lines import sha256

Why = tuple[LedgerHeading, str]
VIEW: Why = ("duplicate", "the UI's view of a tool call or result the API history holds")
NOTICE: Why = ("set_aside", "an error or notice Roo Code showed in the UI, not a step")
BOOK: Why = ("set_aside", "Roo Code's UI bookkeeping (a request's progress, a checkpoint), not work")
KINDS: dict[tuple[str, str], Why] = {
    **{("say", k): BOOK for k in ("api_req_finished", "api_req_retried", "api_req_retry_delayed",
                                  "api_req_rate_limit_wait", "api_req_deleted", "checkpoint_saved",
                                  "mcp_server_request_started", "new_task_started")},
    **{("say", k): NOTICE for k in ("error", "diff_error", "rooignore_error", "shell_integration_warning",
                                    "condense_context_error", "too_many_tools_warning", "browser_session_status")},
    **{("say", k): VIEW for k in ("tool", "browser_action", "browser_action_result", "mcp_server_response",
                                  "codebase_search_result", "new_task", "image")},
    ("say", "condense_context"): ("duplicate", "the UI's view of a condense (the API history holds its summary)"),
    ("say", "sliding_window_truncation"): ("duplicate", "the UI's view of a truncation (the API history holds its "
                                           "marker)"),
    ("say", "subtask_result"): ("duplicate", "a subtask's result as the UI showed it (the API history holds it)"),
    ("say", "user_feedback_diff"): ("set_aside", "the person's edits to a proposed change as the UI showed them "
                                    "(the tool's result in the API history says so)"),
    ("say", "user_edit_todos"): ("set_aside", "the person's edit of the todo list shown in the UI (the model gets "
                                 "the list in the environment details)"),
    ("ask", "completion_result"): ("set_aside", "the UI asking the person to accept the completed task"),
    **{("ask", k): ("set_aside", "the UI offering to resume the task (it was reopened)")
       for k in ("resume_task", "resume_completed_task")},
}
# kinds whose words an API message holds
TEXTS = frozenset({("say", "text"), ("say", "reasoning"), ("say", "completion_result"), ("say", "command_output"),
                   ("ask", "command_output"), ("say", "user_feedback"), ("say", "command")})
ASKED = frozenset({"tool", "command", "followup", "browser_action_launch", "use_mcp_server", "api_req_failed",
                   "mistake_limit_reached", "auto_approval_max_req_reached"})
NEAR = 4  # how many API messages from a UI record's time its words may be saved in


def mark_ui(s: Session, ui: list[Record], api: list[Record], tokens_from_ui: bool) -> None:
    """Mark every UI record by what it is (cited ones are counted as cited whatever the mark)."""
    times = [t if isinstance(t := rec.data.get("ts"), int) and not isinstance(t, bool) else 0 for rec in api]
    for rec in ui:
        d = rec.data
        kind = kind_of(d)
        if kind is None:
            continue  # unknown: the ledger warns
        if d.get("partial") is True:
            s.mark(rec.ev.id, "set_aside", "a UI record still streaming (the complete one follows)", kind[1])
        elif kind == ("say", "api_req_started"):
            if request_tokens(d) is not None:
                s.mark(rec.ev.id, "metadata", "token and cost counts of one API request, summed into token usage (the "
                       "cost is not kept)" if tokens_from_ui else "an API request's start (no token counts)", kind[1])
        elif kind in TEXTS:
            text = d.get("text")
            if isinstance(text, str) and (not text.strip() or _held(text, api, times, d.get("ts"))):
                s.mark(rec.ev.id, "duplicate", "the same words as an API message saved near its time", kind[1])
        elif kind[0] == "ask" and kind[1] in ASKED:
            s.mark(rec.ev.id, "metadata", f"a question or approval asked of the person (counted as asks_{kind[1]})",
                   kind[1])
        elif kind in KINDS:
            s.mark(rec.ev.id, *KINDS[kind], kind[1])


def _strings(v: object, depth: int = 0) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(v, str):
        yield v
    elif depth < 20 and isinstance(v, (dict, list)):
        for x in v.values() if isinstance(v, dict) else v:
            yield from _strings(x, depth + 1)


# the UI shows the model's text with its <thinking> tags taken out (presentAssistantMessage.ts)
THINKING = re.compile(r"<thinking>\s?|\s?</thinking>")


def _held(text: str, api: list[Record], times: list[int], ts: object) -> bool:
    """Whether an API message saved near `ts` holds `text` (as written, or as the UI shows the
    model's text: without its <thinking> tags)."""
    want = text.strip()
    at = bisect.bisect_left(times, ts) if isinstance(ts, int) and not isinstance(ts, bool) else 0
    for j in range(max(0, at - 1), min(len(api), at + NEAR)):
        for s in _strings(api[j].data):
            if want in s or ("thinking>" in s and want in THINKING.sub("", s)):
                return True
    return False


def read_keys(data: bytes, name: str, s: Session, marks: Mapping[str, Why], other: Why) -> dict[str, object]:
    """A JSON object file, one record per top-level key, each marked (`marks`, else `other`);
    returns the object (empty when it is none)."""
    text = data.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    dec = json.JSONDecoder()
    try:
        doc, after = dec.raw_decode(text, start)
    except (ValueError, RecursionError):
        doc, after = None, start
    if not isinstance(doc, dict):
        s.quality.records += 1
        s.quality.unparsable_records += 1
        s.warn("unparsable", "not a JSON object; not read", name, 1)
        return {}
    rest = text[after:]
    if rest.strip():  # a second write appended, garbage: said with its line, never dropped unsaid
        at = after + len(rest) - len(rest.lstrip())
        s.quality.unparsable_records += 1
        s.warn("unparsable", f"{len(rest.encode('utf-8', 'surrogateescape'))} bytes after the JSON object; not read",
               name, 1 + text.count("\n", 0, at))
    for key, pos, end in members(text, start, dec):
        raw = text[pos:end].encode("utf-8", "surrogateescape")
        off = len(text[:pos].encode("utf-8", "surrogateescape"))
        ev = Evidence.make(name, 1 + text.count("\n", 0, pos), off, raw, sha256(raw), key)
        s.add_evidence(ev)
        s.quality.records += 1
        s.mark(ev.id, *marks.get(key, other))
    return dict(valid_value(doc))  # bytes that were not UTF-8 are U+FFFD in what is taken from it




SUBTASK: Why = ("metadata", "the task's place among its subtasks (parent, root, children: agent_config)")
HISTORY: dict[str, Why] = {
    "id": ("metadata", "the task's id (the session id)"),
    **{k: SUBTASK for k in ("rootTaskId", "parentTaskId", "childIds", "delegatedToId", "awaitingChildId",
                            "completedByChildId")},
    "workspace": ("metadata", "the working directory (cwd)"),
    "mode": ("metadata", "the mode the task ran in (agent_config.mode)"),
    "apiConfigName": ("metadata", "the provider profile the task used (agent_config.api_config_name)"),
    "status": ("metadata", "the task's status in Roo Code's history (agent_config.task_status)"),
    "task": ("duplicate", "the task's first words (the first UI record holds them)"),
    "completionResultSummary": ("duplicate", "a subtask's answer (its attempt_completion call holds it)"),
}
HISTORY_OTHER: Why = ("set_aside", "the history list's summary of the task (number, time, token and cost totals, "
                      "size), not work")
METADATA: dict[str, Why] = {
    "files_in_context": ("set_aside", "the files Roo Code tracked in the task's context (the calls that read and "
                         "edited them are steps)"),
}
METADATA_OTHER: Why = ("set_aside", "Roo Code's task metadata, not work")
