"""What a Codex rollout says twice (`sources/codex/_index.py`), decision by decision, on record
lists built by hand in the order the Rust recorder writes them: which `event_msg` repeats which
response item (the text, the side, the window of 4 records, the first unclaimed block, the
adjacent record when the texts differ), which `web_search_call` item takes the id of the
`web_search_end` event written before it, which calls an `*_end` event ends, which thread a
`collab_agent_spawn_end` names, and which compaction has a `compacted` twin beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from forsy.sources.codex._index import build_index, compaction_mirror, event_text, item_texts
from forsy.sources.codex._read import Rec


def rec(kind: str, **p: Any) -> tuple[str, dict[str, Any]]:
    return kind, p


def recs(*specs: tuple[str, dict[str, Any]]) -> list[Rec]:
    out = []
    for i, (kind, p) in enumerate(specs):
        sub = p.get("type") if isinstance(p.get("type"), str) else None
        out.append(Rec(i, i + 1, f"e{i}", kind, sub, None, p, ("payload",)))
    return out


def user(*texts: str) -> tuple[str, dict[str, Any]]:
    return rec("response_item", type="message", role="user", content=[{"type": "input_text", "text": t} for t in texts])


def said(*texts: str) -> tuple[str, dict[str, Any]]:
    return rec("response_item", type="message", role="assistant",
               content=[{"type": "output_text", "text": t} for t in texts])  # fmt: skip


def typed(text: Any) -> tuple[str, dict[str, Any]]:
    return rec("event_msg", type="user_message", message=text)


def agent(text: Any) -> tuple[str, dict[str, Any]]:
    return rec("event_msg", type="agent_message", message=text)


OTHER = rec("turn_context", cwd="/w")


def pairs(*specs: tuple[str, dict[str, Any]], start: int = 0) -> tuple[set[int], set[int], bool]:
    ix = build_index(recs(*specs), start)
    return ix.mirrored, ix.typed, ix.has_user_events


# --------------------------------------------------------------------- the texts


def test_the_texts_an_item_offers_for_each_kind_of_event() -> None:
    r = recs(user("a", "b"), said("c"), rec("response_item", type="reasoning", summary=[{"text": "s"}],
                                            content=[{"text": "r"}, {"x": 1}, "no", {"text": 5}]),
             rec("response_item", type="message", role="user", content="flat"), rec("event_msg", type="message"),
             rec("response_item", type="function_call", summary=[{"text": "s"}]))  # fmt: skip
    assert [item_texts(r[0], "user"), item_texts(r[0], "assistant"), item_texts(r[0], "summary")] == [
        ["a", "b"], None, None]
    assert [item_texts(r[1], "assistant"), item_texts(r[1], "user")] == [["c"], None]
    assert [item_texts(r[2], "summary"), item_texts(r[2], "content"), item_texts(r[2], "user")] == [
        ["s"], ["r"], None]
    assert item_texts(r[2], "encrypted_content") == []  # no such list: nothing to compare
    assert item_texts(r[3], "user") == []
    assert item_texts(r[4], "user") is None  # not a response item
    assert item_texts(r[5], "summary") is None  # not a reasoning item
    assert [event_text({"message": "m", "text": "t"}), event_text({"text": "t"}), event_text({"message": 3}),
            event_text({"message": None, "text": "t"}), event_text({})] == ["m", "t", None, None, None]


# --------------------------------------------------------------------- the pairs


def test_a_user_message_event_confirms_the_item_before_it() -> None:
    assert pairs(user("hi"), typed("hi")) == ({1}, {0}, True)
    assert pairs(typed("hi"), user("hi")) == ({0}, {1}, True)  # after it, when that is where it is
    # both sides hold the text: the side Codex writes it on wins (before)
    assert pairs(user("hi"), typed("hi"), user("hi")) == ({1}, {0}, True)
    # the second of two blocks
    assert pairs(user("ctx", "hi"), typed("hi")) == ({1}, {0}, True)


def test_an_agent_message_event_repeats_the_item_after_it() -> None:
    assert pairs(agent("ok"), said("ok")) == ({0}, set(), False)
    assert pairs(said("ok"), agent("ok"), said("ok")) == ({1}, set(), False)  # after wins
    assert pairs(said("ok"), agent("ok")) == ({1}, set(), False)  # before, when it is there only
    assert pairs(agent("ok"), user("ok")) == (set(), set(), False)  # a user item repeats no agent text


def test_reasoning_events_repeat_their_part_of_the_item_after_them() -> None:
    item = rec("response_item", type="reasoning", summary=[{"type": "summary_text", "text": "plan"}],
               content=[{"type": "reasoning_text", "text": "raw"}])  # fmt: skip
    assert pairs(rec("event_msg", type="agent_reasoning", text="plan"), item) == ({0}, set(), False)
    assert pairs(rec("event_msg", type="agent_reasoning_raw_content", text="raw"), item) == ({0}, set(), False)
    # the summary's text in the raw-content event: not the part it repeats; paired only adjacent
    assert pairs(rec("event_msg", type="agent_reasoning_raw_content", text="plan"), item) == ({0}, set(), False)
    assert pairs(rec("event_msg", type="agent_reasoning_raw_content", text="plan"), OTHER, item) == (
        set(), set(), False)
    assert pairs(rec("event_msg", type="agent_reasoning", text="plan"), OTHER, item) == ({0}, set(), False)


def test_equal_texts_pair_within_four_records_only() -> None:
    assert pairs(user("hi"), OTHER, OTHER, OTHER, typed("hi")) == ({4}, {0}, True)
    assert pairs(user("hi"), OTHER, OTHER, OTHER, OTHER, typed("hi")) == (set(), set(), True)
    assert pairs(typed("hi"), OTHER, OTHER, OTHER, user("hi")) == ({0}, {4}, True)
    assert pairs(typed("hi"), OTHER, OTHER, OTHER, OTHER, user("hi")) == (set(), set(), True)
    assert pairs(agent("ok"), OTHER, OTHER, OTHER, said("ok")) == ({0}, set(), False)
    assert pairs(agent("ok"), OTHER, OTHER, OTHER, OTHER, said("ok")) == (set(), set(), False)
    # the nearer wins over the side: one record after beats two before
    assert pairs(user("hi"), OTHER, typed("hi"), user("hi")) == ({2}, {3}, True)


def test_each_block_is_repeated_once() -> None:
    # the second event finds its text claimed: it stands alone (Codex's own record of a prompt)
    assert pairs(user("hi"), typed("hi"), typed("hi")) == ({1}, {0}, True)
    assert pairs(user("hi", "hi"), typed("hi"), typed("hi")) == ({1, 2}, {0}, True)
    assert pairs(user("hi"), typed("hi"), user("hi"), typed("hi")) == ({1, 3}, {0, 2}, True)


def test_different_texts_pair_only_when_adjacent_on_the_events_side() -> None:
    assert pairs(user("<ide>hi</ide>"), typed("hi")) == ({1}, {0}, True)
    assert pairs(typed("hi"), user("<ide>hi</ide>")) == (set(), set(), True)  # after it: not its side
    assert pairs(user("<ide>hi</ide>"), OTHER, typed("hi")) == (set(), set(), True)
    assert pairs(agent("[redacted 1]"), said("[redacted 2]")) == ({0}, set(), False)
    assert pairs(rec("response_item", type="message", role="user", content=[]), typed("hi")) == (set(), set(), True)
    assert pairs(user("x"), typed(7)) == ({1}, {0}, True)  # no text to compare: adjacent decides
    # an item whose text another event repeated exactly is not taken by a neighbour too
    assert pairs(agent("ok"), agent("other"), said("ok")) == ({0}, set(), False)
    # one taken by a neighbour keeps its blocks for an event that repeats one of them exactly
    assert pairs(user("x", "hi"), typed("y"), typed("hi")) == ({1, 2}, {0}, True)


def test_records_before_the_threads_own_start_are_neither_read_nor_paired() -> None:
    assert pairs(user("hi"), typed("hi"), start=1) == (set(), set(), True)
    assert pairs(user("x"), typed("hi"), start=1) == (set(), set(), True)
    assert pairs(typed("hi"), user("hi"), start=1) == (set(), set(), False)
    assert pairs(user("hi"), typed("hi"), OTHER, user("hi"), typed("hi"), start=2) == ({4}, {3}, True)


# ---------------------------------------------------------------- what later events say


def test_end_events_spawns_and_aborts() -> None:
    r = recs(rec("event_msg", type="exec_command_end", call_id="c1", exit_code=0),
             rec("event_msg", type="patch_apply_end", call_id="c2", success=True),
             rec("event_msg", type="mcp_tool_call_end", call_id="c3"),
             rec("event_msg", type="exec_command_end", call_id=4),
             rec("event_msg", type="exec_command_begin", call_id="c5"),
             rec("response_item", type="exec_command_end", call_id="c6"),
             rec("event_msg", type="collab_agent_spawn_end", call_id="s1", new_thread_id="t1"),
             rec("event_msg", type="collab_agent_spawn_end", call_id="s2", new_thread_id=None),
             rec("event_msg", type="collab_agent_spawn_end", call_id=None, new_thread_id="t3"))  # fmt: skip
    ix = build_index(r, 0)
    assert {k: v.idx for k, v in ix.ends.items()} == {"c1": 0, "c2": 1, "c3": 2}
    assert ix.spawned == {"t1": "s1"}
    assert (ix.has_abort_events, ix.has_user_events, ix.mirrored, ix.web_search_ids) == (False, False, set(), {})
    assert build_index(recs(OTHER, rec("event_msg", type="turn_aborted", reason="interrupted")), 0).has_abort_events
    assert not build_index(recs(rec("event_msg", type="turn_aborted")), 1).has_abort_events
    assert build_index(r, 1).ends.keys() == {"c2", "c3"}


def ws_end(call: Any, action: Any = None) -> tuple[str, dict[str, Any]]:
    return rec("event_msg", type="web_search_end", call_id=call, query="q", action=action)


def ws(action: Any = None) -> tuple[str, dict[str, Any]]:
    return rec("response_item", type="web_search_call", status="completed", action=action)


def test_a_web_search_item_takes_the_id_of_the_end_event_before_it() -> None:
    a = {"type": "search", "query": "zstd frames"}
    b = {"type": "open_page", "url": "https://example.org"}

    def ids(*specs: tuple[str, dict[str, Any]]) -> dict[int, str]:
        return build_index(recs(*specs), 0).web_search_ids

    assert ids(ws_end("ws_1", a), ws(a), ws_end("ws_2", b), ws(b)) == {1: "ws_1", 3: "ws_2"}
    assert ids(ws_end("ws_1", a), OTHER, OTHER, OTHER, ws(a)) == {4: "ws_1"}  # 4 records on
    assert ids(ws_end("ws_1", a), OTHER, OTHER, OTHER, OTHER, ws(a)) == {}  # 5: too far
    assert ids(ws_end("ws_1"), ws()) == {1: "ws_1"}  # neither wrote an action
    assert ids(ws_end("ws_1", a), ws(b), ws(a)) == {}  # the first item after it is another search
    assert ids(ws_end("ws_1", a), ws_end("ws_2", a), ws(a)) == {2: "ws_1"}  # taken once, by the first
    assert ids(ws(a), ws_end("ws_1", a)) == {}  # the item is after its event, never before
    assert ids(ws_end(None, a), ws(a)) == {}
    assert ids(ws_end("ws_1", a), rec("event_msg", type="web_search_call", action=a), ws(a)) == {2: "ws_1"}


def test_a_compaction_has_a_twin_when_a_compacted_record_is_within_four() -> None:
    item = rec("response_item", type="compaction", encrypted_content="x")
    twin = rec("compacted", message="summary")
    r = recs(twin, OTHER, OTHER, OTHER, item, OTHER, OTHER, OTHER, OTHER, twin)
    assert compaction_mirror(r, r[4])  # 4 before, and 5 after
    r = recs(twin, OTHER, OTHER, OTHER, OTHER, item, OTHER, OTHER, OTHER, twin)
    assert compaction_mirror(r, r[5])  # 4 after
    r = recs(twin, OTHER, OTHER, OTHER, OTHER, item, OTHER, OTHER, OTHER, OTHER, twin)
    assert not compaction_mirror(r, r[5])  # 5 on each side
    r = recs(twin, OTHER)
    assert not compaction_mirror(r, r[0])  # a compacted record is not its own twin


def test_each_compaction_item_of_the_writer_is_a_compaction(tmp_path: Path) -> None:
    """codex-rs has written the encrypted compaction item under three names; each alone (no
    `compacted` record beside it) is one compaction."""
    lines = [{"type": "session_meta", "payload": {"id": "019e7c30-0000-7000-8000-00000000dddd"}}]
    for i, sub in enumerate(("compaction", "compaction_summary", "context_compaction")):
        lines += [{"type": "response_item", "payload": {"type": sub, "encrypted_content": "gAAA"}},
                  {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                        "content": [{"type": "output_text", "text": f"t{i}"}]}}]
    path = tmp_path / "rollout-2026-08-01T10-00-00-019e7c30-0000-7000-8000-00000000dddd.jsonl"
    path.write_text("".join(json.dumps({"timestamp": f"2026-08-01T10:00:{i:02d}.000Z", **r}) + "\n"
                            for i, r in enumerate(lines)))  # fmt: skip
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    assert [(e.kind, e.text, s.evidence[e.refs[0].ev].line) for e in s.events] == [
        ("compaction", None, 2), ("agent_text", "t0", 3), ("compaction", None, 4), ("agent_text", "t1", 5),
        ("compaction", None, 6), ("agent_text", "t2", 7)]
    assert s.quality.compactions == 3 and s.warnings == []
