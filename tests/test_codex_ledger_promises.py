"""Why each record of a Codex rollout was read when no step cites it (`sources/codex/_ledger.py`):
one record per rule, the mark checked by line (heading, rule, subtype)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

ID = "019e7c30-0000-7000-8000-00000000abcd"
NAME = f"rollout-2026-08-03T10-00-00-{ID}.jsonl"
META = "session meta (id, version, cwd, git, instructions)"
LIFE = "lifecycle events repeat the items they announce"
STATE = "state records carry no work"
NOTES = "notes are not steps"


def item(**p: Any) -> dict[str, Any]:
    return {"type": "response_item", "payload": p}


def msg(**p: Any) -> dict[str, Any]:
    return {"type": "event_msg", "payload": p}


def marks(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[Session, dict[int, tuple[str, str, str | None]]]:
    path = tmp_path / NAME
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s, by_line(s)


def by_line(s: Session) -> dict[int, tuple[str, str, str | None]]:
    """The session's ledger marks by the line of the record each is on."""
    out = {}
    for ev_id, m in s.ledger.items():
        line = s.evidence[ev_id].line
        assert line is not None
        out[line] = (m.heading, m.name, m.subtype)
    return out


def test_each_record_kind_has_its_mark(tmp_path: Path) -> None:
    text = [{"type": "input_text", "text": "hi"}]
    _, got = marks(tmp_path, [
        {"type": "session_meta", "payload": {"id": ID}},  # 1
        {"type": "turn_context", "payload": {"model": "m"}},  # 2
        item(type="message", role="developer", content=[{"type": "input_text", "text": "<model_switch>x"}]),  # 3
        msg(type="token_count", info=None),  # 4
        msg(type="task_started", turn_id="t"),  # 5
        msg(type="turn_started", turn_id="t"),  # 6
        msg(type="thread_name_updated", thread_name="n"),  # 7
        item(type="additional_tools", tools=[]),  # 8
        msg(type="item_completed", item={"type": "sleep"}),  # 9
        msg(type="task_complete"),  # 10
        msg(type="turn_complete"),  # 11
        item(type="message", role="user", content=text),  # 12: a prompt, cited
        msg(type="user_message", message="hi"),  # 13: its mirror
        item(type="compaction_summary", encrypted_content="e"),  # 14
        msg(type="exec_command_begin", call_id="c"),  # 15
        {"type": "world_state", "payload": {}},  # 16
        item(type="ghost_snapshot", ghost_commit={}),  # 17
        item(type="other"),  # 18
        item(type="reasoning", summary=[], encrypted_content="gAAA"),  # 19
        item(type="reasoning", summary=[]),  # 20: nothing to read, not encrypted: no mark
        msg(type="warning", message="w"),  # 21
        msg(type="turn_aborted", reason="interrupted"),  # 22
        msg(type="item_completed", item={"type": "plan", "text": "p"}),  # 23
        msg(type="shiny"),  # 24: an unknown event: no mark (the ledger counts it unknown)
    ])  # fmt: skip
    assert got == {
        1: ("metadata", META, None),
        2: ("metadata", "turn context (model, cwd, policies)", None),
        3: ("metadata", "context shown to the model (agent_config.context, memory, cwd)", None),
        4: ("metadata", "usage", None),
        5: ("metadata", "turn id", None),
        6: ("metadata", "turn id", None),
        7: ("metadata", "title", None),
        8: ("metadata", "tools offered to the model later in the thread", None),
        9: ("set_aside", "a completed plan or sleep item (a plan is a note)", None),
        10: ("set_aside", "turn boundaries carry no work", None),
        11: ("set_aside", "turn boundaries carry no work", None),
        12: ("metadata", "context shown to the model (agent_config.context, memory, cwd)", None),  # cited
        13: ("duplicate", "event_msg repeats a response item", None),
        14: ("duplicate", "compaction written twice", None),
        15: ("set_aside", LIFE, None),
        16: ("set_aside", STATE, None),
        17: ("set_aside", "ghost_snapshot (undo snapshot)", None),
        18: ("set_aside", STATE, None),
        19: ("set_aside", "encrypted reasoning is not readable", None),
        21: ("set_aside", NOTES, "warning"),
        22: ("set_aside", "the user interrupted the turn (an interrupt, not a step)", "turn_aborted"),
        23: ("set_aside", NOTES, "plan"),
    }


def test_a_bare_header_is_the_session_meta(tmp_path: Path) -> None:
    _, got = marks(tmp_path, [{"id": ID, "timestamp": "2025-08-12T09:30:00Z"},
                              {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}])
    assert got[1] == ("metadata", META, None)


def test_a_compaction_and_its_twin_event(tmp_path: Path) -> None:
    _, got = marks(tmp_path, [
        {"type": "session_meta", "payload": {"id": ID}},
        {"type": "compacted", "payload": {"message": "sum"}},  # 2: the compaction event (cited by the trace)
        msg(type="context_compacted"),  # 3: its twin
    ])  # fmt: skip
    assert got == {1: ("metadata", META, None), 3: ("duplicate", "compaction written twice", None)}


def test_a_forks_copy_of_its_parents_history_is_set_aside(tmp_path: Path) -> None:
    parent = "019e7c30-0000-7000-8000-00000000aaaa"
    _, got = marks(tmp_path, [
        {"type": "session_meta", "payload": {"id": parent}},  # 1: the parent's meta, copied
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "old"}]),  # 2
        {"type": "session_meta", "payload": {"id": ID, "forked_from_id": parent}},  # 3: the fork's own
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "new"}]),  # 4
    ])  # fmt: skip
    fork = ("set_aside", "a fork's copy of its parent's history", None)
    # (line 4, the fork's own message, is cited by the trace: its mark does not show)
    ctx = ("metadata", "context shown to the model (agent_config.context, memory, cwd)", None)
    assert got == {1: fork, 2: fork, 3: ("metadata", META, None), 4: ctx}
