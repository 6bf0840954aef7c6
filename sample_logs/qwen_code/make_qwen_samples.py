"""Write the Qwen Code sample in this folder (see README.md).

The records below were written by hand by the forsy developers in the shape Qwen Code's
recorder writes them (QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts at
commit 015346f: `createBaseRecord` and the `record*` methods; the subagent's transcript by
packages/core/src/agents/agent-transcript.ts at 015f283, `attachJsonlTranscriptWriter` and
`writeAgentMeta`). The work they describe (the project, files, commands, outputs) is invented
and never happened; no real log was copied. This script only serializes them the way the CLI
does (JSON.stringify: compact JSON, one record a line, keys in the order the CLI builds them,
non-ASCII kept; the sidecar indented by two spaces) and derives ids and times from fixed values,
so the output is the same on every run.

    python sample_logs/qwen_code/make_qwen_samples.py
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CWD = "/home/dev/projects/tally"
PROJECT = HERE / "projects" / "-home-dev-projects-tally"  # storage.ts getProjectDir: sanitizeCwd(cwd)
VERSION = "0.15.2"
MODEL = "qwen3-coder-plus"


def uid(label: str) -> str:
    """A version-4-shaped uuid derived from a label (the CLI writes `randomUUID()`)."""
    return str(uuid.UUID(bytes=hashlib.sha256(f"forsy-qwen-sample:{label}".encode()).digest()[:16], version=4))


SESSION = uid("session")
AGENT = "general-purpose-3f9a2c"


class Clock:
    def __init__(self, start: str) -> None:
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)

    def tick(self, ms: int) -> str:
        self.t += timedelta(milliseconds=ms)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"


class Chat:
    """The main recorder: `createBaseRecord` (uuid, parentUuid = the active tail, sessionId,
    timestamp, type, provenance, cwd, version, gitBranch), then each record's own fields."""

    PROVENANCE = {"user": "real_user", "assistant": "assistant_output", "tool_result": "tool_result",
                  "system": "system"}

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.tail: str | None = None
        self.turn_parents: list[str | None] = []  # rewindRecording's turnParentUuids
        self.clock = Clock("2026-05-04T09:00:00.000Z")

    def base(self, kind: str, label: str, ms: int) -> dict[str, Any]:
        return {"uuid": uid(label), "parentUuid": self.tail, "sessionId": SESSION, "timestamp": self.clock.tick(ms),
                "type": kind, "provenance": self.PROVENANCE[kind], "cwd": CWD, "version": VERSION,
                "gitBranch": "main"}

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(rec)
        self.tail = rec["uuid"]
        return rec

    def user(self, label: str, ms: int, parts: list[dict[str, Any]], shown: str | None = None) -> None:
        """recordUserMessage; `shown`: the typed words a newer CLI keeps in `systemPayload`."""
        self.turn_parents.append(self.tail)
        rec = self.base("user", label, ms)
        rec["message"] = {"role": "user", "parts": parts}
        if shown is not None:
            rec["systemPayload"] = {"displayText": shown, "hookContext": ""}
            rec["promptId"] = f"{SESSION}########{len(self.turn_parents)}"
        self.add(rec)

    def model(self, label: str, ms: int, parts: list[dict[str, Any]], tokens: tuple[int, int, int]) -> None:
        rec = self.base("assistant", label, ms)
        rec["model"] = MODEL
        rec["message"] = {"role": "model", "parts": parts}
        prompt, out, thoughts = tokens
        rec["usageMetadata"] = {"promptTokenCount": prompt, "candidatesTokenCount": out,
                                "totalTokenCount": prompt + out + thoughts, "cachedContentTokenCount": prompt // 2,
                                "thoughtsTokenCount": thoughts}
        rec["contextWindowSize"] = 1000000
        self.add(rec)

    def result(self, label: str, ms: int, call: str, name: str, response: dict[str, Any], status: str,
               shown: Any, error_type: str | None = None) -> None:
        rec = self.base("tool_result", label, ms)
        rec["message"] = {"role": "user", "parts": [{"functionResponse": {"id": call, "name": name,
                                                                          "response": response}}]}
        tcr: dict[str, Any] = {"callId": call, "resultDisplay": shown}
        if error_type is not None:  # the Error object JSON.stringify writes as {}
            tcr.update({"error": {}, "errorType": error_type})
        tcr["status"] = status
        rec["toolCallResult"] = tcr
        self.add(rec)

    def system(self, label: str, ms: int, subtype: str, payload: Any, *, parent: str | None = "tail") -> None:
        rec = self.base("system", label, ms)
        if parent != "tail":
            rec["parentUuid"] = parent
        rec.update({"type": "system", "subtype": subtype, "systemPayload": payload})
        self.add(rec)


CLI_PY = '''import argparse
import collections
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tally")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    counts = collections.Counter()
    for name in args.files:
        with open(name, encoding="utf-8") as f:
            counts.update(f.read().split())
    for word, n in sorted(counts.items()):
        print(f"{n}\\t{word}")
'''
PYTEST_OK = "....                                                                     [100%]\n4 passed in 0.03s\n"


def shell_output(cmd: str, out: str) -> str:
    """tools/shell.ts llmContent for a finished foreground command."""
    return (f"Command: {cmd}\nDirectory: (root)\nOutput: {out}\nError: (none)\nExit Code: 0\nSignal: (none)\n"
            "Background PIDs: (none)\nProcess Group PGID: 41873")


def main_session() -> list[dict[str, Any]]:
    c = Chat()
    fc = lambda i, n, a: {"functionCall": {"id": i, "name": n, "args": a}}  # noqa: E731
    c.user("u1", 0, [{"text": "Add a --top N option to tally that prints only the N most common words."}],
           shown="Add a --top N option to tally that prints only the N most common words.")
    c.model("a1", 3100, [
        {"text": "The user wants a --top option. I should read the CLI and see which tests exist.", "thought": True},
        {"text": "I'll read the CLI first and look for its tests."},
        fc("call_read_cli", "read_file", {"absolute_path": f"{CWD}/tally/cli.py"}),
        fc("call_glob_tests", "glob", {"pattern": "tests/test_*.py"}),
    ], (5210, 96, 41))
    c.result("r1", 120, "call_read_cli", "read_file", {"output": CLI_PY}, "success", "")
    c.result("r2", 40, "call_glob_tests", "glob",
             {"output": f'Found 1 file(s) matching "tests/test_*.py" within {CWD}, sorted by modification time '
                        f"(newest first):\n{CWD}/tests/test_cli.py"}, "success", "Found 1 matching file(s)")
    c.system("t1", 15, "ui_telemetry", {"uiEvent": {"event.name": "qwen-code.api_response",
                                                    "event.timestamp": "2026-05-04T09:00:03.100Z",
                                                    "response_id": "chatcmpl-6f1e", "model": MODEL,
                                                    "status_code": 200, "duration_ms": 2950,
                                                    "input_token_count": 5210, "output_token_count": 96,
                                                    "total_token_count": 5347, "prompt_id": "p1"}})
    c.model("a2", 2900, [
        {"text": "Adding the option and printing the most common words first when it is given."},
        fc("call_edit_cli", "edit", {"file_path": f"{CWD}/tally/cli.py",
                                     "old_string": '    ap.add_argument("files", nargs="+")\n',
                                     "new_string": '    ap.add_argument("files", nargs="+")\n'
                                                   '    ap.add_argument("--top", type=int, default=None)\n'}),
    ], (5633, 132, 0))
    c.result("r3", 210, "call_edit_cli", "edit",
             {"output": f"The file: {CWD}/tally/cli.py has been updated."}, "success",
             {"fileDiff": "--- cli.py\tCurrent\n+++ cli.py\tProposed\n@@ -7,2 +7,3 @@\n     ap.add_argument(\"files\", "
                          "nargs=\"+\")\n+    ap.add_argument(\"--top\", type=int, default=None)\n",
              "fileName": "cli.py", "originalContent": CLI_PY,
              "newContent": CLI_PY.replace('nargs="+")\n', 'nargs="+")\n    ap.add_argument("--top", type=int, '
                                                           'default=None)\n', 1)})
    c.model("a3", 2400, [fc("call_read_readme", "read_file", {"absolute_path": f"{CWD}/docs/usage.md"})],
            (5901, 38, 0))
    c.result("r4", 30, "call_read_readme", "read_file", {"error": f"File not found: {CWD}/docs/usage.md"}, "error",
             "File not found.", error_type="file_not_found")
    c.model("a4", 2100, [
        {"text": "There is no usage page yet; I'll write one."},
        fc("call_write_usage", "write_file", {"file_path": f"{CWD}/docs/usage.md",
                                              "content": "# tally\n\n`tally FILE... [--top N]`\n"}),
    ], (6012, 71, 0))
    c.result("r5", 9400, "call_write_usage", "write_file",
             {"error": "[Operation Cancelled] Reason: User did not allow tool call"}, "cancelled", None)
    c.model("a5", 1800, [{"text": "Understood, no usage page. The --top option is in place in tally/cli.py."}],
            (6120, 24, 0))
    # /compress: the invocation, the checkpoint (summary + acknowledgement), the command's output
    c.system("s1", 30000, "slash_command", {"phase": "invocation", "rawCommand": "/compress"})
    c.system("s2", 6100, "chat_compression", {
        "info": {"originalTokenCount": 6144, "newTokenCount": 612, "compressionStatus": 1},
        "compressedHistory": [
            {"role": "user", "parts": [{"text": "<state_snapshot>\n<overall_goal>Add a --top N option to the tally "
                                                "CLI.</overall_goal>\n<current_plan>1. [DONE] Add --top to "
                                                "tally/cli.py.\n2. [TODO] Test it.</current_plan>\n"
                                                "</state_snapshot>"}]},
            {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]},
        ]})
    c.system("s3", 5, "slash_command", {"phase": "result", "rawCommand": "/compress", "outputHistoryItems": [
        {"type": "compression", "compression": {"isPending": False, "originalTokenCount": 6144,
                                                "newTokenCount": 612, "compressionStatus": 1}}]})
    # an @-reference, then a turn the person rewinds away
    c.system("s4", 41000, "at_command", {"filesRead": [f"{CWD}/tally/cli.py"], "status": "success",
                                         "userText": "Explain @tally/cli.py in two sentences."})
    before = len(c.turn_parents)
    c.user("u2", 10, [{"text": "Explain @tally/cli.py in two sentences."},
                      {"text": "\n--- Content from referenced files ---"},
                      {"text": f"\nContent from @{CWD}/tally/cli.py:\n"}, {"text": CLI_PY},
                      {"text": "\n--- End of content ---"}])
    c.model("a6", 2600, [{"text": "tally counts the words of the files it is given. It prints each word with its "
                                  "count, sorted by word."}], (1400, 30, 0))
    c.tail = c.turn_parents[before]  # rewindRecording: back to the record before that turn
    c.turn_parents = c.turn_parents[:before]
    c.system("s5", 52000, "rewind", {"truncatedCount": 2}, parent=c.tail)
    c.user("u3", 4000, [{"text": "Have a subagent write a test for --top, then tell me how it went."}],
           shown="Have a subagent write a test for --top, then tell me how it went.")
    c.model("a7", 2200, [fc("call_agent", "agent", {"description": "Test for --top", "subagent_type":
                                                    "general-purpose", "prompt": TASK})], (1750, 88, 0))
    c.result("r6", 21000, "call_agent", "agent", {"output": REPORT}, "success",
             {"type": "task_execution", "subagentName": "general-purpose", "taskDescription": "Test for --top",
              "status": "completed", "result": REPORT, "toolCalls": []})
    # recordNotification (createNotificationRecord): a background task's notice, in the person's place
    note = c.base("user", "n1", 400)
    note.update({"subtype": "notification", "provenance": "system", "message": {"role": "user", "parts": [
        {"text": "<task-notification>\n<task-id>shell-1</task-id>\n<status>cancelled</status>\n<summary>Background "
                 "command \"python -m http.server 8000\" was stopped.</summary>\n</task-notification>"}]},
        "systemPayload": {"displayText": "Background shell shell-1 stopped",
                          "backgroundTask": {"taskId": "shell-1", "status": "cancelled", "kind": "shell"}}})
    c.add(note)
    c.model("a8", 2300, [{"text": "The subagent added tests/test_top.py; the suite passes (5 tests)."}],
            (2210, 22, 0))
    c.system("s6", 900, "custom_title", {"customTitle": "Add --top option to tally", "titleSource": "auto"})
    return c.lines


TASK = ("Write a pytest test in tests/test_top.py for tally's new --top N option (tally/cli.py): with --top 2 "
        "only the two most common words are printed. Run the tests and report.")
REPORT = "Added tests/test_top.py with one test for --top 2; python -m pytest -q: 5 passed."


def subagent() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    tail: str | None = None
    clock = Clock("2026-05-04T09:02:40.500Z")  # right after the main agent called `agent`
    run = uid("agent-run")

    def base(kind: str, label: str, ms: int) -> dict[str, Any]:
        return {"uuid": uid(f"agent-{label}"), "parentUuid": tail, "sessionId": SESSION, "timestamp": clock.tick(ms),
                "type": kind, "cwd": CWD, "version": VERSION, "gitBranch": "main", "agentId": AGENT,
                "agentName": "general-purpose", "isSidechain": True}

    def add(rec: dict[str, Any]) -> None:
        nonlocal tail
        lines.append(rec)
        tail = rec["uuid"]

    add({**base("user", "task", 0), "message": {"role": "user", "parts": [{"text": TASK}]}})
    add({**base("assistant", "text1", 2400), "message": {"role": "model", "parts": [
        {"text": "A test file with a small input file in tmp_path is enough.", "thought": True},
        {"text": "Writing the test, then running the suite."}]},
        "usageMetadata": {"promptTokenCount": 3020, "candidatesTokenCount": 40, "totalTokenCount": 3060},
        "agentRunId": run, "agentRound": 1})
    test = ("from tally.cli import main\n\n\ndef test_top(tmp_path, capsys):\n    f = tmp_path / \"a.txt\"\n"
            "    f.write_text(\"b a b c b a\")\n    main([str(f), \"--top\", \"2\"])\n"
            "    assert capsys.readouterr().out == \"3\\tb\\n2\\ta\\n\"\n")
    add({**base("assistant", "call1", 300), "message": {"role": "model", "parts": [{"functionCall": {
        "id": "call_sub_write", "name": "write_file", "args": {"file_path": f"{CWD}/tests/test_top.py",
                                                               "content": test}}}]}})
    add({**base("assistant", "call2", 10), "message": {"role": "model", "parts": [{"functionCall": {
        "id": "call_sub_pytest", "name": "run_shell_command",
        "args": {"command": "python -m pytest -q", "description": "Run the tests"}}}]}})
    add({**base("tool_result", "res1", 180), "message": {"role": "user", "parts": [{"functionResponse": {
        "id": "call_sub_write", "name": "write_file",
        "response": {"output": f"Successfully created and wrote to new file: {CWD}/tests/test_top.py."}}}]},
        "toolCallResult": {"callId": "call_sub_write", "durationMs": 12}})
    add({**base("tool_result", "res2", 1900), "message": {"role": "user", "parts": [{"functionResponse": {
        "id": "call_sub_pytest", "name": "run_shell_command",
        "response": {"output": shell_output("python -m pytest -q", PYTEST_OK.replace("4 passed", "5 passed")
                                            .replace("....", "....."))}}}]},
        "toolCallResult": {"callId": "call_sub_pytest", "durationMs": 1880}})
    add({**base("assistant", "text2", 2100), "message": {"role": "model", "parts": [{"text": REPORT}]},
         "usageMetadata": {"promptTokenCount": 3480, "candidatesTokenCount": 31, "totalTokenCount": 3511},
         "agentRunId": run, "agentRound": 2})
    meta = {"agentId": AGENT, "agentType": "general-purpose", "description": "Test for --top",
            "parentSessionId": SESSION, "toolUseId": "call_agent", "parentAgentId": None,
            "createdAt": "2026-05-04T09:02:40.500Z", "status": "completed", "isBackgrounded": False,
            "lastUpdatedAt": "2026-05-04T09:02:47.390Z", "resolvedApprovalMode": "default",
            "subagentName": "general-purpose", "depth": 1, "model": MODEL}
    return lines, meta


def write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in lines),
                    encoding="utf-8")


def main() -> None:
    write_lines(PROJECT / "chats" / f"{SESSION}.jsonl", main_session())
    lines, meta = subagent()
    folder = PROJECT / "subagents" / SESSION
    write_lines(folder / f"agent-{AGENT}.jsonl", lines)
    (folder / f"agent-{AGENT}.meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
