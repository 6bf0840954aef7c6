"""The active branch of an SDK conversation is the one its state's HEAD ends, built by hand from
the writer at OpenHands/software-agent-sdk commit 611629e6999ad398dc49c761721eefe18d5e6bd9:
conversation/state.py (`leaf_event_id`, the HEAD: the parent of the next event, moved to each
event appended; `head_is_empty`; `_resolve_active_leaf`: a leaf that is set is the HEAD),
impl/local_conversation.py `navigate_to` (moves the HEAD, appends nothing: the events past it
stay on disk, off the active branch), conversation/event_store.py (`event-<index>-<id>.json`,
`path_to_root`), agent_server/event_service.py (a state saved "running" is stale: "the leaf can
lag the on-disk events")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

CONVO = "5b1d7c2e9f0a4b3c8d6e1f2a3b4c5d6e"
SUB = "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"
T = "2026-03-02T10:00:{:02d}.000000".format


def _uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _asked(n: int, parent: int | None, text: str) -> dict[str, Any]:
    e = {"kind": "MessageEvent", "id": _uid(n), "timestamp": T(n), "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]}}
    return {**e, "parent_id": _uid(parent)} if parent is not None else e


def _ran(n: int, parent: int, command: str) -> list[dict[str, Any]]:
    """An ActionEvent and its ObservationEvent, the second the first's child."""
    cid = f"call_{n}"
    action = {"kind": "TerminalAction", "command": command}
    return [{"kind": "ActionEvent", "id": _uid(n), "timestamp": T(n), "source": "agent", "parent_id": _uid(parent),
             "thought": [], "action": action, "tool_name": "terminal", "tool_call_id": cid,
             "tool_call": {"id": cid, "name": "terminal", "arguments": json.dumps(action), "origin": "completion"}},
            {"kind": "ObservationEvent", "id": _uid(n + 1), "timestamp": T(n + 1), "source": "environment",
             "parent_id": _uid(n), "tool_name": "terminal", "tool_call_id": cid, "action_id": _uid(n),
             "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": "done"}],
                             "is_error": False}}]


def _events(folder: Path, events: list[dict[str, Any]], **state: Any) -> Path:
    """The SDK's persisted conversation (EventLog, _save_base_state: model_dump_json(exclude_none))."""
    (folder / "events").mkdir(parents=True)
    for i, e in enumerate(events):
        (folder / "events" / f"event-{i:05d}-{e['id']}.json").write_text(json.dumps(e), "utf-8")
    base = {"id": folder.name, "agent": {"kind": "Agent", "llm": {"model": "litellm_proxy/claude-x"}},
            "execution_status": "idle", "head_is_empty": False, **state}
    (folder / "base_state.json").write_text(json.dumps({k: v for k, v in base.items() if v is not None}), "utf-8")
    return sorted((folder / "events").iterdir())[0]


def _read(first: Path) -> Session:
    [s] = OpenHandsSource().read(first, ReadContext(root=first.parent))
    return s


# a request, `rm -rf build` run for it, then the person navigates back to the request
REQUEST_THEN_RUN = [_asked(1, None, "clean the build"), *_ran(2, 1, "rm -rf build")]


def _abandoned(s: Session) -> list[tuple[str, str | None, bool]]:
    return [(e.kind, e.text if e.kind == "user" else e.call_id, e.abandoned) for e in s.events]


def test_navigating_back_with_nothing_appended_leaves_the_events_past_the_head(tmp_path: Path) -> None:
    """navigate_to(request) saves leaf_event_id = the request; no event says so. The run past it
    is off the active branch: kept, marked abandoned, as a branch left with a sibling is."""
    s = _read(_events(tmp_path / CONVO, REQUEST_THEN_RUN, leaf_event_id=_uid(1)))
    assert _abandoned(s) == [("user", "clean the build", False), ("tool_call", "call_2", True),
                             ("tool_result", "call_2", True)]
    assert s.quality.abandoned_events == 2
    assert [w.code for w in s.warnings] == ["abandoned-branch"]


def test_a_head_at_the_last_event_leaves_nothing(tmp_path: Path) -> None:
    s = _read(_events(tmp_path / CONVO, REQUEST_THEN_RUN, leaf_event_id=_uid(3)))
    assert [e.abandoned for e in s.events] == [False, False, False] and s.warnings == []


def test_an_empty_head_leaves_every_event(tmp_path: Path) -> None:
    """navigate_to(None): no leaf (exclude_none), head_is_empty: no branch is active."""
    s = _read(_events(tmp_path / CONVO, REQUEST_THEN_RUN, head_is_empty=True))
    assert [e.abandoned for e in s.events] == [True, True, True] and s.quality.abandoned_events == 3


def test_the_head_of_a_conversation_written_before_the_tree_is_followed_too(tmp_path: Path) -> None:
    """Events with no parent_id chain to the event before them (event_store.py
    _effective_parent_id); a newer SDK that loaded them saves a HEAD all the same."""
    flat = [{k: v for k, v in e.items() if k != "parent_id"} for e in REQUEST_THEN_RUN]
    s = _read(_events(tmp_path / CONVO, flat, leaf_event_id=_uid(1)))
    assert [e.abandoned for e in s.events] == [False, True, True]


def test_a_head_behind_a_running_state_is_a_save_the_run_did_not_make(tmp_path: Path) -> None:
    """A process killed mid-step wrote the step's events but not the HEAD (it is saved when the
    step's state lock is released): the state still says running. The events past it are the
    run's own: read on the branch, and the HEAD not followed is said."""
    s = _read(_events(tmp_path / CONVO, REQUEST_THEN_RUN, leaf_event_id=_uid(1), execution_status="running"))
    assert [e.abandoned for e in s.events] == [False, False, False]
    assert [(w.code, w.file) for w in s.warnings] == [("state-head", f"openhands-conversation:{CONVO}/base_state.json")]


def test_a_head_on_another_branch_is_followed_even_while_running(tmp_path: Path) -> None:
    """A lagging HEAD is always an ancestor of the last event; one on a branch beside it is not."""
    events = [*REQUEST_THEN_RUN, *_ran(4, 1, "make clean")]
    s = _read(_events(tmp_path / CONVO, events, leaf_event_id=_uid(3), execution_status="running"))
    assert [e.abandoned for e in s.events] == [False, False, False, True, True]
    assert [w.code for w in s.warnings] == ["abandoned-branch"]


def test_a_head_that_names_no_event_is_said_and_the_last_event_ends_the_branch(tmp_path: Path) -> None:
    s = _read(_events(tmp_path / CONVO, REQUEST_THEN_RUN, leaf_event_id=_uid(99)))
    assert [e.abandoned for e in s.events] == [False, False, False]
    assert [w.code for w in s.warnings] == ["state-head"]


def test_a_subagents_conversation_is_read_with_its_own_head(tmp_path: Path) -> None:
    """tools/task/manager.py: a subagent's conversation, persisted under its parent's
    `subagents/<id>/` with its own state."""
    first = _events(tmp_path / CONVO, REQUEST_THEN_RUN, leaf_event_id=_uid(3))
    _events(tmp_path / CONVO / "subagents" / SUB, [_asked(11, None, "look"), *_ran(12, 11, "ls")],
            leaf_event_id=_uid(11))
    s = _read(first)
    assert [(e.actor, e.abandoned) for e in s.events if e.kind in ("tool_call", "tool_result")] == [
        ("agent", False), ("agent", False), (f"subagent:{SUB}", True), (f"subagent:{SUB}", True)]
    assert s.quality.abandoned_events == 2
