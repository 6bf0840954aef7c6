"""The manifest's ledger: every record read is cited, metadata, set aside by a named rule,
a duplicate, unparsable or unknown, and the totals add up to the records read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _paths import REAL_LOGS, needs_shared
from forsy.assemble import ledger
from forsy.evidence import Evidence, Quality, ReadingWarning, Session, SessionMeta, SourceFile
from forsy.models import Manifest
from forsy.run import RetraceOptions, retrace
from forsy.sources.lines import sha256
from forsy.validation import validate_path


def rec(i: int, kind: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None,
                            "sessionId": "sess-l", "timestamp": f"2026-01-01T10:00:{i:02d}.000Z"}
    base.update(extra)
    return base


def _claude_log(tmp_path: Path) -> Path:
    user = rec(1, "user", message={"role": "user", "content": "list the files"})
    lines = [
        json.dumps(user),
        json.dumps(rec(2, "assistant", message={"id": "m2", "role": "assistant", "model": "claude-x",
                                                 "content": [{"type": "text", "text": "Here they are."}]})),
        json.dumps({"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}}),
        json.dumps(rec(3, "progress", data={"type": "hook_progress", "hookEvent": "Stop"})),
        json.dumps(user),  # a resumed session replays an earlier line
        "{not json",
        json.dumps(rec(4, "brand-new-type", content="words the trace may lack")),
        json.dumps(rec(5, "other-new-type", flag=True)),
        json.dumps(rec(6, "summary", summary="Listing files", leafUuid="u2")),
    ]
    p = tmp_path / "sess-l.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _manifest(folder: Path) -> Manifest:
    return Manifest.model_validate_json((folder / "manifest.json").read_bytes())


def test_every_record_of_a_claude_log_is_accounted_for(tmp_path: Path) -> None:
    out = tmp_path / "t"
    retrace([_claude_log(tmp_path)], RetraceOptions(out=out, redact=False))
    m = _manifest(out)
    assert m.ledger is not None and len(m.ledger) == 1
    f = m.ledger[0]
    assert f.path == "sess-l.jsonl" and f.records_read == 9
    assert f.totals == {"cited": 2, "metadata": 1, "set_aside": 2, "duplicate": 1, "unparsable": 1, "unknown": 2}
    by = {(e.heading, e.record_type, e.rule): e for e in f.entries}
    assert by[("set_aside", "progress/hook_progress", "progress records carry no work")].count == 1
    assert by[("set_aside", "file-history-snapshot", "file-history-snapshot")].count == 1
    assert by[("metadata", "summary", "title")].count == 1
    assert by[("duplicate", "user", "resume replay of an earlier line")].count == 1
    assert by[("unknown", "brand-new-type", None)].text == 1  # carries text
    assert by[("unknown", "other-new-type", None)].text == 0
    unknown = [(w.file, w.line) for w in m.warnings if w.code == "ledger-unknown"]
    assert unknown == [("sess-l.jsonl", 7), ("sess-l.jsonl", 8)]
    # only the unknown record that carries text lowers confidence
    factor = next(f for f in m.confidence_factors if f["name"] == "unknown_records")
    assert factor["value"] == 1 and factor["penalty"] == 1
    assert validate_path(out).errors == []


def test_a_source_that_marks_nothing_has_its_uncited_records_unknown(tmp_path: Path) -> None:
    """A new reader is accounted for without its help: unmarked and uncited is `unknown`,
    warned once per type with the first record's file and line; unparsable lines come from
    the readers' warnings."""
    data = b'{"kind":"a","text":"hello"}\n{"kind":"a"}\n{"kind":"b"}\nxx\n'
    log = tmp_path / "new.jsonl"
    log.write_bytes(data)
    evs: dict[str, Evidence] = {}
    offset = 0
    for n, raw in enumerate(data.split(b"\n")[:3], start=1):
        ev = Evidence.make("new.jsonl", n, offset, raw, sha256(raw), json.loads(raw)["kind"])
        evs[ev.id] = ev
        offset += len(raw) + 1
    s = Session("new", "s", [SourceFile("new.jsonl", str(log), "new", len(data), sha256(data))], evs, [],
                SessionMeta(), Quality(unparsable_records=1),
                [ReadingWarning("unparsable-line", "line is not JSON", "new.jsonl", 4)])
    first, second, third = list(evs)
    s.mark(third, "set_aside", "b records carry no work")
    books = ledger.build(s, cited={second})
    [f] = books.files
    assert f.records_read == 4
    assert f.totals == {"cited": 1, "metadata": 0, "set_aside": 1, "duplicate": 0, "unparsable": 1, "unknown": 1}
    assert [(w.code, w.file, w.line) for w in books.warnings] == [("ledger-unknown", "new.jsonl", 1)]
    assert books.unknown_with_text == 1


def test_validate_finds_a_ledger_that_does_not_add_up(tmp_path: Path) -> None:
    out = tmp_path / "t"
    retrace([_claude_log(tmp_path)], RetraceOptions(out=out, redact=False))
    m = json.loads((out / "manifest.json").read_text())
    m["ledger"][0]["entries"][0]["count"] += 1
    (out / "manifest.json").write_text(json.dumps(m))
    assert "N009" in {f.rule for f in validate_path(out).errors}


def _real_inputs() -> list[Path]:
    if not REAL_LOGS.is_dir():
        return []
    out = []
    for kind in ("claude", "codex", "shell"):
        for p in sorted((REAL_LOGS / kind).rglob("*")):
            if not p.is_file() or not p.stat().st_size or set(p.parts) & {"subagents", "tool-results"}:
                continue  # subagent files are read with their session
            if p.suffix not in (".md", ".txt") and not p.name.endswith(".meta.json"):
                out.append(p)
    return out


@needs_shared
@pytest.mark.parametrize("log", _real_inputs(), ids=lambda p: f"{p.relative_to(REAL_LOGS).parts[0]}:{p.name}")
def test_real_logs_ledger_adds_up_with_nothing_unknown(log: Path) -> None:
    run = retrace([log], RetraceOptions(redact=False), raise_if_empty=False)
    for o in run.results:
        assert o.assembled is not None
        m = o.assembled.manifest
        assert m.ledger is not None
        for f in m.ledger:
            assert sum(f.totals.values()) == f.records_read
            assert f.totals["unknown"] == 0, [e for e in f.entries if e.heading == "unknown"]
        cited = sum(f.totals["cited"] for f in m.ledger)
        assert cited == len(o.assembled.provenance.evidence)
