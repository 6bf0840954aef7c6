"""What the one-field fuzzer (test_fuzz_sources.py) found, each pinned by a hand-made log:
a user message with no words made a step the validator refuses (U004), or an empty task that
crashed the trace's model; a Claude Code log whose first record's type is no text was
refused whole as no format forsy reads (or crashed its sniffing)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.evidence import Mark
from forsy.rules.segment import BLANK_USER
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink
from forsy.sources import detect
from forsy.validation import validate_path

DEMO = SAMPLES / "claude" / "demo-session.jsonl"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, recs: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _retrace(tmp_path: Path, log: Path) -> tuple[dict[str, object], object]:
    [out] = retrace_one(log, RetraceOptions(redact=False), sink=FolderSink(tmp_path / "out", parent=False), keep=True)
    assert out.status == "written", out.message
    assert validate_path(out.where or "").errors == []
    return json.loads((tmp_path / "out" / "trace.json").read_text()), out


UI_ONLY = Path(__file__).parent / "fixtures" / "cline" / "ui-only"


def _cline_task(tmp_path: Path, at: int, words: str) -> Path:
    """The Cline fixture task (read from its UI messages alone) with message `at` made `words`."""
    shutil.copytree(UI_ONLY, tmp_path / "task")
    ui = tmp_path / "task" / "ui_messages.json"
    msgs = json.loads(ui.read_text())
    msgs[at]["text"] = words
    ui.write_text(json.dumps(msgs))
    return ui


@pytest.mark.parametrize("words", ["", " ", "\n\t "])
def test_a_user_message_with_no_words_is_no_step_and_is_set_aside(tmp_path: Path, words: str) -> None:
    trace, out = _retrace(tmp_path, _cline_task(tmp_path, 7, words))  # the user's feedback, blank
    users = [s["input"] for s in trace["steps"] if s["action"] == "user_message"]  # type: ignore[index, union-attr]
    assert users == ["add a health check endpoint"]
    assert [m for m in out.session.ledger.values() if m.name == BLANK_USER] == [  # type: ignore[attr-defined]
        Mark("set_aside", BLANK_USER)]


@pytest.mark.parametrize("words", ["", "  "])
def test_a_blank_first_message_is_not_the_task(tmp_path: Path, words: str) -> None:
    trace, _ = _retrace(tmp_path, _cline_task(tmp_path, 0, words))  # it was an empty task: a crash
    assert trace["task"] == "use /healthz, not /health"


def test_a_session_whose_only_user_message_is_blank_has_the_evidence_task(tmp_path: Path) -> None:
    ui = _cline_task(tmp_path, 0, "")
    msgs = json.loads(ui.read_text())
    msgs[7]["text"] = " "
    ui.write_text(json.dumps(msgs))
    trace, _ = _retrace(tmp_path, ui)
    assert not [s for s in trace["steps"] if s["action"] == "user_message"]  # type: ignore[index, union-attr]
    assert str(trace["task"]).startswith("Work recorded in cline evidence")


@pytest.mark.parametrize("odd", [[["deep"]], {"a": 1}, 7, True])
def test_a_claude_log_whose_first_record_type_is_no_text_is_still_read(tmp_path: Path, odd: object) -> None:
    recs = _lines(DEMO)
    recs[0]["type"] = odd
    log = _write(tmp_path / "s.jsonl", recs)
    assert detect(log).name == "claude_code"
    trace, _ = _retrace(tmp_path, log)
    assert trace["steps"]


@pytest.mark.parametrize(("damage", "shown"), [
    (lambda h: h.update(lines=-1), False),  # an internal error: an int was iterated
    (lambda h: h.update(lines="- a\n+ b"), False),  # was written one character a line
    (lambda h: h.pop("oldStart"), False),  # was a header of "None"
    (lambda h: h.update(lines=[1, "x"]), False),
    (lambda h: None, True),
])
def test_an_edits_patch_is_shown_whole_or_said_damaged(tmp_path: Path, damage: object, shown: bool) -> None:
    recs = _lines(DEMO)
    [rec] = [r for r in recs if isinstance(r.get("toolUseResult"), dict) and "structuredPatch" in r["toolUseResult"]]
    hunk = rec["toolUseResult"]["structuredPatch"][0]  # type: ignore[index]
    damage(hunk)  # type: ignore[operator]
    trace, _ = _retrace(tmp_path, _write(tmp_path / "s.jsonl", recs))
    [art] = trace["static_output"]["artifacts"]  # type: ignore[index]
    if shown:
        assert art["diff"].startswith("step 4:\n@@ -3,5 +3,5 @@\n \n def slugify(text: str) -> str:")
    else:
        assert art["diff"] is None  # as for an edit whose log holds no patch


def test_an_openhands_observation_holding_a_huge_integer_is_written_exactly(tmp_path: Path) -> None:
    """An observation's content that is an integer past 64 bits crashed the reader (orjson
    refuses it); it is the observation's output, written exactly."""
    big = 2**70
    out = {"issue": {"number": 1}, "instruction": "add a license", "history": [
        {"content": "add a license", "source": "user", "action": "message"},
        {"command": "touch LICENSE", "thought": "create it", "action": "run"},
        {"content": big, "command": "touch LICENSE", "exit_code": 0, "observation": "run"}]}
    log = tmp_path / "output.jsonl"
    log.write_text(json.dumps(out) + "\n")
    trace, _ = _retrace(tmp_path, log)
    assert [s["output"] for s in trace["steps"] if s["action"] == "agent_step"] == [str(big)]  # type: ignore[index, union-attr]


CODEX = Path(__file__).parent / "fixtures" / "codex" / (
    "rollout-2026-06-10T08-00-00-019e5a10-0000-7000-8000-00000000bbbb.jsonl")


@pytest.mark.parametrize("line", ["garbage{", "null", "[1, 2]"])
def test_a_codex_rollout_with_a_damaged_line_makes_a_valid_trace(tmp_path: Path, line: str) -> None:
    """Codex keeps every line read as Evidence, one it cannot parse too; the validator counted
    such a line as a record without Evidence, so a damaged rollout's trace was invalid (N009)."""
    lines = CODEX.read_text().splitlines()
    lines[15] = line
    log = tmp_path / CODEX.name
    log.write_text("\n".join(lines) + "\n")
    _, out = _retrace(tmp_path, log)  # validates: no error
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    [ledger] = manifest["ledger"]
    assert ledger["records_read"] == len(lines) == manifest["counts"]["evidence_records"]
    assert ledger["totals"]["unparsable"] + ledger["totals"]["unknown"] == 1
    if line in ("garbage{", "null"):
        why = {"garbage{": "line is not JSON; skipped", "null": "line is JSON null, not a record; skipped"}[line]
        assert [w.message for w in out.session.warnings if w.code == "unparsable"] == [why]  # type: ignore[attr-defined]
