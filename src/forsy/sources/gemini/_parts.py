"""What a chat message's parts hold: texts with their pointers, the call a response names, and
when a model turn asked for its calls."""

from __future__ import annotations

from typing import Any


def part_texts(content: Any, ptr: str, thoughts: bool | None = None) -> list[tuple[str, str]]:
    """(pointer, text) of a PartListUnion: a string, or a list of parts (`{text}` or strings).
    `thoughts`: only the parts marked `thought: true` (True), only the others (False), all (None)."""
    if isinstance(content, str):
        return [(ptr, content)] if content.strip() and not thoughts else []
    out = []
    for i, part in enumerate(content if isinstance(content, list) else []):
        text = part.get("text") if isinstance(part, dict) else part
        thought = isinstance(part, dict) and part.get("thought") is True
        if isinstance(text, str) and text.strip() and (thoughts is None or thoughts == thought):
            out.append((f"{ptr}/{i}/text" if isinstance(part, dict) else f"{ptr}/{i}", text))
    return out


def response_id(part: Any) -> str | None:
    """The call id a `functionResponse` part names (None for any other part)."""
    fr = part.get("functionResponse") if isinstance(part, dict) else None
    rid = fr.get("id") if isinstance(fr, dict) else None
    return rid if isinstance(rid, str) else None


def part_at(content: Any, ptr: str) -> dict[str, Any]:
    """The part a `part_texts` pointer `/content/<i>/text` names (empty when it names none)."""
    bits = ptr.split("/")
    part = content[int(bits[2])] if len(bits) == 4 and isinstance(content, list) else None
    return part if isinstance(part, dict) else {}


def asked_at(ts: str | None, calls: Any) -> tuple[str, str] | None:
    """(the message's time, the first time one of its calls completed) when the message was
    written before that: the model asked for that first batch of calls at the message's time.

    geminiChat.ts records a call once it completed, at that time (`recordCompletedToolCalls`);
    a model turn with no text of its own writes no message, so its calls join the message before
    (chatRecordingService.ts `recordToolCalls`), or make one at their end. So only the calls
    that completed first began at the message's time; of the others only the end is known.
    Times are compared as the CLI writes them (`toISOString`: one length, UTC)."""
    done = [tc["timestamp"] for tc in (calls if isinstance(calls, list) else [])
            if isinstance(tc, dict) and isinstance(tc.get("timestamp"), str)]
    if not ts or not done:
        return None
    first = min(done)
    same_form = all(len(t) == len(ts) and t.endswith("Z") for t in done) and ts.endswith("Z")
    return (ts, first) if same_form and ts < first else None
