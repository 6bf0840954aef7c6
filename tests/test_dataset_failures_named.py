"""`forsy dataset build` names every session it could not trace (the file, and why) to the person
running it, and exits 7 (partly done) when this run wrote a failed row: the dataset keeps only a
hash of each source's place, so the run's output is the only place the file is named. The card
cuts a long error at a word, marked, not mid-word."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.dataset import build
from forsy.dataset._build import card_error


def _corpus(tmp_path: Path) -> tuple[Path, Path, Path]:
    c = tmp_path / "corpus"
    (c / "claude").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", c / "claude" / "demo-session.jsonl")
    broken = c / "broken" / "broken.jsonl"
    broken.parent.mkdir()
    broken.write_bytes(b"\x00\x01 not a log {{{\n" * 3)
    empty = c / "broken" / "empty.jsonl"
    empty.write_bytes(b"")
    return c, broken, empty


def test_the_result_names_each_failed_session_with_why(tmp_path: Path) -> None:
    c, broken, empty = _corpus(tmp_path)
    r = build([c], tmp_path / "ds")
    assert r.failed == 2
    why = dict(r.failures)
    assert len(r.failures) == 2 and set(why) == {str(broken), str(empty)}
    assert why[str(broken)].startswith("not a log format forsy reads (binary data); supported: aider, ")
    assert why[str(empty)].startswith("not a log format forsy reads (empty file); supported: aider, ")
    # a second run writes nothing new: nothing failed in it, nothing named
    again = build([c], tmp_path / "ds")
    assert (again.failed, again.failures) == (0, [])


def test_the_command_says_each_failure_and_exits_partly_done(tmp_path: Path) -> None:
    c, broken, empty = _corpus(tmp_path)
    r = CliRunner().invoke(app, ["dataset", "build", str(c), "-o", str(tmp_path / "ds"), "--quiet"])
    assert r.exit_code == 7, r.output
    assert r.stdout == ""  # --quiet: no summary, the failures still said
    assert f"forsy: failed: {broken}: not a log format forsy reads (binary data)" in r.stderr
    assert f"forsy: failed: {empty}: not a log format forsy reads (empty file)" in r.stderr
    r = CliRunner().invoke(app, ["dataset", "build", str(c), "-o", str(tmp_path / "ds")])
    assert r.exit_code == 0 and "failed:" not in r.stderr  # nothing new failed in this run


def test_a_long_error_is_cut_at_a_word_in_the_card() -> None:
    words = "not a log format forsy reads; supported: " + ", ".join(f"reader{i}" for i in range(40))
    cut = card_error(words)
    assert len(cut) <= 161 and cut.endswith("…")
    assert words.startswith(cut[:-1]) and words[len(cut) - 1] in " ,"  # ends where a word ended
    assert card_error("short error") == "short error"
    assert card_error("x" * 200) == "x" * 160 + "…"  # one word longer than the limit: cut in it
