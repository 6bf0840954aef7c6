"""`git/_refs.py`: the branches listed as git names them (whatever characters their names hold),
git's refusals said in its words even when they quote bytes that are no UTF-8 (a name made on a
Latin-1 system), and a squash's range: none when it adds only a merge, found though a file of
the work tree is named like it. Real repositories built here; expectations by hand.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.sources.git._refs import LOG_REFS, Branch, GitLookup, branches, containing, log_times

T0 = 1767261600  # 2026-01-01T10:00:00Z


def _repo(path: Path) -> tuple[Repo, str]:
    r = Repo(path)
    r.write("a.txt", "a\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "one", when=f"@{T0} +0000")
    return r, r.git("rev-parse", "HEAD").strip()


def test_a_branch_name_holding_a_unicode_line_break_is_one_branch(tmp_path: Path) -> None:
    # git allows any byte but controls, blanks and a few signs in a ref name: U+0085 (NEL) and
    # U+2028 (LINE SEPARATOR) are two and three UTF-8 bytes it keeps; only `\n` ends a line of
    # its output
    r, one = _repo(tmp_path / "u")
    r.git("branch", "n\u0085l")
    r.git("branch", "x\u2028y")
    assert branches(r.path) == [Branch("main", "refs/heads/main"), Branch("n\u0085l", "refs/heads/n\u0085l"),
                                Branch("x\u2028y", "refs/heads/x\u2028y")]
    assert containing(r.path, branches(r.path), {one}) == {one: ["main", "n\u0085l", "x\u2028y"]}


def test_a_broken_ref_whose_name_is_no_utf8_is_said_in_gits_words(tmp_path: Path) -> None:
    # a branch file naming an object the repository lacks (a copy half made): git log refuses
    # the whole window, and its message quotes the name's bytes `caf\xe9`
    r, _ = _repo(tmp_path / "l")
    (r.path / ".git" / "refs" / "heads" / "caf\udce9").write_text("12" * 20 + "\n")
    with pytest.raises(InputError, match=r"/l: git log failed: fatal: bad object caf\ufffd$") as e:
        log_times(r.path, LOG_REFS)
    assert e.value.path == str(r.path)


def test_a_latin1_branch_gone_before_its_rev_list_is_said_in_gits_words(tmp_path: Path) -> None:
    r, one = _repo(tmp_path / "g")
    gone = Branch("caf\ufffd", "refs/heads/caf\udce9")  # as `branches` gave it, then deleted
    with pytest.raises(InputError, match=r"/g: git rev-list caf\ufffd failed: "
                                         r"fatal: bad revision 'refs/heads/caf\ufffd'$"):
        containing(r.path, [gone], {one})


def test_a_range_that_adds_only_a_merge_is_no_squash_candidate(tmp_path: Path) -> None:
    # `tip` is a merge of `main` with its own parent that changed a file itself (an "evil"
    # merge): the range has a diff but no commit of its own to link a squash to
    r, one = _repo(tmp_path / "m")
    r.write("a.txt", "a2\n")
    r.git("commit", "-q", "-am", "two", when=f"@{T0 + 60} +0000")
    two = r.git("rev-parse", "HEAD").strip()
    r.write("a.txt", "a3\n")
    r.git("add", "-A")
    tree = r.git("write-tree").strip()
    merge = r.git("commit-tree", tree, "-p", two, "-p", one, "-m", "merge", when=f"@{T0 + 120} +0000").strip()
    assert r.git("rev-list", "--no-merges", f"{two}..{merge}", "--") == ""
    assert r.git("diff", "--stat", two, merge) != ""
    assert GitLookup(r.path).range_patch_id(two, merge) is None


def test_a_file_named_like_the_range_is_not_taken_for_it(tmp_path: Path) -> None:
    # without `--` ending the revisions, git refuses an argument that also names a file in the
    # work tree ("ambiguous argument"): a file named `<base>..<tip>` must not hide the range
    r, one = _repo(tmp_path / "f")
    r.git("checkout", "-q", "-b", "feature")
    r.write("b.txt", "b\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "b", when=f"@{T0 + 60} +0000")
    b = r.git("rev-parse", "HEAD").strip()
    r.write(f"{one}..feature", "a file, not a range\n")  # untracked: no commit changes
    shown = r.git("show", "--format=raw", "--patch", "--full-index", b).encode()
    pid = subprocess.run(["git", "patch-id", "--stable"], input=shown, capture_output=True, env=r.env,
                         check=True).stdout.decode().split()[0]
    assert GitLookup(r.path).range_patch_id("main", "feature") == (pid, [b])
