"""A reviewer sees the work of every kind of agent on the draft page: what the trace says of a step
that changes how it is read (on a branch the user rewound away from, rejected by the user, changed
by the user before it ran, with what was written), each edit's file and change whatever form the
agent's tool takes (Cline's write_to_file and replace_in_file, Aider's edit blocks), a change too
long to show whole said so, and what a call says to the user (a final result, a question, a
plan) shown rather than folded into its arguments."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from _paths import ROOT
from _small_logs import _rec, call, user, write
from forsy.review import conversation as cv
from forsy.review.conversation import Entry, Subagent, conversation, edit_diff, marked
from forsy.review.source import LoadedTrace, from_folder
from forsy.rules.segment import USER_MODIFIED_NOTE
from forsy.run import RetraceOptions, retrace
from forsy.web.render import render_html

GOLDEN = ROOT / "tests" / "golden"


def loaded(steps: list[Any], prov_steps: list[dict[str, Any]] | None = None, **trace: Any) -> LoadedTrace:
    return LoadedTrace("forsy_c", {}, {"steps": steps, **trace}, {"steps": prov_steps or []}, {}, [])


def entries(d: LoadedTrace) -> dict[int, Entry]:
    return {e.step: e for b in conversation(d) for e in (b.entries if isinstance(b, Subagent) else [b])}


def article(html: str, step: int) -> str:
    at = html.index(f'id="c-{step}"')
    return html[html.rindex("<article", 0, at):html.index("</article>", at)]


def test_steps_on_an_abandoned_branch_and_rejected_calls_are_marked() -> None:
    d = from_folder(GOLDEN / "claude__compaction-and-branches.jsonl")
    e = entries(d)
    assert [(m.kind, m.label) for m in e[4].marks] == [("rejected", "rejected by the user")]
    assert e[4].marks[0].note == "No change: the tool call was rejected, so it did not run."  # the trace's words
    assert [m.kind for m in e[10].marks] == [m.kind for m in e[11].marks] == ["abandoned"]
    assert "rewound away from" in e[10].marks[0].note and e[11].marks[0].note == ""  # said once for the run
    assert not any(e[n].marks for n in e if n not in (4, 10, 11))
    assert marked(conversation(d)) == [("rejected", "rejected by the user", [4]),
                                       ("abandoned", "abandoned branch", [10, 11])]
    html = render_html(d, evidence=False)
    head = html[:html.index('class="conversation"')]
    assert re.search(r'class="badge mark abandoned">abandoned branch</span> <a href="#c-10">#10</a> '
                     r'<a href="#c-11">#11</a>', head), head[-1500:]
    rejected = article(html, 4)
    assert "m-rejected" in rejected and "rejected by the user" in rejected and ">failed<" not in rejected
    assert "did not run" in rejected
    for n in (10, 11):
        assert "m-abandoned" in article(html, n) and ">abandoned branch<" in article(html, n)
    assert "m-abandoned" not in article(html, 12)


def test_a_mark_stays_when_a_reviewer_has_edited_the_field_that_carried_it() -> None:
    steps = [{"step": 1, "action": "agent_step", "tool": "Edit", "eval_reason": "Mine now."}]
    prov = [{"step": 1, "fields": {"eval_reason": {"origin": "human", "rule": None, "reviewer": {
        "reviewer": "Ada", "replaced": {"value": "On a branch…", "rule": "R-abandoned", "origin": "derived"}}}}}]
    [mark] = entries(loaded(steps, prov))[1].marks
    assert (mark.kind, mark.note) == ("abandoned", cv.ABANDONED_NOTE)


def _modified_session(tmp_path: Path) -> Path:
    """A Claude Code Edit the person changed in the diff view before accepting it (the shape of
    tests/test_claude_user_modified.py): the call keeps the model's proposal, the result the patch
    of what was written."""
    proposed = {"file_path": "/home/dev/proj/a.py", "old_string": "x = 1", "new_string": "y = 1"}
    patch = [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
              "lines": ["-x = 1", "+y = 1  # mine", " print(x)"]}]
    said = ("The file /home/dev/proj/a.py has been updated successfully.  The user modified your proposed changes "
            "before accepting them. .")
    result = _rec(2, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": said}], "r1", "a1")
    result["toolUseResult"] = {"filePath": "/home/dev/proj/a.py", "oldString": "x = 1", "newString": "y = 1  # mine",
                               "originalFile": "x = 1\nprint(x)\n", "structuredPatch": patch, "replaceAll": False,
                               "userModified": True}
    return write(tmp_path / "s.jsonl", [user(0, "u1", None, "rename x"),
                                        call(1, "a1", "u1", "t1", "Edit", proposed), result])


def test_an_edit_the_user_changed_shows_the_proposal_and_what_was_written(tmp_path: Path) -> None:
    retrace([_modified_session(tmp_path)], RetraceOptions(out=tmp_path / "t", redact=False))
    d = from_folder(tmp_path / "t")
    e = entries(d)[2]
    assert [(m.kind, m.label, m.note) for m in e.marks] == [("user-changed", "changed by the user", USER_MODIFIED_NOTE)]
    assert [(x.kind, x.text) for x in e.diff if x.kind in ("file", "add")] == [
        ("file", "/home/dev/proj/a.py"), ("add", "+y = 1")]  # the model's proposal
    assert [(x.kind, x.text) for x in e.written] == [  # what ran: the person's version
        ("file", "/home/dev/proj/a.py"), ("hunk", "@@ -1,2 +1,2 @@"), ("del", "-x = 1"), ("add", "+y = 1  # mine"),
        ("same", " print(x)")]
    box = article(render_html(d, evidence=False), 2)
    assert "m-user-changed" in box and "changed by the user" in box
    proposal = box.index("the model's proposal (not what was written)")
    written = box.index("what was written (the user")
    assert proposal < box.index('class="d-add">+y = 1</div>') < written < box.index("+y = 1  # mine")


def test_a_call_the_user_edited_before_it_ran_is_marked_with_its_note() -> None:
    note = "The user changed the proposed call before accepting it; the input is what ran."
    steps = [{"step": 1, "action": "agent_step", "tool": "replace",
              "input": orjson.dumps({"file_path": "a.py", "old_string": "x", "new_string": "z"}).decode(),
              "input_source": {"actor": "user", "source_step": None, "source_field": "external", "note": note}}]
    prov = [{"step": 1, "fields": {"input_source": {"origin": "derived", "rule": "R-call/user-edited"}}}]
    e = entries(loaded(steps, prov))[1]
    assert [(m.kind, m.note) for m in e.marks] == [("user-changed", note)]
    assert e.written == ()  # what ran is the input: its diff is the change


def D(diff: list[Any]) -> list[tuple[str, str]]:
    return [(x.kind, x.text) for x in diff]


def test_a_cline_edit_names_its_file_and_shows_its_blocks() -> None:
    write_to = orjson.dumps({"absolutePath": "/w/A.cs", "content": "class A {}\n", "task_progress": "- [x] a"}).decode()
    assert D(edit_diff("write_to_file", write_to)) == [("file", "/w/A.cs"), ("hunk", "@@ -0,0 +1 @@"),
                                                       ("add", "+class A {}")]
    for search, replace in (("------- SEARCH", "+++++++ REPLACE"), ("<<<<<<< SEARCH", ">>>>>>> REPLACE")):
        blocks = f"{search}\na = 1\n=======\na = 2\n{replace}\n{search}\nb\n=======\n{replace}\n"
        args = orjson.dumps({"absolutePath": "/w/c.json", "diff": blocks}).decode()
        assert D(edit_diff("replace_in_file", args)) == [
            ("file", "/w/c.json"), ("hunk", "@@ -1 +1 @@"), ("del", "-a = 1"), ("add", "+a = 2"),
            ("hunk", "@@ -1 +0,0 @@"), ("del", "-b")], search
    e = entries(loaded([{"step": 1, "action": "agent_step", "tool": "write_to_file", "input": write_to}]))[1]
    assert e.target == "/w/A.cs"


def test_an_aider_edit_is_read_from_its_blocks_text() -> None:
    sr = "dist/index.js\n```javascript\n<<<<<<< SEARCH\n=======\nexport * from './v.js';\n>>>>>>> REPLACE\n```"
    assert D(edit_diff("search_replace", sr)) == [("file", "dist/index.js"), ("hunk", "@@ -0,0 +1 @@"),
                                                  ("add", "+export * from './v.js';")]
    fenced = "```\nsrc/m.py\n<<<<<<< SEARCH\nreturn 1\n=======\nreturn 2\n>>>>>>> REPLACE\n```"  # diff-fenced
    assert D(edit_diff("search_replace", fenced))[0] == ("file", "src/m.py")
    whole = "ios/App.swift\n```swift\nimport UIKit\nlet x = 1\n```"
    assert D(edit_diff("whole_file", whole)) == [("file", "ios/App.swift"), ("hunk", "@@ -0,0 +1,2 @@"),
                                                 ("add", "+import UIKit"), ("add", "+let x = 1")]
    udiff = "```diff\n--- a/m.py\n+++ a/m.py\n@@ ... @@\n-x = 1\n+x = 2\n```"
    assert D(edit_diff("udiff", udiff)) == [("file", "a/m.py"), ("hunk", "@@ ... @@"), ("del", "-x = 1"),
                                            ("add", "+x = 2")]
    assert edit_diff("search_replace", "no block here") == [] and edit_diff("whole_file", "no fence") == []


def test_a_change_too_long_to_show_says_how_long_and_where_the_rest_is() -> None:
    content = "\n".join(f"line {i}" for i in range(1000))
    steps = [{"step": 1, "action": "agent_step", "tool": "Write",
              "input": orjson.dumps({"file_path": "big.txt", "content": content}).decode()}]
    e = entries(loaded(steps))[1]
    assert len(e.diff) == cv.DIFF_LINES and e.diff_total == 1002 and e.diff_cut  # file, hunk, 1000 lines
    box = article(render_html(loaded(steps), evidence=False), 1)
    assert f"shown: the first {cv.DIFF_LINES} of 1002 lines of the change" in box and 'href="#step-1"' in box
    short = entries(loaded([{**steps[0], "input": orjson.dumps({"file_path": "s", "content": "x"}).decode()}]))[1]
    assert not short.diff_cut


def test_what_a_call_says_to_the_user_is_shown() -> None:
    def said(tool: str, args: dict[str, Any]) -> str:
        step = {"step": 1, "action": "agent_step", "tool": tool, "input": orjson.dumps(args).decode()}
        return entries(loaded([step]))[1].said

    assert said("attempt_completion", {"result": "Done: **12 files**", "task_progress": "x"}) == "Done: **12 files**"
    assert said("finish", {"message": "Created /app/hello.txt"}) == "Created /app/hello.txt"
    assert said("AskUserQuestion", {"questions": [{"question": "Which rig?", "header": "Rig",
                                                   "options": [{"label": "spotter"}, {"label": "other"}]}]}) == (
        "Which rig?\n- spotter\n- other")
    assert said("ask_followup_question", {"question": "Proceed?"}) == "Proceed?"
    assert said("TodoWrite", {"todos": [{"content": "Read", "status": "completed"},
                                        {"content": "Fix", "status": "in_progress"},
                                        {"content": "Test", "status": "pending"}]}) == "- ☑ Read\n- ▶ Fix\n- ☐ Test"
    assert said("update_plan", {"plan": [{"step": "Add tests", "status": "in_progress"}]}) == "- ▶ Add tests"
    assert said("Task", {"description": "Explore", "prompt": "Find where **X** is read", "subagent_type": "Explore"}) \
        == "Find where **X** is read"  # the task a subagent is given, above the work it did
    assert said("delegate_to_agent", {"objective": "Look for secrets"}) == "Look for secrets"
    assert said("Read", {"file_path": "a"}) == "" and said("finish", {}) == ""
    steps = [{"step": 1, "action": "agent_step", "tool": "attempt_completion",
              "input": orjson.dumps({"result": "All <b>done</b>, **tested**"}).decode()},
             {"step": 2, "action": "agent_step", "tool": "run_ipython",
              "input": orjson.dumps({"code": "open_file('/w/App.css')", "thought": "Look."}).decode()}]
    html = render_html(loaded(steps), evidence=False)
    final = article(html, 1)
    assert '<div class="md said" tabindex="0"><p>All &lt;b&gt;done&lt;/b&gt;, <strong>tested</strong></p>' in final
    ran = article(html, 2)
    assert '<pre class="cmd code" tabindex="0">open_file(&#39;/w/App.css&#39;)</pre>' in ran and "Look." in ran


def test_the_terminal_view_marks_the_same_steps() -> None:
    from typer.testing import CliRunner

    from forsy.cli import app

    r = CliRunner().invoke(app, ["show", str(GOLDEN / "claude__compaction-and-branches.jsonl")],
                           env={"COLUMNS": "200"})
    code, out = r.exit_code, r.stdout
    assert code == 0, out
    lines = {int(m.group(1)): m.group(2) for m in re.finditer(r"^ +(\d+) \d\d:\d\d:\d\d (.*)$", out, re.M)}
    assert re.search(r"Bash +REJ +\(rejected by the user\) pip install", lines[4]), lines[4]
    assert "(abandoned branch) Add a regression test" in lines[10] and "(abandoned branch) " in lines[11]
    assert not any("(" in lines[n][:40] for n in lines if n not in (4, 10, 11))
    assert "\nrejected by the user: steps 4\nabandoned branch: steps 10, 11\n" in out
