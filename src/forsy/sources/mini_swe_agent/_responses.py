"""What a 2.x Responses-API model (`litellm_response`, `openrouter_response`, `portkey_response`)
writes in place of the chat messages, read as the chat-completions form of the same run is.

The writer (SWE-agent/mini-swe-agent 2.4.6, models/litellm_response_model.py and its openrouter
and portkey twins, models/utils/actions_toolcall_response.py):

* an answer is the whole response object the API returned (`query`: `response.model_dump()`,
  `"object": "response"`, no `role`) with `extra` (`actions`, `cost`, `timestamp`) added. Its
  `output` items: `reasoning` (`summary[].text`, `content[].text`, or only
  `encrypted_content`), `function_call` (`call_id`, `name`, `arguments` a JSON string: the
  agent runs one `bash` action per item, `call_id or id` its tool_call_id) and `message`
  (`content[]` parts `output_text`, or `refusal`);
* a command's output is `{"type": "function_call_output", "call_id", "output", "extra"}`, no
  `role` (`format_toolcall_observation_messages`; `extra` as the chat form's `tool` message);
  the output of a command the person typed is a `message` with role `user`;
* the openrouter and portkey models' own messages (`format_message`: system, task, an uncaught
  exception's exit) and every format error are `{"type": "message", "role", "content":
  [{"type": "input_text", "text"}]}`; a format error's `extra.response` is the response object.
"""

from __future__ import annotations

from typing import Any, Protocol

import orjson

from ...evidence import Event, Ref, Session
from ...jsontext import json_text
from ...payloads import MessageInfo
from .._records import MAX_DEPTH, too_deep


class _Reader(Protocol):
    """What these functions use of source._Reader (a protocol: this module imports nothing of
    source, which imports it)."""

    s: Session
    src: str
    ev: str
    line: int

    def _skip(self, code: str, why: str) -> None: ...

    def _ev(self, kind: Any, actor: str, ts: str | None, ts_from: Ref | None, ptr: str | list[str],
            text: str | None, **kw: Any) -> Event: ...

RESPONSE = "response"
OUTPUT = "function_call_output"
# the text part types a message's content holds in the Responses API (input: what was sent,
# output: what the model wrote); each carries `text`, as the chat form's `text` part does
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def is_response(m: Any) -> bool:
    return isinstance(m, dict) and "role" not in m and m.get("object") == RESPONSE


def is_output(m: Any) -> bool:
    return isinstance(m, dict) and "role" not in m and m.get("type") == OUTPUT


def parse_args(r: _Reader, raw: Any, what: str) -> Any:
    """A call's arguments: the JSON object a string holds when it reads back as the same compact
    text (`json_text`), else the value as written."""
    if not isinstance(raw, str):
        return raw
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    if isinstance(v, dict) and too_deep(raw.encode(), v):  # orjson took it: UTF-8 it is
        # later stages (and json_text here) walk values recursively: arguments nested deeper
        # than MAX_DEPTH stay the text they were written as (the message is read: no
        # unparsable record, evidence.UNPARSABLE_WARNINGS)
        r.s.warn("too-deep-value", f"{what} arguments nest values more than {MAX_DEPTH} levels deep; kept as text",
                 r.src, r.line)
        return raw
    return v if isinstance(v, dict) and json_text(v) == raw else raw


def response(r: _Reader, m: dict[str, Any], p: str, ts: str | None, ts_from: Ref | None) -> None:
    """An answer: its output items in order (reasoning, the agent's words, its calls, issued
    together as one group)."""
    items = m.get("output")
    if not isinstance(items, list):  # nothing said, nothing run: the caller sets the answer aside
        return
    group = f"{r.ev}{p}"
    for k, item in enumerate(items):
        ip = f"{p}/output/{k}"
        kind = _dict(item).get("type")
        if kind == "reasoning":
            _reasoning(r, item, ip, ts, ts_from, group)
        elif kind == "message":
            for ptr, text in words(item, ip):
                r._ev("agent_text", "agent", ts, ts_from, ptr, text, group=group)
        elif kind == "function_call":
            _call(r, item, k, ip, ts, ts_from, group)
        else:
            r._skip("unknown-output", f"output[{k}] of the response is a {kind!r} item, which forsy does not read; "
                    "skipped")


def words(item: Any, ip: str) -> list[tuple[str, str]]:
    """(where, text) of a `message` output item's words: its `output_text` parts, and a
    `refusal` part's refusal (the model declining is its answer)."""
    out: list[tuple[str, str]] = []
    content = _dict(item).get("content")
    for j, c in enumerate(content if isinstance(content, list) else []):
        c = _dict(c)
        if c.get("type") in TEXT_PARTS and isinstance(c.get("text"), str) and c["text"]:
            out.append((f"{ip}/content/{j}/text", c["text"]))
        elif c.get("type") == "refusal" and isinstance(c.get("refusal"), str) and c["refusal"]:
            out.append((f"{ip}/content/{j}/refusal", c["refusal"]))
    return out


def _reasoning(r: _Reader, item: dict[str, Any], ip: str, ts: str | None, ts_from: Ref | None, group: str) -> None:
    found = False
    for part, key in (("summary", "summary"), ("raw", "content")):
        blocks = item.get(key)
        for j, b in enumerate(blocks if isinstance(blocks, list) else []):
            text = _dict(b).get("text")
            if isinstance(text, str) and text:
                found = True
                r._ev("reasoning", "agent", ts, ts_from, f"{ip}/{key}/{j}/text", text, group=group,
                      info=MessageInfo(part=part))
    if not found and item.get("encrypted_content"):
        r.s.quality.encrypted_reasoning += 1  # the model's reasoning, kept only as ciphertext


def _call(r: _Reader, item: dict[str, Any], k: int, ip: str, ts: str | None, ts_from: Ref | None,
          group: str) -> None:
    name = item.get("name")
    if not isinstance(name, str):
        r._skip("bad-tool-call", f"output[{k}] of the response is a function call with no name; skipped")
        return
    # the id the agent gave the action, and its output's call_id (parse_toolcall_actions_response)
    cid = next((v for v in (item.get("call_id"), item.get("id")) if isinstance(v, str) and v), None) or f"{r.ev}:{ip}"
    args = parse_args(r, item.get("arguments"), f"output[{k}]")
    r._ev("tool_call", "agent", ts, ts_from, f"{ip}/arguments", None, call_id=cid, tool=name, args=args, group=group,
          name_ref=Ref(r.ev, f"{ip}/name"))


def refused(r: _Reader, extra: dict[str, Any], p: str, ts: str | None, ts_from: Ref | None) -> bool:
    """The words of an answer a Responses-API model could not parse, from the response object
    the format error keeps (`extra.response`); False when that is no response object."""
    resp = _dict(extra.get("response"))
    if resp.get("object") != RESPONSE or not isinstance(resp.get("output"), list):
        return False
    for k, item in enumerate(resp["output"]):
        if _dict(item).get("type") == "message":
            for ptr, text in words(item, f"{p}/extra/response/output/{k}"):
                r._ev("agent_text", "agent", ts, ts_from, ptr, text)
    return True
