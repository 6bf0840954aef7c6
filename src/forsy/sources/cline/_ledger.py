"""Why each Cline record that no step cites was read (the manifest's ledger, `Session.mark`).

The UI messages (`ui_messages.json`) are the user's view of the task the API conversation
holds: most of them show again what an API message says (the model's text and reasoning, a
tool call, a command's output), the rest are Cline's bookkeeping (checkpoints, request
counters, the task checklist, offers to resume). Each is marked by its `say` / `ask` kind
(the ledger's record type `say/<kind>` or `ask/<kind>`):

* a record whose `ts` is the time of an API message's steps: `metadata` (R-time);
* a record whose words an API message holds (the message at its `conversationHistoryIndex`
  or the next one, as Cline numbers them while a message streams): `duplicate`, only when
  the text is found there; a text that is not stays `unknown`, so the ledger warns;
* the other kinds by what they are (`KINDS`). A kind not listed stays `unknown`.

`task_metadata.json` is read as one record per top-level key (`files_in_context`,
`model_usage`, `environment_history`), each marked by what it holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import orjson

from ...evidence import Evidence, LedgerHeading, Session
from .._records import Record
from ..lines import sha256
from ._files import members

VIEW: tuple[LedgerHeading, str] = ("duplicate", "the UI's view of a tool call or result the API conversation holds")
NOTICE: tuple[LedgerHeading, str] = ("set_aside", "an error or notice Cline showed in the UI, not a step")
RESUME: tuple[LedgerHeading, str] = ("set_aside", "the UI offering to resume the task (it was reopened)")
LIMIT: tuple[LedgerHeading, str] = ("set_aside", "a limit notice the UI asked the user about, not a step")
# kind -> (heading, why) for records whose kind says what they are, whatever their text
KINDS: dict[tuple[str, str], tuple[LedgerHeading, str]] = {
    ("say", "checkpoint_created"): ("set_aside", "a UI checkpoint marker (Cline's snapshot of the workspace), "
                                    "not work"),
    ("say", "api_req_finished"): ("set_aside", "the end of an API request (Cline's UI bookkeeping)"),
    ("say", "api_req_retried"): ("set_aside", "an API request retried (Cline's UI notice)"),
    ("say", "deleted_api_reqs"): ("set_aside", "API requests Cline deleted from the conversation (UI notice)"),
    ("say", "mcp_server_request_started"): ("set_aside", "an MCP request started (Cline's UI notice)"),
    ("say", "task_progress"): ("set_aside", "the task checklist Cline shows (the model sends it as its calls' "
                               "task_progress argument)"),
    ("ask", "completion_result"): ("set_aside", "the UI asking the user to accept the completed task"),
    **{("say", k): VIEW for k in ("tool", "browser_action", "browser_action_launch", "browser_action_result",
                                  "use_mcp_server")},
    **{("say", k): NOTICE for k in ("error", "diff_error", "clineignore_error", "shell_integration_warning", "info",
                                    "mcp_notification", "load_mcp_documentation")},
    # the pre-SDK writer's later kinds (cline/cline c824d83, apps/vscode/src/core: hook-executor.ts,
    # SubagentToolHandler.ts, task/index.ts, ExecuteCommandToolHandler.ts, Use/AccessMcp*Handler.ts,
    # WriteToFile/ApplyPatch handlers)
    ("say", "hook_status"): ("set_aside", "a hook's run status Cline showed in the UI, not a step"),
    ("say", "hook_output_stream"): ("set_aside", "a hook's output Cline showed in the UI, not a step"),
    ("say", "subagent"): ("set_aside", "a subagent's progress shown in the UI (the use_subagents call's result "
                          "holds what the model got)"),
    ("say", "subagent_usage"): ("set_aside", "the subagents' token and cost counts shown in the UI (not summed)"),
    ("say", "conditional_rules_applied"): ("set_aside", "the conditional rules Cline applied (a UI notice)"),
    ("say", "user_feedback_diff"): ("set_aside", "the person's edits to a proposed change as the UI showed them "
                                    "(the tool's result in the API history says so)"),
    ("say", "mcp_server_response"): VIEW,
    **{("say", k): NOTICE for k in ("command_permission_denied", "shell_integration_warning_with_suggestion")},
    # the last pre-SDK writer (cline/cline 864419d8b0): task/index.ts says error_retry (a JSON object:
    # attempt, maxAttempts, delaySeconds, errorMessage, failed) before retrying a failed request itself;
    # GenerateExplanationToolHandler.ts and SubagentToolHandler.ts show their calls as say records too
    ("say", "error_retry"): ("set_aside", "an automatic retry of a failed API request (Cline's UI notice; the "
                             "request's own record is api_req_started)"),
    **{("say", k): VIEW for k in ("generate_explanation", "use_subagents")},
    **{("ask", k): RESUME for k in ("resume_task", "resume_completed_task")},
    **{("ask", k): LIMIT for k in ("mistake_limit_reached", "auto_approval_max_req_reached")},
}
# kinds whose text is words an API message holds (checked before they are called duplicates)
TEXTS = frozenset({("say", "text"), ("say", "reasoning"), ("say", "completion_result"), ("say", "command"),
                   ("say", "command_output"), ("ask", "command_output"), ("ask", "plan_mode_respond"),
                   ("say", "user_feedback"), ("ask", "act_mode_respond")})
SAME_TEXT = "the same words as an API conversation message (at its conversationHistoryIndex or the next)"
# the asks counted in quality.extra (asks_<kind>)
ASKED = frozenset({"tool", "command", "followup", "browser_action_launch", "use_mcp_server", "api_req_failed",
                   "new_task", "condense", "summarize_task", "report_bug", "use_subagents"})
HAS_CHANGES = "HAS_CHANGES"
TIME = "the time of an API message's steps (R-time)"
TOKENS_USED = "token and cost counts of one API request, summed into token usage (the cost is not kept)"
TOKENS_SEEN = ("token and cost counts of one API request (token usage is summed from the API messages' "
               "metrics instead; the cost is not kept)")
# the top-level keys of task_metadata.json
META: dict[str, tuple[LedgerHeading, str]] = {
    "files_in_context": ("set_aside", "the files Cline tracked in the task's context (the calls that read and "
                         "edited them are steps)"),
    "environment_history": ("set_aside", "the host and OS of each run (no Cline version in it)"),
}


def kind_of(d: dict[str, Any]) -> tuple[str, str] | None:
    """("say" | "ask", its kind) of a UI record, None when it names neither."""
    t = d.get("type")
    k = d.get(t) if t in ("say", "ask") else None
    return (t, k) if isinstance(t, str) and isinstance(k, str) else None


def _strings(v: Any, depth: int = 0) -> Iterator[str]:
    if depth > 20:
        return
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _strings(x, depth + 1)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x, depth + 1)


# the UI shows the model's text with its <thinking> tags taken out (presentAssistantMessage, cline/cline
# 7ee0a58f9b to 864419d8b0: `<thinking>\s?` and `\s?</thinking>` removed)
OPEN_THINKING, CLOSE_THINKING = re.compile(r"<thinking>\s?"), re.compile(r"\s?</thinking>")


def _shown(text: str) -> str:
    return CLOSE_THINKING.sub("", OPEN_THINKING.sub("", text))


def _held(text: str, api: list[Record], idx: int) -> bool:
    """Whether an API message at `idx` or `idx + 1` holds `text` (stripped) in one string, as
    written or as the UI shows it (no thinking tags)."""
    want = text.strip()
    if not want:
        return False
    for j in (idx, idx + 1):
        if 0 <= j < len(api) and any(want in s or ("thinking>" in s and want in _shown(s))
                                     for s in _strings(api[j].data.get("content"))):
            return True
    return False


def request_tokens(d: dict[str, Any]) -> dict[str, int] | None:
    """The token counts of an `api_req_started` record (a JSON object written as its text)."""
    text = d.get("text")
    try:
        info = orjson.loads(text) if isinstance(text, str) else None
    except orjson.JSONDecodeError:
        return None
    if not isinstance(info, dict):
        return None
    return {k: v for k in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads")
            if isinstance(v := info.get(k), int) and not isinstance(v, bool)}


def mark_ui(s: Session, ui: list[Record], api: list[Record], timed: set[str], tokens_from_ui: bool) -> None:
    """Mark every UI record by what it is (cited ones are counted as cited whatever the mark)."""
    for rec in ui:
        d = rec.data
        kind = kind_of(d)
        if kind is None:
            continue  # unknown: the ledger warns
        sub = kind[1]
        idx = d.get("conversationHistoryIndex")
        if rec.ev.id in timed:
            s.mark(rec.ev.id, "metadata", TIME, sub)
        elif kind == ("say", "api_req_started"):
            if request_tokens(d) is not None:
                s.mark(rec.ev.id, "metadata", TOKENS_USED if tokens_from_ui else TOKENS_SEEN, sub)
        elif kind in TEXTS:
            text = d.get("text")
            why = SAME_TEXT
            if kind == ("say", "completion_result") and isinstance(text, str) and text.endswith(HAS_CHANGES):
                # Cline flags a completion that changed files by appending this to what the UI shows
                text, why = text[:-len(HAS_CHANGES)], SAME_TEXT + ", then Cline's HAS_CHANGES flag"
            if isinstance(text, str) and isinstance(idx, int) and _held(text, api, idx):
                s.mark(rec.ev.id, "duplicate", why, sub)
        elif kind[0] == "ask" and kind[1] in ASKED:
            s.mark(rec.ev.id, "metadata", f"a question or approval asked of the user (counted as asks_{kind[1]})",
                   sub)
        elif kind in KINDS:
            heading, why = KINDS[kind]
            s.mark(rec.ev.id, heading, why, sub)



def read_metadata(data: bytes, name: str, s: Session) -> None:
    """`task_metadata.json`: one record per top-level key, marked by what it holds."""
    text = data.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    dec = json.JSONDecoder()
    try:
        doc, _ = dec.raw_decode(text, start)
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict):
        s.quality.unparsable_records += 1
        s.warn("unparsable", "task metadata is not a JSON object; not read", name, 1)
        return
    for key, pos, end in members(text, start, dec):
        raw = text[pos:end].encode("utf-8", "surrogateescape")
        off = len(text[:pos].encode("utf-8", "surrogateescape"))
        ev = Evidence.make(name, 1 + text.count("\n", 0, pos), off, raw, sha256(raw), key)
        s.add_evidence(ev)
        s.quality.records += 1
        value = doc.get(key)
        if key == "model_usage" and isinstance(value, list):
            # an id that is no text is no model a message names (and cannot be a set's member)
            used = {m if isinstance(m := u.get("model_id"), str) else None for u in value if isinstance(u, dict)}
            if used <= set(s.meta.models):
                s.mark(ev.id, "duplicate", "the models the API messages' modelInfo names")
            else:
                s.mark(ev.id, "set_aside", "models the API messages do not name (not taken: no message says "
                       "which model wrote it)")
        elif key == "environment_history" and _cline_version(value):
            s.meta.agent_version = _cline_version(value)
            s.mark(ev.id, "metadata", "the Cline version (agent_version, the last run's); host and OS not taken")
        elif key in META:
            s.mark(ev.id, *META[key])


def _cline_version(history: object) -> str | None:
    """The Cline version of the task's last run (`environment_history[-1].cline_version`)."""
    runs = [r for r in history if isinstance(r, dict)] if isinstance(history, list) else []
    v = runs[-1].get("cline_version") if runs else None
    return v if isinstance(v, str) and v.strip() else None


