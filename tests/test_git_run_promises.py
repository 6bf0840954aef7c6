"""How forsy runs git: the bytes of a commit's `git show` do not depend on the user's git config,
a short sha that is not one commit resolves to nothing, and git's failures are said, not hidden.

forsy's own git calls (`run_git`) inherit the environment, so a user's `~/.gitconfig` reaches
them; these tests point `GIT_CONFIG_GLOBAL` at a config that changes everything it can in the
output of `git show` and check the bytes forsy hashes are still git's defaults, line by line.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import GitLookup, _run, read_git
from forsy.sources.git._run import check_repo, iso_of, parse_when, run_git, show_bytes

T0 = 1767261600  # 2026-01-01T10:00:00Z
OLD = "".join(f"old line {i}\n" for i in range(1, 11))  # long enough for git to see the rename
LONG = "".join(f"line {i}\n" if i % 4 else "\n" for i in range(1, 21))  # blank lines 4, 8, 12, 16, 20
# two changes 5 lines apart (one hunk with 3 lines of context, two with 1) and a block of
# braces added where the indent heuristic chooses which `}` starts it
LONG2 = LONG.replace("line 6\n", "six\n").replace("line 11\n", "eleven\n") + "{\n  a\n}\n"
LONG3 = LONG2.replace("{\n  a\n}\n", "{\n  a\n}\n\n{\n  b\n}\n")
# everything a user's config can change in `git show`'s bytes (each one is overridden by forsy)
HOSTILE = """[core]
\tquotepath = false
[diff]
\tnoprefix = true
\tmnemonicPrefix = true
\trelative = true
\trenames = {renames}
\texternal = echo EXTERNAL
\tcontext = 1
\tinterHunkContext = 10
\tindentHeuristic = false
\talgorithm = patience
\tsuppressBlankEmpty = true
\torderFile = {order}
\tsubmodule = log
\tignoreSubmodules = all
[log]
\tshowSignature = true
[color]
\tui = always
[diff "upper"]
\ttextconv = tr a-z A-Z
"""
SIG = "-----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"


def blob(data: str) -> str:
    raw = data.encode()
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()


ONE, TWO = blob("one\n"), blob("two\n")


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, str]:
    """A repository and a signed commit (a `gpgsig` header no key can check) that changes a file
    in `sub/` with a non-ASCII name, a file at the top, a file with a textconv attribute, and
    renames a file."""
    r = Repo(tmp_path_factory.mktemp("gitrun") / "repo")
    r.write(".gitattributes", "*.up diff=upper\n")
    r.write("sub/café.txt", "one\n")
    r.write("top.txt", "top\n")
    r.write("sub/a.up", "lower\n")
    r.write("sub/old.txt", OLD)
    r.write("sub/long.txt", LONG2)
    r.git("add", "-A")
    r.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},sub/mod")  # a submodule
    r.git("commit", "-q", "-m", "first", when=f"@{T0} +0000")
    first = r.git("rev-parse", "HEAD").strip()
    r.write("sub/café.txt", "two\n")
    r.write("top.txt", "top 2\n")
    r.write("sub/a.up", "lower 2\n")
    r.git("mv", "sub/old.txt", "sub/new.txt")
    r.write("sub/long.txt", LONG3.replace("line 6\n", "line 6\n").replace("six\n", "6\n"))
    r.git("add", "-A")
    r.git("update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},sub/mod")
    tree = r.git("write-tree").strip()
    person = f"Ada Dev <ada@example.org> {T0 + 60} +0200"
    body = (f"tree {tree}\nparent {first}\nauthor {person}\ncommitter {person}\n"
            f"gpgsig {SIG}\n\nsecond\n")
    path = r.path.parent / "commit.txt"
    path.write_text(body)
    sha = r.git("hash-object", "-t", "commit", "-w", str(path)).strip()
    return r, sha


def hostile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, renames: str) -> None:
    cfg = tmp_path / "gitconfig"
    (tmp_path / "order").write_text("top.txt\n")  # top.txt first
    cfg.write_text(HOSTILE.format(renames=renames, order=tmp_path / "order"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    gnupg = tmp_path / "gnupg"
    gnupg.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(gnupg))


def test_a_user_s_config_changes_nothing_in_the_show_forsy_hashes(
    signed: tuple[Repo, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    r, sha = signed
    clean = r.git("show", "--format=raw", "--patch", "-M", "--full-index", sha).encode()
    hostile(monkeypatch, tmp_path, "false")
    got = show_bytes(r.path, sha)
    # asked from the folder `sub/` (diff.relative would keep only its files and cut `sub/`)
    assert show_bytes(r.path / "sub", sha) == got == clean
    text = got.decode()
    assert text.startswith(f"commit {sha}\ntree ")  # no gpg lines before the header
    assert f"gpgsig {SIG}\n\n    second\n\n" in text
    assert 'diff --git "a/sub/caf\\303\\251.txt" "b/sub/caf\\303\\251.txt"\n' in text
    assert f"index {ONE}..{TWO} 100644\n" in text
    assert "diff --git a/top.txt b/top.txt\nindex " in text and "\n--- a/top.txt\n+++ b/top.txt\n" in text
    assert "rename from sub/old.txt\nrename to sub/new.txt\n" in text
    assert "-lower\n+lower 2\n" in text  # the blob's text, not what textconv makes of it
    assert "\x1b[" not in text and "EXTERNAL" not in text and "gpg:" not in text
    # git's order (by name), not the order file's; three lines of context, hunks kept apart
    assert [ln[len("diff --git "):] for ln in text.splitlines() if ln.startswith("diff --git")] == [
        "a/sub/a.up b/sub/a.up", '"a/sub/caf\\303\\251.txt" "b/sub/caf\\303\\251.txt"',
        "a/sub/long.txt b/sub/long.txt", "a/sub/mod b/sub/mod", "a/sub/old.txt b/sub/new.txt",
        "a/top.txt b/top.txt"]
    assert f"-Subproject commit {'1' * 40}\n+Subproject commit {'2' * 40}\n" in text  # not diff.submodule=log
    assert "@@ -3,7 +3,7 @@ line 2\n line 3\n \n line 5\n-six\n+6\n line 7\n \n line 9\n" in text


def test_the_raw_and_header_forms_too(
    signed: tuple[Repo, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    r, sha = signed
    raw = r.git("show", "--format=raw", "--raw", "--no-renames", "--no-abbrev", sha).encode()
    header = r.git("show", "--format=raw", "--no-patch", sha).encode()
    hostile(monkeypatch, tmp_path, "copies")
    assert show_bytes(r.path, sha, ":raw") == show_bytes(r.path / "sub", sha, ":raw") == raw
    assert show_bytes(r.path, sha, ":header") == header
    lines = raw.decode().splitlines()
    assert f":100644 100644 {ONE} {TWO} M\t\"sub/caf\\303\\251.txt\"" in lines
    # no rename: the old file deleted and the new one added, each by its full blob id
    assert f":100644 000000 {blob(OLD)} {'0' * 40} D\tsub/old.txt" in lines
    assert f":000000 100644 {'0' * 40} {blob(OLD)} A\tsub/new.txt" in lines
    assert header.decode().endswith("\n    second\n") and b"diff" not in header and b"gpg:" not in header


def test_git_s_failures_are_said(signed: tuple[Repo, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    r, sha = signed
    with pytest.raises(InputError, match=r": git show 0{40} failed: fatal: bad object 0{40}$") as e:
        show_bytes(r.path, "0" * 40)
    assert e.value.path == str(r.path)
    with pytest.raises(InputError, match=r"top.txt: not a git work tree \(no such directory\)$"):
        check_repo(r.path / "top.txt")
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match=r"plain: not a git work tree$") as e:
        check_repo(tmp_path / "plain")
    assert e.value.path == str(tmp_path / "plain")
    check_repo(r.path / "sub")  # a folder of a work tree is in it
    # a repository's own .git folder is neither a work tree nor a bare repository (git says false, false)
    with pytest.raises(InputError, match=r"\.git: not a git work tree$"):
        check_repo(r.path / ".git")
    monkeypatch.setattr(_run, "GIT_TIMEOUT_S", 0.000001)
    with pytest.raises(InputError, match=r": git rev-parse took longer than 1e-06 s$"):
        run_git(r.path, "rev-parse", "HEAD")
    monkeypatch.undo()
    monkeypatch.setenv("PATH", str(tmp_path / "plain"))
    with pytest.raises(InputError, match=r"repo: the git command is not installed$") as e:
        run_git(r.path, "rev-parse", "HEAD")
    assert e.value.path == str(r.path)


def test_run_git_passes_stdin_and_never_fetches(signed: tuple[Repo, str]) -> None:
    r, _ = signed
    got = run_git(r.path, "hash-object", "--stdin", stdin=b"two\n")
    assert got.returncode == 0 and got.stdout.decode().strip() == TWO
    # the child's environment (an alias runs `env`): the three settings that refuse a fetch
    probe = run_git(r.path, "-c", "alias.e=!env", "e")
    seen = dict(line.split("=", 1) for line in probe.stdout.decode().splitlines() if "=" in line)
    assert (seen["GIT_NO_LAZY_FETCH"], seen["GIT_ALLOW_PROTOCOL"], seen["GIT_TERMINAL_PROMPT"]) == ("1", "none", "0")


def test_a_short_sha_that_is_not_one_commit_resolves_to_nothing(signed: tuple[Repo, str]) -> None:
    r, sha = signed
    first = r.git("rev-parse", "HEAD").strip()
    look = GitLookup(r.path)
    assert look.resolve(sha[:12]) == sha and look.resolve(first[:7]) == first
    # a range names two commits, an option names none: rev-parse without --verify would print them
    assert look.resolve(f"{first}..{sha}") is None
    assert look.resolve("--all") is None
    tree = r.git("rev-parse", f"{sha}^{{tree}}").strip()
    assert look.resolve(tree[:10]) is None  # a tree is no commit


def test_an_epoch_is_read_and_written_in_utc_whatever_the_machine_s_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert iso_of(0) == "1970-01-01T00:00:00Z"
        assert iso_of(T0) == "2026-01-01T10:00:00Z"
        # a window bound in epoch seconds is UTC too
        assert parse_when(f" {T0} ", "since") == datetime(2026, 1, 1, 10, tzinfo=UTC)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert os.environ.get("TZ") is None


def test_a_squash_s_range_patch_id_whatever_the_user_s_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The range's diff is hashed like a commit's `git show`: under diff.noprefix, core.quotepath=false
    or diff.relative (the repository named by a folder inside it) the ids still agree."""
    r = Repo(tmp_path / "sq")
    r.write("m.txt", "m\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "base", when=f"@{T0} +0000")
    r.git("checkout", "-q", "-b", "feature")
    r.write("sub/f é.txt", "one\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "f one", when=f"@{T0 + 10} +0000")
    f1 = r.git("rev-parse", "HEAD").strip()
    r.write("sub/f é.txt", "one\ntwo\n")
    r.git("commit", "-q", "-am", "f two", when=f"@{T0 + 20} +0000")
    f2 = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--squash", "feature")
    r.git("commit", "-q", "-m", "squashed", when=f"@{T0 + 30} +0000")
    sq = r.git("rev-parse", "HEAD").strip()
    # git's own patch id of the squash, with git's defaults
    shown = r.git("show", "--format=raw", "--patch", "-M", "--full-index", sq).encode()
    want = subprocess.run(["git", "patch-id", "--stable"], input=shown, capture_output=True, env=r.env,
                          check=True).stdout.decode().split()[0]
    hostile(monkeypatch, tmp_path, "false")
    for folder in (r.path, r.path / "sub"):
        assert GitLookup(folder).range_patch_id(f"{sq}^", f2) == (want, [f1, f2]), folder


def test_a_signed_commit_on_a_branch_is_read_under_log_show_signature(
    signed: tuple[Repo, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`log.showSignature` makes `git log` print gpg's lines among the commits it lists; the window's
    log must list commits only (GitHub signs every commit merged on its web page)."""
    r, sha = signed
    r.git("update-ref", "refs/heads/signed", sha)
    first = r.git("rev-parse", "main").strip()
    hostile(monkeypatch, tmp_path, "false")
    s = read_git(r.path, since=None, until=None, ctx=ReadContext(root=r.path))
    got = [(e.info.sha, e.info.branches) for e in s.events if isinstance(e.info, CommitInfo)]
    assert got == [(first, ["main", "signed"]), (sha, ["signed"])]


def test_the_range_of_a_branch_named_like_a_folder_without_its_merges(tmp_path: Path) -> None:
    """A branch `docs` beside a folder `docs/`, which merged main into itself once: its range holds
    its own commits (not the merge), and a branch whose commits undo each other has no patch id."""
    r = Repo(tmp_path / "rg")
    r.write("docs/a.md", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "base", when=f"@{T0} +0000")
    r.git("checkout", "-q", "-b", "docs")
    r.write("docs/a.md", "a\nb\n")
    r.git("commit", "-q", "-am", "b", when=f"@{T0 + 10} +0000")
    d1 = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "main")
    r.write("m.txt", "m\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "main moves", when=f"@{T0 + 15} +0000")
    r.git("checkout", "-q", "docs")
    r.git("merge", "-q", "--no-edit", "main", when=f"@{T0 + 20} +0000")
    r.write("docs/a.md", "a\nb\nc\n")
    r.write("docs/z.md", "z\n")  # two files: git's stable and unstable patch ids differ
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "c", when=f"@{T0 + 30} +0000")
    d2 = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "main")
    got = GitLookup(r.path).range_patch_id("main", "docs")
    assert got is not None and got[1] == [d1, d2]
    diff = r.git("diff", "--full-index", "main", "docs", "--").encode()
    want = subprocess.run(["git", "patch-id", "--stable"], input=diff, capture_output=True, env=r.env,
                          check=True).stdout.decode().split()[0]
    assert got[0] == want
    r.git("checkout", "-q", "-b", "undo")
    r.write("docs/a.md", "x\n")
    r.git("commit", "-q", "-am", "x", when=f"@{T0 + 40} +0000")
    r.git("revert", "--no-edit", "HEAD", when=f"@{T0 + 50} +0000")
    assert GitLookup(r.path).range_patch_id("main", "undo") is None  # two commits, an empty diff
