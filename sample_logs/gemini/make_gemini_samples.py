"""Write the Gemini CLI sample in this folder (see README.md).

The events below were written by hand by the forsy developers in the shape Gemini CLI's
headless mode writes them (`gemini -p "…" --output-format stream-json`, v0.34: the event
types of packages/core/src/output/types.ts, emitted by packages/cli/src/nonInteractiveCli.ts).
The work they describe (the project, files, commands, outputs) is invented and never happened;
no real log was copied. This script only serializes them the way the CLI does (JSON.stringify:
compact JSON, one event a line, keys in the order the CLI builds them, non-ASCII kept) and
derives the session id and times from fixed values, so the output is the same on every run.

    python sample_logs/gemini/make_gemini_samples.py
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODEL = "gemini-2.5-pro"


class Clock:
    """The CLI's `new Date().toISOString()` at each event: a fixed start and fixed steps."""

    def __init__(self, start: str):
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)

    def tick(self, ms: int) -> str:
        self.t += timedelta(milliseconds=ms)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"

    def epoch_ms(self) -> int:
        return int(self.t.timestamp() * 1000)


def session_id(label: str) -> str:
    """A version-4-shaped uuid derived from a label (the CLI writes a random one)."""
    return str(uuid.UUID(bytes=hashlib.sha256(f"forsy-sample:{label}".encode()).digest()[:16], version=4))


TOTALS_OLD = """\
def invoice_total(lines):
    return sum(round(qty * price, 2) for qty, price in lines)
"""

PYTEST_FAIL = """\
F..                                                                      [100%]
=================================== FAILURES ===================================
_____________________________ test_many_small_lines ____________________________

    def test_many_small_lines():
>       assert invoice_total([(1, 0.004)] * 3) == 0.01
E       assert 0.0 == 0.01
E        +  where 0.0 = invoice_total([(1, 0.004), (1, 0.004), (1, 0.004)])

tests/test_totals.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_totals.py::test_many_small_lines - assert 0.0 == 0.01
1 failed, 2 passed in 0.03s
"""


def stream_json_run() -> list[dict[str, Any]]:
    """A CI job asks the agent to fix a failing test: it runs the test and reads the module in one
    turn (two calls), edits with an old_string that is not in the file (the tool fails), edits
    again, runs the tests (they pass) and answers."""
    c = Clock("2026-03-20T09:14:05.118Z")
    calls = 0

    def call(name: str, params: dict[str, Any], ms: int) -> dict[str, Any]:
        nonlocal calls
        at = c.tick(ms)
        # turn.ts (v0.34): `${name}_${Date.now()}_${callCounter++}`, the counter of the turn
        tid = f"{name}_{c.epoch_ms()}_{calls}"
        calls += 1
        return {"type": "tool_use", "timestamp": at, "tool_name": name, "tool_id": tid, "parameters": params}

    def said(text: str, ms: int) -> dict[str, Any]:
        return {"type": "message", "timestamp": c.tick(ms), "role": "assistant", "content": text, "delta": True}

    def result(use: dict[str, Any], ms: int, status: str = "success", output: str | None = None,
               error: dict[str, str] | None = None) -> dict[str, Any]:
        ev: dict[str, Any] = {"type": "tool_result", "timestamp": c.tick(ms), "tool_id": use["tool_id"],
                              "status": status}
        if output is not None:  # JSON.stringify leaves out a display that is not text (an edit's diff)
            ev["output"] = output
        if error is not None:
            ev["error"] = error
        return ev

    def next_turn() -> None:
        nonlocal calls
        calls = 0

    path = "invoicer/totals.py"
    events: list[dict[str, Any]] = [
        {"type": "init", "timestamp": c.tick(0), "session_id": session_id("gemini/stream-json"), "model": MODEL},
        {"type": "message", "timestamp": c.tick(212), "role": "user",
         "content": "tests/test_totals.py fails on CI. Find the cause in invoicer/, fix it, and run the tests."},
        said("I'll run the failing test", 2840),
        said(" and read the totals module.", 96),
    ]
    run = call("run_shell_command", {"command": "python -m pytest -q tests/test_totals.py",
                                     "description": "Run the failing test file."}, 412)
    read = call("read_file", {"file_path": path}, 3)
    events += [run, read, result(run, 1873, output=PYTEST_FAIL), result(read, 2, output="")]
    next_turn()
    events += [
        said("`invoice_total` rounds every line before adding them up, so three lines of 0.004 ", 4102),
        said("come to 0.00 where their sum, 0.012, is 0.01. I'll round the sum once instead.", 118),
    ]
    bad = call("replace", {"file_path": path, "instruction": "Round the invoice total once, after summing.",
                           "old_string": "    return sum(round(qty * price, 2) for qty, price in lines)\n\n",
                           "new_string": "    return round(sum(qty * price for qty, price in lines), 2)\n\n"}, 530)
    raw = (f"Failed to edit, 0 occurrences found for old_string in {path}. Ensure you're not escaping content "
           "incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.")
    events += [bad, result(bad, 38, "error", "Error: Failed to edit, could not find the string to replace.",
                           {"type": "edit_no_occurrence_found", "message": raw})]
    next_turn()
    events.append(said("The file ends after that line; retrying without the blank line.", 2210))
    edit = call("replace", {"file_path": path, "instruction": "Round the invoice total once, after summing.",
                            "old_string": "    return sum(round(qty * price, 2) for qty, price in lines)",
                            "new_string": "    return round(sum(qty * price for qty, price in lines), 2)"}, 402)
    events += [edit, result(edit, 61)]
    next_turn()
    rerun = call("run_shell_command", {"command": "python -m pytest -q", "description": "Run the whole suite."},
                 2950)
    events += [rerun, result(rerun, 1690, output="...                                                             "
                                                  "         [100%]\n3 passed in 0.03s\n")]
    events += [
        said("Fixed. `invoice_total` in invoicer/totals.py rounded each line to cents ", 3320),
        said("before summing, which drifts by a cent on invoices with many small lines; it now rounds ", 141),
        said("the sum once. The whole suite passes (3 tests).", 97),
    ]
    usage = {"total_tokens": 48213, "input_tokens": 46890, "output_tokens": 612, "cached": 31204, "input": 15686}
    events.append({"type": "result", "timestamp": c.tick(88), "status": "success",
                   "stats": {**usage, "duration_ms": 24571, "tool_calls": 5, "models": {MODEL: usage}}})
    # the first old_string is not in the file (it ends after the line), the second is
    assert bad["parameters"]["old_string"] not in TOTALS_OLD and edit["parameters"]["old_string"] in TOTALS_OLD
    return events


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> None:
    data = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    path.write_bytes(data.encode("utf-8"))


def main() -> None:
    write_jsonl(HERE / "stream-json-run.jsonl", stream_json_run())
    for p in sorted(HERE.glob("*.jsonl")):
        print(f"{p.name}: {p.stat().st_size} bytes")


if __name__ == "__main__":
    main()
