"""Fields of Codex response items that the reader's table does not name are counted
(`sources/codex/_drift.py`): per file, per item type and field, into the session's quality
(`unknown_fields`, summed over the files of a session), its facts (by name, summed) and one
warning per file naming them in order. The fields below are written out by hand from the
writer's `ResponseItem` (codex-rs/protocol/src/models.rs, `type` as the tag), so a field the
table loses shows up here as counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forsy.evidence import Quality, Session, SessionMeta, SourceFile
from forsy.sources.codex._drift import count
from forsy.sources.codex._read import LoadedFile, Rec

# every item type the writer serialises, with every field it may write
WRITER: dict[str, dict[str, Any]] = {
    "message": {"role": "user", "content": [], "phase": "final_answer", "end_turn": True},
    "reasoning": {"summary": [], "content": [], "encrypted_content": "e"},
    "function_call": {"name": "shell", "namespace": "ns", "arguments": "{}", "call_id": "c",
                      "encrypted_function_args": "e", "status": "completed"},
    "function_call_output": {"call_id": "c", "output": "ok"},
    "custom_tool_call": {"status": "completed", "call_id": "c", "name": "apply_patch", "input": "x"},
    "custom_tool_call_output": {"call_id": "c", "output": "ok", "name": "apply_patch"},
    "local_shell_call": {"call_id": "c", "status": "completed", "action": {}},
    "web_search_call": {"status": "completed", "action": {}},
    "tool_search_call": {"call_id": "c", "status": "completed", "execution": {}, "arguments": {}},
    "tool_search_output": {"call_id": "c", "status": "completed", "execution": {}, "tools": []},
    "image_generation_call": {"status": "completed", "revised_prompt": "p", "result": "r"},
    "agent_message": {"author": "a", "recipient": "b", "content": []},
    "additional_tools": {"role": "developer", "tools": []},
    "ghost_snapshot": {"ghost_commit": {}},
    "compaction": {"encrypted_content": "e"},
    "context_compaction": {"encrypted_content": "e"},
    "compaction_summary": {"encrypted_content": "e"},
}  # fmt: skip
COMMON = {"id": "rs_1", "internal_chat_message_metadata_passthrough": {}}


def loaded(source: str, specs: list[tuple[str, dict[str, Any]]]) -> LoadedFile:
    recs = []
    for i, (kind, p) in enumerate(specs):
        sub = p.get("type") if isinstance(p.get("type"), str) else None
        recs.append(Rec(i, i + 1, f"e{i}", kind, sub, None, p, ("payload",)))
    path = Path("/logs") / source
    return LoadedFile(path, source, recs, SourceFile(source, str(path), "codex", 0, ""), False)


def session() -> Session:
    return Session("codex", "", [], {}, [], SessionMeta(), Quality())


def item(sub: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "response_item", {"type": sub, **WRITER[sub], **COMMON, **more}


def test_every_field_the_writer_writes_is_named() -> None:
    s = session()
    count(s, loaded("a.jsonl", [item(sub) for sub in WRITER]))
    assert (s.quality.extra, s.meta.extra, s.warnings) == ({}, {}, [])


def test_fields_outside_the_table_are_counted_by_item_and_name_and_said_once_per_file() -> None:
    s = session()
    s.quality.extra["unknown_fields"] = 2  # from a file read before
    s.meta.extra["unknown_fields"] = {"message.tone": 1, "reasoning.depth": 2}
    count(s, loaded("sub/b.jsonl", [
        item("message", tone="calm"), item("reasoning", depth=3), item("message", tone="dry", mood=1),
        item("web_search_call", query="q"),
        ("event_msg", {"type": "message", "tone": "x"}),  # not a response item
        ("response_item", {"type": "brand_new_item", "tone": "x"}),  # no table for it: an unknown record
        ("response_item", {"tone": "x"}),  # no type
        ("compacted", {"type": "message", "tone": "x"}),
    ]))  # fmt: skip
    assert s.quality.extra == {"unknown_fields": 2 + 5}
    assert s.meta.extra["unknown_fields"] == {"message.mood": 1, "message.tone": 3, "reasoning.depth": 3,
                                              "web_search_call.query": 1}  # fmt: skip
    assert list(s.meta.extra["unknown_fields"]) == ["message.tone", "reasoning.depth", "message.mood",
                                                    "web_search_call.query"]  # fmt: skip
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [(
        "unknown_fields", "response item fields this reader's table does not name (a newer Codex?): "
        "message.mood, message.tone, reasoning.depth, web_search_call.query", "sub/b.jsonl", None)]


def test_a_field_of_one_item_type_is_unknown_on_another() -> None:
    s = session()
    # `status` is a function_call field, never a function_call_output one (models.rs at 5ef96ab)
    count(s, loaded("c.jsonl", [item("function_call_output", status="x"), item("compaction", summary=[]),
                                item("ghost_snapshot", encrypted_content="e")]))  # fmt: skip
    assert s.quality.extra == {"unknown_fields": 3}
    assert s.meta.extra["unknown_fields"] == {"compaction.summary": 1, "function_call_output.status": 1,
                                              "ghost_snapshot.encrypted_content": 1}  # fmt: skip
    assert len(s.warnings) == 1
