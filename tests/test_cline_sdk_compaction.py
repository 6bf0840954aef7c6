"""Cline SDK's compacted view, `<session id>.compaction.json` (sources/cline/_compaction.py),
built by hand from the writer at cline/cline commit 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4
(session/models/session-compaction.ts `createSessionCompactionState`, extensions/context/
compaction-shared.ts for the summary's metadata): read with its session, it says when the
context was compacted and with what summary; it is never taken for another format's log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _oracle import checked_traces
from _sweep_at import age, sweep_at
from forsy.sources import ReadContext, available
from forsy.sources.cline import ClineSource
from forsy.sources.walk import discover_tree
from forsy.store import Store
from test_cline_sdk_subagents import ROOT, _root, _sub

SUMMARY = "The user wants the callers of parse_args; cli.py was searched."
GENERATED = 1787220005500  # after the call (…01.000), before its result was read (…09.000)


def _view(folder: Path, *, summary: str = SUMMARY, generated: int | None = GENERATED, **header: Any) -> Path:
    meta: dict[str, Any] = {"kind": "compaction_summary", "displayRole": "system", "summary": summary,
                            "tokensBefore": 91000}
    if generated is not None:
        meta["generatedAt"] = generated
    doc = {"version": 1, "updated_at": "2026-08-20T10:00:06.000Z", "conversation_id": "c1",
           "source_message_count": 3, "source_prefix_hash": "abc",
           "messages": [{"role": "user", "content": [{"type": "text", "text": summary}], "metadata": meta},
                        {"id": "m3", "role": "user", "ts": 1787220009000,
                         "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "cli.py"}]}],
           **header}
    p = folder / ROOT / f"{ROOT}.compaction.json"
    p.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    return p


def _read(path: Path) -> Any:
    [s] = ClineSource().read(path, ReadContext(root=path.parent))
    return s


def test_a_compacted_view_says_when_the_context_was_compacted(tmp_path: Path) -> None:
    root = _root(tmp_path)
    view = _view(tmp_path)
    s = _read(root)
    kinds = [(e.kind, e.ts) for e in s.events]
    assert kinds == [("user", "2026-08-20T10:00:00.000Z"), ("tool_call", "2026-08-20T10:00:01.000Z"),
                     ("compaction", "2026-08-20T10:00:05.500Z"), ("tool_result", "2026-08-20T10:00:09.000Z"),
                     ("agent_text", "2026-08-20T10:00:10.000Z")]
    [c] = [e for e in s.events if e.kind == "compaction"]
    assert (c.actor, c.text, c.refs[0].pointer) == ("system", SUMMARY, "/content/0/text")
    assert c.ts_from is not None and c.ts_from.pointer == "/metadata/generatedAt"
    assert s.quality.compactions == 1 and [f.path for f in s.files] == [root.name, view.name]
    marks = sorted((m.heading, m.subtype) for k, m in s.ledger.items() if s.evidence[k].source == view.name)
    assert marks == [("metadata", k) for k in sorted(("conversation_id", "source_message_count",
                                                       "source_prefix_hash", "updated_at", "version"))] + [
        ("set_aside", "message")]


def test_without_its_own_time_the_summary_takes_the_files_and_without_any_it_comes_last(tmp_path: Path) -> None:
    root = _root(tmp_path)
    _view(tmp_path, generated=None)
    [c] = [e for e in _read(root).events if e.kind == "compaction"]
    assert c.ts == "2026-08-20T10:00:06.000Z" and c.ts_ref is not None and c.ts_from is None
    doc = json.loads(_view(tmp_path, generated=None).read_text())
    del doc["updated_at"]
    (tmp_path / ROOT / f"{ROOT}.compaction.json").write_text(json.dumps(doc))
    s = _read(root)
    assert s.events[-1].kind == "compaction" and s.events[-1].ts is None
    assert [w.code for w in s.warnings] == ["compaction-time"]


def test_a_summary_the_transcript_holds_already_is_one_compaction(tmp_path: Path) -> None:
    summary = {"id": "m5", "role": "user", "ts": 1787220011000, "content": [{"type": "text", "text": SUMMARY}],
               "metadata": {"kind": "compaction_summary", "displayRole": "system"}}
    root = _root(tmp_path, "List the callers of parse_args.", summary)
    _view(tmp_path)
    s = _read(root)
    assert [e.kind for e in s.events].count("compaction") == 1 and s.quality.compactions == 1
    assert ("duplicate", "message") in {(m.heading, m.subtype) for m in s.ledger.values()}


def test_a_damaged_view_is_said_and_the_transcript_read(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (tmp_path / ROOT / f"{ROOT}.compaction.json").write_text("[1, 2]")
    s = _read(root)
    assert [e.kind for e in s.events].count("compaction") == 0 and len(s.events) == 4
    assert [(w.code, w.file) for w in s.warnings] == [("unparsable", f"{ROOT}.compaction.json")]
    assert s.quality.unparsable_records == 1


def test_the_view_is_never_read_as_a_log_of_its_own_and_its_change_is_its_sessions(tmp_path: Path,
                                                                                   store: Store) -> None:
    logs = tmp_path / "logs"
    root = _root(logs)
    _sub(logs, "researcher-1", 2)
    view = _view(logs)
    # the writer indents it; written on one line (a tool re-serialising it) it reads as an OpenAI
    # chat's first line: still a part of the Cline session, never a session of its own
    view.write_text(json.dumps(json.loads(view.read_text("utf-8"))) + "\n", "utf-8")
    tree = discover_tree(logs, available())
    assert [(src.name, p) for src, p in tree.found] == [("cline", root)]
    assert ClineSource().session_of(view) == root
    out = tmp_path / "out"
    from typer.testing import CliRunner

    from forsy.cli import app

    r = CliRunner().invoke(app, ["retrace", str(logs), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0 and "1 written" in r.output, r.output
    [trace] = checked_traces(out, root)
    assert [(st["actor"], st["output"]) for st in trace["steps"] if st["actor"] == "system"] == [("system", SUMMARY)]
    [manifest] = list(out.rglob("manifest.json"))
    assert json.loads(manifest.read_text("utf-8"))["counts"]["compactions"] == 1
    age(logs.rglob("*.json"), 86400)
    assert (sweep_at(store, logs).counts.traced, sweep_at(store, logs).counts.traced) == (1, 0)
    _view(logs, summary="A second summary.")
    age([view], 3600)
    again = sweep_at(store, logs)
    assert (again.counts.traced, again.counts.new) == (1, 0)
