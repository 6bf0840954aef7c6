"""The promises of `forsy.review.conversation`: every step of the trace becomes one entry, in
order, of the kind it is (the user's words, the agent's answer, a tool call, a system event, an
error), with the trace's own values only; edits become diffs; retries are linked both ways; a
subagent's consecutive steps are grouped under it. Traces built here by hand."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from forsy.review import conversation as cv
from forsy.review.conversation import DiffLine, Entry, Subagent, answer_diff, conversation, edit_diff, gist
from forsy.review.source import LoadedTrace


def loaded(steps: list[Any], prov_steps: list[dict[str, Any]] | None = None) -> LoadedTrace:
    return LoadedTrace("forsy_c", {}, {"steps": steps}, {"steps": prov_steps or []}, {}, [])


def D(kind: str, text: str) -> DiffLine:
    return DiffLine(kind, text)  # type: ignore[arg-type]


def test_each_step_is_one_entry_of_its_kind() -> None:
    steps = [
        {"step": 1, "action": "user_message", "actor": "user", "input": "Fix <b>it</b>",
         "started_at": "2026-02-16T09:14:06.328Z"},
        {"step": 2, "action": "agent_step", "actor": "agent", "tool": "Bash", "reasoning": "Run it.",
         "input": '{"command":"pytest -q","description":"Run the tests"}', "output": "1 failed", "success": False},
        {"step": 3, "action": "agent_step", "actor": "agent", "tool": "Read", "operation": "read",
         "input": '{"file_path":"a/b.py"}', "output": "x = 1", "retry_of": 2},
        {"step": 4, "action": "output", "actor": "agent", "output": "Done.", "input": "ignored"},
        {"step": 5, "action": "error", "actor": "agent", "output": "", "input": "API error 529"},
        {"step": 6, "action": "agent_step", "actor": "system:hook", "output": "hook ran", "operation": "hook"},
        {"step": 7, "action": "agent_step", "actor": "system", "input": "summary", "operation": "compact"},
        {"step": 8, "action": "agent_step", "actor": "system", "output": "note", "operation": "other"},
        {"step": 9, "action": "user_message", "actor": "human", "input": "thanks"},
        {"step": 10, "action": "user_message", "actor": "teammate", "input": "also"},
        {"step": 11, "action": "output", "actor": "planner", "output": "plan"},
        {"step": 12, "action": "agent_step", "actor": "agent", "operation": "think", "input": "not json {"},
        {"step": 13, "action": "agent_step", "actor": "agent", "input": "[1, 2]"},
        "not a step",
    ]
    prov = [{"step": 7, "fields": {"operation": {"rule": "R-compaction"}}},
            {"step": 8, "fields": {"operation": {"rule": "R-system"}}}]
    blocks = conversation(loaded(steps, prov))
    assert all(isinstance(b, Entry) for b in blocks)
    got = [(b.step, b.kind, b.title) for b in blocks]  # type: ignore[union-attr]
    assert got == [(1, "user", "User"), (2, "call", "Bash"), (3, "call", "Read"), (4, "answer", "Agent"),
                   (5, "error", "Error"), (6, "hook", "Hook"), (7, "compaction", "Compaction"),
                   (8, "system", "System"), (9, "user", "User"), (10, "user", "teammate"),
                   (11, "answer", "planner"), (12, "call", "think"), (13, "call", "step")]
    e = {b.step: b for b in blocks}  # type: ignore[union-attr]
    assert (e[1].text, e[1].time, e[1].actor) == ("Fix <b>it</b>", "09:14:06", "user")
    assert (e[2].command, e[2].target, e[2].failed, e[2].reasoning, e[2].output) == (
        "pytest -q", "Run the tests", True, "Run it.", "1 failed")
    assert e[2].input == '{\n  "command": "pytest -q",\n  "description": "Run the tests"\n}'
    assert e[2].retried_by == (3,) and e[3].retry_of == 2 and e[3].retried_by == ()
    assert (e[3].command, e[3].target, e[3].failed) == ("", "a/b.py", False)
    assert (e[4].text, e[4].output, e[4].output_length, e[4].input) == ("Done.", "", 0, "")
    assert (e[5].text, e[5].failed) == ("API error 529", True)
    assert (e[6].text, e[6].output, e[6].output_length) == ("hook ran", "", 0)
    assert e[7].text == "summary" and e[8].text == "note"
    assert (e[12].input, e[12].target) == ("not json {", "")
    assert (e[13].input, e[13].target) == ("[1, 2]", "")
    assert e[1].time == "09:14:06" and e[2].time == ""


def test_long_outputs_are_capped_and_folded() -> None:
    out = "o" * (cv.WHOLE_CAP + 5)
    [e] = conversation(loaded([{"step": 1, "action": "agent_step", "tool": "Read", "input": "{}", "output": out}]))
    assert isinstance(e, Entry) and e.output == "o" * cv.WHOLE_CAP and e.output_length == cv.WHOLE_CAP + 5
    assert e.cut and e.folded
    [e] = conversation(loaded([{"step": 1, "action": "agent_step", "tool": "Read", "output": "o" * cv.FOLD}]))
    assert isinstance(e, Entry) and not e.folded and not e.cut
    [e] = conversation(loaded([{"step": 1, "action": "agent_step", "tool": "Read", "output": "o" * (cv.FOLD + 1)}]))
    assert isinstance(e, Entry) and e.folded and not e.cut


def test_a_causal_note_is_shown_for_an_interruption_or_a_rewind_only() -> None:
    steps = [{"step": n, "action": "agent_step", "tool": "Read", "causal_note": f"note {n}"} for n in (1, 2, 3)]
    prov = [{"step": 1, "fields": {"causal_note": {"rule": "R-interrupted"}}},
            {"step": 2, "fields": {"causal_note": {"rule": "R-rewind"}}},
            {"step": 3, "fields": {"causal_note": {"rule": "R-retry"}}}]
    assert [b.note for b in conversation(loaded(steps, prov))] == ["note 1", "note 2", ""]  # type: ignore[union-attr]


def test_a_subagents_consecutive_steps_are_grouped() -> None:
    steps = [{"step": 1, "action": "agent_step", "actor": "agent", "tool": "Task"},
             {"step": 2, "action": "agent_step", "actor": "subagent:a", "tool": "Read"},
             {"step": 3, "action": "agent_step", "actor": "subagent:a", "tool": "Grep", "retry_of": 2},
             {"step": 4, "action": "agent_step", "actor": "subagent:b", "tool": "Read"},
             {"step": 5, "action": "agent_step", "actor": "agent", "tool": "Read"},
             {"step": 6, "action": "agent_step", "actor": "subagent:a", "tool": "Read"}]
    blocks = conversation(loaded(steps))
    shape = [(b.actor, [e.step for e in b.entries]) if isinstance(b, Subagent) else b.step for b in blocks]
    assert shape == [1, ("subagent:a", [2, 3]), ("subagent:b", [4]), 5, ("subagent:a", [6])]
    first = blocks[1]
    assert isinstance(first, Subagent) and first.entries[0].retried_by == (3,)
    assert conversation(loaded([{"step": 1, "action": "agent_step", "actor": "subagent:z"}]))[0] == Subagent(
        "subagent:z", [cv._entry(loaded([]), {"step": 1, "action": "agent_step", "actor": "subagent:z"})])


# the project's one reading of a shell call's command (rules.timeline.shell_command_of): a shell's
# `-c` script alone only when it is the whole argv ([sh, -c, a, b] runs `a` with $0 = b: the argv
# is shown as it is, quoted as a shell would read it back)
@pytest.mark.parametrize(("args", "want"), [
    ({"command": "ls -la"}, "ls -la"), ({"cmd": "echo hi"}, "echo hi"),
    ({"command": ["bash", "-lc", "make  all"]}, "make  all"), ({"command": ["/bin/zsh", "-lc", "x y"]}, "x y"),
    ({"command": ["sh", "-c", "a", "b"]}, "sh -c a b"), ({"command": ["git", "status"]}, "git status"),
    ({"command": ["git", "commit", "-m", "a b"]}, "git commit -m 'a b'"),
    ({"command": ["bash", "-x", "y"]}, "bash -x y"), ({"command": ["x", 1]}, ""), ({"command": 5}, ""), ({}, ""),
    ({"command": "c", "cmd": "d"}, "c"),
])
def test_the_command_of_a_shell_call(args: dict[str, Any], want: str) -> None:
    step = {"step": 1, "action": "agent_step", "tool": "Bash", "input": orjson.dumps(args).decode()}
    [e] = conversation(loaded([step]))
    assert isinstance(e, Entry) and e.command == want
    [raw] = conversation(loaded([{**step, "input": "raw text"}]))  # a command logged as text is that text
    assert isinstance(raw, Entry) and raw.command == "raw text"
    # a Codex exec's argv and a Claude Code Bash command read as the rest of forsy reads them
    from forsy.evidence import Event
    from forsy.rules.timeline import shell_command_of

    for tool in ("Bash", "shell", "exec_command"):
        [e] = conversation(loaded([{**step, "tool": tool}]))
        ran = shell_command_of(Event("tool_call", "agent", None, [], tool=tool, args=args))
        assert isinstance(e, Entry) and e.command == (ran or "")


def test_the_target_is_the_first_named_argument_on_one_line() -> None:
    def target(args: dict[str, Any]) -> str:
        [e] = conversation(loaded([{"step": 1, "action": "agent_step", "tool": "Grep",
                                    "input": orjson.dumps(args).decode()}]))
        return e.target  # type: ignore[union-attr]

    assert target({"pattern": "def\n  x", "path": "src"}) == "src"
    assert target({"pattern": "def\n  x", "url": "u"}) == "def x"
    assert target({"path": 3, "query": "q"}) == "q"
    assert target({"prompt": "p" * 300}) == "p" * 200
    assert target({"other": "x"}) == ""


def test_edits_of_every_form_become_diffs() -> None:
    edit = orjson.dumps({"file_path": "a.py", "old_string": "x = 1\ny = 2", "new_string": "x = 1\ny = 3"}).decode()
    assert edit_diff("Edit", edit) == [D("file", "a.py"), D("hunk", "@@ -1,2 +1,2 @@"), D("same", " x = 1"),
                                       D("del", "-y = 2"), D("add", "+y = 3")]
    multi = orjson.dumps({"file_path": "m.py", "edits": [{"old_string": "a", "new_string": "b"}, "odd",
                                                         {"old_string": "c", "new_string": None}]}).decode()
    assert edit_diff("MultiEdit", multi) == [D("file", "m.py"), D("hunk", "@@ -1 +1 @@"), D("del", "-a"),
                                             D("add", "+b"), D("hunk", "@@ -1 +0,0 @@"), D("del", "-c")]
    write = orjson.dumps({"path": "n.txt", "content": "one\ntwo"}).decode()
    assert edit_diff("Write", write) == [D("file", "n.txt"), D("hunk", "@@ -0,0 +1,2 @@"), D("add", "+one"),
                                         D("add", "+two")]
    only_new = orjson.dumps({"notebook_path": "k.ipynb", "new_source": "z"}).decode()
    assert edit_diff("NotebookEdit", only_new)[0] == D("file", "k.ipynb")
    assert edit_diff("Edit", orjson.dumps({"old_str": "p", "new_str": "q"}).decode())[0] == D("file", "(file)")
    patch = ("*** Begin Patch\n*** Update File: src/x.py\n@@ def f\n-a\n+b\n ctx\n*** Add File: y.md\n+new\n"
             "*** Delete File: z.txt\n*** End Patch")
    assert edit_diff("apply_patch", orjson.dumps({"input": patch}).decode()) == [
        D("file", "src/x.py (update)"), D("hunk", "@@ def f"), D("del", "-a"), D("add", "+b"), D("same", " ctx"),
        D("file", "y.md (add)"), D("add", "+new"), D("file", "z.txt (delete)")]
    assert edit_diff("apply_patch", patch)[0] == D("file", "src/x.py (update)")  # the raw input itself
    git = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y"
    assert edit_diff("Edit", git) == [D("file", "a/f b/f"), D("hunk", "@@ -1 +1 @@"), D("del", "-x"), D("add", "+y")]
    assert edit_diff("Bash", edit) == [] and edit_diff(None, edit) == [] and edit_diff("Edit", "not json") == []
    assert edit_diff("Edit", orjson.dumps({"file_path": "a"}).decode()) == []
    long = orjson.dumps({"file_path": "l", "content": "\n".join(map(str, range(1000)))}).decode()
    assert len(edit_diff("Write", long)) == cv.DIFF_LINES


def test_search_replace_blocks_in_an_answer_become_diffs() -> None:
    text = ("Here:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nold line\n=======\nnew line\n>>>>>>> REPLACE\n```\n"
            "\n```\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n```\n")
    assert answer_diff(text) == [D("file", "src/a.py"), D("hunk", "@@ -1 +1 @@"), D("del", "-old line"),
                                 D("add", "+new line"), D("file", "(file)"), D("hunk", "@@ -1 +1 @@"), D("del", "-q"),
                                 D("add", "+r")]
    assert answer_diff("no blocks here") == []
    [e] = conversation(loaded([{"step": 1, "action": "output", "actor": "agent", "output": text}]))
    assert isinstance(e, Entry) and e.diff == tuple(answer_diff(text))


@pytest.mark.parametrize(("fields", "want"), [
    ({"command": "ls  -l\n"}, "ls -l"), ({"target": "a  b", "text": "t"}, "a b"), ({"text": "w\nx"}, "w x"),
    ({"input": "i"}, "i"), ({"output": "o"}, "o"), ({}, ""),
])
def test_gist(fields: dict[str, str], want: str) -> None:
    assert gist(Entry(step=1, kind="call", actor="a", title="t", time="", **fields)) == want  # type: ignore[arg-type]


def test_an_edit_diff_keeps_three_lines_of_context_and_names_an_absolute_path() -> None:
    old = "".join(f"l{i}\n" for i in range(1, 10))
    edit = orjson.dumps({"absolute_path": "/w/a.py", "old_string": old, "new_string": old.replace("l5", "L5")}).decode()
    assert edit_diff("Edit", edit) == [D("file", "/w/a.py"), D("hunk", "@@ -2,7 +2,7 @@"), D("same", " l2"),
                                       D("same", " l3"), D("same", " l4"), D("del", "-l5"), D("add", "+L5"),
                                       D("same", " l6"), D("same", " l7"), D("same", " l8")]


def test_a_command_is_a_shell_calls_alone_and_a_step_keeps_what_it_lacks_empty() -> None:
    shell, read, bare = conversation(loaded([
        {"step": 1, "action": "agent_step", "tool": "Bash", "input": "ls -l"},  # not JSON: the input is the command
        {"step": 2, "action": "agent_step", "tool": "Read", "input": "a/b.py"},
        {"action": "user_message", "input": "hi"},  # no number, no actor, no time
    ]))
    assert isinstance(shell, Entry) and (shell.command, shell.actor) == ("ls -l", "")
    assert isinstance(read, Entry) and (read.command, read.input) == ("", "a/b.py")
    assert isinstance(bare, Entry) and (bare.step, bare.actor, bare.title, bare.time) == (0, "", "", "")


@pytest.mark.parametrize(("old_key", "new_key"), [("old_string", "new_string"), ("old_str", "new_str"), ("old", "new")])
def test_each_spelling_of_an_edits_old_and_new_text_and_either_alone(old_key: str, new_key: str) -> None:
    def diff(**args: str) -> list[DiffLine]:
        return edit_diff("Edit", orjson.dumps({"path": "a.py", **args}).decode())

    assert diff(**{old_key: "p", new_key: "q"}) == [D("file", "a.py"), D("hunk", "@@ -1 +1 @@"), D("del", "-p"),
                                                    D("add", "+q")]
    assert diff(**{old_key: "p"}) == [D("file", "a.py"), D("hunk", "@@ -1 +0,0 @@"), D("del", "-p")]
    assert diff(**{new_key: "q"}) == [D("file", "a.py"), D("hunk", "@@ -0,0 +1 @@"), D("add", "+q")]


def test_a_file_written_whole_under_file_text() -> None:
    write = orjson.dumps({"path": "n.txt", "file_text": "one\ntwo\n"}).decode()
    assert edit_diff("Edit", write) == [D("file", "n.txt"), D("hunk", "@@ -0,0 +1,2 @@"), D("add", "+one"),
                                        D("add", "+two")]


def test_a_value_that_is_not_text_is_shown_as_its_json() -> None:
    [answer, call] = conversation(loaded([{"step": 1, "action": "output", "actor": "agent", "output": {"a": [1, 2]}},
                                          {"step": 2, "action": "agent_step", "tool": "Read", "output": 42}]))
    assert isinstance(answer, Entry) and answer.text == '{"a":[1,2]}'
    assert isinstance(call, Entry) and (call.output, call.output_length) == ("42", 2)
