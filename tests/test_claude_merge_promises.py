"""Where a Claude Code subagent's events go among the session's.

A thread linked to its spawning call follows that call, before the call's result (as Claude
Code writes inline sidechains); subagents spawned together by one model message follow the last
of those calls one after another, in the order they were spawned, not interleaved; a thread
whose spawning call is not in the log goes at the end; a thread linked to no call goes before
the first main event later than its start. A thread is linked by `toolUseResult.agentId` first.
Warmup threads are left out and counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import SESSION, answer, calls, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _agent(tmp_path: Path, agent: str, prompt: str, n: int) -> None:
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    recs = [user(n, "x1", None, prompt), answer(n + 1, "x2", "x1", f"{agent} done.")]
    write(folder / f"agent-{agent}.jsonl", [dict(r, isSidechain=True, agentId=agent, sessionId=SESSION) for r in recs])


def _task(tid: str, prompt: str) -> tuple[str, str, Any]:
    return tid, "Task", {"description": prompt, "prompt": prompt}


def _done(n: int, uuid: str, parent: str, tid: str, agent: str | None) -> dict[str, Any]:
    r = result(n, uuid, parent, tid, f"result of {tid}")
    if agent:
        r["toolUseResult"] = {"agentId": agent, "status": "completed"}
    return r


def _order(s: Session) -> list[str]:
    out = []
    for e in s.events:
        if e.actor.startswith("subagent:"):
            out.append(f"{e.actor[len('subagent:'):]}:{e.kind}")
        else:
            out.append(e.text if e.kind in ("user", "agent_text", "tool_result") else f"{e.kind}:{e.call_id}")
    return out


def test_parallel_subagents_follow_their_calls_one_after_another_before_the_results(tmp_path: Path) -> None:
    # spawned b first, then a (b's file sorts after a's): the spawning order wins; both are
    # linked by toolUseResult.agentId although their prompts are the same
    _agent(tmp_path, "aa", "Look.", 10)
    _agent(tmp_path, "bb", "Look.", 12)
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look twice."),
        calls(1, "a1", "u1", _task("t1", "Look."), _task("t2", "Look.")),
        _done(2, "r1", "a1", "t1", "bb"),
        _done(3, "r2", "r1", "t2", "aa"),
        answer(4, "a2", "r2", "Both looked."),
    ]))
    assert _order(s) == ["Look twice.", "tool_call:t1", "tool_call:t2",
                         "bb:note", "bb:agent_text", "aa:note", "aa:agent_text",
                         "result of t1", "result of t2", "Both looked."]
    assert {e.link.link_rule for e in s.events if e.link} == {"toolUseResult.agentId"}


def test_a_thread_whose_call_is_not_in_the_log_goes_at_the_end(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "Look.", 1)
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look."),
        _done(2, "r1", "u1", "t9", "aa"),
        answer(4, "a2", "r1", "Looked."),
    ]))
    assert _order(s) == ["Look.", "result of t9", "Looked.", "aa:note", "aa:agent_text"]


def test_an_unlinked_thread_goes_before_the_first_later_main_event(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "Nobody asked.", 2)
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        answer(1, "a1", "u1", "First."),
        user(3, "u2", "a1", "Again."),
        answer(4, "a2", "u2", "Second."),
    ]))
    assert _order(s) == ["Go.", "First.", "aa:note", "aa:agent_text", "Again.", "Second."]


def test_unlinked_threads_go_in_the_order_they_started(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "Later one.", 6)
    _agent(tmp_path, "bb", "Earlier one.", 2)
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "First.")]))
    assert _order(s) == ["Go.", "First.", "bb:note", "bb:agent_text", "aa:note", "aa:agent_text"]


def test_a_warmup_thread_is_left_out_and_counted(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "Warmup", 2)
    _agent(tmp_path, "bb", "  Warmup\n", 3)
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "First.")]))
    assert _order(s) == ["Go.", "First."]
    assert s.quality.extra["warmup_threads"] == 2


def test_subagents_spawned_by_the_last_message_follow_it_in_spawning_order(tmp_path: Path) -> None:
    # the session ends on the calls (interrupted before any result came back)
    _agent(tmp_path, "aa", "Look here.", 10)
    _agent(tmp_path, "bb", "Look there.", 12)
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look twice."),
        calls(1, "a1", "u1", _task("t1", "Look there."), _task("t2", "Look here.")),
    ]))
    assert _order(s) == ["Look twice.", "tool_call:t1", "tool_call:t2",
                         "bb:note", "bb:agent_text", "aa:note", "aa:agent_text"]


def test_unlinked_threads_before_a_main_event_are_each_placed_once(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "First aside.", 2)
    _agent(tmp_path, "bb", "Second aside.", 4)
    _agent(tmp_path, "cc", "Same time.", 9)  # starts when the last answer is written: after it
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(9, "a1", "u1", "Done.")]))
    assert _order(s) == ["Go.", "aa:note", "aa:agent_text", "bb:note", "bb:agent_text", "Done.",
                         "cc:note", "cc:agent_text"]


def test_an_unlinked_thread_without_times_goes_first(tmp_path: Path) -> None:
    _agent(tmp_path, "aa", "No time.", 2)
    _agent(tmp_path, "bb", "Timed.", 2)
    f = tmp_path / "s" / "subagents" / "agent-aa.jsonl"
    f.write_text("".join(line.replace('"timestamp": "2026-01-01T10:00:0', '"at": "') + "\n"
                         for line in f.read_text("utf-8").splitlines()), "utf-8")
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(9, "a1", "u1", "Done.")]))
    assert _order(s) == ["aa:note", "aa:agent_text", "Go.", "bb:note", "bb:agent_text", "Done."]


def test_a_subagent_file_with_no_events_leaves_the_others_in_place(tmp_path: Path) -> None:
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    write(folder / "agent-a0.jsonl", [{"type": "file-history-snapshot", "messageId": "m", "snapshot": {},
                                       "sessionId": SESSION, "isSidechain": True}])
    _agent(tmp_path, "bb", "Look.", 2)
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(3, "a1", "u1", "Done.")]))
    assert _order(s) == ["Go.", "bb:note", "bb:agent_text", "Done."]


def test_inline_subagents_spawned_together_keep_the_files_order(tmp_path: Path) -> None:
    # Claude Code 1.0 wrote the second call's sidechain first: the file's order stands
    def side(r: dict[str, Any]) -> dict[str, Any]:
        return {**r, "isSidechain": True}

    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look twice."),
        calls(1, "a1", "u1", _task("t1", "Look here."), _task("t2", "Look there.")),
        side(user(2, "y1", None, "Look there.")), side(answer(3, "y2", "y1", "There.")),
        side(user(4, "x1", None, "Look here.")), side(answer(5, "x2", "x1", "Here.")),
        _done(6, "r1", "a1", "t1", None), _done(7, "r2", "r1", "t2", None),
    ]))
    assert [e.text for e in s.events if e.actor.startswith("subagent:")] == [
        "Look there.", "There.", "Look here.", "Here."]
    assert [e.link.parent_call_id for e in s.events if e.link] == ["t2", "t2", "t1", "t1"]
