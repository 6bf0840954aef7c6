"""`summary.agent_confidence` and its factors, and the causal links (`caused_by`, `retry_of`),
against values worked out by hand from the documented rules on small logs.

The rules are those of src/forsy/assemble/score.py's table and src/forsy/rules/segment.py's
R-cause / R-retry; each expected number below is derived in a comment from them, never read
back from a run of the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _small_logs import RETRY_SESSION, answer, call, calls, result, user, write
from forsy.run import RetraceOptions, retrace


def _run(tmp: Path, log: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    out = tmp / "out"
    retrace([log], RetraceOptions(out=out, redact=False))
    return tuple(json.loads((out / f"{n}.json").read_text("utf-8"))  # type: ignore[return-value]
                 for n in ("trace", "manifest", "provenance"))


def _factors(manifest: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {f["name"]: (f["value"], f["penalty"]) for f in manifest["confidence_factors"]}


def test_confidence_factors_of_the_retry_session_are_the_hand_computed_ones(tmp_path: Path) -> None:
    # The retry session (tests/_small_logs.py) with one line that is not JSON before record 3:
    #   base               an agent transcript                                    90
    #   unparsable_records 1 record × 2 (cap 20)                                  -2
    #   missing_results    step 5 (git status) has no result: 1 × 3 (cap 15)      -3
    #   empty_fields       agent steps 2-6 = 5; step 5 has neither reasoning nor
    #                      output (steps 2, 3, 4 have outputs, 6 is the answer):
    #                      share 1/5 = 0.2, × 15                                  -3
    #   every other factor: nothing of its kind in the log                         0 (not listed)
    #   score = 90 - 2 - 3 - 3 = 82
    log = write(tmp_path / "s.jsonl", RETRY_SESSION, extra_lines={3: "{not json"})
    trace, manifest, _ = _run(tmp_path, log)
    assert _factors(manifest) == {"base": (90.0, 0.0), "unparsable_records": (1, 2), "missing_results": (1, 3),
                                  "empty_fields": (0.2, 3.0)}
    assert trace["summary"]["agent_confidence"] == 82


def test_missing_results_penalty_is_3_per_call_capped_at_15(tmp_path: Path) -> None:
    # 7 Read calls, none with a result, then an answer:
    #   missing_results  7 × 3 = 21, capped at 15                               -15
    #   empty_fields     agent steps = 7 calls + 1 answer = 8; the 7 calls have
    #                    neither reasoning nor output: 7/8 = 0.875, × 15 = 13.125 -13.125
    #   score = 90 - 15 - 13.125 = 61.875, rounded: 62
    recs = [user(0, "u1", None, "Look around.")]
    parent = "u1"
    for k in range(7):
        recs.append(call(k + 1, f"a{k}", parent, f"t{k}", "Read", {"file_path": f"/home/dev/proj/f{k}.py"}))
        parent = f"a{k}"
    recs.append(answer(9, "af", parent, "Read them all."))
    trace, manifest, _ = _run(tmp_path, write(tmp_path / "s.jsonl", recs))
    assert _factors(manifest) == {"base": (90.0, 0.0), "missing_results": (7, 15), "empty_fields": (0.875, 13.12)}
    assert trace["summary"]["agent_confidence"] == 62


def test_shell_history_alone_starts_from_40(tmp_path: Path) -> None:
    # Three bash history lines: no agent step, so base 40; each command step has no
    # reasoning, no output and no time (plain bash history): share 3/3 = 1.0, × 15 = 15.
    #   score = 40 - 15 = 25
    h = tmp_path / "h.bash_history"
    h.write_text("ls\nmake test\ngit status\n")
    trace, manifest, _ = _run(tmp_path, h)
    assert _factors(manifest) == {"base": (40.0, 0.0), "empty_fields": (1.0, 15.0)}
    assert trace["summary"]["agent_confidence"] == 25


def test_retry_of_and_caused_by_are_the_hand_computed_links(tmp_path: Path) -> None:
    # R-cause: a turn's first action is caused by its user message (step 1, turn 1:
    # user_request); a later action by the results that came since the actor's previous
    # action; the answer (step 6) follows a call with no result, so it has no cause.
    # R-retry: a call repeating a FAILED call of the same tool (similarity ≥ 90) is its retry:
    #   step 3 repeats step 2 (failed), similarity 100  -> retry_of 2, caused_by [2] ∪ [2]
    #   step 5 repeats step 4, which succeeded          -> no retry
    trace, _, prov = _run(tmp_path, write(tmp_path / "s.jsonl", RETRY_SESSION))
    got = [(s["step"], s["caused_by"], s["causal_type"], s["retry_of"]) for s in trace["steps"]]
    assert got == [
        (1, None, None, None),
        (2, [1], "user_request", None),
        (3, [2], "retry_after_failure", 2),
        (4, [3], "dependency_on_tool_result", None),
        (5, [4], "dependency_on_tool_result", None),
        (6, None, None, None),
    ]
    retry = prov["steps"][2]["fields"]["retry_of"]
    assert (retry["origin"], retry["rule"], retry["params"]) == ("derived", "R-retry",
                                                                 {"similarity": 100, "failed_step": 2})


def test_a_repeat_of_a_successful_call_is_not_a_retry(tmp_path: Path) -> None:
    # the same command twice, the first succeeding: no retry_of, no retry tag
    recs = [user(0, "u1", None, "Check the tree."),
            call(1, "a1", "u1", "t1", "Bash", {"command": "git status"}),
            result(2, "r1", "a1", "t1", "clean"),
            call(3, "a2", "r1", "t2", "Bash", {"command": "git status"}),
            result(4, "r2", "a2", "t2", "clean")]
    trace, _, _ = _run(tmp_path, write(tmp_path / "s.jsonl", recs))
    assert [s["retry_of"] for s in trace["steps"]] == [None, None, None]
    assert trace["steps"][2]["caused_by"] == [2] and trace["steps"][2]["causal_type"] == "dependency_on_tool_result"


def test_tool_results_are_linked_to_their_call_by_id_not_to_the_latest_call(tmp_path: Path) -> None:
    # two calls in one message (a parallel group), their results back in the other order,
    # then a third call whose result comes after another call was made
    recs = [user(0, "u1", None, "Read both files."),
            calls(1, "a1", "u1", ("ta", "Read", {"file_path": "/p/a.py"}), ("tb", "Read", {"file_path": "/p/b.py"})),
            result(2, "r1", "a1", "tb", "content of b"),
            result(3, "r2", "r1", "ta", "content of a"),
            call(4, "a2", "r2", "tc", "Bash", {"command": "wc -l a.py"}),
            call(5, "a3", "a2", "td", "Bash", {"command": "wc -l b.py"}),
            result(6, "r3", "a3", "tc", "3 a.py"),
            result(7, "r4", "r3", "td", "5 b.py")]
    trace, _, _ = _run(tmp_path, write(tmp_path / "s.jsonl", recs))
    got = [(s["input"], s["output"]) for s in trace["steps"][1:]]
    assert got == [('{"file_path":"/p/a.py"}', "content of a"), ('{"file_path":"/p/b.py"}', "content of b"),
                   ('{"command":"wc -l a.py"}', "3 a.py"), ('{"command":"wc -l b.py"}', "5 b.py")]


def test_a_repeat_after_the_call_succeeded_again_is_not_a_retry_of_the_older_failure(tmp_path: Path) -> None:
    # pytest fails, pytest passes, pytest once more: the third repeats a success, it retries nothing
    # (it was retry_of the first, which the second had already retried)
    recs = [user(0, "u1", None, "Run the tests."),
            call(1, "a1", "u1", "t1", "Bash", {"command": "pytest -q"}),
            result(2, "r1", "a1", "t1", "1 failed", True),
            call(3, "a2", "r1", "t2", "Bash", {"command": "pytest -q"}),
            result(4, "r2", "a2", "t2", "3 passed"),
            call(5, "a3", "r2", "t3", "Bash", {"command": "pytest -q"}),
            result(6, "r3", "a3", "t3", "3 passed")]
    trace, _, _ = _run(tmp_path, write(tmp_path / "s.jsonl", recs))
    assert [s["retry_of"] for s in trace["steps"]] == [None, None, 2, None]
    assert trace["steps"][3]["caused_by"] == [3] and trace["steps"][3]["causal_type"] == "dependency_on_tool_result"
