"""Write the Roo Code sample task (sample_logs/roo_code/<task id>/), hand-made in the format Roo
Code writes (RooCodeInc/Roo-Code at cb83656718, April 2026: core/task-persistence/apiMessages.ts,
taskMessages.ts, TaskHistoryStore.ts; core/task/Task.ts; core/prompts/responses.ts;
core/tools/ExecuteCommandTool.ts; core/condense/index.ts). The work is invented.

    python sample_logs/roo_code/make_roo_samples.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TID = "019d8a3e-5f10-7c2a-9b41-3e6f0d2c7a18"
T = 1776160000000  # 14 April 2026, epoch ms as Roo Code writes `ts`
ENV = "<environment_details>\n# VSCode Visible Files\nsrc/slug.ts\n\n# Current Mode\n<slug>code</slug>\n" \
      "</environment_details>"


def say(ts: int, kind: str, text: str, **kw: Any) -> dict[str, Any]:
    return {"ts": ts, "type": "say", "say": kind, "text": text, **kw}


def ask(ts: int, kind: str, text: str) -> dict[str, Any]:
    return {"ts": ts, "type": "ask", "ask": kind, "text": text}


def req(ts: int, tin: int, tout: int) -> dict[str, Any]:
    return say(ts, "api_req_started", json.dumps({"apiProtocol": "anthropic", "tokensIn": tin, "tokensOut": tout,
                                                  "cacheWrites": 0, "cacheReads": tin // 2, "cost": 0.004}))


def call(cid: str, name: str, args: dict[str, Any], ts: int, *before: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": [*before, {"type": "tool_use", "id": cid, "name": name, "input": args}],
            "ts": ts}


def result(cid: str, text: str, ts: int, env: bool = False) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": cid, "content": text}]
    return {"role": "user", "content": content + ([{"type": "text", "text": ENV}] if env else []), "ts": ts}


def main() -> None:
    prompt = "slugify() keeps trailing dashes; make it strip them and add a test"
    test_out = ("Command executed in terminal within working directory '/home/dev/slugs'. Command execution was not "
                "successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\n"
                "FAIL src/slug.test.ts > strips trailing dashes\n  expected 'a-b-' to be 'a-b'\n")
    api = [
        {"role": "user", "content": [{"type": "text", "text": f"<user_message>\n{prompt}\n</user_message>"},
                                     {"type": "text", "text": ENV}], "ts": T, "condenseParent": "c1"},
        call("toolu_01", "read_file", {"path": "src/slug.ts"}, T + 4000,
             {"type": "reasoning", "text": "Look at the regex first.", "summary": []},
             {"type": "text", "text": "Reading the function."}) | {"condenseParent": "c1"},
        result("toolu_01", "File: src/slug.ts\n1 | export const slugify = (s: string) =>\n"
               "2 |   s.toLowerCase().replace(/[^a-z0-9]+/g, '-')", T + 5000) | {"condenseParent": "c1"},
        call("toolu_02", "execute_command", {"command": "npx vitest run src/slug.test.ts"}, T + 9000,
             {"type": "text", "text": "Running the test to see it fail."}) | {"condenseParent": "c1"},
        result("toolu_02", test_out, T + 14000, env=True) | {"condenseParent": "c1"},
        {"role": "user", "content": [
            {"type": "text", "text": "## Conversation Summary\nThe person wants slugify() to strip trailing dashes. "
             "src/slug.ts replaces runs of other characters with '-'; the test fails ('a-b-')."},
            {"type": "text", "text": ENV}], "ts": T + 14001, "isSummary": True, "condenseId": "c1"},
        call("toolu_03", "apply_diff", {"path": "src/slug.ts", "diff": "<<<<<<< SEARCH\n:start_line:2\n-------\n"
                                        "  s.toLowerCase().replace(/[^a-z0-9]+/g, '-')\n=======\n"
                                        "  s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')\n"
                                        ">>>>>>> REPLACE"}, T + 20000,
             {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo-invented-opaque-bytes"}),
        result("toolu_03", json.dumps({"status": "approved", "feedback": "also collapse double dashes"})
               + "\n\nChanges successfully applied to src/slug.ts", T + 26000),
        call("toolu_04", "execute_command", {"command": "git push origin main"}, T + 30000),
        result("toolu_04", json.dumps({"status": "denied", "message": "The user denied this operation."}), T + 33000),
        call("toolu_05", "attempt_completion", {"result": "slugify() now strips leading and trailing dashes."},
             T + 36000),
    ]
    ui = [
        say(T, "text", prompt), req(T + 10, 2100, 90), say(T + 3000, "reasoning", "Look at the regex first."),
        say(T + 3500, "text", "Reading the function."),
        ask(T + 3800, "tool", json.dumps({"tool": "readFile", "path": "src/slug.ts"})),
        say(T + 5500, "checkpoint_saved", "7c1e0a9"), req(T + 6000, 2600, 60),
        say(T + 8500, "text", "Running the test to see it fail."),
        ask(T + 8800, "command", "npx vitest run src/slug.test.ts"),
        say(T + 13000, "command_output", "FAIL src/slug.test.ts > strips trailing dashes"),
        say(T + 14001, "condense_context", "", contextCondense={
            "cost": 0.002, "prevContextTokens": 5100, "newContextTokens": 400,
            "summary": "The person wants slugify() to strip trailing dashes.", "condenseId": "c1"}),
        req(T + 15000, 900, 120), ask(T + 19000, "tool", json.dumps({"tool": "appliedDiff", "path": "src/slug.ts"})),
        say(T + 25000, "user_feedback", "also collapse double dashes"), req(T + 27000, 1100, 40),
        ask(T + 29500, "command", "git push origin main"), req(T + 34000, 1200, 30),
        say(T + 36000, "completion_result", "slugify() now strips leading and trailing dashes."),
        ask(T + 36001, "completion_result", ""),
    ]
    history = {"id": TID, "number": 7, "ts": T + 36001, "task": prompt, "tokensIn": 7900, "tokensOut": 340,
               "cacheWrites": 0, "cacheReads": 3950, "totalCost": 0.02, "size": 18234,
               "workspace": "/home/dev/slugs", "mode": "code", "status": "completed"}
    folder = Path(__file__).resolve().parent / TID
    folder.mkdir(exist_ok=True)
    for name, doc in (("api_conversation_history.json", api), ("ui_messages.json", ui),
                      ("history_item.json", history), ("task_metadata.json", {"files_in_context": [
                          {"path": "src/slug.ts", "record_state": "active", "record_source": "read_tool",
                           "roo_read_date": T + 5000, "roo_edit_date": T + 26000, "user_edit_date": None}]})):
        (folder / name).write_text(json.dumps(doc, ensure_ascii=False), "utf-8")  # compact, as safeWriteJson writes


if __name__ == "__main__":
    main()
