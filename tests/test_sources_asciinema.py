"""asciinema recordings (.cast v2/v3): the commands typed and their outputs in the trace, in order.

The oracle reads the raw recording with the standard library only (not forsy's reader): it
strips escape sequences with its own regular expression, keeps the last non-blank piece of
each carriage-return-overwritten line, finds the prompt lines (`user@host:path$ `, `$ `, `# `)
and lists each command (the typed line from the input events when they were recorded, else the
text after the prompt) with the output lines up to the next prompt. The trace's steps must hold
the same commands in order, and every output line the oracle sees must occur, in order, in the
step's output.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _oracle import checked_traces
from _paths import REAL_LOGS, needs_shared
from forsy.cli import app
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext, detect
from forsy.sources.asciinema import AsciinemaSource
from forsy.sources.asciinema._term import Screen
from forsy.validation import validate_path
from forsy.verification import verify_folder

runner = CliRunner()
FIX = Path(__file__).parent / "fixtures" / "asciinema"
REAL = sorted((REAL_LOGS / "asciinema").rglob("*.cast")) if (REAL_LOGS / "asciinema").is_dir() else []

# --- the oracle: independent of forsy's reader -------------------------------------------------

ESCAPES = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78DEMc]")
PROMPT_LINE = re.compile(r"^(?:[\w.-]+@[\w.-]+:\S*|[~/]\S*)?[$#](?: |$)")


def _events(path: Path) -> tuple[dict[str, Any], list[list[Any]]]:
    lines = [ln for ln in path.read_text("utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    return json.loads(lines[0]), [json.loads(ln) for ln in lines[1:]]


def _visible(text: str) -> list[str]:
    """The lines a person reads: escapes stripped, of each line the last non-blank piece
    between carriage returns (unless the line was erased after it), backspaces applied."""
    out = []
    # cursor to column 1 is a carriage return; an erase of the line clears what was before it
    text = re.sub(r"\x1b\[1?G", "\r", text)
    text = re.sub(r"\r\x1b\[0?K|\x1b\[2K", "\r\x00", text)
    for line in ESCAPES.sub("", text).replace("\r\n", "\n").split("\n"):
        piece = ""
        for p in line.split("\r"):
            if p.startswith("\x00"):
                piece = ""
            if p.strip("\x00 "):
                piece = p
        kept: list[str] = []
        for ch in piece:
            if ch == "\b":
                kept = kept[:-1]
            elif ch >= " " or ch == "\t":
                kept.append(ch)
        out.append("".join(kept).rstrip())
    return out


def oracle(path: Path) -> list[tuple[str, list[str]]]:
    """(command, its visible output lines) in order, from the raw recording."""
    header, events = _events(path)
    shown = _visible("".join(e[2] for e in events if e[1] == "o"))
    if isinstance(header.get("command"), str):
        return [(header["command"], [ln for ln in shown if ln])]
    typed = [e[2][:-1] for e in events if e[1] == "i" and e[2].endswith("\r")
             and all(ch >= " " or ch == "\n" for ch in e[2][:-1])]
    out: list[tuple[str, list[str]]] = []
    cur: list[str] | None = None
    more: list[str] = []  # a multi-line command's later lines, echoed after "> "
    for line in shown:
        if more and line == f"> {more[0]}".rstrip():
            more.pop(0)
            continue
        more = []
        m = PROMPT_LINE.match(line)
        if m:
            rest = line[m.end():]
            cur = None
            if rest.strip():
                cmd = typed.pop(0) if typed else rest
                assert cmd.split("\n")[0] == rest, (cmd, rest)
                more = cmd.split("\n")[1:]
                cur = []
                out.append((cmd, cur))
            continue
        if cur is not None and line:
            cur.append(line)
    return out


def in_order(lines: list[str], text: str) -> bool:
    pos = 0
    for ln in lines:
        i = text.find(ln, pos)
        if i < 0:
            return False
        pos = i + len(ln)
    return True


def steps_of(trace: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["input"], s.get("output") or "") for s in trace["steps"] if s.get("tool") == "shell_command"]


def retrace_cli(path: Path, out: Path) -> list[dict[str, Any]]:
    r = runner.invoke(app, ["retrace", str(path), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    return checked_traces(out, path)


def check_against_oracle(path: Path, trace: dict[str, Any]) -> None:
    want = oracle(path)
    got = steps_of(trace)
    assert [c for c, _ in got] == [c for c, _ in want]
    for (cmd, lines), (_, output) in zip(want, got, strict=True):
        assert in_order(lines, output), (cmd, [ln for ln in lines if ln not in output][:3])


def ledger_adds_up(folder: Path, path: Path) -> dict[str, int]:
    m = json.loads((folder / "manifest.json").read_text("utf-8"))
    [f] = m["ledger"]
    lines = sum(1 for ln in path.read_bytes().split(b"\n") if ln.strip())
    assert f["records_read"] == lines == sum(f["totals"].values())
    assert f["totals"]["unknown"] == 0
    return dict(f["totals"])


# --- real recordings ---------------------------------------------------------------------------


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name[:24]}/{p.name}")
def test_real_recordings_against_the_oracle(path: Path, tmp_path: Path) -> None:
    assert isinstance(detect(path), AsciinemaSource)
    [trace] = retrace_cli(path, tmp_path / "out")
    check_against_oracle(path, trace)
    [folder] = [p.parent for p in (tmp_path / "out").rglob("trace.json")]
    ledger_adds_up(folder, path)


@needs_shared
@pytest.mark.real_logs
def test_real_recordings_are_found_in_their_folder() -> None:
    assert AsciinemaSource().discover(REAL_LOGS / "asciinema") == REAL


# --- small recordings written for these tests --------------------------------------------------


@pytest.mark.parametrize("name", ["typed.cast", "program.cast", "echo.cast"])
def test_fixtures_against_the_oracle(name: str, tmp_path: Path) -> None:
    path = FIX / name
    [trace] = retrace_cli(path, tmp_path / "out")
    check_against_oracle(path, trace)
    [folder] = [p.parent for p in (tmp_path / "out").rglob("trace.json")]
    ledger_adds_up(folder, path)


def test_typed_commands_cite_the_input_event_and_take_its_time() -> None:
    path = FIX / "typed.cast"
    [s] = AsciinemaSource().read(path, ReadContext(root=FIX))
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [c.args for c in calls] == ["ls -la", "pip install x"]
    assert [c.ts for c in calls] == ["2026-01-01T10:00:01.000000Z", "2026-01-01T10:00:03.000000Z"]
    raw = path.read_bytes()
    first = s.evidence[calls[0].refs[0].ev]
    assert json.loads(raw[first.byte_offset : first.byte_offset + first.byte_length]) == [1.0, "i", "ls -la\r"]
    assert calls[0].info is not None and calls[0].info.span == (0, 6)
    results = [e for e in s.events if e.kind == "tool_result"]
    # colours gone, the progress bar's overwritten states gone, an escape cut between two events joined
    assert results[1].text == "Downloading 100%\nInstalled x-1.0"
    assert results[1].ts == "2026-01-01T10:00:04.000000Z"  # the next prompt: the command had ended
    assert s.quality.extra["resizes"] == 1 and s.quality.extra["markers"] == 1
    assert s.quality.extra["exit_codes_unrecorded"] == 2 and s.quality.extra["empty_commands"] == 1
    rules = {m.name for m in s.ledger.values()}
    assert {"terminal resized (r event)", "marker (m event)", "the shell prompt"} <= rules


def test_v3_intervals_are_summed_and_one_program_is_one_command() -> None:
    [s] = AsciinemaSource().read(FIX / "program.cast", ReadContext(root=FIX))
    call, res = s.events
    assert call.args == "pytest -q" and call.refs[0].pointer == "/command"
    assert res.ts == "2026-01-01T10:00:01.000000Z"  # 0.5 + 0.25 + 0.25 after the header's time
    assert res.is_error is True and "exit_codes_unrecorded" not in s.quality.extra  # the x event: status 1
    assert any(m.name.startswith("comment lines") for m in s.ledger.values())


def test_echoed_keys_with_a_correction_and_an_empty_line() -> None:
    [s] = AsciinemaSource().read(FIX / "echo.cast", ReadContext(root=FIX))
    assert [e.args for e in s.events if e.kind == "tool_call"] == ["echo hi", "git status"]
    assert s.quality.extra["empty_commands"] == 1
    assert [w.code for w in s.warnings] == ["unfinished-command"]


def test_damaged_lines_are_warned_with_their_line_and_counted(tmp_path: Path) -> None:
    p = tmp_path / "bad.cast"
    p.write_text('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n'
                 '[0.1, "o", "$ "]\n'
                 'not json\n'
                 '{"an": "object"}\n'
                 '[NaN, "o", "x"]\n'
                 '[0.2, "z", "what"]\n'
                 '[1' + '0' * 400 + ', "o", "x"]\n'
                 '[0.3, "i", "true\\r"]\n'
                 '[0.4, "o", "true\\r\\n$ "]\n')
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    bad = [(w.code, w.line) for w in s.warnings]
    assert ("unparsable-line", 3) in bad and ("unparsable-line", 4) in bad and ("unparsable-line", 5) in bad
    assert ("unknown-record", 6) in bad and ("unparsable-line", 7) in bad
    assert s.quality.unparsable_records == 4 and s.quality.unknown_records == 1
    assert [e.args for e in s.events if e.kind == "tool_call"] == ["true"]
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text("utf-8"))
    assert m["ledger"][0]["totals"]["unparsable"] == 4 and m["ledger"][0]["records_read"] == 9


def test_sniff_takes_cast_headers_only(tmp_path: Path) -> None:
    src = AsciinemaSource()
    assert src.sniff(FIX / "typed.cast", (FIX / "typed.cast").read_bytes())
    assert src.sniff(FIX / "program.cast", (FIX / "program.cast").read_bytes())
    assert not src.sniff(tmp_path / "x.jsonl", b'{"version": 2, "type": "session_meta"}\n')
    assert not src.sniff(tmp_path / "x.jsonl", b'{"type": "user", "message": {}}\n')
    assert not src.sniff(tmp_path / "v1.cast", b'{"version": 1, "width": 80, "height": 24, "stdout": []}')
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "r.cast").write_bytes((FIX / "echo.cast").read_bytes())
    (tmp_path / "a" / "notes.cast").write_text("hello\n")
    assert src.discover(tmp_path) == [tmp_path / "a" / "b" / "r.cast"]


def test_screen_is_linear_on_a_long_line_and_many_events() -> None:
    # 200k one-character events on one line, then 200k short lines: a quadratic join or
    # concatenation would take minutes; the bound is generous
    s = Screen()
    t0 = time.perf_counter()
    for _ in range(200_000):
        s.write("x")
    for _ in range(200_000):
        s.write("\r0%\rline\r\n")
    assert len(s.take()) == 200_000
    assert time.perf_counter() - t0 < 30


def test_a_large_recording_reads_in_bounded_time(tmp_path: Path) -> None:
    p = tmp_path / "big.cast"
    with p.open("w") as f:
        f.write('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n[0.0, "o", "$ "]\n'
                '[0.1, "i", "yes\\r"]\n[0.1, "o", "yes\\r\\n"]\n')
        for i in range(60_000):
            f.write(json.dumps([0.2 + i / 1e4, "o", f"\u001b[32my\u001b[0m {i}\r\n"]) + "\n")
    t0 = time.perf_counter()
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    assert time.perf_counter() - t0 < 60
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert res.text is not None and res.text.count("\n") == 59_999 and len(res.refs) == 60_001


# --- one timeline with an agent log ------------------------------------------------------------


def test_history_recording_goes_on_the_agent_timeline(tmp_path: Path) -> None:
    def iso(sec: int) -> str:
        return f"2026-01-01T10:{sec // 60:02d}:{sec % 60:02d}.000Z"

    def rec(i: int, kind: str, msg: dict[str, object]) -> dict[str, object]:
        return {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None, "sessionId": "tl-1",
                "cwd": "/proj", "timestamp": iso(10 + i * 5), "message": msg}

    session = [
        rec(1, "user", {"role": "user", "content": "List the files"}),
        rec(2, "assistant", {"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls -la"}}]}),
        rec(3, "user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                                     "content": "total 8"}]}),
        rec(4, "assistant", {"id": "m4", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ]
    log = tmp_path / "logs" / "tl-1.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(r) + "\n" for r in session))
    cast = tmp_path / "rec" / "term.cast"
    cast.parent.mkdir()
    # the agent's `ls -la` ran at 10:00:20 (call) / 10:00:25 (result); a person typed `pwd` at 10:00:40
    cast.write_text('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n'
                    '[20.0, "o", "dev@box:/proj$ "]\n[21.0, "i", "ls -la\\r"]\n'
                    '[21.0, "o", "ls -la\\r\\ntotal 8\\r\\n"]\n'
                    '[21.1, "o", "dev@box:/proj$ "]\n[40.0, "i", "pwd\\r"]\n[40.0, "o", "pwd\\r\\n/proj\\r\\n"]\n'
                    '[40.1, "o", "dev@box:/proj$ "]\n')
    out = tmp_path / "trace"
    run = retrace([log], RetraceOptions(out=out, redact=False, history=[cast]))
    assert not run.failed
    assert not validate_path(out).errors
    ver = verify_folder(out, [log.parent, cast.parent])
    assert ver.ok, ver.problems
    steps = json.loads((out / "trace.json").read_text("utf-8"))["steps"]
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    matched = [m for m in prov.get("matches", []) if m["kind"] == "shell_history" and not m["uncertain"]]
    assert [steps[m["step"] - 1]["input"] for m in matched] == ['{"command":"ls -la"}']
    shell = [s for s in steps if s.get("tool") == "shell"]
    assert [s["input"] for s in shell] == ["pwd"] and shell[0]["started_at"] == "2026-01-01T10:00:40.000000Z"
    assert [s["step"] for s in steps if s.get("tool") in ("Bash", "shell")] == sorted(
        s["step"] for s in steps if s.get("tool") in ("Bash", "shell"))
    # the run's summary line names the recording's commands as entries, not as commits
    from forsy.cli._retrace import summary_line

    assert "history/git read: asciinema 2 entries;" in summary_line(run)


def test_a_command_without_exit_code_has_no_success_value(tmp_path: Path) -> None:
    [trace] = retrace_cli(FIX / "typed.cast", tmp_path / "out")
    assert [s.get("success") for s in trace["steps"]] == [None, None]


def test_a_multi_line_command_is_not_its_own_output(tmp_path: Path) -> None:
    p = tmp_path / "heredoc.cast"
    p.write_text('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n'
                 '[0.1, "o", "# "]\n[1.0, "i", "cat <<EOF\\nhi\\nEOF\\r"]\n'
                 '[1.0, "o", "cat <<EOF\\r\\n> hi\\r\\n> EOF\\r\\n"]\n[1.1, "o", "hi\\r\\n# "]\n')
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    call, res = s.events
    assert call.args == "cat <<EOF\nhi\nEOF" and call.info is not None and call.info.span == (0, 16)
    assert res.text == "hi"
    [trace] = retrace_cli(p, tmp_path / "out")
    check_against_oracle(p, trace)


def test_lone_surrogates_are_replaced_and_said(tmp_path: Path) -> None:
    # JSON may escape a lone surrogate (\ud800): not text, so it cannot be written as UTF-8
    p = tmp_path / "sur.cast"
    p.write_text('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n[0.1, "o", "$ "]\n'
                 '[0.2, "i", "echo ok\\r"]\n[0.3, "o", "echo ok\\r\\n\\ud800x\\r\\n$ "]\n')
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    assert not validate_path(out).errors
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    assert steps_of(trace) == [("echo ok", "\ufffdx")]
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    assert ("lossy-text", 4) in [(w.code, w.line) for w in s.warnings]
    q = tmp_path / "prog.cast"
    q.write_text('{"version": 3, "term": {"cols": 80, "rows": 24}, "command": "run \\udc80", "title": "\\ud800"}\n'
                 '[0.1, "o", "done\\r\\n"]\n')
    r = runner.invoke(app, ["retrace", str(q), "-o", str(tmp_path / "out2"), "--no-redact"])
    assert r.exit_code == 0, r.output
    assert steps_of(json.loads((tmp_path / "out2" / "trace.json").read_text("utf-8"))) == [("run \ufffd", "done")]


def test_a_redacted_typed_command_still_verifies(tmp_path: Path) -> None:
    p = tmp_path / "secret.cast"
    cmd = "export GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    p.write_text('{"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}\n[0.1, "o", "$ "]\n'
                 f'[0.2, "i", "{cmd}\\r"]\n[0.3, "o", "{cmd}\\r\\n$ "]\n')
    out = tmp_path / "out"
    assert runner.invoke(app, ["retrace", str(p), "-o", str(out)]).exit_code == 0
    assert "ghp_" not in (out / "trace.json").read_text("utf-8")
    ver = verify_folder(out, [tmp_path])
    assert ver.ok, ver.problems


@pytest.mark.parametrize("prompt", ["➜  proj git:(main) ✗ ", "PS C:\\Users\\dev> ", "(venv) dev@box:~/p$ ",
                                    "[dev@box proj]$ ", "bash-5.2$ ", "dev@box proj % "])
def test_prompt_shapes(prompt: str, tmp_path: Path) -> None:
    p = tmp_path / "p.cast"
    p.write_text(json.dumps({"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}) + "\n"
                 + json.dumps([0.1, "o", prompt]) + "\n" + json.dumps([0.2, "o", "make\r\nok\r\n" + prompt]) + "\n")
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.args or e.text) for e in s.events] == [("tool_call", "make"), ("tool_result", "ok")]


@pytest.mark.parametrize(("command", "one"), [("bash -c 'make test'", True), ("/bin/zsh", False),
                                              ("tmux attach", False), ("npm test", True)])
def test_which_header_commands_are_one_program(command: str, one: bool, tmp_path: Path) -> None:
    p = tmp_path / "c.cast"
    p.write_text(json.dumps({"version": 2, "width": 80, "height": 24, "command": command}) + "\n"
                 + json.dumps([0.1, "o", "$ "]) + "\n" + json.dumps([0.2, "o", "ls\r\nfile\r\n$ "]) + "\n")
    [s] = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    calls = [e.args for e in s.events if e.kind == "tool_call"]
    assert calls == ([command] if one else ["ls"])


def test_highlighted_echo_screen_titles_and_a_programs_dollar_sign(tmp_path: Path) -> None:
    """A command rebuilt from a highlighted, backspaced echo is derived (verify checks it as
    such); screen's title sequence is no output; a coloured `$ ` a script prints, after the
    shell's fuller prompt, is that script's output, not a typed command."""
    cast = Path(__file__).parent / "fixtures" / "asciinema" / "highlighted.cast"
    from _oracle import retrace as traced

    [trace] = traced(cast, tmp_path / "out")  # validated and verified
    steps = trace["steps"]
    assert [st["input"] for st in steps] == ["git log", "./demo.sh", "exit"]
    assert steps[0]["output"] == "commit 1a2b3c4\n    first"
    assert steps[1]["output"] == "$ make build\nbuilt"
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text("utf-8"))
    rebuilt, typed = (prov["steps"][i]["fields"]["input"] for i in (0, 1))
    assert (rebuilt["origin"], rebuilt["rule"]) == ("derived", "R-shell/decoded")
    assert typed["origin"] == "copied"
