"""A tool result Claude Code says was a denial: the `toolDenialKind` of its `user` record.

Claude Code 2.1.2xx (public readers quote it from 2.1.205) stamps the user record that carries a
denied call's one `tool_result` with the kind of denial (a record of several results gets none:
one kind could not say which).
Claude Code's code is not public; what each kind means is read from its changelog
(`anthropics/claude-code` CHANGELOG.md) and from the records public readers of its files quote:

* `user-rejected`: the permission prompt was answered No (the result: "The user doesn't want to
  proceed with this tool use…", `toolUseResult` "User rejected tool use"); Claude Code writes it
  too when no one could be asked (print mode, an `ask` rule: "Claude requested permissions to
  use X, but you haven't granted it yet.");
* `permission-rule`: a deny rule of the settings ("Permission to use X … has been denied."), a
  PreToolUse hook's deny ("PreToolUse:X hook error: …", or the hook's reason), a permission-prompt
  tool's deny;
* `automode-blocked`: the auto-mode classifier blocked the call ("Permission for this action was
  denied by the Claude Code auto mode classifier. Reason: …"); `automode-unavailable`: the
  classifier gave no verdict;
* `interrupted`: the call was interrupted ("[Request interrupted by user for tool use]");
* `cancelled`: the call was cancelled before it ran ("The user doesn't want to take this action
  right now…"), also when Claude Code aborted a background agent's calls, no one having answered.

The print-mode stream (`claude -p --output-format stream-json`, 2.1.2xx) names the same kinds on
the user message of the results, one entry per result: `tool_result_meta: [{"id": <tool_use_id>,
"non_execution_kind": <kind>, "user_feedback": …}]` (the Agent SDKs parse it so); read the same.

Its words are not always its kind's: until 2.1.210 a hook callback's timeout reached the model
as a user rejection, and until 2.1.212 hook infrastructure errors were reported as user
rejections (CHANGELOG). So the kind decides who denied:

* absent: the result's words decide, as before (`_events`: a rejection is the person's);
* `user-rejected` with the words of a person's rejection: the person's rejection, as before
  (R-error/rejected);
* any other kind, or `user-rejected` without those words (no one may have been asked): the call
  failed (R-call/claude-denied, citing the kind), never the person's rejection, whatever the
  result says. A kind forsy does not know is read so too (never a person forsy cannot name),
  warned once per kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...evidence import Event, Ref, pointer
from ...payloads import ResultInfo
from .._records import Record

# session.warn: (code, message, file, line)
Warn = Callable[[str, str, str | None, int | None], None]

DENIED_RULE = "R-call/claude-denied"
KINDS = frozenset({"user-rejected", "permission-rule", "automode-blocked", "automode-unavailable", "interrupted",
                   "cancelled"})


def _results(rec: Record) -> list[str]:
    """Where the record's tool results hold their content."""
    msg = rec.data.get("message")
    content: Any = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, list):
        return []
    return [pointer("message", "content", i, "content") for i, b in enumerate(content)
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def read_denial(rec: Record, e: Event, info: ResultInfo, seen: set[str], warn: Warn) -> None:
    """Reads the record's `toolDenialKind` (the stream's `non_execution_kind` for `e`'s call) into
    its result `e` (whose `info.rejected` the result's words have set). A kind of another type
    than text was warned and dropped when the record was checked; `seen` holds the unknown kinds
    already warned about."""
    kind = rec.data.get("toolDenialKind")
    where = "/toolDenialKind"
    if not isinstance(kind, str):
        found = _stream_kind(rec, e.call_id)
        if found is None:
            return
        kind, where = found
    elif len(results := _results(rec)) != 1:
        if results and e.refs and e.refs[0].pointer == results[0]:  # said once, with the record's first result
            warn("denial-kind", f"toolDenialKind {kind!r} on a record of {len(results)} tool results names none "
                 "of them; read as absent", rec.ev.source, rec.ev.line)
        return
    if kind not in KINDS and kind not in seen:
        seen.add(kind)
        warn("denial-kind", f"{where.rsplit('/', 1)[1]} {kind!r} is not one forsy knows; read as a denial, not "
             "the user's rejection", rec.ev.source, rec.ev.line)
    if kind == "user-rejected" and info.rejected:
        return  # the kind and the words agree: the person's rejection, as the words alone said
    info.rejected = False
    info.failure_rule = DENIED_RULE
    info.outcome_refs = [Ref(rec.ev.id, where)]
    e.is_error = True


def _stream_kind(rec: Record, call_id: str | None) -> tuple[str, str] | None:
    """The stream's `non_execution_kind` for the result of `call_id`, and where it is; None when
    the message names none for it (an entry of another shape is passed over, as the SDKs do)."""
    meta = rec.data.get("tool_result_meta")
    if call_id is None or not isinstance(meta, list):
        return None
    for i, entry in enumerate(meta):
        if isinstance(entry, dict) and entry.get("id") == call_id and isinstance(entry.get("non_execution_kind"), str):
            return entry["non_execution_kind"], pointer("tool_result_meta", i, "non_execution_kind")
    return None
