"""walk.discover_tree's promises with sources made for the test (each finds its files by a name
ending and sniffs them by their first bytes): every session under the folder found once, in
walk order; the folders it does not enter (hidden, dependencies, a session's own folder, links to
folders, forsy's output, past the depth or folder limits) and the files it does not read each
named, or skipped silently where the module says so; a source's layout that fails asked again
folder by folder; a file a layout offers that another source sniffs left to it; a log no layout
offers read by its sniffer unless it is a part of a session."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from forsy.errors import InputError
from forsy.sources import walk
from forsy.sources.walk import FORSY_OUTPUT, discover_tree

LINK = "not searched: a link to a folder (not followed, so no folder is read twice; name it directly)"


class Fake:
    """A source: its layout offers the files of a folder (or below it) whose name ends with one of
    `exts` and whose first bytes are `mark` (or any, `greedy`); it sniffs a file by its mark."""

    def __init__(self, name: str, mark: bytes, exts: tuple[str, ...], *, below: bool = False, greedy: bool = False,
                 fails: dict[Path, Exception] | None = None) -> None:
        self.name, self.mark, self.exts, self.greedy = name, mark, exts, greedy
        self.searches_below = below
        self.fails = fails or {}
        self.asked: list[Path] = []

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(self.mark)

    def discover(self, d: Path) -> list[Path]:
        self.asked.append(d)
        if d in self.fails:
            raise self.fails[d]
        files = d.rglob("*") if self.searches_below else d.iterdir()
        return sorted(f for f in files if f.is_file() and f.name.endswith(self.exts)
                      and (self.greedy or f.read_bytes().startswith(self.mark)))


def _tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def _walk(root: Path, *sources: Fake) -> tuple[list[tuple[str, str]], list[str], list[tuple[str, str]]]:
    d = discover_tree(root, cast(Any, list(sources)))
    return ([(s.name, p.relative_to(root).as_posix()) for s, p in d.found],
            [p.relative_to(root).as_posix() for p in d.unrecognised],
            [(p.relative_to(root).as_posix(), why) for p, why in d.not_searched])


def test_every_session_is_found_once_and_what_is_skipped_is_said_or_silent_as_promised(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"top.fa": b"A0", "a/s1.fa": b"A1", "a/meta.json": b"{}", "a/s1/part.jsonl": b"A-part",
                 "a/b/c/s2.fa": b"A2", ".hidden/s3.fa": b"A3", "node_modules/s4.fa": b"A4", "build/s5.fa": b"A5",
                 "x/notes.json": b"zz", "x/readme.md": b"A", "y/loose.jsonl": b"A6", "y/other.jsonl": b"B1",
                 "y/h.zsh_history": b"zz", "y/t.cast": b"zz", "y/c.zst": b"zz", "y/d.history": b"zz"})
    (root / "loop").symlink_to(root)
    (root / ".hl").symlink_to(root)
    (root / "dead.jsonl").symlink_to(tmp_path / "nowhere")
    os.mkfifo(root / "pipe.jsonl")
    a, b = Fake("A", b"A", (".fa",)), Fake("B", b"B", (".fb",))
    found, unrecognised, skipped = _walk(root, a, b)
    assert found == [("A", "top.fa"), ("A", "a/s1.fa"), ("A", "a/b/c/s2.fa"), ("A", "y/loose.jsonl"),
                     ("B", "y/other.jsonl")]
    assert unrecognised == ["x/notes.json", "y/c.zst", "y/d.history", "y/h.zsh_history", "y/t.cast"]
    assert skipped == [("dead.jsonl", "not read: a link to nothing"), ("loop", LINK),
                       ("pipe.jsonl", "not read: not a regular file")]
    # each folder entered is asked once of every source; none of the skipped ones is
    walked = [root, root / "a", root / "a" / "b", root / "a" / "b" / "c", root / "x", root / "y"]
    assert a.asked == b.asked == walked


def test_a_source_that_searches_below_is_asked_at_the_named_folder_only(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"a/deep/s.fc": b"C", "a/t.fa": b"A"})
    a, c = Fake("A", b"A", (".fa",)), Fake("C", b"C", (".fc",), below=True)
    assert _walk(root, a, c) == ([("C", "a/deep/s.fc"), ("A", "a/t.fa")], [], [])
    assert (a.asked, c.asked) == ([root, root / "a", root / "a" / "deep"], [root])


def test_a_home_folder_is_asked_of_the_layouts_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "home"
    _tree(root, {"s.fa": b"A", "projects/t.fa": b"A", "x.jsonl": b"zz"})
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path / "." / "home"))
    a = Fake("A", b"A", (".fa",))
    assert _walk(root, a) == ([("A", "s.fa")], [], [])
    assert a.asked == [root]


def test_the_depth_limit_names_the_first_folder_it_leaves_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "MAX_DEPTH", 2)
    root = tmp_path / "r"
    _tree(root, {"d1/d2/s.fa": b"A", "d1/d2/d3/t.fa": b"A", "e1/e2/e3/u.fa": b"A", "e1/e2/z.json": b"zz"})
    assert _walk(root, Fake("A", b"A", (".fa",))) == ([("A", "d1/d2/s.fa")], ["e1/e2/z.json"], [
        ("d1/d2/d3", "not searched: deeper than 2 folders below the named one (name it directly)")])


def test_the_folder_limit_names_where_the_walk_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "MAX_DIRS", 3)
    root = tmp_path / "r"
    _tree(root, {f"{d}/s.fa": b"A" for d in "abcd"})
    assert _walk(root, Fake("A", b"A", (".fa",))) == ([("A", "a/s.fa"), ("A", "b/s.fa")], [], [
        ("c", "not searched: forsy stops looking after 3 folders (name a narrower folder)")])


def _locked(monkeypatch: pytest.MonkeyPatch, where: Path, error: OSError) -> None:
    real = os.scandir

    def scandir(path: Any = ".") -> Iterator[os.DirEntry[str]]:
        if Path(path) == where:
            raise error
        return real(path)
    monkeypatch.setattr(walk.os, "scandir", scandir)


@pytest.mark.parametrize(("error", "message"), [
    (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
    (OSError(errno.EIO, "Input/output error"), "Input/output error"), (OSError("no reason given"), "no reason given")])
def test_a_named_folder_that_cannot_be_listed_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                error: OSError, message: str) -> None:
    _locked(monkeypatch, tmp_path, error)
    with pytest.raises(InputError) as e:
        discover_tree(tmp_path, cast(Any, [Fake("A", b"A", (".fa",))]))
    assert (e.value.message, e.value.path) == (message, str(tmp_path))


@pytest.mark.parametrize(("error", "why"), [(PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
                                            (OSError("no reason given"), "no reason given")])
def test_a_folder_below_that_cannot_be_listed_is_named_and_the_rest_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, why: str) -> None:
    root = tmp_path / "r"
    _tree(root, {"a/s.fa": b"A", "locked/t.fa": b"A", "z/u.fa": b"A"})
    _locked(monkeypatch, root / "locked", error)
    a = Fake("A", b"A", (".fa",))
    assert _walk(root, a) == ([("A", "a/s.fa"), ("A", "z/u.fa")], [], [("locked", f"not searched: {why}")])
    assert a.asked == [root, root / "a", root / "z"]


def test_a_layout_that_fails_is_said_and_its_source_asked_folder_by_folder(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"a/s.fc": b"C", "a/b/t.fc": b"C", "x.fa": b"A"})
    c = Fake("C", b"C", (".fc",), below=True, fails={root: InputError("cannot list it")})
    a = Fake("A", b"A", (".fa",), fails={root / "a": OSError(errno.EIO, "Input/output error")})
    found, _, skipped = _walk(root, a, c)
    # C's layout asked at a offers all below it (name order), at a/b nothing new
    assert found == [("A", "x.fa"), ("C", "a/b/t.fc"), ("C", "a/s.fc")]
    assert skipped == [
        (".", "not searched as C's layout: cannot list it; its folders are searched one by one"),
        ("a", "not searched as A's layout: Input/output error; its folders are searched one by one")]
    assert c.asked == [root, root / "a", root / "a" / "b"]  # asked below, as below it each folder is asked of it
    bare = Fake("C", b"C", (".fc",), below=True, fails={root: OSError("no reason given")})
    assert _walk(root, bare)[2][0] == (".", "not searched as C's layout: no reason given; its folders are searched "
                                           "one by one")


def test_a_layout_failing_over_a_folder_the_walk_names_is_not_said_twice(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "r"
    _tree(root, {"a/locked/s.fc": b"C", "a/ok/t.fc": b"C", "b/.hidden/u.fc": b"C"})
    _locked(monkeypatch, root / "a" / "locked", PermissionError(errno.EACCES, "Permission denied"))
    c = Fake("C", b"C", (".fc",), below=True, fails={root: PermissionError(errno.EACCES, "Permission denied"),
                                                     root / "b": OSError(errno.EACCES, "Permission denied")})
    found, _, skipped = _walk(root, c)
    assert found == [("C", "a/ok/t.fc")]
    # the layout's failure at the root is the locked folder the walk names; at b it is a hidden
    # folder the walk never enters: that one stays said
    assert skipped == [("a/locked", "not searched: Permission denied"),
                       ("b", "not searched as C's layout: Permission denied; its folders are searched one by one")]


def test_a_trace_folder_forsy_wrote_is_named_and_another_tools_is_walked(tmp_path: Path) -> None:
    root = tmp_path / "r"
    forsy = b'{"generator": {"name": "forsy", "version": "1"}}'
    _tree(root, {"out/manifest.json": forsy, "out/trace.json": b"{}", "out/s.fa": b"A",
                 "other/manifest.json": b'{"generator": {"name": "x"}}', "other/trace.json": b"{}",
                 "half/manifest.json": forsy, "half/s.fa": b"A"})
    big = root / "big"
    _tree(root, {"big/trace.json": b"{}"})
    with (big / "manifest.json").open("wb") as f:
        f.write(forsy)
        f.truncate((16 << 20) + 1)  # past 16 MiB: never read as a manifest
    found, unrecognised, skipped = _walk(root, Fake("A", b"A", (".fa",)))
    assert found == [("A", "half/s.fa")]
    assert unrecognised == ["big/manifest.json", "big/trace.json", "other/manifest.json", "other/trace.json"]
    assert skipped == [("out", FORSY_OUTPUT)]
    assert FORSY_OUTPUT == "not searched: a trace folder forsy wrote (its output, not a log)"


def test_a_file_a_layout_offers_that_another_source_sniffs_is_that_sources(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"g/b.jsonl": b"B1", "g/n.jsonl": b"zz", "g/a.jsonl": b"A1"})
    greedy = Fake("A", b"A", (".jsonl",), greedy=True)
    b = Fake("B", b"B", (".jsonl",))
    found, unrecognised, _ = _walk(root, greedy, b)
    # nobody sniffs n.jsonl: reading it as A's says what is wrong with it
    assert found == [("A", "g/a.jsonl"), ("A", "g/n.jsonl"), ("B", "g/b.jsonl")]
    assert unrecognised == []


def test_a_log_no_layout_offers_is_its_sniffers_unless_a_part_of_a_session(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"q/sid.jsonl": b"A", "q/sid/sub/p1.jsonl": b"A", "q/sid/a/b/p3.jsonl": b"A",
                 "q/sid/a/b/c/p4.jsonl": b"A", "gem/logs.json": b"A", "gem/other.json": b"B",
                 "gem/chats/s.fa": b"A"})
    found, unrecognised, skipped = _walk(root, Fake("A", b"A", (".fa",)), Fake("B", b"B", (".fb",)))
    # p1 and p3 lie in sid's own folder (up to three folders down), logs.json above a session A found
    assert found == [("A", "gem/chats/s.fa"), ("B", "gem/other.json"), ("A", "q/sid.jsonl"),
                     ("A", "q/sid/a/b/c/p4.jsonl")]
    assert (unrecognised, skipped) == ([], [])
    # the session's own folder named alone: its files are still its parts (p4 is not, as above)
    assert _walk(root / "q" / "sid", Fake("A", b"A", (".fa",))) == ([("A", "a/b/c/p4.jsonl")], [], [])


class _Bare:
    """A source without `searches_below`: asked in every folder, as one that says False."""

    name = "bare"

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(b"Z")

    def discover(self, d: Path) -> list[Path]:
        return sorted(f for f in d.iterdir() if f.suffix == ".fz")


def test_a_source_that_says_nothing_of_searching_below_is_asked_in_every_folder(tmp_path: Path) -> None:
    _tree(tmp_path, {"a/b/s.fz": b"Z"})
    d = discover_tree(tmp_path, cast(Any, [_Bare()]))
    assert [p for _, p in d.found] == [tmp_path / "a" / "b" / "s.fz"]


def test_a_link_to_a_log_file_is_read(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(tmp_path, {"outside.jsonl": b"A1", "r/a/x.txt": b""})
    (root / "a" / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    assert _walk(root, Fake("A", b"A", (".fa",))) == ([("A", "a/link.jsonl")], [], [])


class _Entry:
    """A folder entry whose kind cannot be read (a stat that fails)."""

    def __init__(self, entry: os.DirEntry[str], error: OSError) -> None:
        self.name, self.path, self.error = entry.name, entry.path, error

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        raise self.error

    def is_symlink(self) -> bool:
        raise self.error

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        raise self.error


@pytest.mark.parametrize(("error", "why"), [(PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
                                            (OSError("no reason given"), "no reason given")])
def test_an_entry_whose_kind_cannot_be_read_is_named_and_the_rest_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, why: str) -> None:
    root = tmp_path / "r"
    _tree(root, {"bad/s.fa": b"A", "ok/t.fa": b"A"})
    real = os.scandir

    def scandir(path: Any = ".") -> list[Any]:
        return [_Entry(e, error) if e.name == "bad" else e for e in real(path)]
    monkeypatch.setattr(walk.os, "scandir", scandir)
    assert _walk(root, Fake("A", b"A", (".fa",))) == ([("A", "ok/t.fa")], [], [("bad", f"not searched: {why}")])


class _Up(Fake):
    """A layout that, asked at a `chats/` folder, also offers the `logs.json` above it (Gemini's)."""

    def discover(self, d: Path) -> list[Path]:
        up = [d.parent / "logs.json"] if d.name == "chats" and (d.parent / "logs.json").is_file() else []
        return up + super().discover(d)


def test_a_log_a_deeper_layout_found_is_not_read_again_and_the_logs_after_it_are_read(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _tree(root, {"g/logs.json": b"G", "g/chats/c.fg": b"G", "z/loose.json": b"G"})
    found, unrecognised, _ = _walk(root, _Up("G", b"G", (".fg",)))
    assert found == [("G", "g/logs.json"), ("G", "g/chats/c.fg"), ("G", "z/loose.json")]
    assert unrecognised == []


@pytest.mark.parametrize(("size", "forsy"), [(16 << 20, True), ((16 << 20) + 1, False)])
def test_a_manifest_past_16_mib_is_never_read_as_forsys(tmp_path: Path, size: int, forsy: bool) -> None:
    root = tmp_path / "r"
    manifest = b'{"generator": {"name": "forsy"}}'
    _tree(root, {"out/manifest.json": manifest + b" " * (size - len(manifest)), "out/trace.json": b"{}"})
    assert (root / "out" / "manifest.json").stat().st_size == size
    _, unrecognised, skipped = _walk(root, Fake("A", b"A", (".fa",)))
    if forsy:
        assert (unrecognised, skipped) == ([], [("out", FORSY_OUTPUT)])
    else:
        assert (unrecognised, skipped) == (["out/manifest.json", "out/trace.json"], [])
