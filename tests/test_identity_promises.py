"""Who is reviewing (`review.identity`), when git answers too late: `git config` is given five
seconds; a name it prints after that is not taken (so, with nothing else, the action is refused,
as with no git). A stand-in `git` alone on PATH answers after
5.5 seconds, as a git on a hung network file system could."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forsy.review.identity import _git


def test_a_name_git_gives_after_five_seconds_is_not_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    script = bin_ / "git"
    script.write_text(f'#!/bin/sh\n{shutil.which("sleep")} 5.5\necho "Late Lovelace"\nexit 0\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_))
    assert _git("user.name") == ""  # no wait (or a wait of 6 s) would take "Late Lovelace"
