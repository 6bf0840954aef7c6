"""A forked Codex thread whose rollout references its parent's history and then holds a
segment-state checkpoint (newer codex-rs: core `fork_thread`, rollout `segment_checkpoint.rs`):
the child's own `session_meta`, a `rollout_reference` naming the parent, then the checkpoint unit
Codex writes so the child can be resumed without its parent's file: a `compacted` record with a
`segment_state_checkpoint` descriptor (its `replacement_history` is the history the fork
inherited), a full `world_state` and a `turn_context` when set (the parent's baselines),
`thread_settings_applied` (the fork's own settings) and `token_count` (the usage its state was
seeded with: the parent's). Only then the child's own turns. The checkpoint restates what was
inherited: no compaction the child made, no usage it spent, no turn it ran; its settings are its
own. A paginated thread's new segment also starts with a reference, to its own previous segment:
that is no fork's copy. `history_base` in the meta (where the file's history begins, elsewhere) is
kept. Synthetic rollouts in the writer's record shapes, built by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from test_codex_ledger_promises import by_line

PID = "019c0000-0000-7000-8000-000000000001"
CID = "019c0000-0000-7000-8000-000000000002"
RESTATED = ("set_aside", "a fork's checkpoint restates what it inherited", None)
PARENT_USAGE = {"input_tokens": 5000, "output_tokens": 700, "total_tokens": 5700}
CHILD_USAGE = {"input_tokens": 6200, "output_tokens": 820, "total_tokens": 7020}


def rec(kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, "payload": payload}


def event(**payload: Any) -> dict[str, Any]:
    return rec("event_msg", **payload)


def message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def meta(**extra: Any) -> dict[str, Any]:
    return rec("session_meta", id=CID, cwd="/w", cli_version="0.160.0", history_mode="paginated", **extra)


def reference(thread_id: str) -> dict[str, Any]:
    path = f"/h/sessions/2026/09/20/rollout-2026-09-20T10-00-00-{thread_id}.jsonl"
    return rec("rollout_reference", rollout_path=path, thread_id=thread_id, rollout_id=thread_id,
               rollout_timestamp=None, segment_id=None, max_depth=8, nth_user_message=None,
               compacted_replacement_history_filter_texts=None)


def checkpoint(world_state: bool = True) -> list[dict[str, Any]]:
    """CertifiedSegmentStateCheckpoint::new's records, in its order."""
    compacted = rec("compacted", message="", window_number=1, previous_window_id=None,
                    first_window_id="019c0000-0000-7000-8000-0000000000a1",
                    window_id="019c0000-0000-7000-8000-0000000000a2",
                    replacement_history=[message("user", "parent task"), message("assistant", "parent answer")],
                    segment_state_checkpoint={"version": 1, "previous_turn_settings": None,
                                              "world_state": "established" if world_state else "cleared",
                                              "reference_context": "established"})
    settings = {"model": "gpt-5.5-codex", "cwd": "/w", "approval_policy": "on-request", "environments": [],
                "workspace_roots": ["/w"], "profile_workspace_roots": [], "windows_sandbox_level": "disabled"}
    return [compacted,
            *([rec("world_state", full=True, state={"environments": {}})] if world_state else []),
            rec("turn_context", turn_id="t-parent", cwd="/w", model="parent-model", approval_policy="on-request"),
            event(type="thread_settings_applied", thread_settings=settings),
            event(type="token_count", info={"total_token_usage": PARENT_USAGE, "model_context_window": 272000})]


def own_turn() -> list[dict[str, Any]]:
    return [event(type="turn_started", turn_id="t-child"),
            rec("turn_context", turn_id="t-child", cwd="/w", model="child-model", approval_policy="on-request"),
            rec("response_item", **message("user", "child task")),
            event(type="user_message", message="child task"),
            rec("response_item", **message("assistant", "child answer")),
            event(type="token_count", info={"total_token_usage": CHILD_USAGE, "model_context_window": 272000}),
            event(type="turn_complete", turn_id="t-child")]


def read(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[Session, dict[int, tuple[str, str, str | None]]]:
    day = tmp_path / "sessions" / "2026" / "09" / "20"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-09-20T10-10-00-{CID}.jsonl"
    lines = [json.dumps({"timestamp": f"2026-09-20T10:10:{i:02d}.000Z", "ordinal": i, **r})
             for i, r in enumerate(records)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s, by_line(s)


def kinds(s: Session) -> list[tuple[str, str | None]]:
    return [(e.kind, e.info.subtype if isinstance(e.info, NoteInfo) else e.text) for e in s.events]


def test_a_forks_checkpoint_is_no_compaction_turn_or_usage_of_the_child(tmp_path: Path) -> None:
    s, marks = read(tmp_path, [meta(forked_from_id=PID), reference(PID), *checkpoint(), *own_turn()])
    # lines: 1 meta, 2 reference, 3 compacted, 4 world_state, 5 turn_context, 6 settings, 7 token_count
    assert kinds(s) == [("note", "rollout_reference"), ("user", "child task"), ("agent_text", "child answer")]
    assert s.quality.compactions == 0
    assert {n: marks[n] for n in (3, 4, 5, 7)} == dict.fromkeys((3, 4, 5, 7), RESTATED)
    # the settings are the fork's own (its config snapshot): read, as before
    assert marks[6][0] == "metadata" and [t["line"] for t in s.meta.extra["thread_settings"]] == [6]
    # the parent's last turn context is not a turn of the child's; its own turn is
    assert [t["turn_id"] for t in s.meta.extra["turns"]] == ["t-child"] and s.meta.models == ["child-model"]
    assert s.meta.token_usage == CHILD_USAGE
    assert s.meta.extra["fork"] == {"parent_id": PID, "rule": "rollout_reference", "copied": 0}
    assert [w.code for w in s.warnings] == []


def test_a_fork_that_has_not_run_yet_spent_nothing(tmp_path: Path) -> None:
    s, marks = read(tmp_path, [meta(forked_from_id=PID), reference(PID), *checkpoint(world_state=False)])
    assert kinds(s) == [("note", "rollout_reference")]
    assert not s.meta.token_usage and s.meta.models == [] and "turns" not in s.meta.extra
    assert s.quality.compactions == 0
    assert {n: marks[n] for n in (3, 4, 6)} == dict.fromkeys((3, 4, 6), RESTATED)
    assert marks[5][0] == "metadata"


def test_a_segments_reference_to_its_own_predecessor_is_no_forks_copy(tmp_path: Path) -> None:
    # a forked thread's later segment: its meta (forked_from_id kept) cloned, a reference to its own
    # previous segment, then the checkpoint its own compaction wrote: its work, read as before
    s, _ = read(tmp_path, [meta(forked_from_id=PID), reference(CID), *checkpoint(), *own_turn()])
    assert "fork" not in s.meta.extra and s.meta.extra["forked_from_id"] == PID
    assert s.quality.compactions == 1
    assert ("compaction", None) in kinds(s)


def test_a_checkpoint_in_a_thread_that_is_no_fork_is_read(tmp_path: Path) -> None:
    s, _ = read(tmp_path, [meta(), *own_turn(), *checkpoint()])
    assert s.quality.compactions == 1 and "fork" not in s.meta.extra


def test_the_history_base_is_kept(tmp_path: Path) -> None:
    # a reverted thread's new rollout: its history up to ordinal 7 is in rollout `base`, not here
    base = {"thread_id": "019c0000-0000-7000-8000-0000000000f0", "end_ordinal_exclusive": 7, "end_byte_offset": 4096}
    s, _ = read(tmp_path, [meta(history_base=base), *own_turn()])
    assert s.meta.extra["history_base"] == base
    assert "fork" not in s.meta.extra and kinds(s) == [("user", "child task"), ("agent_text", "child answer")]
