"""What a Claude Code session says about itself, read from every record (`_collect_meta`).

The session id is the first main-chain record's `sessionId` (else the file name); the version
is the last one written (a resumed session runs a newer Claude Code); the working folder and
git branch the first ones (an empty branch is none); the tools come from the system `init`
record (names that are not text are warned about); models are listed once each in order,
never `<synthetic>`; token usage adds up each model message once (split lines repeat or grow
it: the largest value counts), sidechain messages apart; a usage count that is no whole number
is warned about and not counted; `summary` records are the titles, in order; an unknown record
type is warned about once, and every record of it counted as unknown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import answer, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _turn(n: int, uuid: str, parent: str, msg_id: str, model: str, usage: Any, **extra: Any) -> dict[str, Any]:
    r = answer(n, uuid, parent, f"Turn {n}.")
    r["message"].update({"id": msg_id, "model": model, "usage": usage})
    return {**r, **extra}


def test_the_envelope_gives_id_version_folder_and_branch(tmp_path: Path) -> None:
    first = dict(user(0, "u1", None, "Go."), sessionId="s-main", version="2.1.30", gitBranch="")
    second = dict(answer(1, "a1", "u1", "Done."), sessionId="s-other", version="2.1.38", cwd="/elsewhere",
                  gitBranch="fix/login")
    third = dict(user(2, "u2", "a1", "Thanks."), version="2.1.40", gitBranch="main")
    side = dict(user(3, "x1", None, "Sub."), isSidechain=True, sessionId="s-side")
    s = _read(write(tmp_path / "s.jsonl", [side, first, second, third]))
    assert s.session_id == "s-main"
    assert (s.meta.agent_version, s.meta.cwd, s.meta.git_branch) == ("2.1.40", "/home/dev/proj", "fix/login")


def test_a_session_without_a_session_id_is_named_by_its_file(tmp_path: Path) -> None:
    recs = [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")]
    for r in recs:
        del r["sessionId"]
    assert _read(write(tmp_path / "b7e2.jsonl", recs)).session_id == "b7e2"


def test_the_tools_are_the_init_records_names(tmp_path: Path) -> None:
    init = {"type": "system", "subtype": "init", "uuid": "i1", "parentUuid": None, "sessionId": "s-small",
            "tools": ["Bash", 7, "Read", None]}
    s = _read(write(tmp_path / "s.jsonl", [init, user(0, "u1", "i1", "Go.")]))
    assert s.meta.tools == ["Bash", "Read"]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("field-type", "tools lists names that are not strings; those were not read", "s.jsonl", 1)]


def test_models_are_listed_once_each_in_order_never_synthetic(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _turn(1, "a1", "u1", "m1", "claude-b", {}),
        _turn(2, "a2", "a1", "m2", "<synthetic>", {}),
        _turn(3, "a3", "a2", "m3", "claude-a", {}),
        _turn(4, "a4", "a3", "m4", "claude-b", {}),
    ]))
    assert s.meta.models == ["claude-b", "claude-a"]


def test_token_usage_counts_each_message_once_with_its_largest_values(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        # one message written as two lines: the second repeats its input and grows its output
        _turn(1, "a1", "u1", "m1", "claude-x", {"input_tokens": 10, "output_tokens": 3,
                                                "cache_creation_input_tokens": 100, "cache_read_input_tokens": 7}),
        _turn(2, "a2", "a1", "m1", "claude-x", {"input_tokens": 10, "output_tokens": 40}),
        _turn(3, "a3", "a2", "m2", "claude-x", {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 1}),
        # whatever order its lines come in, the largest value counts
        _turn(4, "x1", None, "m9", "claude-x", {"input_tokens": 1000, "output_tokens": 90}, isSidechain=True),
        _turn(5, "x2", "x1", "m9", "claude-x", {"input_tokens": 1000, "output_tokens": 9}, isSidechain=True),
    ]))
    assert s.meta.token_usage == {"input_tokens": 15, "output_tokens": 42, "cache_creation_input_tokens": 100,
                                  "cache_read_input_tokens": 8}
    assert s.meta.extra["sidechain_token_usage"] == {"input_tokens": 1000, "output_tokens": 90}


def test_a_usage_count_that_is_no_whole_number_is_warned_and_not_counted(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _turn(1, "a1", "u1", "m1", "claude-x", {"input_tokens": True, "output_tokens": "12",
                                                "cache_read_input_tokens": None, "cache_creation_input_tokens": 4}),
    ]))
    assert s.meta.token_usage == {"cache_creation_input_tokens": 4}
    assert "sidechain_token_usage" not in s.meta.extra
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("field-type", "message.usage.input_tokens is a boolean, not a whole number; not counted", 2),
        ("field-type", "message.usage.output_tokens is a string, not a whole number; not counted", 2)]


def test_usage_of_a_message_without_an_id_is_not_counted(tmp_path: Path) -> None:
    turn = _turn(1, "a1", "u1", "m1", "claude-x", {"input_tokens": 10})
    del turn["message"]["id"]
    assert _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), turn])).meta.token_usage == {}


def test_summaries_are_the_titles_in_order(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        {"type": "summary", "summary": "Login bug", "leafUuid": "a1"},
        {"type": "summary", "summary": 7, "leafUuid": "a1"},
        {"type": "summary", "summary": "Signup bug", "leafUuid": "a1"},
        user(0, "u1", None, "Go."),
    ]))
    assert s.meta.extra["titles"] == ["Login bug", "Signup bug"]


def test_a_session_without_summaries_has_no_titles(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go.")]))
    assert "titles" not in s.meta.extra and s.meta.token_usage == {}


def test_a_teleported_session_names_the_remote_one(tmp_path: Path) -> None:
    stub = {"type": "teleported-from", "remoteSessionId": "session_01Ab", "sessionId": "s-small"}
    s = _read(write(tmp_path / "s.jsonl", [stub, user(0, "u1", None, "Go.")]))
    assert s.meta.extra["teleported_from"] == "session_01Ab"


def test_an_unknown_record_type_is_warned_once_and_each_record_counted(tmp_path: Path) -> None:
    odd = {"type": "future-kind", "uuid": "f1", "sessionId": "s-small"}
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), odd, dict(odd, uuid="f2"),
                                           {"uuid": "f3", "sessionId": "s-small"}]))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unknown-record-type", "record type 'future-kind' is not known; skipped", "s.jsonl", 2),
        ("unknown-record-type", "record type None is not known; skipped", "s.jsonl", 4)]
    assert s.quality.unknown_records == 3



def test_tools_all_named_are_read_without_a_warning_and_only_from_init(tmp_path: Path) -> None:
    init = {"type": "system", "subtype": "init", "uuid": "i1", "parentUuid": None, "sessionId": "s-small",
            "tools": ["Bash", "Read"]}
    other = {"type": "system", "subtype": "informational", "uuid": "i2", "parentUuid": "i1", "sessionId": "s-small",
             "tools": ["Write"], "content": "x"}
    s = _read(write(tmp_path / "s.jsonl", [init, other, user(0, "u1", "i2", "Go.")]))
    assert s.meta.tools == ["Bash", "Read"] and s.warnings == []


def test_a_teleport_record_without_a_remote_session_names_none(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [{"type": "teleported-from", "sessionId": "s-small"},
                                           dict(user(0, "u1", None, "Go."), remoteSessionId="elsewhere")]))
    assert "teleported_from" not in s.meta.extra
