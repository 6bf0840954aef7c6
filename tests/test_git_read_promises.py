"""The git source's window read (`git/_read.py`, `_refs.log_times`) on repositories whose HEAD
has no commit of its own, and git log's refusals said with git's words. Real repositories
built here; expectations by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import read_git
from forsy.sources.git._refs import Branch, branches, containing, log_times

T0 = 1767261600  # 2026-01-01T10:00:00Z


def shas(path: Path) -> list[tuple[str | None, list[str] | None]]:
    s = read_git(path, since=None, until=None, ctx=ReadContext(root=path))
    assert s.warnings == []
    return [(e.info.sha, e.info.branches) for e in s.events if isinstance(e.info, CommitInfo)]


def test_a_head_on_a_branch_with_no_commit_yet(tmp_path: Path) -> None:
    r = Repo(tmp_path / "o")
    r.write("a.txt", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    one = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "--orphan", "fresh")  # HEAD -> refs/heads/fresh, not made yet
    assert shas(r.path) == [(one, ["main"])]
    # a bare mirror whose HEAD names a branch it does not have
    bare = tmp_path / "m.git"
    r.git("clone", "-q", "--bare", str(r.path), str(bare))
    Repo(bare, init=False).git("symbolic-ref", "HEAD", "refs/heads/master")
    assert shas(bare) == [(one, ["main"])]


def test_git_log_s_refusals_are_said(tmp_path: Path) -> None:
    r = Repo(tmp_path / "l")
    r.write("docs/a.md", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    r.git("commit", "-q", "--allow-empty", "-m", "two", when=f"@{T0 + 60} +0000")
    two = r.git("rev-parse", "HEAD").strip()
    one = r.git("rev-parse", "HEAD^").strip()
    r.git("branch", "docs")  # a branch named like the folder docs/
    assert log_times(r.path, ("docs",)) == [(two, T0 + 60, T0 + 60), (one, T0, T0)]
    with pytest.raises(InputError, match=r"/l: git log failed: fatal: bad revision 'nope'$") as e:
        log_times(r.path, ("nope",))
    assert e.value.path == str(r.path)
    # one revision is read, never a range or an option (rev-parse without --verify would take them)
    for rev in (f"{one}..{two}", "--all"):
        with pytest.raises(InputError, match=rf"/l: no such revision '{rev}'$"):
            read_git(r.path, since=None, until=None, ctx=ReadContext(root=r.path), rev=rev)


def test_a_branch_whose_name_is_no_utf8_holds_its_commits(tmp_path: Path) -> None:
    r = Repo(tmp_path / "b")
    r.write("a.txt", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    one = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "-b", "caf\udce9")  # the bytes `caf\xe9`: a Latin-1 name
    r.git("commit", "-q", "--allow-empty", "-m", "two", when=f"@{T0 + 60} +0000")
    two = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "main")
    assert shas(r.path) == [(one, ["caf\ufffd", "main"]), (two, ["caf\ufffd"])]
    # a branch gone between the listing and the question (another git at work): said, not guessed
    with pytest.raises(InputError, match=r"/b: git rev-list gone failed: fatal: bad revision 'refs/heads/gone'$"):
        containing(r.path, [Branch("gone", "refs/heads/gone")], {one})


def test_a_commit_on_a_detached_head_only_is_on_head(tmp_path: Path) -> None:
    r = Repo(tmp_path / "d")
    r.write("a.txt", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    one = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "--detach")
    r.git("commit", "-q", "--allow-empty", "-m", "two", when=f"@{T0 + 60} +0000")
    two = r.git("rev-parse", "HEAD").strip()
    assert shas(r.path) == [(one, ["HEAD", "main"]), (two, ["HEAD"])]
    assert branches(r.path) == [Branch("main", "refs/heads/main"), Branch("HEAD", "HEAD")]
    r.git("checkout", "-q", "main")  # on a branch again: HEAD is no branch of its own
    assert branches(r.path) == [Branch("main", "refs/heads/main")]
