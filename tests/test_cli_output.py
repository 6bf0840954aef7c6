"""A command line that tells the truth — summaries, progress, exit codes, scripting.

Each test drives the real CLI (typer's runner, or a subprocess where a terminal, stdin or the
environment matters) and asserts what a user would see.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forsy.cli import app
from forsy.errors import ExitCode
from forsy.run import RetraceOptions, retrace

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _session(sid: str, day: str = "2026-01-01", cwd: str = "/home/dev/proj") -> str:
    recs = [
        {"type": "user", "uuid": f"{sid}u1", "parentUuid": None, "sessionId": sid, "version": "2.1.38", "cwd": cwd,
         "timestamp": f"{day}T10:00:00.000Z", "message": {"role": "user", "content": "List the files please"}},
        {"type": "assistant", "uuid": f"{sid}a1", "parentUuid": f"{sid}u1", "sessionId": sid,
         "timestamp": f"{day}T10:00:01.000Z",
         "message": {"id": f"msg_{sid}", "role": "assistant", "model": "claude-test",
                     "content": [{"type": "text", "text": "There are two files."}]}},
    ]
    return "".join(json.dumps(r) + "\n" for r in recs)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory: two good sessions, one with no work, one garbage .jsonl."""
    d = tmp_path / "proj"
    d.mkdir()
    (d / "aaaa1111.jsonl").write_text(_session("aaaa1111"))
    (d / "bbbb2222.jsonl").write_text(_session("bbbb2222", day="2026-02-01"))
    (d / "cccc3333.jsonl").write_text(json.dumps({"type": "summary", "summary": "x", "leafUuid": "q"}) + "\n")
    (d / "dddd4444.jsonl").write_text("this is not json\nnor this\n")
    return d


def _invoke(*args: str, **kw: object) -> object:
    return runner.invoke(app, list(args), **kw)  # type: ignore[arg-type]


# --- one summary line; failures always listed; --verbose, --quiet ---------------------------


def test_every_run_ends_with_one_summary_line(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "-o", str(tmp_path / "out")])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    last = r.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"forsy: 2 written, 1 skipped \(1 .+\), 1 failed", last), last
    assert "dddd4444.jsonl" in r.stderr and "failed" in r.stderr  # the failure, with its file


def test_one_good_file_still_gets_the_summary_line(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    f.write_text(_session("aaaa1111"))
    r = runner.invoke(app, ["retrace", str(f), "-o", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    assert r.stderr.strip().splitlines()[-1] == "forsy: 1 written, 0 skipped, 0 failed"


def test_verbose_lists_each_skipped_session(project: Path, tmp_path: Path) -> None:
    plain = runner.invoke(app, ["retrace", str(project), "-o", str(tmp_path / "a")])
    verbose = runner.invoke(app, ["retrace", str(project), "-o", str(tmp_path / "b"), "--verbose"])
    assert "cccc3333.jsonl" not in plain.stderr
    assert re.search(r"forsy: skipped: \S*cccc3333\.jsonl: ", verbose.stderr), verbose.stderr


def test_quiet_prints_only_errors(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "-o", str(tmp_path / "out"), "--quiet"])
    assert r.exit_code == ExitCode.PARTIAL
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert lines and all("dddd4444.jsonl" in x and "failed" in x for x in lines), lines


def test_quiet_from_the_environment(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    f.write_text(_session("aaaa1111"))
    r = runner.invoke(app, ["retrace", str(f), "-o", str(tmp_path / "t")], env={"FORSY_QUIET": "1"})
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""


def test_all_failed_lists_every_failure(tmp_path: Path) -> None:
    d = tmp_path / "proj"
    d.mkdir()
    for n in ("a", "b"):
        (d / f"{n}.jsonl").write_text("garbage\n")
    r = runner.invoke(app, ["retrace", str(d), "-o", str(tmp_path / "out")])
    assert r.exit_code == ExitCode.INPUT, r.output
    assert "a.jsonl" in r.stderr and "b.jsonl" in r.stderr
    assert r.stderr.strip().splitlines()[-1] == "forsy: 0 written, 0 skipped, 2 failed"


# --- progress -------------------------------------------------------------------------------


def test_pipeline_reports_each_stage_with_bytes(project: Path) -> None:
    from forsy.run import ProgressEvent

    events: list[ProgressEvent] = []
    run = retrace([project], RetraceOptions(), progress=events.append, raise_if_empty=False)
    assert run.results
    total = sum(p.stat().st_size for p in project.iterdir())
    assert {e.bytes_total for e in events} == {total}
    first = [e.stage for e in events if e.path.endswith("aaaa1111.jsonl")]
    assert first == ["reading", "redacting", "segmenting", "done"]  # no sink: nothing is written
    done = [e for e in events if e.stage == "done"]
    assert [e.index for e in done] == [1, 2, 3, 4] and done[-1].bytes_done == total


def test_progress_shows_stage_and_bytes_on_a_terminal_only(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    f.write_text(_session("aaaa1111"))
    code = ("import sys, rich.console as rc\n"
            "from forsy.cli import _output\n"
            "_output.err = rc.Console(file=sys.stderr, force_terminal=True, width=150, highlight=False)\n"
            "import forsy.cli._progress as p\n"
            "p.err = _output.err\n"
            "from forsy.cli import main\n"
            "sys.argv = ['forsy', 'retrace', sys.argv[1], '-o', sys.argv[2]]\n"
            "main()\n")
    tty = subprocess.run([sys.executable, "-c", code, str(f), str(tmp_path / "a")], capture_output=True,
                         text=True, timeout=120)
    assert tty.returncode == 0, tty.stderr
    assert re.search(r"(reading|redacting|segmenting|writing)\s", tty.stderr), tty.stderr
    assert re.search(r"\d+(\.\d+)?/\d+(\.\d+)? bytes", tty.stderr) and "aaaa1111.jsonl" in tty.stderr
    pipe = subprocess.run([sys.executable, "-m", "forsy.cli", "retrace", str(f), "-o", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=120)
    assert pipe.returncode == 0
    assert pipe.stderr.strip().splitlines() == ["forsy: 1 written, 0 skipped, 0 failed"]  # no progress on a pipe


# --- the model path ---------------------------------------------------------------------------


@pytest.mark.slow
def test_llm_fallback_is_a_warning_and_llm_required_exits_5(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    f.write_text(_session("aaaa1111"))
    base = ["retrace", str(f), "--llm", "openai/none", "--llm-api-base", "http://127.0.0.1:9/v1",
            "--llm-cache-dir", str(tmp_path / "cache")]
    r = runner.invoke(app, [*base, "-o", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    assert "forsy: warning:" in r.stderr and "fell back" in r.stderr
    assert "model fell back in 1 trace" in r.stderr.strip().splitlines()[-1]
    assert (tmp_path / "cache" / "llm.sqlite3").exists()  # --llm-cache-dir is where the cache goes
    r = runner.invoke(app, [*base, "-o", str(tmp_path / "b"), "--llm-required"])
    assert r.exit_code == ExitCode.LLM, r.output


def test_llm_help_names_the_extra() -> None:
    r = runner.invoke(app, ["retrace", "--help"], env={"COLUMNS": "200"})
    assert "forsy[llm]" in r.output
    for flag in ("--llm-required", "--llm-cache-dir", "--quiet", "--verbose", "--json", "--debug"):
        assert flag in r.output


def test_docs_llm_flags_exist() -> None:
    text = (ROOT / "docs" / "llm.md").read_text()
    flags = set(re.findall(r"`(--[a-z][a-z-]+)", text))
    assert flags, "docs/llm.md names no flag"
    help_text = runner.invoke(app, ["retrace", "--help"], env={"COLUMNS": "200"}).output
    for flag in flags:
        assert flag in help_text, flag


# --- exit codes and --debug -----------------------------------------------------------------


def test_debug_after_the_subcommand(tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(tmp_path / "nope.jsonl"), "--debug"])
    assert "No such option" not in r.output
    assert isinstance(r.exception, Exception)  # with --debug the error is raised, not hidden
    for cmd in (["validate", str(tmp_path / "nope")], ["ls", str(tmp_path / "nope")]):
        assert "No such option" not in runner.invoke(app, [*cmd, "--debug"]).output


def test_no_arguments_is_an_input_error() -> None:
    r = runner.invoke(app, ["retrace"])
    assert r.exit_code == ExitCode.INPUT
    assert "give a session log" in r.stderr


def test_a_file_with_no_work_exits_2(tmp_path: Path) -> None:
    f = tmp_path / "cccc3333.jsonl"
    f.write_text(json.dumps({"type": "summary", "summary": "x", "leafUuid": "q"}) + "\n")
    r = runner.invoke(app, ["retrace", str(f), "-o", str(tmp_path / "t")])
    assert r.exit_code == ExitCode.INPUT, r.output
    assert "no work" in r.stderr


def test_a_session_with_no_work_in_a_file_of_several_is_named_by_its_id(tmp_path: Path) -> None:
    """aider appends every run to one chat file: the run with no work is named, not the file."""
    f = tmp_path / ".aider.chat.history.md"
    f.write_text("\n# aider chat started at 2025-07-16 20:10:38\n\n> Re-run aider to use new version.  \n\n"
                 "# aider chat started at 2025-07-16 20:11:30\n\n#### say hi  \n\nHi there!\n")
    r = runner.invoke(app, ["retrace", str(f), "-o", str(tmp_path / "t"), "--verbose"])
    assert r.exit_code == 0, r.output
    assert (f"forsy: skipped: {f} (session 20250716-201038-L2): the log holds no work (no messages, calls or "
            "commands)") in r.stderr
    one = tmp_path / "one.jsonl"  # a file of one session: its path alone, as before
    one.write_text(json.dumps({"type": "summary", "summary": "x", "leafUuid": "q"}) + "\n")
    r = runner.invoke(app, ["retrace", str(one), str(f), "-o", str(tmp_path / "u"), "--verbose"])
    assert f"forsy: skipped: {one}: the log holds no work" in r.stderr


# --- --since / --until ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["2025-12-20T25:00", "yesterday", "2025-02-30"])
def test_window_times_are_validated(bad: str, project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "--since", bad, "-o", str(tmp_path / "o")])
    assert r.exit_code == ExitCode.INPUT and "--since" in r.stderr and bad in r.stderr
    assert not (tmp_path / "o").exists()


def test_window_applies_to_agent_sessions(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "--since", "2026-01-15", "-o", str(tmp_path / "o")])
    written = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert len(written) == 1 and "2026-02-01" in written[0], written
    assert "outside the --since/--until window" in r.stderr.strip().splitlines()[-1]


def test_an_empty_window_says_so(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "--since", "2027-01-01", "-o", str(tmp_path / "o")])
    assert r.exit_code == ExitCode.INPUT
    assert "window" in r.stderr and "holds no work" not in r.stderr


def _history(tmp_path: Path) -> Path:
    h = tmp_path / ".bash_history"
    h.write_text("#1767261600\nls -la\n#1767261660\ngit status\n#1769940000\nmake test\n")  # 2026-01-01, 02-01
    return h


def test_history_contributions_are_in_the_summary(tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", "--history", str(_history(tmp_path)), "--since", "2026-01-01",
                            "--until", "2026-01-02", "-o", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    last = r.stderr.strip().splitlines()[-1]
    assert "shell 3 entries" in last and "2 commands" in last and "1 outside the window" in last, last


def test_history_window_with_nothing_in_it_says_so(tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", "--history", str(_history(tmp_path)), "--since", "2027-01-01",
                            "-o", str(tmp_path / "o")])
    assert r.exit_code == ExitCode.INPUT
    assert "nothing in the window" in r.stderr and "holds no work" not in r.stderr


def test_history_that_is_not_a_history_is_refused(tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", "--history", str(ROOT / "README.md"), "-o", str(tmp_path / "o")])
    assert r.exit_code in (ExitCode.INPUT, ExitCode.UNSUPPORTED)
    assert not (tmp_path / "o").exists()


# --- one vocabulary, one count ----------------------------------------------------------------


def test_retrace_and_validate_give_the_same_counts(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    f.write_text(_session("aaaa1111"))
    out = tmp_path / "t"
    r = runner.invoke(app, ["retrace", str(f), "-o", str(out)])
    v = runner.invoke(app, ["validate", str(out)])
    counts = re.compile(r"\d+ error\(s\), \d+ warning\(s\), \d+ reading warning\(s\)")
    got_r, got_v = counts.search(r.stdout), counts.search(v.stdout)
    assert got_r and got_v, (r.stdout, v.stdout)
    assert got_r.group() == got_v.group()
    assert "1 warning(s)" in got_v.group()  # M009: the goal was not assessed, said by both


# --- scripting ------------------------------------------------------------------------------


def test_retrace_json_is_one_object_per_line(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(project), "-o", str(tmp_path / "o"), "--json"])
    objs = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(objs) == 4
    assert sorted(o["status"] for o in objs) == ["failed", "skipped", "written", "written"]
    for o in objs:
        assert {"path", "status", "steps", "confidence", "warnings", "errors"} <= set(o)
    failed = next(o for o in objs if o["status"] == "failed")
    assert failed["errors"] and failed["input"].endswith("dddd4444.jsonl")


def test_validate_and_verify_json(tmp_path: Path, project: Path) -> None:
    out = tmp_path / "o"
    runner.invoke(app, ["retrace", str(project), "-o", str(out)])
    r = runner.invoke(app, ["validate", str(out), "--json"])  # a folder of trace folders is walked
    objs = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.exit_code == 0 and len(objs) == 2 and all(o["status"] == "valid" for o in objs)
    assert all("M009" in " ".join(o["warnings"]) for o in objs)
    folders = sorted(out.iterdir())
    r = runner.invoke(app, ["validate", *map(str, folders)])  # several paths
    assert r.exit_code == 0 and r.stdout.count("0 error(s)") == 2
    r = runner.invoke(app, ["verify", str(folders[0]), str(project), "--json"])
    v = json.loads(r.stdout)
    assert r.exit_code == 0 and v["status"] == "ok" and v["checked"] > 0 and v["errors"] == []


def test_stdin_is_a_session_and_leaves_no_temp_file(tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    r = subprocess.run([sys.executable, "-m", "forsy.cli", "retrace", "-", "-o", str(tmp_path / "t"), "--json"],
                       input=_session("aaaa1111"), capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["steps"] == 2
    assert (tmp_path / "t" / "trace.json").is_file()
    assert list(tmpdir.iterdir()) == []


def test_shell_completion_is_on() -> None:
    r = runner.invoke(app, ["--help"])
    assert "--install-completion" in r.output


def test_llm_options_from_the_environment() -> None:
    r = runner.invoke(app, ["retrace", "--help"], env={"COLUMNS": "200"})
    for var in ("FORSY_LLM_MODEL", "FORSY_LLM_API_BASE", "FORSY_LLM_CACHE_DIR", "FORSY_QUIET"):
        assert var in r.output, var
    assert "FORSY_NO_REDACT" not in r.output  # never from the environment: too easy to leave on


def test_ls_lists_sessions_without_retracing(project: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["ls", str(project), "--json"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    by = {Path(x["path"]).name: x for x in rows}
    assert set(by) == {"aaaa1111.jsonl", "bbbb2222.jsonl", "cccc3333.jsonl", "dddd4444.jsonl"}
    a = by["aaaa1111.jsonl"]
    assert (a["agent"], a["source_kind"], a["project"], a["start"], a["records"]) == (
        "claude-code", "claude_code", "proj", "2026-01-01T10:00:00.000Z", 2)  # the agent as the queue names it
    assert a["size"] == (project / "aaaa1111.jsonl").stat().st_size
    assert not (tmp_path / "forsy-traces").exists()
    text = runner.invoke(app, ["ls", str(project)])
    assert text.exit_code == 0 and "aaaa1111.jsonl" in text.stdout and "4 sessions" in text.stderr


# --- the card -------------------------------------------------------------------------------


def test_card_has_dataset_front_matter_and_a_whole_word_title(tmp_path: Path) -> None:
    f = tmp_path / "aaaa1111.jsonl"
    long = "Refactor the payment reconciliation service so that duplicated ledger entries are merged"
    f.write_text(_session("aaaa1111").replace("List the files please", long))
    runner.invoke(app, ["retrace", str(f), "-o", str(tmp_path / "t")])
    card = (tmp_path / "t" / "README.md").read_text()
    assert card.startswith("---\n")
    front, body = card[4:].split("\n---\n", 1)
    assert re.search(r"^license: other$", front, re.M) and "tags:" in front and "task_categories:" in front
    title = next(x for x in body.splitlines() if x.startswith("# ")).removeprefix("# Claude Code session aaaa1111: ")
    if title.endswith("…"):
        assert long.startswith(title[:-1].rstrip()) and long[len(title[:-1].rstrip())] == " ", title
    else:
        assert long.startswith(title)


# --- docs agree with the code -----------------------------------------------------------------


def test_readme_names_only_options_and_commands_that_exist() -> None:
    text = (ROOT / "README.md").read_text()
    use = text.split("## Use", 1)[1].split("## How it works", 1)[0]
    import typer.main

    commands = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    helps = {cmd: runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "200"}).output for cmd in commands}
    for line in re.findall(r"^forsy (\w+)(.*)$", use, re.M):
        cmd, rest = line
        assert cmd in helps, cmd
        for flag in re.findall(r"(?:^|\s)(--?[a-z][a-z-]*)", rest.split("#")[0]):
            assert flag in helps[cmd], (cmd, flag)
    for flag in set(re.findall(r"`(--[a-z][a-z-]+)", use)):
        assert any(flag in h for h in helps.values()), flag
    for code in re.findall(r"exits? (\d+)", text):
        assert int(code) in set(ExitCode), code
