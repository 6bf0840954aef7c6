"""Write sample_logs/opencode/storage/: an OpenCode JSON storage folder holding one invented
session (and its subagent's), in the format OpenCode's code writes (see README.md here).

    python sample_logs/opencode/make_opencode_samples.py

Every item is a Python literal below, written the way OpenCode's Storage writes it:
`JSON.stringify(value, null, 2)` (two-space indent, non-ASCII as is, no final newline), one
file per item, keys in the order the writer builds them. Ids are made as OpenCode makes them
(prefix, twelve hex digits of the time in ms times 0x1000 plus a counter, inverted for a
session, then fourteen base-62 characters), the random part derived from a fixed label, and
times from a fixed start, so running the script again writes the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STORAGE = HERE / "storage"
START = 1768381200000  # 2026-01-14T09:00:00Z
PROJECT = hashlib.sha1(b"forsy sample: invoicer first commit").hexdigest()
CWD = "/home/dev/projects/invoicer"
VERSION = "1.1.21"
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

_counter: dict[int, int] = {}


def ident(prefix: str, ms: int, label: str, descending: bool = False) -> str:
    _counter[ms] = _counter.get(ms, 0) + 1
    now = ms * 0x1000 + _counter[ms]
    if descending:
        now = ~now & 0xFFFFFFFFFFFF
    digest = int.from_bytes(hashlib.sha256(label.encode()).digest(), "big")
    rand = ""
    for _ in range(14):
        digest, r = divmod(digest, 62)
        rand += B62[r]
    return f"{prefix}_{(now & 0xFFFFFFFFFFFF):012x}{rand}"


def t(seconds: float) -> int:
    return START + int(seconds * 1000)


def write(rel: str, value: Any) -> None:
    p = STORAGE / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(value, indent=2, ensure_ascii=False), encoding="utf-8")


class Session:
    """One session's messages and parts, written as OpenCode writes them."""

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.parent_msg = ""

    def user(self, at: float, label: str, *parts: dict[str, Any], agent: str = "build") -> str:
        mid = ident("msg", t(at), f"{self.sid}/{label}")
        write(f"message/{self.sid}/{mid}.json", {
            "id": mid, "sessionID": self.sid, "role": "user", "time": {"created": t(at)},
            "agent": agent, "model": MODEL})
        for i, part in enumerate(parts):
            self.part(mid, t(at), f"{label}/{i}", part)
        self.parent_msg = mid
        return mid

    def assistant(self, at: float, done: float, label: str, parts: list[dict[str, Any]], *, finish: str,
                  tokens: dict[str, Any], cost: float, agent: str = "build", error: dict[str, Any] | None = None,
                  summary: bool = False, model: dict[str, str] = MODEL) -> str:
        mid = ident("msg", t(at), f"{self.sid}/{label}")
        info: dict[str, Any] = {"id": mid, "sessionID": self.sid, "role": "assistant",
                                "time": {"created": t(at), "completed": t(done)}}
        if error is not None:
            info["error"] = error
        info.update({"parentID": self.parent_msg, "modelID": model["modelID"], "providerID": model["providerID"],
                     "mode": agent, "agent": agent, "path": {"cwd": CWD, "root": CWD}})
        if summary:
            info["summary"] = True
        info.update({"cost": cost, "tokens": tokens, "finish": finish})
        write(f"message/{self.sid}/{mid}.json", info)
        for i, part in enumerate(parts):
            self.part(mid, t(at) + i, f"{label}/{i}", part)
        return mid

    def part(self, mid: str, ms: int, label: str, body: dict[str, Any]) -> None:
        pid = ident("prt", ms, f"{self.sid}/{label}")
        head = {"id": pid, "messageID": mid, "sessionID": self.sid}
        if body["type"] == "step-finish":  # processor.ts builds it reason first
            value = {"id": pid, "reason": body["reason"], "snapshot": body["snapshot"], "messageID": mid,
                     "sessionID": self.sid, "type": "step-finish", "tokens": body["tokens"], "cost": body["cost"]}
        elif body["type"] == "step-start":
            value = {**head, "snapshot": body["snapshot"], "type": "step-start"}
        else:
            value = {**head, **body}
        write(f"part/{mid}/{pid}.json", value)


def tokens(i: int, o: int, r: int = 0, read: int = 0, wrote: int = 0) -> dict[str, Any]:
    return {"input": i, "output": o, "reasoning": r, "cache": {"read": read, "write": wrote}}


def snap(label: str) -> str:
    return hashlib.sha1(label.encode()).hexdigest()


def step(label: str) -> dict[str, Any]:
    return {"type": "step-start", "snapshot": snap(label)}


def finish(label: str, reason: str, tok: dict[str, Any], cost: float) -> dict[str, Any]:
    return {"type": "step-finish", "reason": reason, "snapshot": snap(label), "tokens": tok, "cost": cost}


def text(words: str, start: float, end: float) -> dict[str, Any]:
    return {"type": "text", "text": words, "time": {"start": t(start), "end": t(end)}}


def reasoning(words: str, start: float, end: float) -> dict[str, Any]:
    return {"type": "reasoning", "text": words, "time": {"start": t(start), "end": t(end)}}


def tool(name: str, call: str, args: dict[str, Any], start: float, end: float, *, output: str | None = None,
         title: str = "", metadata: dict[str, Any] | None = None, error: str | None = None) -> dict[str, Any]:
    if error is not None:
        state: dict[str, Any] = {"status": "error", "input": args, "error": error,
                                 "time": {"start": t(start), "end": t(end)}}
    else:
        state = {"status": "completed", "input": args, "output": output, "metadata": metadata or {}, "title": title,
                 "time": {"start": t(start), "end": t(end)}}
    return {"type": "tool", "tool": name, "callID": call, "state": state}


TOTALS = "/home/dev/projects/invoicer/invoicer/totals.py"
TOTALS_SRC = (
    "from decimal import Decimal\n\n\n"
    "def line_total(qty, price, discount):\n"
    "    return round(qty * price * (1 - discount), 2)\n\n\n"
    "def invoice_total(lines):\n"
    "    return sum(line_total(*line) for line in lines)\n"
)
READ_OUT = "<file>\n" + "".join(f"{n:05d}| {line}\n" for n, line in enumerate(TOTALS_SRC.splitlines(), 1)) + \
    "\n(End of file - total 9 lines)\n</file>"
PYTEST_FAIL = (
    "F.....                                                                   [100%]\n"
    "=================================== FAILURES ===================================\n"
    "____________________________ test_discounted_lines _____________________________\n"
    "    def test_discounted_lines():\n"
    ">       assert invoice_total([(3, Decimal('19.99'), Decimal('0.15'))] * 3) == Decimal('152.93')\n"
    "E       AssertionError: assert Decimal('152.91') == Decimal('152.93')\n"
    "tests/test_totals.py:9: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_totals.py::test_discounted_lines - AssertionError\n"
    "1 failed, 5 passed in 0.04s\n"
)
PYTEST_OK = "......                                                                   [100%]\n6 passed in 0.03s\n"
EDIT_DIFF = (
    f"Index: {TOTALS}\n===================================================================\n"
    f"--- {TOTALS}\n+++ {TOTALS}\n@@ -4,6 +4,8 @@\n def line_total(qty, price, discount):\n"
    "-    return round(qty * price * (1 - discount), 2)\n+    return qty * price * (1 - discount)\n \n \n"
    " def invoice_total(lines):\n-    return sum(line_total(*line) for line in lines)\n"
    "+    total = sum(line_total(*line) for line in lines)\n+    return total.quantize(Decimal(\"0.01\"))\n"
)


def main() -> None:
    if STORAGE.exists():
        shutil.rmtree(STORAGE)
    sid = ident("ses", t(0), "main session", descending=True)
    child = ident("ses", t(95), "explore subagent", descending=True)
    write(f"project/{PROJECT}.json", {"id": PROJECT, "worktree": CWD, "vcs": "git",
                                      "time": {"created": t(-86400), "initialized": t(-86400)}})
    s = Session(sid)

    # turn 1: a prompt with a file attached (@invoicer/totals.py: OpenCode reads it in, synthetic)
    s.user(1, "u1",
           {"type": "text", "text": "The invoice total is off by a cent when several lines are discounted. Find "
                                    "out why and fix it. @invoicer/totals.py"},
           {"type": "text", "synthetic": True,
            "text": f"Called the Read tool with the following input: {{\"filePath\":\"{TOTALS}\"}}"},
           {"type": "text", "synthetic": True, "text": READ_OUT},
           {"type": "file", "mime": "text/plain", "filename": "invoicer/totals.py", "url": f"file://{TOTALS}",
            "source": {"text": {"value": "@invoicer/totals.py", "start": 99, "end": 118}, "type": "file",
                       "path": "invoicer/totals.py"}})
    s.assistant(3, 9, "a1", [
        step("a1"),
        reasoning("Each line is rounded to cents before the lines are summed, so the rounding errors add up. The "
                  "grand total should be rounded once. Let me confirm with the tests first.", 3, 5),
        text("Each discounted line is rounded before the sum. Let me run the tests and see where the cent goes.",
             5, 6),
        tool("grep", "toolu_01GrepRound", {"pattern": "round\\(", "include": "*.py"}, 6, 6.4,
             output="Found 1 matches\n/home/dev/projects/invoicer/invoicer/totals.py:\n  Line 5:     return "
                    "round(qty * price * (1 - discount), 2)", title="round\\(", metadata={"matches": 1,
                                                                                         "truncated": False}),
        tool("bash", "toolu_01PytestFirst", {"command": "python -m pytest -q", "description": "Run the test suite"},
             6, 8.5, output=PYTEST_FAIL, title="Run the test suite",
             metadata={"output": PYTEST_FAIL, "exit": 1, "description": "Run the test suite"}),
        finish("a1", "tool-calls", tokens(5120, 310, 96, 0, 5120), 0.02514),
    ], finish="tool-calls", tokens=tokens(5120, 310, 96, 0, 5120), cost=0.02514)
    # a retry (the API was overloaded), then the edit
    s.assistant(10, 19, "a2", [
        {"type": "retry", "attempt": 1, "error": {"name": "APIError", "data": {
            "message": "Overloaded", "statusCode": 529, "isRetryable": True}}, "time": {"created": t(11)}},
        step("a2"),
        tool("edit", "toolu_01EditTotals", {"filePath": TOTALS, "oldString": "    return round(qty * price * (1 - "
                                            "discount), 2)\n\n\ndef invoice_total(lines):\n    return sum(line_total(*"
                                            "line) for line in lines)", "newString": "    return qty * price * (1 - "
                                            "discount)\n\n\ndef invoice_total(lines):\n    total = sum(line_total(*"
                                            "line) for line in lines)\n    return total.quantize(Decimal(\"0.01\"))"},
             14, 15, output="Edit applied successfully.", title="invoicer/totals.py",
             metadata={"diagnostics": {}, "diff": EDIT_DIFF, "filediff": {"file": TOTALS, "additions": 3,
                                                                          "deletions": 2}}),
        tool("bash", "toolu_01PytestAgain", {"command": "python -m pytest -q", "description": "Run the tests again"},
             15, 17, output=PYTEST_OK, title="Run the tests again",
             metadata={"output": PYTEST_OK, "exit": 0, "description": "Run the tests again"}),
        finish("a2", "tool-calls", tokens(6010, 420, 0, 5120, 890), 0.01876),
        {"type": "patch", "hash": snap("a2"), "files": [TOTALS]},
    ], finish="tool-calls", tokens=tokens(6010, 420, 0, 5120, 890), cost=0.01876)
    s.assistant(20, 24, "a3", [
        step("a3"),
        text("Fixed: `line_total` no longer rounds each line; `invoice_total` rounds the sum once, to cents. The "
             "discounted-lines test passes now, with the other five.", 20, 23),
        finish("a3", "stop", tokens(6600, 95, 0, 6010, 0), 0.00402),
    ], finish="stop", tokens=tokens(6600, 95, 0, 6010, 0), cost=0.00402)

    # turn 2: a plan, a changelog entry, a page that is not there, a subagent, a push refused
    s.user(60, "u2", {"type": "text", "text": "Add a CHANGELOG entry, and check whether anything else rounds "
                                              "money per line."})
    changelog = "# Changelog\n\n## Unreleased\n\n- Invoice totals are rounded once, after summing the lines.\n"
    todos = [{"content": "Add a CHANGELOG entry", "status": "in_progress", "priority": "medium", "id": "1"},
             {"content": "Look for other per-line rounding", "status": "pending", "priority": "medium", "id": "2"}]
    task_args = {"description": "Find other per-line rounding",
                 "prompt": "Search the invoicer package for other places that round money before summing "
                           "(round(, quantize). Report each with file and line; change nothing.",
                 "subagent_type": "explore"}
    report = ("One more: `invoicer/tax.py` line 12 rounds each line's tax with `round(..., 2)` before "
              "`sum()`. Nothing else rounds money.")
    s.assistant(62, 130, "a4", [
        step("a4"),
        tool("todowrite", "toolu_01Todos", {"todos": todos}, 63, 63.2, output=json.dumps(todos, indent=2),
             title="2 todos", metadata={"todos": todos}),
        tool("write", "toolu_01Changelog", {"content": changelog, "filePath": f"{CWD}/CHANGELOG.md"}, 64, 64.5,
             output="Wrote file successfully.", title="CHANGELOG.md",
             metadata={"diagnostics": {}, "filepath": f"{CWD}/CHANGELOG.md", "exists": False}),
        tool("webfetch", "toolu_01FetchDocs", {"url": "https://docs.example.org/invoicer/rounding", "format":
                                               "markdown"}, 65, 66,
             error="Error: Request failed with status code: 404"),
        tool("task", "toolu_01TaskRounding", task_args, 94, 128,
             output=f"task_id: {child} (for resuming to continue this task if needed)\n\n<task_result>\n{report}"
                    "\n</task_result>", title=task_args["description"],
             metadata={"sessionId": child, "model": MODEL}),
        finish("a4", "tool-calls", tokens(7400, 610, 0, 6600, 1200), 0.02233),
        {"type": "patch", "hash": snap("a4"), "files": [f"{CWD}/CHANGELOG.md"]},
    ], finish="tool-calls", tokens=tokens(7400, 610, 0, 6600, 1200), cost=0.02233)
    s.assistant(131, 140, "a5", [
        step("a5"),
        text("`invoicer/tax.py` rounds per line too. I'll push the fix first.", 131, 132),
        tool("bash", "toolu_01Push", {"command": "git push origin fix-rounding", "description": "Push the branch"},
             133, 139, error="Error: The user rejected permission to use this specific tool call."),
        finish("a5", "tool-calls", tokens(8100, 120, 0, 7400, 0), 0.00611),
    ], finish="tool-calls", tokens=tokens(8100, 120, 0, 7400, 0), cost=0.00611)

    # turn 3: stopped by the person while a command ran
    s.user(200, "u3", {"type": "text", "text": "Don't push. Tag a release instead."})
    s.assistant(202, 209, "a6", [
        step("a6"),
        tool("bash", "toolu_01Tag", {"command": "git tag -a v1.4.1 -m 'Rounding fix'", "description": "Tag v1.4.1"},
             203, 209, error="Tool execution aborted"),
    ], finish="tool-calls", tokens=tokens(0, 0), cost=0,
        error={"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}})

    # turn 4: /compact, the summary the compaction agent wrote
    s.user(300, "u4", {"type": "compaction", "auto": False})
    s.assistant(301, 312, "a7", [
        step("a7"),
        text("## Goal\n\nFix the cent lost in invoice totals with discounted lines.\n\n## Accomplished\n\n- "
             "`invoicer/totals.py`: lines no longer rounded; the sum is rounded once. Tests pass.\n- CHANGELOG.md "
             "entry added.\n\n## Next\n\n- `invoicer/tax.py` still rounds per line.", 301, 311),
        finish("a7", "stop", tokens(9100, 140, 0, 0, 0), 0.02940),
    ], finish="stop", tokens=tokens(9100, 140, 0, 0, 0), cost=0.0294, agent="compaction", summary=True)

    # turn 5: undone by the person (/undo): reverted, still on disk until the next prompt
    undo = s.user(400, "u5", {"type": "text", "text": "Rename line_total to discounted_line_total everywhere."})
    s.assistant(402, 410, "a8", [
        step("a8"),
        tool("edit", "toolu_01Rename", {"filePath": TOTALS, "oldString": "def line_total(",
                                        "newString": "def discounted_line_total("}, 403, 404,
             output="Edit applied successfully.", title="invoicer/totals.py",
             metadata={"diagnostics": {}, "diff": "", "filediff": {"file": TOTALS, "additions": 1, "deletions": 1}}),
        finish("a8", "tool-calls", tokens(9400, 80, 0, 9100, 0), 0.00377),
    ], finish="tool-calls", tokens=tokens(9400, 80, 0, 9100, 0), cost=0.00377)

    write(f"session/{PROJECT}/{sid}.json", {
        "id": sid, "version": VERSION, "projectID": PROJECT, "directory": CWD,
        "title": "Fix the lost cent in invoice totals", "time": {"created": t(0), "updated": t(420)},
        "summary": {"additions": 8, "deletions": 2, "files": 2},
        "revert": {"messageID": undo, "snapshot": snap("before u5"), "diff": ""}})

    # the explore subagent the task call ran (tool/task.ts: its own session, parentID the caller)
    c = Session(child)
    write(f"session/{PROJECT}/{child}.json", {
        "id": child, "version": VERSION, "projectID": PROJECT, "directory": CWD, "parentID": sid,
        "title": "Find other per-line rounding (@explore subagent)",
        "permission": [{"permission": "todowrite", "pattern": "*", "action": "deny"},
                       {"permission": "todoread", "pattern": "*", "action": "deny"},
                       {"permission": "task", "pattern": "*", "action": "deny"}],
        "time": {"created": t(95), "updated": t(127)}})
    c.user(96, "c1", {"type": "text", "text": task_args["prompt"]}, agent="explore")
    tax = "/home/dev/projects/invoicer/invoicer/tax.py"
    c.assistant(97, 127, "c2", [
        step("c2"),
        tool("glob", "toolu_01Glob", {"pattern": "invoicer/**/*.py"}, 98, 98.3,
             output=f"{TOTALS}\n{tax}\n/home/dev/projects/invoicer/invoicer/__init__.py", title="invoicer",
             metadata={"count": 3, "truncated": False}),
        tool("grep", "toolu_01GrepQuantize", {"pattern": "round\\(|quantize", "path": f"{CWD}/invoicer"}, 99, 99.4,
             output=f"Found 2 matches\n{tax}:\n  Line 12:     return sum(round(line.tax, 2) for line in lines)\n"
                    f"{TOTALS}:\n  Line 10:     return total.quantize(Decimal(\"0.01\"))", title="round\\(|quantize",
             metadata={"matches": 2, "truncated": False}),
        tool("read", "toolu_01ReadTax", {"filePath": tax, "offset": 8, "limit": 8}, 100, 100.2,
             output="<file>\n00009| \n00010| \n00011| def tax_total(lines):\n00012|     return sum(round(line.tax,"
                    " 2) for line in lines)\n\n(End of file - total 12 lines)\n</file>", title="invoicer/tax.py",
             metadata={"preview": "def tax_total(lines):"}),
        text(report, 120, 126),
        finish("c2", "stop", tokens(3900, 210, 0, 0, 3900), 0.01779),
    ], finish="stop", tokens=tokens(3900, 210, 0, 0, 3900), cost=0.01779, agent="explore")


if __name__ == "__main__":
    main()
