"""The git SOURCE on ambiguous and misleading commits, read from real repositories.

The timeline's rules about these commits are pinned against a scripted repository
(tests/test_commits_promises_2.py); here the repository is real and what is pinned is what the
source reads from it: a short sha two commits share is resolved to neither, a later commit with
the same subject is its own event, an amended or rewritten commit is kept with the branches that
hold it and the patch id that ties it to its new form, and a squash's range patch id.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.evidence import Session
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import GitLookup, GitSource, read_git

T0 = 1767261600  # 2026-01-01T10:00:00Z
PERSON = "Ada Dev <ada@example.org>"


def when(sec: int) -> str:
    return f"@{T0 + sec} +0000"


def commit(r: Repo, sec: int, *args: str) -> str:
    r.git("commit", "-q", *args, when=when(sec))
    return r.git("rev-parse", "HEAD").strip()


def infos(s: Session) -> list[CommitInfo]:
    return [e.info for e in s.events if isinstance(e.info, CommitInfo)]


def read(r: Repo, **kw: str) -> Session:
    return read_git(r.path, since=kw.get("since"), until=kw.get("until"), ctx=ReadContext(root=r.path),
                    rev=kw.get("rev"))


def _commit_object(tree: str, parent: str, sec: int, msg: str) -> bytes:
    stamp = f"{T0 + sec} +0000"
    return (f"tree {tree}\nparent {parent}\nauthor {PERSON} {stamp}\ncommitter {PERSON} {stamp}\n\n{msg}\n"
            ).encode()


def _sha1_of_commit(body: bytes) -> str:
    return hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, str, str]:
    """Two commits (same tree, same parent, same subject) whose shas share their first 4 digits,
    each on a branch of its own. Found by hashing candidate messages as git would (a birthday
    search over 4 hex digits takes a few hundred tries), then written with `git hash-object`."""
    r = Repo(tmp_path_factory.mktemp("twins") / "twins")
    r.write("x.txt", "x\n")
    r.git("add", "x.txt")
    base = commit(r, 0, "-m", "base")
    tree = r.git("rev-parse", "HEAD^{tree}").strip()
    seen: dict[str, bytes] = {}
    pair: tuple[bytes, bytes] | None = None
    for n in range(100_000):
        body = _commit_object(tree, base, 60, f"fix: the same subject\n\nTry: {n}")
        p = _sha1_of_commit(body)[:4]
        if p in seen:
            pair = (seen[p], body)
            break
        seen[p] = body
    assert pair is not None
    shas = []
    for i, body in enumerate(pair):
        sha = subprocess.run(["git", "-C", str(r.path), "hash-object", "-t", "commit", "-w", "--stdin"], input=body,
                             env=r.env, capture_output=True, check=True).stdout.decode().strip()
        assert sha == _sha1_of_commit(body)  # git hashed what we did
        r.git("update-ref", f"refs/heads/twin{i}", sha)
        shas.append(sha)
    return r, shas[0], shas[1]


# --- a short sha two commits share ----------------------------------------------------------------


def test_a_short_sha_two_commits_share_is_resolved_to_neither(twins: tuple[Repo, str, str]) -> None:
    r, a, b = twins
    assert a[:4] == b[:4] and a != b
    look = GitLookup(r.path)
    assert look.resolve(a[:4]) is None  # ambiguous: git refuses it, and so does the lookup
    k = next(k for k in range(5, 41) if a[:k] != b[:k])  # the first length that tells them apart
    assert (look.resolve(a[:k]), look.resolve(b[:k])) == (a, b)
    assert look.resolve(a) == a and look.resolve("0" * 40) is None and look.resolve("zz") is None
    tree = r.git("rev-parse", f"{a}^{{tree}}").strip()
    assert look.resolve(tree) is None  # a tree is not a commit


def test_both_twins_are_read_each_as_its_own_commit(twins: tuple[Repo, str, str]) -> None:
    r, a, b = twins
    s = read(r)
    got = {i.sha: i for i in infos(s)}
    assert set(got) == {a, b, r.git("rev-parse", "main").strip()}
    assert (got[a].branches, got[b].branches) == (["twin0"], ["twin1"])
    subjects = {e.info.sha: (e.text or "").split("\n")[0] for e in s.events if isinstance(e.info, CommitInfo)}
    assert subjects[a] == subjects[b] == "fix: the same subject"
    assert [f.path for f in s.files if f.path.endswith((a, b))] == sorted(
        [f"git:twins@{a}", f"git:twins@{b}"], key=lambda p: [i.sha for i in infos(s)].index(p[-40:]))
    # an empty change (same tree as the parent): no patch id, so no "same change" claim between them
    assert (got[a].patch_id, got[b].patch_id) == (None, None)


# --- a later commit with the same subject, an amend, a rewritten commit ----------------------------


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, dict[str, str]]:
    r = Repo(tmp_path_factory.mktemp("hist") / "hist")
    sha: dict[str, str] = {}
    r.write("a.txt", "a\n")
    r.git("add", "a.txt")
    sha["base"] = commit(r, 0, "-m", "base")
    r.write("a.txt", "a\nfix\n")
    sha["fix1"] = commit(r, 10, "-am", "fix: a")
    r.write("a.txt", "a\n")
    sha["revert"] = commit(r, 20, "-am", "revert: a")
    r.write("a.txt", "a\nfix\n")
    sha["fix2"] = commit(r, 30, "-am", "fix: a")  # the same subject AND the same change, later
    r.write("b.txt", "b\n")
    r.git("add", "b.txt")
    sha["b"] = commit(r, 40, "-m", "add b")
    sha["b_amended"] = commit(r, 50, "--amend", "-m", "add b (amended)")  # message only: the same change
    r.git("checkout", "-q", "-b", "topic", sha["fix2"])
    r.write("c.txt", "c\n")
    r.git("add", "c.txt")
    sha["c"] = commit(r, 60, "-m", "add c")
    r.git("checkout", "-q", "main")
    r.git("cherry-pick", "topic", when=when(70))  # rewritten onto main: another sha, the same change
    sha["c_picked"] = r.git("rev-parse", "HEAD").strip()
    return r, sha


def test_a_later_commit_with_the_same_subject_is_its_own_event(history: tuple[Repo, dict[str, str]]) -> None:
    r, sha = history
    s = read(r)
    order = [i.sha for i in infos(s)]
    got = {i.sha: i for i in infos(s)}
    assert order.index(sha["fix1"]) < order.index(sha["revert"]) < order.index(sha["fix2"])
    assert got[sha["fix2"]].parents == [sha["revert"]] and got[sha["fix1"]].parents == [sha["base"]]
    # the same change twice: one patch id; the revert (the opposite change) another
    assert got[sha["fix1"]].patch_id == got[sha["fix2"]].patch_id is not None
    assert got[sha["revert"]].patch_id not in (None, got[sha["fix1"]].patch_id)
    assert got[sha["fix1"]].committer_date == "2026-01-01T10:00:10+00:00"
    assert got[sha["fix2"]].committer_date == "2026-01-01T10:00:30+00:00"


def test_an_amended_commit_is_kept_on_no_branch_with_the_amend_s_patch_id(
        history: tuple[Repo, dict[str, str]]) -> None:
    r, sha = history
    got = {i.sha: i for i in infos(read(r))}
    old, new = got[sha["b"]], got[sha["b_amended"]]
    assert old.branches == [] and new.branches == ["main"]  # only the reflog holds the amended one
    assert old.parents == new.parents == [sha["fix2"]]
    assert old.patch_id == new.patch_id is not None
    assert [f["path"] for f in old.files] == [f["path"] for f in new.files] == ["b.txt"]


def test_a_rewritten_commit_keeps_both_forms_and_their_branches(history: tuple[Repo, dict[str, str]]) -> None:
    r, sha = history
    got = {i.sha: i for i in infos(read(r))}
    orig, picked = got[sha["c"]], got[sha["c_picked"]]
    assert orig.branches == ["topic"] and picked.branches == ["main"]
    assert orig.patch_id == picked.patch_id is not None and orig.parents != picked.parents
    assert orig.author_date == picked.author_date == "2026-01-01T10:01:00+00:00"  # the pick keeps it
    assert picked.committer_date == "2026-01-01T10:01:10+00:00"
    # one revision read: that history only, and the branches not asked
    one = {i.sha: i for i in infos(read(r, rev="topic"))}
    assert sha["c_picked"] not in one and sha["b"] not in one and one[sha["c"]].branches is None
    assert [i.sha for i in infos(read(r, rev="topic"))][-1] == sha["c"]


def test_the_window_keeps_a_commit_by_its_author_or_its_committer_date(
        history: tuple[Repo, dict[str, str]]) -> None:
    r, sha = history
    # the pick was authored at +60 and committed at +70: a window holding either keeps it
    for since, until in (("2026-01-01T10:01:05Z", "2026-01-01T10:01:15Z"),
                         ("2026-01-01T10:00:55Z", "2026-01-01T10:01:05Z")):
        got = [i.sha for i in infos(read(r, since=since, until=until))]
        assert sha["c_picked"] in got and sha["fix2"] not in got
    # the bounds are inclusive: exactly the committer time of fix2
    got = [i.sha for i in infos(read(r, since="2026-01-01T10:00:30Z", until="2026-01-01T10:00:30Z"))]
    assert got == [sha["fix2"]]
    with pytest.raises(InputError, match="no such revision"):
        read(r, rev="no-such-branch")


# --- what the timeline asks the repository ----------------------------------------------------------


def test_range_patch_id_is_the_patch_id_of_the_squash(tmp_path: Path) -> None:
    r = Repo(tmp_path / "sq")
    r.write("m.txt", "m\n")
    r.git("add", "m.txt")
    base = commit(r, 0, "-m", "base")
    r.git("checkout", "-q", "-b", "feature")
    r.write("f.txt", "one\n")
    r.git("add", "f.txt")
    f1 = commit(r, 10, "-m", "f one")
    r.write("f.txt", "one\ntwo\n")
    f2 = commit(r, 20, "-am", "f two")
    r.git("checkout", "-q", "main")
    r.write("m.txt", "m\nmain moves\n")
    commit(r, 25, "-am", "main moves")
    r.git("merge", "-q", "--squash", "feature")
    sq = commit(r, 30, "-m", "feature (squashed)")
    look = GitLookup(r.path)
    s = read(r)
    squash_pid = next(i.patch_id for i in infos(s) if i.sha == sq)
    assert squash_pid is not None
    assert look.range_patch_id(f"{sq}^", f2) == (squash_pid, [f1, f2])
    assert look.range_patch_id(f"{sq}^", base) is None  # nothing since the merge base: no range
    assert look.range_patch_id("no-such", f2) is None
    assert look.is_ancestor(f1, f2) and not look.is_ancestor(f2, f1) and not look.is_ancestor(f2, sq)
    assert look.is_ancestor(base, sq)


def test_read_back_reruns_the_show_of_each_form(history: tuple[Repo, dict[str, str]], tmp_path: Path) -> None:
    r, sha = history
    s = read(r)
    src = GitSource()
    for f in s.files:
        data = src.read_back(f.path, [r.path])
        assert data is not None and hashlib.sha256(data).hexdigest() == f.sha256 and len(data) == f.bytes
    name = f"git:hist@{sha['fix1']}"
    full = src.read_back(name, [r.path.parent])  # the root's folder named after the repository
    assert full is not None and full.startswith(f"commit {sha['fix1']}".encode())
    raw = src.read_back(name + ":raw", [r.path])
    header = src.read_back(name + ":header", [r.path])
    assert raw is not None and header is not None and b"\n:100644 100644 " in raw and b"diff --git" not in raw
    assert header.count(b"\n:") == 0 and b"diff --git" not in header and header in full
    assert src.read_back(name + ":other", [r.path]) is None
    assert src.read_back(f"git:hist@{'0' * 40}", [r.path]) is None  # no such commit there
    assert src.read_back(name, [tmp_path]) is None  # no repository under that root
    assert (src.sniff(r.path, b"commit "), src.discover(r.path)) == (False, [])
    (one,) = src.read(r.path, ReadContext())
    assert one.source_kind == "git" and len(one.events) == len(s.events)


def test_read_back_by_the_root_itself_or_its_folder_of_that_name(history: tuple[Repo, dict[str, str]],
                                                                   tmp_path: Path) -> None:
    r, sha = history
    src = GitSource()
    want = src.read_back(f"git:hist@{sha['fix1']}", [r.path])
    assert want is not None
    # the root itself is read whatever name the evidence gives it (a repository cloned elsewhere)
    assert src.read_back(f"git:other@{sha['fix1']}", [r.path]) == want
    assert src.read_back(f"git:../..@{sha['fix1']}", [r.path]) == want  # a name leaving the root: root only
    # a repository whose folder name holds an "@": the sha is what follows the LAST one
    odd = Repo(tmp_path / "we@rd", init=False)
    r.git("clone", "-q", str(r.path), str(odd.path))
    assert src.read_back(f"git:we@rd@{sha['fix1']}", [tmp_path]) == want


def test_a_partial_clone_names_every_blob_it_lacks(tmp_path: Path) -> None:
    up = Repo(tmp_path / "up")
    shas = []
    for k in range(1, 4):
        up.write("data.txt", f"v{k}\n")
        up.git("add", "data.txt")
        shas.append(commit(up, 10 * k, "-m", f"data v{k}"))
    blob = {k: up.git("rev-parse", f"{shas[k - 1]}:data.txt").strip() for k in range(1, 4)}
    clone = Repo.partial_clone(up, tmp_path / "clone")
    up.path.rename(tmp_path / "up.gone")
    s = read(clone)
    assert s.quality.extra["commits_without_diff"] == 3  # v3's blob came with the checkout; v2's did not
    got = {i.sha: i for i in infos(s)}
    assert got[shas[0]].missing == [f"blob {blob[1]} (data.txt)"]
    assert got[shas[1]].missing == [f"blob {blob[1]} (data.txt)", f"blob {blob[2]} (data.txt)"]
    assert got[shas[2]].missing == [f"blob {blob[2]} (data.txt)"]
    assert got[shas[0]].files == [{"path": "data.txt", "status": "A", "diff": "", "hunks": []}]
    assert got[shas[1]].files == [{"path": "data.txt", "status": "M", "diff": "", "hunks": []}]
    warns = [(w.code, w.message, w.file) for w in s.warnings]
    assert ("git_missing_object", f"commit {shas[1]}: the repository lacks blob {blob[1]} (data.txt), blob "
            f"{blob[2]} (data.txt) (a partial clone; not fetched): kept with its metadata and file list, without "
            "its diff", f"git:clone@{shas[1]}:raw") in warns
    assert [f.path for f in s.files] == [f"git:clone@{sha}:raw" for sha in shas]
