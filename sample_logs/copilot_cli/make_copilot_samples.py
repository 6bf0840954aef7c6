"""Write the GitHub Copilot CLI samples in this folder (see README.md).

The events below were written by hand by the forsy developers in the shapes Copilot CLI's
session writer gives them (npm @github/copilot, its bundled JavaScript: `emitInternal` builds
`{type, data, id, timestamp, parentId}` at 0.0.343-1.0.60, with `agentId` for a subagent's event
at 1.0.60; the `data` of each type from the `SessionEvent` schemas, schemas/session-events.schema.json
at 0.0.400 and 1.0.60; the legacy `history-session` document at 0.0.340). The work they describe
(the project, files, commands, outputs) is invented and never happened; no real log was copied.
This script only serializes them the way the CLI does (JSON.stringify: compact JSON, one event a
line, keys in the order the CLI builds them, non-ASCII kept; the legacy document indented by two
spaces) and derives ids and times from fixed values, so the output is the same on every run.

    python sample_logs/copilot_cli/make_copilot_samples.py

Three sessions, one per form still on disk:

* `session-state/<id>/events.jsonl`: 1.0.x (a subagent, a failed command, an edit, a refused
  call, a `!` command, a compaction, an abort, a model change; the agent's and the subagent's
  `report_intent` calls, first in their messages as the CLI tells the model);
* `session-state/<id>.jsonl`: the flat log of 0.0.342-0.0.37x, a legacy session imported into it;
* `history-session-state/session_<id>_<ms>.json`: the document of 0.0.341 and before.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CWD = "/home/dev/projects/lantern"
MODEL = "claude-sonnet-4.5"


def uid(label: str) -> str:
    """A version-4-shaped uuid derived from a label (the CLI writes `randomUUID()`)."""
    return str(uuid.UUID(bytes=hashlib.sha256(f"forsy-copilot-sample:{label}".encode()).digest()[:16], version=4))


def call_id(label: str) -> str:
    """A tool call id shaped like the model API's (`toolu_` + 24 characters)."""
    return "toolu_" + hashlib.sha256(f"forsy-copilot-call:{label}".encode()).hexdigest()[:24]


class Clock:
    def __init__(self, start: str) -> None:
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)

    def tick(self, ms: int) -> str:
        """`new Date().toISOString()`: milliseconds, Z."""
        self.t += timedelta(milliseconds=ms)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"


class Log:
    """`emitInternal`: `{type, data, id, timestamp, parentId}`, parentId the last persisted event's id."""

    def __init__(self, prefix: str, start: str) -> None:
        self.prefix = prefix
        self.clock = Clock(start)
        self.events: list[dict[str, Any]] = []
        self.last: str | None = None
        self.n = 0

    def emit(self, typ: str, data: dict[str, Any], ms: int = 400, agent: str | None = None) -> str:
        self.n += 1
        eid = uid(f"{self.prefix}:{self.n}")
        ev: dict[str, Any] = {"type": typ, "data": data, "id": eid, "timestamp": self.clock.tick(ms),
                              "parentId": self.last}
        if agent is not None:
            ev["agentId"] = agent
        self.events.append(ev)
        self.last = eid
        return eid

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in self.events)
        path.write_text(text, "utf-8")


def current() -> None:
    """A 1.0.x session: session-state/<id>/events.jsonl."""
    sid = uid("current:session")
    log = Log("current", "2026-05-20T09:14:02.118Z")
    context = {"cwd": CWD, "gitRoot": CWD, "repository": "dev/lantern", "hostType": "github", "branch": "fix-dim"}
    log.emit("session.start", {"sessionId": sid, "version": 1, "producer": "copilot-agent",
                               "copilotVersion": "1.0.60", "startTime": "2026-05-20T09:14:02.101Z",
                               "selectedModel": MODEL, "reasoningEffort": "medium", "context": context}, 17)
    log.emit("system.message", {"content": "You are the GitHub Copilot CLI, a terminal assistant.", "role": "system"})
    log.emit("user.message", {"content": "The dimmer test fails, can you find out why and fix it?",
                               "transformedContent": "The dimmer test fails, can you find out why and fix it?\n\n"
                               "<current_datetime>2026-05-20T09:14:20Z</current_datetime>",
                               "attachments": [], "agentMode": "interactive", "interactionId": uid("i1")}, 18000)
    log.emit("assistant.turn_start", {"turnId": "0", "interactionId": uid("i1")})
    view, test, intent = call_id("view"), call_id("test"), call_id("intent")
    log.emit("assistant.reasoning", {"reasoningId": uid("r1"), "content": "I should read the dimmer module and run "
                                     "its test to see the failure."}, 2100)
    log.emit("assistant.message", {"messageId": uid("m1"), "model": MODEL, "content": "Let me look at the dimmer "
                                   "code and run its test.",
                                   "toolRequests": [
                                       {"toolCallId": intent, "name": "report_intent",
                                        "arguments": {"intent": "Investigating dimmer test"}, "type": "function"},
                                       {"toolCallId": view, "name": "view", "arguments": {"path": f"{CWD}/lantern/dim.py"},
                                        "type": "function", "toolTitle": "View file"},
                                       {"toolCallId": test, "name": "bash",
                                        "arguments": {"command": "python -m pytest tests/test_dim.py -q",
                                                      "description": "Run the dimmer test"},
                                        "type": "function", "toolTitle": "Run the dimmer test"}],
                                   "reasoningText": "I should read the dimmer module and run its test to see the "
                                   "failure.", "outputTokens": 141, "interactionId": uid("i1"), "turnId": "0"}, 300)
    log.emit("tool.execution_start", {"toolCallId": intent, "toolName": "report_intent",
                                      "arguments": {"intent": "Investigating dimmer test"}, "model": MODEL,
                                      "turnId": "0"}, 20)
    # report_intent's callback only answers "Intent logged"; the intent is its session log
    log.emit("tool.execution_complete", {"toolCallId": intent, "success": True, "model": MODEL,
                                         "interactionId": uid("i1"), "turnId": "0",
                                         "result": {"content": "Intent logged",
                                                    "detailedContent": "Investigating dimmer test"}}, 3)
    log.emit("tool.execution_start", {"toolCallId": view, "toolName": "view",
                                      "arguments": {"path": f"{CWD}/lantern/dim.py"}, "model": MODEL, "turnId": "0"}, 20)
    log.emit("tool.execution_start", {"toolCallId": test, "toolName": "bash",
                                      "arguments": {"command": "python -m pytest tests/test_dim.py -q",
                                                    "description": "Run the dimmer test"}, "model": MODEL,
                                      "turnId": "0"}, 5)
    dim = "1. def dim(level: int) -> int:\n2.     return max(0, min(100, level)) // 10\n"
    log.emit("tool.execution_complete", {"toolCallId": view, "success": True, "model": MODEL,
                                         "interactionId": uid("i1"), "turnId": "0",
                                         "result": {"content": dim, "detailedContent": dim}}, 40)
    out = ("F\nFAILED tests/test_dim.py::test_half - assert 5 == 50\n1 failed in 0.04s\n"
           "<shellId: 0 completed with exit code 1>")
    log.emit("permission.requested", {"requestId": uid("p0"), "permissionRequest": {
        "kind": "shell", "toolCallId": test, "fullCommandText": "python -m pytest tests/test_dim.py -q",
        "intention": "Run the dimmer test", "commands": [{"identifier": "python", "readOnly": False}],
        "possiblePaths": [], "possibleUrls": [], "hasWriteFileRedirection": False, "canOfferSessionApproval": True}}, 30)
    log.emit("permission.completed", {"requestId": uid("p0"), "toolCallId": test, "result": {"kind": "approved"}}, 2400)
    log.emit("tool.execution_complete", {"toolCallId": test, "success": True, "model": MODEL,
                                         "interactionId": uid("i1"), "turnId": "0",
                                         "result": {"content": out, "detailedContent": out}}, 900)
    fix = call_id("fix")
    args = {"path": f"{CWD}/lantern/dim.py", "old_str": "    return max(0, min(100, level)) // 10",
            "new_str": "    return max(0, min(100, level))"}
    log.emit("assistant.message", {"messageId": uid("m2"), "model": MODEL, "content": "`dim` divides the level by "
                                   "10; the test expects a percentage. Removing the division.",
                                   "toolRequests": [{"toolCallId": fix, "name": "str_replace", "arguments": args,
                                                     "type": "function", "toolTitle": "Edit file"}],
                                   "outputTokens": 96, "interactionId": uid("i1"), "turnId": "1"}, 2600)
    log.emit("tool.execution_start", {"toolCallId": fix, "toolName": "str_replace", "arguments": args, "model": MODEL,
                                      "turnId": "1"}, 10)
    log.emit("tool.execution_complete", {"toolCallId": fix, "success": True, "model": MODEL,
                                         "interactionId": uid("i1"), "turnId": "1",
                                         "result": {"content": f"File {CWD}/lantern/dim.py updated with changes.",
                                                    "detailedContent": "diff --git a/lantern/dim.py b/lantern/dim.py"}},
             120)
    task = call_id("task")
    targs = {"description": "Run the test suite", "prompt": "Run the whole test suite and report failures.",
             "agent_type": "task", "name": "suite-runner"}
    log.emit("assistant.message", {"messageId": uid("m3"), "model": MODEL, "content": "",
                                   "toolRequests": [{"toolCallId": task, "name": "task", "arguments": targs,
                                                     "type": "function", "toolTitle": "Run the test suite"}],
                                   "outputTokens": 58, "interactionId": uid("i1"), "turnId": "2"}, 1900)
    log.emit("tool.execution_start", {"toolCallId": task, "toolName": "task", "arguments": targs, "model": MODEL,
                                      "turnId": "2"}, 10)
    log.emit("subagent.started", {"toolCallId": task, "agentName": "task", "agentDisplayName": "Task",
                                  "agentDescription": "Agent for executing commands with verbose output",
                                  "model": "claude-haiku-4.5"}, 15, agent=task)
    run, sintent = call_id("suite"), call_id("suite-intent")
    sargs = {"command": "python -m pytest -q", "description": "Run all tests"}
    log.emit("assistant.message", {"messageId": uid("s1"), "model": "claude-haiku-4.5", "content": "",
                                   "toolRequests": [{"toolCallId": sintent, "name": "report_intent",
                                                     "arguments": {"intent": "Running test suite"},
                                                     "type": "function"},
                                                    {"toolCallId": run, "name": "bash", "arguments": sargs,
                                                     "type": "function"}],
                                   "outputTokens": 40, "parentToolCallId": task}, 1200, agent=task)
    log.emit("tool.execution_start", {"toolCallId": sintent, "toolName": "report_intent",
                                      "arguments": {"intent": "Running test suite"}, "model": "claude-haiku-4.5",
                                      "parentToolCallId": task}, 10, agent=task)
    log.emit("tool.execution_complete", {"toolCallId": sintent, "success": True, "model": "claude-haiku-4.5",
                                         "result": {"content": "Intent logged", "detailedContent": "Running test suite"},
                                         "parentToolCallId": task}, 3, agent=task)
    log.emit("tool.execution_start", {"toolCallId": run, "toolName": "bash", "arguments": sargs,
                                      "model": "claude-haiku-4.5", "parentToolCallId": task}, 10, agent=task)
    log.emit("tool.execution_complete", {"toolCallId": run, "success": True, "model": "claude-haiku-4.5",
                                         "result": {"content": "........\n8 passed in 0.11s\n"
                                                    "<shellId: 1 completed with exit code 0>"},
                                         "parentToolCallId": task}, 1500, agent=task)
    log.emit("assistant.message", {"messageId": uid("s2"), "model": "claude-haiku-4.5",
                                   "content": "All 8 tests passed.", "outputTokens": 9, "parentToolCallId": task},
             600, agent=task)
    log.emit("subagent.completed", {"toolCallId": task, "agentName": "task", "agentDisplayName": "Task",
                                    "model": "claude-haiku-4.5", "totalToolCalls": 1, "totalTokens": 3120,
                                    "durationMs": 3300}, 10, agent=task)
    log.emit("tool.execution_complete", {"toolCallId": task, "success": True, "model": MODEL, "turnId": "2",
                                         "result": {"content": "All 8 tests passed."}}, 5)
    push = call_id("push")
    pargs = {"command": "git push origin fix-dim", "description": "Push the branch"}
    log.emit("assistant.message", {"messageId": uid("m4"), "model": MODEL, "content": "The suite passes. I'll push "
                                   "the branch.", "toolRequests": [{"toolCallId": push, "name": "bash",
                                                                    "arguments": pargs, "type": "function"}],
                                   "outputTokens": 44, "turnId": "3"}, 1400)
    log.emit("tool.execution_start", {"toolCallId": push, "toolName": "bash", "arguments": pargs, "model": MODEL,
                                      "turnId": "3"}, 10)
    log.emit("permission.completed", {"requestId": uid("p1"), "toolCallId": push,
                                      "result": {"kind": "denied-interactively-by-user",
                                                 "feedback": "don't push yet"}}, 5200)
    refused = "The user rejected this tool call. User feedback: don't push yet"
    log.emit("tool.execution_complete", {"toolCallId": push, "success": False, "model": MODEL, "turnId": "3",
                                         "error": {"message": refused, "code": "denied"}}, 10)
    log.emit("assistant.turn_end", {"turnId": "3"}, 5)
    log.emit("abort", {"reason": "user_initiated"}, 800)
    shell = uid("user-shell")
    log.emit("tool.user_requested", {"toolCallId": shell, "toolName": "bash",
                                     "arguments": {"command": "git status --short", "description": "git status --short"}},
             9000)
    log.emit("tool.execution_complete", {"toolCallId": shell, "isUserRequested": True, "success": True,
                                         "result": {"content": " M lantern/dim.py\n"}}, 180)
    log.emit("session.model_change", {"previousModel": MODEL, "newModel": "gpt-5.1", "cause": "user"}, 6000)
    log.emit("session.compaction_start", {"systemTokens": 5200, "conversationTokens": 41000}, 3000)
    summary = ("<overview>The user asked to fix the failing dimmer test. dim() divided the level by 10; the "
               "division was removed and the suite passes. Pushing was declined.</overview>")
    log.emit("session.compaction_complete", {"success": True, "preCompactionTokens": 46200,
                                             "postCompactionTokens": 6100, "preCompactionMessagesLength": 23,
                                             "summaryContent": summary, "checkpointNumber": 1,
                                             "checkpointPath": f"/home/dev/.copilot/session-state/{sid}/checkpoints/"
                                             "001-fix-the-dimmer-test.md"}, 7000)
    log.emit("user.message", {"content": "Add a changelog line for the fix.", "attachments": [],
                               "agentMode": "interactive", "interactionId": uid("i2")}, 30000)
    cl = call_id("changelog")
    cargs = {"path": f"{CWD}/CHANGELOG.md", "file_text": "# Changelog\n\n- dim() returns a percentage again.\n"}
    log.emit("assistant.message", {"messageId": uid("m5"), "model": "gpt-5.1", "content": "",
                                   "toolRequests": [{"toolCallId": cl, "name": "create", "arguments": cargs,
                                                     "type": "function"}],
                                   "reasoningOpaque": "gAAAAABo-opaque-reasoning", "outputTokens": 61}, 2500)
    log.emit("tool.execution_start", {"toolCallId": cl, "toolName": "create", "arguments": cargs, "model": "gpt-5.1"},
             10)
    log.emit("tool.execution_complete", {"toolCallId": cl, "success": True, "model": "gpt-5.1",
                                         "result": {"content": f"Created file {CWD}/CHANGELOG.md with 52 characters"}},
             60)
    log.emit("assistant.message", {"messageId": uid("m6"), "model": "gpt-5.1",
                                   "content": "Added CHANGELOG.md with a line for the fix.", "outputTokens": 12}, 1300)
    log.emit("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": 3, "totalApiDurationMs": 21400,
                                  "sessionStartTime": 1779268442101,
                                  "codeChanges": {"linesAdded": 4, "linesRemoved": 1,
                                                  "filesModified": ["lantern/dim.py", "CHANGELOG.md"]},
                                  "modelMetrics": {}, "currentModel": "gpt-5.1"}, 4000)
    log.write(HERE / "session-state" / sid / "events.jsonl")


LEGACY_ID = uid("legacy:session")


def legacy_messages(cwd: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The chat messages and timeline of a 0.0.3xx session (the history-session document)."""
    ls = call_id("legacy-ls")
    args = json.dumps({"command": "ls src", "description": "List the sources", "sessionId": "main",
                       "async": False}, separators=(",", ":"))
    chat = [
        {"role": "system", "content": "You are GitHub Copilot CLI."},
        {"role": "user", "content": "What is in src?\n\n<reminder>\nThe current working directory is "
         f"{cwd}.\n</reminder>"},
        {"role": "assistant", "content": "I'll list it.", "tool_calls": [
            {"id": ls, "type": "function", "function": {"name": "bash", "arguments": args}}]},
        {"role": "tool", "content": "main.py\nutil.py\n<exited with exit code 0>", "tool_call_id": ls},
        {"role": "assistant", "content": "src holds main.py and util.py."},
    ]
    clock = Clock("2025-10-09T16:02:11.000Z")
    timeline = [
        {"type": "user", "text": "What is in src?", "id": uid("legacy:t1"), "timestamp": clock.tick(0)},
        {"type": "copilot", "text": "I'll list it.", "id": uid("legacy:t2"), "timestamp": clock.tick(2100)},
        {"type": "tool_call_requested", "callId": ls, "name": "bash", "toolTitle": "List the sources",
         "intentionSummary": "List the sources", "arguments": json.loads(args), "id": uid("legacy:t3"),
         "timestamp": clock.tick(50)},
        {"type": "tool_call_completed", "callId": ls, "name": "bash", "toolTitle": "List the sources",
         "intentionSummary": "List the sources", "result": {"type": "success", "log": "main.py\nutil.py"},
         "arguments": json.loads(args), "id": uid("legacy:t4"), "timestamp": clock.tick(300)},
        {"type": "copilot", "text": "src holds main.py and util.py.", "id": uid("legacy:t5"),
         "timestamp": clock.tick(1500)},
    ]
    return chat, timeline


def legacy_document() -> None:
    """A 0.0.341 session: history-session-state/session_<id>_<ms>.json (JSON.stringify(doc, null, 2))."""
    chat, timeline = legacy_messages("/home/dev/projects/quill")
    doc = {"sessionId": LEGACY_ID, "startTime": "2025-10-09T16:02:09.512Z", "chatMessages": chat,
           "timeline": timeline, "selectedModel": "claude-sonnet-4"}
    path = HERE / "history-session-state" / f"session_{LEGACY_ID}_1760025729512.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=2), "utf-8")


def flat() -> None:
    """A 0.0.35x session: session-state/<id>.jsonl, a legacy session imported when it was resumed."""
    sid = uid("flat:session")
    log = Log("flat", "2025-11-03T11:40:00.250Z")
    log.emit("session.start", {"sessionId": sid, "version": 1, "producer": "copilot-agent",
                               "copilotVersion": "0.0.354", "startTime": "2025-11-03T11:40:00.240Z",
                               "selectedModel": "claude-sonnet-4.5"}, 10)
    chat, timeline = legacy_messages("/home/dev/projects/quill")
    legacy = {"sessionId": uid("flat:legacy"), "startTime": "2025-10-02T08:00:00.000Z", "chatMessages": chat,
              "timeline": timeline, "selectedModel": "claude-sonnet-4"}
    log.emit("session.import_legacy", {"legacySession": legacy, "importTime": "2025-11-03T11:40:00.255Z",
                                       "sourceFile": "/home/dev/.copilot/history-session-state/"
                                       f"session_{legacy['sessionId']}_1759392000000.json"}, 5)
    log.emit("session.resume", {"resumeTime": "2025-11-03T11:40:00.260Z", "eventCount": 2}, 5)
    log.emit("user.message", {"content": "Now add a docstring to util.py.", "attachments": []}, 12000)
    log.emit("assistant.turn_start", {"turnId": "0"}, 10)
    ed = call_id("flat-edit")
    args = {"command": "str_replace", "path": "/home/dev/projects/quill/src/util.py", "old_str": "def slug(s):",
            "new_str": "def slug(s):\n    \"\"\"The lower-case, dash-joined form of s.\"\"\""}
    log.emit("assistant.message", {"messageId": uid("flat:m1"), "content": "",
                                   "toolRequests": [{"toolCallId": ed, "name": "str_replace_editor",
                                                     "arguments": args}]}, 2300)
    log.emit("tool.execution_start", {"toolCallId": ed, "toolName": "str_replace_editor", "arguments": args}, 10)
    log.emit("tool.execution_complete", {"toolCallId": ed, "success": False,
                                         "error": {"message": "No match found for old_str in util.py",
                                                   "code": "failure"}}, 30)
    log.emit("assistant.message", {"messageId": uid("flat:m2"), "content": "The function is not named as I "
                                   "thought; I stopped here."}, 1800)
    log.emit("assistant.turn_end", {"turnId": "0"}, 5)
    log.write(HERE / "session-state" / f"{sid}.jsonl")


if __name__ == "__main__":
    current()
    flat()
    legacy_document()
