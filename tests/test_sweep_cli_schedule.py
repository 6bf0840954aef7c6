"""`forsy sweep --print-cron` / `--print-systemd` print the sweep of the command that printed
them: every sweep option given, roots and other paths absolute, the store and config file as
resolved; quoted for what reads the line (`sh` after cron's own `%` rule; systemd's command
line with its `%` specifiers and `$` variables). The cron line is run here as cron runs it
(cronie's `%` translation, then `sh -c`), and the unit checked by `systemd-analyze verify`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import ROOT, SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode, InputError
from forsy.sweep import schedule

runner = CliRunner()
TRICKY = ["/t/50%/s.db", "/t/a\\%b", "/t/it's here", "/t/$HOME/`x`", "/t/~x", "/t/a\\", "/t/%%", "/t/tab\there",
          "/t/q\"uote", "/t/caf\udce9"]


def cron_hands_to_sh(line: str) -> str:
    """The command cron gives `/bin/sh -c` for a crontab line: the part after the five time
    fields, `\\%` made a `%` and a bare `%` ending it (the rest is the job's stdin), as
    cronie's do_command.c does."""
    command = line.split(" ", 5)[5]
    out: list[str] = []
    escaped = False
    for ch in command:
        if escaped:
            escaped = False
            if ch == "%":
                out[-1] = "%"
                continue
        elif ch == "\\":
            escaped = True
        elif ch == "%":
            break
        out.append(ch)
    return "".join(out)


@pytest.fixture
def argv_printer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`forsy` replaced by a script that writes the arguments it was given as JSON."""
    script = tmp_path / "print argv.py"
    script.write_text("import json, os, sys\nsys.stdout.write(json.dumps([os.fsdecode(a) for a in sys.argv[1:]]))\n")
    monkeypatch.setattr(schedule, "forsy_command", lambda: f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    return script


def run_as_cron(line: str, home: Path) -> list[str]:
    home.mkdir(exist_ok=True)
    subprocess.run(["/bin/sh", "-c", os.fsencode(cron_hands_to_sh(line))],
                   env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, check=True)
    got: list[str] = json.loads((home / ".forsy-sweep.log").read_text())
    return got


@pytest.mark.parametrize("word", TRICKY)
def test_the_cron_line_gives_each_word_to_the_job_as_it_is(word: str, argv_printer: Path, tmp_path: Path) -> None:
    line = schedule.cron_line(word, options=["--history", word, word])
    assert run_as_cron(line, tmp_path / "home") == ["sweep", "--json", "--store", word, "--history", word, word]


def test_percent_signs_never_reach_cron_bare(argv_printer: Path) -> None:
    line = schedule.cron_line("sqlite:////t/50%/s.db")
    assert "--store 'sqlite:////t/50'\\%'/s.db' >>" in line
    assert all(line[i - 1] == "\\" for i, c in enumerate(line) if c == "%")


def test_a_line_break_cannot_be_put_on_a_crontab_line() -> None:
    with pytest.raises(InputError, match="a crontab line cannot hold a line break"):
        schedule.cron_line(None, options=["/t/two\nlines"])
    res = runner.invoke(app, ["sweep", "--print-cron", "/t/two\nlines"])
    assert res.exit_code == ExitCode.INPUT and "a crontab line cannot hold a line break" in res.stderr


def test_every_option_given_is_printed_and_paths_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             argv_printer: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my config.toml").write_text('roots = ["/elsewhere"]\n')
    for name in ("FORSY_CONFIG", "FORSY_STORE", "FORSY_JOBS", "FORSY_QUIET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "none.toml"))
    args = ["sweep", "--config", "my config.toml", "--settle", "30", "--history", "~/.zsh_history", "--history",
            "h2", "--git", "repo", "--no-redact", "--llm", "ollama/llama3", "-j", "2", "--now", "-q",
            "--store", "sqlite:rel.db", "logs", "/abs/logs"]
    expected = ["sweep", "--json", "--store", f"sqlite://{tmp_path}/rel.db",
                "--config", str(tmp_path / "my config.toml"),
                "--settle", "30", "--history", str(Path.home() / ".zsh_history"), "--history", str(tmp_path / "h2"),
                "--git", str(tmp_path / "repo"), "--llm", "ollama/llama3", "--jobs", "2", "--now", "--no-redact",
                "--quiet", str(tmp_path / "logs"), "/abs/logs"]
    cron = runner.invoke(app, [*args, "--print-cron"])
    assert cron.exit_code == 0, cron.output
    assert run_as_cron(cron.stdout.rstrip("\n"), tmp_path / "home") == expected
    unit = runner.invoke(app, [*args, "--print-systemd"]).stdout
    exec_start = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    assert exec_start.endswith(" sweep --json --store sqlite:///" + str(tmp_path).lstrip("/") + "/rel.db "
                               f'--config "{tmp_path}/my config.toml" --settle 30 --history '
                               f"{Path.home()}/.zsh_history --history {tmp_path}/h2 --git {tmp_path}/repo "
                               f"--llm ollama/llama3 --jobs 2 --now --no-redact --quiet {tmp_path}/logs /abs/logs")


def test_nothing_given_leaves_the_job_to_find_the_agents_folders(argv_printer: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("FORSY_JOBS", raising=False)
    monkeypatch.delenv("FORSY_QUIET", raising=False)
    res = runner.invoke(app, ["sweep", "--print-cron", "--store", "postgresql://h/db"])
    assert run_as_cron(res.stdout.rstrip("\n"), tmp_path / "home") == ["sweep", "--json", "--store", "postgresql://h/db"]


def test_a_config_file_named_by_forsy_config_is_named_in_the_job(argv_printer: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The job sees neither FORSY_CONFIG nor FORSY_STORE: what they named is printed."""
    cfg = tmp_path / "team.toml"
    cfg.write_text('store = "sqlite:////srv/forsy.db"\n')
    monkeypatch.setenv("FORSY_CONFIG", str(cfg))
    monkeypatch.delenv("FORSY_STORE", raising=False)
    res = runner.invoke(app, ["sweep", "--print-cron"])
    assert run_as_cron(res.stdout.rstrip("\n"), tmp_path / "home")[2:] == [
        "--store", "sqlite:////srv/forsy.db", "--config", str(cfg)]


def test_settle_is_printed_as_it_reads_back() -> None:
    assert schedule.sweep_options(settle=0.0) == ["--settle", "0"]
    assert schedule.sweep_options(settle=2.5) == ["--settle", "2.5"]
    assert schedule.sweep_options(settle=0.1 + 0.2) == ["--settle", repr(0.1 + 0.2)]
    assert float(schedule.sweep_options(settle=1e-7)[1]) == 1e-7


def test_systemd_words_double_percent_and_dollar_and_escape_the_rest() -> None:
    unit = schedule.systemd_units("sqlite:////t/50%/s.db",
                                  options=["/t/$HOME x", "/t/a\\\"b", "/t/caf\udce9", "/t/ok"])
    exec_start = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    assert exec_start.endswith(' sweep --json --store "sqlite:////t/50%%/s.db" "/t/$$HOME x" "/t/a\\\\\\"b" '
                               '"/t/caf\\xe9" /t/ok')


needs_systemd = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")


@needs_systemd
@pytest.mark.parametrize("word", [w for w in TRICKY if "$" not in w])
def test_systemd_reads_each_path_back_as_it_is(word: str, tmp_path: Path) -> None:
    """systemd-analyze names the executable it read when it cannot run it: each word, put
    there, comes back as the path it was ($ is read at run time, for arguments only)."""
    unit = tmp_path / "w.service"
    first = schedule._systemd_word(word)
    unit.write_bytes(f"[Service]\nType=oneshot\nExecStart={first} x\n".encode("utf-8", "surrogateescape"))
    res = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, check=False)
    assert os.fsencode(word) in res.stderr, res.stderr


@needs_systemd
def test_systemd_accepts_the_units_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "forsy_command", lambda: shlex.quote(sys.executable))
    options = schedule.sweep_options(roots=[Path(w) for w in TRICKY])
    text = schedule.systemd_units("sqlite:////t/50%/s.db", options=options)
    at = text.index("# ~/.config/systemd/user/forsy-sweep.timer")
    (tmp_path / "forsy-sweep.service").write_text(text[:at], encoding="utf-8", errors="surrogateescape")
    (tmp_path / "forsy-sweep.timer").write_text(text[at:])
    res = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "forsy-sweep.service"),
                          str(tmp_path / "forsy-sweep.timer")], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr


def test_the_printed_cron_job_runs_the_same_sweep(tmp_path: Path) -> None:
    """Printed by a subprocess in one folder with a relative root and `--settle 0`, run by cron's
    rules from the home folder: the files just written are traced (the default window would
    make them wait) into the store whose path holds a `%`."""
    (tmp_path / "work" / "logs" / "-p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "work" / "logs" / "-p")
    (tmp_path / "50%").mkdir()
    db = tmp_path / "50%" / "s.db"
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}",
           "FORSY_CONFIG": str(tmp_path / "none.toml")}
    env.pop("FORSY_STORE", None)
    printed = subprocess.run([sys.executable, "-m", "forsy.cli", "sweep", "--print-cron", "--settle", "0",
                              "--store", f"sqlite:///{db}", "logs"], cwd=tmp_path / "work", env=env,
                             capture_output=True, text=True, check=True).stdout
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(["/bin/sh", "-c", cron_hands_to_sh(printed.rstrip("\n"))], cwd=home,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin", "FORSY_CONFIG": str(tmp_path / "none.toml"),
                               "XDG_DATA_HOME": str(tmp_path / "data")},
                          check=False)
    log = (home / ".forsy-sweep.log").read_text()
    assert done.returncode == 0, log
    out = json.loads(log.splitlines()[0])
    assert out["store"] == f"sqlite:///{db}" and out["roots"] == [str(tmp_path / "work" / "logs")]
    assert (out["traces_written"], out["waiting"], out["exit_code"]) == (1, 0, 0)
