"""The texts of a Codex rollout, rule by rule (`sources/codex/_text.py`): which injected context a
message is, where an IDE-wrapped prompt's typed words start, the cwd of an environment context;
a tool output in each shape Codex writes (the JSON `{output, metadata}` form, the text header
ending at an `Output:` line, anything else as it is) with its exit code, duration and unified
exec session; Codex's own failure words and the exit code they state, the error flag, the
arguments' JSON, and the marks Codex leaves where it cut an output. Each value worked out by
hand from the strings below."""

from __future__ import annotations

import pytest

from forsy.sources.codex._text import (
    FAILURE_TEXTS,
    KNOWN_TAGS,
    Output,
    context_kind,
    env_cwd,
    failed_by_text,
    is_error,
    json_args,
    parse_output,
    request_span,
    stated_exit_code,
    truncated_by_codex,
)

# ------------------------------------------------------------------ injected context


@pytest.mark.parametrize(("text", "kind"), [
    ("  # AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be brief", "agents_md"),
    ("You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary", "compaction_prompt"),
    ("You have exceeded the maximum number of tokens, please stop coding and instead write a short memento message "
     "for the next agent. Your note should", "compaction_prompt"),
    ("\nAnother language model started to solve this problem and produced a summary of its thinking",
     "compaction_summary"),
    ("# Context from my IDE setup:\n\n## Open tabs:\n- a.py", "ide_context"),
    ("# Context from my IDE setup:\n\n## My request for Codex:\nfix it", None),  # the person's words follow
    ("<environment_context>\n  <cwd>/w</cwd>", "environment_context"),  # a known tag, cut before it closes
    ("\n <user_instructions>\nbe kind\n</user_instructions>", "user_instructions"),
    ("<permissions instructions>\nsandbox: read-only", "permissions_instructions"),
    ("<custom_note>x</custom_note>", "custom_note"),  # any tag when the text is exactly one element
    ("<custom_note>x</custom_note>\n  ", "custom_note"),
    ("<a-b c-d>x</a-b c-d>", "a-b_c-d"),
    ("<custom_note>x", None),
    ("<b>bold</b> and more words", None),
    ("hello <environment_context>", None),
    ("<1tag>x</1tag>", None),
    ("<tag >x</tag >", None),
    ("# AGENTS.md instructions", "agents_md"),
    ("# AGENTS.md instruction", None),
    ("Another language model started", None),
    ("plain words", None),
])  # fmt: skip
def test_the_kind_of_injected_context(text: str, kind: str | None) -> None:
    assert context_kind(text) == kind


def test_every_known_tag_counts_even_cut_before_it_closes() -> None:
    assert len(KNOWN_TAGS) == 16
    for tag in KNOWN_TAGS:
        assert context_kind(f"<{tag}>\nthe rest was cut") == tag.replace(" ", "_")


def test_where_the_typed_words_of_an_ide_wrapped_prompt_start() -> None:
    text = "# Context from my IDE setup:\n## Open tabs: a.py\n## My request for Codex:\nfix it"
    assert request_span(text) == (text.index("fix it"), len(text))
    text = "## My request for Codex: fix it"  # no line end after the marker
    assert request_span(text) == (24, 31) and text[24:] == " fix it"
    assert request_span("## My request for Codex:") == (24, 24)
    text = "# Context from my IDE setup:\n## My request for Codex:\nwhy does '## My request for Codex:' show?"
    assert request_span(text) == (54, len(text))  # the first marker is Codex's: the words after it are typed
    assert request_span("## My request for Codex") is None


def test_the_cwd_of_an_environment_context() -> None:
    assert env_cwd("<environment_context>\n  <cwd>/home/u/p q</cwd>\n  <shell>bash</shell>") == "/home/u/p q"
    assert env_cwd("<cwd>/a</cwd><cwd>/b</cwd>") == "/a"
    assert env_cwd("<cwd></cwd>") is None and env_cwd("<cwd>/a\n/b</cwd>") is None
    assert env_cwd("<cwd>/a<b</cwd>") is None and env_cwd("no cwd") is None


# ------------------------------------------------------------------ tool outputs


@pytest.mark.parametrize(("s", "out"), [
    ('{"output": "o\\n", "metadata": {"exit_code": 0, "duration_seconds": 1.25}}', Output("o\n", "/output", 0, 1.25)),
    ('{"output": "o"}  \n', Output("o", "/output")),
    ('{"output": "o", "metadata": [1]}', Output("o", "/output")),
    ('{"output": "o", "metadata": {"exit_code": true, "duration_seconds": false}}', Output("o", "/output")),
    ('{"output": "o", "metadata": {"exit_code": 1.0, "duration_seconds": 2}}', Output("o", "/output", None, 2.0)),
    ('{"output": "o", "metadata": {"exit_code": -1, "duration_seconds": "2"}}', Output("o", "/output", -1)),
    ('{"output": "o", "x": 1}', Output("o", "/output", extra=True)),
    ('{"output": "o", "metadata": {"exit_code": 0, "pid": 3}}', Output("o", "/output", 0, extra=True)),
    (' {"output": "o"}', Output(' {"output": "o"}')),  # not the JSON form: the text as it is
    ('{"output": 5}', Output('{"output": 5}')),
    ('{"a": 1}', Output('{"a": 1}')),
    ("{not json}", Output("{not json}")),
    ('{"output": "o"', Output('{"output": "o"')),
    ('["output"]', Output('["output"]')),
    ("Exit code: 0\nWall time: 0.5 seconds\nOutput:\nhi", Output("Exit code: 0\nWall time: 0.5 seconds\nOutput:\nhi",
                                                                 None, 0, 0.5)),
    ("Exit code: -1\nOutput:\n", Output("Exit code: -1\nOutput:\n", None, -1)),
    ("Process exited with code 7\nOutput:\n", Output("Process exited with code 7\nOutput:\n", None, 7)),
    ("Process running with session ID 12\nWall time: 10 seconds\nOutput:\n",
     Output("Process running with session ID 12\nWall time: 10 seconds\nOutput:\n", None, None, 10.0, exec_session=12)),
    ("Exit code: 0\nProcess running with session ID 3\nOutput:", Output("Exit code: 0\nProcess running with session "
                                                                        "ID 3\nOutput:", None, 0)),
    ("Output:\nExit code: 3", Output("Output:\nExit code: 3")),  # no header before the Output line
    ("hi\nOutput:\nExit code: 9", Output("hi\nOutput:\nExit code: 9")),  # in the output, not the header
    ("Exit code: 1\nWall time: 3 seconds", Output("Exit code: 1\nWall time: 3 seconds")),  # no Output line
    ("Exit code: 0\nOutput:\nWall time: 9 seconds\nOutput:\n", Output("Exit code: 0\nOutput:\nWall time: 9 "
                                                                     "seconds\nOutput:\n", None, 0)),  # the first
    ("Exit code: x\nWall time: .5 seconds\nOutput:", Output("Exit code: x\nWall time: .5 seconds\nOutput:")),
])  # fmt: skip
def test_a_tool_output_in_each_shape_codex_writes(s: str, out: Output) -> None:
    assert parse_output(s) == out


def test_the_header_is_looked_for_in_the_first_2000_characters() -> None:
    at = "Exit code: 4\n" + "x" * (2000 - 13)  # the Output line starts at character 2000
    assert parse_output(at + "\nOutput:\nz").exit_code == 4
    assert parse_output(at + "x\nOutput:\nz").exit_code is None


# ------------------------------------------------------------------ failures and the error flag


def test_codex_s_own_failure_words_and_the_exit_code_they_state() -> None:
    for start in FAILURE_TEXTS:
        assert failed_by_text(f"  {start} and more") and not failed_by_text(f"x {start}")
    assert len(FAILURE_TEXTS) == 19
    # the unified exec handler's own words (a poll of a process that is gone, seen in a real rollout)
    for text in ("write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep "
                 "stdin open", "write_stdin failed: UnknownProcessId { process_id: 7 }",
                 "exec_command failed: SandboxError(Denied)", "failed to parse exec_command arguments: missing cmd",
                 "failed to parse write_stdin arguments: invalid type"):
        assert failed_by_text(text) and is_error(None, None, text) is True
    assert not failed_by_text("write_stdin failed") and not failed_by_text("exec_command failed")
    assert not failed_by_text(None) and not failed_by_text("") and not failed_by_text("Execution error: x")
    assert stated_exit_code("sandbox denied exec error, exit code: 13, stdout: , stderr: no") == 13
    assert stated_exit_code("exec_command failed for `ls`: CreateProcess { message: \"Codex(Sandbox(Denied { output: "
                            "ExecToolCallOutput { exit_code: -2, stdout") == -2
    assert stated_exit_code("execution error: exit code: x") is None
    assert stated_exit_code("exit code: 5") is None  # not one of Codex's failure messages
    assert stated_exit_code(None) is None
    pad = "failed in sandbox " + "x" * (4000 - 18 - 12)
    assert stated_exit_code(pad + "exit code: 6") == 6  # within the first 4000 characters
    assert stated_exit_code(pad + "-exit code: 6") is None


@pytest.mark.parametrize(("code", "success", "text", "flag"), [
    (1, None, None, True), (-1, None, None, True), (0, None, None, False), (None, False, None, True),
    (None, True, None, False), (None, None, "execution error: x", True), (None, None, "ok", None),
    (None, None, None, None), (0, False, None, True), (0, True, "unsupported call: x", True), (3, True, "ok", True),
])  # fmt: skip
def test_the_error_flag(code: int | None, success: bool | None, text: str | None, flag: bool | None) -> None:
    assert is_error(code, success, text) is flag


def test_the_arguments_json_and_the_marks_of_a_cut_output() -> None:
    assert json_args('{"a": 1}') == ({"a": 1}, True) and json_args('"s"') == ("s", True)
    assert json_args("[1,") == ("[1,", False) and json_args("") == ("", False)
    assert json_args({"a": 1}) == ({"a": 1}, True) and json_args(None) == (None, True)
    assert truncated_by_codex("a\n…12 tokens truncated…\nb") and truncated_by_codex("[... omitted 3 of 9 lines ...]")
    assert not truncated_by_codex(None) and not truncated_by_codex("…tokens truncated…")
    assert not truncated_by_codex("[... omitted x of 9 lines ...]") and not truncated_by_codex("")
    # the byte policy's mark and the text items left out of a list (codex-rs utils/string, output_truncation)
    assert truncated_by_codex("ab…6 chars truncated…ij") and truncated_by_codex("[omitted 2 text items ...]")
    assert not truncated_by_codex("…chars truncated…") and not truncated_by_codex("[omitted text items ...]")
