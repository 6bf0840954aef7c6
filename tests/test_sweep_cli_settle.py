"""The settle window is checked once (`config.settle_seconds`) wherever it is given: `--settle`,
the config file's `settle_seconds`, FORSY_SETTLE_SECONDS. A number of seconds, 0 or more;
negative, `nan` (which disabled the window) and `inf` (every session waiting for ever) are
refused with exit 2, naming where the value came from, before anything runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import forsy.config
from _paths import SAMPLES
from forsy.cli import app
from forsy.config import load_config
from forsy.errors import ExitCode, InputError

runner = CliRunner()
BAD = ["-5", "-0.001", "nan", "inf", "-inf", "NaN"]


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A session file written just now: inside any settle window but 0."""
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("FORSY_SETTLE_SECONDS", raising=False)
    (tmp_path / "logs" / "-p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "logs" / "-p")
    return tmp_path / "logs"


@pytest.mark.parametrize("value", BAD)
@pytest.mark.parametrize("extra", [[], ["--print-cron"]], ids=["sweep", "print-cron"])
def test_the_command_line_refuses_what_the_config_refuses(value: str, extra: list[str], root: Path,
                                                          tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    res = runner.invoke(app, ["sweep", f"--settle={value}", "--store", f"sqlite:///{db}", *extra, str(root)])
    assert res.exit_code == ExitCode.INPUT, res.output
    assert res.stderr == f"forsy: error: --settle must be a number of seconds >= 0, not {float(value):g}\n"
    assert res.stdout == "" and not db.exists()


@pytest.mark.parametrize(("value", "waiting"), [("0", 0), ("30", 1), ("45.5", 1)])
def test_a_window_of_zero_or_more_is_taken(value: str, waiting: int, root: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["sweep", "--json", f"--settle={value}", "--store", f"sqlite:///{tmp_path / 's.db'}",
                              str(root)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["waiting"], out["traces_written"]) == (waiting, 1 - waiting)


@pytest.mark.parametrize(("toml", "shown"), [("-5", "-5"), ("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"),
                                             ("-0.5", "-0.5"), ('"120"', "'120'"), ("true", "True")])
def test_the_config_file_refuses_them_too(toml: str, shown: str, root: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"settle_seconds = {toml}\n")
    res = runner.invoke(app, ["sweep", "--config", str(cfg), "--store", f"sqlite:///{tmp_path / 's.db'}", str(root)])
    assert res.exit_code == ExitCode.INPUT
    assert res.stderr == f"forsy: error: {cfg}: config key 'settle_seconds' must be a number of seconds >= 0, " \
                         f"not {shown}\n"


@pytest.mark.parametrize("value", ["-5", "nan", "inf"])
def test_and_so_does_the_environment(value: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=f"^FORSY_SETTLE_SECONDS must be a number of seconds >= 0, not {value}$"):
        load_config(tmp_path / "none.toml", env={"FORSY_SETTLE_SECONDS": value})
    assert load_config(tmp_path / "none.toml", env={"FORSY_SETTLE_SECONDS": "0"}).settle_seconds == 0.0


def test_one_check_for_every_place() -> None:
    check = forsy.config.settle_seconds
    assert (check(0, "x"), check(2.5, "x"), check(7, "x")) == (0.0, 2.5, 7.0)
    for bad in (-1, float("nan"), float("inf"), "5", None, False):
        with pytest.raises(InputError, match="^where must be a number of seconds >= 0"):
            check(bad, "where")
