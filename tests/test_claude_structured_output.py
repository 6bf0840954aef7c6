"""Claude Code with a JSON schema (`claude -p --json-schema`, the Agent SDK's `output_format`)
gives its final answer by calling the StructuredOutput tool with the object the schema
describes (its changelog: "the model can no longer re-call `StructuredOutput` indefinitely after a
successful call"). That object is the run's answer: the trace's final_output, copied whole from
the call's input (T-final/structured-output), and the run ends on it (task complete)."""

from __future__ import annotations

import json
from pathlib import Path

import forsy
from _small_logs import answer, call, result, user, write

SCHEMA_ANSWER = {"files": ["conf.py"], "retry_limit": 5, "notes": "set on line 3"}


def _run(tmp_path: Path, *, failed: bool = False, then_text: bool = False) -> tuple[dict, dict]:
    recs = [
        user(0, "u1", None, "Where is the retry limit set? Answer in the schema."),
        call(1, "a1", "u1", "t1", "Grep", {"pattern": "retries"}),
        result(2, "r1", "a1", "t1", "conf.py:3: retries = 5"),
        call(3, "a2", "r1", "t2", "StructuredOutput", SCHEMA_ANSWER),
        result(4, "r2", "a2", "t2", "Output does not match the schema" if failed else
               "Structured output provided successfully", err=failed),
    ]
    if then_text:
        recs.append(answer(5, "a3", "r2", "Done."))
    log = write(tmp_path / "s.jsonl", recs)
    run = forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(tmp_path / "out", parent=True))
    [o] = run.outcomes
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    check = forsy.verify(folder, [log])
    assert check.ok, check.problems
    return json.loads((folder / "trace.json").read_text()), json.loads((folder / "provenance.json").read_text())


def test_the_structured_answer_is_the_final_output(tmp_path: Path) -> None:
    trace, prov = _run(tmp_path)
    assert json.loads(trace["final_output"]) == SCHEMA_ANSWER
    assert trace["termination_reason"] == "task_complete"
    how = prov["trace_fields"]["final_output"]
    assert (how["origin"], how["rule"]) == ("copied", "T-final/structured-output+R-call/json")
    assert how["evidence"][0]["pointer"].endswith("/input")


def test_a_structured_answer_the_schema_refused_is_no_answer(tmp_path: Path) -> None:
    trace, _ = _run(tmp_path, failed=True)
    assert trace["final_output"] is None


def test_words_after_the_structured_answer_are_the_last_answer(tmp_path: Path) -> None:
    trace, _ = _run(tmp_path, then_text=True)
    assert trace["final_output"] == "Done."
