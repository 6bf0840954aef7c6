"""Copies of a log left beside it (a log's name with more after it: Gemini CLI's
`<chat>.jsonl.unreadable-<ms>`, the preserved chat it could not reload, and `<chat>.jsonl.tmp-<pid>`,
the rewrite before its rename; a person's `.bak`, `.1`, `~`): never read, since they hold the
same work again or a part of it, and named wherever a folder is searched (`forsy retrace DIR`,
`forsy sweep`, once per copy) when a source sniffs them as its own, so none is passed over
without a word. Built from the Gemini chat fixture and from hand-made files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forsy import sources
from forsy.cli import app
from forsy.sources.walk import COPY_NOT_READ, copy_of_log, discover_tree
from forsy.store import Store, TraceQuery
from forsy.sweep import SweepOptions, SweepReport, sweep

FIXTURE = Path(__file__).parent / "fixtures" / "gemini" / "tmp"
T = 2_000_000_000.0


@pytest.mark.parametrize(("name", "copy"), [
    ("session-1.jsonl.unreadable-1764000000000", True),
    ("session-1.jsonl.tmp-4242", True),
    ("session-1.json.bak", True),
    ("rollout.jsonl.1", True),
    ("a.jsonl~", True),
    ("history.cast.orig", True),
    ("zsh_history.old", True),
    ("session-1.jsonl", False),
    ("rollout.jsonl.zst", False),  # a compressed log: read as one
    ("notes.txt", False),
    ("jsonl.txt", False),
    ("x.jsonlines", False),
    (".aider.chat.history.md", False),  # Aider's chat log
    ("session.jsonl.md", False),  # a document made of a log, not a copy
])
def test_a_copy_is_a_log_name_with_more_after_it(name: str, copy: bool) -> None:
    assert copy_of_log(name) is copy


def _gemini_tree(root: Path) -> Path:
    """The fixture's project folder with, beside its chat, Gemini's two copies, a person's
    backup, and a copy no source reads (its content is not a log)."""
    shutil.copytree(FIXTURE, root / "tmp")
    chats = next((root / "tmp").glob("*/chats"))
    chat = next(chats.glob("*.jsonl"))
    data = chat.read_bytes()
    (chats / (chat.name + ".unreadable-1764000000000")).write_bytes(data)
    (chats / (chat.name + ".tmp-4242")).write_bytes(data[: len(data) // 2])  # a rewrite cut short
    (chats / (chat.name + ".bak")).write_bytes(data)
    (chats / "settings.json.lock").write_bytes(b"")
    return chat


def test_the_walk_names_each_sniffed_copy_and_reads_none(tmp_path: Path) -> None:
    chat = _gemini_tree(tmp_path)
    tree = discover_tree(tmp_path, sources.available())
    found = sorted(p.name for _, p in tree.found)
    assert chat.name in found
    assert not any(copy_of_log(n) for n in found)
    named = sorted((p.name, why) for p, why in tree.not_searched)
    assert named == sorted((chat.name + tail, COPY_NOT_READ) for tail in (".bak", ".tmp-4242",
                                                                          ".unreadable-1764000000000"))
    assert tree.unrecognised == []  # the lock file: no source sniffs it, nothing to say


def test_retrace_of_the_folder_lists_the_copies_as_skipped_and_traces_the_chat_once(tmp_path: Path) -> None:
    chat = _gemini_tree(tmp_path / "logs")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["retrace", str(tmp_path / "logs"), "-o", str(out), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    skipped = sorted(Path(r["input"]).name for r in rows if r["status"] == "skipped" and r["message"] == COPY_NOT_READ)
    assert skipped == sorted(chat.name + t for t in (".bak", ".tmp-4242", ".unreadable-1764000000000"))
    written = [r for r in rows if r["status"] == "written"]
    assert sum(Path(r["input"]).name == chat.name for r in written) == 1
    assert not any(copy_of_log(Path(r["input"]).name) for r in written)


def test_a_copy_named_alone_is_retraced_like_its_log(tmp_path: Path) -> None:
    chat = _gemini_tree(tmp_path / "logs")
    copy = chat.with_name(chat.name + ".unreadable-1764000000000")
    res = CliRunner().invoke(app, ["retrace", str(copy), "-o", str(tmp_path / "a"), "--json"])
    res2 = CliRunner().invoke(app, ["retrace", str(chat), "-o", str(tmp_path / "b"), "--json"])
    assert res.exit_code == res2.exit_code == 0, res.output
    steps = [json.loads((tmp_path / d / "trace.json").read_text())["steps"] for d in ("a", "b")]
    assert len(steps[0]) == len(steps[1]) > 0


def _sweep(store: Store, root: Path, now: float = T) -> SweepReport:
    return sweep(store, SweepOptions(roots=[root], ignore_settle=True, claude_home=Path("/nonexistent"),
                                     now=lambda: now))


def test_the_sweep_names_a_copy_once_when_it_appears_and_drafts_only_the_chat(tmp_path: Path, store: Store) -> None:
    chat = _gemini_tree(tmp_path / "logs")
    copies = sorted(str(chat.with_name(chat.name + t)) for t in (".bak", ".tmp-4242", ".unreadable-1764000000000"))
    first = _sweep(store, tmp_path / "logs")
    assert sorted(p for p, why in first.left_out if why == COPY_NOT_READ) == copies
    drafted = sorted(Path(r.unit_path).name for r in store.traces(TraceQuery()))
    assert chat.name in drafted and not any(copy_of_log(n) for n in drafted)
    states = store.file_states([str(tmp_path / "logs")])
    assert [states[c].status for c in copies] == ["ignored"] * 3
    assert sorted(f.path for f in store.left_out()) == copies  # what `forsy sweep --status` lists
    second = _sweep(store, tmp_path / "logs", T + 60)
    assert second.left_out == []  # remembered: said when it appears, then by `--status`
    assert second.counts.traced == 0
    Path(copies[0]).unlink()
    third = _sweep(store, tmp_path / "logs", T + 120)
    assert sorted(f.path for f in store.left_out()) == copies[1:]  # a copy gone is no longer listed
    assert third.left_out == []


def test_the_sweep_names_a_compressed_log_once_and_reads_none(tmp_path: Path, store: Store) -> None:
    """A log kept compressed (`old.jsonl.gz`) under a swept folder is named when it appears, with its
    compression and the command that gives the log back, as `forsy retrace DIR` names it; the
    sweep's walk used to pass it over without a word. Then remembered, as a copy is."""
    import gzip

    chat = _gemini_tree(tmp_path / "logs")
    packed = chat.with_name("old.jsonl.gz")
    packed.write_bytes(gzip.compress(chat.read_bytes()))
    first = _sweep(store, tmp_path / "logs")
    assert (str(packed), "not read: gzip-compressed: decompress it first, e.g. gunzip -k FILE") in first.left_out
    assert str(packed) in [f.path for f in store.left_out()]
    assert _sweep(store, tmp_path / "logs", T + 60).left_out == []
