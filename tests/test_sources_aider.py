"""Aider chat and input histories: every prompt, edit and command output in the trace, in order.

The oracle reads the raw markdown with plain string tests (not forsy's reader), from what
aider's writer (aider/io.py) guarantees: sessions start at `# aider chat started at`; the
user's inputs are runs of `#### ` lines ending with two spaces; aider's messages start `> `
and a message of several lines ends at the first line ending with two spaces; an edit is a
fenced block holding `<<<<<<< SEARCH` (or a ```diff with `+++`, or a fence under a path
aider then reports `Applied edit to`); `/run`, `!`, `/test`, `/lint` and `/git` inputs are
answered by the messages written right after them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from _oracle import retrace
from _paths import REAL_LOGS, needs_shared
from forsy.sources import detect
from forsy.sources.aider import AiderSource

BASE = REAL_LOGS / "aider"
REAL = sorted(p for p in BASE.rglob("*") if p.is_file() and "input" not in p.name) if BASE.is_dir() else []
EDITS = {"search_replace", "udiff", "whole_file"}
COMMANDS = {"/run", "/test", "/lint", "/git"}
FAILED = ("failed to match", "failed to exactly match", "did not conform to the edit format",
          "SearchReplaceNoExactMatch")
FIXTURES = Path(__file__).parent / "fixtures" / "aider"


# ---------------------------------------------------------------- the oracle
def _units(lines: list[str]) -> list[tuple[str, list[str]]]:
    """("header" | "user" | "msg" | "text" | "blank", lines) in file order."""
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        t = lines[i]
        if t.startswith("# aider chat started at "):
            out.append(("header", [t]))
            i += 1
        elif t.startswith("####") and t.endswith("  "):
            j = i
            while j < len(lines) and lines[j].startswith("####") and lines[j].endswith("  "):
                j += 1
            out.append(("user", lines[i:j]))
            i = j
        elif (t == ">" or t.startswith("> ")) and (t.endswith("  ") or out and out[-1][0] in ("user", "msg")
                                                   or _closes_before_blank(lines, i)):
            j = i
            while j < len(lines) and not lines[j].endswith("  ") and j + 1 < len(lines):
                j += 1
            out.append(("msg", lines[i : j + 1]))
            i = j + 1
        elif out and out[-1][0] == "msg" and t.strip() and not t.startswith(("####", ">")) \
                and (end := _break_before_blank(lines, i)) is not None:
            out[-1][1].extend(lines[i : end + 1])  # glued to aider's message: it goes on
            i = end + 1
        elif not t.strip():
            out.append(("blank", [t]))
            i += 1
        else:
            out.append(("text", [t]))
            i += 1
    return out


def _break_before_blank(lines: list[str], i: int) -> int | None:
    """The first line from `i` ending with two spaces, if no blank or aider line comes first."""
    for j in range(i, len(lines)):
        t = lines[j]
        if not t.strip() or t.startswith(("####", "> ", "# aider chat started at ")) or t == ">":
            return None
        if t.endswith("  "):
            return j
    return None


def _closes_before_blank(lines: list[str], i: int) -> bool:
    """A message of several lines written after a blank line ends before the next blank line."""
    for t in lines[i + 1 :]:
        if not t.strip() or t.startswith("# aider chat started at "):
            return False
        if t.endswith("  "):
            return True
    return False


def _msg(lines: list[str]) -> str:
    text = "\n".join(lines).removesuffix("  ")
    return text[2:] if text.startswith("> ") else text[1:]


def _edits(reply: list[str], applied: list[str]) -> list[tuple[str | None, list[str]]]:
    """The path and lines of each edit block of a reply, in order."""
    found: list[tuple[str | None, list[str]]] = []
    i = 0
    while i < len(reply):
        t = reply[i].strip()
        if t.startswith(("```", "<source>")):
            close = "</source>" if t.startswith("<source>") else t[: len(t) - len(t.lstrip("`"))]
            j = next((k for k in range(i + 1, len(reply)) if reply[k].strip() == close), None)
            if j is None:
                i += 1
                continue
            inner = reply[i + 1 : j]
            before = reply[i - 1].strip().strip("*`#: ") if i and reply[i - 1].strip() else None
            if any(x.startswith("<<<<<<< SEARCH") for x in inner):
                found.append((before or inner[0].strip(), inner))
            elif t == "```diff" and any(x.startswith("+++ ") for x in inner):
                found.append((next(x[4:].removeprefix("b/").strip() for x in inner if x.startswith("+++ ")), inner))
            elif before in applied:
                found.append((before, inner))
            i = j + 1
            continue
        i += 1
    return found


def _search(block: list[str]) -> list[str]:
    """The stripped non-blank lines of a block's first SEARCH section."""
    marks = [i for i, x in enumerate(block) if x.strip() == "<<<<<<< SEARCH"]
    if not marks:
        return []
    end = next((i for i in range(marks[0], len(block)) if block[i].strip() == "======="), len(block))
    return [x.strip() for x in block[marks[0] + 1 : end] if x.strip()]


def _within(body: list[str], report: list[str]) -> bool:
    return any(report[i : i + len(body)] == body for i in range(len(report)))


def _edit_result(p: str | None, block: list[str], paths: list[str | None], applied: list[str],
                 following: list[str]) -> str | None:
    """What answers an edit: aider's `Applied edit to` line, else its failure report naming
    the file ("error"), else its word that the other blocks were applied ("applied"), else a
    failure report that names none of the reply's files ("error")."""
    if p in applied:
        return f"Applied edit to {p}"
    marks = [i for i, m in enumerate(following) if any(f in m for f in FAILED)]
    if not marks:
        return None
    failed = following[marks[0] :]
    report = [x.strip() for m in failed for x in m.split("\n") if x.strip()]
    quoting = "<<<<<<< SEARCH" in report
    named = [q for q in paths if q and any(q in m for m in failed)]
    body = _search(block)
    if p in named and not (quoting and body and not _within(body, report)):
        return "error"
    if not named:
        return "error"
    if any(re.search(r"The other \d+ SEARCH/REPLACE blocks? (were|was) applied successfully", m) for m in following):
        return "applied"
    return None


def _flush(out: list[tuple[Any, ...]], reply: list[str], rest: list[tuple[str, list[str]]]) -> None:
    """The edits of a reply, each with what answers it in the messages after it."""
    following = []
    for kk, x in rest:
        if kk in ("header", "user", "text"):
            break
        if kk == "msg":
            following.append(_msg(x))
    applied = [m[len("Applied edit to "):] for m in following if m.startswith("Applied edit to ")]
    edits = _edits(reply, applied)
    paths = [p for p, _ in edits]
    for p, block in edits:
        out.append(("edit", p, _edit_result(p, block, paths, applied, following)))


def oracle(path: Path) -> dict[int, list[tuple[Any, ...]]]:
    """Per session (by the line it starts at): ("user", text), ("edit", path, result),
    ("call", tool, args, output)."""
    lines = path.read_text("utf-8", errors="replace").split("\n")
    sessions: dict[int, list[tuple[Any, ...]]] = {}
    units = _units(lines)
    reply: list[str] = []
    last_reply = ""
    at = 0
    for k, (kind, ls) in enumerate(units):
        if reply and kind not in ("text", "blank"):  # a reply ends at aider's next write
            _flush(sessions[max(sessions)], reply, units[k:])
            last_reply = "\n".join(x.rstrip() for x in reply if x.strip() and not x.startswith("<"))
            reply = []
        if kind == "header" or not sessions:
            sessions[at + 1] = []
        at += len(ls)
        if kind == "text" or (kind == "blank" and reply):
            reply.extend(ls)
            continue
        out = sessions[max(sessions)]
        if kind == "user":
            text = "\n".join(x[5:-2] if len(x) > 6 else "" for x in ls)
            if re.search(r"\(Y\)es/\(N\)o", text) and len(ls) == 1:
                continue
            if len(ls) > 1 and "\n".join(x.rstrip() for x in text.split("\n") if x.strip()) in last_reply:
                continue
            out.append(("user", text))
            m = re.match(r"(/run|/test|/lint|/git)(?: +(.*))?\Z|(!) *(.*)", text, re.S)
            if m:
                tool, arg = ("/run", m.group(4)) if m.group(3) else (m.group(1), m.group(2))
                got = []
                for kk, x in units[k + 1 :]:
                    if kk != "msg" or _msg(x).strip() in ("^C again to exit", "^C KeyboardInterrupt"):
                        break
                    got.append(_msg(x))
                while got and not got[-1]:
                    got.pop()
                out.append(("call", tool, arg or None, "\n".join(got) if got else None))
    if reply and sessions:
        _flush(sessions[max(sessions)], reply, [])
    return sessions


def from_trace(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for st in trace["steps"]:
        if st["action"] == "user_message":
            out.append(("user", st["input"]))
        elif st.get("tool") in EDITS:
            first = st["input"].split("\n", 1)[0].strip().strip("*`#: ")
            if first.startswith(("```", "<source>")):
                first = st["input"].split("\n")[1].strip()
            res = st.get("output")
            if res is not None and not res.startswith("Applied edit to "):
                res = "error" if st.get("success") is False else "applied"
            out.append(("edit", first, res))
        elif st.get("tool") in COMMANDS:
            out.append(("call", st["tool"], st.get("input"), st.get("output")))
    return out


# ---------------------------------------------------------------- the real logs
def _line(trace_dir: Path) -> int:
    """The line a trace's session starts at (its session id ends `L<line>`)."""
    sid = json.loads((trace_dir / "manifest.json").read_text("utf-8"))["session_id"]
    return int(sid.rsplit("L", 1)[1])


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.name if p.name.startswith(".") else p.name)
def test_real_aider_chat_against_the_oracle(path: Path, tmp_path: Path) -> None:
    assert isinstance(detect(path), AiderSource)
    retrace(path, tmp_path / "out")
    got = {_line(t.parent): from_trace(json.loads(t.read_text("utf-8")))
           for t in (tmp_path / "out").rglob("trace.json")}
    want = oracle(path)
    assert set(got) <= set(want)
    for line, items in want.items():
        assert got.get(line, []) == items, line
