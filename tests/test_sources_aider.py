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
import shutil
from itertools import takewhile
from pathlib import Path
from typing import Any

import pytest

import forsy
from _oracle import retrace
from _paths import REAL_LOGS, needs_shared
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext, detect
from forsy.sources.aider import AiderSource
from forsy.validation import validate_path
from forsy.verification import verify_folder

BASE = REAL_LOGS / "aider"
REAL = sorted(p for p in BASE.rglob("*") if p.is_file() and "input" not in p.name) if BASE.is_dir() else []
EDITS = {"search_replace", "udiff", "whole_file"}
COMMANDS = {"/run", "/test", "/lint", "/git"}
FAILED = ("failed to match", "failed to exactly match", "did not conform to the edit format",
          "SearchReplaceNoExactMatch")
FIXTURES = Path(__file__).parent / "fixtures" / "aider"
REPORT_ENDS = ("Applied edit to ", "Commit ", "Tokens: ", "You can use /undo", "Committing ")


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
    # a lint or test run after the edits that failed: aider asks this. Quoted lines glued to the
    # reply's text (no blank line between) are the reply's own
    for k, m in enumerate(following if not reply or not reply[-1].strip() else []):
        check = re.match(r"Attempt to fix (lint|test) errors\?", m)
        if check is None:
            continue
        j = k
        while j and not following[j - 1].startswith(REPORT_ENDS + ("Attempt to fix ",)):
            j -= 1
            if following[j].startswith("# Fix any errors below, if possible."):
                break
        report = following[j:k]
        while report and not report[0]:
            report.pop(0)
        while report and not report[-1]:
            report.pop()
        run = next((x[len("## Running: "):] for x in report if x.startswith("## Running: ")), None)
        tool = "/" + check.group(1)
        out.append(("call", tool, run if tool == "/lint" else None, "\n".join(report) if report else m))


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
        if kind == "header" or not sessions and kind != "blank":
            sessions[at + 1] = []
        at += len(ls)
        if kind == "text" or (kind == "blank" and reply):
            reply.extend(ls)
            continue
        if kind == "blank":
            continue
        out = sessions[max(sessions)]
        if kind == "user":
            text = "\n".join(x[5:-2] if len(x) > 6 else "" for x in ls)
            if re.search(r"\(Y\)es/\(N\)o", text) and len(ls) == 1:
                continue
            if text == "<blank>" and len(ls) == 1:
                continue  # io.user_input's mark of an empty input (Enter alone): nothing said
            if len(ls) > 1 and "\n".join(x.rstrip() for x in text.split("\n") if x.strip()) in last_reply:
                continue
            if text.startswith("# Fix any errors below, if possible."):
                continue  # /lint's report passed on to the model as its request: aider's words
            asked = re.match(r"/(?:as|ask|ar\w*|cod|code|con\w*) (.+)\Z", out[-1][1], re.S) \
                if out and out[-1][0] == "user" else None
            if asked and text.strip() == asked.group(1).strip():
                continue  # the request of `/ask X` (etc.), which aider writes again as an input
            helped = re.match(r"/(?:h|he|hel|help) (.+)\Z", out[-1][1], re.S) if out and out[-1][0] == "user" else None
            if helped and text.startswith("# Question: ") and text[12:].lstrip().startswith(helped.group(1).strip()):
                continue  # `/help X`'s request: the question and the documents aider found
            out.append(("user", text))
            m = re.match(r"(/run|/test|/lint|/git)(?: +(.*))?\Z|(!) *(.*)", text)
            if m and len(ls) == 1:
                tool, arg = ("/run", m.group(4)) if m.group(3) else (m.group(1), m.group(2))
                got = []
                for kk, x in units[k + 1 :]:
                    if kk != "msg" or _msg(x).strip() in ("^C again to exit", "^C KeyboardInterrupt"):
                        break
                    got.append(_msg(x))
                # /run before 0.64 (commands.py cmd_run) asked `Add the output to the chat?…`, written
                # with its answer: to 0.53 the output came before the question (and again after it,
                # line by line, when added); from 0.54 only after it, and after the input aider wrote
                # for the instructions typed at the question, if any
                q = next((i for i, x in enumerate(got) if x.startswith("Add the output to the chat?")), None)
                words = None
                if tool == "/run" and q is not None:
                    late = "(Y)es/(n)o/message with instructions:" in got[q]
                    answer = re.split(r"instructions[)\]]?:?", got[q], maxsplit=1)[1].strip() \
                        if "instructions" in got[q] else ""
                    words = answer if answer.lower() not in ("", "y", "yes", "n", "no") else None
                    if not late:
                        got = got[:q]
                    elif words is None:
                        got = got[q + 1 :]
                    else:
                        nxt = next((j for j in range(k + 1, len(units)) if units[j][0] != "blank"), len(units))
                        ok = nxt < len(units) and units[nxt] == ("user", [f"#### {words}  "])
                        got = [_msg(x) for kk, x in takewhile(lambda u: u[0] == "msg", units[nxt + 1 :])] if ok else []
                while got and not got[-1]:
                    got.pop()
                while got and not got[0]:
                    got.pop(0)
                out.append(("call", tool, arg or None, "\n".join(got) if got else None))
                if words is not None and not late:
                    out.append(("user", words))  # the person's words, sent to the model with the output
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
    out = tmp_path / "out"
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert not run.failed, [o.message for o in run.failed]
    dirs = sorted(t.parent for t in out.rglob("trace.json"))
    # every folder validated; verified too, but of a log of more than 1 MB (the 4 MB fixture:
    # ~680 traces, each re-reading and hashing the whole log) every 20th, to keep this test short
    step = 20 if path.stat().st_size > 1 << 20 else 1
    for k, d in enumerate(dirs):
        assert not validate_path(d).errors, d
        if k % step == 0:
            ver = verify_folder(d, [path.parent])
            assert ver.ok, ver.problems
        m = json.loads((d / "manifest.json").read_text("utf-8"))
        for f in m["ledger"]:
            assert sum(f["totals"].values()) == f["records_read"] and f["totals"]["unknown"] == 0, f
    got = {_line(d): from_trace(json.loads((d / "trace.json").read_text("utf-8"))) for d in dirs}
    want = oracle(path)
    assert set(got) <= set(want)
    for line, items in want.items():
        assert got.get(line, []) == items, line


# ---------------------------------------------------------------- hand-written samples
def _read(path: Path) -> list[Any]:
    return AiderSource().read(path, ReadContext(root=path.parent))


def _covered(path: Path, sessions: list[Any]) -> None:
    """Every non-blank line of the file lies in some record's byte range; the blank ones are
    the sessions' `blank_lines`."""
    data = path.read_bytes()
    spans = sorted((ev.byte_offset, ev.byte_offset + ev.byte_length) for s in sessions for ev in s.evidence.values()
                   if ev.source == path.name)
    pos, blank = 0, 0
    for raw in data.split(b"\n")[: data.count(b"\n")]:
        start, end = pos, pos + len(raw)
        pos = end + 1
        if not raw.strip():
            blank += 1
            continue
        assert any(a <= end and b >= start for a, b in spans), (start, raw)
    key = "blank_lines" if path.name.endswith(".md") else "input_blank_lines"
    assert sum(s.quality.extra.get(key, 0) for s in sessions) == blank


def test_sample_sessions_events_and_facts() -> None:
    chat = FIXTURES / "project" / ".aider.chat.history.md"
    s1, s2 = _read(chat)
    assert [s1.session_id, s2.session_id] == ["20260301-090000-L2", "20260301-100000-L46"]
    assert s1.meta.agent_version == "0.86.0" and s1.meta.models == ["gpt-test"]
    assert s1.meta.extra["edit_format"] == "diff" and s1.meta.extra["weak_model"] == "gpt-mini"
    assert s1.meta.extra["git_repo"] == ".git with 3 files" and s1.meta.started_at == "2026-03-01 09:00:00"
    assert s2.meta.extra["edit_format"] == "whole"
    kinds = [(e.kind, e.tool) for e in s1.events if e.kind != "note"]
    assert kinds == [("user", None), ("reasoning", None), ("agent_text", None), ("tool_call", "search_replace"),
                     ("tool_result", "search_replace"), ("tool_call", "shell"), ("tool_result", "shell"),
                     ("user", None), ("tool_call", "/run"), ("tool_result", "/run"), ("user", None), ("user", None)]
    users = [e for e in s1.events if e.kind == "user"]
    # typed times from the input history; /tokens was typed but is not in the chat: added at its place
    assert [(e.text, e.ts) for e in users] == [
        ("make greet() say hello to a name\nkeep the old default", "2026-03-01 09:00:05.100000"),
        ("/run pytest -q", "2026-03-01 09:01:00.000000"), ("/tokens", "2026-03-01 09:01:10.000000"),
        ("/ex", "2026-03-01 09:01:20.000000")]
    edit = next(e for e in s1.events if e.tool == "search_replace" and e.kind == "tool_call")
    assert edit.args.startswith("app.py\n```python\n<<<<<<< SEARCH") and edit.args.endswith(">>>>>>> REPLACE\n```")
    res = {e.tool: e for e in s1.events if e.kind == "tool_result"}
    assert res["search_replace"].text == "Applied edit to app.py"
    assert res["/run"].text == ("1 passed in 0.01s\nall good\n"
                                "Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: n")
    assert isinstance(res["shell"].info, ResultInfo) and res["shell"].info.rejected
    notes = [e.text for e in s1.events if e.kind == "note"]
    assert "Commit 1a2b3c4 feat: greet takes a name" in notes  # verbatim, for the commit matcher
    assert s1.quality.extra["typed_matched"] == 3 and s1.quality.extra["typed_answers"] == 1
    assert s1.quality.extra["typed_added"] == 1 and s1.quality.extra["edits_reconstructed"] == 1
    assert [e.kind for e in s2.events if e.kind != "note"] == ["user", "tool_call", "tool_result", "interrupt"]
    _covered(chat, [s1, s2])
    _covered(FIXTURES / "project" / ".aider.input.history", [s1, s2])


def test_sample_trace_ledger_adds_up_and_verifies(tmp_path: Path) -> None:
    chat = FIXTURES / "project" / ".aider.chat.history.md"
    traces = retrace(chat, tmp_path / "out")  # validate and verify every trace folder
    assert len(traces) == 2
    for m in (json.loads(p.read_text("utf-8")) for p in (tmp_path / "out").rglob("manifest.json")):
        for f in m["ledger"]:
            assert sum(f["totals"].values()) == f["records_read"] and f["totals"]["unknown"] == 0
    steps = [s for t in traces for s in t["steps"]]
    edit = next(s for s in steps if s.get("tool") == "search_replace")
    assert edit["output"] == "Applied edit to app.py" and edit["success"] is True
    # aider writes no exit status: whether the command succeeded is unknown
    assert next(s for s in steps if s.get("tool") == "/run")["success"] is None
    assert next(s for s in steps if s.get("tool") == "shell")["success"] is False  # the user said no


def test_discover_a_project_folder(tmp_path: Path) -> None:
    proj, alone = tmp_path / "a", tmp_path / "b" / "c"
    proj.mkdir()
    alone.mkdir(parents=True)
    for f in (FIXTURES / "project").iterdir():
        shutil.copy(f, proj / f.name)
    shutil.copy(FIXTURES / "project" / ".aider.input.history", alone / ".aider.input.history")
    (tmp_path / "notes.md").write_text("# not aider\n")
    # the input history beside a chat is read with it; one alone is a source of its own
    assert AiderSource().discover(tmp_path) == [proj / ".aider.chat.history.md", alone / ".aider.input.history"]
    [s] = AiderSource().read(alone / ".aider.input.history", ReadContext(root=tmp_path))
    assert [e.text for e in s.events if e.kind == "user"] == [
        "make greet() say hello to a name\nkeep the old default", "/run pytest -q", "/tokens", "/ex",
        "rewrite notes.txt"]
    assert all(e.ts for e in s.events) and [e.text for e in s.events if e.kind == "note"] == ["n"]


def test_failed_and_partly_applied_edits(tmp_path: Path) -> None:
    B = "  "
    reply = "".join(f"{p}\n```\n<<<<<<< SEARCH\n{old}\n=======\nnew\n>>>>>>> REPLACE\n```\n\n"
                    for p, old in (("a.py", "x = 1"), ("b.py", "self.x = 1"), ("c.py", "y = 2")))
    text = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### fix{B}\n\n{reply}"
            f"> The LLM did not conform to the edit format.{B}\n"
            f"> # 1 SEARCH/REPLACE block failed to match!\n\n"
            f"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b.py\n"
            f"<<<<<<< SEARCH\nself.x = 1\n=======\nnew\n>>>>>>> REPLACE\n\n"
            f"# The other 2 SEARCH/REPLACE blocks were applied successfully.{B}\n")
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(text)
    [s] = _read(p)
    got = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [got[c.call_id].is_error for c in calls] == [False, True, False]  # `x = 1` is not `self.x = 1`
    assert oracle(p)[2] == [("user", "fix"), ("edit", "a.py", "applied"), ("edit", "b.py", "error"),
                            ("edit", "c.py", "applied")]


def test_damaged_chat_is_read_with_warnings(tmp_path: Path) -> None:
    B = "  "
    data = (f"stray line before any header\r\n\r\n# aider chat started at 2026-03-01 09:00:00\r\n\r\n"
            f"#### caf\xe9 \u2603{B}\r\n\r\nanswer \xff\r\n\r\n> a message of two lines\r\nthat never ends").encode(
                "utf-8", "surrogateescape").replace("\xe9".encode(), b"\xe9")
    p = tmp_path / ".aider.chat.history.md"
    p.write_bytes(data)
    pre, s = _read(p)
    assert pre.session_id == "L1" and {w.code for w in pre.warnings} == {"no-session-header"}
    # after a blank line, a quote that never ends with aider's line break is the reply's own
    assert [e.kind for e in s.events] == ["user", "agent_text"]
    assert s.events[1].text == "answer \xff\r\n\r\n> a message of two lines\r\nthat never ends"
    assert s.events[0].text == "caf\ufffd \u2603"  # an invalid byte is replaced, never fatal
    traces = retrace(p, tmp_path / "out")
    assert len(traces) == 2


def test_inputs_with_blank_lines_and_quotes_around_output_verify(tmp_path: Path) -> None:
    """Shapes a fuzzer found: an input whose first line is a command but that goes on (not a
    command: aider runs one line), an input with blank lines, blank quote lines around an
    output. Each value must still be the exact text of the records it cites."""
    B = "  "
    text = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### /run ls{B}\n#### and then{B}\n\n"
            f"#### {B}\n#### hello{B}\n#### {B}\n\n#### /test pytest{B}\n>{B}\n> 1 passed\nok{B}\n>{B}\n")
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(text)
    [trace] = retrace(p, tmp_path / "out")  # validated and verified
    assert from_trace(trace) == [("user", "/run ls\nand then"), ("user", "\nhello\n"), ("user", "/test pytest"),
                                 ("call", "/test", "pytest", "1 passed\nok")]
    assert oracle(p) == {2: from_trace(trace)}


def test_a_start_up_line_is_never_the_command_and_model_failures_are_errors(tmp_path: Path) -> None:
    """Start-up lines shown again before `Run shell command?` are not the command: the call is
    the one the reply suggested in its shell fence. A failed model call is an error step."""
    chat = FIXTURES / "startup-shell" / ".aider.chat.history.md"
    [trace] = retrace(chat, tmp_path / "out")
    shells = [st for st in trace["steps"] if st.get("tool") == "shell"]
    assert [st["input"] for st in shells] == ["make test"]
    assert shells[0]["output"] == "Running make test"
    errors = [st for st in trace["steps"] if st["action"] == "error"]
    assert [st["output"].split(":")[0] for st in errors] == ["litellm.RateLimitError", "litellm.APIError"]
    assert all(st["success"] is False for st in errors)
    assert trace["termination_reason"] != "other"
