"""Every real Claude Code log in ../shared/real_logs/claude: a valid trace that holds every
typed prompt verbatim, every tool call with its exact input and every result, in log order.

The oracle reads the raw JSON itself (not forsy's ingester): tool_use / tool_result blocks
by their place (file, line, JSON pointer), typed prompts by the independent checker's rules
(../shared/tools/forsy_check.py). Copied values are re-checked against the log bytes.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from _paths import SHARED, needs_shared, real_logs
from forsy.errors import ForsyError
from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from forsy.verification import verify_folder

pytestmark = [needs_shared, pytest.mark.real_logs]

LOGS = real_logs("claude", "**/*.jsonl", "**/chat.json")
# sessions with nothing to trace: metadata-only files, an empty file, Warmup-only agent stubs
NO_WORK = {"0f13eeba-e6ed-42ea-ad8c-d8db37e1304e.jsonl", "6d3dc917-03e0-448d-a7a5-d5e6c1a6dd27.jsonl",
           "a751b8dd-6b29-4eed-8cb9-64bc9a916a39.jsonl", "be89c3cd-bfbf-4c4f-a515-5af6e13249bf.jsonl",
           "agent-a1593bc.jsonl", "agent-36541525.jsonl", "agent-50243ee8.jsonl"}


def _checker() -> Any:
    spec = importlib.util.spec_from_file_location("forsy_check", SHARED / "tools" / "forsy_check.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    text = path.read_text("utf-8")
    if text.lstrip().startswith("["):
        return [(-i, d) for i, d in enumerate(json.loads(text)) if isinstance(d, dict)]
    return [(n, json.loads(line)) for n, line in enumerate(text.split("\n"), 1) if line.strip()]


def _blocks(path: Path) -> tuple[set[tuple[str, int, str]], set[tuple[str, int, str]]]:
    """(calls, results): (file name, line, pointer) of every tool_use input and tool_result content."""
    recs = _records(path)
    first_user = next((d for _, d in recs if d.get("type") == "user"), None)
    if first_user and (first_user.get("message") or {}).get("content") == "Warmup":
        return set(), set()  # a Warmup sidechain: not work
    calls, results = set(), set()
    for line, d in recs:
        content = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
        if not isinstance(content, list):
            continue
        for i, b in enumerate(content):
            if not isinstance(b, dict):
                continue
            if d.get("type") == "assistant" and b.get("type") == "tool_use":
                calls.add((path.name, line, f"/message/content/{i}/input"))
            if d.get("type") == "user" and b.get("type") == "tool_result":
                results.add((path.name, line, f"/message/content/{i}/content"))
    return calls, results


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name[:24])
def test_real_claude_log(log: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace"
    if log.name in NO_WORK:
        with pytest.raises(ForsyError) as ei:
            retrace([log], RetraceOptions(out=out, redact=False))
        assert ei.value.exit_code in (2, 3)
        assert not out.exists()
        return
    [res] = retrace([log], RetraceOptions(out=out, redact=False)).results
    report = validate_path(out)
    assert report.errors == [], [str(f) for f in report.errors[:5]]

    # every copied value is what the log's bytes hold
    ver = verify_folder(out, [log.parent])
    assert ver.ok, ver.problems[:5]
    assert ver.checked > 0

    trace = json.loads((out / "trace.json").read_text())
    prov = json.loads((out / "provenance.json").read_text())
    ev = prov["evidence"]

    def places(field: str) -> dict[tuple[str, int, str], int]:
        found = {}
        for sp in prov["steps"]:
            fp = sp["fields"].get(field)
            if fp and fp["origin"] == "copied":
                for r in fp["evidence"]:
                    info = ev[r["id"]]
                    found[(Path(info["source"]).name, info["line"] or 0, r["pointer"])] = sp["step"]
        return found

    in_places, out_places = places("input"), places("output")
    # every agent-*.jsonl under the session's subagents/ tree, at any depth, is read and so
    # checked below (compaction agents are not work)
    tree = log.parent / log.stem / "subagents"
    on_disk = {p.resolve() for p in tree.rglob("agent-*.jsonl") if not p.name.startswith("agent-acompact")} \
        if tree.is_dir() else set()
    assert on_disk <= {Path(f.abs_path).resolve() for f in res.session.files}
    for src in res.session.files:
        p = Path(src.abs_path)
        if p.suffix not in (".jsonl", ".json"):
            continue
        calls, results = _blocks(p)
        if p.suffix == ".json":  # one JSON array: elements have no line of their own here, compare counts
            assert len(calls) == sum(1 for k in in_places if k[0] == p.name and k[2].endswith("/input"))
            n_results = sum(1 for k in out_places if k[0] == p.name and k[2].count("/") == 4
                            and k[2].endswith("/content"))
            assert len(results) == n_results
            continue
        missing_calls = calls - set(in_places)
        assert not missing_calls, f"{len(missing_calls)} tool calls of {p.name} not in the trace"
        missing_results = results - set(out_places)
        assert not missing_results, f"{len(missing_results)} tool results of {p.name} not in the trace"
        # log order: within one file, calls appear in the trace in the order they were written
        steps = [in_places[c] for c in sorted(calls, key=lambda c: (c[1], c[2]))]
        main_order = [s for s in steps if trace["steps"][s - 1]["actor"] == "agent"]
        assert main_order == sorted(main_order)

    # every typed prompt, by the independent checker's rules, verbatim in a user_message step
    chk = _checker()
    users, _, _ = chk.claude_truth(chk.load_records(log))
    inputs = [s["input"] for s in trace["steps"] if s["action"] == "user_message"]
    for u in users:
        assert any(u == i or u.strip() == i.strip() for i in inputs), u[:80]
