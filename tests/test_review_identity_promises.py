"""Who is reviewing (`review.identity.reviewer`) when it comes from git: a stand-in `git` first on
PATH answers (or fails, or hangs) as a real one could; a git that is not there, fails or hangs
gives no name, so the action is refused rather than recorded under a made-up one; the refusal
names every way to give one; a name is one printable line of at most 200 characters."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from _deadline import within
from forsy.errors import InputError
from forsy.review.identity import _git, clean, reviewer

REFUSED = "who is reviewing?"


def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """`git` on PATH alone: a shell script given `config --get KEY` ($3 is the key)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    script = bin_ / "git"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_))


@pytest.mark.parametrize(("name", "email", "want"), [
    ("Grace Hopper", "grace@example.org", "Grace Hopper <grace@example.org>"),
    ("Grace  Hopper", "", "Grace Hopper"),
    ("", "grace@example.org", "grace@example.org"),
])
def test_git_gives_a_name_and_an_email_or_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 name: str, email: str, want: str) -> None:
    fake_git(tmp_path, monkeypatch, f'case "$3" in\n  user.name) [ -n "{name}" ] && echo "{name}" && exit 0;;\n'
                                    f'  user.email) [ -n "{email}" ] && echo " {email} " && exit 0;;\nesac\nexit 1\n')
    assert reviewer(None, {}, configured="") == want


def test_no_git_on_the_path_gives_no_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert _git("user.name") == ""
    with pytest.raises(InputError, match=REFUSED):
        reviewer(None, {}, configured="")


def test_what_a_failing_git_prints_is_not_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_git(tmp_path, monkeypatch, 'echo "Ghost Writer"\nexit 1\n')
    with pytest.raises(InputError, match=REFUSED):
        reviewer(None, {}, configured="")


def test_a_git_that_hangs_is_given_up_on_after_5_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_git(tmp_path, monkeypatch, f"exec {shutil.which('sleep')} 60\n")
    t0 = time.monotonic()
    with within(30):  # without the 5 s timeout this waits a minute
        assert _git("user.name") == ""
    assert 4.5 < time.monotonic() - t0 < 30


def test_the_refusal_says_every_way_to_name_a_reviewer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(InputError) as e:
        reviewer(None, {}, configured="")
    assert e.value.message == ("who is reviewing? give --reviewer 'Name <email>', set FORSY_REVIEWER, "
                               "or set git config user.name and user.email")


def test_a_name_of_200_characters_is_kept_and_201_refused() -> None:
    assert clean("  " + "a" * 200 + " ") == "a" * 200
    assert clean("Ada\tLovelace\n <ada@example.org>") == "Ada Lovelace <ada@example.org>"
    for bad in ("a" * 201, "Ada \x1b[31mLovelace"):
        with pytest.raises(InputError) as e:
            clean(bad)
        assert e.value.message == "a reviewer's name is one printable line of at most 200 characters"
