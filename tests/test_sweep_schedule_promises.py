"""The text `forsy sweep --print-cron` / `--print-systemd` prints: the absolute `forsy` command
(cron and systemd do not see the user's PATH), found each way in turn, and the exact lines."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from forsy.sweep import schedule
from forsy.sweep.schedule import cron_line, forsy_command, systemd_units


def _which(found: str | None) -> object:
    def which(name: str) -> str | None:
        assert name == "forsy"
        return found
    return which


def test_the_forsy_that_runs_is_named_through_its_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "venv" / "bin"
    real.mkdir(parents=True)
    (real / "forsy").write_text("#!/bin/sh\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "forsy").symlink_to(real / "forsy")
    monkeypatch.setattr(shutil, "which", _which("/elsewhere/forsy"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["bin/forsy", "sweep"])  # relative, as a shell may give it
    assert forsy_command() == str(real / "forsy")


@pytest.mark.parametrize("argv", [[], [""], ["/nowhere/forsy"], ["/usr/bin/python3"]],
                         ids=["no-argv", "empty-argv0", "forsy-not-a-file", "another-program"])
def test_otherwise_the_forsy_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "forsy").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "v")
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(shutil, "which", _which(str(tmp_path / "link" / "forsy")))
    assert forsy_command() == str(tmp_path / "v" / "forsy")


def test_otherwise_this_python_with_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["python3"])
    monkeypatch.setattr(shutil, "which", _which(None))
    monkeypatch.setattr(sys, "executable", "/opt/my python/bin/python3")
    assert forsy_command() == "'/opt/my python/bin/python3' -m forsy.cli"
    monkeypatch.setattr(shutil, "which", _which(""))
    assert forsy_command() == "'/opt/my python/bin/python3' -m forsy.cli"


@pytest.fixture
def cmd(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(schedule, "forsy_command", lambda: "/v/bin/forsy")
    return "/v/bin/forsy"


def test_the_cron_line(cmd: str) -> None:
    assert cron_line() == ("*/15 * * * * /v/bin/forsy sweep --json >> $HOME/.forsy-sweep.log 2>&1"
                           "  # forsy: sweep agent logs into the store")
    assert cron_line("sqlite:////my store.db", 5, "/tmp/s.log") == (
        "*/5 * * * * /v/bin/forsy sweep --json --store 'sqlite:////my store.db' >> /tmp/s.log 2>&1"
        "  # forsy: sweep agent logs into the store")
    assert cron_line("") == cron_line()  # an empty store is no store


def test_the_systemd_units(cmd: str) -> None:
    assert systemd_units("postgresql://h/db", 30) == """# ~/.config/systemd/user/forsy-sweep.service
[Unit]
Description=forsy: sweep agent logs into the store of draft traces

[Service]
Type=oneshot
ExecStart=/v/bin/forsy sweep --json --store postgresql://h/db
Nice=10

# ~/.config/systemd/user/forsy-sweep.timer
[Unit]
Description=Run forsy sweep every 30 minutes

[Timer]
OnBootSec=5min
OnUnitActiveSec=30min
Persistent=true

[Install]
WantedBy=timers.target

# then: systemctl --user daemon-reload && systemctl --user enable --now forsy-sweep.timer
"""
    default = systemd_units()
    assert "ExecStart=/v/bin/forsy sweep --json\n" in default
    assert "Description=Run forsy sweep every 15 minutes\n" in default and "OnUnitActiveSec=15min\n" in default
