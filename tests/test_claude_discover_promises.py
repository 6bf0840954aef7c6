"""Where Claude Code's sessions are found, and its saved large outputs.

Sessions: under a project folder, a projects root, Claude Code's own folder (`~/.claude`, whose
`projects/` is the root), a home folder, or a session's own folder (one holding `subagents/` or
only `tool-results/`); a folder that cannot be listed is an input error naming it.
Saved outputs (`Full output saved to: <path>`): the path was written on the machine that ran
Claude Code; its file is looked for in the log's own `<stem>/tool-results/`, then in the
session folder the path names (`<sid>/tool-results/`) beside or above the log; a path that is not
in a `tool-results` folder is not guessed at."""

from __future__ import annotations

from pathlib import Path

import pytest

from _small_logs import call, result, user, write
from forsy.errors import InputError
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.claude_code.source import discover_sessions

SID = "0f3c9a7e-2b1d-4e5f-8a6b-7c8d9e0f1a2b"


def _session(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / name, [user(0, "u1", None, "Hello.")])


def test_claude_codes_own_folder_is_searched_through_its_projects(tmp_path: Path) -> None:
    a = _session(tmp_path / "projects" / "-home-dev-app", "s1.jsonl")
    b = _session(tmp_path / "projects" / "-home-dev-lib", "s2.jsonl")
    assert discover_sessions(tmp_path) == [a, b]


def test_a_home_folder_is_searched_through_claude_projects(tmp_path: Path) -> None:
    a = _session(tmp_path / ".claude" / "projects" / "-home-dev-app", "s1.jsonl")
    assert discover_sessions(tmp_path) == [a]


def test_a_project_folder_gives_its_sessions_not_its_agent_files(tmp_path: Path) -> None:
    b = _session(tmp_path, "s2.jsonl")
    a = _session(tmp_path, "s1.jsonl")
    _session(tmp_path, "agent-ab12.jsonl")
    (tmp_path / "notes.txt").write_text("x", "utf-8")
    _session(tmp_path / "s1" / "subagents", "agent-cd34.jsonl")
    assert discover_sessions(tmp_path) == [a, b]


@pytest.mark.parametrize("inside", ["subagents", "tool-results"])
def test_a_session_folder_gives_its_session_file(tmp_path: Path, inside: str) -> None:
    log = _session(tmp_path, f"{SID}.jsonl")
    (tmp_path / SID / inside).mkdir(parents=True)
    assert discover_sessions(tmp_path / SID) == [log]


def test_a_folder_that_cannot_be_listed_is_an_input_error_naming_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Path) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refuse)
    with pytest.raises(InputError) as e:
        discover_sessions(tmp_path)
    assert (e.value.message, e.value.path) == ("permission denied", str(tmp_path))


def test_a_file_given_as_a_folder_is_an_input_error_with_the_systems_words(tmp_path: Path) -> None:
    f = _session(tmp_path, "s1.jsonl")
    with pytest.raises(InputError) as e:
        discover_sessions(f)
    assert (e.value.message, e.value.path) == ("Not a directory", str(f))


def _saved_output(log: Path, written: str, records_before: int = 0) -> ResultInfo:
    out = f"<persisted-output>\nOutput too large (69.2KB). Full output saved to: {written}\n\nPreview:\nline 1\n"
    write(log, [user(0, "u1", None, "Run it."), call(1, "a1", "u1", "t1", "Bash", {"command": "make"}),
                result(2, "r1", "a1", "t1", out)])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=log.parent))
    [e] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(e.info, ResultInfo) and e.info.persisted_path == written
    return e.info


def _found(info: ResultInfo) -> str | None:
    assert (info.persisted is None) == info.persisted_missing
    return info.persisted.text if info.persisted is not None else None


def _saved_file(folder: Path, text: str = "the whole output\n") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toolu_1.txt").write_text(text, "utf-8")


def test_a_saved_output_is_found_in_the_logs_own_folder_whatever_session_the_path_names(tmp_path: Path) -> None:
    _saved_file(tmp_path / "s" / "tool-results")
    info = _saved_output(tmp_path / "s.jsonl", "/home/other/.claude/projects/x/9a9a/tool-results/toolu_1.txt")
    assert _found(info) == "the whole output\n"


def test_a_saved_output_is_found_in_the_session_folder_the_path_names_beside_a_renamed_log(tmp_path: Path) -> None:
    _saved_file(tmp_path / SID / "tool-results")
    info = _saved_output(tmp_path / "copy.jsonl", f"C:\\Users\\dev\\.claude\\projects\\C--app\\{SID}\\tool-results"
                                                  "\\toolu_1.txt")
    assert _found(info) == "the whole output\n"


def test_a_workflow_agents_saved_output_is_found_in_the_session_folder_above_it(tmp_path: Path) -> None:
    _saved_file(tmp_path / SID / "tool-results")
    deep = tmp_path / SID / "subagents" / "workflows" / "wf_1"
    deep.mkdir(parents=True)
    info = _saved_output(deep / "agent-w1.jsonl", f"/home/dev/.claude/projects/-app/{SID}/tool-results/toolu_1.txt")
    assert _found(info) == "the whole output\n"


@pytest.mark.parametrize("below", [f"{SID}/a/b/c/d", "a/b/c/d"])
def test_a_session_folder_more_than_four_levels_up_is_not_searched(tmp_path: Path, below: str) -> None:
    # the session folder is the log's fifth parent, or beside it
    _saved_file(tmp_path / SID / "tool-results")
    deep = tmp_path / below
    deep.mkdir(parents=True)
    info = _saved_output(deep / "agent-w1.jsonl", f"/home/dev/.claude/projects/-app/{SID}/tool-results/toolu_1.txt")
    assert _found(info) is None


def test_a_relative_path_of_the_session_folder_is_followed(tmp_path: Path) -> None:
    _saved_file(tmp_path / SID / "tool-results")
    assert _found(_saved_output(tmp_path / "copy.jsonl", f"{SID}/tool-results/toolu_1.txt")) == "the whole output\n"


def test_a_path_outside_a_tool_results_folder_is_not_guessed_at(tmp_path: Path) -> None:
    # the written path's folder is no tool-results: its grandparent is no session folder
    _saved_file(tmp_path / SID / "tool-results")
    info = _saved_output(tmp_path / "copy.jsonl", f"/home/dev/.claude/projects/-app/{SID}/out/toolu_1.txt")
    assert _found(info) is None
