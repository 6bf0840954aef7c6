"""The Codex thread builder (`sources/codex/_build.py`), one promise at a time, on hand-built
rollouts in the Rust recorder's envelope (`{timestamp, type, payload}` per line).

Each test writes the records it needs and pins, per event: kind, actor, text, the pointer of
its ref and the line it came from, plus the payload fields the builder sets. Lines are
1-based: the session_meta is line 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Event, Session
from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

ID = "019e7c30-0000-7000-8000-00000000dddd"
NAME = f"rollout-2026-08-01T10-00-00-{ID}.jsonl"
META: dict[str, Any] = {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "cli_version": "0.61.0"}}


def item(**p: Any) -> dict[str, Any]:
    return {"type": "response_item", "payload": p}


def msg(**p: Any) -> dict[str, Any]:
    return {"type": "event_msg", "payload": p}


def user(text: str) -> list[dict[str, Any]]:
    """A typed prompt as Codex writes it: the item, then the event that confirms it."""
    return [item(type="message", role="user", content=[{"type": "input_text", "text": text}]),
            msg(type="user_message", message=text)]  # fmt: skip


def say(text: str) -> dict[str, Any]:
    return item(type="message", role="assistant", content=[{"type": "output_text", "text": text}])


def read(tmp_path: Path, records: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> Session:
    lines = [json.dumps({"timestamp": f"2026-08-01T10:00:{i:02d}.000Z", **r})
             for i, r in enumerate([meta or META, *records])]  # fmt: skip
    path = tmp_path / NAME
    path.write_text("\n".join(lines) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s


def where(s: Session, e: Event) -> tuple[str, int | None]:
    return e.refs[0].pointer, s.evidence[e.refs[0].ev].line


def notes(s: Session) -> list[tuple[Any, ...]]:
    out = []
    for e in s.events:
        if e.kind == "note":
            assert isinstance(e.info, NoteInfo)
            out.append((e.info.subtype, e.actor, e.text, *where(s, e)))
    return out


# ------------------------------------------------------------------ notes from events and items


def test_note_events_keep_their_message_and_where_it_is(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        msg(type="warning", message="model rerouted"),
        msg(type="stream_error"),  # no message: the note points at the record
        msg(type="item_completed", item={"type": "plan", "text": "1. read\n2. fix"}),
        msg(type="item_completed", item={"type": "plan"}),  # a plan without text: nothing to keep
        msg(type="item_completed", item={"type": "sleep", "text": "zz"}),  # not a plan: no note
        msg(type="turn_aborted"),  # no reason
        msg(type="thread_rolled_back", num_turns=0),  # nothing dropped
    ])  # fmt: skip
    assert [e.abandoned for e in s.events] == [False] * len(s.events)
    assert notes(s) == [
        ("warning", "system", "model rerouted", "/payload/message", 4),
        ("stream_error", "system", None, "/payload", 5),
        ("plan", "system", "1. read\n2. fix", "/payload/item/text", 6),
        ("turn_aborted", "system", None, "/payload", 9),
        ("thread_rolled_back", "system", None, "/payload", 10),
    ]
    infos = [e.info for e in s.events if e.kind == "note"]
    assert [(i.reason, i.num_turns) for i in infos if isinstance(i, NoteInfo)][3:] == [(None, None), (None, 0)]
    assert s.quality.unknown_records == 0 and s.warnings == []


def test_an_agent_message_item_names_both_agents(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        say("first"),
        item(type="agent_message", author="/root/a", recipient="/root",
             content=[{"type": "input_text", "text": "done"}, {"type": "encrypted"}, {"type": "x", "text": "more"}]),
        say("second"),
        item(type="agent_message", author="/root/b", recipient=7, content=[]),
    ])  # fmt: skip
    assert notes(s) == [
        ("agent_message", "system", "done", "/payload/content/0/text", 5),
        ("agent_message", "system", "more", "/payload/content/2/text", 5),
        ("agent_message", "system", None, "/payload", 7),
    ]
    raws = [e.info.raw for e in s.events if isinstance(e.info, NoteInfo)]
    assert raws == [{"author": "/root/a", "recipient": "/root"}] * 2 + [{"author": "/root/b"}]
    # an agent message ends the model response: the texts on either side are two groups
    a, b = [e.group for e in s.events if e.kind == "agent_text"]
    assert (a, b) == ("L4", "L6")


def test_reasoning_parts_are_kept_apart_and_encrypted_ones_counted(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        item(type="reasoning", summary=[{"type": "summary_text", "text": "plan"}],
             content=[{"type": "reasoning_text", "text": "raw thought"}], encrypted_content="gAAA"),
        item(type="function_call", name="shell", arguments="{}", call_id="c1"),
        item(type="reasoning", summary=[], encrypted_content="gAAB"),
        item(type="reasoning", summary=[], encrypted_content="gAAC"),
        item(type="reasoning", summary=[]),  # nothing at all: not counted as encrypted
    ])  # fmt: skip
    rs = [e for e in s.events if e.kind == "reasoning"]
    got = [(e.text, e.info.part if isinstance(e.info, MessageInfo) else None, *where(s, e), e.group) for e in rs]
    assert got == [("plan", "summary", "/payload/summary/0/text", 4, "L4"),
                   ("raw thought", "raw", "/payload/content/0/text", 4, "L4")]  # fmt: skip
    [call] = [e for e in s.events if e.kind == "tool_call"]
    assert call.group == "L4"  # the same model response as its reasoning
    assert s.quality.encrypted_reasoning == 2


# ------------------------------------------------------------------ compaction


def test_a_compaction_and_its_twin_make_one_event(tmp_path: Path) -> None:
    hist = [{"type": "message"}, {"type": "message"}, {"type": "compaction"}]
    s = read(tmp_path, [
        *user("go"),
        item(type="compaction", encrypted_content="gAAA"),  # line 4
        msg(type="token_count"), msg(type="token_count"), msg(type="token_count"),
        msg(type="context_compacted"),  # line 8: four records on, nothing between: its twin
        say("after"),  # line 9
        *[msg(type="token_count")] * 4,  # lines 10-13: the next `compacted` is out of the twin's reach
        {"type": "compacted", "payload": {"message": "Summary so far", "replacement_history": hist}},  # line 14
        msg(type="context_compacted"),  # its twin beside a `compacted` record
        say("a"), msg(type="token_count"), msg(type="token_count"), msg(type="token_count"),
        item(type="compaction", encrypted_content="gAAB"),  # line 20: five records on: a new one
        say("b"),
    ])  # fmt: skip
    comps = [e for e in s.events if e.kind == "compaction"]
    got = [(e.actor, e.text, *where(s, e)) for e in comps]
    assert got == [("system", None, "/payload", 4), ("system", "Summary so far", "/payload/message", 14),
                   ("system", None, "/payload", 20)]  # fmt: skip
    infos = [e.info for e in comps if isinstance(e.info, NoteInfo)]
    assert [(i.replacement_history_items, i.encrypted) for i in infos] == [(None, True), (3, False), (None, True)]
    assert s.quality.compactions == 3
    # a compaction ends the model response
    assert [e.group for e in s.events if e.kind == "agent_text"] == ["L9", "L16", "L21"]


def test_a_second_compaction_right_after_is_dropped_only_when_nothing_came_between(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        item(type="compaction", encrypted_content="gAAA"),
        say("between"),
        msg(type="context_compacted"),
    ])  # fmt: skip
    assert [where(s, e)[1] for e in s.events if e.kind == "compaction"] == [4, 6]


# ------------------------------------------------------------------ rollback


def test_a_rollback_abandons_the_last_turns_only(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("one"), say("a1"),
        *user("two"), say("a2"),
        *user("three"), say("a3"),
        msg(type="thread_rolled_back", num_turns=1),  # drops "three" and its answer
        msg(type="thread_rolled_back", num_turns=1),  # then "two"
        *user("four"), say("a4"),
        msg(type="thread_rolled_back"),  # no count: nothing dropped
        msg(type="thread_rolled_back", num_turns=-1),
    ])  # fmt: skip
    got = [(e.text, e.abandoned) for e in s.events if e.kind in ("user", "agent_text")]
    assert got == [("one", False), ("a1", False), ("two", True), ("a2", True), ("three", True), ("a3", True),
                   ("four", False), ("a4", False)]  # fmt: skip
    assert s.quality.abandoned_events == 5  # the two turns and the first rollback's note
    rolled = [e.info.num_turns for e in s.events if isinstance(e.info, NoteInfo)]
    assert rolled == [1, 1, None, -1]


def test_a_rollback_of_more_turns_than_there_are_abandons_them_all(tmp_path: Path) -> None:
    s = read(tmp_path, [*user("one"), say("a1"), *user("two"), msg(type="thread_rolled_back", num_turns=5),
                        *user("three")])  # fmt: skip
    assert [(e.text, e.abandoned) for e in s.events if e.kind in ("user", "agent_text")] == [
        ("one", True), ("a1", True), ("two", True), ("three", False)]  # fmt: skip


# ------------------------------------------------------------------ subagents and warnings


def test_a_review_threads_request_is_codexs_and_context_after_it_is_a_note(tmp_path: Path) -> None:
    meta = {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "source": {"subagent": "review"}}}
    s = read(tmp_path, [
        item(type="message", role="user", content=[{"type": "input_text", "text": "Review the diff"}]),
        item(type="message", role="user", content=[{"type": "input_text", "text": "<skill>x</skill>"}]),
    ], meta)  # fmt: skip
    assert notes(s) == [("review_request", "system", "Review the diff", "/payload/content/0/text", 2),
                        ("skill", "system", "<skill>x</skill>", "/payload/content/0/text", 3)]  # fmt: skip
    assert "context" not in s.meta.extra


def test_unknown_records_are_warned_once_per_type_with_file_and_line(tmp_path: Path) -> None:
    s = read(tmp_path, [*user("go"), {"type": "brand_new", "payload": {}}, {"type": "brand_new", "payload": {}},
                        msg(type="shiny")])  # fmt: skip
    got = [(w.code, w.message, w.file, w.line) for w in s.warnings]
    assert got == [
        ("unknown:brand_new", "unknown record type 'brand_new'; skipped (reported once)", NAME, 4),
        ("unknown:event_msg:shiny", "unknown record type 'event_msg:shiny'; skipped (reported once)", NAME, 6),
    ]
    assert s.quality.unknown_records == 3


def test_images_sent_with_a_prompt_are_counted(tmp_path: Path) -> None:
    s = read(tmp_path, [
        msg(type="user_message", message="look", images=["a.png", "b.png"], local_images=["c.png"]),
        msg(type="user_message", message="again"),
    ])  # fmt: skip
    got = [(e.text, e.info.images if isinstance(e.info, MessageInfo) else None) for e in s.events]
    assert got == [("look", 3), ("again", 0)]


# ------------------------------------------------------------------ event_msg records read alone


def test_event_messages_without_their_items_are_read(tmp_path: Path) -> None:
    s = read(tmp_path, [
        msg(type="user_message", message="fix it"),  # line 2: no response item beside it
        msg(type="agent_message", message="on it", phase="commentary"),
        msg(type="task_complete"),  # ends the response: the next text is a new group
        msg(type="agent_message", message="done"),
        msg(type="user_message"),  # line 6: no message: not understood
        msg(type="thread_name_updated", thread_name="Fix it"),
    ])  # fmt: skip
    got = [(e.kind, e.actor, e.text, *where(s, e), e.group) for e in s.events]
    assert got == [("user", "user", "fix it", "/payload/message", 2, None),
                   ("agent_text", "agent", "on it", "/payload/message", 3, "L3"),
                   ("agent_text", "agent", "done", "/payload/message", 5, "L5")]  # fmt: skip
    phases = [e.info.phase for e in s.events if isinstance(e.info, MessageInfo)]
    assert phases == [None, "commentary", None]
    assert s.meta.extra["thread_name"] == "Fix it"
    assert [(w.code, w.line) for w in s.warnings] == [("unknown:event_msg:user_message", 6)]
    assert s.quality.unknown_records == 1


def test_a_prompt_ends_the_response_before_it(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("one"), say("a"),
        msg(type="user_message", message="two"),  # line 5: an event alone, then the same response goes on
        say("b"),
    ])  # fmt: skip
    assert [e.group for e in s.events if e.kind == "agent_text"] == ["L4", "L6"]


def test_a_spawned_threads_event_prompt_is_its_parents_words(tmp_path: Path) -> None:
    meta = {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "source": {
        "subagent": {"thread_spawn": {"parent_thread_id": "019e7c30-0000-7000-8000-00000000eeee"}}}}}
    skill = [{"type": "input_text", "text": "<skill>s</skill>"}]
    s = read(tmp_path, [msg(type="user_message", message="look at tests/"),
                        item(type="message", role="user", content=skill)],
             meta)  # fmt: skip
    assert notes(s) == [("subagent_input", "agent", "look at tests/", "/payload/message", 2),
                        ("skill", "system", "<skill>s</skill>", "/payload/content/0/text", 3)]  # fmt: skip


# ------------------------------------------------------------------ injected context


def test_context_after_the_dialogue_is_a_note_with_its_role(tmp_path: Path) -> None:
    s = read(tmp_path, [
        item(type="message", role="developer", content=[{"type": "input_text", "text": "<permissions instructions>p"}]),
        msg(type="agent_message", message="hello"),  # the dialogue begins with the agent's words
        item(type="message", role="developer", content=[{"type": "input_text", "text": "<model_switch>m"}]),
        item(type="message", role="user", content=[{"type": "input_text", "text": "<environment_context>e"}]),
    ])  # fmt: skip
    assert [c["kind"] for c in s.meta.extra["context"]] == ["permissions_instructions"]
    got = [(e.info.subtype, e.info.role, *where(s, e)) for e in s.events if isinstance(e.info, NoteInfo)]
    assert got == [("model_switch", "developer", "/payload/content/0/text", 4),
                   ("environment_context", "user", "/payload/content/0/text", 5)]  # fmt: skip


def test_a_turn_aborted_message_alone_is_the_users_interrupt(tmp_path: Path) -> None:
    text = "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"
    s = read(tmp_path, [*user("go"), say("working"),
                        item(type="message", role="user", content=[{"type": "input_text", "text": text}])])
    [e] = [e for e in s.events if e.kind == "interrupt"]
    assert (e.actor, e.text, *where(s, e)) == ("user", text, "/payload/content/0/text", 5)
    assert isinstance(e.info, NoteInfo) and e.info.subtype == "turn_aborted_notice"


# ------------------------------------------------------------------ user message items


def test_a_confirmed_message_gives_each_text_block_and_its_images_once(tmp_path: Path) -> None:
    image = {"type": "input_image", "image_url": "data:"}
    s = read(tmp_path, [
        item(type="message", role="user", content=[
            image, {"type": "input_text", "text": "  "}, {"type": "input_text", "text": "look"}, image, "junk",
            {"type": "input_text", "text": "and this"}]),  # line 2
        msg(type="user_message", message="look"),
        item(type="message", role="user", content=[{"type": "input_text", "text": "queued words"}]),  # line 4
    ])  # fmt: skip
    got = [(e.kind, e.text, *where(s, e), getattr(e.info, "images", None), getattr(e.info, "subtype", None),
            getattr(e.info, "role", None)) for e in s.events]  # fmt: skip
    assert got == [
        ("user", "look", "/payload/content/2/text", 2, 2, None, None),
        ("user", "and this", "/payload/content/5/text", 2, 0, None, None),
        # not confirmed by a user_message event: Codex's, not typed
        ("note", "queued words", "/payload/content/0/text", 4, None, "unconfirmed_user_text", "user"),
    ]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_field_type", "item 4 is a string, not an object; ignored", NAME, 2)]


def test_an_ide_wrapped_prompt_keeps_the_typed_words_and_the_context_apart(tmp_path: Path) -> None:
    ctx = "# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\n"
    s = read(tmp_path, [item(type="message", role="user", content=[{"type": "input_text", "text": ctx + "fix it"}]),
                        msg(type="user_message", message="fix it")])  # fmt: skip
    [e] = s.events
    assert isinstance(e.info, MessageInfo)
    i = e.info
    assert (e.text, i.span, i.wrapped, i.context, i.context_span) == (
        "fix it", (len(ctx), len(ctx) + 6), "ide_context", ctx, (0, len(ctx)))  # fmt: skip


def test_reasoning_events_read_alone_keep_their_part(tmp_path: Path) -> None:
    s = read(tmp_path, [*user("go"), msg(type="agent_reasoning", text="sum"),
                        msg(type="agent_reasoning_raw_content", text="raw")])  # fmt: skip
    got = [(e.text, e.info.part if isinstance(e.info, MessageInfo) else None, *where(s, e), e.group)
           for e in s.events if e.kind == "reasoning"]  # fmt: skip
    assert got == [("sum", "summary", "/payload/text", 4, "L4"), ("raw", "raw", "/payload/text", 5, "L4")]


def test_turn_starts_aborts_and_contexts_end_the_response(tmp_path: Path) -> None:
    s = read(tmp_path, [*user("go"), say("a"), msg(type="turn_started", turn_id="t2"), say("b"),
                        msg(type="turn_aborted", reason="replaced"), say("c"), {"type": "turn_context", "payload": {}},
                        say("d")])  # fmt: skip
    assert [e.group for e in s.events if e.kind == "agent_text"] == ["L4", "L6", "L8", "L10"]
    assert [e.info.turn_id for e in s.events if e.kind == "agent_text" and e.info] == [None, "t2", "t2", "t2"]


def test_a_subagents_groups_name_its_thread(tmp_path: Path) -> None:
    meta = {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "source": {"subagent": "review"}}}
    s = read(tmp_path, [say("x")], meta)
    assert [(e.actor, e.group) for e in s.events] == [(f"subagent:{ID}", f"{ID}:L2")]


def test_inter_agent_communication_is_a_note_with_its_text(tmp_path: Path) -> None:
    s = read(tmp_path, [
        {"type": "inter_agent_communication", "payload": {"message": 3, "content": "ping", "text": "t"}},
        {"type": "inter_agent_communication", "payload": {"text": "pong"}},
        {"type": "inter_agent_communication", "payload": {"author": "/root"}},
    ])  # fmt: skip
    assert notes(s) == [("inter_agent_communication", "system", "ping", "/payload/content", 2),
                        ("inter_agent_communication", "system", "pong", "/payload/text", 3),
                        ("inter_agent_communication", "system", None, "/payload", 4)]  # fmt: skip


# ------------------------------------------------------------------ records of every kind


def test_references_and_odd_records(tmp_path: Path) -> None:
    s = read(tmp_path, [
        say("first"),  # line 2: the group starts here, as nothing ended one before
        {"type": "rollout_reference", "payload": {"type": "rollout_reference", "path": "b.jsonl"}},
        {"type": "inter_agent_communication", "payload": {"message": "m", "content": "c"}},
        {"type": "response_item", "payload": {"role": "assistant"}},  # line 5: an item without type
        {"type": "event_msg", "payload": {"message": "x"}},  # line 6: an event without type
        item(type="additional_tools", tools=[{"name": "a"}, "b", {"name": 1}]),
        item(type="additional_tools", tools=[{"name": "a"}, {"name": "c"}]),
        item(type="other"), item(type="ghost_snapshot"),
        msg(type="agent_message", message="x", phase="final_answer"),  # line 11: the next item's mirror
        item(type="message", role="assistant", phase="commentary",
             content=[{"type": "output_text", "text": "y"}]),  # fmt: skip
        msg(type="turn_complete"), say("z"),  # line 14
    ])  # fmt: skip
    assert notes(s) == [("rollout_reference", "system", None, "/payload", 3),
                        ("inter_agent_communication", "system", "m", "/payload/message", 4)]  # fmt: skip
    raws = [e.info.raw for e in s.events if isinstance(e.info, NoteInfo)][:1]
    assert raws == [{"path": "b.jsonl"}]
    assert s.meta.extra["additional_tools"] == ["a", "c"]
    assert [(w.code, w.line) for w in s.warnings] == [("unknown:response_item:", 5), ("unknown:event_msg:", 6)]
    texts = [(e.text, e.group, e.info.phase if isinstance(e.info, MessageInfo) else None, e.info.turn_id if e.info
              else 0) for e in s.events if e.kind == "agent_text"]  # fmt: skip
    # references, unknown records and tool lists do not end a response; turn_complete does, and so
    # does a message from another agent (Codex counts one as a turn's start: `rollout_item_is_user_
    # turn_boundary`), so "y" after it starts a response of its own
    assert texts == [("first", "L2", None, None), ("y", "L12", "commentary", None), ("z", "L14", None, None)]


def test_a_fork_reference_is_a_note_and_what_precedes_it_the_parents_copy(tmp_path: Path) -> None:
    s = read(tmp_path, [say("copied"), {"type": "fork_reference", "payload": {"rollout_path": "a.jsonl"}},
                        say("own")])  # fmt: skip
    assert [(e.kind, e.text, *where(s, e)) for e in s.events] == [
        ("note", None, "/payload", 3), ("agent_text", "own", "/payload/content/0/text", 4)]  # fmt: skip
    assert isinstance(s.events[0].info, NoteInfo) and s.events[0].info.raw == {"rollout_path": "a.jsonl"}
    assert s.events[0].actor == "system"


def test_the_first_results_of_a_forked_spawn_are_its_parents_output(tmp_path: Path) -> None:
    meta = {"type": "session_meta", "payload": {"id": ID, "forked_from_id": "019e7c30-0000-7000-8000-00000000eeee",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": "019e7c30-0000-7000-8000-00000000eeee"}}}}}
    s = read(tmp_path, [item(type="function_call_output", call_id="call_spawn", output="{\"agent_id\": \"x\"}"),
                        item(type="function_call_output", call_id="call_other", output="late")], meta)  # fmt: skip
    [note, res] = s.events
    assert (note.kind, note.text, *where(s, note)) == ("note", "{\"agent_id\": \"x\"}", "/payload/output", 2)
    assert isinstance(note.info, NoteInfo) and note.info.spawn_call_id == "call_spawn"
    assert (res.kind, res.call_id) == ("tool_result", "call_other")  # only the first is the marker
    # a subagent that is not a fork: its first result is a result
    meta["payload"].pop("forked_from_id")
    assert [e.kind for e in read(tmp_path, [item(type="function_call_output", call_id="c", output="o")], meta).events] \
        == ["tool_result"]


def test_plain_developer_text_is_context_of_its_role_and_assistant_words_begin_the_dialogue(tmp_path: Path) -> None:
    s = read(tmp_path, [
        item(type="message", role="developer",
             content=[{"type": "input_image"}, {"type": "input_text", "text": "Be brief."}]),
        say("hello"),
        item(type="message", role="developer", content=[{"type": "input_text", "text": "Be briefer."}]),
    ])  # fmt: skip
    ctx = [(c["kind"], c["role"], c["text"]) for c in s.meta.extra["context"]]
    assert ctx == [("developer", "developer", "Be brief.")]
    assert notes(s) == [("developer", "system", "Be briefer.", "/payload/content/0/text", 4)]
