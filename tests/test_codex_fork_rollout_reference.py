"""A forked Codex thread whose copy of its parent's history is a reference: newer codex-rs
(core agent control, a full-history fork) writes the child's `session_meta` (`forked_from_id`),
then a `rollout_reference` record naming the parent's rollout (`rollout_path`, `thread_id`,
`max_depth`, `nth_user_message`, ...) instead of the copied records, then the child's own work.
The parent's `session_meta` may come first, as in a copy. Synthetic rollouts, built by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

PID = "11111111-1111-4111-8111-111111111111"
CID = "22222222-2222-4222-8222-222222222222"
OWN: dict[str, Any] = {"type": "session_meta", "payload": {"id": CID, "forked_from_id": PID, "cwd": "/w"}}
PARENT_META: dict[str, Any] = {"type": "session_meta", "payload": {"id": PID, "cwd": "/w"}}
REF: dict[str, Any] = {"type": "rollout_reference", "payload": {
    "rollout_path": f"/h/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{PID}.jsonl", "thread_id": PID,
    "rollout_timestamp": None, "segment_id": None, "max_depth": 8, "nth_user_message": None,
    "compacted_replacement_history_filter_texts": None}}
WORK = [{"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "child task"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "child done"}]}}]


def read(tmp_path: Path, records: list[dict[str, Any]]) -> Session:
    day = tmp_path / "sessions" / "2026" / "03" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-03-01T10-00-03-{CID}.jsonl"
    lines = [json.dumps({"timestamp": f"2026-03-01T10:00:{i:02d}.000Z", **r}) for i, r in enumerate(records)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s


def texts(s: Session) -> list[str | None]:
    return [e.text for e in s.events if e.kind != "note"]


def test_a_leading_reference_ends_the_copy_when_the_parents_file_is_gone(tmp_path: Path) -> None:
    # the parent's meta, then the reference: the copy is known to end there; no "cannot be told
    # apart" warning, no second-meta warning, the reference kept as a note
    s = read(tmp_path, [OWN, PARENT_META, REF, *WORK])
    assert [w.code for w in s.warnings] == []
    assert s.meta.extra["fork"] == {"parent_id": PID, "rule": "rollout_reference", "copied": 1}
    assert texts(s) == ["child task", "child done"]
    assert [(e.info.subtype, s.evidence[e.refs[0].ev].line) for e in s.events if e.kind == "note"] == [
        ("rollout_reference", 3)]  # type: ignore[union-attr]


def test_a_reference_right_after_the_meta_copies_nothing(tmp_path: Path) -> None:
    s = read(tmp_path, [OWN, REF, *WORK])
    assert [w.code for w in s.warnings] == []
    assert s.meta.extra["fork"] == {"parent_id": PID, "rule": "rollout_reference", "copied": 0}
    assert texts(s) == ["child task", "child done"]


def test_a_later_reference_or_one_in_an_unforked_thread_is_no_copys_end(tmp_path: Path) -> None:
    # after the thread's own records: not where a copy ends (codex-rs rejects a non-leading one)
    s = read(tmp_path, [OWN, *WORK, REF])
    assert s.meta.extra.get("fork", {}).get("rule") is None and texts(s) == ["child task", "child done"]
    # a segment's reference to its own predecessor, in a thread that is no fork
    plain = {"type": "session_meta", "payload": {"id": CID, "cwd": "/w"}}
    s = read(tmp_path / "b", [plain, REF, *WORK])
    assert "fork" not in s.meta.extra and texts(s) == ["child task", "child done"]
