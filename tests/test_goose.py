"""Goose sessions: hand-made JSONL in the shapes Goose's session writer gives them (block/goose:
session/storage.rs writes SessionMetadata then one Message a line; the parts tagged by `type`,
a tool outcome `{status, value}` / `{status, error}`), read into steps whose results are linked
to their calls; failures, declined calls, a shell's exit code, damaged lines, unknown parts,
and the sniff (other agents' files are not taken, and their sniffs do not take Goose's)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from _paths import REAL_LOGS, SAMPLES, real_logs
from forsy.models import Manifest
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext, available, detect
from forsy.sources.goose import GooseSource
from forsy.sources.walk import discover_tree
from forsy.validation import validate_path
from forsy.verification import verify_folder

SRC = GooseSource()
CWD = "/home/dev/projects/kettle"
META = {"working_dir": CWD, "description": "Fix the kettle build", "schedule_id": None, "message_count": 0,
        "total_tokens": 120, "input_tokens": 100, "output_tokens": 20, "accumulated_total_tokens": 900,
        "accumulated_input_tokens": 800, "accumulated_output_tokens": 100}


def msg(role: str, t: int, *content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": None, "role": role, "created": 1760000000 + t, "content": list(content), **extra}


def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "toolRequest", "id": cid,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}}


def result(cid: str, value: Any) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "success", "value": value}}


def write(tmp: Path, records: list[Any], raw: list[str] | None = None, name: str = "20251009_1.jsonl") -> Path:
    path = tmp / "sessions" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, separators=(",", ":")) for r in records] + (raw or [])
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _session(tmp: Path, raw: list[str] | None = None) -> Path:
    return write(tmp, _session_records(), raw)


def _session_records() -> list[dict[str, Any]]:
    return [
        META,
        msg("user", 1, text("Make the build pass.")),
        msg("assistant", 2, text("Building."), call("c_make", "developer__shell", command="make"),
            call("c_ls", "developer__shell", command="ls")),
        # the rmcp era's CallToolResult: the shell's failed command, with its exit line
        msg("user", 3, result("c_make", {"content": [{"type": "text", "text": "cc: error\n\nCommand exited with code 2"}
                                                     ], "isError": True}),
            result("c_ls", {"content": [{"type": "text", "text": "Makefile\nx.c"}], "isError": False})),
        msg("assistant", 4, call("c_rm", "developer__shell", command="rm -rf build"),
            call("c_w", "developer__file_write", path=f"{CWD}/x.c", content="int main(){}")),
        msg("user", 5, result("c_rm", [text("The user has declined to run this tool. DO NOT attempt to call this "
                                            "tool again.")]),
            {"type": "toolResponse", "id": "c_w", "toolResult": {"status": "error", "error": "-32603: disk full"}}),
        msg("assistant", 6, {"type": "thinking", "thinking": "Nothing more to do.", "signature": "s"},
            text("Done.")),
    ]


def _retrace(path: Path, out: Path) -> tuple[dict[str, Any], Manifest]:
    retrace([path], RetraceOptions(out=out, redact=False))
    assert validate_path(out).ok, validate_path(out).errors
    rep = verify_folder(out, [path])
    assert rep.ok, rep
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    return trace, Manifest.model_validate_json((out / "manifest.json").read_text("utf-8"))


def test_calls_link_to_their_results_failures_and_exit_codes(tmp_path: Path) -> None:
    [s] = SRC.read(_session(tmp_path), ReadContext())
    calls = {e.call_id: e for e in s.events if e.kind == "tool_call"}
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    assert set(calls) == set(results) == {"c_make", "c_ls", "c_rm", "c_w"}
    assert calls["c_make"].args == {"command": "make"} and calls["c_make"].tool == "developer__shell"
    assert calls["c_make"].group == calls["c_ls"].group
    make = results["c_make"]
    assert make.is_error is True and make.info.exit_code == 2 and make.tool == "developer__shell"
    # a success states no exit code: none is made up
    assert results["c_ls"].is_error is False and results["c_ls"].info.exit_code is None
    rm = results["c_rm"]
    assert rm.is_error is True and rm.info.rejected and rm.info.failure_rule == "R-call/goose-declined"
    assert results["c_w"].is_error is True and results["c_w"].text == "-32603: disk full"
    assert [e.text for e in s.events if e.kind == "user"] == ["Make the build pass."]
    assert [e.text for e in s.events if e.kind == "reasoning"] == ["Nothing more to do."]
    assert s.meta.cwd == CWD and s.meta.token_usage == {"input": 800, "output": 100, "total": 900}
    assert make.ts == "2025-10-09T08:53:23Z"
    assert s.warnings == []


def test_a_session_retraces_validates_and_verifies(tmp_path: Path) -> None:
    trace, m = _retrace(_session(tmp_path), tmp_path / "out")
    steps = trace["steps"]
    make = next(st for st in steps if st["tool"] == "developer__shell" and '"make"' in st["input"])
    assert make["success"] is False and "Command exited with code 2" in make["output"]
    assert m.ledger[0].totals["unknown"] == 0


def test_a_damaged_line_is_named_and_skipped(tmp_path: Path) -> None:
    path = _session(tmp_path, raw=['{"id":null,"role":"user","created":17600', "not json at all"])
    [s] = SRC.read(path, ReadContext())
    lines = sorted(w.line for w in s.warnings if w.file == path.name and w.line is not None)
    assert lines == [8, 9], s.warnings
    assert s.quality.unparsable_records == 2
    assert sum(1 for e in s.events if e.kind == "tool_result") == 4
    _, m = _retrace(path, tmp_path / "out")
    t = m.ledger[0].totals
    assert t["unparsable"] == 2 and t["unknown"] == 0
    assert m.ledger[0].records_read == sum(t.values())


def test_unknown_parts_are_counted_warnings_and_the_early_result_form_reads(tmp_path: Path) -> None:
    shown = {"type": "text", "text": "a\nb", "annotations": {"audience": ["assistant"]}}
    user_copy = {"type": "text", "text": "a\nb", "annotations": {"audience": ["user"], "priority": 0.0}}
    path = write(tmp_path, [
        msg("user", 1, text("hi"), {"type": "hologram", "x": 1}),
        msg("assistant", 2, call("c1", "developer__shell", command="ls")),
        msg("user", 3, result("c1", [shown, user_copy])),
        msg("assistant", 4, {"type": "contextLengthExceeded", "msg": "too long"}),
        {"role": "system", "created": 5, "content": []},
    ])
    [s] = SRC.read(path, ReadContext())
    assert s.quality.unknown_records == 1
    assert [(w.code, w.line) for w in s.warnings] == [("unknown-record", 1), ("damaged-record", 5)]
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert res.text == "a\nb" and res.refs[0].pointer == "/content/0/toolResult/value/0/text"
    assert [e.info.subtype for e in s.events if e.kind == "note"] == ["context_length_exceeded"]


def test_the_samples_read(tmp_path: Path) -> None:
    early = SAMPLES / "goose" / "sessions" / "20250611_093012.jsonl"
    [s] = SRC.read(early, ReadContext())
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [r.is_error for r in results] == [False, False, False, False, True, True]
    # the view gave the model the file as an embedded resource, the person a text: the model's is read
    assert results[1].refs[0].pointer.endswith("/value/0/resource/text") and results[1].text.startswith("pub fn")
    # this era's shell said nothing of the exit status: no code is read, the call is not failed
    assert results[3].info.exit_code is None and "error[E0599]" in (results[3].text or "")
    assert s.quality.encrypted_reasoning == 1 and s.meta.extra["ai_title"] == "Fix CSV export last row"
    later = SAMPLES / "goose" / "sessions" / "20250904_161540.jsonl"
    [s2] = SRC.read(later, ReadContext())
    assert [e.info.subtype for e in s2.events if e.kind == "note"] == [
        "goose_to_model", "notification:inlineMessage", "summarization_requested"]
    assert s2.quality.extra["confirmations_asked"] == 1 and s2.quality.extra["unreadable_calls"] == 1
    _retrace(later, tmp_path / "out")


def test_discover_finds_the_sessions_folder_under_a_home(tmp_path: Path) -> None:
    folder = tmp_path / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    a = write(folder.parent, [META, msg("user", 1, text("hi"))], name="a.jsonl")
    (folder / "notes.jsonl").write_text('{"role":"user","content":"hi"}\n', "utf-8")
    assert SRC.discover(tmp_path) == [a]
    assert SRC.discover(folder) == [a]
    assert SRC.env_roots({"XDG_DATA_HOME": "/x"}, tmp_path) == [Path("/x/goose/sessions")]


def test_the_sniff_keeps_to_its_own() -> None:
    heads = {
        "claude": {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "timestamp": "t",
                   "message": {"role": "user", "content": "hi"}},
        "openai": {"role": "user", "content": "hi"},
        "openai_parts": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        "codex": {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
    }
    for name, d in heads.items():
        assert not SRC.sniff(Path(f"{name}.jsonl"), json.dumps(d).encode() + b"\n"), name
    for p in sorted(SAMPLES.rglob("*")):
        if not p.is_file() or p.suffix in (".py", ".md"):
            continue
        head = p.read_bytes()[:65536]
        takers = [s.name for s in available() if s.sniff(p, head)]
        if p.is_relative_to(SAMPLES / "goose"):
            assert takers == ["goose"], p
            assert detect(p).name == "goose"
        else:
            assert "goose" not in takers, p
    # a message line first (no metadata line) is Goose's only in a .jsonl file
    line = json.dumps(msg("user", 1, text("hi"))).encode() + b"\n"
    assert SRC.sniff(Path("x.jsonl"), line) and not SRC.sniff(Path("x.json"), line)


@pytest.mark.real_logs
@pytest.mark.skipif(not real_logs("goose"), reason=f"no Goose logs in {REAL_LOGS}")
def test_real_goose_logs_read(tmp_path: Path) -> None:
    for i, p in enumerate(real_logs("goose")[:5]):
        if not SRC.sniff(p, p.read_bytes()[:65536]):
            continue
        [s] = SRC.read(p, ReadContext())
        assert s.events, p
        _retrace(p, tmp_path / f"out{i}")


# session/session_manager.rs create_schema (the latest): the two tables forsy reads
SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  tenant_id TEXT, user_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
"""


def _db(folder: Path, sid: str = "20251009_1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "sessions.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    con.execute("INSERT INTO schema_version (version) VALUES (7)")
    con.execute("INSERT INTO sessions (id, name, working_dir, accumulated_input_tokens, provider_name, "
                "model_config_json) VALUES (?, ?, ?, ?, ?, ?)",
                (sid, "Kettle build", CWD, 500, "anthropic", json.dumps({"model_name": "claude-sonnet-4-5"})))
    vis = json.dumps({"userVisible": True, "agentVisible": True}, separators=(",", ":"))
    for m in _session_records()[1:]:
        con.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) "
                    "VALUES (?, ?, ?, ?, ?)", (sid, m["role"], json.dumps(m["content"], separators=(",", ":")),
                                               m["created"], vis))
    con.commit()
    con.close()
    return db


def test_the_database_reads_as_the_jsonl_does(tmp_path: Path) -> None:
    jsonl = _session(tmp_path / "j")
    folder = tmp_path / "home" / ".local" / "share" / "goose" / "sessions"
    db = _db(folder)
    imported = write(folder.parent, [META, msg("user", 1, text("hi"))], name="20251009_1.jsonl")
    own = write(folder.parent, [META, msg("user", 1, text("hi"))], name="older.jsonl")
    assert imported.parent == folder
    # the database holds the imported file's session: the file is left out, and a folder's walk
    # takes it for a part of the database's sessions
    assert SRC.discover(tmp_path / "home") == [db, own]
    assert SRC.session_of(imported) == db and SRC.session_of(own) is None
    found = discover_tree(tmp_path / "home", available())
    assert sorted(p for _, p in found.found) == sorted([db, own]) and not found.unrecognised, found
    assert detect(db).name == "goose"
    [s] = SRC.read(db, ReadContext(root=folder))
    [js] = SRC.read(jsonl, ReadContext())
    assert [(e.kind, e.call_id, e.is_error, e.text) for e in s.events] == [
        (e.kind, e.call_id, e.is_error, e.text) for e in js.events]
    make = next(e for e in s.events if e.kind == "tool_result" and e.call_id == "c_make")
    assert make.info.exit_code == 2 and make.refs[0].pointer == "/content_json/0/toolResult/value/content/0/text"
    assert s.meta.models == ["claude-sonnet-4-5"] and s.meta.extra["ai_title"] == "Kettle build"
    assert s.meta.token_usage == {"input": 500}
    assert s.events[0].ts == "2025-10-09T08:53:21Z"
    _retrace(db, tmp_path / "out")
    # every row is a source of its own in provenance; verify finds the database below a folder above it
    assert [f.rule for f in validate_path(tmp_path / "out").findings] == ["M009"]
    assert verify_folder(tmp_path / "out", [tmp_path / "home"]).ok
    # a file named alone whose session the database holds: read, and said
    [again] = SRC.read(imported, ReadContext())
    assert [w.code for w in again.warnings] == ["migrated"]


def test_other_sqlite_files_are_not_goose(tmp_path: Path) -> None:
    other = tmp_path / "sessions.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE sessions (id TEXT, data TEXT)")
    con.commit()
    con.close()
    assert not SRC.sniff(other, other.read_bytes()[:65536])
    db = _db(tmp_path / "g")
    renamed = tmp_path / "opencode.db"
    renamed.write_bytes(db.read_bytes())
    assert not SRC.sniff(renamed, renamed.read_bytes()[:65536])
    assert [s.name for s in available() if s.sniff(db, db.read_bytes()[:65536])] == ["goose"]


def test_rows_still_in_the_write_ahead_log_are_read(tmp_path: Path) -> None:
    """Goose keeps the store in WAL mode (session_manager.rs create_pool): rows a running Goose
    committed but did not yet checkpoint are in `sessions.db-wal`, and are read."""
    db = _db(tmp_path / "sessions")
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
        con.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)",
                    ("20251009_1", "user", json.dumps([text("One more thing.")]), 1760000100))
        con.commit()
        assert (tmp_path / "sessions" / "sessions.db-wal").stat().st_size > 0
        [s] = SRC.read(db, ReadContext())
        assert [e.text for e in s.events if e.kind == "user"] == ["Make the build pass.", "One more thing."]
    finally:
        con.close()
