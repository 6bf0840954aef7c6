"""A root of `forsy sweep` that is not there (a disk not mounted, a folder moved), given on the
command line, in the config file or as the only root, and a `--config` file that is not there:
the missing root is a fault of the run (the other roots swept, exit 7, named by `--status`
until it is back, what the store has of it kept as it was); a `--config` the user named and
that is not there is an input error before anything runs (exit 2)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forsy.config
from _paths import SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode
from forsy.store import open_store
from forsy.sweep import SweepOptions, sweep

runner = CliRunner()
MISSING = "no such file or directory: a root of this sweep (a disk not mounted, a folder moved or deleted?)"
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
PRINT = SAMPLES / "claude" / "print-mode-run.jsonl"
SIDE = SAMPLES / "claude" / "legacy-inline-sidechain.jsonl"


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """A/-p/demo-session.jsonl and B/-p/print-mode-run.jsonl."""
    a, b = tmp_path / "A", tmp_path / "B"
    for root, src in ((a, DEMO), (b, PRINT)):
        (root / "-p").mkdir(parents=True)
        shutil.copy(src, root / "-p" / src.name)
    return a, b


@pytest.fixture(autouse=True)
def _no_agent_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No agent folder of this machine, no FORSY_ROOTS, no config file but the one a test names."""
    monkeypatch.setattr(forsy.config, "default_log_roots", lambda *a, **k: [tmp_path / "no-agent-here"])
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "no-default-config.toml"))
    for name in ("FORSY_ROOTS", "FORSY_STORE", "FORSY_SETTLE_SECONDS", "FORSY_HISTORIES", "FORSY_GIT"):
        monkeypatch.delenv(name, raising=False)


def _sweep(db: Path, *args: str) -> Any:
    return runner.invoke(app, ["sweep", "--now", "--json", "--store", f"sqlite:///{db}", *args])


def _status(db: Path) -> tuple[int, dict[str, Any]]:
    res = runner.invoke(app, ["sweep", "--status", "--json", "--store", f"sqlite:///{db}"])
    return res.exit_code, json.loads(res.stdout)


def test_a_missing_root_on_the_command_line_is_a_fault_and_the_others_are_swept(
        roots: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = roots
    db = tmp_path / "s.db"
    assert _sweep(db, str(a), str(b)).exit_code == 0
    b.rename(tmp_path / "B.unmounted")
    shutil.copy(SIDE, a / "-p" / SIDE.name)  # new work in A meanwhile
    res = _sweep(db, str(a), str(b))
    assert res.exit_code == ExitCode.PARTIAL, res.output
    out = json.loads(res.stdout)
    assert [(f["path"], f["what"], f["reason"], f["runs"]) for f in out["faults"]] == [(str(b), "folder", MISSING, 1)]
    # A's new session is traced; B's remembered session is out of sight, not gone
    assert (out["new"], out["unchanged"], out["gone"], out["traces_written"], out["exit_code"]) == (1, 1, 0, 1, 7)
    code, status = _status(db)
    assert code == ExitCode.PARTIAL and [f["path"] for f in status["faults"]] == [str(b)]
    assert status["runs"][0]["status"] == "done" and status["gone"] == 0
    text = runner.invoke(app, ["sweep", "--status", "--store", f"sqlite:///{db}"]).stdout
    assert f"SKIPPED folder {b}: {MISSING}" in text and text.endswith("partly failing (exit 7)\n")
    # mounted again: its session is as it was (not traced again), and the fault is forgotten
    (tmp_path / "B.unmounted").rename(b)
    back = json.loads(_sweep(db, str(a), str(b)).stdout)
    assert (back["faults"], back["unchanged"], back["traces_written"], back["exit_code"]) == ([], 3, 0, 0)
    assert _status(db)[0] == 0


def test_the_text_summary_names_the_missing_root(roots: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = roots
    shutil.rmtree(b)
    res = runner.invoke(app, ["sweep", "--now", "--store", f"sqlite:///{tmp_path / 's.db'}", str(a), str(b)])
    assert res.exit_code == ExitCode.PARTIAL
    assert res.stdout.startswith("swept 2 root(s)") and "1 failed (1 of them skipped for a fault" in res.stdout
    assert f"forsy: skipped: {b}: {MISSING}; tried again next run" in res.stderr
    assert "forsy: error" not in res.stderr


def test_a_missing_root_of_the_config_file_is_a_fault_not_dropped(roots: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = roots
    shutil.rmtree(b)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"roots = [{json.dumps(str(a))}, {json.dumps(str(b))}]\n")
    res = _sweep(tmp_path / "s.db", "--config", str(cfg))
    assert res.exit_code == ExitCode.PARTIAL, res.output
    out = json.loads(res.stdout)
    assert out["roots"] == [str(a), str(b)] and [f["path"] for f in out["faults"]] == [str(b)]
    assert out["traces_written"] == 1


def test_an_agent_folder_that_is_not_there_stays_silently_out(roots: tuple[Path, Path], tmp_path: Path) -> None:
    """The agents' own folders are looked for: one not there is an agent not used here."""
    a, _ = roots
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"roots = [{json.dumps(str(a))}]\n")
    res = _sweep(tmp_path / "s.db", "--config", str(cfg))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["roots"] == [str(a)] and out["faults"] == []


def test_a_run_whose_every_root_is_missing_is_recorded_and_exits_7(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gone = [tmp_path / "X", tmp_path / "Y" / "s.jsonl"]
    res = _sweep(db, *map(str, gone))
    assert res.exit_code == ExitCode.PARTIAL, res.output
    out = json.loads(res.stdout)
    assert [(f["path"], f["what"]) for f in out["faults"]] == [(str(gone[0]), "folder"), (str(gone[1]), "file")]
    assert (out["seen"], out["failed"], out["run_id"]) == (0, 2, 1)
    code, status = _status(db)
    assert code == ExitCode.PARTIAL and [r["status"] for r in status["runs"]] == ["done"]


def test_a_root_that_is_one_session_file_and_vanished_keeps_its_state(tmp_path: Path) -> None:
    one = tmp_path / "logs" / "a.jsonl"
    one.parent.mkdir()
    shutil.copy(DEMO, one)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        opts = SweepOptions(roots=[one], ignore_settle=True, claude_home=tmp_path / "none")
        assert sweep(store, opts).counts.traced == 1
        one.rename(tmp_path / "aside.jsonl")
        rep = sweep(store, opts)
        assert [(f.path, f.what, f.reason) for f in rep.faults] == [(str(one), "file", MISSING)]
        assert (rep.counts.gone, rep.exit_code) == (0, ExitCode.PARTIAL)
        assert store.file_states([str(one)])[str(one)].status == "ok"
        (tmp_path / "aside.jsonl").rename(one)
        again = sweep(store, opts)
        assert (again.faults, again.counts.unchanged, again.exit_code) == ([], 1, 0)
    finally:
        store.close()


def test_a_config_file_named_that_is_not_there_is_an_input_error_before_anything_runs(
        roots: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = roots
    db = tmp_path / "s.db"
    typo = tmp_path / "typo-config.toml"
    for extra in ([], ["--status"], ["--print-cron"]):
        res = runner.invoke(app, ["sweep", "--now", "--config", str(typo), "--store", f"sqlite:///{db}", *extra,
                                  str(a)])
        assert res.exit_code == ExitCode.INPUT, res.output
        assert res.stderr == f"forsy: error: {typo}: no such config file\n" and res.stdout == ""
    folder = tmp_path / "conf.d"
    folder.mkdir()
    res = runner.invoke(app, ["sweep", "--config", str(folder), "--store", f"sqlite:///{db}", str(a)])
    assert res.exit_code == ExitCode.INPUT and "the config file is not a file" in res.stderr
    assert not db.exists()  # nothing ran: not even the store was made


def test_the_default_config_file_may_be_absent(roots: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = roots
    assert not Path(os.environ["FORSY_CONFIG"]).exists()
    res = _sweep(tmp_path / "s.db", str(a))
    assert res.exit_code == 0, res.output


def test_a_fault_of_a_root_no_longer_swept_says_when_it_was_last_tried(roots: tuple[Path, Path],
                                                                       tmp_path: Path) -> None:
    a, _ = roots
    gone = tmp_path / "unmounted"
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert runner.invoke(app, ["sweep", str(a), str(gone), "--store", db, "--now"]).exit_code == ExitCode.PARTIAL
    status = runner.invoke(app, ["sweep", "--status", "--store", db]).output
    assert "tried again each run" in status  # the newest run met it
    runner.invoke(app, ["sweep", str(a), "--store", db, "--now"])  # the cron line no longer names it
    status = runner.invoke(app, ["sweep", "--status", "--store", db]).output
    line = next(ln for ln in status.splitlines() if ln.startswith("SKIPPED") and "unmounted" in ln)
    assert "tried again each run" not in line
    assert "last tried" in line and "by run 1; run 2 swept other roots" in line


def test_a_failing_file_says_when_it_was_last_tried(roots: tuple[Path, Path], tmp_path: Path) -> None:
    """The time shown is the last try (the store keeps no first failure): it said `since`."""
    a, _ = roots
    (a / "-p" / "broken-0000-1111.jsonl").write_text('{"type": "user", "sessionId": "x"\n')
    db = f"sqlite:///{tmp_path / 'store.db'}"
    runner.invoke(app, ["sweep", str(a), "--store", db, "--now"])
    line = next(ln for ln in runner.invoke(app, ["sweep", "--status", "--store", db]).output.splitlines()
                if ln.startswith("FAILING"))
    assert "broken-0000-1111.jsonl" in line and "(last tried " in line and "(since" not in line
    out = runner.invoke(app, ["sweep", "--status", "--store", db, "--json"]).output
    [f] = json.loads(out.strip().splitlines()[-1])["failures"]
    assert f["last_tried"] == f["since"]


def test_with_json_each_file_is_still_named_on_stderr(roots: tuple[Path, Path], tmp_path: Path) -> None:
    """As docs/sweep.md says: stdout is the one JSON line, and a file that failed or was already
    in the store is named on stderr too (a cron log keeps both); the summary line is not."""
    a, _ = roots
    (a / "-p" / "broken-0000-1111.jsonl").write_text('{"type": "user", "sessionId": "x"\n')
    shutil.copy(DEMO, a / "-p" / "copy-of-demo.jsonl")
    db = f"sqlite:///{tmp_path / 'store.db'}"
    r = runner.invoke(app, ["sweep", str(a), "--store", db, "--now", "--json"])
    assert len(r.stdout.strip().splitlines()) == 1 and json.loads(r.stdout)["failed"] == 1
    assert "forsy: failed: " in r.stderr and "broken-0000-1111.jsonl" in r.stderr
    assert "forsy: already in the store: " in r.stderr and "swept 1 root(s)" not in r.stderr
