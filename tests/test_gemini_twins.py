"""A Gemini CLI chat kept twice: `session-….json` beside the `session-….jsonl` it was moved to.

The writer (packages/core/src/services/chatRecordingService.ts `initialize()`): resuming a
`.json` chat, it writes the whole record again into `<same name>.jsonl` and goes on there,
leaving the `.json`. forsy reads the `.jsonl` (the `.json`'s messages would be read twice) and
names the `.json` as a copy set aside, in `ls`, `retrace DIR` and `sweep`, as it names the
`.unreadable-*` and `.tmp-*` copies. Built by hand here, expectations from the writer's rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from forsy import sources
from forsy.cli import app
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource
from forsy.sources.walk import discover_tree
from forsy.store import Store, TraceQuery
from forsy.sweep import SweepOptions, sweep

T = "2026-01-16T11:0{}:00.000Z".format
HEAD = {"sessionId": "37b7abef-0000-4000-8000-000000000001", "projectHash": "h" * 64, "startTime": T(1),
        "lastUpdated": T(4)}
SET_ASIDE = ("not read: an older copy of the chat beside it: resuming a .json chat, Gemini CLI writes it again "
             "into the .jsonl of the same name and goes on there, which is read")


def messages(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(1, n + 1):
        out += [{"id": f"u{i}", "timestamp": T(i), "type": "user", "content": f"step {i}"},
                {"id": f"g{i}", "timestamp": T(i), "type": "gemini", "content": f"did {i}"}]
    return out


def migrated(root: Path) -> tuple[Path, Path]:
    """A project's chats folder: the `.json` chat as it was, and the `.jsonl` it went on in."""
    chats = root / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    old = chats / "session-2026-01-16T11-01-37b7abef.json"
    old.write_text(json.dumps({**HEAD, "messages": messages(1)}, indent=2), "utf-8")
    new = old.with_suffix(".jsonl")
    new.write_text("".join(json.dumps(r) + "\n" for r in [HEAD, *messages(2)]), "utf-8")
    return old, new


def test_the_jsonl_is_read_and_the_json_it_was_moved_from_is_named(tmp_path: Path) -> None:
    old, new = migrated(tmp_path)
    tree = discover_tree(tmp_path, sources.available())
    assert [p.name for _, p in tree.found] == [new.name]
    assert [(p.name, why) for p, why in tree.not_searched] == [(old.name, SET_ASIDE)]


def test_a_json_chat_alone_is_read_and_named_by_nobody(tmp_path: Path) -> None:
    old, new = migrated(tmp_path)
    new.unlink()
    tree = discover_tree(tmp_path, sources.available())
    assert [p.name for _, p in tree.found] == [old.name] and tree.not_searched == []


def test_the_json_named_by_the_user_is_read_and_says_where_the_chat_went_on(tmp_path: Path) -> None:
    old, new = migrated(tmp_path)
    [s] = GeminiSource().read(old, ReadContext(root=old.parent))
    assert [e.text for e in s.events if e.kind == "user"] == ["step 1"]
    [w] = [w for w in s.warnings if w.code == "migrated_chat"]
    assert w.message == (f"read as named, though {new.name} beside it is where Gemini CLI went on with this chat "
                         "when it was resumed (its messages, and the later ones)")


def test_ls_and_retrace_name_the_json_as_set_aside(tmp_path: Path) -> None:
    old, new = migrated(tmp_path / "logs")
    ls = CliRunner().invoke(app, ["ls", str(tmp_path / "logs")])
    assert ls.exit_code == 0, ls.output
    assert [ln.rsplit(" ", 1)[-1] for ln in ls.stdout.splitlines()] == [str(new)]
    assert f"forsy: not read: {old}: {SET_ASIDE}" in ls.stderr
    res = CliRunner().invoke(app, ["retrace", str(tmp_path / "logs"), "-o", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(ln) for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert sorted((Path(r["input"]).name, r["status"], r["message"] if r["status"] == "skipped" else None)
                  for r in rows) == [(old.name, "skipped", SET_ASIDE), (new.name, "written", None)]


def test_the_sweep_drafts_the_jsonl_and_leaves_the_json_out(tmp_path: Path, store: Store) -> None:
    old, new = migrated(tmp_path / "logs")
    report = sweep(store, SweepOptions(roots=[tmp_path / "logs"], ignore_settle=True,
                                       claude_home=Path("/nonexistent"), now=lambda: 2e9))
    assert [Path(r.unit_path).name for r in store.traces(TraceQuery())] == [new.name]
    assert report.left_out == [(str(old), SET_ASIDE)]
