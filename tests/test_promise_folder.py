"""The trace folder writer never destroys and never leaves half a folder (sinks/folder.py):
a failure injected at each step of a write leaves the destination as it was; what forsy did
not write is refused with a message naming it; folder names are the hand-computed ones."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from forsy.assemble import Assembled
from forsy.errors import OutputError
from forsy.evidence import Session
from forsy.run import RetraceOptions, process, read
from forsy.sinks import folder as F
from forsy.sinks.folder import OwnedFolder, check_destination, owned_trace_folder, write_folder
from forsy.sources import base as sources


@pytest.fixture(autouse=True)
def _registry_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a log asks the source registry, which scans every installed package's entry points
    (~0.5 s here) on each ask. Same answers, read once per test, so a mutation run stays fast."""
    monkeypatch.setattr(sources, "registry", functools.cache(sources.registry))


def _log(tmp: Path, sid: str = "s-1", prompt: str = "List the files please", name: str | None = None) -> Path:
    recs = [
        {"type": "user", "uuid": f"{sid}-u1", "parentUuid": None, "sessionId": sid, "version": "2.1.38",
         "cwd": "/home/dev/proj", "timestamp": "2026-01-01T10:00:00.000Z",
         "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": f"{sid}-a1", "parentUuid": f"{sid}-u1", "sessionId": sid,
         "timestamp": "2026-01-01T10:00:01.000Z",
         "message": {"id": f"msg-{sid}", "role": "assistant", "model": "claude-test",
                     "content": [{"type": "text", "text": "Done: two files."}]}},
    ]
    path = tmp / (name or f"{sid}.jsonl")
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _trace(tmp: Path, sid: str = "s-1", prompt: str = "List the files please",
           name: str | None = None) -> tuple[Assembled, Session]:
    session = read([_log(tmp, sid, prompt, name)], RetraceOptions())[0]
    return process(session, RetraceOptions(redact=False), None), session


def _replacing(tmp: Path) -> tuple[Path, Assembled]:
    """A trace folder forsy wrote at `tmp/t`, and a second trace of the same source to replace it."""
    a, _ = _trace(tmp)
    dest = tmp / "t"
    write_folder(a, dest)
    return dest, _trace(tmp, prompt="Now list the tests")[0]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ a whole write
def test_a_new_folder_holds_exactly_the_trace_files_hashed_in_the_manifest(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    dest = tmp_path / "out" / "t"
    assert write_folder(a, dest) == dest
    files = _tree(dest)
    assert sorted(files) == ["README.md", "manifest.json", "provenance.json", "trace.json"]
    manifest = json.loads(files["manifest.json"])
    assert manifest["files"] == {n: hashlib.sha256(files[n]).hexdigest()
                                 for n in ("README.md", "provenance.json", "trace.json")}
    assert list(manifest["files"]) == sorted(manifest["files"])
    assert files["trace.json"].endswith(b"}\n") and files["manifest.json"].endswith(b"}\n")
    assert os.listdir(dest.parent) == ["t"]  # no work folder left beside it


def test_rewriting_its_own_folder_replaces_it_and_leaves_nothing_beside(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    dest = tmp_path / "t"
    write_folder(a, dest)
    first = _tree(dest)
    a2, _ = _trace(tmp_path, prompt="List the files please")
    write_folder(a2, dest)
    assert _tree(dest) == first
    assert sorted(os.listdir(tmp_path)) == ["s-1.jsonl", "t"]


def test_a_second_trace_of_the_source_replaces_the_first(tmp_path: Path) -> None:
    dest, a2 = _replacing(tmp_path)
    write_folder(a2, dest)
    assert b"Now list the tests" in (dest / "trace.json").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["s-1.jsonl", "t"]


def _fail_at(n: int) -> Callable[[Path, bytes], None]:
    calls = {"n": 0}
    real = F._write

    def write(path: Path, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == n:
            raise OSError(28, "No space left on device")
        real(path, data)
    return write


@pytest.mark.parametrize("step", [1, 2, 3, 4])  # trace.json, provenance.json, README.md, manifest.json
def test_a_failure_at_any_file_leaves_the_previous_folder_untouched(tmp_path: Path, step: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    dest, a2 = _replacing(tmp_path)
    before = _tree(dest)
    monkeypatch.setattr(F, "_write", _fail_at(step))
    with pytest.raises(OutputError, match="cannot write the trace folder: No space left on device"):
        write_folder(a2, dest)
    assert _tree(dest) == before


@pytest.mark.parametrize("step", [1, 4])
def test_a_failure_on_a_new_folder_leaves_no_folder(tmp_path: Path, step: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    a, _ = _trace(tmp_path)
    monkeypatch.setattr(F, "_write", _fail_at(step))
    with pytest.raises(OutputError) as e:
        write_folder(a, tmp_path / "t")
    assert (e.value.message, e.value.path) == ("cannot write the trace folder: No space left on device",
                                               str(tmp_path / "t"))
    assert sorted(os.listdir(tmp_path)) == ["s-1.jsonl"]  # no folder, no work folder left


def test_a_failed_second_rename_puts_the_previous_folder_back(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    dest, a2 = _replacing(tmp_path)
    before = _tree(dest)
    monkeypatch.setattr(F, "_exchange", lambda x, y: False)
    real, calls = os.rename, []

    def rename(src: object, dst: object) -> None:
        calls.append(dst)
        if len(calls) == 2:  # dest moved aside; now the new folder into place fails
            raise OSError(5, "I/O error")
        real(src, dst)  # type: ignore[arg-type]
    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OutputError, match="I/O error"):
        write_folder(a2, dest)
    assert _tree(dest) == before
    assert sorted(os.listdir(tmp_path)) == ["s-1.jsonl", "t"]


def test_a_destination_whose_parent_cannot_be_made_is_an_output_error(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    (tmp_path / "f").write_text("a file, not a folder")
    dest = tmp_path / "f" / "t"
    with pytest.raises(OutputError) as e:
        write_folder(a, dest)
    assert (e.value.message, e.value.path) == ("cannot write the trace folder: File exists", str(dest))
    assert (tmp_path / "f").read_text() == "a file, not a folder"


@pytest.fixture
def removal_fails(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `shutil.rmtree` fails (a busy or read-only file): with `ignore_errors` it returns,
    leaving the folder, as the real one does; without, it raises. Returns the folders asked for."""
    asked: list[str] = []

    def rmtree(path: object, ignore_errors: bool = False) -> None:
        asked.append(os.path.basename(str(path)))
        if not ignore_errors:
            raise OSError(16, "Device or resource busy")
    monkeypatch.setattr(shutil, "rmtree", rmtree)
    return asked


def test_a_failed_removal_of_the_work_folder_does_not_hide_the_write_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, removal_fails: list[str]) -> None:
    a, _ = _trace(tmp_path)
    monkeypatch.setattr(F, "_write", _fail_at(2))
    with pytest.raises(OutputError) as e:
        write_folder(a, tmp_path / "t")
    assert e.value.message == "cannot write the trace folder: No space left on device"
    assert removal_fails == [f".t.forsy-tmp-{os.getpid()}"]


def test_a_failed_tidying_after_the_swap_still_leaves_the_new_folder_in_place(
        tmp_path: Path, removal_fails: list[str]) -> None:
    dest, a2 = _replacing(tmp_path)
    assert write_folder(a2, dest) == dest
    assert b"Now list the tests" in (dest / "trace.json").read_bytes()
    # the previous folder, swapped into the work folder's name, is what could not be removed
    assert removal_fails == [f".t.forsy-tmp-{os.getpid()}"]
    assert b"List the files please" in (tmp_path / f".t.forsy-tmp-{os.getpid()}" / "trace.json").read_bytes()


def test_a_failed_tidying_after_two_renames_still_leaves_the_new_folder_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, removal_fails: list[str]) -> None:
    dest, a2 = _replacing(tmp_path)
    monkeypatch.setattr(F, "_exchange", lambda x, y: False)
    assert write_folder(a2, dest) == dest
    assert b"Now list the tests" in (dest / "trace.json").read_bytes()
    assert removal_fails == [f".t.forsy-old-{os.getpid()}"]


def test_a_destination_filled_during_the_write_is_refused_even_if_tidying_fails(
        tmp_path: Path, removal_fails: list[str]) -> None:
    dest, tmp = tmp_path / "t", tmp_path / ".t.forsy-tmp-1"
    dest.mkdir()
    (dest / "notes.md").write_text("mine")
    tmp.mkdir()
    (tmp / "trace.json").write_text("{}")
    with pytest.raises(OutputError) as e:
        F._swap_into_place(tmp, dest)
    assert e.value.message == "destination changed while the trace was written; refusing to replace it"
    assert _tree(dest) == {"notes.md": b"mine"}
    assert removal_fails == [".t.forsy-tmp-1"]


def test_a_stale_work_folder_of_this_process_is_replaced(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    stale = tmp_path / f".t.forsy-tmp-{os.getpid()}"
    stale.mkdir()
    (stale / "junk").write_text("x")
    write_folder(a, tmp_path / "t")
    assert sorted(os.listdir(tmp_path / "t")) == ["README.md", "manifest.json", "provenance.json", "trace.json"]
    assert not stale.exists()


def test_the_destinations_missing_parents_are_created(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    dest = tmp_path / "x" / "y" / "t"
    write_folder(a, dest)
    assert (dest / "trace.json").is_file()
    assert (dest / "manifest.json").read_text().startswith('{\n  "')  # indented like the other files


def test_a_failed_swap_leaves_the_previous_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dest, a2 = _replacing(tmp_path)
    before = _tree(dest)

    def broken(*args: object) -> None:
        raise OSError(5, "I/O error")
    monkeypatch.setattr(F, "_swap_into_place", broken)
    with pytest.raises(OutputError, match="I/O error"):
        write_folder(a2, dest)
    assert _tree(dest) == before


def test_without_rename_exchange_two_renames_replace_the_folder(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    dest, a2 = _replacing(tmp_path)
    monkeypatch.setattr(F, "_exchange", lambda x, y: False)
    write_folder(a2, dest)
    assert b"Now list the tests" in (dest / "trace.json").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["s-1.jsonl", "t"]  # the old folder moved aside is gone


def test_rename_exchange_swaps_two_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x").write_text("from a")
    (tmp_path / "b" / "y").write_text("from b")
    if sys.platform != "linux":
        pytest.skip("renameat2(RENAME_EXCHANGE) is Linux's")
    assert F._exchange(tmp_path / "a", tmp_path / "b") is True
    assert os.listdir(tmp_path / "a") == ["y"] and os.listdir(tmp_path / "b") == ["x"]
    assert F._exchange(tmp_path / "a", tmp_path / "missing") is False


@pytest.mark.parametrize("missing", ["libc", "renameat2"])
def test_without_renameat2_the_exchange_is_unsupported_and_two_renames_replace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """No libc found, or one without renameat2 (not Linux, old glibc): the exchange says so
    (never claims a swap it did not make) and the two-rename path writes the new folder."""
    dest, a2 = _replacing(tmp_path)
    if missing == "libc":
        monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    else:
        def no_renameat2(name: str, use_errno: bool = False) -> object:
            raise AttributeError("renameat2")
        monkeypatch.setattr(ctypes, "CDLL", no_renameat2)
    (tmp_path / "x").mkdir()
    assert F._exchange(tmp_path / "x", dest) is False
    assert sorted(os.listdir(dest)) == ["README.md", "manifest.json", "provenance.json", "trace.json"]
    write_folder(a2, dest)
    assert b"Now list the tests" in (dest / "trace.json").read_bytes()


def test_a_destination_filled_during_the_write_is_swapped_back_untouched(tmp_path: Path) -> None:
    """The check right after the swap: what replaced the destination meanwhile goes back."""
    dest, tmp = tmp_path / "t", tmp_path / ".t.forsy-tmp-1"
    dest.mkdir()
    (dest / "notes.md").write_text("mine")
    tmp.mkdir()
    (tmp / "trace.json").write_text("{}")
    with pytest.raises(OutputError, match="destination changed while the trace was written") as e:
        F._swap_into_place(tmp, dest)
    assert e.value.path == str(dest)
    assert _tree(dest) == {"notes.md": b"mine"}
    assert not tmp.exists()


def test_an_empty_destination_is_replaced(tmp_path: Path) -> None:
    dest, tmp = tmp_path / "t", tmp_path / ".t.forsy-tmp-1"
    dest.mkdir()
    tmp.mkdir()
    (tmp / "trace.json").write_text("{}")
    F._swap_into_place(tmp, dest)
    assert _tree(dest) == {"trace.json": b"{}"} and not tmp.exists()


def test_a_symlinked_destination_is_written_where_it_points(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert write_folder(a, tmp_path / "link") == tmp_path / "real"
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "trace.json").is_file()


# ------------------------------------------------------------------ refusing what forsy did not write
def test_a_file_at_the_destination_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("x")
    with pytest.raises(OutputError) as e:
        check_destination(tmp_path / "t", "claude-code", "s", [])
    assert (e.value.message, e.value.path) == ("destination exists and is not a folder; refusing to replace it",
                                               str(tmp_path / "t"))


def test_foreign_files_are_named_five_at_most(tmp_path: Path) -> None:
    dest = tmp_path / "t"
    dest.mkdir()
    for n in ("a", "b", "c", "d", "e", "f", "g"):
        (dest / n).write_text(n)
    (dest / "dir").mkdir()
    with pytest.raises(OutputError) as e:
        check_destination(dest, "claude-code", "s", [])
    assert e.value.path == str(dest)
    assert str(e.value.args[0]).startswith(
        "destination holds files forsy did not write (a, b, c, d, dir/ and 3 more); refusing to replace it. "
        "Give -o a new or empty folder, or a trace folder forsy wrote for this session")
    (dest / "g").unlink()
    (dest / "dir").rmdir()
    with pytest.raises(OutputError, match=r"\(a, b, c, d, e and 1 more\); refusing"):
        check_destination(dest, "claude-code", "s", [])
    (dest / "dir").mkdir()
    (dest / "f").unlink()
    (dest / "e").unlink()
    with pytest.raises(OutputError, match=r"\(a, b, c, d, dir/\); refusing"):
        check_destination(dest, "claude-code", "s", [])


def test_another_traces_folder_is_refused_naming_its_session(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    dest = tmp_path / "t"
    write_folder(a, dest)
    with pytest.raises(OutputError) as e:
        check_destination(dest, "claude_code", "other", ["o.jsonl"])
    assert (e.value.message, e.value.path) == (
        "destination holds another trace (session s-1 from s-1.jsonl); refusing to replace it", str(dest))
    check_destination(dest, "claude_code", "s-1", ["s-1.jsonl", "extra"])  # the same source: allowed
    with pytest.raises(OutputError):
        check_destination(dest, "codex", "s-1", ["s-1.jsonl"])
    with pytest.raises(OutputError):
        check_destination(dest, "claude_code", "s-1", ["other.jsonl"])


def test_a_folder_of_traces_is_refused_as_such_pointing_at_the_session_own(tmp_path: Path) -> None:
    """A single session given the folder `forsy retrace DIR -o` filled: its traces are named as
    forsy's, and the message says where this session's trace is (or where to put it)."""
    a, _ = _trace(tmp_path)
    b, _ = _trace(tmp_path, sid="s-2")
    parent = tmp_path / "traces"
    write_folder(a, parent / "one")
    write_folder(b, parent / "two")
    with pytest.raises(OutputError) as e:
        check_destination(parent, "claude_code", "s-1", ["s-1.jsonl"])
    assert e.value.message == (
        "destination holds the trace folders of 2 session(s) (one/, two/); refusing to replace it. For one "
        f"session, -o names its own trace folder: this session's is {parent / 'one'}: give -o that folder to "
        "write it again")
    check_destination(parent / "one", "claude_code", "s-1", ["s-1.jsonl"])  # where it said: allowed
    with pytest.raises(OutputError) as e:
        check_destination(parent, "claude_code", "s-3", ["s-3.jsonl"])
    assert e.value.message.endswith(f"give -o a new one inside it (-o {parent / 'NAME'})")
    (parent / "notes.txt").write_text("mine")  # a file of the user's too: the old advice, both named
    with pytest.raises(OutputError) as e:
        check_destination(parent, "claude_code", "s-1", ["s-1.jsonl"])
    assert e.value.message.startswith("destination holds files forsy did not write (notes.txt) and the trace "
                                      "folders of 2 session(s) (one/, two/); refusing to replace it. Give -o a new")


def test_owned_folder_compares_kind_session_and_first_source() -> None:
    owned = OwnedFolder("claude-code", "s", ("a.jsonl", "sub.jsonl"))
    assert owned.same_source("claude-code", "s", ["a.jsonl"])
    assert not owned.same_source("claude-code", "s", ["b.jsonl", "a.jsonl"])
    assert not owned.same_source("claude-code", "t", ["a.jsonl"])
    assert not owned.same_source("codex", "s", ["a.jsonl"])


@pytest.mark.parametrize("damage", ["extra file", "edited file", "missing file", "file link", "dir link",
                                    "not forsy", "no files", "not json", "manifest a list", "subfolder"])
def test_a_trace_folder_changed_in_any_way_is_not_forsys(tmp_path: Path, damage: str) -> None:
    a, _ = _trace(tmp_path)
    dest = tmp_path / "t"
    write_folder(a, dest)
    assert owned_trace_folder(dest) == OwnedFolder("claude_code", "s-1", ("s-1.jsonl",))
    manifest = json.loads((dest / "manifest.json").read_text())
    if damage == "extra file":
        (dest / "NOTES.md").write_text("x")
    elif damage == "edited file":
        (dest / "README.md").write_text("edited")
    elif damage == "missing file":
        (dest / "README.md").unlink()
    elif damage == "file link":
        (dest / "README.md").unlink()
        (dest / "README.md").symlink_to(tmp_path / "s-1.jsonl")
    elif damage == "dir link":
        (dest / "artifacts").symlink_to(tmp_path)
    elif damage == "subfolder":
        (dest / "artifacts").mkdir()
        (dest / "artifacts" / "x.txt").write_text("x")
    elif damage == "not forsy":
        manifest["generator"] = {"name": "other"}
        (dest / "manifest.json").write_text(json.dumps(manifest))
    elif damage == "no files":
        manifest["files"] = {}
        (dest / "manifest.json").write_text(json.dumps(manifest))
    elif damage == "not json":
        (dest / "manifest.json").write_text("{")
    elif damage == "manifest a list":
        (dest / "manifest.json").write_text("[]")
    assert owned_trace_folder(dest) is None


def test_a_manifest_listing_no_files_is_not_forsys_even_alone(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"generator": {"name": "forsy"}, "files": {},
                                                        "source_kind": "codex", "session_id": "s"}))
    assert owned_trace_folder(tmp_path) is None



def test_a_destination_inside_a_trace_folder_forsy_wrote_is_refused(tmp_path: Path) -> None:
    """`-o out/inner` where `out` is a trace folder: the new folder inside changed that trace's
    folder (it was no longer forsy's, and a re-run to `out` was refused)."""
    a, _ = _trace(tmp_path)
    out = write_folder(a, tmp_path / "out")
    b, _ = _trace(tmp_path, sid="s-2", name="s-2.jsonl")
    for inner in (out / "inner", out / "deeper" / "inner"):
        with pytest.raises(OutputError, match="is inside the trace folder .*out, which forsy wrote: writing there "
                                              "would change that trace; give -o a folder outside it"):
            write_folder(b, inner)
    assert owned_trace_folder(out) is not None and sorted(p.name for p in out.iterdir()) == [
        "README.md", "manifest.json", "provenance.json", "trace.json"]
    with pytest.raises(OutputError) as e:
        write_folder(b, out / "inner")
    assert e.value.path == str(out / "inner")


@pytest.mark.parametrize(("manifest", "trace"), [
    ("[]", True),  # not an object
    ('{"files": {"trace.json": "x"}}', True),  # no generator
    ('{"generator": {"name": "forsy"}, "files": null}', True),  # no file list
    ('{"generator": {"name": "other"}, "files": {"trace.json": "x"}}', True),  # another tool's
    ('{"generator": {"name": "forsy"}, "files": {"trace.json": "x"}}', False),  # no trace.json beside it
])
def test_a_folder_that_only_looks_like_a_trace_folder_may_hold_one(tmp_path: Path, manifest: str,
                                                                   trace: bool) -> None:
    parent = tmp_path / "p"
    parent.mkdir()
    (parent / "manifest.json").write_text(manifest)
    if trace:
        (parent / "trace.json").write_text("{}")
    a, _ = _trace(tmp_path)
    assert owned_trace_folder(write_folder(a, parent / "t")) is not None


@pytest.mark.parametrize(("damage", "said"), [
    ("added", "a trace folder forsy wrote, with files added since (NOTES.md, notes/)"),
    ("edited", "a trace folder forsy wrote, changed since"),
])
def test_a_changed_trace_folder_is_refused_saying_what_changed(tmp_path: Path, damage: str, said: str) -> None:
    """It listed every file as 'forsy did not write', trace.json and manifest.json included."""
    a, _ = _trace(tmp_path)
    a.files = {"artifacts/out.txt": "full output"}  # a listed subfolder is no addition
    dest = write_folder(a, tmp_path / "t")
    if damage == "added":
        (dest / "NOTES.md").write_text("mine")
        (dest / "notes").mkdir()
    else:
        (dest / "README.md").write_text("edited")
    with pytest.raises(OutputError) as e:
        write_folder(a, dest)
    assert (e.value.message, e.value.path) == (f"destination is {said}; refusing to replace it", str(dest))

def test_write_creates_missing_parent_folders(tmp_path: Path) -> None:
    digest = F._write(tmp_path / "a" / "b" / "c.txt", [b"da", b"ta"])
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"data"
    assert digest == hashlib.sha256(b"data").hexdigest()


def test_an_owned_folder_with_an_artifact_is_still_owned(tmp_path: Path) -> None:
    dest = tmp_path / "t"
    (dest / "artifacts").mkdir(parents=True)
    (dest / "artifacts" / "o.txt").write_bytes(b"out")
    (dest / "trace.json").write_bytes(b"{}")
    files = {"artifacts/o.txt": hashlib.sha256(b"out").hexdigest(), "trace.json": hashlib.sha256(b"{}").hexdigest()}
    (dest / "manifest.json").write_text(json.dumps({"generator": {"name": "forsy"}, "files": files,
                                                    "source_kind": "codex", "session_id": None,
                                                    "sources": [{"path": "r.jsonl"}, "odd", {"path": "b"}]}))
    assert owned_trace_folder(dest) == OwnedFolder("codex", None, ("r.jsonl", "b"))


# ------------------------------------------------------------------ leftovers of killed runs
def test_work_folders_of_dead_runs_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    # another live run: a child of ours, not our parent (a mutant that signals it must not hit
    # the process running the tests, e.g. mutmut)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    names = [f".t.forsy-tmp-{dead}", f".t.forsy-old-{dead}", f".t.forsy-tmp-{os.getpid()}",
             f".t.forsy-tmp-{other.pid}", ".t.forsy-tmp-x", f".u.forsy-tmp-{dead}"]
    for n in names:
        (tmp_path / n).mkdir()
        (tmp_path / n / "f").write_text("old" if "-old-" in n else "x")
    try:
        F._clean_stale(tmp_path / "t")
    finally:
        other.kill()
        other.wait()
    # the dead run's work folder is removed; the previous folder it had moved aside goes back
    # to the destination, which it left missing; the live runs' and other folders' stay
    assert sorted(os.listdir(tmp_path)) == sorted([*names[2:], "t"])
    assert (tmp_path / "t" / "f").read_text() == "old"  # the previous folder, never the half-written one


def test_a_live_runs_work_folder_is_left_alone_and_not_signalled(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for n in (f".t.forsy-aaa-{live.pid}", f".t.forsy-tmp-{dead}"):  # the live one is looked at first
            (tmp_path / n).mkdir()
        F._clean_stale(tmp_path / "t")
        assert os.listdir(tmp_path) == [f".t.forsy-aaa-{live.pid}"]
        # asked whether it runs (signal 0), never sent a signal: a signalled child would exit at once
        with pytest.raises(subprocess.TimeoutExpired):
            live.wait(timeout=1)
    finally:
        live.kill()
        live.wait()


def test_a_dead_runs_work_folder_that_cannot_be_removed_does_not_stop_the_tidying(
        tmp_path: Path, removal_fails: list[str]) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    for n in (f".t.forsy-aaa-{dead}", f".t.forsy-old-{dead}"):  # the removal comes first (sorted)
        (tmp_path / n).mkdir()
    F._clean_stale(tmp_path / "t")
    assert removal_fails == [f".t.forsy-aaa-{dead}"]
    assert sorted(os.listdir(tmp_path)) == [f".t.forsy-aaa-{dead}", "t"]  # the moved-aside folder went back


def test_a_dead_runs_moved_aside_folder_is_removed_once_the_new_one_is_in_place(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "new").write_text("new")
    (tmp_path / f".t.forsy-old-{dead}").mkdir()
    F._clean_stale(tmp_path / "t")
    assert sorted(os.listdir(tmp_path)) == ["t"]
    assert os.listdir(tmp_path / "t") == ["new"]
