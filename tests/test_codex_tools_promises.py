"""Codex tool calls and their results (`sources/codex/_tools.ToolTracker`), record by record,
on hand-built rollouts in the Rust recorder's envelope (`{timestamp, type, payload}` per line)
and the shapes codex-rs/protocol writes: `function_call` (arguments a JSON string),
`custom_tool_call` (raw `input`), `local_shell_call` (`action`, `id`), `web_search_call` (no id:
the `web_search_end` event before it names it), `tool_search_call`, `image_generation_call`;
`function_call_output` / `custom_tool_call_output` (a string, the early `{content, success}`
object, or a list of content items), `tool_search_output`; the `exec_command_end`,
`patch_apply_end` and `mcp_tool_call_end` events that add exit codes and success flags.

Each test pins, per event: call id, tool, args or text, the error flag, the pointer of its ref
and the line it came from, and each info field the tracker sets; each warning with its exact
text and line, each count. Lines are 1-based: the session_meta is line 1. Expectations worked
out by hand from the records written below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Event, Ref, Session, SessionMeta
from forsy.payloads import CallInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from forsy.sources.codex._build import ThreadBuilder
from forsy.sources.codex._read import load_file
from forsy.sources.lines import Limits

ID = "019e7c30-0000-7000-8000-00000000eeee"
NAME = f"rollout-2026-08-01T10-00-00-{ID}.jsonl"
META: dict[str, Any] = {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "cli_version": "0.61.0"}}


def item(**p: Any) -> dict[str, Any]:
    return {"type": "response_item", "payload": p}


def msg(**p: Any) -> dict[str, Any]:
    return {"type": "event_msg", "payload": p}


def fcall(name: str, call_id: str, args: Any, **p: Any) -> dict[str, Any]:
    return item(type="function_call", name=name, arguments=args, call_id=call_id, **p)


def fout(call_id: str, output: Any) -> dict[str, Any]:
    return item(type="function_call_output", call_id=call_id, output=output)


def read(tmp_path: Path, records: list[dict[str, Any]]) -> Session:
    lines = [json.dumps({"timestamp": f"2026-08-01T10:00:{i:02d}.000Z", **r}) for i, r in enumerate([META, *records])]
    path = tmp_path / NAME
    path.write_text("\n".join(lines) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s


def where(s: Session, e: Event) -> tuple[str, int]:
    line = s.evidence[e.refs[0].ev].line
    assert line is not None
    return e.refs[0].pointer, line


def ev_at(s: Session, line: int) -> str:
    """The evidence id of a line."""
    [ev] = [k for k, v in s.evidence.items() if v.line == line]
    return ev


def calls(s: Session) -> list[tuple[Any, ...]]:
    out = []
    for e in s.events:
        if e.kind == "tool_call":
            assert isinstance(e.info, CallInfo)
            out.append((e.call_id, e.tool, e.args, *where(s, e)))
    return out


def call_infos(s: Session) -> list[CallInfo]:
    return [e.info for e in s.events if e.kind == "tool_call" and isinstance(e.info, CallInfo)]


def results(s: Session) -> list[tuple[Any, ...]]:
    out = []
    for e in s.events:
        if e.kind == "tool_result":
            assert isinstance(e.info, ResultInfo)
            out.append((e.call_id, e.text, e.is_error, *where(s, e)))
    return out


def rinfos(s: Session) -> list[ResultInfo]:
    return [e.info for e in s.events if e.kind == "tool_result" and isinstance(e.info, ResultInfo)]


def warnings(s: Session) -> list[tuple[str, str, int | None]]:
    assert [w.file for w in s.warnings] == [NAME] * len(s.warnings)  # each names the rollout
    return [(w.code, w.message, w.line) for w in s.warnings]


# ------------------------------------------------------------------ calls


def test_a_function_call_its_parsed_arguments_and_its_plain_result(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("shell", "c1", '{"command": ["ls", "-a"]}', status="completed"),
        fcall("shell", "c2", "{}"),
        fout("c1", "a\nb"),
        fout("c2", "Exit code: 0\nWall time: 1.5 seconds\nOutput:\nok"),
    ])  # fmt: skip
    assert calls(s) == [("c1", "shell", {"command": ["ls", "-a"]}, "/payload/arguments", 2),
                        ("c2", "shell", {}, "/payload/arguments", 3)]  # fmt: skip
    assert [e.group for e in s.events] == ["L2", "L2", None, None]  # issued together, before any result
    c1, c2 = call_infos(s)
    assert (c1.inner_pointer, c1.status, c1.args_unparsed, c1.namespace, c1.call_id_from) == ("", "completed", False,
                                                                                             None, None)
    assert (c2.status, c1.no_result, c2.no_result, c1.result_in_log) == (None, False, False, True)
    assert results(s) == [("c1", "a\nb", None, "/payload/output", 4),
                          ("c2", "Exit code: 0\nWall time: 1.5 seconds\nOutput:\nok", False, "/payload/output", 5)]
    r1, r2 = rinfos(s)
    assert (r1.exit_code, r1.duration_s, r1.inner_pointer, r1.orphan, r1.raw, r1.rejected) == (None, None, None, False,
                                                                                               None, False)
    assert (r2.exit_code, r2.duration_s, r2.failure_rule, r2.truncated_by_codex) == (0, 1.5, None, False)
    assert (s.quality.missing_results, s.quality.truncated_outputs, s.quality.extra, s.warnings) == (0, 0, {}, [])


def test_arguments_that_are_not_json_are_kept_raw_counted_and_said_once(tmp_path: Path) -> None:
    s = read(tmp_path, [fcall("shell", "c1", "{not json"), fcall("edit", "c2", "[1,"), fcall("x", "c3", {"a": 1})])
    assert calls(s) == [("c1", "shell", "{not json", "/payload/arguments", 2),
                        ("c2", "edit", "[1,", "/payload/arguments", 3),
                        ("c3", "x", {"a": 1}, "/payload/arguments", 4)]  # fmt: skip
    a, b, c = call_infos(s)
    assert (a.args_unparsed, b.args_unparsed, c.args_unparsed) == (True, True, False)
    # a pointer into the string only when the string was parsed; none for an object written as it is
    assert (a.inner_pointer, c.inner_pointer) == (None, None)
    assert s.quality.extra == {"unparsable_arguments": 2}
    assert warnings(s) == [("unparsable_arguments", "arguments of 'shell' are not JSON (or nest deeper than forsy "
                            "reads); kept as the raw string (reported once; quality.extra counts them all)", 2)]
    assert (s.quality.missing_results, [i.no_result for i in (a, b, c)]) == (3, [True, True, True])


def test_mcp_tool_names_from_the_end_event_or_the_namespace(tmp_path: Path) -> None:
    inv = {"server": "srv", "tool": "read_file", "arguments": {"p": 1}}
    s = read(tmp_path, [
        fcall("srv__read_file", "m1", '{"p": 1}'),
        msg(type="mcp_tool_call_end", call_id="m1", invocation=inv, duration={"secs": 0, "nanos": 5},
            result={"Ok": {"content": [{"type": "text", "text": "x"}], "isError": True}}),
        fout("m1", "x"),
        fcall("get_issue", "m2", "{}", namespace="mcp__github__"),
        fcall("lookup", "m3", "{}", namespace="functions"),
        fcall("srv__x", "m4", "{}", namespace=""),  # empty: as absent
        fcall("q", "m6", "{}", namespace="mcp__dbX__"),  # a server's name may end in X
        fcall("y", "m5", "{}"),
        msg(type="mcp_tool_call_end", call_id="m5", invocation={"server": "srv", "tool": 5}, result={"Err": "gone"}),
        fout("m5", "failed"),
    ])  # fmt: skip
    assert [(c[0], c[1]) for c in calls(s)] == [("m1", "mcp:srv.read_file"), ("m2", "mcp:github.get_issue"),
                                                ("m3", "lookup"), ("m4", "srv__x"), ("m6", "mcp:dbX.q"), ("m5", "y")]
    assert [i.namespace for i in call_infos(s)] == [None, None, "functions", None, None, None]
    end1, end2 = ev_at(s, 3), ev_at(s, 10)
    assert results(s) == [("m1", "x", True, "/payload/output", 4), ("m5", "failed", True, "/payload/output", 11)]
    r1, r2 = rinfos(s)
    assert (r1.success_from, r2.success_from) == (Ref(end1, "/payload/result"), Ref(end2, "/payload/result"))
    assert (r1.exit_code_from, r1.duration_from, r1.duration_s) == (None, None, None)  # an mcp end has no exit code


def test_an_mcp_end_s_ok_result_flags_the_error_or_leaves_it_to_the_output(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("a", "k1", "{}"),
        msg(type="mcp_tool_call_end", call_id="k1", result={"Ok": {"content": [], "is_error": False}}),
        fout("k1", "fine"),
        fcall("b", "k2", "{}"),
        msg(type="mcp_tool_call_end", call_id="k2", result={"Ok": {"content": []}}),
        fout("k2", "unknown"),
        fcall("c", "k3", "{}"),
        msg(type="mcp_tool_call_end", call_id="k3", result={"Ok": {"isError": "yes"}}),
        fout("k3", "odd"),
        fcall("d", "k4", "{}"),
        msg(type="mcp_tool_call_end", call_id="k4", result={"Ok": {"isError": False, "is_error": True}}),
        fout("k4", "camel first"),
        fcall("e", "k5", "{}"),
        msg(type="mcp_tool_call_end", call_id="k5", result="Ok"),
        fout("k5", "execution error: no route"),
    ])  # fmt: skip
    assert [r[2] for r in results(s)] == [False, None, None, False, True]
    assert [i.success_from is not None for i in rinfos(s)] == [True, True, True, True, True]
    assert warnings(s) == [("bad_field_type", "field 'result' is a string, not an object; ignored", 15)]
    assert rinfos(s)[4].failure_rule == "R-call/codex-failure-text"


def test_custom_local_shell_tool_search_and_image_generation_calls(tmp_path: Path) -> None:
    action = {"type": "exec", "command": ["ls"], "timeout_ms": None, "working_directory": None, "env": None,
              "user": None}
    s = read(tmp_path, [
        item(type="custom_tool_call", status="completed", call_id="p1", name="apply_patch", input="*** Begin Patch"),
        item(type="local_shell_call", id="ls_1", call_id=None, status="completed", action=action),
        item(type="local_shell_call", id="ls_2", call_id="sh2", status="in_progress", action=action),
        item(type="tool_search_call", call_id="t1", status="completed", execution="client",
             arguments={"query": "pdf"}),
        item(type="image_generation_call", id="ig_1", status="completed", revised_prompt="a cat", result="iVBO"),
        item(type="image_generation_call", id="ig_2", call_id="ig_x", status="generating", result=""),
        item(type="local_shell_call", status="completed"),  # no id, no action
        item(type="custom_tool_call", call_id="", name="", input=7),
    ])  # fmt: skip
    assert calls(s) == [
        ("p1", "apply_patch", "*** Begin Patch", "/payload/input", 2),
        ("ls_1", "local_shell", action, "/payload/action", 3),
        ("sh2", "local_shell", action, "/payload/action", 4),
        ("t1", "tool_search", {"query": "pdf"}, "/payload/arguments", 5),
        ("ig_1", "image_generation", "a cat", "/payload/revised_prompt", 6),
        ("ig_x", "image_generation", None, "/payload", 7),
        (None, "local_shell", None, "/payload", 8),
        (None, None, 7, "/payload/input", 9),
    ]
    infos = call_infos(s)
    assert [i.status for i in infos] == ["completed", "completed", "in_progress", "completed", "completed",
                                         "generating", "completed", None]
    assert [i.inner_pointer for i in infos] == [None] * 8  # only a function call's arguments are a JSON string
    # no result is expected of an image generation; the others without one are counted missing
    assert [(i.result_in_log, i.no_result) for i in infos] == [
        (True, True), (True, True), (True, True), (True, True), (False, False), (False, False), (True, True),
        (True, True)]
    assert s.quality.missing_results == 6
    assert [e.group for e in s.events] == ["L2"] * 8


def test_a_web_search_call_takes_its_id_from_the_end_event_before_it(tmp_path: Path) -> None:
    act = {"type": "search", "query": "forsy"}
    s = read(tmp_path, [
        msg(type="web_search_end", call_id="ws_1", query="forsy", action=act),
        item(type="web_search_call", status="completed", action=act),
        item(type="web_search_call", status="completed", action={"type": "open_page", "url": "https://x"}),
    ])  # fmt: skip
    assert calls(s) == [("ws_1", "web_search", act, "/payload/action", 3),
                        (None, "web_search", {"type": "open_page", "url": "https://x"}, "/payload/action", 4)]
    a, b = call_infos(s)
    assert (a.call_id_from, b.call_id_from) == ("web_search_end", None)
    assert (a.result_in_log, a.no_result, b.result_in_log, b.no_result) == (False, False, False, False)
    assert s.quality.missing_results == 0


def test_a_call_id_written_twice_links_its_result_to_the_first_call(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("exec_command", "d", '{"cmd": "sleep 9"}'),
        fcall("write_stdin", "d", '{"session_id": 5, "chars": ""}'),
        fout("d", "Process running with session ID 5\nOutput:\n"),
        fcall("write_stdin", "w", '{"session_id": 5, "chars": ""}'),
        fout("w", "Process exited with code 0\nOutput:\n"),
    ])  # fmt: skip
    assert [(i.exec_session_id, i.exec_call_id) for i in rinfos(s)] == [(5, None), (None, "d")]
    assert [i.no_result for i in call_infos(s)] == [False, False, False]


# ------------------------------------------------------------------ results


def test_each_shape_of_an_output_its_text_pointer_and_flags(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("shell", "r1", "{}"),
        fout("r1", '{"output": "done\\n", "metadata": {"exit_code": 1, "duration_seconds": 0.5}}'),
        fcall("shell", "r2", "{}"),
        fout("r2", '{"output": "x", "metadata": {"exit_code": 0, "duration_seconds": 0, "pid": 1}}'),
        fcall("apply_patch", "r3", "{}"),
        fout("r3", {"content": "Exit code: 2\nOutput:\nno", "success": False}),
        fcall("x", "r4", "{}"),
        fout("r4", {"success": True}),
        fcall("x", "r5", "{}"),
        fout("r5", {"content": 5, "success": "no"}),
        fcall("x", "r6", "{}"),
        fout("r6", 5),
        fcall("x", "r7", "{}"),
        fout("r7", None),
    ])  # fmt: skip
    assert results(s) == [
        ("r1", "done\n", True, "/payload/output", 3),
        ("r2", "x", False, "/payload/output", 5),
        ("r3", "Exit code: 2\nOutput:\nno", True, "/payload/output/content", 7),
        ("r4", None, False, "/payload/output", 9),
        ("r5", None, None, "/payload/output", 11),
        ("r6", None, None, "/payload", 13),
        ("r7", None, None, "/payload", 15),
    ]
    infos = rinfos(s)
    assert [(i.exit_code, i.duration_s, i.inner_pointer) for i in infos] == [
        (1, 0.5, "/output"), (0, 0.0, "/output"), (2, None, None), (None, None, None), (None, None, None),
        (None, None, None), (None, None, None)]
    # the JSON form that held more than output and metadata is kept whole
    assert [i.raw for i in infos] == [None, '{"output": "x", "metadata": {"exit_code": 0, "duration_seconds": 0, '
                                      '"pid": 1}}', None, None, None, None, None]
    assert warnings(s) == [
        ("bad_field_type", "field 'content' is an integer, not a string; ignored", 11),
        ("bad_field_type", "field 'success' is a string, not a boolean; ignored", 11),
        ("bad_field_type", "field 'output' is an integer, not a string or an object or a list; ignored", 13),
    ]
    assert s.quality.extra == {"bad_field_types": 3} and s.quality.missing_results == 0


def test_a_list_of_content_items_one_text_several_texts_or_images_only(tmp_path: Path) -> None:
    one = '{"output": "hi", "metadata": {"exit_code": 0, "duration_seconds": 1}}'
    s = read(tmp_path, [
        fcall("view_image", "i1", '{"path": "a.png"}'),
        fout("i1", [{"type": "input_image", "image_url": "data:image/png;base64,AA"},
                    {"type": "input_text", "text": one}]),
        fcall("mcp", "i2", "{}"),
        fout("i2", [{"type": "input_text", "text": "a"}, "junk", {"type": "input_image", "image_url": "u"},
                    {"type": "input_text", "text": "b"}, {"type": "input_text", "text": 5}, {"type": "input_image"}]),
        fcall("x", "i3", "{}"),
        fout("i3", [{"type": "input_image", "image_url": "u"}]),
        fcall("x", "i4", "{}"),
        fout("i4", []),
    ])  # fmt: skip
    assert results(s) == [
        ("i1", "hi", False, "/payload/output/1/text", 3),  # one text: read as a whole output string
        ("i2", "a\nb", None, "/payload/output", 5),
        ("i3", None, None, "/payload/output", 7),
        ("i4", None, None, "/payload/output", 9),
    ]
    infos = rinfos(s)
    assert [(i.images, i.joined, i.parts) for i in infos] == [
        (1, None, None), (2, "\n", ["/output/0/text", "/output/3/text"]), (1, None, None), (0, None, None)]
    assert [(i.exit_code, i.duration_s, i.inner_pointer) for i in infos] == [
        (0, 1.0, "/output"), (None, None, None), (None, None, None), (None, None, None)]
    assert warnings(s) == [("bad_field_type", "item 1 is a string, not an object; ignored", 5),
                           ("bad_field_type", "field 'text' is an integer, not a string; ignored", 5)]


def test_a_tool_search_output_keeps_the_tools_found(tmp_path: Path) -> None:
    found = [{"type": "function", "name": "pdf_read"}]
    s = read(tmp_path, [
        item(type="tool_search_call", call_id="t1", status="completed", execution="client", arguments={"q": "pdf"}),
        item(type="tool_search_output", call_id="t1", status="completed", execution="client", tools=found),
        item(type="tool_search_call", call_id="t2", status="completed", execution="client", arguments={}),
        item(type="tool_search_output", call_id="t2", status="completed", execution="client", output="ignored"),
    ])  # fmt: skip
    assert results(s) == [("t1", None, None, "/payload/tools", 3), ("t2", None, None, "/payload", 5)]
    assert [i.tools for i in rinfos(s)] == [found, None]
    assert [i.orphan for i in rinfos(s)] == [False, False] and s.quality.missing_results == 0


def test_exec_command_end_gives_the_exit_code_and_duration_the_output_lacks(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("exec_command", "e1", '{"cmd": "make"}'),
        msg(type="exec_command_end", call_id="e1", exit_code=2, duration={"secs": 2, "nanos": 500000000}),
        fout("e1", "Process running with session ID 9\nOutput:\nbuilding"),
        fcall("shell", "e2", "{}"),
        msg(type="exec_command_end", call_id="e2", exit_code=1, duration={"secs": 9, "nanos": 0}),
        fout("e2", "Exit code: 0\nWall time: 0.25 seconds\nOutput:\nok"),  # the output's own header wins
        fcall("shell", "e3", "{}"),
        msg(type="exec_command_end", call_id="e3", exit_code=True, duration={"secs": 1}),
        fout("e3", "out"),
        fcall("shell", "e4", "{}"),
        msg(type="exec_command_end", call_id="e4", exit_code=0, duration=[1, 2]),
        fout("e4", "x"),
        fcall("shell", "e5", "{}"),
        msg(type="exec_command_end", call_id="e5", duration={"secs": 0, "nanos": 250000000}),
        fout("e5", "y"),
    ])  # fmt: skip
    assert [r[:3] for r in results(s)] == [("e1", "Process running with session ID 9\nOutput:\nbuilding", True),
                                           ("e2", "Exit code: 0\nWall time: 0.25 seconds\nOutput:\nok", False),
                                           ("e3", "out", None), ("e4", "x", False), ("e5", "y", None)]
    infos = rinfos(s)
    assert [(i.exit_code, i.duration_s, i.exec_session_id) for i in infos] == [
        (2, 2.5, 9), (0, 0.25, None), (None, None, None), (0, None, None), (None, 0.25, None)]
    e1, e4, e5 = ev_at(s, 3), ev_at(s, 12), ev_at(s, 15)
    assert [(i.exit_code_from, i.duration_from, i.success_from) for i in infos] == [
        (Ref(e1, "/payload/exit_code"), Ref(e1, "/payload/duration"), None), (None, None, None), (None, None, None),
        (Ref(e4, "/payload/exit_code"), None, None), (None, Ref(e5, "/payload/duration"), None)]
    assert warnings(s) == [("bad_field_type", "field 'exit_code' is a boolean, not an integer; ignored", 9),
                           ("bad_field_type", "field 'duration' is a list, not an object; ignored", 12)]
    read_for = ("metadata", "exit code, duration or success of the call it ends", None)
    lifecycle = ("set_aside", "lifecycle events repeat the items they announce", None)
    marks = {s.evidence[k].line: (m.heading, m.name, m.subtype) for k, m in s.ledger.items()}
    assert [marks[n] for n in (3, 6, 9, 12, 15)] == [read_for, lifecycle, lifecycle, read_for, read_for]


def test_patch_apply_end_gives_the_success_flag_the_output_lacks(tmp_path: Path) -> None:
    s = read(tmp_path, [
        item(type="custom_tool_call", call_id="p1", name="apply_patch", input="*** Begin Patch\n*** End Patch"),
        msg(type="patch_apply_end", call_id="p1", stdout="", stderr="boom", success=False),
        item(type="custom_tool_call_output", call_id="p1", output="boom"),
        fcall("apply_patch", "p2", "{}"),
        msg(type="patch_apply_end", call_id="p2", success=True),
        fout("p2", {"content": "failed", "success": False}),  # the output's own flag wins
        item(type="custom_tool_call", call_id="p3", name="apply_patch", input=""),
        msg(type="patch_apply_end", call_id="p3", success="yes"),
        item(type="custom_tool_call_output", call_id="p3", output="Done"),
        item(type="custom_tool_call", call_id="p4", name="apply_patch", input=""),
        msg(type="patch_apply_end", call_id="p4", success=True),
        item(type="custom_tool_call_output", call_id="p4", output="Done!"),
    ])  # fmt: skip
    assert results(s) == [("p1", "boom", True, "/payload/output", 4),
                          ("p2", "failed", True, "/payload/output/content", 7),
                          ("p3", "Done", None, "/payload/output", 10), ("p4", "Done!", False, "/payload/output", 13)]
    assert [i.success_from for i in rinfos(s)] == [Ref(ev_at(s, 3), "/payload/success"),
                                                   Ref(ev_at(s, 6), "/payload/success"), None,
                                                   Ref(ev_at(s, 12), "/payload/success")]
    assert [i.exit_code_from for i in rinfos(s)] == [None] * 4
    assert warnings(s) == [("bad_field_type", "field 'success' is a string, not a boolean; ignored", 9)]


def test_rejections_and_codex_s_own_failure_words(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("shell", "j1", "{}"),
        fout("j1", "exec command rejected by user"),
        item(type="custom_tool_call", call_id="j2", name="apply_patch", input=""),
        item(type="custom_tool_call_output", call_id="j2", output="  patch rejected by user\n"),
        fcall("shell", "j3", "{}"),
        fout("j3", "sandbox denied exec error, exit code: 13, stdout: , stderr: denied"),
        fcall("shell", "j4", "{}"),
        fout("j4", {"content": "execution error: x", "success": False}),  # the flag says it: no rule needed
        fcall("shell", "j5", "{}"),
        fout("j5", '{"output": "execution error: y", "metadata": {"exit_code": 1, "duration_seconds": 0}}'),
        fcall("shell", "j6", "{}"),
        fout("j6", "I said: exec command rejected by user"),
        fcall("shell", "j7", "{}"),
        fout("j7", "failed in sandbox Seatbelt with execution error: oops"),
    ])  # fmt: skip
    assert [r[2] for r in results(s)] == [True, True, True, True, True, None, True]
    infos = rinfos(s)
    assert [i.rejected for i in infos] == [True, True, False, False, False, False, False]
    rule = "R-call/codex-failure-text"
    assert [(i.failure_rule, i.exit_code) for i in infos] == [
        (rule, None), (rule, None), (rule, 13), (None, None), (None, 1), (None, None), (rule, None)]
    assert s.quality.extra == {"rejected_calls": 2}


def test_outputs_codex_cut_are_flagged_and_counted(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fcall("shell", "t1", "{}"), fout("t1", "a\n…120 tokens truncated…\nb"),
        fcall("shell", "t2", "{}"), fout("t2", "[... omitted 5 of 10 lines ...]"),
        fcall("shell", "t3", "{}"), fout("t3", "…tokens truncated…"),
        fcall("shell", "t4", "{}"), fout("t4", {"success": True}),
        fcall("shell", "t5", "{}"), fout("t5", "Total output lines: 900\n\nab…6017 chars truncated…yz"),
        fcall("mcp", "t6", "{}"), fout("t6", [{"type": "input_text", "text": "a"},
                                              {"type": "input_text", "text": "[omitted 3 text items ...]"}]),
    ])  # fmt: skip
    assert [i.truncated_by_codex for i in rinfos(s)] == [True, True, False, False, True, True]
    assert s.quality.truncated_outputs == 4


def test_a_result_without_its_call_is_an_orphan_and_a_call_without_a_result_is_counted(tmp_path: Path) -> None:
    s = read(tmp_path, [
        fout("nobody", "x"),
        item(type="function_call_output", output="y"),  # no call id
        fout("", "z"),  # an empty id: as absent
        fout("late", "r"),  # before its call
        fcall("shell", "late", "{}"),
        fcall("shell", "never", "{}"),
        item(type="function_call", name="shell", arguments="{}"),  # no call id: no result can be its
    ])  # fmt: skip
    assert [r[0] for r in results(s)] == ["nobody", None, None, "late"]
    assert [i.orphan for i in rinfos(s)] == [True, False, False, True]
    assert [(c[0], i.no_result) for c, i in zip(calls(s), call_infos(s), strict=True)] == [
        ("late", False), ("never", True), (None, True)]
    assert s.quality.missing_results == 2


# ------------------------------------------------------------------ links between calls


def test_a_poll_of_a_unified_exec_process_names_the_call_that_started_it(tmp_path: Path) -> None:
    running = "Process running with session ID 4\nOutput:\n"
    s = read(tmp_path, [
        fcall("exec_command", "x1", '{"cmd": "sleep 5"}'),
        fout("x1", running),
        fcall("write_stdin", "x2", '{"session_id": 4, "chars": ""}'),
        fout("x2", running),  # still running: the poll does not take the process over
        fcall("write_stdin", "x3", '{"session_id": 4}'),
        fout("x3", "Process exited with code 0\nOutput:\ndone"),
        fcall("write_stdin", "x4", '{"session_id": 8}'),
        fout("x4", "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep "
                   "stdin open"),  # Codex's own words: the poll failed
        fcall("write_stdin", "x5", '{"session_id": "4"}'),
        fout("x5", "a"),
        fcall("write_stdin", "x6", "{bad"),
        fout("x6", "b"),
        fout("ghost", "Process running with session ID 6\nOutput:\n"),  # its call is not in the log
        fcall("write_stdin", "x7", '{"session_id": 6}'),
        fout("x7", "c"),
    ])  # fmt: skip
    got = [(r[0], i.exec_session_id, i.exec_call_id, i.exit_code) for r, i in zip(results(s), rinfos(s), strict=True)]
    # x1 has no exec_command_end: the exit code x3's poll states is its outcome (R-call/codex-exit-by-poll)
    assert got == [
        ("x1", 4, None, 0), ("x2", 4, "x1", None), ("x3", None, "x1", 0), ("x4", None, None, None),
        ("x5", None, None, None), ("x6", None, None, None), ("ghost", 6, None, None), ("x7", None, None, None)]
    assert [r[2] for r in results(s)] == [False, None, False, True, None, None, None, None]
    rule, poll = "R-call/codex-failure-text", "R-call/codex-exit-by-poll"
    assert [i.failure_rule for i in rinfos(s)] == [poll, None, None, rule, None, None, None, None]
    x3 = [e for e in s.events if e.kind == "tool_result"][2]
    assert rinfos(s)[0].outcome_refs == x3.refs  # the outcome cites the poll's output


def test_a_spawn_agent_output_names_the_thread_it_started(tmp_path: Path) -> None:
    lines = [META]
    outs = [("spawn_agent", '{"agent_id": "019e-child", "nickname": "Ada"}'), ("spawn_agent", '{"agent_id": 5}'),
            ("spawn_agent", "{broken"), ("spawn_agent", ' {"agent_id": "x"}'), ("other", '{"agent_id": "y"}'),
            ("spawn_agent", '{"output": "{\\"agent_id\\": \\"z\\"}"}'), ("spawn_agent", '["agent_id"]')]
    for k, (name, out) in enumerate(outs):
        lines += [fcall(name, f"sp{k}", '{"message": "go"}'), fout(f"sp{k}", out)]
    path = tmp_path / NAME
    path.write_text("".join(json.dumps({"timestamp": "2026-08-01T10:00:00.000Z", **r}) + "\n" for r in lines))
    s = Session("codex", "", [], {}, [], SessionMeta(agent="codex-cli"))
    t = ThreadBuilder(load_file(path, NAME, s, Limits.from_env()), s, lambda _id: None).build()
    # the JSON form's `output` text is what the model saw: it names thread z
    assert (t.spawned, t.spawn_rules) == ({"019e-child": "sp0", "z": "sp5"},
                                          {"019e-child": "spawn_agent_output", "z": "spawn_agent_output"})
    assert t.call_ids == {f"sp{k}" for k in range(7)} and s.warnings == []


def test_an_end_event_is_never_tied_by_an_empty_id(tmp_path: Path) -> None:
    inv = {"server": "srv", "tool": "read", "arguments": {}}
    s = read(tmp_path, [
        msg(type="mcp_tool_call_end", call_id="", invocation=inv, result={"Err": "x"}),
        msg(type="exec_command_end", call_id="", exit_code=3, duration={"secs": 1, "nanos": 0}),
        fcall("srv__read", "", "{}"),  # an empty id: as absent
        item(type="function_call_output", output="out"),  # no id
        fcall("shell", [1], "{}"),  # an id that is no text
        fout("", "z"),
    ])  # fmt: skip
    assert [c[:2] for c in calls(s)] == [(None, "srv__read"), (None, "shell")]
    assert results(s) == [(None, "out", None, "/payload/output", 5), (None, "z", None, "/payload/output", 7)]
    assert [(i.exit_code, i.duration_s, i.exit_code_from, i.success_from) for i in rinfos(s)] == [
        (None, None, None, None)] * 2
    assert warnings(s) == [("bad_field_type", "field 'call_id' is a list, not a string; ignored", 6)]
