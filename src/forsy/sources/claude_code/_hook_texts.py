"""Which texts of a hook's attachment Claude Code gives the model, and where each is.

Newer versions write a hook's outcome as an `attachment` record; Claude Code turns some of them
into context for the model's next turn (as public readers of its message building describe it):

* `hook_additional_context` `{hookEvent, content: [text…]}`: each text;
* `hook_blocking_error` `{hookEvent, blockingError: {blockingError}}`: the reason it blocked;
* `hook_success` `{hookEvent, content}`: its output, only for SessionStart and UserPromptSubmit
  hooks and only when not empty (other events' output is shown to no one but the person);
* `async_hook_response` `{hookEvent, response: {systemMessage, hookSpecificOutput:
  {additionalContext}}}`: a background hook's system message and added context, each given to the
  model on its next turn (an empty response gives nothing).

Any other kind (`hook_cancelled`, `hook_non_blocking_error`, …) gives the model nothing and stays
set aside by type.
"""

from __future__ import annotations

from typing import Any

from ...evidence import pointer

# the events whose `hook_success` output the model is given
_SUCCESS_EVENTS = ("SessionStart", "UserPromptSubmit")
HOOK_KINDS = ("hook_additional_context", "hook_blocking_error", "hook_success", "async_hook_response")


def hook_texts(att: dict[str, Any]) -> list[tuple[str, Any]]:
    """(pointer, value) of each text the model was given from the hook attachment `att`, its
    value as written (a caller warns about one that is no text); [] when it gave none."""
    kind = att.get("type")
    if kind == "hook_additional_context":
        content = att.get("content")
        if isinstance(content, str):
            return [(pointer("attachment", "content"), content)]
        if isinstance(content, list):
            return [(pointer("attachment", "content", i), c) for i, c in enumerate(content)]
        return []
    if kind == "hook_blocking_error":
        be = att.get("blockingError")
        if isinstance(be, dict):
            return [(pointer("attachment", "blockingError", "blockingError"), be.get("blockingError"))]
        return [(pointer("attachment", "blockingError"), be)]
    if kind == "hook_success":
        content = att.get("content")
        if att.get("hookEvent") in _SUCCESS_EVENTS and content != "" and content is not None:
            return [(pointer("attachment", "content"), content)]
        return []
    if kind == "async_hook_response":
        resp = att.get("response")
        if not isinstance(resp, dict):
            return []
        out: list[tuple[str, Any]] = []
        if resp.get("systemMessage") not in (None, ""):
            out.append((pointer("attachment", "response", "systemMessage"), resp["systemMessage"]))
        specific = resp.get("hookSpecificOutput")
        if isinstance(specific, dict) and specific.get("additionalContext") not in (None, ""):
            out.append((pointer("attachment", "response", "hookSpecificOutput", "additionalContext"),
                        specific["additionalContext"]))
        return out
    return []
