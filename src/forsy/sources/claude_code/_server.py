"""Results of the tools the model's provider ran itself (`server_tool_use` calls: web search,
web fetch, code execution, tool search, the MCP connector, the advisor), which arrive in the
assistant message as `<tool>_tool_result` blocks {tool_use_id, content[, is_error]}.

Their content is the provider's, in the shapes Anthropic's Messages API documents for them:

* an error: an object whose `type` ends in `_error` (`web_search_tool_result_error`,
  `code_execution_tool_result_error`, `advisor_tool_result_error`…, each with an `error_code`),
  alone or in the content's list; or the block's `is_error: true` (`mcp_tool_result`): the
  call failed. The output stays the content's exact JSON; the outcome cites the `error_code`
  (else the error's `type`: R-call/server-tool-error), or the flag (R-call/error-flag);
* an object of a `type` and a `text` alone (`advisor_result`, the advice): that text;
* an object of a `type` and an `encrypted_content` alone (`advisor_redacted_result`: the
  advice, encrypted for the model): nothing readable. The output is forsy's stated marker (an
  excerpt, never the ciphertext) and an `encrypted_reasoning` note counts it, as a redacted
  thinking block is counted;
* anything else (search results, a fetched page, a code run's output): its exact JSON text,
  a string as it is.
"""

from __future__ import annotations

from typing import Any

from ...evidence import Event, Ref, pointer
from ...jsontext import json_text
from ...payloads import NoteInfo, ResultInfo
from .._records import Record
from ..chat import provider_error

SERVER_ERROR_RULE = "R-call/server-tool-error"
ENCRYPTED_MARK = "[encrypted result omitted by forsy: {kind}]"


def _error_at(content: Any, at: str) -> str | None:
    """Where the content says the call failed: an error object's `error_code` (else its
    `type`), the content's own or the first of its list's; None when it holds no error."""
    if provider_error(content):
        found, where = content, at
    elif isinstance(content, list):
        j = next((j for j, v in enumerate(content) if provider_error(v)), None)
        if j is None:
            return None
        found, where = content[j], f"{at}/{j}"
    else:
        return None
    return f"{where}/error_code" if isinstance(found.get("error_code"), str | int) else f"{where}/type"


def server_result(rec: Record, b: dict[str, Any], i: int, ts: str | None, ab: bool, cid: str | None,
                  actor: str) -> list[Event]:
    """The events of one server tool result block: its `tool_result` (and the note counting an
    encrypted one). A block's `is_error` of another kind than true/false (warned where the block
    is read) leaves the outcome unknown, unless the content is an error."""
    at = pointer("message", "content", i, "content")
    content = b.get("content")
    flag = b.get("is_error")
    failed_at = _error_at(content, at)
    ref = Ref(rec.ev.id, at)
    text, excerpt, note = json_text(content), False, None
    if isinstance(content, dict) and failed_at is None and set(content) <= {"type", "text"} \
            and isinstance(content.get("text"), str):
        text, ref = content["text"], Ref(rec.ev.id, f"{at}/text")
    elif isinstance(content, dict) and failed_at is None and set(content) <= {"type", "encrypted_content"} \
            and isinstance(content.get("encrypted_content"), str):
        kind = content.get("type")
        text, excerpt = ENCRYPTED_MARK.format(kind=kind if isinstance(kind, str) else "no type"), True
        note = Event("note", actor, ts, [Ref(rec.ev.id, at)], abandoned=ab,
                     info=NoteInfo(subtype="encrypted_reasoning"))
    e = Event("tool_result", actor, ts, [ref], text=text, call_id=cid, is_error=False, excerpt=excerpt, abandoned=ab)
    if failed_at is not None:
        e.is_error = True
        e.info = ResultInfo(failure_rule=SERVER_ERROR_RULE, outcome_refs=[Ref(rec.ev.id, failed_at)])
    elif flag is True:
        e.is_error = True
        e.info = ResultInfo(outcome_refs=[Ref(rec.ev.id, pointer("message", "content", i, "is_error"))])
    elif flag is not None and not isinstance(flag, bool):
        e.is_error = None
    return [e] if note is None else [e, note]
