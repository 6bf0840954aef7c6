"""An OpenHands SDK conversation's files beside its events (sources/openhands/_conversation.py),
built by hand from the writer at OpenHands/software-agent-sdk commit
611629e6999ad398dc49c761721eefe18d5e6bd9: `base_state.json` (conversation/state.py
`_save_base_state`) and the conversations of the subagents the `task` and `delegate` tools run,
under `<parent>/subagents/<conversation id>/` (tools/task/manager.py, tools/delegate/impl.py),
each given its task as a message with a `sender`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from _oracle import checked_traces
from _sweep_at import age, sweep_at
from forsy.cli import app
from forsy.payloads import Link
from forsy.sources import ReadContext, available
from forsy.sources.openhands import OpenHandsSource
from forsy.sources.walk import discover_tree
from forsy.store import Store

MAIN = "5b1d7c2e9f0a4b3c8d6e1f2a3b4c5d6e"
SUB = "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"
TASK = "List the callers of parse_args."
T = "2026-03-02T10:00:{:02d}.000000".format


def _uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _message(n: int, sec: int, text: str, source: str = "user", sender: str | None = None) -> dict[str, Any]:
    return {"kind": "MessageEvent", "id": _uid(n), "timestamp": T(sec), "source": source,
            "llm_message": {"role": "user" if source == "user" else "assistant",
                            "content": [{"type": "text", "text": text}]},
            "activated_skills": [], "extended_content": [], "sender": sender}


def _action(n: int, sec: int, cid: str, tool: str, action: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "ActionEvent", "id": _uid(n), "timestamp": T(sec), "source": "agent", "thought": [],
            "action": action, "tool_name": tool, "tool_call_id": cid,
            "tool_call": {"id": cid, "name": tool, "arguments": json.dumps(action), "origin": "completion"}}


def _observation(n: int, sec: int, cid: str, tool: str, text: str) -> dict[str, Any]:
    return {"kind": "ObservationEvent", "id": _uid(n), "timestamp": T(sec), "source": "environment",
            "tool_name": tool, "tool_call_id": cid, "action_id": _uid(n - 1),
            "observation": {"kind": "Obs", "content": [{"type": "text", "text": text}], "is_error": False}}


def _conversation(folder: Path, events: list[dict[str, Any]], status: str | None = None) -> Path:
    (folder / "events").mkdir(parents=True, exist_ok=True)
    for i, e in enumerate(events):
        (folder / "events" / f"event-{i:05d}-{e['id']}.json").write_text(json.dumps(e), "utf-8")
    if status is not None:
        state = {"id": folder.name, "agent": {"kind": "Agent", "llm": {"model": "litellm_proxy/claude-x"}},
                 "execution_status": status}
        (folder / "base_state.json").write_text(json.dumps(state), "utf-8")
    return sorted((folder / "events").iterdir())[0]


def _tree(root: Path, *, task: str = TASK, status: str = "finished", sub_status: str = "finished",
          extra: tuple[dict[str, Any], ...] = (), sender: str | None = "lead") -> Path:
    main = root / MAIN
    first = _conversation(main, [
        _message(1, 1, "Find the callers of parse_args."),
        _action(2, 2, "call_t1", "task", {"kind": "TaskAction", "prompt": task, "subagent_type": "default"}),
        _observation(3, 9, "call_t1", "task", "cli.py, main.py"),
        *extra,
        _message(4, 10, "Two callers.", source="agent"),
    ], status)
    _conversation(main / "subagents" / SUB, [
        _message(1, 3, TASK, sender=sender),
        _action(2, 4, "call_g1", "grep", {"kind": "GrepAction", "pattern": "parse_args"}),
        _observation(3, 5, "call_g1", "grep", "cli.py:3"),
        _message(4, 6, "cli.py, main.py", source="agent"),
    ], sub_status)
    return first


def _read(first: Path) -> Any:
    [s] = OpenHandsSource().read(first, ReadContext(root=first.parent))
    return s


def test_a_subagents_conversation_is_read_with_its_parent_and_linked_to_the_call(tmp_path: Path) -> None:
    s = _read(_tree(tmp_path))
    sub = f"subagent:{SUB}"
    assert [(e.kind, e.actor, e.call_id or e.text) for e in s.events] == [
        ("user", "user", "Find the callers of parse_args."),
        ("tool_call", "agent", "call_t1"),
        ("note", "agent", TASK),  # the parent's words to it
        ("tool_call", sub, "call_g1"), ("tool_result", sub, "call_g1"),
        ("agent_text", sub, "cli.py, main.py"),
        ("tool_result", "agent", "call_t1"),
        ("agent_text", "agent", "Two callers."),
    ]
    link = Link(subagent=SUB, parent_thread_id=MAIN, parent_call_id="call_t1", link_rule="identical-prompt")
    assert [e.link for e in s.events if e.link] == [link, link]
    assert [f.path for f in s.files][-1] == f"openhands-conversation:{MAIN}/subagents/{SUB}/base_state.json"
    assert s.meta.extra["subagents"][0]["execution_status"] == "finished"
    assert (s.meta.ending, s.meta.extra["execution_status"]) == ("task_complete", "finished")
    assert [w.code for w in s.warnings] == []


def test_a_subagents_task_sent_with_no_sender_is_still_its_parents_words(tmp_path: Path) -> None:
    """The SDK names the sender only when the parent's visualizer has a name (task/manager.py,
    delegate/impl.py); by default, and headless, the task arrives as a plain user message. No
    person types into a subagent's conversation: it is the parent's note, linked as with one."""
    named, unnamed = _read(_tree(tmp_path / "a")), _read(_tree(tmp_path / "b", sender=None))
    assert [(e.kind, e.actor, e.call_id or e.text, e.link) for e in unnamed.events] == \
        [(e.kind, e.actor, e.call_id or e.text, e.link) for e in named.events]
    assert [e.text for e in unnamed.events if e.kind == "user"] == ["Find the callers of parse_args."]
    assert [w.code for w in unnamed.warnings] == []


def test_the_trace_is_verified_against_the_events_folder_and_says_the_work_was_delegated(tmp_path: Path) -> None:
    first = _tree(tmp_path)
    r = CliRunner().invoke(app, ["retrace", str(first), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(tmp_path / "out", first)  # every file read back from the events folder
    steps = trace["steps"]
    call = next(st for st in steps if st.get("tool") == "task")
    grep = next(st for st in steps if st.get("tool") == "grep")
    assert (grep["causal_type"], grep["caused_by"]) == ("delegation_to_subagent", [call["step"]])
    assert (steps[-1]["causal_type"], steps[-1]["caused_by"]) == ("used_subagent_result", [call["step"]])
    [manifest] = list((tmp_path / "out").rglob("manifest.json"))
    ledger = json.loads(manifest.read_text("utf-8"))["ledger"]
    assert sum(f["records_read"] for f in ledger) == 4 + 1 + 4 + 1 and all(f["totals"]["unknown"] == 0
                                                                           for f in ledger)


def test_a_stuck_or_paused_run_is_said(tmp_path: Path) -> None:
    for status, ending in [("stuck", "agent_blocked"), ("error", "error_unrecoverable"), ("paused", None),
                           ("waiting_for_confirmation", None)]:
        s = _read(_tree(tmp_path / status, status=status, sub_status="stuck"))
        assert (s.meta.ending, s.meta.extra["execution_status"]) == (ending, status)


def test_a_delegated_task_and_an_unlinked_one(tmp_path: Path) -> None:
    delegate = {"kind": "DelegateAction", "command": "delegate", "tasks": {"lookup": TASK}}
    s = _read(_tree(tmp_path / "d", task="something else",
                    extra=(_action(5, 9, "call_d1", "delegate", delegate),)))
    assert next(e.link for e in s.events if e.link) == Link(
        subagent=SUB, parent_thread_id=MAIN, parent_call_id="call_d1", link_rule="identical-prompt")
    s = _read(_tree(tmp_path / "u", task="something else"))
    assert all(e.link is None for e in s.events)
    assert [w.code for w in s.warnings] == ["unlinked-subagent"]


def test_a_damaged_state_and_a_missing_one_lose_nothing_in_silence(tmp_path: Path) -> None:
    first = _tree(tmp_path)
    (tmp_path / MAIN / "base_state.json").write_text("{cut", "utf-8")
    s = _read(first)
    assert [(w.code, w.file) for w in s.warnings] == [
        ("unparsable", f"openhands-conversation:{MAIN}/base_state.json")]
    assert s.meta.ending is None and s.quality.unparsable_records == 1
    (tmp_path / MAIN / "base_state.json").unlink()
    s = _read(first)
    assert "execution_status" not in s.meta.extra and [w.code for w in s.warnings] == []


def test_read_back_never_leaves_the_conversation(tmp_path: Path) -> None:
    first = _tree(tmp_path)
    (tmp_path / "secret.txt").write_text("x", "utf-8")
    src = OpenHandsSource()
    name = f"openhands-conversation:{MAIN}/base_state.json"
    for root in (first.parent, tmp_path / MAIN, tmp_path):
        assert src.read_back(name, [root]) == (tmp_path / MAIN / "base_state.json").read_bytes()
    for bad in (f"openhands-conversation:{MAIN}/../secret.txt", f"openhands-conversation:{MAIN}/events/x",
                f"openhands-conversation:{MAIN}/subagents/../../secret.txt", "openhands-conversation:/etc/passwd"):
        assert src.read_back(bad, [first.parent, tmp_path]) is None, bad


def test_the_walk_and_the_sweep_take_a_subagents_conversation_for_a_part_of_its_parent(
        tmp_path: Path, store: Store) -> None:
    logs = tmp_path / "logs"
    first = _tree(logs)
    tree = discover_tree(logs, available())
    assert [(src.name, p) for src, p in tree.found] == [("openhands", first)] and tree.unrecognised == []
    sub_first = sorted((logs / MAIN / "subagents" / SUB / "events").iterdir())[0]
    src = OpenHandsSource()
    assert src.session_of(sub_first) == first
    assert src.session_of(logs / MAIN / "subagents" / SUB / "base_state.json") == first
    age(logs.rglob("*.json"), 86400)
    assert sweep_at(store, logs).counts.traced == 1
    state = logs / MAIN / "subagents" / SUB / "base_state.json"
    state.write_text(state.read_text("utf-8").replace("finished", "stuck"), "utf-8")
    age([state], 3600)
    again = sweep_at(store, logs)
    assert (again.counts.traced, again.counts.new) == (1, 0)


def test_a_conversation_of_many_event_files_is_listed_once_to_place_them(tmp_path: Path,
                                                                          monkeypatch: Any) -> None:
    """The walk and the sweep ask of each file which session it is a part of: listing the events
    folder for each of a conversation's 6,000 files took the sweep over three minutes."""
    from forsy.sources.openhands import _events_dir

    first = _tree(tmp_path, extra=tuple(_observation(10 + i, 9, "call_t1", "task", "x") for i in range(300)))
    listed: list[Path] = []
    real = _events_dir.event_files
    def counted(folder: Path) -> list[Path]:
        listed.append(folder)
        return real(folder)

    monkeypatch.setattr(_events_dir, "event_files", counted)
    files = sorted(first.parent.iterdir())
    src = OpenHandsSource()
    assert {src.session_of(p) for p in files} == {first}
    assert len(listed) <= 2  # the conversation's folder, and its parent's (is it a subagent's?)
    (first.parent / "event-99999-00000000-0000-4000-8000-999999999999.json").write_text("{}", "utf-8")
    os.utime(first.parent, None)
    assert src.session_of(files[5]) == first and len(listed) <= 3  # a new file: listed again
