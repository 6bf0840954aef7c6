"""A Cline task with `ui_messages.json` and no `api_conversation_history.json`.

Cline writes the two files separately (`core/storage/disk.ts`: `saveClineMessages` and
`saveApiConversationHistory`); a task exported, copied or cut short may keep only the UI
messages. They are what the user saw, and still say who did what:

* `say: "task"` (from February 2026), else the first `say: "text"`, is the task as typed,
  `say: "user_feedback"` the person's later words (actor `user`);
* `say: "text"` after it is the agent's words, `say: "reasoning"` its thinking;
  `say: "completion_result"` is its `attempt_completion` call (the result text as input,
  Cline's trailing `HAS_CHANGES` flag cut off, C-span);
* `say` / `ask: "tool"` is a tool view: a JSON object as text whose `tool` field names the
  call (Cline's UI names: `readFile`, `editedExistingFile`, ...); the call's arguments are
  that object (C-json-string). The UI records no result for it (`result_in_log` False);
* `say` / `ask: "command"` is a command (tool `execute_command`, the text its `command`, a
  trailing `REQ_APP` approval flag cut off); the `command_output` records after it, up to the
  next command or tool view, are its output;
* `ask: "followup"` is the model's question to the person (tool `ask_followup_question`,
  its JSON as the arguments).

A record still streaming (`partial: true`) is set aside: the complete one follows it. The
other kinds are marked by `_ledger.mark_ui` as for a full task. Times are each record's `ts`.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...evidence import Event, Ref, Session
from ...payloads import CallInfo
from .._records import Record, too_deep
from ._ledger import HAS_CHANGES, kind_of

REQ_APP = "REQ_APP"  # Cline's flag on a command that asked approval (shared/combineCommandSequences.ts)
TOOL_VIEWS = frozenset({("say", "tool"), ("ask", "tool")})
COMMANDS = frozenset({("say", "command"), ("ask", "command")})
OUTPUTS = frozenset({("say", "command_output"), ("ask", "command_output")})


def read_ui_only(s: Session, ui: list[Record], iso: Any) -> set[str]:
    """Events from the UI records alone; returns the ids of the records made into events."""
    used: set[str] = set()
    open_cmd: Event | None = None
    outputs: list[tuple[Record, str]] = []

    def close() -> None:
        nonlocal open_cmd, outputs
        if open_cmd is not None and outputs:
            refs = [Ref(r.ev.id, "/text") for r, _ in outputs]
            s.events.append(Event("tool_result", "agent", iso(outputs[-1][0].data.get("ts")), refs,
                                  call_id=open_cmd.call_id, tool=open_cmd.tool,
                                  text="\n".join(t for _, t in outputs)))
            used.update(r.ev.id for r, _ in outputs)
        elif open_cmd is not None:
            open_cmd.info = CallInfo(result_in_log=False)
        open_cmd, outputs = None, []

    first_text = True
    for n, rec in enumerate(ui):
        d, kind = rec.data, kind_of(rec.data)
        text = d.get("text")
        ts = iso(d.get("ts"))
        if kind is None or d.get("partial") is True or not isinstance(text, str):
            continue
        if kind in OUTPUTS and open_cmd is not None:
            outputs.append((rec, text))
            continue
        if kind == ("say", "task") or (kind == ("say", "text") and first_text):  # `task` from February 2026
            first_text = False
            ev = Event("user", "user", ts, [Ref(rec.ev.id, "/text")], text=text)
        elif kind == ("say", "user_feedback"):
            ev = Event("user", "user", ts, [Ref(rec.ev.id, "/text")], text=text)
        elif kind == ("say", "text") and text.strip():
            ev = Event("agent_text", "agent", ts, [Ref(rec.ev.id, "/text")], text=text)
        elif kind == ("say", "reasoning") and text.strip():
            ev = Event("reasoning", "agent", ts, [Ref(rec.ev.id, "/text")], text=text)
        elif kind == ("say", "completion_result") and text.strip():
            close()
            body = text[:-len(HAS_CHANGES)] if text.endswith(HAS_CHANGES) else text
            ev = Event("tool_call", "agent", ts, [Ref(rec.ev.id, "/text")], call_id=f"{rec.ev.id}/{n}",
                       tool="attempt_completion", args=body,
                       info=CallInfo(span=(0, len(body)) if body != text else None, result_in_log=False))
        elif kind in COMMANDS and text.strip():
            close()
            cmd = text[:-len(REQ_APP)] if text.endswith(REQ_APP) else text
            ev = Event("tool_call", "agent", ts, [Ref(rec.ev.id, "/text")], call_id=f"{rec.ev.id}/command",
                       tool="execute_command", args=cmd,
                       info=CallInfo(span=(0, len(cmd))) if cmd != text else None)
            open_cmd = ev
        elif kind in TOOL_VIEWS or kind == ("ask", "followup"):
            view = _json(text)
            if view is None:
                continue
            close()
            name = view.get("tool") if kind != ("ask", "followup") else "ask_followup_question"
            ev = Event("tool_call", "agent", ts, [Ref(rec.ev.id, "/text")], call_id=f"{rec.ev.id}/{n}",
                       tool=name if isinstance(name, str) else None, args=view,
                       info=CallInfo(inner_pointer="", result_in_log=False))
        else:
            continue
        s.events.append(ev)
        used.add(rec.ev.id)
    close()
    return used


def _json(text: str) -> dict[str, Any] | None:
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if too_deep(text.encode("utf-8", "surrogatepass"), v):
        return None  # nested past what the later stages walk: read as the text it is
    return v if isinstance(v, dict) else None
