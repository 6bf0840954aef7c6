"""OpenHands trajectories and output.jsonl: every prompt, call and result in the trace, in order.

The oracle reads the raw JSON with the standard library (not forsy's reader): the user's
messages, and for each action that is not bookkeeping its type, exact arguments and the
content of the observation that answers it (by `cause`, or in order in old outputs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import forsy
from _oracle import checked_traces, from_trace, retrace
from _paths import REAL_LOGS, needs_shared
from forsy.sources import ReadContext, detect
from forsy.sources.openhands import OpenHandsSource

BASE = REAL_LOGS / "openhands"
REAL = sorted([*BASE.rglob("*.json"), *BASE.rglob("*.jsonl")]) if BASE.is_dir() else []
NOT_CALLS = {"message", "system", "recall", "finish", "think", "change_agent_state", "reject", "condensation",
             "condensation_request", "loop_recovery"}


def _events_oracle(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    results: dict[Any, str] = {}
    pending: list[int] = []  # old outputs: positions of calls waiting for an observation
    for e in events:
        if "observation" in e and e["observation"] not in ("null", "agent_state_changed", "recall"):
            if "cause" in e:
                results[e["cause"]] = e["content"]
            else:
                i = pending.pop(0)
                out[i] = (*out[i][:3], e["content"])
        act = e.get("action")
        if act == "message" and (e.get("source") == "user" or (e.get("source") is None and not out)):
            out.append(("user", e["args"]["content"] if "args" in e else e["content"]))
        elif act is not None and act not in NOT_CALLS:
            out.append(("call", act, e["args"] if "args" in e else e, e.get("id")))
            if "id" not in e:
                pending.append(len(out) - 1)
    return [(*x[:3], results.get(x[3], x[3])) if x[0] == "call" and "id" in events[0] else x for x in out]


def oracle(path: Path) -> list[list[tuple[Any, ...]]]:
    if path.suffix == ".jsonl":
        return [_events_oracle(json.loads(line)["history"]) for line in path.read_text("utf-8").splitlines()]
    return [_events_oracle(json.loads(path.read_text("utf-8")))]


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_openhands_logs_against_the_oracle(path: Path, tmp_path: Path) -> None:
    assert isinstance(detect(path), OpenHandsSource)
    traces = retrace(path, tmp_path / "out")
    want = oracle(path)
    # trace folders are named by session: compare as sets of step lists, each in order
    assert sorted(map(repr, (from_trace(t) for t in traces))) == sorted(map(repr, want))


@needs_shared
@pytest.mark.real_logs
def test_real_trajectory_facts() -> None:
    path = BASE / "sachiny0106__Xelron/docs/rfcs/0001-trajectory-format/openhands_trajectory.json"
    raw = json.loads(path.read_text("utf-8"))
    [s] = OpenHandsSource().read(path, ReadContext(root=path.parent))
    assert s.meta.system_prompt == raw[0]["args"]["content"]
    assert s.meta.models == ["gpt-5-2025-08-07"]
    last = [e for e in raw if "llm_metrics" in e][-1]["llm_metrics"]["accumulated_token_usage"]
    assert s.meta.token_usage["prompt_tokens"] == last["prompt_tokens"]
    assert [e.ts for e in s.events if e.kind == "user"] == [raw[1]["timestamp"]]
    assert s.quality.missing_results == 0


def test_unanswered_and_unpaired_are_reported(tmp_path: Path) -> None:
    events = [
        {"id": 1, "timestamp": "2026-01-01T00:00:00", "source": "user", "action": "message",
         "args": {"content": "go"}},
        {"id": 2, "timestamp": "2026-01-01T00:00:01", "source": "agent", "action": "run",
         "args": {"command": "false", "thought": "try"}},
        {"id": 3, "timestamp": "2026-01-01T00:00:02", "source": "agent", "observation": "run", "cause": 2,
         "content": "", "extras": {"metadata": {"exit_code": 1}}},
        {"id": 4, "timestamp": "2026-01-01T00:00:03", "source": "agent", "observation": "run", "cause": 99,
         "content": "stray", "extras": {}},
        {"id": 5, "timestamp": "2026-01-01T00:00:04", "source": "agent", "action": "read",
         "args": {"path": "/x", "thought": ""}},
        "junk",
    ]
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(events))
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    assert [e.kind for e in s.events] == ["user", "reasoning", "tool_call", "tool_result", "tool_call"]
    assert s.events[3].is_error is True
    assert s.quality.missing_results == 1 and s.quality.extra["unpaired_observations"] == 1
    assert {"unpaired-observation", "no-result", "not-an-object"} <= {w.code for w in s.warnings}


# ---------------------------------------------------------------- the ledger adds up
def _ledgers(out: Path) -> list[dict[str, Any]]:
    return [f for p in sorted(out.rglob("manifest.json")) for f in json.loads(p.read_text("utf-8"))["ledger"]]


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_openhands_ledger_accounts_for_every_record(path: Path, tmp_path: Path) -> None:
    retrace(path, tmp_path / "out")
    files = _ledgers(tmp_path / "out")
    for f in files:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    # the oracle: an element of the trajectory's array, or a line of output.jsonl (each line a trace)
    raw = path.read_text("utf-8")
    want = len(json.loads(raw)) if path.suffix == ".json" else len(raw.splitlines())
    assert sum(f["records_read"] for f in files) == want


def test_every_event_kind_has_its_heading(tmp_path: Path) -> None:
    t = "2026-01-01T00:00:0"
    events = [
        {"id": 0, "timestamp": t + "0", "source": "agent", "action": "system", "args": {"content": "You are"}},
        {"id": 1, "timestamp": t + "1", "source": "environment", "action": "change_agent_state",
         "args": {"agent_state": "init", "thought": ""}},
        {"id": 2, "timestamp": t + "1", "source": "environment", "observation": "null", "cause": 1, "content": "",
         "extras": {}},
        {"id": 3, "timestamp": t + "1", "source": "environment", "observation": "agent_state_changed",
         "content": "", "extras": {"agent_state": "init"}},
        {"id": 4, "timestamp": t + "2", "source": "user", "action": "message", "args": {"content": "make hi"}},
        {"id": 5, "timestamp": t + "2", "source": "user", "action": "recall",
         "args": {"recall_type": "workspace_context", "query": "make hi", "thought": ""}},
        {"id": 6, "timestamp": t + "3", "source": "environment", "observation": "recall", "cause": 5,
         "content": "Added workspace context", "extras": {}},
        {"id": 7, "timestamp": t + "4", "source": "agent", "action": "run", "args": {"command": "echo hi"}},
        {"id": 8, "timestamp": t + "5", "source": "agent", "observation": "run", "cause": 7, "content": "hi",
         "extras": {"metadata": {"exit_code": 0}}},
        {"id": 9, "timestamp": t + "5", "source": "agent", "observation": "run", "cause": 99, "content": "stray",
         "extras": {}},
        {"id": 10, "timestamp": t + "6", "source": "agent", "action": "message", "args": {"content": " "}},
        {"id": 11, "timestamp": t + "7", "source": "agent", "action": "finish", "args": {"final_thought": "done"}},
    ]
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(events, indent=1))
    retrace(p, tmp_path / "out")
    [f] = _ledgers(tmp_path / "out")
    assert f["totals"]["unknown"] == 0 and f["records_read"] == len(events), f
    got: dict[str, set[str]] = {}
    for e in f["entries"]:
        got.setdefault(e["record_type"], set()).add(e["heading"])
    assert got == {
        "(none)": {"cited"},  # system prompt, the user's message, run and its output, finish
        "(none)/action:change_agent_state": {"set_aside"},
        "(none)/observation:null": {"set_aside"},
        "(none)/observation:agent_state_changed": {"set_aside"},
        "(none)/action:recall": {"set_aside"},
        "(none)/observation:recall": {"set_aside"},
        "(none)/observation:run": {"set_aside"},  # the stray one: it answers no action
        "(none)/action:message": {"set_aside"},  # no words
    }


# ---------------------------------------------------------------- the software-agent SDK (OpenHands V1)
FIXTURES = Path(__file__).parent / "fixtures" / "openhands"
SDK_OUTPUT = FIXTURES / "sdk-output.jsonl"


def _sdk_oracle(history: list[dict[str, Any]]) -> tuple[list[tuple[Any, ...]], list[bool | None]]:
    """From the SDK's own event shapes: the user's words; each call (tool_name, the action object or,
    when the SDK could not build one, the model's arguments) with the text of what answered it; and
    whether that answer says it failed (is_error, an exit code other than 0 and -1, a rejection, an
    SDK error)."""
    answers: dict[str, tuple[str, bool | None]] = {}
    for e in history:
        if e["kind"] == "ObservationEvent":
            o = e["observation"]
            code = o.get("exit_code")
            failed = o.get("is_error") or (code is not None and code not in (0, -1))
            answers[e["tool_call_id"]] = ("\n".join(c["text"] for c in o["content"]), bool(failed))
        elif e["kind"] == "UserRejectObservation":
            answers[e["tool_call_id"]] = (e["rejection_reason"], True)
        elif e["kind"] == "AgentErrorEvent":
            answers[e["tool_call_id"]] = (e["error"], True)
    steps: list[tuple[Any, ...]] = []
    success: list[bool | None] = []
    for e in history:
        if e["kind"] == "MessageEvent" and e["source"] == "user":
            steps += [("user", c["text"]) for c in e["llm_message"]["content"]]
        elif e["kind"] == "ActionEvent" and (e["action"] or {}).get("kind") not in ("FinishAction", "ThinkAction"):
            args = e["action"] if e["action"] is not None else json.loads(e["tool_call"]["arguments"])
            text, failed = answers[e["tool_call_id"]]
            steps.append(("call", e["tool_name"], args, text))
            success.append(not failed)
    return steps, success


def test_sdk_output_every_prompt_call_and_failure(tmp_path: Path) -> None:
    """OpenHands V1 benchmark output: `history` holds SDK events whose `action` is an object
    (`kind: "ExecuteBashAction"`); the reader crashed on them (unhashable dict)."""
    [trace] = retrace(SDK_OUTPUT, tmp_path / "out")
    history = json.loads(SDK_OUTPUT.read_text("utf-8"))["history"]
    want_steps, want_success = _sdk_oracle(history)
    assert from_trace(trace) == want_steps
    assert [s["success"] for s in trace["steps"] if s.get("tool")] == want_success
    rejected = [e["rejection_reason"] for e in history if e["kind"] == "UserRejectObservation"
                and e["rejection_source"] == "user"]
    assert [s["output"] for s in trace["steps"] if s.get("eval_reason") == "The user rejected this tool call."] \
        == rejected and len(rejected) == 1
    finish = next(e for e in history if (e.get("action") or {}).get("kind") == "FinishAction")
    assert trace["final_output"] == finish["action"]["message"]
    system = next(e for e in history if e["kind"] == "SystemPromptEvent")
    assert trace["system_prompt"] == system["system_prompt"]["text"]
    [f] = _ledgers(tmp_path / "out")
    assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"] == 1


def test_sdk_trajectory_every_event_accounted(tmp_path: Path) -> None:
    """The same events saved as a JSON array: each is a record, cited or set aside with why."""
    history = json.loads(SDK_OUTPUT.read_text("utf-8"))["history"]
    p = tmp_path / "events.json"
    p.write_text(json.dumps(history, indent=1))
    assert isinstance(detect(p), OpenHandsSource)
    [trace] = retrace(p, tmp_path / "out")
    assert from_trace(trace) == _sdk_oracle(history)[0]
    [f] = _ledgers(tmp_path / "out")
    assert f["totals"]["unknown"] == 0 and f["records_read"] == len(history), f
    kinds = {e["record_type"]: e["heading"] for e in f["entries"] if e["heading"] != "cited"}
    assert kinds == {"(none)/kind:ConversationStateUpdateEvent": "set_aside",
                     "(none)/kind:ObservationEvent": "duplicate"}, kinds  # the think and finish acknowledgements


def test_sdk_events_of_unexpected_types_are_warned_not_fatal(tmp_path: Path) -> None:
    """Values of another type than the SDK writes (a `kind` that is an object, an `action` that
    is a list) are reported records, never a crash."""
    history = json.loads(SDK_OUTPUT.read_text("utf-8"))["history"]
    calls = len(_sdk_oracle(history)[1])
    history[3]["kind"] = {"name": "ActionEvent"}
    history[5]["action"] = ["ExecuteBashAction"]
    p = tmp_path / "events.json"
    p.write_text(json.dumps(history))
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    assert s.quality.unknown_records == 1 and any(w.code == "unknown-record" for w in s.warnings)
    assert len([e for e in s.events if e.kind == "tool_call"]) == calls - 1  # the one whose kind is an object


def test_sdk_conversation_persisted_one_file_per_event(tmp_path: Path) -> None:
    """The SDK's EventLog keeps a conversation as `events/event-<index>-<id>.json` files: one
    session, read in index order, each file a record; a folder walk gives it once."""
    events = FIXTURES / "conversations"
    [convo] = list(events.iterdir())
    files = sorted((convo / "events").glob("event-*.json"), key=lambda p: int(p.name.split("-")[1]))
    history = [json.loads(p.read_text("utf-8")) for p in files]
    out = tmp_path / "out"
    run = forsy.retrace([events], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert [o.status for o in run.outcomes if o.status != "skipped"] == ["written"]
    [trace] = checked_traces(out, files[0])
    assert from_trace(trace) == _sdk_oracle(history)[0]
    ledger = _ledgers(out)  # one entry per file read: the events, and the state beside them
    assert [f["path"] for f in ledger][-1] == f"openhands-conversation:{convo.name}/base_state.json"
    assert len(ledger) == len(files) + 1
    assert all(f["totals"]["unknown"] == 0 and f["records_read"] == 1 for f in ledger)
    [s] = OpenHandsSource().read(files[3], ReadContext(root=files[3].parent))  # any of its files: the whole
    assert s.session_id == convo.name and len(s.files) == len(files) + 1
    # the state says the run finished (T-termination/declared) and names the model
    assert (s.meta.ending, s.meta.extra["execution_status"]) == ("task_complete", "finished")
    assert trace["termination_reason"] == "task_complete"
