"""Write the Claude Code sample sessions in this folder (see ../README.md).

Every record below was written by hand by the forsy developers, in the record format that
public Claude Code session logs show for the version named in each sample. The work they
describe (projects, files, commands, outputs) is invented for testing and never happened;
no real log was copied. This script only serializes the records the way Claude Code does
(compact JSON, one record per line, non-ASCII kept as is; or, for the Stop-hook variant,
one JSON array indented by two spaces) and derives uuids, message ids and tool ids from
fixed labels, so the output is byte-for-byte the same on every run.

    python sample_logs/claude/make_claude_samples.py
"""

from __future__ import annotations

import difflib
import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
READ_REMINDER = ""  # 2.1.39 Read results seen without the trailing malware reminder


# ---------------------------------------------------------------- fixed ids


def _digest(label: str) -> bytes:
    return hashlib.sha256(f"forsy-sample:{label}".encode()).digest()


def uid(label: str) -> str:
    """A version-4-shaped uuid derived from a label (Claude Code writes random v4 uuids)."""
    return str(uuid.UUID(bytes=_digest(label)[:16], version=4))


def b58(label: str, n: int) -> str:
    v = int.from_bytes(_digest(label), "big")
    out = []
    for _ in range(n):
        v, r = divmod(v, 58)
        out.append(B58[r])
    return "".join(out)


def msg_id(label: str) -> str:
    return "msg_01" + b58("msg:" + label, 22)


def tool_id(label: str) -> str:
    return "toolu_01" + b58("tool:" + label, 22)


def req_id(label: str) -> str:
    return "req_011C" + b58("req:" + label, 20)


def hex_id(label: str, n: int) -> str:
    return _digest(label).hex()[:n]


class Clock:
    def __init__(self, start: str):
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)

    def tick(self, ms: int) -> str:
        self.t += timedelta(milliseconds=ms)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"


# ---------------------------------------------------------------- file contents


def numbered(text: str, start: int = 1) -> str:
    """A Read result: `cat -n` style, six-wide line numbers and an arrow."""
    lines = text.split("\n")
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines, start))


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Hunks in the shape Claude Code stores as `structuredPatch` (jsdiff, 3 lines of context)."""
    a, b = old.split("\n"), new.split("\n")
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + x for x in a[a1:a2]]
            else:
                lines += ["-" + x for x in a[a1:a2]]
                lines += ["+" + x for x in b[b1:b2]]
        hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1,
                      "lines": lines})
    return hunks


def edit_snippet(path: str, new: str, new_string: str) -> str:
    """The 1.0.x Edit result: a `cat -n` snippet around the edited lines."""
    at = new.index(new_string)
    first = new[:at].count("\n") + 1
    last = first + new_string.count("\n")
    lines = new.split("\n")
    lo, hi = max(1, first - 4), min(len(lines), last + 4)
    body = "\n".join(f"{i:>6}→{lines[i - 1]}" for i in range(lo, hi + 1))
    return (f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of "
            f"the edited file:\n{body}")


def edit_result(path: str, old_file: str, old: str, new: str) -> dict[str, Any]:
    new_file = old_file.replace(old, new, 1)
    return {"filePath": path, "oldString": old, "newString": new, "originalFile": old_file,
            "structuredPatch": structured_patch(old_file, new_file), "userModified": False,
            "replaceAll": False}


def read_result(path: str, text: str) -> dict[str, Any]:
    n = text.count("\n") + 1
    return {"type": "text", "file": {"filePath": path, "content": text, "numLines": n, "startLine": 1,
                                     "totalLines": n}}


# ---------------------------------------------------------------- sessions


class Log:
    """One transcript being written: envelopes in the key order of the chosen version."""

    def __init__(self, *, session_id: str, version: str, cwd: str, branch: str | None, clock: Clock,
                 model: str, sidechain: bool = False, agent_id: str | None = None):
        self.sid, self.version, self.cwd, self.branch = session_id, version, cwd, branch
        self.clock, self.model = clock, model
        self.sidechain, self.agent_id = sidechain, agent_id
        self.slug: str | None = None
        self.records: list[dict[str, Any]] = []
        self.v1 = version.startswith("1.")

    # envelopes -------------------------------------------------------------
    def env(self, parent: str | None, *, sidechain: bool | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {"parentUuid": parent,
                             "isSidechain": self.sidechain if sidechain is None else sidechain,
                             "userType": "external", "cwd": self.cwd, "sessionId": self.sid,
                             "version": self.version}
        if self.branch is not None:
            d["gitBranch"] = self.branch
        if self.agent_id:
            d["agentId"] = self.agent_id
        if self.slug:
            d["slug"] = self.slug
        return d

    def add(self, rec: dict[str, Any]) -> str:
        self.records.append(rec)
        return str(rec.get("uuid", ""))

    def usage(self, inp: int, cache_new: int, cache_read: int, out: int) -> dict[str, Any]:
        u: dict[str, Any] = {"input_tokens": inp, "cache_creation_input_tokens": cache_new,
                             "cache_read_input_tokens": cache_read}
        if self.version != "1.0.45":
            u["cache_creation"] = {"ephemeral_5m_input_tokens": cache_new, "ephemeral_1h_input_tokens": 0}
        u["output_tokens"] = out
        u["service_tier"] = "standard"
        if not self.v1:
            u["inference_geo"] = "not_available"
        return u

    # records ---------------------------------------------------------------
    def user(self, label: str, parent: str | None, content: Any, ms: int, *, typed: bool = False,
             meta: bool = False, result: Any = None, source: str | None = None,
             extra: dict[str, Any] | None = None, sidechain: bool | None = None) -> str:
        d = self.env(parent, sidechain=sidechain)
        d["type"] = "user"
        d["message"] = {"role": "user", "content": content}
        if meta:
            d["isMeta"] = True
        d.update(extra or {})
        d["uuid"] = uid(label)
        d["timestamp"] = self.clock.tick(ms)
        if result is not None:
            d["toolUseResult"] = result
        if source is not None and not self.v1:
            d["sourceToolAssistantUUID"] = source
        if typed and not self.v1:
            d["thinkingMetadata"] = {"maxThinkingTokens": 31999}
            d["todos"] = []
            d["permissionMode"] = "default"
        return self.add(d)

    def tool_result(self, label: str, parent: str, call: str, content: Any, result: Any, ms: int, *,
                    error: bool = False, bash: bool = False, source: str | None = None) -> str:
        block: dict[str, Any]
        if error:
            block = {"type": "tool_result", "content": content, "is_error": True, "tool_use_id": call}
        else:
            block = {"tool_use_id": call, "type": "tool_result", "content": content}
            if bash:
                block["is_error"] = False  # Bash results carry the flag even when it is false
        return self.user(label, parent, [block], ms, result=result, source=source or parent)

    def assistant(self, label: str, parent: str | None, msg: str, block: dict[str, Any], ms: int,
                  usage: dict[str, Any], *, model: str | None = None, stop: str | None = None,
                  sidechain: bool | None = None) -> str:
        if block.get("type") == "tool_use" and not self.v1:
            block = {**block, "caller": {"type": "direct"}}
        if not self.v1:
            stop = None  # 2.1.x writes every streamed line with stop_reason null
        m: dict[str, Any]
        if self.v1:
            m = {"id": msg_id(msg), "type": "message", "role": "assistant", "model": model or self.model}
        else:
            m = {"model": model or self.model, "id": msg_id(msg), "type": "message", "role": "assistant"}
        m.update({"content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
        d = self.env(parent, sidechain=sidechain)
        ts = self.clock.tick(ms)
        if self.version == "1.0.45":
            d.update({"type": "assistant", "timestamp": ts, "message": m, "requestId": req_id(msg),
                      "uuid": uid(label)})
        else:
            d.update({"message": m, "requestId": req_id(msg), "type": "assistant", "uuid": uid(label),
                      "timestamp": ts})
        return self.add(d)

    def hook_progress(self, label: str, parent: str | None, event: str, name: str, command: str,
                      tool_use: str, ms: int) -> str:
        d = self.env(parent)
        d.update({"type": "progress",
                  "data": {"type": "hook_progress", "hookEvent": event, "hookName": name, "command": command},
                  "parentToolUseID": tool_use, "toolUseID": tool_use, "uuid": uid(label),
                  "timestamp": self.clock.tick(ms)})
        return self.add(d)

    def turn_duration(self, label: str, parent: str, prompt: str, ms: int) -> str:
        """The turn's wall time, from the prompt record `prompt` to now."""
        ts = self.clock.tick(ms)
        start = next(r["timestamp"] for r in self.records if r.get("uuid") == prompt)
        dur = datetime.fromisoformat(ts.replace("Z", "+00:00")) - datetime.fromisoformat(start.replace("Z", "+00:00"))
        d = self.env(parent)
        d.update({"type": "system", "subtype": "turn_duration", "durationMs": dur // timedelta(milliseconds=1),
                  "timestamp": ts, "uuid": uid(label), "isMeta": False})
        return self.add(d)

    def hook_system(self, label: str, parent: str, content: str, tool_use: str, ms: int) -> str:
        """A 1.0.x hook notice, written as a system record in the parent chain."""
        d = self.env(parent)
        d.update({"type": "system", "content": content, "isMeta": False, "timestamp": self.clock.tick(ms),
                  "uuid": uid(label), "toolUseID": tool_use, "level": "info"})
        return self.add(d)

    def snapshot(self, message_id: str, prompt_id: str, ts: str, backups: dict[str, Any],
                 update: bool) -> None:
        self.add({"type": "file-history-snapshot", "messageId": message_id,
                  "snapshot": {"messageId": prompt_id, "trackedFileBackups": backups, "timestamp": ts},
                  "isSnapshotUpdate": update})


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def call(label: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id(label), "name": name, "input": inp}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    path.write_bytes(data.encode("utf-8"))


# ================================================================ 1. demo-session (2.1.39)

SLUG_PY = '''import re


def slugify(text: str) -> str:
    """Lower-case `text` and join its words with single dashes."""
    return re.sub(r"[^a-z0-9]", "-", text.lower()).strip("-")
'''
SLUG_OLD = '    return re.sub(r"[^a-z0-9]", "-", text.lower()).strip("-")'
SLUG_NEW = '    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")'
PYTEST_FAIL = """.F                                                                       [100%]
=================================== FAILURES ===================================
_______________________________ test_punctuation _______________________________

    def test_punctuation():
>       assert slugify("Hello,  World!") == "hello-world"
E       AssertionError: assert 'hello---world' == 'hello-world'
E{9 spaces}
E         - hello-world
E         + hello---world
E         ?       ++

tests/test_slug.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_slug.py::test_punctuation - AssertionError: assert 'hello--...
1 failed, 1 passed in 0.03s""".replace("{9 spaces}", " " * 9)  # pytest prints that line with trailing spaces
PYTEST_PASS = """..                                                                       [100%]
2 passed in 0.02s"""


def demo_session() -> list[dict[str, Any]]:
    cwd = "/home/dev/projects/textkit"
    slug_path = f"{cwd}/textkit/slug.py"
    log = Log(session_id=uid("demo/session"), version="2.1.39", cwd=cwd, branch="main",
              clock=Clock("2026-02-16T09:14:02.118Z"), model="claude-opus-4-6")
    c = log.clock
    u1 = uid("demo/u1")
    hook = log.hook_progress("demo/hook-start", None, "SessionStart", "SessionStart:startup",
                             "$HOME/.claude/hooks/session-start.sh", uid("demo/hook-start-id"), 0)
    log.snapshot(u1, u1, c.tick(4150), {}, False)
    log.records.insert(0, log.records.pop())  # the snapshot line comes first in the file, as Claude Code writes it
    log.user("demo/u1", hook, "slugify() in textkit/slug.py turns \"Hello,  World!\" into \"hello---world\". "
             "Runs of spaces and punctuation should become a single dash. Can you fix it and make sure the "
             "tests pass?", 60, typed=True)
    us = log.usage(3, 4120, 11876, 9)
    a = log.assistant("demo/a1-think", u1, "demo/m1", {
        "type": "thinking",
        "thinking": "Runs of separators produce several dashes, so the regex in slugify probably replaces "
                    "one character at a time. I'll read the function and run the tests to see the failure "
                    "before changing anything.",
        "signature": "EpYCCkYIBxgCKkB" + b58("sig1", 40)}, 2310, us)
    a = log.assistant("demo/a1-text", a, "demo/m1",
                      text("I'll read the function and run the tests to see the failure."), 420, us)
    read = call("demo/read", "Read", {"file_path": slug_path})
    a_read = log.assistant("demo/a1-read", a, "demo/m1", read, 380, us)
    p = log.hook_progress("demo/hook-pre-read", a_read, "PreToolUse", "PreToolUse:Read",
                          "$HOME/.claude/hooks/log-tool.sh", read["id"], 4)
    bash1 = call("demo/bash1", "Bash", {"command": "python -m pytest -q", "description": "Run the test suite"})
    a_bash = log.assistant("demo/a1-bash", p, "demo/m1", bash1, 510, log.usage(3, 4120, 11876, 188),
                           stop="tool_use")
    log.tool_result("demo/r-read", a_read, read["id"], numbered(SLUG_PY) + READ_REMINDER,
                    read_result(slug_path, SLUG_PY), 40)
    r = log.tool_result("demo/r-bash1", a_bash, bash1["id"], "Exit code 1\n" + PYTEST_FAIL,
                        "Error: Exit code 1\n" + PYTEST_FAIL, 1630, error=True)
    us = log.usage(1, 1297, 15996, 221)
    a = log.assistant("demo/a2-text", r, "demo/m2", text(
        "The pattern `[^a-z0-9]` replaces each separator character with its own dash, so `\",  \"` becomes "
        "three dashes. Matching whole runs with `[^a-z0-9]+` gives one dash per run."), 3050, us)
    edit = call("demo/edit", "Edit", {"file_path": slug_path, "old_string": SLUG_OLD, "new_string": SLUG_NEW,
                                      "replace_all": False})
    a_edit = log.assistant("demo/a2-edit", a, "demo/m2", edit, 1220, us, stop="tool_use")
    log.snapshot(a_edit, u1, log.records[0]["snapshot"]["timestamp"],
                 {"textkit/slug.py": {"backupFileName": hex_id("demo/backup", 16) + "@v1", "version": 1,
                                      "backupTime": c.tick(30)}}, True)
    r = log.tool_result("demo/r-edit", a_edit, edit["id"],
                        f"The file {slug_path} has been updated successfully.",
                        edit_result(slug_path, SLUG_PY, SLUG_OLD, SLUG_NEW), 25)
    bash2 = call("demo/bash2", "Bash", {"command": "python -m pytest -q", "description": "Re-run the tests"})
    a = log.assistant("demo/a3-bash", r, "demo/m3", bash2, 2140, log.usage(1, 402, 17293, 82),
                      stop="tool_use")
    r = log.tool_result("demo/r-bash2", a, bash2["id"], PYTEST_PASS,
                        {"stdout": PYTEST_PASS, "stderr": "", "interrupted": False, "isImage": False,
                         "noOutputExpected": False}, 1480, bash=True)
    a = log.assistant("demo/a4-text", r, "demo/m4", text(
        "Fixed. In `textkit/slug.py` the pattern now matches runs of separators (`[^a-z0-9]+`), so "
        "`slugify(\"Hello,  World!\")` returns `hello-world`. Both tests pass."), 2380,
        log.usage(1, 121, 17695, 57), stop="end_turn")
    log.slug = "tidy-dashing-otter"
    td = log.turn_duration("demo/td1", a, u1, 160)
    # ---- turn 2
    u2 = uid("demo/u2")
    log.snapshot(u2, u2, c.tick(41200), {"textkit/slug.py": {
        "backupFileName": hex_id("demo/backup", 16) + "@v2", "version": 2, "backupTime": c.tick(12)}}, False)
    log.user("demo/u2", td, "Does it keep accented letters? \"Café au lait\" should give \"cafe-au-lait\".", 60,
             typed=True)
    bash3 = call("demo/bash3", "Bash", {
        "command": "python -c \"from textkit.slug import slugify; print(slugify('Café au lait'))\"",
        "description": "Try an accented input"})
    a = log.assistant("demo/a5-bash", u2, "demo/m5", bash3, 2710, log.usage(3, 310, 17816, 96),
                      stop="tool_use")
    r = log.tool_result("demo/r-bash3", a, bash3["id"], "caf-au-lait",
                        {"stdout": "caf-au-lait", "stderr": "", "interrupted": False, "isImage": False,
                         "noOutputExpected": False}, 690, bash=True)
    a = log.assistant("demo/a6-text", r, "demo/m6", text(
        "No. `é` is not in `[a-z0-9]`, so it counts as a separator and is dropped: \"Café au lait\" gives "
        "`caf-au-lait`. To get `cafe-au-lait`, slugify would have to strip accents first, for example with "
        "`unicodedata.normalize(\"NFKD\", text).encode(\"ascii\", \"ignore\").decode()`. I haven't changed "
        "that; tell me if you want it."), 3320, log.usage(1, 140, 18126, 118), stop="end_turn")
    log.turn_duration("demo/td2", a, u2, 150)
    return log.records


# ================================================================ 2. subagents (2.1.39, new layout)

SETTINGS_PY = '''from dataclasses import dataclass
import os


@dataclass
class Settings:
    """Runtime settings, read from HOOKSHOT_* environment variables."""

    endpoint_timeout: float = 10.0
    backoff_base: float = 2.0
    # attempts per delivery, the first one included
    max_retries: int = 5

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(max_retries=int(os.environ.get("HOOKSHOT_MAX_RETRIES", cls.max_retries)))
'''
GREP_OUT = ("hookshot/settings.py:12:    max_retries: int = 5\n"
            "hookshot/delivery.py:41:        if attempt >= settings.max_retries:\n"
            "tests/test_delivery.py:22:    settings.max_retries = 2")
TASK_PROMPT = ("Find where the maximum number of delivery attempts for outgoing webhooks is configured in "
               "this repository. Report the file and line of the setting, its default value, and every "
               "place in the code and tests that reads it. Do not modify any files.")
REPORT = ("The retry limit is `Settings.max_retries` in `hookshot/settings.py:12`, default `5` (the comment "
          "says it counts the first attempt too). `Settings.from_env()` (line 16) overrides it from the "
          "`HOOKSHOT_MAX_RETRIES` environment variable.\n\nReaders:\n"
          "- `hookshot/delivery.py:41`: `if attempt >= settings.max_retries:` stops retrying.\n"
          "- `tests/test_delivery.py:22`: sets it to `2` for the retry test.\n\nNo files were changed.")
AGENT_ID = "a" + hex_id("sub/agent", 6)


def subagent_sessions() -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    cwd = "/home/dev/projects/hookshot"
    sid = uid("sub/session")
    clock = Clock("2026-02-17T15:40:11.502Z")
    main = Log(session_id=sid, version="2.1.39", cwd=cwd, branch="main", clock=clock, model="claude-opus-4-6")
    side = Log(session_id=sid, version="2.1.39", cwd=cwd, branch="main", clock=clock,
               model="claude-haiku-4-5-20251001", sidechain=True, agent_id=AGENT_ID)
    c = clock
    u1 = uid("sub/u1")
    main.snapshot(u1, u1, c.tick(0), {}, False)
    main.user("sub/u1", None, "Where is the retry limit for webhook deliveries set, and what reads it? "
              "Don't change anything yet.", 55, typed=True)
    us = main.usage(3, 3904, 11876, 7)
    a = main.assistant("sub/a1-text", u1, "sub/m1", text("I'll have an Explore agent track it down."), 2650, us)
    task = call("sub/task", "Task", {"description": "Find webhook retry limit", "prompt": TASK_PROMPT,
                                     "subagent_type": "Explore"})
    a_task = main.assistant("sub/a1-task", a, "sub/m1", task, 1380, main.usage(3, 3904, 11876, 151),
                            stop="tool_use")
    # ---- the subagent's own transcript (subagents/agent-<id>.jsonl)
    s1 = side.user("sub/s1", None, TASK_PROMPT, 4)
    # 2.1.x copies each subagent message into the parent log as an agent_progress record
    prog = main.env(a_task)
    prog.update({"type": "progress", "data": {
        "message": {"type": "user", "message": {"role": "user", "content": [text(TASK_PROMPT)]},
                    "uuid": s1, "timestamp": side.records[-1]["timestamp"]},
        "normalizedMessages": [], "type": "agent_progress", "prompt": TASK_PROMPT, "agentId": AGENT_ID},
        "toolUseID": "agent_" + msg_id("sub/m1"), "parentToolUseID": task["id"], "uuid": uid("sub/prog1"),
        "timestamp": side.records[-1]["timestamp"]})
    main.add(prog)
    us = side.usage(3, 9870, 0, 4)
    s = side.assistant("sub/s2-text", s1, "sub/sm1",
                       text("I'll search for the retry setting, then read where it is defined."), 2120, us)
    grep = call("sub/grep", "Grep", {"pattern": "max_retries|MAX_RETRIES", "path": cwd, "output_mode": "content",
                                     "-n": True})
    s = side.assistant("sub/s3-grep", s, "sub/sm1", grep, 610, side.usage(3, 9870, 0, 142), stop="tool_use")
    s = side.tool_result("sub/s4-r", s, grep["id"], GREP_OUT,
                         {"mode": "content", "numFiles": 0, "filenames": [], "content": GREP_OUT, "numLines": 3},
                         180)
    read = call("sub/read", "Read", {"file_path": f"{cwd}/hookshot/settings.py"})
    s = side.assistant("sub/s5-read", s, "sub/sm2", read, 1740, side.usage(1, 301, 9870, 77), stop="tool_use")
    s = side.tool_result("sub/s6-r", s, read["id"], numbered(SETTINGS_PY),
                         read_result(f"{cwd}/hookshot/settings.py", SETTINGS_PY), 35)
    side.assistant("sub/s7-text", s, "sub/sm3", text(REPORT), 3860, side.usage(1, 562, 10171, 164),
                   stop="end_turn")
    # ---- back in the parent
    footer = (f"agentId: {AGENT_ID} (for resuming to continue this agent's work if needed)\n"
              "<usage>total_tokens: 14872\ntool_uses: 2\nduration_ms: 9840</usage>")
    r = main.tool_result("sub/r-task", a_task, task["id"], [text(REPORT), text(footer)], {
        "status": "completed", "prompt": TASK_PROMPT, "agentId": AGENT_ID, "content": [text(REPORT)],
        "totalDurationMs": 9840, "totalTokens": 14872, "totalToolUseCount": 2,
        "usage": {"input_tokens": 1, "cache_creation_input_tokens": 562, "cache_read_input_tokens": 10171,
                  "output_tokens": 164, "service_tier": "standard",
                  "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 562}}}, 90)
    main.slug = "quiet-roaming-heron"
    main.assistant("sub/a2-text", r, "sub/m2", text(
        "It's `max_retries` in `hookshot/settings.py` (line 12): default 5 attempts, the first one included, "
        "and `HOOKSHOT_MAX_RETRIES` overrides it. The only reader in the code is `hookshot/delivery.py:41`, "
        "which stops retrying once `attempt >= settings.max_retries`; `tests/test_delivery.py:22` lowers it "
        "to 2 for the retry test. Nothing was changed."), 4310, main.usage(1, 688, 16020, 104),
        stop="end_turn")
    return sid, main.records, side.records


# ================================================================ 3. legacy inline sidechain (1.0.98)

PARSE_PY = '''import re

_UNITS = {"s": 1, "m": 60, "h": 3600}
_PATTERN = re.compile(r"^(\\d+)([smh])$")


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "90s", "15m" or "2h"."""
    m = _PATTERN.match(text.strip())
    if m is None:
        raise ValueError(f"not a duration: {text!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]
'''
PARSE_OLD = '''_PATTERN = re.compile(r"^(\\d+)([smh])$")


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "90s", "15m" or "2h"."""
    m = _PATTERN.match(text.strip())
    if m is None:
        raise ValueError(f"not a duration: {text!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]'''
PARSE_NEW = '''_PART = re.compile(r"(\\d+)([smh])")


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "90s", "15m", "2h" or "1h30m"."""
    s = text.strip()
    parts = _PART.findall(s)
    if not parts or "".join(n + u for n, u in parts) != s:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _UNITS[u] for n, u in parts)'''
TEST_PY = '''import pytest

from durations.parse import parse_duration


def test_single_units():
    assert parse_duration("90s") == 90
    assert parse_duration("15m") == 900
    assert parse_duration("2h") == 7200


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")
'''
TEST_OLD = '''def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")'''
TEST_NEW = TEST_OLD + '''


def test_compound():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2m5s") == 125'''
LEGACY_PROMPT = ("Find the function parse_duration in this repository. Show its full source and list the test "
                 "files that cover it. Do not change any files.")
LEGACY_REPORT = ("`parse_duration` is defined in `durations/parse.py` (lines 7-12):\n\n```python\n"
                 + PARSE_PY.split("\n\n\n")[1].rstrip("\n") + "\n```\n\n"
                 "It matches the whole input against `_PATTERN = re.compile(r\"^(\\d+)([smh])$\")`, i.e. exactly "
                 "one number followed by one unit, and converts with `_UNITS = {\"s\": 1, \"m\": 60, \"h\": 3600}`."
                 "\n\nThe only test file that uses it is `tests/test_parse.py`.")


def legacy_session() -> list[dict[str, Any]]:
    cwd = "/home/dev/projects/durations"
    log = Log(session_id=uid("legacy/session"), version="1.0.98", cwd=cwd, branch="main",
              clock=Clock("2025-09-08T07:21:44.310Z"), model="claude-sonnet-4-20250514")
    log.add({"type": "summary", "summary": "Compound durations in parse_duration",
             "leafUuid": uid("legacy/a6-text")})
    # a Warmup sidechain (cache priming), not work
    w = log.user("legacy/warmup", None, "Warmup", 0, sidechain=True)
    log.assistant("legacy/warmup-reply", w, "legacy/wm", text(
        "I'm ready to help. I can search and read files in /home/dev/projects/durations; tell me what you "
        "need."), 1430, log.usage(4, 0, 9021, 26), model="claude-3-5-haiku-20241022", sidechain=True)
    cmd = log.user("legacy/cmd", None, "<command-message>fix-issue is running…</command-message>\n"
                   "<command-name>/fix-issue</command-name>\n"
                   "<command-args>parse_duration rejects \"1h30m\"</command-args>", 2150)
    exp = log.user("legacy/cmd-expansion", cmd, [text(
        "Fix this issue: parse_duration rejects \"1h30m\"\n\nSteps:\n1. Find the code involved.\n"
        "2. Add a failing test.\n3. Fix the code and run the test suite.\n")], 0, meta=True)
    us = log.usage(3, 1287, 13960, 6)
    a = log.assistant("legacy/a1-text", exp, "legacy/m1",
                      text("I'll have a subagent find the parser and its tests first."), 2870, us)
    task = call("legacy/task", "Task", {"subagent_type": "general-purpose", "description": "Find duration parser",
                                        "prompt": LEGACY_PROMPT})
    a_task = log.assistant("legacy/a1-task", a, "legacy/m1", task, 1910, log.usage(3, 1287, 13960, 139),
                           stop="tool_use")
    # the subagent, written inline as isSidechain lines (1.0.x): its root is the Task prompt
    s = log.user("legacy/s1", None, LEGACY_PROMPT, 40, sidechain=True)
    grep = call("legacy/grep", "Grep", {"pattern": "parse_duration"})
    s = log.assistant("legacy/s2-grep", s, "legacy/sm1", grep, 2260, log.usage(3, 10544, 0, 61),
                      sidechain=True)
    found = f"Found 2 files\n{cwd}/durations/parse.py\n{cwd}/tests/test_parse.py"
    gr = {"mode": "files_with_matches", "filenames": [f"{cwd}/durations/parse.py", f"{cwd}/tests/test_parse.py"],
          "numFiles": 2}
    s = log.user("legacy/s3-r", s, [{"tool_use_id": grep["id"], "type": "tool_result", "content": found}], 150,
                 result=gr, sidechain=True)
    read = call("legacy/s-read", "Read", {"file_path": f"{cwd}/durations/parse.py"})
    s = log.assistant("legacy/s4-read", s, "legacy/sm2", read, 1650, log.usage(6, 167, 10544, 75),
                      sidechain=True)
    s = log.user("legacy/s5-r", s, [{"tool_use_id": read["id"], "type": "tool_result",
                                     "content": numbered(PARSE_PY)}], 30,
                 result=read_result(f"{cwd}/durations/parse.py", PARSE_PY), sidechain=True)
    log.assistant("legacy/s6-text", s, "legacy/sm3", text(LEGACY_REPORT), 4410, log.usage(6, 402, 10711, 231),
                  sidechain=True)
    r = log.user("legacy/r-task", a_task, [{"tool_use_id": task["id"], "type": "tool_result",
                                            "content": [text(LEGACY_REPORT)]}], 60, result={
        "content": [text(LEGACY_REPORT)], "totalDurationMs": 8620, "totalTokens": 11350, "totalToolUseCount": 2,
        "usage": log.usage(6, 402, 10711, 231)})
    # two Reads in one message: in 1.0.x the second result chains from the first
    us = log.usage(7, 612, 15247, 8)
    a = log.assistant("legacy/a2-text", r, "legacy/m2", text(
        "`_PATTERN` accepts exactly one number and one unit, so \"1h30m\" is rejected. I'll read both files, "
        "add a failing test, then fix the parser."), 3120, us)
    rt = call("legacy/read-test", "Read", {"file_path": f"{cwd}/tests/test_parse.py"})
    rp = call("legacy/read-parse", "Read", {"file_path": f"{cwd}/durations/parse.py"})
    a = log.assistant("legacy/a2-read1", a, "legacy/m2", rt, 640, us)
    a = log.assistant("legacy/a2-read2", a, "legacy/m2", rp, 20, log.usage(7, 612, 15247, 121),
                      stop="tool_use")
    r = log.user("legacy/r-read1", a, [{"tool_use_id": rt["id"], "type": "tool_result",
                                        "content": numbered(TEST_PY)}], 30,
                 result=read_result(f"{cwd}/tests/test_parse.py", TEST_PY))
    r = log.user("legacy/r-read2", r, [{"tool_use_id": rp["id"], "type": "tool_result",
                                        "content": numbered(PARSE_PY)}], 3,
                 result=read_result(f"{cwd}/durations/parse.py", PARSE_PY))
    e1 = call("legacy/edit-test", "Edit", {"file_path": f"{cwd}/tests/test_parse.py", "old_string": TEST_OLD,
                                           "new_string": TEST_NEW})
    a = log.assistant("legacy/a3-edit", r, "legacy/m3", e1, 3480, log.usage(6, 1043, 15859, 187),
                      stop="tool_use")
    new_test = TEST_PY.replace(TEST_OLD, TEST_NEW, 1)
    r = log.user("legacy/r-edit1", a, [{"tool_use_id": e1["id"], "type": "tool_result",
                                        "content": edit_snippet(f"{cwd}/tests/test_parse.py", new_test, TEST_NEW)}],
                 60, result=edit_result(f"{cwd}/tests/test_parse.py", TEST_PY, TEST_OLD, TEST_NEW))
    e2 = call("legacy/edit-parse", "Edit", {"file_path": f"{cwd}/durations/parse.py", "old_string": PARSE_OLD,
                                            "new_string": PARSE_NEW})
    a = log.assistant("legacy/a4-edit", r, "legacy/m4", e2, 4020, log.usage(6, 433, 16902, 342),
                      stop="tool_use")
    new_parse = PARSE_PY.replace(PARSE_OLD, PARSE_NEW, 1)
    r = log.user("legacy/r-edit2", a, [{"tool_use_id": e2["id"], "type": "tool_result",
                                        "content": edit_snippet(f"{cwd}/durations/parse.py", new_parse, PARSE_NEW)}],
                 70, result=edit_result(f"{cwd}/durations/parse.py", PARSE_PY, PARSE_OLD, PARSE_NEW))
    bash = call("legacy/bash", "Bash", {"command": "python -m pytest -q", "description": "Run the test suite"})
    a = log.assistant("legacy/a5-bash", r, "legacy/m5", bash, 2760, log.usage(6, 781, 17335, 79),
                      stop="tool_use")
    out = "...                                                                      [100%]\n3 passed in 0.02s"
    r = log.user("legacy/r-bash", a, [{"tool_use_id": bash["id"], "type": "tool_result", "content": out,
                                       "is_error": False}], 1390,
                 result={"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
    log.assistant("legacy/a6-text", r, "legacy/m6", text(
        "Fixed. `parse_duration` now reads every number-unit pair (`1h30m` → 5400 seconds) and still rejects "
        "anything else, including leftovers such as `1h30`. I added `test_compound` to `tests/test_parse.py`; "
        "all 3 tests pass."), 3050, log.usage(6, 195, 18116, 71))
    return log.records


# ================================================================ 4. compaction and branches (2.1.39)

ISSUE = json.dumps({"number": 42, "title": "CSV export has no header row", "state": "open",
                    "body": "Since 0.9, `widgets export --csv out.csv` writes the rows but not the header line. "
                            "0.8 was fine.", "labels": [{"name": "bug"}], "user": {"login": "reporter-1"}},
                   indent=2)
WRITER_PY = '''import csv
from pathlib import Path


def write_rows(path: Path, header: list[str], rows: list[list[str]]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.writer(f)
        if new and f.tell():
            w.writerow(header)
        w.writerows(rows)
'''
WRITER_OLD = "        if new and f.tell():"
WRITER_NEW = "        if new or f.tell() == 0:"
REJECT = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
          "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
          "tell you how to proceed.")
NOT_FOUND = "Exit code 4\nERROR: file or directory not found: tests/test_export.py\n\n\nno tests ran in 0.01s"
SUMMARY = """This session is being continued from a previous conversation that ran out of context. \
The summary below covers the earlier portion of the conversation.

Analysis:
The user reported issue #42 in acme/widgets: the CSV export writes rows but no header. I read the issue \
with the GitHub tool and tried to run tests/test_export.py, which does not exist. I proposed to install the \
package to reproduce the bug; the user rejected that (no installs) and pointed to widgets/writer.py. There \
`write_rows` opens the file in append mode and wrote the header only when `new and f.tell()`, which is \
never true for a new, empty file. I changed the condition to `if new or f.tell() == 0:`.

Summary:
1. Primary Request and Intent: fix the missing CSV header (issue #42) in widgets/writer.py; install nothing.
2. Files and Code Sections: widgets/writer.py, `write_rows` header condition fixed.
3. Errors and fixes: tests/test_export.py does not exist.
4. Pending Tasks: none.
5. Current Work: the fix in widgets/writer.py is done."""


def compaction_session() -> list[dict[str, Any]]:
    cwd = "/home/dev/projects/widgets"
    writer_path = f"{cwd}/widgets/writer.py"
    log = Log(session_id=uid("comp/session"), version="2.1.39", cwd=cwd, branch="fix-csv-header",
              clock=Clock("2026-02-18T10:02:37.940Z"), model="claude-opus-4-6")
    c = log.clock
    u1 = uid("comp/u1")
    log.snapshot(u1, u1, c.tick(0), {}, False)
    log.user("comp/u1", None, "The CSV export drops the header row, it's issue #42 in acme/widgets. Can you fix "
             "it?", 48, typed=True)
    us = log.usage(3, 5230, 11876, 8)
    a = log.assistant("comp/a1-text", u1, "comp/m1", text("Let me read the issue first."), 2410, us)
    gh = call("comp/gh", "mcp__github__get_issue", {"owner": "acme", "repo": "widgets", "issue_number": 42})
    a = log.assistant("comp/a1-gh", a, "comp/m1", gh, 690, log.usage(3, 5230, 11876, 104), stop="tool_use")
    r = log.tool_result("comp/r-gh", a, gh["id"], [text(ISSUE)], [text(ISSUE)], 820)
    bash = call("comp/bash1", "Bash", {"command": "python -m pytest tests/test_export.py -q",
                                       "description": "Run the export tests"})
    a = log.assistant("comp/a2-bash", r, "comp/m2", bash, 2980, log.usage(1, 388, 17106, 96), stop="tool_use")
    r = log.tool_result("comp/r-bash1", a, bash["id"], NOT_FOUND, "Error: " + NOT_FOUND, 1210, error=True)
    us = log.usage(1, 270, 17494, 16)
    a = log.assistant("comp/a3-text", r, "comp/m3", text(
        "There is no tests/test_export.py. I'll reproduce the bug with the CLI instead."), 3770, us)
    repro = call("comp/bash-repro", "Bash", {
        "command": "pip install -e . && widgets export --csv /tmp/out.csv && head -3 /tmp/out.csv",
        "description": "Install the package and reproduce the missing header"})
    a = log.assistant("comp/a3-bash", a, "comp/m3", repro, 1150, log.usage(1, 270, 17494, 121))
    r = log.tool_result("comp/r-reject", a, repro["id"], REJECT, "User rejected tool use", 5230, error=True)
    intr = log.user("comp/interrupt1", r, [text("[Request interrupted by user for tool use]")], 2)
    # ---- turn 2: the user's correction
    u2 = uid("comp/u2")
    u2_snap = c.tick(14870)
    log.snapshot(u2, u2, u2_snap, {}, False)
    log.user("comp/u2", intr, "Don't install anything. The header gets lost in widgets/writer.py when the file "
             "is opened in append mode. Fix it there.", 40, typed=True)
    read = call("comp/read", "Read", {"file_path": writer_path})
    a = log.assistant("comp/a4-read", u2, "comp/m4", read, 2650, log.usage(3, 742, 17764, 70), stop="tool_use")
    r = log.tool_result("comp/r-read", a, read["id"], numbered(WRITER_PY), read_result(writer_path, WRITER_PY), 30)
    us = log.usage(1, 391, 18506, 25)
    a = log.assistant("comp/a5-text", r, "comp/m5", text(
        "Found it: for a new file `f.tell()` is 0 right after opening, so `new and f.tell()` is never true and "
        "the header is never written. It should be written whenever the file is empty."), 4120, us)
    ed = call("comp/edit-writer", "Edit", {"file_path": writer_path, "old_string": WRITER_OLD,
                                           "new_string": WRITER_NEW, "replace_all": False})
    a_ed = log.assistant("comp/a5-edit", a, "comp/m5", ed, 980, log.usage(1, 391, 18506, 188), stop="tool_use")
    log.snapshot(a_ed, u2, u2_snap,
                 {"widgets/writer.py": {"backupFileName": hex_id("comp/backup", 16) + "@v1", "version": 1,
                                        "backupTime": c.tick(25)}}, True)
    r = log.tool_result("comp/r-edit", a_ed, ed["id"], f"The file {writer_path} has been updated successfully.",
                        edit_result(writer_path, WRITER_PY, WRITER_OLD, WRITER_NEW), 30)
    done = log.assistant("comp/a6-text", r, "comp/m6", text(
        "Fixed in `widgets/writer.py`: the header is now written when the file is new or empty "
        "(`if new or f.tell() == 0:`), so `widgets export --csv` starts with the header again."), 2890,
        log.usage(1, 204, 18897, 52), stop="end_turn")
    log.slug = "brisk-folding-lantern"
    # ---- compaction: the chain restarts (parentUuid null), logicalParentUuid keeps the link
    b = {"parentUuid": None, "logicalParentUuid": done, **log.env(None)}
    b.update({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
              "isMeta": False, "timestamp": c.tick(38200), "uuid": uid("comp/boundary"), "level": "info",
              "compactMetadata": {"trigger": "auto", "preTokens": 167212}})
    boundary = log.add(b)
    summary = log.user("comp/summary", boundary, SUMMARY, 0,
                       extra={"isVisibleInTranscriptOnly": True, "isCompactSummary": True})
    # ---- turn 3, later rewound: the user went back to the summary and asked something else
    u3 = uid("comp/u3")
    log.snapshot(u3, u3, c.tick(20400), {}, False)
    log.user("comp/u3", summary, "Add a regression test for the header.", 30, typed=True)
    us = log.usage(3, 2904, 11876, 12)
    a = log.assistant("comp/a7-text", u3, "comp/m7", text(
        "I'll add a test that writes to a new file and checks the first line is the header."), 2570, us)
    wr = call("comp/write-test", "Write", {"file_path": f"{cwd}/tests/unit/test_writer_header.py", "content": (
        "from widgets.writer import write_rows\n\n\ndef test_new_file_gets_header(tmp_path):\n"
        "    p = tmp_path / \"out.csv\"\n    write_rows(p, [\"id\", \"name\"], [[\"1\", \"a\"]])\n"
        "    assert p.read_text().splitlines()[0] == \"id,name\"\n")})
    a = log.assistant("comp/a7-write", a, "comp/m7", wr, 1840, log.usage(3, 2904, 11876, 160), stop="tool_use")
    log.tool_result("comp/r-write", a, wr["id"], f"File created successfully at: {wr['input']['file_path']}",
                    {"type": "create", "filePath": wr["input"]["file_path"], "content": wr["input"]["content"],
                     "structuredPatch": [], "originalFile": None}, 40)
    # ---- the rewind: a new prompt whose parent is the summary, so turn 3 is an abandoned branch
    u4 = uid("comp/u4")
    log.snapshot(u4, u4, c.tick(31800), {}, False)
    log.user("comp/u4", summary, "Before adding tests, run the unit tests to see where we stand.", 35, typed=True)
    a = log.assistant("comp/a8-text", u4, "comp/m8", text(
        "Running the whole suite; the integration tests need the local database, so this may take a "
        "minute."), 2340, log.usage(3, 2911, 11876, 31), stop="end_turn")
    intr = log.user("comp/interrupt2", a, [text("[Request interrupted by user]")], 1460)
    u5 = uid("comp/u5")
    log.snapshot(u5, u5, c.tick(6100), {}, False)
    log.user("comp/u5", intr, "Only tests/unit, please.", 20, typed=True)
    bash = call("comp/bash2", "Bash", {"command": "python -m pytest tests/unit -q",
                                       "description": "Run the unit tests"})
    a = log.assistant("comp/a9-bash", u5, "comp/m9", bash, 2210, log.usage(3, 96, 14787, 83), stop="tool_use")
    out = ("............                                                             [100%]\n"
           "12 passed in 0.41s")
    r = log.tool_result("comp/r-bash2", a, bash["id"], out, {"stdout": out, "stderr": "", "interrupted": False,
                                                             "isImage": False, "noOutputExpected": False}, 2030,
                        bash=True)
    log.assistant("comp/a10-text", r, "comp/m10", text(
        "All 12 unit tests pass with the writer.py fix. There is no test for the header yet; I can add one "
        "when you want."), 2480, log.usage(1, 173, 14883, 38), stop="end_turn")
    return log.records


# ================================================================ 5. hook array (1.0.45)

CLI_PY = '''import argparse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="notes")
    p.add_argument("--out", default="notes.md", help="file to write")
    p.add_argument("--tag", action="append", default=[], help="only notes with this tag")
    return p
'''
CLI_OLD = '    p.add_argument("--out", default="notes.md", help="file to write")'
CLI_NEW = '    p.add_argument("--output", "--out", dest="output", default="notes.md", help="file to write")'


def hook_array() -> list[dict[str, Any]]:
    cwd = "/home/dev/projects/notes-cli"
    path = f"{cwd}/notes/cli.py"
    log = Log(session_id=uid("hook/session"), version="1.0.45", cwd=cwd, branch=None,
              clock=Clock("2025-07-14T18:33:05.771Z"), model="claude-sonnet-4-20250514")
    u = log.user("hook/u1", None, "In notes/cli.py, rename the --out option to --output but keep --out working "
                 "as an alias.", 0)
    us = log.usage(4, 2410, 13390, 5)
    a = log.assistant("hook/a1-text", u, "hook/m1", text("I'll look at how the option is declared."), 2330, us)
    read = call("hook/read", "Read", {"file_path": path})
    a = log.assistant("hook/a1-read", a, "hook/m1", read, 540, log.usage(4, 2410, 13390, 71))
    r = log.user("hook/r-read", a, [{"tool_use_id": read["id"], "type": "tool_result",
                                     "content": numbered(CLI_PY)}], 40, result=read_result(path, CLI_PY))
    edit = call("hook/edit", "Edit", {"file_path": path, "old_string": CLI_OLD, "new_string": CLI_NEW})
    a = log.assistant("hook/a2-edit", r, "hook/m2", edit, 3310, log.usage(6, 356, 15800, 164))
    esc = "\x1b[1m{}\x1b[22m"
    h = log.hook_system("hook/pre", a, esc.format("PreToolUse:Edit") + " [uv run .claude/hooks/pre_tool_use.py] "
                        "completed successfully", edit["id"], 210)
    new_cli = CLI_PY.replace(CLI_OLD, CLI_NEW, 1)
    r = log.user("hook/r-edit", h, [{"tool_use_id": edit["id"], "type": "tool_result",
                                     "content": edit_snippet(path, new_cli, CLI_NEW)}], 20,
                 result=edit_result(path, CLI_PY, CLI_OLD, CLI_NEW))
    h = log.hook_system("hook/post-run", r, "Running " + esc.format("PostToolUse:Edit") + "...", edit["id"], 20)
    h = log.hook_system("hook/post", h, esc.format("PostToolUse:Edit") + " [uv run .claude/hooks/post_tool_use.py] "
                        "completed successfully", edit["id"], 180)
    log.assistant("hook/a3-text", h, "hook/m3", text(
        "Done: the option is now `--output`, and `--out` still works as an alias; both set `args.output`. Code "
        "that reads `args.out` has to use `args.output` now."), 2620, log.usage(6, 402, 16156, 52))
    return log.records


# ================================================================ print-mode-run (2.1.90, stream-json)


def print_mode_run() -> list[dict[str, Any]]:
    """`claude -p "…" --output-format stream-json --verbose` saved as it came: no times, `session_id`,
    one content block a line, a subagent's messages under `parent_tool_use_id`, a `result` last.
    The prompt given on the command line is not in the stream."""
    sid, model, cwd = uid("print/session"), "claude-sonnet-4-5-20250929", "/home/dev/projects/notes-cli"
    path = f"{cwd}/notes/cli.py"

    def msg(label: str, kind: str, content: list[dict[str, Any]], mid: str | None = None,
            parent: str | None = None, **extra: Any) -> dict[str, Any]:
        m: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            m = {"model": model, "id": msg_id(mid or label), "type": "message", **m, "stop_reason": None,
                 "usage": {"input_tokens": 4, "output_tokens": 60}}
        return {"type": kind, "message": m, "parent_tool_use_id": parent, "session_id": sid, "uuid": uid(label),
                **extra}

    find = call("print/task", "Task", {"description": "Find uses of --out",
                                       "prompt": "List the places in notes/ that read args.out."})
    grep = call("print/grep", "Grep", {"pattern": "args\\.out", "path": f"{cwd}/notes", "output_mode": "content"})
    read = call("print/read", "Read", {"file_path": path})
    return [
        {"type": "system", "subtype": "init", "cwd": cwd, "session_id": sid, "tools": ["Task", "Bash", "Grep",
         "Read", "Edit"], "mcp_servers": [], "model": model, "permissionMode": "acceptEdits",
         "slash_commands": ["compact"], "apiKeySource": "ANTHROPIC_API_KEY", "claude_code_version": "2.1.90",
         "output_style": "default", "agents": ["general-purpose"], "skills": [], "plugins": [],
         "uuid": uid("print/init")},
        msg("print/a1", "assistant", [text("I'll find where the option is read first.")], "print/m1"),
        msg("print/a2", "assistant", [find], "print/m1"),
        msg("print/s0", "user", [text(find["input"]["prompt"])], parent=find["id"]),
        msg("print/s1", "assistant", [grep], parent=find["id"]),
        msg("print/s2", "user", [{"tool_use_id": grep["id"], "type": "tool_result",
                                  "content": f"{path}:9:    write_notes(args.out)"}], parent=find["id"],
            tool_use_result={"mode": "content", "numFiles": 1, "filenames": [path], "numLines": 1,
                             "content": f"{path}:9:    write_notes(args.out)"}),
        msg("print/s3", "assistant", [text("One place: notes/cli.py line 9, `write_notes(args.out)`.")],
            parent=find["id"]),
        msg("print/r1", "user", [{"tool_use_id": find["id"], "type": "tool_result", "content": [
            text("One place: notes/cli.py line 9, `write_notes(args.out)`.")]}],
            tool_use_result={"status": "completed", "agentId": hex_id("print/agent", 8), "totalDurationMs": 5120,
                             "content": [text("One place: notes/cli.py line 9, `write_notes(args.out)`.")]}),
        msg("print/a3", "assistant", [read], "print/m2"),
        msg("print/r2", "user", [{"tool_use_id": read["id"], "type": "tool_result", "content": numbered(CLI_PY)}],
            tool_use_result=read_result(path, CLI_PY)),
        msg("print/a4", "assistant", [text("The option is read in one place, `write_notes(args.out)` on line 9 of "
                                           "notes/cli.py; renaming it means changing that line too.")], "print/m3"),
        {"type": "result", "subtype": "error_max_turns", "duration_ms": 18230, "duration_api_ms": 16904,
         "is_error": True, "num_turns": 3, "stop_reason": "tool_use", "session_id": sid, "total_cost_usd": 0.04127,
         "usage": {"input_tokens": 12, "output_tokens": 240}, "modelUsage": {}, "permission_denials": [],
         "terminal_reason": "max_turns", "errors": ["Reached maximum number of turns (3)"],
         "uuid": uid("print/result")},
    ]


# ================================================================ main


def main() -> None:
    write_jsonl(HERE / "demo-session.jsonl", demo_session())
    sid, main_recs, side_recs = subagent_sessions()
    write_jsonl(HERE / "subagents" / f"{sid}.jsonl", main_recs)
    write_jsonl(HERE / "subagents" / sid / "subagents" / f"agent-{AGENT_ID}.jsonl", side_recs)
    write_jsonl(HERE / "legacy-inline-sidechain.jsonl", legacy_session())
    write_jsonl(HERE / "compaction-and-branches.jsonl", compaction_session())
    # the Stop hook re-saved the transcript with JSON.stringify(entries, null, 2): no final newline
    (HERE / "hook-array.json").write_bytes(json.dumps(hook_array(), ensure_ascii=False, indent=2).encode())
    write_jsonl(HERE / "print-mode-run.jsonl", print_mode_run())
    for p in sorted(HERE.rglob("*.json*")):
        print(f"{p.relative_to(HERE)}: {p.stat().st_size} bytes")


if __name__ == "__main__":
    main()
