"""`forsy verify TRACE DIR` given the folder `forsy retrace DIR` was given (verification.py
`Sources._below`): a session file's evidence is named from its own folder, so the log is looked
for below the root, and used only when its sha256 is the one recorded; nothing outside the
roots, and no file that merely has the name, is ever read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import forsy
from _paths import SAMPLES
from forsy.verification import verify_folder

DEMO = SAMPLES / "claude" / "demo-session.jsonl"


def _trace(tmp_path: Path) -> Path:
    (tmp_path / "logs" / "proj").mkdir(parents=True)
    shutil.copy(DEMO, tmp_path / "logs" / "proj" / "s.jsonl")
    out = tmp_path / "out"
    run = forsy.retrace([tmp_path / "logs"], forsy.RetraceOptions(redact=False),
                        sink=forsy.FolderSink(out, parent=True))
    assert not run.failed
    [trace] = [t.parent for t in out.rglob("trace.json")]
    return trace


def test_the_folder_retrace_was_given_verifies_its_traces(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    for root in (tmp_path / "logs", tmp_path / "logs" / "proj", tmp_path):
        rep = verify_folder(trace, [root])
        assert rep.ok and rep.checked > 0, (root, rep.problems)


def test_only_the_file_that_hashes_right_is_used(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    log = tmp_path / "logs" / "proj" / "s.jsonl"
    (tmp_path / "logs" / "aaa").mkdir()
    (tmp_path / "logs" / "aaa" / "s.jsonl").write_text('{"type": "user"}\n', "utf-8")  # found first, not it
    assert verify_folder(trace, [tmp_path / "logs"]).ok
    moved = tmp_path / "elsewhere.jsonl"
    log.rename(moved)
    os.symlink(moved, log)  # a link below the root to a file outside it: never followed
    rep = verify_folder(trace, [tmp_path / "logs"])
    assert not rep.ok and rep.problems == [f"source s.jsonl not found under {tmp_path / 'logs'}"]


def test_the_walk_below_the_roots_stops_early_and_skips_dependency_folders(tmp_path: Path, monkeypatch: Any) -> None:
    import forsy.verification as verification

    trace = _trace(tmp_path)
    (tmp_path / "logs" / "node_modules").mkdir()
    shutil.move(tmp_path / "logs" / "proj", tmp_path / "logs" / "node_modules" / "proj")
    assert not verify_folder(trace, [tmp_path / "logs"]).ok  # a dependency folder is no place for logs
    shutil.move(tmp_path / "logs" / "node_modules" / "proj", tmp_path / "logs" / "proj")
    assert verify_folder(trace, [tmp_path / "logs"]).ok
    monkeypatch.setattr(verification, "WALK_LIMIT", 0)  # as if a home folder had been given
    assert not verify_folder(trace, [tmp_path / "logs"]).ok
