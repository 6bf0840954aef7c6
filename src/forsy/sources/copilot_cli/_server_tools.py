"""The provider's own tools in an `assistant.message`: `data.serverTools`.

The CLI keeps the calls the model provider ran itself (a hosted web search, a tool search, an
advisor) on the message that ends the model call, verbatim, for replay: `{provider, items?,
rawContentBlocks?, functionCallNamespaces?, advisorModel?}` (`AssistantMessageServerTools`,
marked experimental, in github/copilot-sdk's generated session-events.ts at cc0438d66e; the
schema has it since the CLI's 1.0.62). The items are the provider's own shapes; the ones whose
meaning the provider documents are read:

* Anthropic content blocks: `server_tool_use` {id, name, input} → a call; a `*_tool_result`
  {tool_use_id, content} naming one of the message's calls → its result (a string as it is,
  a list element by element, anything else as JSON text), failed when the content is an
  error (`type` `*_error`) or the block says `is_error`;
* OpenAI Responses items: `web_search_call` {id, status, action} → a web search call, its
  `action` the arguments; its results stay on the provider's side (no result expected, as in
  a Codex rollout).

Every call is the agent's, marked `server_side`, in no parallel group (the provider ran them in
its own loop within the one model call; the log does not say that any two ran together). Any
other item (another type, a result for no call of the message, a value that is no object) is
counted (`server_tool_items_unread`) and warned, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...evidence import Event, Ref, Session, pointer
from ...payloads import CallInfo, ResultInfo
from .._records import Record
from ..chat import provider_content, provider_error

NewEvent = Callable[..., Event]  # (kind, rec, pointer, **fields) -> Event, the transcript's
UNREAD = "server_tool_items_unread"
UNREAD_WHY = "provider server-tool items forsy does not read (counted and warned)"


def read_server_tools(s: Session, rec: Record, envelope: Any, new: NewEvent) -> int:
    """The calls (and results) of `data.serverTools`, made by `new`; how many of its items were
    not read (counted and warned)."""
    if not isinstance(envelope, dict):
        return _unread(s, rec, ["serverTools is not an object"])
    unread: list[str] = []
    for key in ("rawContentBlocks", "items"):
        raw = envelope.get(key)
        if raw is None:
            continue
        if not isinstance(raw, list):
            unread.append(f"{key} is not a list")
            continue
        names = {b["id"]: b.get("name") for b in raw if isinstance(b, dict) and b.get("type") == "server_tool_use"
                 and isinstance(b.get("id"), str)}
        for i, item in enumerate(raw):
            at = pointer("data", "serverTools", key, i)
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "server_tool_use" and isinstance(item.get("name"), str):
                new("tool_call", rec, at + "/input" if "input" in item else at, tool=item["name"], call_id=_id(item),
                    args=item.get("input"), name_ref=Ref(rec.ev.id, at + "/name"),
                    info=CallInfo(server_side=True))
            elif isinstance(kind, str) and kind.endswith("_tool_result") and item.get("tool_use_id") in names:
                _result(rec, item, at, new, names[item["tool_use_id"]])
            elif kind == "web_search_call":
                status = item.get("status") if isinstance(item.get("status"), str) else None
                new("tool_call", rec, at + "/action" if "action" in item else at, tool="web_search", call_id=_id(item),
                    args=item.get("action"),
                    info=CallInfo(server_side=True, status=status, result_in_log=False))
            else:
                unread.append(f"{key}[{i}]: {kind!r}" if isinstance(kind, str) else f"{key}[{i}]: no type")
    return _unread(s, rec, unread) if unread else 0


def _id(item: dict[str, Any]) -> str | None:
    return item["id"] if isinstance(item.get("id"), str) and item["id"] else None


def _result(rec: Record, item: dict[str, Any], at: str, new: NewEvent, name: Any) -> None:
    """A server tool's result block: failed when the block says so or its content is an error
    (`web_search_tool_result_error`, `code_execution_tool_result_error`...)."""
    content = item.get("content")
    refs, texts = provider_content(rec.ev.id, at + "/content", content)
    failed = item.get("is_error") is True or provider_error(content)
    ev = new("tool_result", rec, at + "/content" if "content" in item else at, text="\n".join(texts) if texts else None,
             call_id=item["tool_use_id"], tool=name if isinstance(name, str) else None, is_error=failed,
             info=ResultInfo())
    ev.refs = refs or ev.refs


def _unread(s: Session, rec: Record, what: list[str]) -> int:
    s.quality.extra[UNREAD] = s.quality.extra.get(UNREAD, 0) + len(what)
    s.warn("unread-content", f"{len(what)} provider server-tool item(s) not read: {'; '.join(what)}", rec.ev.source,
           rec.ev.line)
    return len(what)
