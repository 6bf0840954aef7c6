"""Records and attachments of later Claude Code versions the reader left unknown or set aside
while the model was given their words, each built by hand in the shape public readers of such
transcripts describe (made-up words):

* `continued-in` `{continuedInSessionId}`: the conversation moved into a new (background) session
  (`/bg`, `--bg`); unless the session is resumed after it (a user or assistant record follows), the
  work goes on in that other file, so this one ends `partial_then_stopped` (T-termination/declared,
  citing the record), never `task_complete` on the answer before the move. The session is named in
  `agent_config.continued_in`.
* `cost-state` `{totalCostUSD, totalDuration, modelUsage}` (the cost Claude Code counted, written
  when the session closes): metadata, the latest copied to `agent_config.cost_state`;
  `task-summary` `{summary}` (a generated status line): set aside by name. Neither is unknown.
* a hook's output over Claude Code's limit (CHANGELOG 2.1.89: 'hook output over 50K characters …
  saved to disk with a file path + preview') reaches the model as `<persisted-output>` naming
  `tool-results/hook-<id>-stdout.txt`: the note keeps the preview; the file is read into the
  evidence and ledger, counted and warned about (missing: `truncated_outputs`).
* `hook_success` (a SessionStart or UserPromptSubmit hook's output, when not empty) and
  `async_hook_response` (a background hook's `systemMessage` and `additionalContext`) are given to
  the model on its next turn: the hook's notes, as `hook_additional_context` is; a `hook_success`
  of another event, or an empty one, stays set aside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _claude_events_view import marks
from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource
from test_claude_code_refusals_advisor import _trace

NEW_SESSION = "99999999-2222-3333-4444-555555555555"


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _env(n: int, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": parent, "isSidechain": False, "sessionId": SESSION, "version": "2.1.239",
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", **fields}


def _att(n: int, uuid: str, parent: str, **att: Any) -> dict[str, Any]:
    return _env(n, uuid, parent, type="attachment", attachment=att)


def _moved() -> list[dict[str, Any]]:
    return [
        user(0, "u1", None, "List the files."),
        answer(1, "a1", "u1", "Moving this to the background."),
        {"type": "task-summary", "sessionId": SESSION, "summary": "Listing files", "timestamp": "2026-01-01T10:00:02Z"},
        {"type": "continued-in", "sessionId": SESSION, "continuedInSessionId": NEW_SESSION},
        {"type": "cost-state", "sessionId": SESSION, "totalCostUSD": 0.12, "totalDuration": 3000,
         "modelUsage": {"claude-test": {"costUSD": 0.12}}},
    ]


def test_a_conversation_moved_to_another_session_ends_partial_not_complete(tmp_path: Path) -> None:
    trace, prov, manifest = _trace(tmp_path, write(tmp_path / "s.jsonl", _moved()))
    assert trace["termination_reason"] == "partial_then_stopped"
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared"
    [cited] = how["evidence"]
    assert cited["pointer"] == "/continuedInSessionId"
    assert prov["evidence"][cited["id"]]["line"] == 4
    assert trace["agent_config"]["continued_in"] == NEW_SESSION
    assert trace["agent_config"]["cost_state"] == {"totalCostUSD": 0.12, "totalDuration": 3000}
    assert trace["final_output"] == "Moving this to the background."  # the answer stays what it was
    [ledger] = manifest["ledger"]
    assert ledger["totals"]["unknown"] == 0
    rules = {e["record_type"]: (e["heading"], e["rule"]) for e in ledger["entries"] if e["heading"] != "cited"}
    assert rules == {"cost-state": ("metadata", "the cost Claude Code counted for the session"),
                     "task-summary": ("set_aside", "a status line Claude Code generated of what the session was doing")}
    codes = [w["code"] for w in manifest["warnings"]]
    assert "unknown-record-type" not in codes and "ledger-unknown" not in codes
    assert codes.count("continued-elsewhere") == 1


def test_a_session_resumed_after_its_move_ends_by_its_steps(tmp_path: Path) -> None:
    """A user or assistant record after `continued-in`: the old session was resumed, live again."""
    s = _read(write(tmp_path / "s.jsonl", [*_moved(), user(5, "u2", "a1", "And the hidden ones?"),
                                           answer(6, "a2", "u2", "Two hidden files.")]))
    assert s.meta.ending is None
    assert s.meta.extra["continued_in"] == NEW_SESSION
    assert not [w for w in s.warnings if w.code == "continued-elsewhere"]


def test_a_continued_in_record_without_a_session_id_is_warned_and_declares_nothing(tmp_path: Path) -> None:
    recs = _moved()
    recs[3]["continuedInSessionId"] = 7
    s = _read(write(tmp_path / "s.jsonl", recs))
    assert s.meta.ending is None and "continued_in" not in s.meta.extra
    assert [(w.code, w.line) for w in s.warnings if w.code == "field-type"] == [("field-type", 4)]


PREVIEW = ("<persisted-output>\nOutput too large (15.8KB). Full output saved to: "
           "/home/dev/.claude/projects/p/{sid}/tool-results/hook-abc-stdout.txt\n\nPreview (first 2KB):\n"
           "Rule 1: be careful\n</persisted-output>")


def _hook_saved(tmp_path: Path, with_file: bool) -> Session:
    log = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the build."),
        _att(1, "h1", "u1", type="hook_additional_context", hookName="UserPromptSubmit", hookEvent="UserPromptSubmit",
             content=[PREVIEW.format(sid="s")]),
        answer(2, "a1", "h1", "Done."),
    ])
    if with_file:
        (tmp_path / "s" / "tool-results").mkdir(parents=True)
        (tmp_path / "s" / "tool-results" / "hook-abc-stdout.txt").write_text("Rule 1: be careful\n" * 900)
    return _read(log)


def test_a_hooks_output_saved_to_a_file_is_read_into_the_ledger(tmp_path: Path) -> None:
    s = _hook_saved(tmp_path, with_file=True)
    [note] = [e for e in s.events if e.kind == "note"]
    assert note.text == PREVIEW.format(sid="s")  # what the model was given
    [f] = [f for f in s.files if f.path.endswith("hook-abc-stdout.txt")]
    assert f.bytes == len("Rule 1: be careful\n" * 900)
    [ev] = [e for e in s.evidence.values() if e.record_type == "hook-output-file"]
    assert ev.source == f.path
    assert s.quality.extra["saved_hook_outputs"] == 1 and s.quality.truncated_outputs == 0
    assert [(w.code, w.line) for w in s.warnings if w.code == "hook-output-saved"] == [("hook-output-saved", 2)]


def test_a_hooks_output_saved_to_a_file_not_there_is_counted_truncated(tmp_path: Path) -> None:
    s = _hook_saved(tmp_path, with_file=False)
    assert s.quality.truncated_outputs == 1 and "saved_hook_outputs" not in s.quality.extra
    assert [(w.code, w.line) for w in s.warnings if w.code == "saved-output-missing"] == [("saved-output-missing", 2)]


def test_hook_success_and_async_hook_responses_are_the_hooks_words_to_the_model(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        _att(0, "h0", "x", type="hook_success", hookName="SessionStart:startup", hookEvent="SessionStart",
             content="Project uses uv.", stdout="Project uses uv.", exitCode=0),
        user(1, "u1", "h0", "Fix it."),
        _att(2, "h1", "u1", type="hook_success", hookName="UserPromptSubmit", hookEvent="UserPromptSubmit",
             content="Branch main, 3 files dirty.", exitCode=0),
        call(3, "a1", "h1", "t1", "Bash", {"command": "make"}),
        _att(4, "h2", "a1", type="hook_success", hookName="PreToolUse:Bash", hookEvent="PreToolUse",
             content="checked", exitCode=0),
        result(5, "r1", "h2", "t1", "ok"),
        _att(6, "h3", "r1", type="async_hook_response", processId="p1", hookName="PostToolUse:Bash",
             hookEvent="PostToolUse", response={"systemMessage": "Lint: 2 warnings.", "hookSpecificOutput": {
                 "hookEventName": "PostToolUse", "additionalContext": "Run ruff before committing."}}),
        _att(7, "h4", "h3", type="async_hook_response", processId="p2", hookName="PostToolUse:Bash",
             hookEvent="PostToolUse", response={}),
        _att(8, "h5", "h4", type="hook_success", hookName="UserPromptSubmit", hookEvent="UserPromptSubmit",
             content="", exitCode=0),
        answer(9, "a2", "h5", "Done."),
    ]))
    notes = [(e.actor, e.text, e.refs[0].pointer, e.info) for e in s.events if e.kind == "note"]
    hook = NoteInfo(subtype="hook", hook="PostToolUse", hook_target="agent")
    assert notes == [
        ("system", "Project uses uv.", "/attachment/content", NoteInfo(subtype="injected")),
        ("system:hook", "Branch main, 3 files dirty.", "/attachment/content",
         NoteInfo(subtype="hook", hook="UserPromptSubmit", hook_target="agent")),
        ("system:hook", "Lint: 2 warnings.", "/attachment/response/systemMessage", hook),
        ("system:hook", "Run ruff before committing.", "/attachment/response/hookSpecificOutput/additionalContext",
         hook),
    ]
    # the PreToolUse hook's output, the empty response and the empty output: given to no model
    assert {n: marks(s)[n] for n in (5, 8, 9)} == {
        5: ("set_aside", "attachment", "hook_success"), 8: ("set_aside", "attachment", "async_hook_response"),
        9: ("set_aside", "attachment", "hook_success")}
    assert not [w for w in s.warnings if w.code in ("unknown-record-type", "unread-content")]
