"""Aider's writes turned into events (`aider/_build.py`): the user's inputs that are not the
user's words (an empty input, a confirmation aider answered for a group), the commands typed
through aider, interrupts, failed model calls and the start-up lines' facts. Hand-written chats
in the shapes aider/io.py writes (`#### ` inputs and `> ` messages ended by two spaces; an
empty input written `#### <blank>`, io.user_input; a group's answer written as an input,
io.confirm_ask); every expectation worked out by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forsy.evidence import Mark
from forsy.payloads import CallInfo, MessageInfo, NoteInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource
from forsy.sources.aider._build import command

B = "  "  # aider's line break
SETTINGS = Mark("metadata", "settings (version, models, edit format, git repo, repo map)")
QUOTE = Mark("set_aside", "empty aider message (a blank quote line)")
GROUP = "Run shell command? (Y)es/(N)o/(A)ll/(S)kip all [Yes]: s"
CHAT = (
    "\n# aider chat started at 2026-03-01 09:00:00\n\n"                                      # 1-3
    f"> /usr/bin/aider --model m1{B}\n> Aider v0.86.1{B}\n> Main model: m1 with diff edit format{B}\n"  # 4-6
    f"> Weak model: w2{B}\n> Git repo: .git with 3 files{B}\n> Repo-map: using 1024 tokens{B}\n\n"  # 7-10
    f"#### <blank>{B}\n>{B}\n>{B}\n> ^C again to exit{B}\n>{B}\n\n"                          # 11-16
    f"####{B}\n\n"                                                                           # 17-18
    f"#### !ls -a{B}\n> a.txt{B}\n> b.txt{B}\n\n"                                            # 19-22
    f"#### /git   status{B}\n\n"                                                             # 23-24
    f"#### {GROUP}{B}\n\n"                                                                   # 25-26
    f"#### hi{B}\n\n"                                                                        # 27-28
    f"> litellm.RateLimitError: too many{B}\n> Retrying in 0.2 seconds...{B}\n> ^C KeyboardInterrupt{B}\n"  # 29-31
)


def _read(tmp_path: Path, chat: str) -> Any:
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(chat)
    [s] = AiderSource().read(p, ReadContext(root=tmp_path))
    return s


def _lines(s: Any, e: Any) -> list[int]:
    return [s.evidence[r.ev].line for r in e.refs]


def test_inputs_that_are_not_the_users_words_and_typed_commands(tmp_path: Path) -> None:
    s = _read(tmp_path, CHAT)
    got = [(e.kind, e.actor, e.tool, e.text, e.args, e.is_error, _lines(s, e)) for e in s.events]
    assert got == [
        # `#### <blank>`: an empty input (Enter alone), nothing said; the blank quote lines after it set aside
        ("interrupt", "user", None, "^C again to exit", None, None, [14]),
        # `####` and its break: a blank input, nothing said
        ("user", "user", None, "!ls -a", None, None, [19]),
        ("tool_call", "agent", "/run", None, "ls -a", None, [19]),
        ("tool_result", "agent", "/run", "a.txt\nb.txt", None, None, [20, 21]),
        ("user", "user", None, "/git   status", None, None, [23]),
        ("tool_call", "agent", "/git", None, "status", None, [23]),
        ("note", "system", None, GROUP, None, None, [25]),  # aider's answer for the group
        ("user", "user", None, "hi", None, None, [27]),
        ("agent_text", "agent", None, "litellm.RateLimitError: too many", None, None, [29]),
        ("note", "system", None, "Retrying in 0.2 seconds...", None, None, [30]),
        ("interrupt", "user", None, "^C KeyboardInterrupt", None, None, [31]),
    ]
    run, res, git = s.events[2], s.events[3], s.events[5]
    ids = {e.call_id for e in (run, res)}
    assert len(ids) == 1 and ids == {f"{run.refs[0].ev}:cmd"} and git.call_id == f"{git.refs[0].ev}:cmd"
    # the argument's place in the input's text
    assert isinstance(run.info, CallInfo) and run.info.span == (1, 6)
    assert isinstance(git.info, CallInfo) and git.info.span == (7, 13)
    assert isinstance(s.events[6].info, NoteInfo) and s.events[6].info.subtype == "confirmation"
    assert isinstance(s.events[8].info, MessageInfo) and s.events[8].info.api_error is True
    assert isinstance(s.events[9].info, NoteInfo) and s.events[9].info.subtype == "message"
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    assert marks == {
        2: Mark("metadata", "session start time"), **{n: SETTINGS for n in range(4, 10)},
        11: Mark("set_aside", "an empty user input (aider writes `<blank>`)"),
        12: QUOTE, 13: QUOTE, 14: Mark("set_aside", "interrupt (Ctrl-C)"), 15: QUOTE,
        17: Mark("set_aside", "a user input of blank lines"),
        25: Mark("set_aside", "a confirmation aider answered for a group", "confirmation"),
        30: Mark("set_aside", "aider's messages are notes, not steps", "message"),
        31: Mark("set_aside", "interrupt (Ctrl-C)")}
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-result", "/git 'status': no output written after it", 23)]
    assert s.quality.missing_results == 1
    assert s.quality.extra == {"blank_inputs": 2, "auto_confirmations": 1, "model_failures": 1, "blank_lines": 9,
                               "untimed_events": 11}
    assert s.quality.records == 22
    # each record's type: the header's time, the inputs' lines, aider's messages (a blank quote line too)
    types = {ev.line: ev.record_type for ev in s.evidence.values()}
    assert len(types) == 22 and types == {2: "session_start", **{n: "user_line" for n in (11, 17, 19, 23, 25, 27)},
                                          **{n: "aider_output" for n in (*range(4, 10), *range(12, 16), 20, 21, 29,
                                                                         30, 31)}}


def test_the_start_up_lines_facts(tmp_path: Path) -> None:
    s = _read(tmp_path, CHAT)
    m = s.meta
    assert (m.agent, m.agent_version, m.models, m.started_at) == ("aider", "0.86.1", ["m1"], "2026-03-01 09:00:00")
    assert sorted(m.extra) == ["command", "edit_format", "git_repo", "repo_map", "weak_model"]
    assert m.extra == {"command": "/usr/bin/aider --model m1", "edit_format": "diff", "weak_model": "w2",
                       "git_repo": ".git with 3 files", "repo_map": "using 1024 tokens"}
    ev = s.evidence[m.started_at_ref.ev]
    # the time alone: after `# aider chat started at ` on line 2 (line 1 is blank)
    assert (ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (2, 25, 19, "session_start")


def _edit(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```"


def _sub(e: Any) -> Any:
    return e.info.subtype if isinstance(e.info, NoteInfo) else getattr(e.info, "rejected", None)


def test_edits_aider_refused_or_could_not_make(tmp_path: Path) -> None:
    """base_coder.allowed_to_edit: a file not in the chat is edited only if the user allows it
    (refused: `Skipping edits to <path>`); a new file aider cannot create, or one git ignores,
    is skipped with aider's own words. Each answers its edit: a refusal is a rejection, aider's
    skip a failure; none is left without a result."""
    allow = "Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: n"
    create = "Create new file? (Y)es/(N)o [Yes]: y"
    unable, ignored = "Unable to create h.py, skipping edits.", "Skipping edits to i.py that matches gitignore spec."
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### add them{B}\n\n"
            f"{_edit('g.py', 'g = 0', 'g = 1')}\n\n{_edit('h.py', '', 'h = 1')}\n\n"
            f"{_edit('i.py', 'i = 0', 'i = 1')}\n\n"
            f"> g.py{B}\n> {allow}{B}\n> Skipping edits to g.py{B}\n> h.py{B}\n> {create}{B}\n> {unable}{B}\n"
            f"> {ignored}{B}\n")
    s = _read(tmp_path, chat)
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [(e.tool, e.args) for e in calls] == [("search_replace", _edit("g.py", "g = 0", "g = 1")),
                                                ("search_replace", _edit("h.py", "", "h = 1")),
                                                ("search_replace", _edit("i.py", "i = 0", "i = 1"))]
    g, h, i = (c.call_id for c in calls)
    got = [(e.kind, e.call_id, e.text, e.is_error, _sub(e)) for e in s.events[4:]]
    assert got == [
        ("note", None, "g.py", None, "message"),
        ("tool_result", g, allow, False, True),
        ("note", None, "Skipping edits to g.py", None, "message"),
        ("note", None, "h.py", None, "message"),
        ("note", None, create, None, "confirmation"),
        ("tool_result", h, unable, True, None),
        ("tool_result", i, ignored, True, None)]
    assert s.warnings == [] and s.quality.missing_results == 0
    assert (s.quality.extra["confirmations"], s.quality.extra["edits_reconstructed"]) == (2, 3)


def test_questions_in_the_form_aider_wrote_before_august_2024(tmp_path: Path) -> None:
    """Before 0.52 io.confirm_ask wrote `<question> [Y/n] y` (or `[y/N]`, the answer `y` or `n`,
    no colon): a refused new file is a rejection, a shell command asked so is a call."""
    chat = (f"\n# aider chat started at 2024-06-01 09:00:00\n\n#### add it{B}\n\n"           # 1-5
            f"{_edit('n.py', '', 'n = 1')}\n\nThen:\n\n```bash\nls\n```\n\n"                 # 6-20
            f"> n.py{B}\n> Create new file? [Y/n] n{B}\n> Skipping edits to n.py{B}\n\n"     # 21-24
            f"> ls{B}\n> Run shell command? [Y/n] y{B}\n> Running ls{B}\n\n"                 # 25-28
            f"> pwd{B}\n> Run shell command? [y/N] n{B}\n")                                  # 29-30
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _sub(e), _lines(s, e))
           for e in s.events]
    assert got == [
        ("user", None, "add it", None, None, [4]),
        ("tool_call", "search_replace", _edit("n.py", "", "n = 1"), None, None, [6]),
        ("agent_text", None, "Then:\n\n```bash\nls\n```", None, None, [15]),
        ("note", None, "n.py", None, "message", [21]),
        ("tool_result", "search_replace", "Create new file? [Y/n] n", False, True, [22]),
        ("note", None, "Skipping edits to n.py", None, "message", [23]),
        ("tool_call", "shell", "ls", None, None, [25]),
        ("note", None, "Run shell command? [Y/n] y", None, "confirmation", [26]),
        ("tool_result", "shell", "Running ls", None, None, [27]),
        ("tool_call", "shell", "pwd", None, None, [29]),
        ("tool_result", "shell", "Run shell command? [y/N] n", False, True, [30])]
    assert s.warnings == [] and s.quality.extra["confirmations"] == 3


def test_shell_commands_the_reply_suggested_and_commands_with_no_output(tmp_path: Path) -> None:
    """A start-up line (`Git repo: …`) stands before `Run shell command(s)?`: the call is the
    command of the reply's next shell fence (a blank one is none), cited as a slice of the
    reply's text; aider's `Running …` messages and a message of several lines after them answer
    it, a failure when aider could not run it (base_coder.handle_shell_commands, run_cmd)."""
    x70 = "x" * 70
    yes = "(Y)es/(N)o/(D)on't ask again [Yes]"
    text = "Run these:\n\n```bash\nmake\nmake lint\n```\n\nand\n\n```sh\n   \n```\n\n```shell\npwd\n```"
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### check{B}\n\n{text}\n\n"           # 1-22
            f"> Git repo: .git with 3 files{B}\n> Run shell commands? {yes}: y{B}\n"                  # 23-24
            f"> Running make{B}\n> make: *** No rule to make target\n'all'.  Stop.{B}\n"              # 25-27
            f"> Running make lint{B}\n> Error occurred while running command 'make lint': boom{B}\n"  # 28-29
            f"> Add command output to the chat? {yes}: n{B}\n\n"                                      # 30-31
            f"> Git repo: .git with 3 files{B}\n> Run shell command? {yes}: y{B}\n\n"                 # 32-34
            f"#### /lint{B}\n> ok{B}\n>{B}\n>{B}\n\n"                                                 # 35-39
            f"#### /test {x70}{B}\n\n")                                                               # 40-41
    s = _read(tmp_path, chat)
    got = [(e.kind, e.actor, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _sub(e), _lines(s, e))
           for e in s.events]
    ran = "Running make\nmake: *** No rule to make target\n'all'.  Stop.\nRunning make lint\n" \
          "Error occurred while running command 'make lint': boom"
    assert got == [
        ("user", "user", None, "check", None, None, [4]),
        ("agent_text", "agent", None, text, None, None, [6]),
        ("tool_call", "agent", "shell", "make\nmake lint", None, None, [6]),
        ("note", "system", None, f"Run shell commands? {yes}: y", None, "confirmation", [24]),
        ("tool_result", "agent", "shell", ran, True, None, [25, 26, 28, 29]),
        ("note", "system", None, f"Add command output to the chat? {yes}: n", None, "confirmation", [30]),
        ("tool_call", "agent", "shell", "pwd", None, None, [6]),
        ("note", "system", None, f"Run shell command? {yes}: y", None, "confirmation", [33]),
        ("user", "user", None, "/lint", None, None, [35]),
        ("tool_call", "agent", "/lint", None, None, None, [35]),
        ("tool_result", "agent", "/lint", "ok", None, None, [36]),  # the blank quote lines after it are not
        ("user", "user", None, f"/test {x70}", None, None, [40]),
        ("tool_call", "agent", "/test", x70, None, None, [40])]
    ev = s.events[1].refs[0].ev
    make, pwd, lint, test = s.events[2], s.events[6], s.events[9], s.events[12]
    assert (make.call_id, s.events[4].call_id, pwd.call_id) == (f"{ev}:shell:20", f"{ev}:shell:20", f"{ev}:shell:69")
    assert isinstance(make.info, CallInfo) and make.info.span == (20, 34) and text[20:34] == "make\nmake lint"
    assert isinstance(pwd.info, CallInfo) and pwd.info.span == (69, 72) and text[69:72] == "pwd"
    # a command with no argument has no span; one of 70 characters is named by its first 60 in the warning
    assert lint.info is None and lint.args is None
    assert isinstance(test.info, CallInfo) and test.info.span == (6, 76)
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("no-result", "a shell command aider ran has no report of its run", ".aider.chat.history.md", 6),
        ("no-result", f"/test {x70[:60]!r}: no output written after it", ".aider.chat.history.md", 40)]
    assert s.quality.missing_results == 2 and s.quality.extra["confirmations"] == 3
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    assert {n: marks[n] for n in (23, 32, 37, 38)} == {23: SETTINGS, 32: SETTINGS, 37: QUOTE, 38: QUOTE}


REPORT = ("# 1 SEARCH/REPLACE block failed to match!\n\n"
          "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b.py\n"
          "<<<<<<< SEARCH\n  x = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
          "The SEARCH section must exactly match an existing block of lines including all white space, comments, "
          "indentation, docstrings, etc\n\n"
          "# The other 2 SEARCH/REPLACE blocks were applied successfully.\nDon't re-send them.\n"
          "Just reply with fixed versions of the block above that failed to match.")


def test_a_failure_report_answers_the_blocks_it_quotes_and_the_others(tmp_path: Path) -> None:
    """editblock_coder.apply_edits' report (written whole as one message, base_coder: after `The
    LLM did not conform to the edit format.` and the help link) quotes the blocks that failed:
    of two edits of b.py only the one whose SEARCH lines it quotes (indentation aside) failed;
    the one whose SEARCH holds the quoted line and one more was applied, as was c.py's. A report
    naming none of a reply's files fails all its edits."""
    e1, e2 = _edit("b.py", "x = 1", "x = 2"), _edit("b.py", "z = 0\n    x = 1", "z = 1")
    e3, e4 = _edit("c.py", "c = 0", "c = 1"), _edit("d.py", "d = 0", "d = 1")
    llm = "The LLM did not conform to the edit format."
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### fix{B}\n\n{e1}\n\n{e2}\n\n{e3}\n\n"      # 1-33
            f"> {llm}{B}\n> https://aider.chat/docs/troubleshooting/edit-errors.html{B}\n>{B}\n"           # 34-36
            f"> {REPORT}{B}\n> Tokens: 1k sent{B}\n\n"                                                     # 37-52
            f"#### again{B}\n\n<think>\nhm\n</think>\n\n{e4}\n\n"                                          # 53-67
            f"> {llm}{B}\n> # 1 SEARCH/REPLACE block failed to match!{B}\n")                               # 68-69
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, e.group, _lines(s, e),
            [s.evidence[r.ev].record_type for r in e.refs]) for e in s.events]
    sr, out = "search_replace", "aider_output"
    assert got == [
        ("user", None, "fix", None, None, [4], ["user_line"]),
        ("tool_call", sr, e1, None, "reply-L6", [6], ["edit_block"]),
        ("tool_call", sr, e2, None, "reply-L6", [15], ["edit_block"]),
        ("tool_call", sr, e3, None, "reply-L6", [25], ["edit_block"]),
        ("tool_result", sr, f"{llm}\nhttps://aider.chat/docs/troubleshooting/edit-errors.html\n{REPORT}", True, None,
         [34, 35, 37], [out] * 3),
        ("tool_result", sr, REPORT, False, None, [37], [out]),
        ("tool_result", sr, REPORT, False, None, [37], [out]),
        ("note", None, "Tokens: 1k sent", None, None, [51], [out]),
        ("user", None, "again", None, None, [53], ["user_line"]),
        ("reasoning", None, "hm", None, None, [56], ["reasoning"]),
        ("tool_call", sr, e4, None, "reply-L55", [59], ["edit_block"]),
        ("tool_result", sr, f"{llm}\n# 1 SEARCH/REPLACE block failed to match!", True, None, [68, 69], [out] * 2)]
    calls = [e.call_id for e in s.events if e.kind == "tool_call"]
    assert [e.call_id for e in s.events if e.kind == "tool_result"] == calls
    assert all(e.actor == "agent" for e in s.events if e.kind in ("tool_call", "tool_result", "reasoning"))
    tag = Mark("set_aside", "the tag aider writes around the model's reasoning")
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    assert {n: marks[n] for n in (36, 51, 55, 57)} == {
        36: QUOTE, 51: Mark("set_aside", "aider's messages are notes, not steps", "usage"), 55: tag, 57: tag}
    assert {ev.record_type for ev in s.evidence.values() if ev.line in (55, 57)} == {"tag"}
    # blank lines: 1, 3, 5, 33, 52, 54, 67 between writes and 14, 24, 58 between a reply's blocks
    assert s.warnings == [] and s.quality.missing_results == 0
    assert s.quality.extra == {"edits_reconstructed": 4, "blank_lines": 10, "untimed_events": 12}


def test_the_architects_answer_passed_on_to_the_editor(tmp_path: Path) -> None:
    """architect_coder: the editor model is run with the architect's reply as its message, which
    io.user_input writes as an input (a blank line as `####` and three spaces): aider's words,
    a duplicate of the reply; the same words typed on one line are the user's."""
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### plan it{B}\n\n"   # 1-5
            "Change a:\n\n  do x\n\n"                                             # 6-9
            f"#### Change a:{B}\n#### {B}\n####   do x{B}\n\n"                    # 10-13
            "ok\n\n"                                                              # 14-15
            f"#### ok{B}\n")                                                      # 16
    s = _read(tmp_path, chat)
    assert [(e.kind, e.actor, e.text, _sub(e), _lines(s, e)) for e in s.events] == [
        ("user", "user", "plan it", None, [4]),
        ("agent_text", "agent", "Change a:\n\n  do x", None, [6]),
        ("note", "system", "Change a:\n\n  do x", "editor_request", [10, 11, 12]),
        ("agent_text", "agent", "ok", None, [14]),
        ("user", "user", "ok", None, [16])]  # one line: the user's, though it repeats the reply
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    dup = Mark("duplicate", "the architect's answer passed on to the editor model")
    assert {n: marks.get(n) for n in (10, 11, 12, 16)} == {10: dup, 11: dup, 12: dup, 16: None}
    assert s.quality.extra["editor_requests"] == 1


def test_checks_after_the_edits_and_edits_left_with_no_result(tmp_path: Path) -> None:
    """base_coder after applying edits: the lint run's report and question, then the test run
    (`Added N lines of output to the chat.` and its question) are two failed checks, each
    answered by its own report; a test question right after the commit is its own report. Edits
    aider said nothing about are warned where they start, by path or as `a file`."""
    e, k = _edit("app.py", "x = 1", "x = 2"), _edit("k.py", "k = 1", "k = 2")
    u = "<<<<<<< SEARCH\nu = 1\n=======\nu = 2\n>>>>>>> REPLACE"
    lint_q = "Attempt to fix lint errors? (Y)es/(N)o [Yes]: n"
    test_q = "Attempt to fix test errors? (Y)es/(N)o [Yes]: n"
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### fix{B}\n\n{e}\n\n"                       # 1-14
            f"> Applied edit to app.py{B}\n> Commit 1a2b3c4 fix x{B}\n"                                      # 15-16
            f"> # Fix any errors below, if possible.{B}\n>{B}\n> ## Running: flake8 app.py{B}\n>{B}\n"       # 17-20
            f"> app.py:1:1: F821 undefined name 'y'{B}\n> {lint_q}{B}\n"                                     # 21-22
            f"> Added 3 lines of output to the chat.{B}\n> {test_q}{B}\n\n"                                  # 23-25
            f"#### again{B}\n\n{e}\n\n{k}\n\nNow change it like this:\n{u}\n\n"                              # 26-52
            f"> Applied edit to app.py{B}\n> Commit 2b3c4d5 fix x{B}\n> {test_q}{B}\n")                      # 53-55
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _sub(e), _lines(s, e))
           for e in s.events]
    report = "# Fix any errors below, if possible.\n\n## Running: flake8 app.py\n\napp.py:1:1: F821 undefined name 'y'"
    assert got == [
        ("user", None, "fix", None, None, [4]),
        ("tool_call", "search_replace", e, None, None, [6]),
        ("tool_result", "search_replace", "Applied edit to app.py", False, None, [15]),
        ("tool_call", "/lint", "flake8 app.py", None, None, [19]),
        ("tool_result", "/lint", report, True, None, [17, 19, 21]),
        ("tool_call", "/test", None, None, None, [23]),
        ("tool_result", "/test", "Added 3 lines of output to the chat.", True, None, [23]),
        ("note", None, "Commit 1a2b3c4 fix x", None, "commit", [16]),
        ("note", None, lint_q, None, "confirmation", [22]),
        ("note", None, test_q, None, "confirmation", [24]),
        ("user", None, "again", None, None, [26]),
        ("tool_call", "search_replace", e, None, None, [28]),
        ("tool_call", "search_replace", k, None, None, [37]),
        ("agent_text", None, "Now change it like this:", None, None, [46]),
        ("tool_call", "search_replace", u, None, None, [47]),
        ("tool_result", "search_replace", "Applied edit to app.py", False, None, [53]),
        ("tool_call", "/test", None, None, None, [55]),
        ("tool_result", "/test", test_q, True, None, [55]),
        ("note", None, "Commit 2b3c4d5 fix x", None, "commit", [54])]
    lint, test, last = s.events[3], s.events[5], s.events[16]
    assert [(c.call_id, c.actor) for c in (lint, s.events[4])] == [(f"{lint.refs[0].ev}:lint", "agent")] * 2
    assert [(c.call_id, c.actor) for c in (test, s.events[6])] == [(f"{test.refs[0].ev}:test", "agent")] * 2
    assert [(c.call_id, c.actor) for c in (last, s.events[17])] == [(f"{last.refs[0].ev}:test", "agent")] * 2
    assert isinstance(lint.info, CallInfo) and lint.info.span == (12, 25) and test.info is None  # after `## Running: `
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("no-result", f"edit of {p}: aider reported no applied edit and no failure for it", ".aider.chat.history.md", n)
        for p, n in (("k.py", 37), ("a file", 47))]
    assert s.quality.missing_results == 2
    assert (s.quality.extra["failed_checks"], s.quality.extra["confirmations"]) == (3, 2)


def test_a_line_like_aiders_command_line_after_an_input_is_a_note(tmp_path: Path) -> None:
    """Only before the first input or reply is `aider …` the command line aider was started with."""
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n> aider --yes{B}\n\n#### /help{B}\n\n"
            f"> aider is AI pair programming in your terminal{B}\n")
    s = _read(tmp_path, chat)
    assert s.meta.extra == {"command": "aider --yes"}
    assert [(e.kind, e.text, _sub(e)) for e in s.events] == [
        ("user", "/help", None), ("note", "aider is AI pair programming in your terminal", "message")]


def test_a_suggested_command_asked_about_by_name_is_not_asked_again(tmp_path: Path) -> None:
    """The reply suggests `ls` then `pwd`: aider asks about `ls` by name, then (a start-up line
    written before the question) about the next one, `pwd`, not `ls` again. A question with no
    command suggested and none named is a confirmation."""
    yes = "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y"
    text = "Run:\n\n```bash\nls\n```\n\n```bash\npwd\n```"
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### go{B}\n\n{text}\n\n"   # 1-15
            f"> ls{B}\n> {yes}{B}\n> Running ls{B}\n\n"                                # 16-19
            f"> Repo-map: disabled{B}\n> {yes}{B}\n> Running pwd{B}\n\n"               # 20-23
            f"#### more{B}\n\nNo commands here.\n\n> Aider v0.86.1{B}\n> {yes}{B}\n")  # 24-29
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, _sub(e), _lines(s, e)) for e in s.events]
    assert got == [
        ("user", None, "go", None, [4]),
        ("agent_text", None, text, None, [6]),
        ("tool_call", "shell", "ls", None, [16]),
        ("note", None, yes, "confirmation", [17]),
        ("tool_result", "shell", "Running ls", None, [18]),
        ("tool_call", "shell", "pwd", None, [6]),
        ("note", None, yes, "confirmation", [21]),
        ("tool_result", "shell", "Running pwd", None, [22]),
        ("user", None, "more", None, [24]),
        ("agent_text", None, "No commands here.", None, [26]),
        ("note", None, yes, "confirmation", [29])]
    ls, pwd = s.events[2], s.events[5]
    assert ls.info is None and ls.call_id == f"{ls.refs[0].ev}:shell" and s.events[4].call_id == ls.call_id
    assert isinstance(pwd.info, CallInfo) and pwd.info.span == (30, 33) and text[30:33] == "pwd"
    assert (s.meta.agent_version, s.meta.extra) == ("0.86.1", {"repo_map": "disabled"})
    assert s.warnings == [] and s.quality.extra["confirmations"] == 3


def test_the_commands_a_typed_input_runs() -> None:
    """(tool, where the argument starts, the argument) of `/run`, `!`, `/test`, `/lint`, `/git`."""
    assert [command(t) for t in ("!ls", "!  ls -a", "!", "/run", "/test   pytest -q", "/lint a.py", "/git status")] == [
        ("/run", 1, "ls"), ("/run", 3, "ls -a"), ("/run", 1, ""), ("/run", 4, ""), ("/test", 8, "pytest -q"),
        ("/lint", 6, "a.py"), ("/git", 5, "status")]
    assert [command(t) for t in ("/runner x", "run x", " /run x", "/add a.py", "")] == [None] * 5


def test_a_report_after_the_usage_line_and_what_follows_a_reply_or_an_input(tmp_path: Path) -> None:
    """The usage line comes before the failure report (base_coder: usage, then apply_updates):
    the report still answers the edit of the file it names; an edit applied before it keeps its
    result; one it names not has none. The lint report sent as a request is aider's; the shell
    fences of two text blocks of one reply are both offered; `Applied edit to` a file no edit
    names is a note, after a reply or an input; a command's output is only what is glued to it."""
    app, other = _edit("app.py", "x = 1", "x = 2"), _edit("other.py", "o = 1", "o = 2")
    c = _edit("c.py", "c = 1", "c = 2")
    u = "<<<<<<< SEARCH\nu = 1\n=======\nu = 2\n>>>>>>> REPLACE"
    yes = "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y"
    llm, srnem = ("The LLM did not conform to the edit format.",
                  "SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in app.py")
    link = "https://aider.chat/docs/troubleshooting/edit-errors.html"
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### fix{B}\n\n{other}\n\n{app}\n\n{c}\n\n"    # 1-32
            f"> Tokens: 1k sent{B}\n> Applied edit to other.py{B}\n> {llm}{B}\n> {srnem}{B}\n> {link}{B}\n\n"  # 33-38
            f"#### # Fix any errors below, if possible.{B}\n#### {B}\n#### a.py:1:1: E1{B}\n\n"                # 39-42
            f"Fixed:\n\n```bash\nls\n```\n\n{u}\n\nand\n\n```bash\npwd\n```\n\n"                              # 43-60
            f"> Applied edit to z.py{B}\n> Git repo: .git{B}\n> {yes}{B}\n> Running ls{B}\n"                     # 61-64
            f"> Repo-map: off{B}\n> {yes}{B}\n> Running pwd{B}\n> aider --help{B}\n\n"                           # 65-69
            f"#### /run true{B}\n\n> Applied edit to q.py{B}\n")                                                 # 70-72
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _sub(e), _lines(s, e))
           for e in s.events]
    sr = "search_replace"
    assert got == [
        ("user", None, "fix", None, None, [4]),
        ("tool_call", sr, other, None, None, [6]),
        ("tool_call", sr, app, None, None, [15]),
        ("tool_call", sr, c, None, None, [24]),
        ("tool_result", sr, "Applied edit to other.py", False, None, [34]),
        ("tool_result", sr, f"{llm}\n{srnem}\n{link}", True, None, [35, 36, 37]),
        ("note", None, "Tokens: 1k sent", None, "usage", [33]),
        ("note", None, "# Fix any errors below, if possible.\n\na.py:1:1: E1", None, "lint_request", [39, 40, 41]),
        ("agent_text", None, "Fixed:\n\n```bash\nls\n```", None, None, [43]),
        ("tool_call", sr, u, None, None, [49]),
        ("agent_text", None, "and\n\n```bash\npwd\n```", None, None, [55]),
        ("note", None, "Applied edit to z.py", None, "applied_edit", [61]),  # not the edit with no path
        ("tool_call", "shell", "ls", None, None, [43]),
        ("note", None, yes, None, "confirmation", [63]),
        ("tool_result", "shell", "Running ls", None, None, [64]),
        ("tool_call", "shell", "pwd", None, None, [55]),
        ("note", None, yes, None, "confirmation", [66]),
        ("tool_result", "shell", "Running pwd", None, None, [67]),
        ("note", None, "aider --help", None, "message", [68]),  # after a reply: not the command line
        ("user", None, "/run true", None, None, [70]),
        ("tool_call", "/run", "true", None, None, [70]),
        ("note", None, "Applied edit to q.py", None, "applied_edit", [72])]  # after a blank line: not its output
    lint = Mark("set_aside", "aider's lint report sent to the model as its request", "lint_request")
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    assert {n: marks[n] for n in (39, 40, 41)} == {39: lint, 40: lint, 41: lint}
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-result", "edit of c.py: aider reported no applied edit and no failure for it", 24),
        ("no-result", "edit of a file: aider reported no applied edit and no failure for it", 49),
        ("no-result", "/run 'true': no output written after it", 70)]
    assert s.quality.extra["lint_requests"] == 1 and s.meta.extra == {"git_repo": ".git", "repo_map": "off"}


def test_an_editor_request_of_two_lines(tmp_path: Path) -> None:
    chat = f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### go{B}\n\none\ntwo\n\n#### one{B}\n#### two{B}\n"
    s = _read(tmp_path, chat)
    assert [(e.kind, e.text, _sub(e)) for e in s.events] == [
        ("user", "go", None), ("agent_text", "one\ntwo", None), ("note", "one\ntwo", "editor_request")]


def test_an_interrupted_command_failed_edits_and_a_lint_report_with_no_command(tmp_path: Path) -> None:
    """`^C` right after `/run`: the command has no output, the interrupt is its own event. A
    udiff edit answered by a report naming no file fails; a block whose two SEARCH lines the
    report quotes fails. A lint report with no `## Running:` line (aider's own syntax check)
    makes a `/lint` call with no argument, citing the report's first line."""
    ud = "```diff\n--- a/u.py\n+++ b/u.py\n@@ -1 +1 @@\n-u = 1\n+u = 2\n```"
    sr = _edit("s.py", "a = 1\nb = 2", "b = 3")
    llm = "The LLM did not conform to the edit format."
    quoted = ("# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to "
              "exactly match lines in s.py\n<<<<<<< SEARCH\na = 1\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE")
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### /run sleep 9{B}\n> ^C again to exit{B}\n\n"  # -6
            f"#### rewrite{B}\n\n{ud}\n\n> {llm}{B}\n> UnifiedDiffNoMatch: hunk failed to apply!{B}\n\n"        # 7-19
            f"#### fix s{B}\n\n{sr}\n\n> {llm}{B}\n> {quoted}{B}\n\n"                                           # 20-42
            f"#### tidy{B}\n\nok\n\n> Applied edit to t.py{B}\n"  # 43-47
            f"> # Fix any errors below, if possible.{B}\n>{B}\n"  # 48-49
            f"> ## See relevant line below marked with █.{B}\n"  # 50
            f">{B}\n> t.py:{B}\n"                                                                                # 51-52
            f"> Attempt to fix lint errors? (Y)es/(N)o [Yes]: n{B}\n")                                            # 53
    s = _read(tmp_path, chat)
    got = [(e.kind, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _lines(s, e)) for e in s.events]
    assert got == [
        ("user", None, "/run sleep 9", None, [4]),
        ("tool_call", "/run", "sleep 9", None, [4]),
        ("interrupt", None, "^C again to exit", None, [5]),
        ("user", None, "rewrite", None, [7]),
        ("tool_call", "udiff", ud, None, [9]),
        ("tool_result", "udiff", f"{llm}\nUnifiedDiffNoMatch: hunk failed to apply!", True, [17, 18]),
        ("user", None, "fix s", None, [20]),
        ("tool_call", "search_replace", sr, None, [22]),
        ("tool_result", "search_replace", f"{llm}\n{quoted}", True, [32, 33]),
        ("user", None, "tidy", None, [43]),
        ("agent_text", None, "ok", None, [45]),
        ("tool_call", "/lint", None, None, [48]),
        ("tool_result", "/lint", "# Fix any errors below, if possible.\n\n## See relevant line below marked with █.\n\n"
         "t.py:", True, [48, 50, 52]),
        ("note", None, "Applied edit to t.py", None, [47]),
        ("note", None, "Attempt to fix lint errors? (Y)es/(N)o [Yes]: n", None, [53])]
    assert s.events[11].info is None and s.events[11].call_id == f"{s.events[11].refs[0].ev}:lint"
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-result", "/run 'sleep 9': no output written after it", 4)]
