"""The sweep's walk, in process, on hand-built trees: which files it keeps (session-like names,
links to sessions), what it names (links to folders or to nothing, folders it cannot list, a
root it cannot stat) and what it steps over without a word (a folder or a file that vanished
between the listing and the look). Faults root cannot meet for real (a folder it may not list)
are made by a stand-in for `os.scandir` that fails for one path and lists every other in name
order (so which folder the walk takes first is known)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from _deadline import within
from _paths import SAMPLES
from forsy.store import open_store
from forsy.sweep import SweepOptions, _files, sweep
from forsy.sweep._files import LINK, NOT_A_FILE, Stat, fingerprint, session_like, stat_path, walk, why

_real_scandir = os.scandir


class _Os:
    """`os` for the walk alone, with its own `scandir` (the rest of the process keeps the real one)."""

    def __init__(self, scandir: Callable[[str], Iterator[os.DirEntry[str]]]) -> None:
        self.scandir = scandir

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Each test here ends within 10 s: a walk or a fingerprint that loops (a folder taken again
    and again, a read back that never reaches the start) fails instead of holding the sweep."""
    with within(10):
        yield


def _names(found: dict[str, Stat], root: Path) -> set[str]:
    return {os.path.relpath(p, root) for p in found}


def _scandir_with(monkeypatch: pytest.MonkeyPatch, before: Callable[[str], None]) -> list[str]:
    """`os.scandir` that calls `before(path)` first (it may raise or change the tree) and
    gives the entries in name order; returns the folders listed, in order."""
    listed: list[str] = []

    def scandir(path: str) -> Iterator[os.DirEntry[str]]:
        listed.append(str(path))
        before(str(path))
        return iter(sorted(_real_scandir(path), key=lambda e: e.name))

    monkeypatch.setattr(_files, "os", _Os(scandir))
    return listed


def test_session_like_names_are_kept_and_others_are_not(tmp_path: Path) -> None:
    names = ["a.jsonl", "b.jsonl.zst", "c.json", "d.cast", "zsh_history", ".python.history",
             ".aider.chat.history.md", "history.db", "notes.txt", "history.db-wal", "x.jsonl.bak", "db"]
    for n in names:
        (tmp_path / n).write_bytes(b"x\n")
    want = {"a.jsonl", "b.jsonl.zst", "c.json", "d.cast", "zsh_history", ".python.history",
            ".aider.chat.history.md", "history.db", "x.jsonl.bak"}  # a copy of a log: looked at, to be named
    assert _names(walk(str(tmp_path)), tmp_path) == want
    assert [n for n in names if session_like(n)] == [n for n in names if n in want]


def test_the_stat_is_the_files_own(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "s.jsonl"
    p.parent.mkdir()
    p.write_bytes(b"12345\n")
    st = os.stat(p)
    want = Stat(st.st_dev, st.st_ino, 6, st.st_mtime_ns)
    assert walk(str(tmp_path)) == {str(p): want}
    assert walk(str(p)) == {str(p): want}  # a root that is one file
    assert stat_path(str(p)) == want
    assert stat_path(str(tmp_path / "nothing.jsonl")) is None


def test_a_root_that_is_not_there_is_nothing_and_no_fault(tmp_path: Path) -> None:
    blocked: dict[str, str] = {}
    assert walk(str(tmp_path / "absent"), blocked) == {}
    assert blocked == {}


def test_a_root_that_cannot_be_stated_is_blocked_saying_why(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_bytes(b"")
    root = str(f / "below")  # stat says: not a directory
    blocked: dict[str, str] = {}
    assert walk(root, blocked) == {}
    assert blocked == {root: "not a directory"}
    assert walk(root) == {}  # no dict to say it in: still nothing, no error


def test_a_folder_that_cannot_be_listed_is_blocked_and_hides_only_itself(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for d in ("a", "b", "c"):
        (tmp_path / d).mkdir()
        (tmp_path / d / f"{d}.jsonl").write_bytes(b"x\n")
    locked = str(tmp_path / "b")

    def deny(path: str) -> None:
        if path == locked:
            raise PermissionError(13, "Permission denied", path)

    listed = _scandir_with(monkeypatch, deny)
    blocked: dict[str, str] = {}
    assert _names(walk(str(tmp_path), blocked), tmp_path) == {"a/a.jsonl", "c/c.jsonl"}
    assert blocked == {locked: "cannot list this folder: permission denied"}
    assert listed == [str(tmp_path), str(tmp_path / "c"), locked, str(tmp_path / "a")]  # c, b, a: a stack
    assert _names(walk(str(tmp_path)), tmp_path) == {"a/a.jsonl", "c/c.jsonl"}  # without the dict


def test_a_folder_removed_after_its_parent_was_listed_is_stepped_over(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for d in ("a", "b", "c"):
        (tmp_path / d).mkdir()
        (tmp_path / d / f"{d}.jsonl").write_bytes(b"x\n")

    def remove_b_after_listing(path: str) -> None:
        if path == str(tmp_path / "c"):
            shutil.rmtree(tmp_path / "b")  # b is on the stack, listed with its parent, gone now

    _scandir_with(monkeypatch, remove_b_after_listing)
    blocked: dict[str, str] = {}
    # b is taken after c and before a: the walk goes on to a
    assert _names(walk(str(tmp_path), blocked), tmp_path) == {"a/a.jsonl", "c/c.jsonl"}
    assert blocked == {}  # gone is not blocked: the next run sees its files gone


def test_a_file_gone_between_the_listing_and_its_stat_is_stepped_over(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for n in ("a.jsonl", "b.jsonl", "c.jsonl"):
        (tmp_path / n).write_bytes(b"x\n")
    real = _real_scandir

    def listing(path: str) -> Iterator[os.DirEntry[str]]:
        entries = sorted(real(path), key=lambda e: e.name)
        for e in entries:
            e.is_dir(follow_symlinks=False)
            e.is_file()  # cached now: only the stat of the entry goes to the disk
        (tmp_path / "a.jsonl").unlink()
        return iter(entries)

    monkeypatch.setattr(_files, "os", _Os(listing))
    blocked: dict[str, str] = {}
    assert _names(walk(str(tmp_path), blocked), tmp_path) == {"b.jsonl", "c.jsonl"}
    assert blocked == {}


def test_links_to_folders_and_to_nothing_are_named_links_to_sessions_kept(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.jsonl").write_bytes(b"x\n")
    (outside / "notes.txt").write_bytes(b"x\n")
    (root / "s.jsonl").write_bytes(b"abc\n")
    (root / "to-folder").symlink_to(outside)  # not followed: named
    (root / "to-folder.jsonl").symlink_to(outside)  # a session-like name, a folder: named
    (root / "dangling.jsonl").symlink_to(tmp_path / "nothing")  # a session-like link to nothing: named
    (root / "dangling.txt").symlink_to(tmp_path / "nothing")  # no session name: nothing to say
    (root / "to-notes.txt").symlink_to(outside / "notes.txt")  # a link to a file no source reads
    (root / "to-session.jsonl").symlink_to(outside / "o.jsonl")  # read, as retrace does
    os.mkfifo(root / "pipe.jsonl")  # a session's name, no file: named, never opened (it would block)
    os.mkfifo(root / "pipe.txt")  # no session name: nothing to say
    links: list[tuple[str, str]] = []
    found = walk(str(root), links=links)
    st = os.stat(outside / "o.jsonl")
    assert found[str(root / "to-session.jsonl")] == Stat(st.st_dev, st.st_ino, 2, st.st_mtime_ns)
    assert _names(found, root) == {"s.jsonl", "to-session.jsonl"}
    named = [(str(root / n), LINK) for n in ("to-folder", "to-folder.jsonl", "dangling.jsonl")]
    assert sorted(links) == sorted([*named, (str(root / "pipe.jsonl"), NOT_A_FILE)])
    assert _names(walk(str(root)), root) == {"s.jsonl", "to-session.jsonl"}  # no list to name them in


def test_why_is_the_systems_words_in_lower_case() -> None:
    assert why(PermissionError(13, "Permission denied")) == "permission denied"
    assert why(OSError("no strerror")) == "oserror"
    assert why(FileNotFoundError()) == "filenotfounderror"


@pytest.mark.parametrize("data", [b"", b"no newline", b"one line\n", b"\n", b"a\nb\nc"],
                         ids=["empty", "no-newline", "one-line", "newline", "partial"])
def test_a_fingerprint_ends_and_reads_no_more_than_the_file_twice(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    fp = fingerprint(str(p), len(data))
    assert fp.bytes_read == 2 * len(data)  # the head block, then the whole (short) file back once
    assert fp.complete is (data == b"" or data.endswith(b"\n"))


def test_a_file_reached_through_a_link_then_out_of_sight_is_not_gone(tmp_path: Path) -> None:
    """A session swept through a folder link (the root named was the link), then its parent swept
    (the walk does not follow folder links): the file is still there, out of the walk's sight; it
    was marked gone from disk, and `--status` listed a file `ls` shows."""
    root = tmp_path / "r"
    (root / "a" / "b").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "a" / "b" / "s.jsonl")
    (root / "a" / "self").symlink_to(root)
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        for named in (root / "a" / "self", root):
            rep = sweep(store, SweepOptions(roots=[named], now=time.time, ignore_settle=True,
                                            claude_home=tmp_path / "no-claude"))
            assert rep.counts.gone == 0, named
        assert store.gone() == []
    finally:
        store.close()
