"""Tools run during the model call, outside Cline's runtime, in a Cline SDK session: the writer
(cline/cline at 21cb8d2525bc, sdk/packages/agents/src/agent-runtime.ts) keeps their calls and
results out of the message's `content` and in `metadata.modelToolActivities`, each an
`AgentModelToolActivity` {toolCallId, toolName, execution: "provider" | "client", input?,
output?, isError?} (sdk/packages/shared/src/agent.ts); a message may hold nothing else
(`content` empty). core/src/session/display-messages.ts shows each as a call, then a result
when it has `output` or `isError`, before the message's own blocks. Files built by hand in
that shape; expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from forsy.cli import app
from forsy.evidence import Ref
from forsy.payloads import CallInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource

SID = "sess_9"
ACT = "/metadata/modelToolActivities"


def _file(tmp_path: Path, messages: list[Any]) -> Path:
    doc = {"version": 1, "updated_at": "2026-08-22T10:00:09.000Z", "agent": "lead", "sessionId": SID,
           "origin": {"source": "cli"}, "messages": messages}
    p = tmp_path / "sessions" / SID / f"{SID}.messages.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    return p


def _activity(cid: str, name: str, args: Any, **more: Any) -> dict[str, Any]:
    return {"toolCallId": cid, "toolName": name, "execution": "provider", "input": args, **more}


MESSAGES: list[Any] = [
    {"id": "u1", "role": "user", "ts": 1787392800000, "content": [{"type": "text", "text": "tidy notes.txt"}]},
    {"id": "a1", "role": "assistant", "ts": 1787392805000,
     "content": [{"type": "text", "text": "Listed the folder; the edit failed."}],
     "metadata": {"modelToolActivities": [
         _activity("toolu_p1", "Bash", {"command": "ls"}, output="notes.txt\nmain.py", isError=False),
         _activity("toolu_p2", "Edit", {"file_path": "notes.txt", "old_string": "teh", "new_string": "the"},
                   output={"error": "File has been modified since read"}, isError=True)]}},
    {"id": "u2", "role": "user", "ts": 1787392806000, "content": [{"type": "text", "text": "delete build/"}]},
    # the provider's calls alone: the message has no content of its own
    {"id": "a2", "role": "assistant", "ts": 1787392807000, "content": [], "metadata": {"modelToolActivities": [
        _activity("toolu_p9", "Bash", {"command": "rm -rf build"}, output="", isError=False)]}},
]


def test_each_model_tool_activity_is_a_call_and_its_result(tmp_path: Path) -> None:
    p = _file(tmp_path, MESSAGES)
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    got = [(e.kind, e.actor, e.tool, e.call_id, e.text, e.is_error, [r.pointer for r in e.refs]) for e in s.events]
    assert got == [
        ("user", "user", None, None, "tidy notes.txt", None, ["/content/0/text"]),
        ("tool_call", "agent", "Bash", "toolu_p1", None, None, [f"{ACT}/0/input"]),
        ("tool_result", "agent", "Bash", "toolu_p1", "notes.txt\nmain.py", False, [f"{ACT}/0/output"]),
        ("tool_call", "agent", "Edit", "toolu_p2", None, None, [f"{ACT}/1/input"]),
        ("tool_result", "agent", "Edit", "toolu_p2", '{"error":"File has been modified since read"}', True,
         [f"{ACT}/1/output"]),
        ("agent_text", "agent", None, None, "Listed the folder; the edit failed.", None, ["/content/0/text"]),
        ("user", "user", None, None, "delete build/", None, ["/content/0/text"]),
        ("tool_call", "agent", "Bash", "toolu_p9", None, None, [f"{ACT}/0/input"]),
        ("tool_result", "agent", "Bash", "toolu_p9", "", False, [f"{ACT}/0/output"]),
    ]
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [c.info for c in calls] == [CallInfo(server_side=True)] * 3  # run by the provider, not by Cline
    # not a parallel group (R-parallel): the provider ran them in its own loop, one message records them
    assert [c.group for c in calls] == [None] * 3
    assert calls[0].args == {"command": "ls"} and calls[0].name_ref == Ref(calls[0].refs[0].ev, f"{ACT}/0/toolName")
    assert all(e.ts_from is not None and e.ts_from.pointer == "/ts" for e in s.events)
    assert s.warnings == []
    a2 = calls[2].refs[0].ev
    assert a2 not in s.ledger  # cited, not set aside as "a message with no text, call or result"


def test_a_retrace_keeps_the_providers_calls_as_steps(tmp_path: Path) -> None:
    p = _file(tmp_path, MESSAGES)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    steps = [(st["tool"], st["operation"], st["success"], st["output"]) for st in trace["steps"] if st.get("tool")]
    assert steps == [("Bash", "execute", True, "notes.txt\nmain.py"),
                     ("Edit", "edit", False, '{"error":"File has been modified since read"}'),
                     ("Bash", "execute", True, "")]
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    fields = [sp["fields"] for sp in prov["steps"] if "tool" in sp["fields"]]
    assert [f["input"]["evidence"][0]["pointer"] for f in fields] == [f"{ACT}/0/input", f"{ACT}/1/input",
                                                                     f"{ACT}/0/input"]
    v = CliRunner().invoke(app, ["verify", str(out), str(p.parent)])
    assert v.exit_code == 0, v.output


def test_results_of_every_shape_and_activities_that_are_odd(tmp_path: Path) -> None:
    """A list output (a hosted search's results, text blocks) is read element by element; a
    call with neither `output` nor `isError` has no result; `isError` alone is a failure with
    no text; a client-run activity is not the provider's; an activity with no id is named by
    its place; what is not an object or not a list is warned."""
    search = [{"type": "web_search_result", "url": "https://example.org/a", "title": "A"},
              {"type": "text", "text": "two hits"}, None, "plain"]
    p = _file(tmp_path, [
        {"id": "a1", "role": "assistant", "content": "Searched.", "metadata": {"modelToolActivities": [
            _activity("s1", "web_search", {"query": "libfoo"}, output=search),
            {"toolCallId": "c1", "toolName": "image_gen", "execution": "client", "input": {"prompt": "cat"}},
            _activity("e1", "web_fetch", {"url": "https://example.org/b"}, isError=True),
            {"toolName": "web_search", "execution": "provider"},
            7]}},
        {"id": "a2", "role": "assistant", "content": "x", "metadata": {"modelToolActivities": {"toolCallId": "z"}}},
    ])
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    a1 = s.events[0].refs[0].ev
    got = [(e.kind, e.call_id, e.text, e.is_error, [r.pointer for r in e.refs], e.info) for e in s.events]
    assert got == [
        ("tool_call", "s1", None, None, [f"{ACT}/0/input"], CallInfo(server_side=True)),
        ("tool_result", "s1", '{"type":"web_search_result","url":"https://example.org/a","title":"A"}\n'
         "two hits\nplain", False, [f"{ACT}/0/output/0", f"{ACT}/0/output/1/text", f"{ACT}/0/output/3"],
         ResultInfo()),
        ("tool_call", "c1", None, None, [f"{ACT}/1/input"], CallInfo(server_side=False)),
        ("tool_call", "e1", None, None, [f"{ACT}/2/input"], CallInfo(server_side=True)),
        ("tool_result", "e1", None, True, [f"{ACT}/2/isError"], ResultInfo()),
        ("tool_call", f"{a1}{ACT}/3", None, None, [f"{ACT}/3"], CallInfo(server_side=True)),
        ("agent_text", None, "Searched.", None, ["/content"], None),
        ("agent_text", None, "x", None, ["/content"], None),
    ]
    assert [(w.code, w.message) for w in s.warnings] == [
        ("field-type", "metadata.modelToolActivities[4] is not an object; skipped"),
        ("field-type", "metadata.modelToolActivities is not a list; not read")]
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    v = CliRunner().invoke(app, ["verify", str(out), str(p.parent)])  # the joined search results are found again
    assert v.exit_code == 0, v.output
