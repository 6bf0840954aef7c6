"""Claude Code transcripts as its writer lays them out: saved large outputs (also a
subagent's, also with the paths of a Windows machine) and a subagent file read alone."""

from __future__ import annotations

import json
from pathlib import Path

import forsy
from _oracle import checked_traces, retrace
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

SID = "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c"
FOLDER = Path(__file__).parent / "fixtures" / "claude" / "windows-session"
MAIN = FOLDER / f"{SID}.jsonl"
SUBAGENTS = FOLDER / SID / "subagents"


def _saved(path: Path) -> dict[str, str | None]:
    """call id -> the saved output's text forsy attached (None: not found)."""
    [s] = ClaudeCodeSource().read(path, ReadContext(root=FOLDER))
    out = {}
    for e in s.events:
        if e.kind == "tool_result" and isinstance(e.info, ResultInfo) and e.info.persisted_path:
            out[str(e.call_id)] = e.info.persisted.text if e.info.persisted is not None else None
    return out


def test_saved_outputs_of_main_thread_and_subagent_are_found_from_windows_paths() -> None:
    saved = _saved(MAIN)
    tr = FOLDER / SID / "tool-results"
    assert saved == {"toolu_main": (tr / "toolu_main.txt").read_text("utf-8"),
                     "toolu_sub": (tr / "toolu_sub.txt").read_text("utf-8")}


def test_claude_codes_prompt_suggestion_helper_is_not_the_sessions_work(tmp_path: Path) -> None:
    [trace] = retrace(MAIN, tmp_path / "out")
    assert not [st for st in trace["steps"] if st["action"] == "error"]
    assert [st["actor"] for st in trace["steps"] if st["action"] == "user_message"] == ["user"]


def test_a_subagent_file_alone_has_the_delegation_as_its_task_not_a_user_message(tmp_path: Path) -> None:
    log = SUBAGENTS / "agent-a1b2c3d.jsonl"
    forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(tmp_path / "out", parent=True))
    # the saved output sits beside the subagents' folder, not below it: both folders are roots
    [trace] = checked_traces(tmp_path / "out", log, [SUBAGENTS, FOLDER / SID / "tool-results"])
    assert trace["task"] == "Find the slowest test in the saved output."
    assert not [st for st in trace["steps"] if st["actor"] == "user"]
    assert _saved(SUBAGENTS / "agent-a1b2c3d.jsonl") == {
        "toolu_sub": (FOLDER / SID / "tool-results" / "toolu_sub.txt").read_text("utf-8")}


def test_the_prompt_suggestion_helper_alone_is_claude_codes_not_the_users(tmp_path: Path) -> None:
    helper = SUBAGENTS / "agent-aprompt_suggestion-9f8e7d.jsonl"
    [trace] = retrace(helper, tmp_path / "out")
    assert trace["task"].startswith("[SUGGESTION MODE")
    assert not [st for st in trace["steps"] if st["actor"] in ("user", "agent")]
    [err] = [st for st in trace["steps"] if st["action"] == "error"]
    assert err["actor"].startswith("subagent:aprompt_suggestion")
    ledger = json.loads(next((tmp_path / "out").rglob("manifest.json")).read_text("utf-8"))["ledger"]
    assert not [r for f in ledger for r in f.get("unknown", [])]
