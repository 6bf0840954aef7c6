"""Model proposals cannot smuggle in an invention: one test per grounding rule, then the
calls (fenced JSON, context overflow, retries counted, the CLI's settings) and a server that
copies real quotes but invents values, run over real logs.

Every answer here is scripted (tests/llm_server.py or a client written in the test), not a model's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _paths import needs_shared, real_logs
from forsy.cli import app
from forsy.llm import LLMConfig
from forsy.llm._check import parse_answer
from forsy.run import RetraceOptions, retrace
from forsy.sinks import FolderSink
from llm_server import INVENTED_MARKERS, ScriptedClient, ScriptedHTTPError, ScriptedServer, completion, parse_request
from test_llm import CORRECTION, Run, assert_valid, long_session, write_log
from test_llm import retrace as retrace_run

Make = Callable[[dict[int, list[str]]], list[dict[str, Any]]]
FAIL_OUT = "1 failed, 2 passed in 0.12s"  # step 3's result (pytest, failing)
PASS_OUT = "3 passed in 0.10s"  # step 7's result
WORDS = "No, that's wrong: add must return a + b, not a - b. Fix it."  # step 5, the user's correction


def p(step: int | None, field: str, value: Any, ev: str, quote: str) -> dict[str, Any]:
    return {"step": step, "field": field, "value": value, "citations": [{"evidence_id": ev, "quote": quote}]}


def propose(tmp_path: Path, make: Make, records: list[dict[str, Any]] = CORRECTION) -> Run:
    """Retrace `records` with a client whose answer is `make(evidence ids of each step)`."""
    def client(**kw: Any) -> dict[str, Any]:
        req = parse_request(kw["messages"][1]["content"])
        ids = {s["n"]: [e for e, _ in s["evidence"]] for s in req["steps"]}
        return completion(kw["model"], json.dumps({"proposals": make(ids) if req["session"] else []}), 0)

    log = write_log(tmp_path, "s-ground", records)
    return retrace_run(log, tmp_path, LLMConfig(model="openai/rules", client=client, use_cache=False))


def reasons(run: Run) -> dict[str, int]:
    return dict(run.report["rejected_by_reason"])


# ---------------------------------------------------------------------- free text: at most what the quotes say
def test_the_quote_itself_is_accepted(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [p(3, "state_change", FAIL_OUT, ids[3][1], FAIL_OUT)])
    assert run.report["accepted"] == 1 and run.trace["steps"][2]["state_change"] == FAIL_OUT
    assert_valid(run)


def test_a_value_with_one_foreign_word_is_refused(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [p(3, "state_change", f"{FAIL_OUT}, then the database was dropped",
                                           ids[3][1], FAIL_OUT)])
    assert reasons(run) == {"ungrounded_word": 1} and run.trace["steps"][2]["state_change"] is None


def test_a_number_not_in_the_quote_is_refused(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [p(3, "state_change", "3 failed, 2 passed in 0.12s", ids[3][1], FAIL_OUT)])
    assert reasons(run) == {"ungrounded_number": 1}


def test_a_path_not_in_the_quote_is_refused(tmp_path: Path) -> None:
    said = "File created successfully at: /home/dev/proj/calc.py"
    run = propose(tmp_path, lambda ids: [
        p(2, "state_change", "File created successfully at: /home/dev/proj/other.py", ids[2][1], said)])
    assert reasons(run) == {"ungrounded_identifier": 1}


def test_a_negation_the_quote_does_not_hold_is_refused(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [p(7, "state_change", "not 3 passed", ids[7][1], PASS_OUT)])
    assert reasons(run) == {"ungrounded_word": 1}


def test_session_text_is_grounded_too(tmp_path: Path) -> None:
    final = "Fixed: add() now returns a + b and all 3 tests pass."
    run = propose(tmp_path, lambda ids: [
        p(None, "learning", "Candidate lesson: all 3 tests pass after add() returns a + b", ids[8][0], final),
        p(None, "description", "The agent fixed add() and deployed it", ids[8][0], final)])
    assert reasons(run) == {"ungrounded_word": 1}  # "deployed"
    assert run.trace["learning"] == "Candidate lesson: all 3 tests pass after add() returns a + b"


# ---------------------------------------------------------------------- enums: a quote of the value's kind
def test_an_enum_without_its_kind_of_quote_is_refused(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [
        p(5, "message_role", "approval", ids[5][0], WORDS),  # the words correct; they approve nothing
        p(None, "goal_achieved", True, ids[3][1], FAIL_OUT),  # "2 passed", but "1 failed" in the same result
    ])
    assert reasons(run) == {"enum_unsupported": 1, "goal_unsupported": 1}
    assert run.trace["summary"]["goal_achieved"] is None and run.trace["steps"][4]["message_role"] is None


def test_goal_achieved_true_needs_a_pass_not_the_users_request(tmp_path: Path) -> None:
    task = "Add a function add(a, b) to calc.py and run the tests."
    run = propose(tmp_path, lambda ids: [p(None, "goal_achieved", True, ids[1][0], task)])
    assert reasons(run) == {"goal_unsupported": 1}


def test_an_enum_with_its_kind_of_quote_is_accepted(tmp_path: Path) -> None:
    run = propose(tmp_path, lambda ids: [p(5, "message_role", "correction", ids[5][0], WORDS),
                                         p(None, "goal_achieved", True, ids[7][1], PASS_OUT)])
    assert run.report["accepted"] == 2 and run.trace["summary"]["goal_achieved"] is True
    assert_valid(run)


# ---------------------------------------------------------------------- fields that do not apply
def test_a_field_on_a_step_it_does_not_apply_to_is_refused(tmp_path: Path) -> None:
    answer = "The tests fail: test_add expects 3 but add() returned -1."
    run = propose(tmp_path, lambda ids: [
        p(4, "state_change", answer, ids[4][0], answer),  # an answer changes nothing, whatever it quotes
        p(4, "alternatives_considered", answer, ids[4][0], answer),
        p(3, "state_change", "File created successfully at: /home/dev/proj/calc.py", ids[2][1],
          "File created successfully at: /home/dev/proj/calc.py"),  # another step's result
    ])
    assert reasons(run) == {"not_applicable": 3}


# ---------------------------------------------------------------------- quotes: exact, not near
def test_a_quote_with_one_character_changed_is_refused(tmp_path: Path) -> None:
    changed = "FAILED test_calc.py::test_add - assert -1 == 4"  # the log says "== 3"
    run = propose(tmp_path, lambda ids: [p(4, "observation", changed, ids[3][1], changed),
                                         p(7, "state_change", "3 passed in 0.11s", ids[7][1], "3 passed in 0.11s")])
    assert reasons(run) == {"quote_not_found": 2}


# ---------------------------------------------------------------------- calls
def test_fenced_json_is_read() -> None:
    body = '{"proposals": [{"step": 2, "field": "reasoning", "value": "x", "citations": []}]}'
    for content in (body, f"```json\n{body}\n```", f"Sure! Here it is:\n```json\n{body}\n```\nHope it helps.",
                    f"```\n{body}\n```", f"The answer: {body} (end)"):
        assert parse_answer(content)[0]["field"] == "reasoning", content
    with pytest.raises(ValueError):
        parse_answer("```json\n{not json}\n```")


def test_a_fenced_answer_counts_as_an_answer(tmp_path: Path) -> None:
    log = write_log(tmp_path, "s-llm", CORRECTION)
    good = retrace_run(log, tmp_path / "good", LLMConfig(model="openai/scripted-good", client=ScriptedClient(),
                                                         use_cache=False))
    fenced = retrace_run(log, tmp_path / "fenced", LLMConfig(model="openai/scripted-fenced", client=ScriptedClient(),
                                                             use_cache=False))
    assert fenced.report["malformed_answers"] == 0 and fenced.report["fallbacks"] == 0
    assert fenced.report["accepted"] == good.report["accepted"] > 0
    assert fenced.trace["steps"] == good.trace["steps"]


def test_a_chunk_too_long_for_the_context_is_split_and_asked_again(tmp_path: Path) -> None:
    client = ScriptedClient()
    log = write_log(tmp_path, "s-long", long_session(12))
    run = retrace_run(log, tmp_path, LLMConfig(model="openai/scripted-overflow", client=client, chunk_tokens=8000,
                                               use_cache=False))
    r = run.report
    assert r["context_splits"] >= 1 and r["fallbacks"] == 0 and "provider_error" not in r["fallbacks_by_reason"]
    assert r["calls"] == client.calls > r["chunks"]  # the refused requests are counted too
    assert r["accepted"] > 0
    assert_valid(run)


def test_retries_are_counted_with_their_tokens(tmp_path: Path) -> None:
    script = ScriptedClient()
    failures = [ScriptedHTTPError(503, "overloaded"), ScriptedHTTPError(502, "bad gateway")]

    def flaky(**kw: Any) -> Any:
        if failures:
            raise failures.pop(0)
        return script(**kw)

    log = write_log(tmp_path, "s-llm", CORRECTION)
    run = retrace_run(log, tmp_path, LLMConfig(model="openai/scripted-good", client=flaky, use_cache=False,
                                               retries=3, backoff_s=0.001))
    r = run.report
    assert (r["calls"], r["retries"], r["fallbacks"]) == (3, 2, 0)
    assert r["tokens"]["sent_estimate_all_calls"] == 3 * r["tokens"]["sent_estimate"]
    assert r["call_seconds"] >= 0 and r["accepted"] > 0


def test_cli_llm_settings_reach_the_model_pass(tmp_path: Path) -> None:
    log = write_log(tmp_path, "s-llm", CORRECTION)
    out = tmp_path / "out"
    with ScriptedServer(max_seconds=60) as srv:
        res = CliRunner().invoke(app, [
            "retrace", str(log), "-o", str(out), "--no-redact", "--llm", "openai/scripted-fenced",
            "--llm-api-base", srv.base_url, "--llm-cache-dir", str(tmp_path / "cache"), "--llm-timeout", "7",
            "--llm-concurrency", "1", "--llm-chunk-tokens", "3000"])
    assert res.exit_code == 0, res.output
    llm = json.loads((out / "manifest.json").read_text())["llm"]
    assert (llm["timeout_s"], llm["concurrency"], llm["chunk_tokens"], llm["json_mode"]) == (7.0, 1, 3000, False)
    assert llm["accepted"] > 0 and llm["fallbacks"] == 0


# ---------------------------------------------------------------------- a copier that invents, on real logs
REAL = [*real_logs("claude", "marot__spotter/test/fixtures/transcripts/tool_heavy.jsonl",
                   "marot__spotter/test/fixtures/transcripts/short.jsonl",
                   "d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/*.jsonl",
                   "codemie-ai__codemie-code/tests/integration/session/fixtures/session-9eda1058.jsonl"),
        *real_logs("codex", "codemie-ai__codemie-code/**/rollout-*.jsonl")]


@needs_shared
@pytest.mark.parametrize("log", REAL, ids=lambda p: p.name[:40])
def test_invented_values_with_real_quotes_reach_no_file(log: Path, tmp_path: Path) -> None:
    client = ScriptedClient()
    opts = RetraceOptions(llm_model="openai/scripted-invent", llm_client=client, cache_dir=tmp_path / "cache")
    run = retrace([log], opts, sink=FolderSink(tmp_path / "out", parent=True), keep=True)
    proposed = 0
    for o in run.results:
        assert o.assembled is not None and o.assembled.manifest.llm is not None
        rep = o.assembled.manifest.llm
        proposed += int(rep["proposed"])
        assert rep["accepted"] == 0, rep["accepted_by_field"]
        assert rep["rejected"] == rep["proposed"]
    assert client.calls > 0 and proposed > 0
    written = [f for f in (tmp_path / "out").rglob("*") if f.is_file()]
    assert written
    for f in written:
        text = f.read_text(encoding="utf-8", errors="replace")
        for marker in INVENTED_MARKERS:
            assert marker not in text or marker.lower() in log.read_text(errors="replace").lower(), (f, marker)
