"""Each failure aider's writer records, read as a failure (and the look-alikes that are not).

Hand-written chats in the shapes aider/io.py writes (`> ` messages ended by two spaces, `#### `
inputs), each failure as aider's code writes it:

* an edit whose SEARCH block did not match (editblock_coder: "... failed to match", "did not
  conform to the edit format"): tests/test_sources_aider.py, `test_failed_and_partly_applied_edits`;
* the lint run after the edits failed (base_coder.lint_edited: "# Fix any errors below, if
  possible." and the linter's report, then "Attempt to fix lint errors?"); `/lint` (commands.cmd_lint:
  the report, then "Fix lint errors in <file>?");
* the test run after the edits failed (base_coder: "Attempt to fix test errors?" after the
  output); `/test` (commands.cmd_run with add_on_nonzero_exit: "Added N lines of output to the
  chat." written with no question only on a non-zero exit);
* a command that could not be run (run_cmd: "Error occurred while running command '...': ..."),
  for `/run` and a shell command the reply suggested.

A command's exit status is otherwise not written: a `/run` whose output was added after the
question stays of unknown success.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _oracle import retrace
from forsy.payloads import CallInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

B = "  "  # aider's line break
HEAD = "\n# aider chat started at 2026-03-01 09:00:00\n\n> Aider v0.86.0  \n\n"
EDIT = ("app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"
        f"> Tokens: 1k sent, 9 received.{B}\n> Applied edit to app.py{B}\n> Commit 1a2b3c4 fix x{B}\n")


def _chat(tmp_path: Path, body: str) -> tuple[Path, Any]:
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(HEAD + body)
    [s] = AiderSource().read(p, ReadContext(root=tmp_path))
    return p, s


def _calls(s: Any) -> list[tuple[Any, ...]]:
    """(tool, args, result text, is_error) of each call, in order."""
    res = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    return [(c.tool, c.args, res[c.call_id].text if c.call_id in res else None,
             res[c.call_id].is_error if c.call_id in res else "none")
            for c in s.events if c.kind == "tool_call"]


def test_a_lint_run_after_the_edits_that_failed_is_a_failed_lint_call(tmp_path: Path) -> None:
    report = (f"> # Fix any errors below, if possible.{B}\n>{B}\n> ## Running: flake8 app.py{B}\n>{B}\n"
              f"> app.py:1:1: F821 undefined name 'y'{B}\n")
    p, s = _chat(tmp_path, f"#### fix x{B}\n\n{EDIT}{report}"
                           f"> Attempt to fix lint errors? (Y)es/(N)o [Yes]: n{B}\n")
    assert _calls(s) == [
        ("search_replace", EDIT.split("\n\n>")[0], "Applied edit to app.py", False),
        ("/lint", "flake8 app.py",
         "# Fix any errors below, if possible.\n\n## Running: flake8 app.py\n\napp.py:1:1: F821 undefined name 'y'",
         True)]
    lint = next(e for e in s.events if e.tool == "/lint" and e.kind == "tool_call")
    assert lint.actor == "agent" and isinstance(lint.info, CallInfo) and lint.info.span == (12, 25)
    # the call cites the `## Running:` line (line 22; args after its 12 characters "## Running: "), the
    # result each line of the report but the blank quotes
    assert [s.evidence[r.ev].line for r in lint.refs] == [22]
    result = next(e for e in s.events if e.tool == "/lint" and e.kind == "tool_result")
    assert [s.evidence[r.ev].line for r in result.refs] == [20, 22, 24]
    assert s.quality.extra["failed_checks"] == 1
    notes = [e.text for e in s.events if e.kind == "note"]
    assert "Attempt to fix lint errors? (Y)es/(N)o [Yes]: n" in notes and "Commit 1a2b3c4 fix x" in notes
    [trace] = retrace(p, tmp_path / "out")  # validated and verified
    step = next(st for st in trace["steps"] if st.get("tool") == "/lint")
    assert step["success"] is False and step["input"] == "flake8 app.py"


def test_a_test_run_after_the_edits_that_failed_is_a_failed_test_call(tmp_path: Path) -> None:
    # aider 0.4x wrote the output; later ones only say how much of it they added
    _, s = _chat(tmp_path, f"#### fix x{B}\n\n{EDIT}> 1 failed in 0.1s{B}\n> FAILED t.py::test_x{B}\n"
                           f"> Attempt to fix test errors? y{B}\n")
    assert _calls(s)[1:] == [("/test", None, "1 failed in 0.1s\nFAILED t.py::test_x", True)]
    _, s = _chat(tmp_path, f"#### fix x{B}\n\n{EDIT}> Added 12 lines of output to the chat.{B}\n"
                           f"> Attempt to fix test errors? (Y)es/(N)o [Yes]: y{B}\n")
    assert _calls(s)[1:] == [("/test", None, "Added 12 lines of output to the chat.", True)]
    # nothing written before the question but aider's own lines: the question is the report
    _, s = _chat(tmp_path, f"#### fix x{B}\n\n{EDIT}> Attempt to fix test errors? y{B}\n")
    assert _calls(s)[1:] == [("/test", None, "Attempt to fix test errors? y", True)]
    assert s.quality.missing_results == 0 and not [w for w in s.warnings if w.code == "no-result"]


def test_test_and_lint_commands_fail_only_when_aider_says_so(tmp_path: Path) -> None:
    _, s = _chat(tmp_path, f"#### /test pytest{B}\n> Added 3 lines of output to the chat.{B}\n\n"
                           f"#### /run pytest{B}\n"
                           f"> Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: y{B}\n"
                           f"> Added 3 lines of output to the chat.{B}\n\n"
                           f"#### /test pytest{B}\n> 3 passed{B}\n\n"
                           f"#### /lint{B}\n> # Fix any errors below, if possible.{B}\n> app.py:1:1: E1{B}\n"
                           f"> Fix lint errors in app.py? (Y)es/(N)o [Yes]: n{B}\n\n"
                           f"#### /lint{B}\n> Fix lint errors in b.py? (Y)es/(N)o [Yes]: n{B}\n\n"
                           f"#### /lint{B}\n> No lint errors{B}\n")
    assert [(t, err) for t, _, _, err in _calls(s)] == [
        ("/test", True),  # added with no question: only on a non-zero exit
        ("/run", None),  # added after the question: the exit status is not written
        ("/test", None), ("/lint", True), ("/lint", True), ("/lint", None)]


def test_a_command_that_could_not_run_failed(tmp_path: Path) -> None:
    run_err = "Error occurred while running command 'nosuch': [Errno 2] No such file or directory"
    _, s = _chat(tmp_path, f"#### /run nosuch{B}\n> {run_err}{B}\n\n"
                           "Run this:\n\n```bash\nmake test\n```\n\n"
                           f"> make test{B}\n> Run shell command? (Y)es/(N)o [Yes]: y{B}\n> Running make test{B}\n"
                           f"> Error running command 'make test': not found{B}\n\n"
                           "And this:\n\n```bash\nmake\n```\n\n"
                           f"> make{B}\n> Run shell command? (Y)es/(N)o [Yes]: y{B}\n> Running make{B}\n")
    assert _calls(s) == [
        ("/run", "nosuch", run_err, True),
        ("shell", "make test", "Running make test\nError running command 'make test': not found", True),
        ("shell", "make", "Running make", None)]  # ran: whether it succeeded is not written


def test_the_lint_report_passed_on_as_the_request_is_not_the_users_words(tmp_path: Path) -> None:
    """`/lint` asks "Fix lint errors in <file>?" and, answered yes, runs a coder with the report
    as its message, which io.user_input writes as an input (`#### # Fix any errors below…`): it
    was read as a user message. It is aider's: a note, set aside."""
    report = (f"> # Fix any errors below, if possible.{B}\n>{B}\n> ## Running: flake8 app.py{B}\n>{B}\n"
              f"> app.py:1:1: F821 undefined name 'y'{B}\n")
    request = (f"#### # Fix any errors below, if possible.{B}\n####{B}\n#### ## Running: flake8 app.py{B}\n"
               f"####{B}\n#### app.py:1:1: F821 undefined name 'y'{B}\n\n")
    p, s = _chat(tmp_path, f"#### /lint{B}\n{report}> Fix lint errors in app.py? (Y)es/(N)o [Yes]: y{B}\n\n"
                           f"{request}{EDIT}")
    users = [e.text for e in s.events if e.kind == "user"]
    assert users == ["/lint"]
    [note] = [e for e in s.events if e.kind == "note" and e.text.startswith("# Fix any errors below")]
    assert note.actor == "system" and note.info.subtype == "lint_request"
    assert {s.ledger[r.ev].name for r in note.refs} == {"aider's lint report sent to the model as its request"}
    assert s.quality.extra["lint_requests"] == 1
