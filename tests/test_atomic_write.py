"""The trace folder is replaced atomically: a failure, or a SIGKILL, at ANY step of
the write leaves the destination as the old complete folder or the new complete folder, never
a mix, never a half-written one, and no work folder survives the next run.

No timer: every call the writer makes to the file system (open, write, fsync, mkdir, rename,
the renameat2 exchange, unlink, rmdir, rmtree) is a numbered step; the test makes step k fail
(an OSError) or kills the writing process just before step k, for every k from the first
to one past the last (the write then completes).
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import forsy.sinks.folder as folder_mod
from _small_logs import RETRY_SESSION, write
from forsy.assemble import Assembled
from forsy.errors import OutputError
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks.folder import write_folder

Tree = dict[str, bytes]
# os functions the writer (and shutil.rmtree) may call to change the file system
OS_STEPS = ("mkdir", "rename", "replace", "fsync", "unlink", "remove", "rmdir")


class Steps:
    """Numbers every file-system call of the writer; `fail(k)` runs `on_step` on call k."""

    def __init__(self, mp: pytest.MonkeyPatch, on_step: Callable[[], None], at: int) -> None:
        self.n, self.at, self.on_step = 0, at, on_step
        self.names: list[str] = []

        def step(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                self.n += 1
                self.names.append(name)
                if self.n == self.at:
                    self.on_step()
                return real(*args, **kwargs)
            return wrapper

        for name in OS_STEPS:
            mp.setattr(os, name, step(f"os.{name}", getattr(os, name)))
        mp.setattr(shutil, "rmtree", step("shutil.rmtree", shutil.rmtree))
        mp.setattr(folder_mod, "_exchange", step("renameat2", folder_mod._exchange))
        real_open = open

        def opened(*args: Any, **kwargs: Any) -> Any:
            f = real_open(*args, **kwargs)
            f.write = step("write", f.write)
            return f

        mp.setattr(folder_mod, "open", step("open", opened), raising=False)


def _fail() -> None:
    raise OSError(errno.EIO, "injected failure")


def _tree(root: Path) -> Tree:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _work_folders(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".forsy-" in p.name)


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Assembled, Assembled, Tree, Tree]:
    """(old, new) assembled traces of one session (its log before and after it grew) and the
    folders each gives when written on its own."""
    tmp = tmp_path_factory.mktemp("versions")
    log = tmp / "logs" / "s.jsonl"
    log.parent.mkdir()
    got = []
    for records in (RETRY_SESSION[:5], RETRY_SESSION):
        write(log, records)
        [outcome] = retrace_one(log, RetraceOptions(redact=False))
        assert outcome.assembled is not None
        got.append(outcome.assembled)
    old, new = got
    trees = [_tree(write_folder(a, tmp / name)) for a, name in ((old, "old"), (new, "new"))]
    assert trees[0] != trees[1] and trees[0]["trace.json"] != trees[1]["trace.json"]
    return old, new, trees[0], trees[1]


def _ks(count: Callable[[], int]) -> Iterator[int]:
    """1 .. one past the number of steps a clean write takes."""
    yield from range(1, count() + 2)


def _clean_write_steps(a: Assembled, dest: Path, start: Tree | None) -> int:
    _reset(dest, start)
    with pytest.MonkeyPatch.context() as mp:
        steps = Steps(mp, lambda: None, at=0)
        write_folder(a, dest)
    return steps.n


def _reset(dest: Path, tree: Tree | None) -> None:
    for p in [dest, *dest.parent.glob(f".{dest.name}.forsy-*")]:
        if p.exists():
            shutil.rmtree(p)
    if tree is not None:
        for rel, data in tree.items():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(data)


@pytest.mark.parametrize(("before", "swap"), [
    ("old folder", "renameat2"), ("no folder", "renameat2"), ("no folder", "two renames"),
    ("old folder", "two renames")])
def test_a_failure_at_any_step_of_the_write_leaves_the_old_or_the_new_folder(
        tmp_path: Path, versions: tuple[Assembled, Assembled, Tree, Tree], before: str, swap: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if swap == "two renames":  # as on a system without renameat2(RENAME_EXCHANGE)
        monkeypatch.setattr(folder_mod, "_exchange", lambda a, b: False)
    _, new, old_tree, new_tree = versions
    start = old_tree if before == "old folder" else None
    dest = tmp_path / "trace"
    total = _clean_write_steps(new, dest, start)
    assert total >= 10  # open, write, fsync for each of the five files, the swap, ...
    outcomes: dict[str, int] = {}
    for k in range(1, total + 2):
        _reset(dest, start)
        with pytest.MonkeyPatch.context() as mp:
            steps = Steps(mp, _fail, at=k)
            try:
                write_folder(new, dest)
                result = "written"
            except OutputError:
                result = "refused"
        after = _tree(dest) if dest.exists() else None
        assert after in (start, new_tree), f"step {k} ({steps.names[k - 1] if k <= steps.n else 'none'}): " \
                                           f"the destination is neither the old nor the new folder"
        assert result == "refused" or after == new_tree, f"step {k}: reported written, but the folder is not new"
        outcomes[result] = outcomes.get(result, 0) + 1
    # the last round injects nothing: written; an injected failure is an OutputError, except
    # where the writer itself tolerates it (mkdir of a folder that exists)
    assert result == "written" and outcomes["refused"] >= total // 2, outcomes


def _killed_at(k: int, a: Assembled, dest: Path) -> int:
    """Write `a` to `dest` in a child process SIGKILLed just before its step k; its exit status."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            with pytest.MonkeyPatch.context() as mp:
                Steps(mp, lambda: os.kill(os.getpid(), signal.SIGKILL), at=k)
                write_folder(a, dest)
            os._exit(0)
        finally:
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("swap", ["renameat2", "two renames"])
def test_a_kill_at_any_step_of_the_write_leaves_the_old_or_the_new_folder(
        tmp_path: Path, versions: tuple[Assembled, Assembled, Tree, Tree], swap: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL before each step in turn; then the next write (another process: this one)
    removes what the killed one left beside the destination. Without renameat2 a kill
    between the two renames leaves no destination for a moment: the previous folder is
    beside it, and the next write puts it back before anything else."""
    if swap == "two renames":
        monkeypatch.setattr(folder_mod, "_exchange", lambda a, b: False)
    old, new, old_tree, new_tree = versions
    dest = tmp_path / "trace"
    total = _clean_write_steps(new, dest, old_tree)
    killed = 0
    for k in range(1, total + 2):
        _reset(dest, old_tree)
        status = _killed_at(k, new, dest)
        if k <= total:
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (k, status)
            killed += 1
        if swap == "two renames":
            folder_mod._clean_stale(dest)  # what the next write does first
        assert _tree(dest) in (old_tree, new_tree), f"killed before step {k}: neither the old nor the new folder"
        write_folder(old, dest)  # the next run
        assert _tree(dest) == old_tree
        assert _work_folders(tmp_path) == [], f"killed before step {k}: work folders left after the next run"
    assert killed == total


def test_a_failure_at_any_step_of_the_write_leaves_no_work_folder(
        tmp_path: Path, versions: tuple[Assembled, Assembled, Tree, Tree]) -> None:
    _, new, old_tree, _ = versions
    dest = tmp_path / "trace"
    total = _clean_write_steps(new, dest, old_tree)
    _, new_tree = versions[2], versions[3]
    left = {}
    tidied_later = 0
    for k in range(1, total + 1):
        _reset(dest, old_tree)
        with pytest.MonkeyPatch.context() as mp:
            steps = Steps(mp, _fail, at=k)
            try:
                write_folder(new, dest)
                failed = False
            except OutputError:
                failed = True
        if failed and _work_folders(tmp_path):
            left[k] = (steps.names[k - 1], _work_folders(tmp_path))
        elif not failed and _work_folders(tmp_path):
            # the failure hit the tidying after the swap: the new folder is in place, and
            # what could not be removed goes at the next write
            assert _tree(dest) == new_tree, k
            write_folder(new, dest)
            assert _work_folders(tmp_path) == [], k
            tidied_later += 1
    assert left == {}, left
    assert tidied_later > 0  # the tidying steps were reached and failed
