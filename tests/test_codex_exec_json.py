"""`codex exec --json` saved as it came (`codex exec --json "…" > run.jsonl`): read as Codex's work.

The events follow the writer's code (openai/codex codex-rs/exec/src/exec_events.rs,
event_processor_with_jsonl_output.rs; the first versions' ConversationEvent): `thread.started`
(`session.created` first), `turn.*`, `item.*` with the item's kind under `type` (`item_type`
first), `error`; item ids counted again by each process; no times; no prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import forsy
from _paths import SAMPLES
from forsy.evidence import Event
from forsy.rules.timeline import shell_command_of
from forsy.sources import ReadContext, available, detect, read_head
from forsy.sources.codex import CodexSource

TID = "019e3c4a-7b21-7d02-9a55-3f0c1d2e4b6a"
OTHER = "019e3c4a-9999-7d02-9a55-3f0c1d2e4b6a"
CMD = "/bin/bash -lc 'pytest -q'"


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def item(event: str, iid: str, kind: str, **fields: Any) -> dict[str, Any]:
    return ev(event, item={"id": iid, "type": kind, **fields})


def command(event: str, iid: str, cmd: str = CMD, out: str = "", code: int | None = None,
            status: str = "in_progress") -> dict[str, Any]:
    return item(event, iid, "command_execution", command=cmd, aggregated_output=out, exit_code=code, status=status)


def started(tid: str = TID) -> dict[str, Any]:
    return ev("thread.started", thread_id=tid)


def done(inp: int = 100) -> dict[str, Any]:
    return ev("turn.completed", usage={"input_tokens": inp, "cached_input_tokens": 10, "output_tokens": 7})


def _write(path: Path, events: list[Any], end: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [e if isinstance(e, str) else json.dumps(e, separators=(",", ":")) for e in events]
    path.write_text("\n".join(lines) + end)
    return path


def _traces(path: Path) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    out = path.parent / "out"
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    got = []
    for o in run.outcomes:
        assert o.status == "written", o.message
        folder = Path(str(o.where))
        assert forsy.validate(folder).ok
        check = forsy.verify(folder, [path])
        assert check.ok, check
        got.append(tuple(json.loads((folder / n).read_text()) for n in ("trace.json", "manifest.json",
                                                                          "provenance.json")))
    return got  # type: ignore[return-value]


def _trace(path: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    [one] = _traces(path)
    return one


def _ledger(manifest: dict[str, Any]) -> tuple[dict[str, int], set[tuple[str, str, str]]]:
    [f] = manifest["ledger"]
    assert sum(f["totals"].values()) == f["records_read"]
    return f["totals"], {(e["heading"], e["record_type"], e["rule"]) for e in f["entries"]}


def _steps(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(s["action"], s["tool"], s["input"], s["output"], s["success"]) for s in trace["steps"]]


EARLIER = "an earlier state of an item whose last record is read (item.started / item.updated)"


def test_each_kind_of_item_is_read_from_the_record_that_holds_it_whole(tmp_path: Path) -> None:
    web = ('{"type":"item.completed","item":{"id":"item_8","type":"web_search","id":"ws_1","query":"decimal '
           'rounding","action":{"type":"search","query":"decimal rounding"}}}')
    log = _write(tmp_path / "run.jsonl", [
        started(),
        item("item.completed", "item_0", "error", message="`[features].x` is deprecated."),
        ev("turn.started"),
        item("item.completed", "item_1", "reasoning", text="**Running the tests**"),
        command("item.started", "item_2"),
        command("item.updated", "item_2", out=".."),
        command("item.completed", "item_2", out="...\n3 passed", code=0, status="completed"),
        item("item.started", "item_3", "todo_list", items=[{"text": "Fix it", "completed": False}]),
        item("item.started", "item_4", "file_change", changes=[{"path": "/r/a.py", "kind": "update"}],
             status="in_progress"),
        item("item.completed", "item_4", "file_change", changes=[{"path": "/r/a.py", "kind": "update"}],
             status="completed"),
        item("item.started", "item_5", "mcp_tool_call", server="docs", tool="search", arguments={"q": "x"},
             result=None, error=None, status="in_progress"),
        item("item.completed", "item_5", "mcp_tool_call", server="docs", tool="search", arguments={"q": "x"},
             result={"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
                     "structured_content": None}, error=None, status="completed"),
        item("item.completed", "item_6", "collab_tool_call", tool="spawn_agent", sender_thread_id=TID,
             receiver_thread_ids=[OTHER], prompt="Check the docs.", agents_states={OTHER: {"status": "running",
                                                                                          "message": None}},
             status="completed"),
        item("item.updated", "item_3", "todo_list", items=[{"text": "Fix it", "completed": True}]),
        web,
        item("item.completed", "item_7", "agent_message", text="Done: tests pass."),
        item("item.completed", "item_3", "todo_list", items=[{"text": "Fix it", "completed": True}]),
        done(),
    ])
    assert detect(log).name == "codex"
    trace, manifest, _ = _trace(log)
    assert _steps(trace) == [
        ("agent_step", "command_execution", CMD, "...\n3 passed", True),
        ("agent_step", "todo_list", '[{"text":"Fix it","completed":false}]', None, None),
        ("agent_step", "file_change", '[{"path":"/r/a.py","kind":"update"}]', "completed", True),
        ("agent_step", "mcp:docs.search", '{"q":"x"}', "one\ntwo", True),
        ("agent_step", "spawn_agent", "Check the docs.", f'{{"{OTHER}":{{"status":"running","message":null}}}}',
         True),
        ("agent_step", "todo_list", '[{"text":"Fix it","completed":true}]', None, None),
        ("agent_step", "web_search", "decimal rounding", None, None),
        ("output", None, None, "Done: tests pass.", True),
    ]
    assert trace["steps"][0]["reasoning"] == "**Running the tests**"
    assert [s["operation"] for s in trace["steps"][:3]] == ["execute", "plan", "edit"]
    assert trace["final_output"] == "Done: tests pass." and trace["termination_reason"] == "task_complete"
    assert trace["agent_config"]["token_usage"] == {"input_tokens": 100, "cached_input_tokens": 10,
                                                    "output_tokens": 7}
    totals, entries = _ledger(manifest)
    assert totals == {"cited": 10, "metadata": 1, "set_aside": 2, "duplicate": 5, "unparsable": 0, "unknown": 0}
    assert ("duplicate", "item.updated/command_execution", EARLIER) in entries
    assert ("duplicate", "item.completed/todo_list", "the to-do list written again unchanged") in entries
    assert ("set_aside", "item.completed/error", "notes are not steps") in entries  # a notice, as a rollout's
    assert ("set_aside", "turn.started", "turn boundaries carry no work") in entries
    assert manifest["counts"]["missing_results"] == 0


def test_a_failed_and_a_declined_command_fail(tmp_path: Path) -> None:
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"),
        command("item.started", "item_0"),
        command("item.completed", "item_0", out="1 failed", code=1, status="failed"),
        command("item.started", "item_1", cmd="/bin/bash -lc 'rm -rf build'"),
        command("item.completed", "item_1", cmd="/bin/bash -lc 'rm -rf build'", status="declined"),
        item("item.completed", "item_2", "agent_message", text="Tests fail; cleanup declined."),
        done(),
    ])
    trace, manifest, prov = _trace(log)
    first, second = trace["steps"][:2]
    assert (first["output"], first["success"], first["eval"]) == ("1 failed", False, -1)
    assert (second["input"], second["output"], second["success"]) == ("/bin/bash -lc 'rm -rf build'", "", False)
    assert prov["steps"][0]["fields"]["success"]["rule"] == "R-call/error-flag"
    assert manifest["counts"]["declined_calls"] == 1


def test_a_file_change_that_failed_and_an_mcp_call_with_an_error(tmp_path: Path) -> None:
    changes = [{"path": "/r/new.py", "kind": "add"}, {"path": "/r/old.py", "kind": "delete"}]
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"),
        item("item.completed", "item_0", "file_change", changes=changes, status="failed"),
        item("item.started", "item_1", "mcp_tool_call", server="gh", tool="get_issue", arguments={"n": 7},
             result=None, error=None, status="in_progress"),
        item("item.completed", "item_1", "mcp_tool_call", server="gh", tool="get_issue", arguments={"n": 7},
             result=None, error={"message": "tool call error: 404 Not Found"}, status="failed"),
        item("item.completed", "item_2", "agent_message", text="Both failed."),
        done(),
    ])
    trace, manifest, prov = _trace(log)
    assert _steps(trace)[:2] == [
        ("agent_step", "file_change", json.dumps(changes, separators=(",", ":")), "failed", False),
        ("agent_step", "mcp:gh.get_issue", '{"n":7}', "tool call error: 404 Not Found", False),
    ]
    fields = prov["steps"][1]["fields"]
    assert fields["output"]["evidence"][0]["pointer"] == "/item/error/message"
    assert fields["tool"]["origin"] == "derived"  # named mcp:<server>.<tool>, as the rollout reader names it
    assert prov["steps"][0]["fields"]["tool"]["evidence"][0]["pointer"] == "/item/type"  # copied
    totals, _ = _ledger(manifest)
    assert totals["unknown"] == 0 and totals["duplicate"] == 1


def test_an_item_never_completed_is_a_call_with_no_result(tmp_path: Path) -> None:
    """SIGINT while a command runs: the writer leaves it started, and ends the turn with nothing."""
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"),
        command("item.started", "item_0", cmd="/bin/bash -lc 'sleep 600'"),
        command("item.updated", "item_0", cmd="/bin/bash -lc 'sleep 600'", out="waiting\n"),
    ])
    trace, manifest, prov = _trace(log)
    [step] = trace["steps"]
    assert (step["tool"], step["input"], step.get("output")) == ("command_execution", "/bin/bash -lc 'sleep 600'",
                                                                 None)
    assert trace["termination_reason"] == "partial_then_stopped"
    assert prov["trace_fields"]["termination_reason"]["rule"] == "T-termination/no-result"
    assert manifest["counts"]["missing_results"] == 1
    totals, entries = _ledger(manifest)
    assert totals["cited"] == 2 and ("duplicate", "item.started/command_execution", EARLIER) in entries


def test_a_failed_last_turn_declares_the_ending(tmp_path: Path) -> None:
    down = "stream disconnected before completion"
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"),
        command("item.started", "item_0"),
        command("item.completed", "item_0", out="ok", code=0, status="completed"),
        ev("error", message=f"Reconnecting... 1/5 ({down})"),
        ev("error", message=down),
        ev("turn.failed", error={"message": down}),
    ])
    trace, manifest, prov = _trace(log)
    assert [(s["action"], s["output"]) for s in trace["steps"][1:]] == [
        ("error", f"Reconnecting... 1/5 ({down})"), ("error", down)]
    assert trace["termination_reason"] == "error_unrecoverable"
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared" and how["evidence"][0]["pointer"] == "/error/message"
    totals, _ = _ledger(manifest)
    assert totals["cited"] == 5 and totals["unknown"] == 0  # turn.failed: cited by the ending


def test_a_turn_failed_with_words_of_its_own_is_an_error_step(tmp_path: Path) -> None:
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"), ev("error", message="Reconnecting... 1/5 (429)"),
        ev("turn.failed", error={"message": "usage limit reached"}),
        ev("turn.started"), item("item.completed", "item_0", "agent_message", text="Back."), done(),
    ])
    trace, manifest, _ = _trace(log)
    assert [(s["turn"], s["action"], s["output"]) for s in trace["steps"]] == [
        (1, "error", "Reconnecting... 1/5 (429)"), (1, "error", "usage limit reached"), (2, "output", "Back.")]
    assert trace["termination_reason"] == "task_complete"  # the last turn did not fail


def test_a_turn_failed_repeating_the_error_is_a_duplicate_when_not_the_ending(tmp_path: Path) -> None:
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"), ev("error", message="boom"), ev("turn.failed", error={"message": "boom"}),
        started(), ev("turn.started"), item("item.completed", "item_0", "agent_message", text="Again."), done(),
    ])
    trace, manifest, _ = _trace(log)
    assert [(s["action"], s["output"]) for s in trace["steps"]] == [("error", "boom"), ("output", "Again.")]
    _, entries = _ledger(manifest)
    assert ("duplicate", "turn.failed", "turn.failed repeats the turn's last error event") in entries


def test_a_resumed_thread_is_one_session_its_runs_counting_items_again(tmp_path: Path) -> None:
    """`codex exec resume <id>` appended to the same file: the same thread id, item_0 again."""
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"),
        command("item.started", "item_0"),
        command("item.completed", "item_0", out="1 failed", code=1, status="failed"),
        item("item.completed", "item_1", "agent_message", text="One test fails."),
        done(100),
        started(), ev("turn.started"),
        command("item.started", "item_0", cmd="/bin/bash -lc 'git diff'"),
        command("item.completed", "item_0", cmd="/bin/bash -lc 'git diff'", out="diff", code=0, status="completed"),
        item("item.completed", "item_1", "agent_message", text="Here is the diff."),
        done(250),
    ])
    trace, manifest, _ = _trace(log)
    assert manifest["session_id"] == TID
    assert [(s["turn"], s["action"], s["tool"], s["output"], s.get("reasoning")) for s in trace["steps"]] == [
        (1, "agent_step", "command_execution", "1 failed", None),
        (1, "output", None, "One test fails.", None),  # the first turn's answer, not the next call's reasoning
        (2, "agent_step", "command_execution", "diff", None),
        (2, "output", None, "Here is the diff.", None),
    ]
    assert trace["agent_config"]["token_usage"]["input_tokens"] == 250  # a running total: the last, not a sum
    assert trace["agent_config"]["codex_exec"] == {"runs": 2, "turns": 2, "failed_turns": 0}
    assert manifest["total_turns"] == 2


def test_two_threads_in_one_file_are_two_sessions(tmp_path: Path) -> None:
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"), item("item.completed", "item_0", "agent_message", text="First."), done(),
        started(OTHER), ev("turn.started"), item("item.completed", "item_0", "agent_message", text="Second."),
        done(),
    ])
    got = _traces(log)
    assert [(m["session_id"], t["final_output"]) for t, m, _ in got] == [(TID, "First."), (OTHER, "Second.")]
    for _, manifest, _ in got:
        totals, entries = _ledger(manifest)
        assert (totals["cited"], totals["set_aside"], totals["unknown"]) == (2, 5, 0)
        assert ("set_aside", "item.completed",
                "another thread's run in the same file (read as its own trace)") in entries


def test_no_prompt_and_no_time_are_invented(tmp_path: Path) -> None:
    log = _write(tmp_path / "run.jsonl", [
        started(), ev("turn.started"), item("item.completed", "item_0", "agent_message", text="Hi."), done()])
    trace, _, prov = _trace(log)
    assert prov["trace_fields"]["task"]["rule"] == "T-task/no-user-message"
    assert [s["action"] for s in trace["steps"]] == ["output"]
    assert trace["started_at"] is None and all(s.get("timestamp") is None for s in trace["steps"])


def test_the_first_versions_stream_is_read(tmp_path: Path) -> None:
    """ConversationEvent: `session.created`, the kind under `item_type`, `assistant_message`, ids
    `itm_N`, a command only completed (its exit code a number)."""
    log = _write(tmp_path / "run.jsonl", [
        ev("session.created", session_id=TID),
        {"type": "item.completed", "item": {"id": "itm_0", "item_type": "reasoning", "text": "Look first."}},
        {"type": "item.completed", "item": {"id": "itm_1", "item_type": "command_execution", "command": "ls",
                                            "aggregated_output": "a.py\n", "exit_code": 0, "status": "completed"}},
        {"type": "item.completed", "item": {"id": "itm_2", "item_type": "assistant_message", "text": "One file."}},
    ])
    trace, manifest, prov = _trace(log)
    assert manifest["session_id"] == TID
    assert _steps(trace) == [("agent_step", "command_execution", "ls", "a.py\n", True),
                             ("output", None, None, "One file.", True)]
    assert prov["steps"][0]["fields"]["tool"]["evidence"][0]["pointer"] == "/item/item_type"


def test_damaged_lines_are_named_and_the_rest_is_read(tmp_path: Path) -> None:
    good = [started(), ev("turn.started"), command("item.started", "item_0"),
            command("item.completed", "item_0", out="ok", code=0, status="completed")]
    wrong = command("item.completed", "item_1", cmd="/bin/bash -lc 'ls'", out="x", code=0, status="completed")
    wrong["item"]["exit_code"] = "0"
    log = _write(tmp_path / "run.jsonl", [*good, "}{ not json", wrong, ev("item.bogus", item={}),
                                          '{"type":"item.completed","item":{"id":"item_2","ty'], end="")
    run = forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(tmp_path / "o", parent=True))
    [o] = run.outcomes
    assert o.status == "written"
    warned = {(w.code, w.line) for w in o.warnings}
    assert {("unparsable-line", 5), ("bad_field_type", 6), ("unknown_record", 7), ("truncated-line", 8)} <= warned
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok and forsy.verify(folder, [log]).ok
    totals, _ = _ledger(json.loads((folder / "manifest.json").read_text()))
    assert (totals["unparsable"], totals["unknown"]) == (2, 1)


def test_the_stream_is_codex_s_alone_and_rollouts_are_never_taken_for_it(tmp_path: Path) -> None:
    from forsy.sources.codex._exec_json import is_exec_stream

    sample = SAMPLES / "codex" / "exec-json-run.jsonl"
    head = read_head(sample)
    assert [s.name for s in available() if s.sniff(sample, head)] == ["codex"]
    rollouts = [p for p in (SAMPLES / "codex").rglob("rollout-*.jsonl")]
    assert rollouts and not any(is_exec_stream(read_head(p)) for p in rollouts)
    # a BOM, a first line of garbage, a first line longer than the head: still the stream
    assert is_exec_stream(b"\xef\xbb\xbf" + head)
    assert is_exec_stream(b"}{ junk\n" + head)
    assert is_exec_stream(b'{"type":"item.completed","item":{"id":"item_0","type":"command_execution","x":"' +
                          b"a" * 100)
    assert not is_exec_stream(b'{"type":"error","message":"x","sessionId":"s"}\n')


def test_a_folder_s_stream_is_found(tmp_path: Path) -> None:
    log = _write(tmp_path / "ci" / "codex-output.jsonl", [
        started(), ev("turn.started"), item("item.completed", "item_0", "agent_message", text="Hi."), done()])
    assert CodexSource().discover(tmp_path) == [log]
    [s] = CodexSource().read(log, ReadContext(root=tmp_path))
    assert s.session_id == TID


def test_a_command_item_s_command_is_a_shell_command() -> None:
    call = Event("tool_call", "agent", None, [], tool="command_execution", args="/bin/bash -lc 'pytest -q && ls'")
    assert shell_command_of(call) == "pytest -q && ls"
    assert shell_command_of(Event("tool_call", "agent", None, [], tool="command_execution", args="make")) == "make"


@pytest.mark.parametrize("name", ["exec-json-run.jsonl"])
def test_the_sample_is_read_whole(name: str, tmp_path: Path) -> None:
    log = tmp_path / name
    log.write_bytes((SAMPLES / "codex" / name).read_bytes())
    trace, manifest, _ = _trace(log)
    assert manifest["session_id"] == "019e3c4a-7b21-7d02-9a55-3f0c1d2e4b6a"
    assert (len(trace["steps"]), manifest["total_turns"], trace["termination_reason"]) == (15, 2,
                                                                                         "error_unrecoverable")
    totals, _ = _ledger(manifest)
    assert totals == {"cited": 20, "metadata": 2, "set_aside": 3, "duplicate": 10, "unparsable": 0, "unknown": 0}
