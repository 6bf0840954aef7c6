"""A terminal recording merged onto an agent's timeline (`forsy retrace LOG --history rec.cast`):
the recording's commands carry what they printed.

One hand-written Claude Code session and hand-written recordings (asciicast v2, and a v3
one-program recording with its exit status):

* the agent's `ls -la` (a Bash call at 10:00:20, result at 10:00:25) is also in the recording
  at 10:00:21: a strict match, so the agent's own result stays the step's output and the
  recording's output event is a duplicate in the ledger (none unknown);
* `pwd`, typed at 10:00:40 by someone in the recorded terminal, is a step of its own whose
  output is the recording's, citing the output event;
* `git status -s` at 10:01:30 is only like the agent's `git status` (10:00:50): an uncertain
  match, a step of its own with its output;
* `whoami` at 10:16:40 is after the window (the agent's span ± 300 s): left out with its output;
* `make test` (v3, `x` status 2 at 10:01:00) fails: success false, eval -1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _paths import REAL_LOGS, needs_shared
from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from forsy.verification import verify_folder

T0 = 1767261600  # 2026-01-01T10:00:00Z


def _iso(sec: int) -> str:
    return f"2026-01-01T10:{sec // 60:02d}:{sec % 60:02d}.000Z"


def _rec(i: int, kind: str, sec: int, msg: dict[str, object]) -> dict[str, object]:
    return {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None, "sessionId": "rec-1",
            "cwd": "/proj", "timestamp": _iso(sec), "message": msg}


SESSION = [
    _rec(1, "user", 15, {"role": "user", "content": "List the files"}),
    _rec(2, "assistant", 20, {"id": "m2", "role": "assistant", "content": [
        {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls -la"}}]}),
    _rec(3, "user", 25, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                                      "content": "total 8"}]}),
    _rec(4, "assistant", 50, {"id": "m4", "role": "assistant", "content": [
        {"type": "tool_use", "id": "c2", "name": "Bash", "input": {"command": "git status"}}]}),
    _rec(5, "user", 55, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2",
                                                      "content": "nothing to commit"}]}),
    _rec(6, "assistant", 60, {"id": "m6", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
]

# line numbers (1-based) of the output events, for the ledger and provenance checks
CAST = "\n".join([
    f'{{"version": 2, "width": 80, "height": 24, "timestamp": {T0}}}',  # 1
    '[20.0, "o", "dev@box:/proj$ "]',  # 2
    '[21.0, "i", "ls -la\\r"]',  # 3
    '[21.0, "o", "ls -la\\r\\n"]',  # 4 echo
    '[21.5, "o", "total 8\\r\\n"]',  # 5 ls output: the agent's run
    '[21.6, "o", "dev@box:/proj$ "]',  # 6
    '[40.0, "i", "pwd\\r"]',  # 7
    '[40.0, "o", "pwd\\r\\n"]',  # 8 echo
    '[40.2, "o", "/proj\\r\\n"]',  # 9 pwd output: typed by someone else
    '[40.3, "o", "dev@box:/proj$ "]',  # 10
    '[90.0, "i", "git status -s\\r"]',  # 11
    '[90.0, "o", "git status -s\\r\\n"]',  # 12 echo
    '[90.2, "o", " M a.py\\r\\n"]',  # 13 output: like the agent's `git status`, not the same
    '[90.3, "o", "dev@box:/proj$ "]',  # 14
    '[1000.0, "i", "whoami\\r"]',  # 15
    '[1000.0, "o", "whoami\\r\\n"]',  # 16 echo
    '[1000.2, "o", "dev\\r\\n"]',  # 17 whoami output: outside the window
    '[1000.3, "o", "dev@box:/proj$ "]',  # 18
]) + "\n"

PROGRAM = "\n".join([
    f'{{"version": 3, "term": {{"cols": 80, "rows": 24}}, "timestamp": {T0 + 60}, "command": "make test"}}',
    '[0.0, "o", "FAILED test_x\\r\\n"]',  # 2
    '[0.1, "x", "2"]',  # 3
]) + "\n"


@pytest.fixture
def merged(tmp_path: Path) -> dict[str, Any]:
    log = tmp_path / "logs" / "rec-1.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(r) + "\n" for r in SESSION))
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "term.cast").write_text(CAST)
    (rec / "make.cast").write_text(PROGRAM)
    out = tmp_path / "trace"
    run = retrace([log], RetraceOptions(out=out, redact=False, history=[rec / "term.cast", rec / "make.cast"]))
    assert not run.failed, run.failed
    [res] = run.results
    return {
        "out": out, "roots": [log.parent, rec], "warnings": [w.code for w in res.warnings],
        "steps": json.loads((out / "trace.json").read_text("utf-8"))["steps"],
        "trace": json.loads((out / "trace.json").read_text("utf-8")),
        "prov": json.loads((out / "provenance.json").read_text("utf-8")),
        "ledger": {f["path"]: f for f in json.loads((out / "manifest.json").read_text("utf-8"))["ledger"]},
    }


def _cited_lines(m: dict[str, Any], step: int, field: str) -> list[tuple[str, int]]:
    """(file, line) of the evidence a step field cites."""
    prov = m["prov"]
    fp = next(s for s in prov["steps"] if s["step"] == step)["fields"][field]
    evs = prov["evidence"]
    return [(evs[r["id"]]["source"], evs[r["id"]]["line"]) for r in fp["evidence"]]


def test_a_command_typed_in_the_recorded_terminal_carries_its_output(merged: dict[str, Any]) -> None:
    [pwd] = [s for s in merged["steps"] if s.get("input") == "pwd"]
    assert pwd["tool"] == "shell" and pwd["actor"] == "human:terminal"
    assert pwd["output"] == "/proj"
    assert pwd["started_at"] == "2026-01-01T10:00:40.000000Z"
    assert pwd["ended_at"] == "2026-01-01T10:00:40.300000Z"  # the next prompt
    assert pwd.get("success") is None  # a shell prints no exit status: not assessed
    # the output cites the events shown until the next prompt: the one that ended the echoed
    # line (the reader's rule, as when the recording is retraced alone) and the printed line
    assert _cited_lines(merged, pwd["step"], "output") == [("term.cast", 8), ("term.cast", 9)]
    assert "outputs-not-merged" not in merged["warnings"] and "orphan-result" not in merged["warnings"]
    assert not validate_path(merged["out"]).errors
    rep = verify_folder(merged["out"], merged["roots"])
    assert rep.ok, rep.problems[:5]


def test_the_agents_own_command_keeps_the_agents_output(merged: dict[str, Any]) -> None:
    steps = merged["steps"]
    bash = next(s for s in steps if s.get("input") == '{"command":"ls -la"}')
    assert bash["output"] == "total 8"
    assert {f for f, _ in _cited_lines(merged, bash["step"], "output")} == {"rec-1.jsonl"}
    assert not [s for s in steps if s.get("input") == "ls -la"]  # no second step, no second output
    # the recording's output of that run is read and accounted for: a duplicate of the agent's result
    cast = merged["ledger"]["term.cast"]
    assert cast["totals"]["unknown"] == 0
    dup = [e for e in cast["entries"] if e["heading"] == "duplicate"]
    assert sum(e["count"] for e in dup) == 1 and "agent" in dup[0]["rule"]
    assert all(f["totals"]["unknown"] == 0 for f in merged["ledger"].values())


def test_a_command_outside_the_window_leaves_with_its_output(merged: dict[str, Any]) -> None:
    steps = merged["steps"]
    assert not [s for s in steps if s.get("input") == "whoami" or s.get("output") == "dev"]
    tl = merged["trace"]["agent_config"]["timeline"]
    # ls -la (matched), pwd, git status -s (uncertain), make test
    assert tl["outside_window"] == 1 and tl["commands"] == 4 and tl["uncertain"] == 1
    # what was merged: the outputs of the three commands that are steps of their own
    assert tl["command_outputs"] == 3
    assert "orphan-result" not in merged["warnings"]
    cited = {(e["source"], e["line"]) for e in merged["prov"]["evidence"].values()}
    assert ("term.cast", 17) not in cited


def test_a_failing_recorded_command_fails_its_step(merged: dict[str, Any]) -> None:
    [make] = [s for s in merged["steps"] if s.get("input") == "make test"]
    assert make["output"] == "FAILED test_x" and make["success"] is False and make["eval"] == -1
    prov = next(s for s in merged["prov"]["steps"] if s["step"] == make["step"])["fields"]
    assert prov["success"]["rule"] == "R-call/error-flag"
    assert _cited_lines(merged, make["step"], "output") == [("make.cast", 2)]


def test_steps_stay_in_time_order_and_each_result_follows_its_command(merged: dict[str, Any]) -> None:
    seq = [(s.get("tool"), s.get("input")) for s in merged["steps"]]
    # the agent's closing words are its answer once its log ends (R-answer): the last step
    assert seq == [(None, "List the files"), ("Bash", '{"command":"ls -la"}'), ("shell", "pwd"),
                   ("Bash", '{"command":"git status"}'), ("shell", "make test"), ("shell", "git status -s"),
                   (None, None)]


def test_an_uncertain_match_is_a_step_with_the_recordings_output(merged: dict[str, Any]) -> None:
    [st] = [s for s in merged["steps"] if s.get("input") == "git status -s"]
    assert st["output"] == " M a.py"
    assert _cited_lines(merged, st["step"], "output") == [("term.cast", 12), ("term.cast", 13)]
    [m] = [x for x in merged["prov"]["matches"] if x["kind"] == "shell_history" and x["uncertain"]]
    assert m["step"] == st["step"]


AGENT_LOG = REAL_LOGS / "claude" / "marot__spotter" / "test" / "fixtures" / "transcripts" / "tool_heavy.jsonl"
REAL = sorted((REAL_LOGS / "asciinema").rglob("*.cast")) if (REAL_LOGS / "asciinema").is_dir() else []


@needs_shared
@pytest.mark.parametrize("cast", REAL, ids=lambda p: p.parent.name if p.name == "demo.cast" else p.parent.parent.name)
def test_real_recordings_with_a_real_agent_log(cast: Path, tmp_path: Path) -> None:
    """They do not overlap in time: by default every command is left out (counted) and no
    output of theirs reaches the trace; with a window that holds them, every command is a step
    with its output, and the merged trace verifies against the log and the recording."""
    if not AGENT_LOG.is_file():
        pytest.skip("the real Claude Code log is absent")
    for since in (None, "2000-01-01T00:00:00Z"):
        out = tmp_path / f"t-{since is None}"
        run = retrace([AGENT_LOG], RetraceOptions(out=out, redact=False, history=[cast], since=since))
        assert not run.failed, run.failed
        [res] = run.results
        assert res.timeline is not None
        [(kind, entries)] = res.timeline.sources
        assert kind == "asciinema" and entries > 0
        assert "orphan-result" not in [w.code for w in res.warnings]
        assert not validate_path(out).errors
        trace = json.loads((out / "trace.json").read_text("utf-8"))
        term = [s for s in trace["steps"] if s["actor"] == "human:terminal"]
        ledger = json.loads((out / "manifest.json").read_text("utf-8"))["ledger"]
        assert all(f["totals"]["unknown"] == 0 for f in ledger if f["path"].endswith(".cast"))
        if since is None:
            assert res.timeline.outside_window + res.timeline.untimed_left_out == entries
            assert res.timeline.commands == 0 and not term
        else:
            assert res.timeline.commands == entries == len(term)
            assert trace["agent_config"]["timeline"]["command_outputs"] == entries
            assert all(s.get("output") is not None for s in term)
            rep = verify_folder(out, [AGENT_LOG.parent, cast.parent])
            assert rep.ok, rep.problems[:5]
