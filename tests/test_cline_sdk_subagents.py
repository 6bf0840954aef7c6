"""Cline SDK subagents and teammates (sources/cline/_subagents.py), built by hand from the writer
at cline/cline commit 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4: a subagent's transcript is
`<sessions>/<root id>/<agent id>.messages.json` (services/session-artifacts.ts), its header's
`agent` `subagent` and `origin.parentThreadId` the session that ran it (session-data.ts); the
call that ran it gave it its task (`subAgent.run(input.prompt)`, configured-agent-tool.ts) and
returns its answer. Read with the root: its work linked to that call; its task the agent's
words, never a person's; what cannot be linked or read is said."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from _oracle import checked_traces
from _sweep_at import age, sweep_at
from forsy.cli import app
from forsy.payloads import Link, NoteInfo
from forsy.sources import ReadContext, available
from forsy.sources.cline import ClineSource
from forsy.sources.lines import Limits
from forsy.sources.walk import discover_tree
from forsy.store import Store

ROOT = "sess_root"
TASK = "List the callers of parse_args."
MS = 1787220000000


def _doc(path: Path, sid: str, agent: str, messages: list[Any], parent: str | None = None) -> Path:
    origin: dict[str, Any] = {"source": "cli", "mode": "user", "sessionId": sid}
    if parent:
        origin["parentThreadId"] = parent
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "updated_at": "2026-08-20T10:00:05.000Z", "agent": agent,
                                "sessionId": sid, "origin": origin, "messages": messages}, indent=2) + "\n")
    return path


def _msg(mid: str, role: str, sec: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"id": mid, "role": role, "ts": MS + sec * 1000, "content": list(blocks)}


def _text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def _use(cid: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": cid, "name": name, "input": inp}


def _result(cid: str, out: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": cid, "content": out}


def _root(folder: Path, task: str = TASK, *more: dict[str, Any]) -> Path:
    return _doc(folder / ROOT / f"{ROOT}.messages.json", ROOT, "lead", [
        _msg("m1", "user", 0, _text('<user_input mode="act">find the callers</user_input>')),
        _msg("m2", "assistant", 1, _use("t1", "use_researcher", {"prompt": task})),
        _msg("m3", "user", 9, _result("t1", "cli.py, main.py")),
        _msg("m4", "assistant", 10, _text("Two callers.")),
        *more])


def _sub(folder: Path, agent: str, sec: int, task: str = TASK, parent: str = ROOT,
         calls: tuple[dict[str, Any], ...] = ()) -> Path:
    sid = f"{ROOT}__{agent}"
    return _doc(folder / ROOT / f"{agent}.messages.json", sid, "subagent", [
        _msg("s1", "user", sec, _text(task)),
        _msg("s2", "assistant", sec + 1, *calls or (_use("g1", "search_files", {"regex": "parse_args"}),)),
        _msg("s3", "user", sec + 2, *(_result(c["id"], "found") for c in calls or ({"id": "g1"},))),
    ], parent)


def _kinds(s: Any) -> list[tuple[str, str, str | None]]:
    return [(e.kind, e.actor, e.call_id or e.text) for e in s.events]


def _read(path: Path) -> Any:
    [s] = ClineSource().read(path, ReadContext(root=path.parent))
    return s


def test_a_subagents_work_is_read_with_its_root_and_linked_to_the_call_that_gave_its_task(tmp_path: Path) -> None:
    root = _root(tmp_path)
    _sub(tmp_path, "researcher-1", 2)
    s = _read(root)
    sub = "subagent:researcher-1"
    assert _kinds(s) == [
        ("user", "user", "find the callers"),
        ("tool_call", "agent", "t1"),
        ("note", "agent", TASK),  # the root agent's words to it, never a person's
        ("tool_call", sub, "g1"), ("tool_result", sub, "g1"),
        ("tool_result", "agent", "t1"),
        ("agent_text", "agent", "Two callers."),
    ]
    link = Link(subagent="researcher-1", parent_thread_id=ROOT, parent_call_id="t1", link_rule="identical-prompt")
    assert [e.link for e in s.events] == [None, None, link, link, None, None, None]
    assert [f.path for f in s.files] == [f"{ROOT}.messages.json", "researcher-1.messages.json"]
    assert [w.code for w in s.warnings] == []
    [entry] = s.meta.extra["subagents"]
    assert (entry["kind"], entry["parent_call_id"], entry["file"]) == ("subagent", "t1", "researcher-1.messages.json")


def test_a_subagents_transcript_read_alone_gives_its_task_to_no_person(tmp_path: Path) -> None:
    sub = _sub(tmp_path, "researcher-1", 2)
    s = _read(sub)
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.actor, note.text) == ("agent", TASK)
    assert isinstance(note.info, NoteInfo) and note.info.subtype == "subagent_input"
    assert not [e for e in s.events if e.kind == "user"]


def test_the_trace_says_the_work_was_delegated_and_cites_both_transcripts(tmp_path: Path) -> None:
    root = _root(tmp_path)
    _sub(tmp_path, "researcher-1", 2)
    r = CliRunner().invoke(app, ["retrace", str(root), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(tmp_path / "out", root)
    steps = trace["steps"]
    call = next(st for st in steps if st.get("tool") == "use_researcher")
    grep = next(st for st in steps if st.get("tool") == "search_files")
    assert (grep["actor"], grep["causal_type"], grep["caused_by"]) == (
        "subagent:researcher-1", "delegation_to_subagent", [call["step"]])
    assert (steps[-1]["causal_type"], steps[-1]["caused_by"]) == ("used_subagent_result", [call["step"]])
    assert trace["task"] == "find the callers"
    [folder] = [t.parent for t in (tmp_path / "out").rglob("trace.json")]
    ledger = json.loads((folder / "manifest.json").read_text("utf-8"))["ledger"]
    assert [(f["path"], f["totals"]["unknown"]) for f in ledger] == [
        (f"{ROOT}.messages.json", 0), ("researcher-1.messages.json", 0)]


def test_a_subagent_no_single_call_gave_its_task_is_placed_by_time_and_said(tmp_path: Path) -> None:
    for extra, why in [((), "no call gave it its task"),
                       ((_msg("m5", "assistant", 11, _use("t2", "use_researcher", {"prompt": TASK})),),
                        "2 calls gave it the same task")]:
        root = _root(tmp_path / why.replace(" ", "_"), TASK if extra else "something else", *extra)
        _sub(tmp_path / why.replace(" ", "_"), "researcher-1", 2)
        s = _read(root)
        assert all(e.link is None for e in s.events)
        assert [(w.code, w.message) for w in s.warnings] == [
            ("unlinked-subagent", f"subagent researcher-1: {why}; its steps are placed by time without a causal link")]
        assert [e.actor for e in s.events if e.kind == "tool_call"][:2] == ["agent", "subagent:researcher-1"]


def test_a_subagents_own_subagent_is_linked_to_the_call_in_its_transcript(tmp_path: Path) -> None:
    root = _root(tmp_path)
    _sub(tmp_path, "researcher-1", 2, calls=(_use("d1", "use_reader", {"prompt": "Read cli.py."}),))
    _sub(tmp_path, "reader-1", 4, task="Read cli.py.", parent=f"{ROOT}__researcher-1")
    s = _read(root)
    deep = [e for e in s.events if e.actor == "subagent:reader-1"]
    assert deep[0].link == Link(subagent="reader-1", parent_thread_id=f"{ROOT}__researcher-1",
                                parent_call_id="d1", link_rule="identical-prompt")
    [note] = [e for e in s.events if e.text == "Read cli.py." and e.kind == "note"]
    assert note.actor == "subagent:researcher-1"  # given by the subagent that ran it


def test_a_transcript_that_cannot_be_read_is_said_and_the_root_read(tmp_path: Path) -> None:
    root = _root(tmp_path)
    sub = _sub(tmp_path, "researcher-1", 2, task="x" * 4000)
    [s] = ClineSource().read(root, ReadContext(root=root.parent, limits=Limits(max_file_bytes=root.stat().st_size)))
    assert [e.actor for e in s.events if e.kind == "tool_call"] == ["agent"]
    [w] = s.warnings
    assert (w.code, w.file) == ("subagent_unreadable", sub.name)
    assert w.message.startswith("a subagent's transcript could not be read, its events are not here: ")
    sub.write_bytes(b'{"version": 1, "agent": "subagent", "messages": [')  # cut short while written
    s = _read(root)
    assert [e.actor for e in s.events if e.kind == "tool_call"] == ["agent"]
    assert [w.file for w in s.warnings] == [sub.name] and "subagents" not in s.meta.extra
    assert [f.path for f in s.files] == [root.name, sub.name]  # read, and accounted for


def test_discover_the_walk_and_the_sweep_take_a_subagents_transcript_for_a_part_of_its_root(
        tmp_path: Path, store: Store) -> None:
    logs = tmp_path / "logs"
    root = _root(logs)
    sub = _sub(logs, "researcher-1", 2)
    lone = _sub(logs / "other", "researcher-9", 2)  # its root is not beside it
    src = ClineSource()
    assert src.discover(logs) == [lone, root]
    assert (src.session_of(sub), src.session_of(lone), src.session_of(root)) == (root, None, None)
    tree = discover_tree(logs, available())
    assert sorted(p for _, p in tree.found) == [lone, root] and tree.unrecognised == []
    age((root, lone), 86400)
    sub.unlink()
    assert sweep_at(store, logs).counts.traced == 2
    sub = _sub(logs, "researcher-1", 2)
    age([sub], 3600)
    again = sweep_at(store, logs)
    assert (again.counts.traced, again.counts.new) == (1, 0)
    assert store.file_states([str(logs)])[str(sub)].unit_path == str(root)



def test_a_subagents_file_name_that_is_not_utf8_names_its_actor_as_text(tmp_path: Path) -> None:
    """The agent id is the transcript's file name: bytes of it that are not UTF-8 are U+FFFD in
    the actor, as in every file name forsy writes (a name like this stopped the trace)."""
    root = _root(tmp_path)
    sub = _sub(tmp_path, "researcher-1", 2)
    sub.rename(sub.with_name(os.fsdecode(b"r\xe9sum\xe9.messages.json")))
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(root), "-o", str(out)])
    assert r.exit_code == 0, r.output
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    assert "subagent:r\ufffdsum\ufffd" in {st["actor"] for st in trace["steps"]}
    assert trace["agent_config"]["subagents"][0]["file"] == "r\ufffdsum\ufffd.messages.json"
