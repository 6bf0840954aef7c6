"""What `read_git` says of the session as a whole, on a repository built here: its id (a rule:
the source kind, the repository's folder name, the window and the digests of every commit's
`git show` bytes, each a source of its own), its agent, branch and working folder, each commit's
branches (none asked when one revision is read) and patch id, and a window with no commit said
with the window and what was searched. Times outside the format are refused naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.ids import make_id
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import read_git
from forsy.sources.git._run import show_bytes
from forsy.sources.lines import sha256

T0 = 1767261600  # 2026-01-01T10:00:00Z


def _repo(tmp_path: Path) -> tuple[Repo, str, str, str]:
    r = Repo(tmp_path / "proj")
    r.write("a.txt", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    r.write("a.txt", "a\nb\n")
    r.git("commit", "-q", "-am", "two", when=f"@{T0 + 60} +0000")
    r.git("checkout", "-q", "-b", "side")
    r.write("c.txt", "c\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "three", when=f"@{T0 + 120} +0000")
    r.git("checkout", "-q", "main")
    one, two, three = (r.git("rev-parse", x).strip() for x in ("main^", "main", "side"))
    return r, one, two, three


def test_the_session_of_a_window(tmp_path: Path) -> None:
    r, one, two, three = _repo(tmp_path)
    since, until = "2026-01-01T09:59:00Z", "2026-01-01T11:00:00Z"
    s = read_git(r.path, since=since, until=until, ctx=ReadContext(root=r.path))
    shas = [e.info.sha for e in s.events if isinstance(e.info, CommitInfo)]
    assert sorted(shas) == sorted([one, two, three])
    shows = {sha: show_bytes(r.path, sha) for sha in shas}
    assert [(f.path, f.abs_path, f.kind, f.bytes, f.sha256) for f in s.files] == [
        (f"git:proj@{sha}", str(r.path), "git", len(shows[sha]), sha256(shows[sha])) for sha in shas]
    assert s.session_id == make_id("git", "proj", since, until, [sha256(shows[sha]) for sha in shas])
    assert (s.source_kind, s.meta.agent, s.meta.git_branch, s.meta.cwd) == ("git", "git", "main", str(r.path))
    infos = {e.info.sha: e.info for e in s.events if isinstance(e.info, CommitInfo)}
    assert {sha: i.branches for sha, i in infos.items()} == {one: ["main", "side"], two: ["main", "side"],
                                                             three: ["side"]}
    assert all(isinstance(i.patch_id, str) and len(i.patch_id) == 40 for i in infos.values())
    assert len({i.patch_id for i in infos.values()}) == 3 and all(i.missing == [] for i in infos.values())
    assert s.warnings == []
    # one revision read: its commits only, and no branch asked of them
    one_rev = read_git(r.path, since=since, until=until, ctx=ReadContext(root=r.path), rev="main")
    assert sorted((e.info.sha, e.info.branches) for e in one_rev.events if isinstance(e.info, CommitInfo)) == sorted(
        [(one, None), (two, None)])
    other = read_git(r.path, since="2026-01-01T09:59:00Z", until=None, ctx=ReadContext(root=r.path))
    assert other.session_id == make_id("git", "proj", "2026-01-01T09:59:00Z", None, [f.sha256 for f in other.files])
    assert other.session_id != s.session_id  # the window is part of it


def test_a_commit_only_the_reflog_holds_is_on_no_branch(tmp_path: Path) -> None:
    r, one, two, three = _repo(tmp_path)
    r.git("reset", "-q", "--hard", "main^")
    r.git("branch", "-q", "-D", "side")  # `two` and `three` are left in HEAD's reflog alone
    s = read_git(r.path, since=None, until=None, ctx=ReadContext(root=r.path))
    got = {e.info.sha: e.info.branches for e in s.events if isinstance(e.info, CommitInfo)}
    assert got == {one: ["main"], two: [], three: []}  # read from the reflog, on no branch: [], not unknown


def test_a_window_with_no_commit_is_said_with_what_was_searched(tmp_path: Path) -> None:
    r, *_ = _repo(tmp_path)
    r.git("checkout", "-q", "--detach")
    s = read_git(r.path, since="2030-01-01", until="2030-02-01", ctx=ReadContext(root=r.path))
    assert (s.events, s.files, s.meta.git_branch) == ([], [], None)  # a detached HEAD: no branch
    assert s.session_id == make_id("git", "proj", "2030-01-01", "2030-02-01", [])
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("git_no_commits", "no commit in the window [2030-01-01, 2030-02-01] on any branch or reflog", "git:proj")]
    s = read_git(r.path, since="2030-01-01", until=None, ctx=ReadContext(root=r.path), rev="side")
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("git_no_commits", "no commit in the window [2030-01-01, None] on side", "git:proj")]


@pytest.mark.parametrize(("since", "until", "what"), [("yesterday", None, "since"), (None, "soon", "until")])
def test_a_time_outside_the_format_is_refused_naming_its_option(tmp_path: Path, since: str | None,
                                                                until: str | None, what: str) -> None:
    r, *_ = _repo(tmp_path)
    with pytest.raises(InputError, match=rf"^{what} is not an ISO 8601 time: '{since or until}'$"):
        read_git(r.path, since=since, until=until, ctx=ReadContext(root=r.path))
