"""The segmentation rule catalogue: ids without numbers in them, parameters apart, docs generated
from it, every rule cited anywhere declared; and one small fixture per rule with the values
and links computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _paths import ROOT
from forsy.rules.catalogue import CATALOGUE, check, with_table
from forsy.run import RetraceOptions, retrace

GOLDEN = ROOT / "tests" / "golden"


def test_docs_table_is_generated_from_the_catalogue() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text("utf-8")
    assert with_table(doc) == doc, "run: python -m forsy.rules.catalogue docs/rules.md"


def test_rule_ids_carry_no_numbers_or_prose() -> None:
    for rid in CATALOGUE:
        assert " " not in rid and "(" not in rid and not any(c.isdigit() for c in rid), rid


def test_unknown_rule_or_wrong_params_raise() -> None:
    with pytest.raises(KeyError):
        check("R-no-such-rule")
    with pytest.raises(KeyError):
        check("R-retry", {"similarity": 93})  # failed_step missing
    with pytest.raises(KeyError):
        check("R-time", {"extra": 1})
    check("R-retry", {"similarity": 93, "failed_step": 2})
    check("A-edit+A-write")


def _cited_rules(prov: dict[str, Any]) -> list[tuple[str, dict[str, Any] | None]]:
    fields = [fp for sp in prov["steps"] for fp in sp["fields"].values()] + list(prov["trace_fields"].values())
    return [(fp["rule"], fp.get("params")) for fp in fields if fp.get("rule")]


@pytest.mark.parametrize("folder", sorted(GOLDEN.iterdir()) if GOLDEN.is_dir() else [], ids=lambda p: p.name)
def test_every_rule_in_a_golden_trace_is_declared(folder: Path) -> None:
    prov = json.loads((folder / "provenance.json").read_text())
    cited = _cited_rules(prov)
    assert cited
    for rule, params in cited:
        check(rule, params)


# --- one fixture per rule ---------------------------------------------------------------------
def _rec(i: int, parent: int | None, kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{parent}" if parent else None, "sessionId": "s-rules",
            "timestamp": f"2026-03-01T10:00:{i:02d}.000Z", **extra}


def _user(i: int, parent: int | None, text: str) -> dict[str, Any]:
    return _rec(i, parent, "user", message={"role": "user", "content": text})


def _calls(i: int, parent: int, *calls: tuple[str, str]) -> dict[str, Any]:
    return _rec(i, parent, "assistant", message={"id": f"m{i}", "role": "assistant", "content": [
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": cmd}} for cid, cmd in calls]})


def _result(i: int, parent: int, cid: str, text: str, error: bool = False) -> dict[str, Any]:
    return _rec(i, parent, "user", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": error}]})


def _answer(i: int, parent: int, text: str) -> dict[str, Any]:
    return _rec(i, parent, "assistant", message={"id": f"m{i}", "role": "assistant",
                                                 "content": [{"type": "text", "text": text}]})


def _trace(tmp: Path, *recs: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    p = tmp / "s-rules.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    [o] = retrace([p], RetraceOptions(redact=False)).outcomes
    assert o.assembled is not None
    trace = o.assembled.trace.model_dump(mode="json")
    prov = o.assembled.provenance.model_dump(mode="json")
    return trace["steps"], [sp["fields"] for sp in prov["steps"]]


def test_r_retry_links_the_repeat_of_a_failed_call(tmp_path: Path) -> None:
    steps, prov = _trace(
        tmp_path,
        _user(1, None, "build it"),
        _calls(2, 1, ("t1", "make all")), _result(3, 2, "t1", "error: missing rule", error=True),
        _calls(4, 3, ("t2", "make all")), _result(5, 4, "t2", "ok"),
        _answer(6, 5, "Built."),
    )
    # steps: 1 user, 2 failed make, 3 repeated make, 4 answer
    assert [s["success"] for s in steps] == [None, False, True, True]
    assert steps[2]["retry_of"] == 2 and steps[2]["causal_type"] == "retry_after_failure"
    assert steps[2]["caused_by"] == [2]
    assert prov[2]["retry_of"]["rule"] == "R-retry"
    assert prov[2]["retry_of"]["params"] == {"similarity": 100, "failed_step": 2}
    assert steps[1]["retry_of"] is None and steps[3]["retry_of"] is None


def test_r_retry_never_after_a_success(tmp_path: Path) -> None:
    steps, _ = _trace(
        tmp_path,
        _user(1, None, "build it twice"),
        _calls(2, 1, ("t1", "make all")), _result(3, 2, "t1", "ok"),
        _calls(4, 3, ("t2", "make all")), _result(5, 4, "t2", "ok"),
    )
    assert [s["retry_of"] for s in steps] == [None, None, None]


def test_r_parallel_groups_calls_of_one_message(tmp_path: Path) -> None:
    steps, prov = _trace(
        tmp_path,
        _user(1, None, "look around"),
        _calls(2, 1, ("t1", "ls"), ("t2", "pwd")),
        _result(3, 2, "t1", "a"), _result(4, 3, "t2", "/w"),
        _calls(5, 4, ("t3", "cat a")), _result(6, 5, "t3", "x"),
    )
    assert [s["execution_mode"] for s in steps[1:]] == ["parallel", "parallel", "serial"]
    assert steps[1]["parallel_group"] == steps[2]["parallel_group"] == "pg_001"
    assert prov[1]["execution_mode"]["rule"] == "R-parallel"
    assert prov[3]["execution_mode"]["rule"] == "R-parallel/serial" and "params" not in prov[3]["execution_mode"]


def test_r_cause_user_and_results(tmp_path: Path) -> None:
    steps, prov = _trace(
        tmp_path,
        _user(1, None, "check it"),
        _calls(2, 1, ("t1", "ls")), _result(3, 2, "t1", "a"),
        _calls(4, 3, ("t2", "cat a")), _result(5, 4, "t2", "x"),
        _answer(6, 5, "It holds x."),
    )
    assert steps[1]["caused_by"] == [1] and prov[1]["caused_by"]["rule"] == "R-cause/user"
    assert steps[2]["caused_by"] == [2] and prov[2]["caused_by"]["rule"] == "R-cause/results"
    assert steps[3]["caused_by"] == [3] and prov[3]["caused_by"]["rule"] == "R-cause/results"


def test_r_first_request_time_and_error_flag(tmp_path: Path) -> None:
    steps, prov = _trace(
        tmp_path,
        _user(1, None, "run the tests"),
        _calls(2, 1, ("t1", "pytest")), _result(3, 2, "t1", "1 failed", error=True),
    )
    assert steps[0]["message_role"] == "direct_request" and prov[0]["message_role"]["rule"] == "R-first-request"
    assert steps[1]["started_at"] == "2026-03-01T10:00:02.000Z" and steps[1]["ended_at"] == "2026-03-01T10:00:03.000Z"
    assert steps[1]["success"] is False and prov[1]["success"]["rule"] == "R-call/error-flag"
