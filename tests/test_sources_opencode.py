"""OpenCode's JSON storage read into traces: a session's messages and parts (text, reasoning,
calls of every kind with their results), a subagent's session linked to its task call, a
failed, refused, stopped and interrupted call, a compaction, a revert, the person's `!command`;
every record accounted for, every copied value found again in the files (`forsy verify`).
The storage folders are written as OpenCode writes them (tests/_opencode_store.py names the
writer's files and commits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from _opencode_store import CWD, Store, call, ms, step_finish, step_start, text, tokens
from forsy.evidence import Session
from forsy.run import read_sessions
from forsy.sources import detect

MAIN = "ses_main0001"
CHILD = "ses_child001"
PROMPT = "List every place the cart total is computed; change nothing."
BASH_FAIL = "FAILED tests/test_cart.py::test_total - assert 10.0 == 9.99\n1 failed, 3 passed in 0.02s\n"


def _story(tmp: Path) -> Store:
    """One session: a prompt; reasoning, text and calls of every kind (a failed test run, a web
    page that is not there, a subagent); a refused push; a stopped turn; a compaction; a
    reverted turn ending in a call still running."""
    st = Store(tmp)
    u1 = st.user(MAIN, 1, text("The cart total is off by a cent. Fix it."))
    st.assistant(MAIN, 2, step_start(),
                 {"type": "reasoning", "text": "Rounding per line, probably.", "time": {"start": ms(2), "end": ms(3)}},
                 text("Let me look at the cart code.", 3),
                 call("read", "call_read", {"filePath": f"{CWD}/cart.py"}, 4,
                      output="<file>\n00001| def total(lines):"),
                 call("grep", "call_grep", {"pattern": "round\\(", "include": "*.py"}, 5, output="Found 1 matches"),
                 call("bash", "call_test1", {"command": "pytest -q", "description": "Run tests"}, 6, output=BASH_FAIL,
                      metadata={"output": BASH_FAIL, "exit": 1, "description": "Run tests"}),
                 step_finish(tok=tokens(1000, 50, 10, 200, 300)), parent=u1)
    st.assistant(MAIN, 10, step_start(),
                 call("edit", "call_edit", {"filePath": f"{CWD}/cart.py", "oldString": "round(x, 2)",
                                            "newString": "x"}, 11, output="Edit applied successfully."),
                 call("write", "call_write", {"content": "# Changes\n", "filePath": f"{CWD}/CHANGES.md"}, 12,
                      output="Wrote file successfully."),
                 call("todowrite", "call_todo", {"todos": [{"content": "fix", "status": "completed",
                                                            "priority": "high", "id": "1"}]}, 13, output="[]"),
                 call("webfetch", "call_fetch", {"url": "https://example.org/rounding", "format": "markdown"}, 14,
                      error="Error: Request failed with status code: 404"),
                 call("task", "call_task", {"description": "Find totals", "prompt": PROMPT, "subagent_type": "explore"},
                      15, output=f"task_id: {CHILD} (for resuming to continue this task if needed)\n\n<task_result>\n"
                                 "Only cart.py.\n</task_result>", metadata={"sessionId": CHILD}),
                 call("bash", "call_test2", {"command": "pytest -q", "description": "Run tests"}, 30, output="4 passed",
                      metadata={"output": "4 passed", "exit": 0, "description": "Run tests"}),
                 step_finish(tok=tokens(2000, 60)), parent=u1)
    st.assistant(MAIN, 40, step_start(),
                 call("bash", "call_push", {"command": "git push", "description": "Push"}, 41,
                      error="Error: The user rejected permission to use this specific tool call."),
                 step_finish(), parent=u1)
    st.assistant(MAIN, 45, step_start(), text("Fixed: the total is rounded once.", 45), step_finish("stop"),
                 parent=u1, finish="stop")
    u2 = st.user(MAIN, 60, text("Tag a release."))
    st.assistant(MAIN, 61, step_start(), call("bash", "call_tag", {"command": "git tag v2"}, 62,
                                              error="Tool execution aborted"), parent=u2,
                 error={"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}})
    u3 = st.user(MAIN, 70, {"type": "compaction", "auto": False})
    st.assistant(MAIN, 71, step_start(), text("## Goal\nFix the cart total.\n## Done\nRounded once.", 72),
                 step_finish("stop"), parent=u3, summary=True, mode="compaction", agent="compaction")
    undo = st.user(MAIN, 80, text("Rename total to grand_total."))
    st.assistant(MAIN, 81, step_start(), call("bash", "call_grep2", {"command": "grep -rn total ."}, 82,
                                              status="running"),
                 call("read", "call_read2", {"filePath": f"{CWD}/cart.py"}, 83, status="pending"), parent=undo)
    st.session(MAIN, revert={"messageID": undo, "snapshot": "2" * 40, "diff": ""})
    # the subagent the task call ran (tool/task.ts): its own session, in the same project folder
    st.session(CHILD, "Find totals (@explore subagent)", parent=MAIN, at=15)
    c1 = st.user(CHILD, 16, text(PROMPT))
    st.assistant(CHILD, 17, step_start(),
                 call("glob", "call_glob", {"pattern": "**/*.py"}, 18, output=f"{CWD}/cart.py"),
                 text("Only cart.py.", 25), step_finish("stop"), parent=c1, agent="explore")
    return st


def _main(st: Store) -> Path:
    return st.storage / "session" / st.project / f"{MAIN}.json"


def _trace(path: Path, roots: list[Path] | None = None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    out = path.parent.parent.parent.parent / "out"
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    [o] = run.outcomes
    assert o.status == "written", o.message
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    for root in roots or [path]:
        check = forsy.verify(folder, [root])
        assert check.ok, check.problems[:3]
    load = lambda name: json.loads((folder / name).read_text())  # noqa: E731
    return load("trace.json"), load("manifest.json"), load("provenance.json")


def _session(path: Path) -> Session:
    [s] = list(read_sessions([path]))
    return s


def test_a_session_is_read_with_its_calls_results_and_subagent(tmp_path: Path) -> None:
    st = _story(tmp_path)
    path = _main(st)
    assert detect(path).name == "opencode"
    trace, manifest, _prov = _trace(path, [path, st.storage, tmp_path, path.parent])
    steps = [(s["actor"], s["action"], s["tool"], s["success"]) for s in trace["steps"]]
    sub = f"subagent:{CHILD}"
    assert steps == [
        ("user", "user_message", None, None),
        ("agent", "agent_step", "read", True),
        ("agent", "agent_step", "grep", True),
        ("agent", "agent_step", "bash", False),  # exit status 1
        ("agent", "agent_step", "edit", True),
        ("agent", "agent_step", "write", True),
        ("agent", "agent_step", "todowrite", True),
        ("agent", "agent_step", "webfetch", False),
        ("agent", "agent_step", "task", True),
        (sub, "agent_step", "glob", True),
        (sub, "output", None, True),
        ("agent", "agent_step", "bash", True),
        ("agent", "agent_step", "bash", False),  # refused
        ("agent", "output", None, True),
        ("user", "user_message", None, None),
        ("agent", "agent_step", "bash", False),  # stopped
        ("system", "agent_step", None, True),  # the compaction's summary
        ("user", "user_message", None, None),
        ("agent", "agent_step", "bash", None),  # still running when the log ends
        ("agent", "agent_step", "read", None),  # its input still streaming (pending)
    ]
    s = trace["steps"]
    assert s[0]["input"] == "The cart total is off by a cent. Fix it." and trace["task"] == s[0]["input"]
    assert json.loads(s[3]["input"]) == {"command": "pytest -q", "description": "Run tests"}
    assert s[3]["output"] == BASH_FAIL and s[3]["operation"] == "execute"
    assert s[7]["output"] == "Error: Request failed with status code: 404" and s[7]["operation"] == "download"
    assert s[9]["caused_by"] == [9]  # the subagent's first step: caused by the task call
    assert s[12]["eval_reason"] == "The user rejected this tool call."
    assert s[16]["output"].startswith("## Goal")
    assert [x["step"] for x in s if "rewound" in (x.get("eval_reason") or "")] == [19, 20]
    assert s[19]["input"] == "{}"  # a pending call's input is not written yet
    assert s[1]["started_at"] == "2026-01-14T09:00:04.000Z"  # the call's own start (epoch ms → ISO)
    cfg = trace["agent_config"]
    assert cfg["agent"] == "opencode" and cfg["agent_version"] == "1.1.21" and cfg["working_directory"] == CWD
    assert cfg["token_usage"]["cache_read"] == 200 and cfg["subagents"][0]["link_rule"] == "state.metadata.sessionId"
    assert cfg["subagents"][0]["parent_call_id"] == "call_task"
    # every record read is accounted for, none unknown, and the totals add up
    totals = {h: sum(f["totals"][h] for f in manifest["ledger"]) for h in manifest["ledger"][0]["totals"]}
    files = sum(1 for _ in st.storage.rglob("*.json"))
    assert sum(totals.values()) == files and totals["unknown"] == 0 and totals["unparsable"] == 0
    for f in manifest["ledger"]:
        assert sum(f["totals"].values()) == f["records_read"] == 1
    assert {w["code"] for w in manifest["warnings"]} >= {"no-result"}


def test_events_cite_the_parts_and_times_as_written(tmp_path: Path) -> None:
    s = _session(_main(_story(tmp_path)))
    calls = {e.call_id: e for e in s.events if e.kind == "tool_call"}
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    assert set(calls) - set(results) == {"call_grep2", "call_read2"}  # running, pending: no result
    assert all(calls[c].tool == results[c].tool for c in results)
    assert results["call_test1"].is_error and results["call_test1"].info.exit_code == 1  # type: ignore[union-attr]
    assert results["call_push"].info.rejected  # type: ignore[union-attr]
    assert calls["call_read"].refs[0].pointer == "/state/input" and calls["call_read"].ts_ref is None
    assert calls["call_read"].ts_from is not None and calls["call_read"].ts_from.pointer == "/state/time/start"
    assert s.session_id == MAIN and s.quality.missing_results == 2 and s.quality.compactions == 1
    assert s.quality.extra["interrupted_calls"] == 2
    assert s.quality.extra["rejected_calls"] == 1 and s.quality.extra["aborted_calls"] == 1
    interrupt = next(e for e in s.events if e.kind == "interrupt")
    assert interrupt.text == "The operation was aborted." and interrupt.actor == "user"
    task = next(e for e in s.events if e.kind == "note" and e.text == PROMPT)
    assert task.actor == "agent" and task.info.subtype == "subagent_input"  # type: ignore[union-attr]
    assert [e.kind for e in s.events if e.abandoned] == ["user", "tool_call", "tool_call"]
    assert s.quality.abandoned_events == 3
    reasoning = next(e for e in s.events if e.kind == "reasoning")
    assert reasoning.text == "Rounding per line, probably." and reasoning.ts == "2026-01-14T09:00:02.000Z"


def test_a_subagent_is_linked_by_its_prompt_when_no_call_names_it(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Find the totals."))
    st.assistant(MAIN, 2, call("task", "call_t", {"description": "d", "prompt": PROMPT, "subagent_type": "general"},
                               3, output="done"), parent=u)
    st.session(MAIN)
    st.session(CHILD, parent=MAIN)
    c = st.user(CHILD, 4, text(PROMPT))
    st.assistant(CHILD, 5, text("Nothing.", 5), parent=c)
    st.session("ses_orphan01", parent=MAIN)  # no call gave it its task
    o = st.user("ses_orphan01", 9, text("Something else."))
    st.assistant("ses_orphan01", 10, text("Done.", 10), parent=o)
    s = _session(_main(st))
    links = {e.actor: e.link for e in s.events if e.link is not None}
    assert links[f"subagent:{CHILD}"].link_rule == "identical-prompt"  # type: ignore[union-attr]
    assert links[f"subagent:{CHILD}"].parent_call_id == "call_t"  # type: ignore[union-attr]
    assert "subagent:ses_orphan01" not in links
    assert [w.code for w in s.warnings if w.code == "unlinked-subagent"] == ["unlinked-subagent"]
    trace, _, _ = _trace(_main(st), [st.storage])
    assert {x["actor"] for x in trace["steps"]} >= {f"subagent:{CHILD}", "subagent:ses_orphan01"}


def test_a_subagents_session_read_alone_has_its_task_given(tmp_path: Path) -> None:
    st = _story(tmp_path)
    child = st.storage / "session" / st.project / f"{CHILD}.json"
    trace, _, _ = _trace(child)
    assert trace["task"] == PROMPT
    assert [(x["actor"], x["tool"]) for x in trace["steps"]] == [("agent", "glob"), ("agent", None)]
    assert trace["agent_config"]["parent_session"] == MAIN


def test_the_persons_bang_command_is_their_message(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("The following tool was executed by the user", synthetic=True))
    st.assistant(MAIN, 2, call("bash", "call_ls", {"command": "ls -la"}, 2, output="total 0\n"), parent=u,
                 modelID="", providerID="")
    u2 = st.user(MAIN, 5, text("Now explain the listing."))
    st.assistant(MAIN, 6, text("It is empty.", 6), parent=u2, finish="stop")
    st.session(MAIN)
    trace, manifest, prov = _trace(_main(st))
    assert [(x["action"], x["input"]) for x in trace["steps"][:2]] == [
        ("user_message", "!ls -la"), ("user_message", "Now explain the listing.")]
    assert prov["steps"][0]["fields"]["input"]["rule"] == "R-user/bash-input"
    assert trace["agent_config"].get("model") == "claude-sonnet-4-5"


def test_a_damaged_part_a_damaged_message_and_missing_parts_are_said(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Fix it."))
    cut = st.parts(MAIN, u, (text("and the tests too"),))[0]
    cut.write_bytes(cut.read_bytes()[:40])  # a crash while writing the part
    lost = st.assistant(MAIN, 2, step_start(), call("bash", "call_a", {"command": "make"}, 3, output="ok"),
                        step_finish(), parent=u)
    (st.storage / "message" / MAIN / f"{lost}.json").write_bytes(b"\x00" * 64)  # a message's file lost
    st.assistant(MAIN, 8, mid="msg_999999", parent=u)  # a message whose parts are gone
    st.session(MAIN)
    trace, manifest, _ = _trace(_main(st), [st.storage])
    assert [(x["action"], x["tool"]) for x in trace["steps"]] == [("user_message", None), ("agent_step", "bash")]
    warned = {(w["code"], w["file"]) for w in manifest["warnings"]}
    assert ("unparsable", f"opencode-storage:part/{u}/{cut.name}") in warned
    assert ("unparsable", f"opencode-storage:message/{MAIN}/{lost}.json") in warned
    assert ("no-parts", f"opencode-storage:message/{MAIN}/msg_999999.json") in warned
    totals = {h: sum(f["totals"][h] for f in manifest["ledger"]) for h in manifest["ledger"][0]["totals"]}
    assert totals["unparsable"] == 2 and totals["unknown"] == 0


def test_a_turn_that_failed_before_the_model_spoke_is_an_api_error(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Fix it."))
    st.assistant(MAIN, 2, parent=u, finish="error", error={"name": "APIError", "data": {
        "message": "invalid x-api-key", "statusCode": 401, "isRetryable": False}})
    st.session(MAIN)
    s = _session(_main(st))
    assert [(e.kind, e.text) for e in s.events] == [("user", "Fix it."), ("agent_text", "invalid x-api-key")]
    assert not [w for w in s.warnings if w.code == "no-parts"] and s.quality.extra["api_errors"] == 1
    trace, _, _ = _trace(_main(st), [st.storage])
    assert trace["termination_reason"] == "error_unrecoverable" and trace["steps"][-1]["success"] is False


def test_an_empty_session_file_fails_naming_it(tmp_path: Path) -> None:
    st = Store(tmp_path)
    st.user(MAIN, 1, text("Fix it."))
    path = st.session(MAIN)
    path.write_bytes(b"")
    # the folder's walk offers it (no source recognises it), and reading it says what is wrong
    run = forsy.retrace([st.storage], forsy.RetraceOptions(redact=False), raise_if_empty=False)
    [o] = run.outcomes
    assert o.status == "failed" and "empty OpenCode session file" in (o.message or "") and path.name in o.path


def test_a_broken_session_info_still_reads_the_work(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Fix it."))
    st.assistant(MAIN, 2, text("Done.", 2), parent=u, finish="stop")
    path = st.session(MAIN)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b'"time"')])  # cut: the id (the file's name) and the work remain
    trace, manifest, _ = _trace(path, [st.storage])
    assert [x["action"] for x in trace["steps"]] == ["user_message", "output"]
    assert any(w["code"] == "unparsable" and w["file"] == path.name for w in manifest["warnings"])


def test_reasoning_kept_encrypted_and_retries_are_set_aside_by_name(tmp_path: Path) -> None:
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Go."), {"type": "agent", "name": "plan"},
                {"type": "file", "mime": "image/png", "filename": "a.png", "url": "data:image/png;base64,AAAA"})
    st.assistant(MAIN, 2, {"type": "retry", "attempt": 1, "time": {"created": ms(2)},
                           "error": {"name": "APIError", "data": {"message": "Overloaded", "isRetryable": True}}},
                 step_start(), {"type": "reasoning", "text": "", "metadata": {"openai": {"itemId": "rs_1"}},
                                "time": {"start": ms(3)}},
                 text("Ready.", 4), {"type": "patch", "hash": "3" * 40, "files": []}, {"type": "mystery"},
                 step_finish("stop"), parent=u, finish="stop")
    st.session(MAIN)
    s = _session(_main(st))
    assert s.quality.encrypted_reasoning == 1 and s.quality.extra["api_retries"] == 1
    assert s.quality.unknown_records == 1 and any(w.code == "unknown-record" for w in s.warnings)
    names = {m.name for m in s.ledger.values()}
    assert {"an API call OpenCode retried", "encrypted reasoning is not readable", "an agent the person named "
            "(@agent)", "an attachment (its text, when sent, is a part of its own)",
            "snapshots and patches name git trees, not work", "step boundaries carry no work"} <= names
    user = next(e for e in s.events if e.kind == "user")
    assert user.info.attachments_omitted == 1  # type: ignore[union-attr]


def test_a_stopped_calls_output_so_far_is_its_result_with_the_error(tmp_path: Path) -> None:
    """A call the person stopped is error "Tool execution aborted" with what it printed until
    then in `metadata.output` and `metadata.interrupted` true (tool/bash.ts); the model is given
    that output as the call's result (message-v2.ts toModelMessages, for an error state whose
    metadata.interrupted is true and metadata.output a string). The result keeps both, the output
    first, and the call stays failed; with no output so far, or not marked interrupted, the error
    alone."""
    partial = "101\n202\n303\n\n<bash_metadata>\nUser aborted the command\n</bash_metadata>"
    st = Store(tmp_path)
    u = st.user(MAIN, 1, text("Count slowly."))
    stopped = call("bash", "call_count", {"command": "for i in 1 2 3 4 5; do echo $((i*101)); sleep 5; done"}, 2,
                   error="Tool execution aborted")
    stopped["state"]["metadata"] = {"interrupted": True, "output": partial, "description": "count slowly"}
    quiet = call("bash", "call_quiet", {"command": "sleep 60"}, 3, error="Tool execution aborted")
    quiet["state"]["metadata"] = {"interrupted": True, "output": ""}
    unmarked = call("bash", "call_unmarked", {"command": "make"}, 4, error="Tool execution aborted")
    unmarked["state"]["metadata"] = {"output": "cc -c a.c"}
    st.assistant(MAIN, 2, step_start(), stopped, quiet, unmarked, parent=u,
                 error={"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}})
    st.session(MAIN)
    s = _session(_main(st))
    got = {e.call_id: (e.text, e.is_error, [r.pointer for r in e.refs]) for e in s.events if e.kind == "tool_result"}
    assert got == {
        "call_count": (f"{partial}\nTool execution aborted", True, ["/state/metadata/output", "/state/error"]),
        "call_quiet": ("Tool execution aborted", True, ["/state/error"]),
        "call_unmarked": ("Tool execution aborted", True, ["/state/error"]),
    }
    assert s.quality.extra["aborted_calls"] == 3 and s.quality.extra["interrupted_outputs"] == 1
    trace, _, prov = _trace(_main(st), [st.storage])  # both pieces found again in the part's file (verify)
    count = next(x for x in trace["steps"] if x["tool"] == "bash")
    assert (count["output"], count["success"]) == (f"{partial}\nTool execution aborted", False)
    [fields] = [sp["fields"] for sp in prov["steps"] if sp["step"] == count["step"]]
    assert [e["pointer"] for e in fields["output"]["evidence"]] == ["/state/metadata/output", "/state/error"]
