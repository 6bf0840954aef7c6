"""The first Codex CLI's `rollout-*.json` ({session, items}) read record by record
(`codex._legacy.load_json_rollout`): the `session` member is one record at its exact bytes
(kind `bare_header`, its time), each item one record at its exact bytes with its type, what is
not an object or not JSON is counted and said with its line, a member the CLI never wrote is
named, and a file that is no such object reads nothing and says so. Expectations worked out by
hand from the text written below."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from forsy.evidence import Quality, Session, SessionMeta
from forsy.sources.codex._legacy import is_legacy, load_json_rollout
from forsy.sources.lines import Limits

T = "2025-04-18T10:00:00.000Z"
DOC = {"session": {"timestamp": T, "id": "3e1b", "instructions": "be brief"},
       "items": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                 "not an object",
                 {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c"},
                 {"role": "assistant"}],
       "extra": 1}


def _session() -> Session:
    return Session("codex", "", [], {}, [], SessionMeta(agent="codex-cli"), Quality())


def test_each_member_and_item_is_a_record_at_its_exact_bytes(tmp_path: Path) -> None:
    text = json.dumps(DOC, indent=2)
    p = tmp_path / "rollout-2025-04-18-3e1b.json"
    p.write_text(text)
    s = _session()
    got = load_json_rollout(p, "r.json", s, Limits.from_env())
    data = text.encode()
    assert (got.source, got.file.path, got.file.bytes, got.file.sha256, got.decompressed) == (
        "r.json", "r.json", len(data), hashlib.sha256(data).hexdigest(), False)
    assert got.file.abs_path == str(p.resolve()) and got.file.kind == "codex"
    head_at = text.index('{\n    "timestamp"')
    items_at = [text.index('{\n      "type": "message"'), text.index('{\n      "type": "function_call"'),
                text.index('{\n      "role": "assistant"')]
    evs = list(s.evidence.values())
    assert [(e.byte_offset, e.line, e.record_type) for e in evs] == [
        (head_at, 2, "bare_header"), (items_at[0], 8, "message"), (items_at[1], 19, "function_call"),
        (items_at[2], 25, None)]
    for e in evs:  # each record's bytes are its value, whole
        chunk = data[e.byte_offset: e.byte_offset + e.byte_length]
        assert hashlib.sha256(chunk).hexdigest() == e.sha256 and json.loads(chunk) in (DOC["session"], *DOC["items"])
    assert [(r.idx, r.line, r.ev, r.kind, r.sub, r.ts, r.base) for r in got.recs] == [
        (0, 2, evs[0].id, "bare_header", None, T, ()), (1, 8, evs[1].id, "response_item", "message", None, ()),
        (2, 19, evs[2].id, "response_item", "function_call", None, ()),
        (3, 25, evs[3].id, "response_item", None, None, ())]
    assert got.recs[0].payload == DOC["session"] and got.recs[2].payload == DOC["items"][2]
    assert (s.quality.records, s.quality.unparsable_records) == (5, 1)  # the header and 4 items; 1 no object
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("not-an-object", "element is str, not an object; skipped", "r.json", 18),
        ("unknown_member", "top-level member 'extra' is not one the CLI wrote; not read", "r.json", 29)]


def test_a_header_with_no_time_or_no_header_and_a_file_that_is_no_rollout(tmp_path: Path) -> None:
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"session": {"timestamp": 5}, "items": []}))
    s = _session()
    got = load_json_rollout(p, "r.json", s, Limits.from_env())
    assert [(r.kind, r.ts) for r in got.recs] == [("bare_header", None)] and s.quality.records == 1
    p.write_text(json.dumps({"items": [{"type": "message"}], "session": "later, and no object"}))
    s = _session()
    got = load_json_rollout(p, "r.json", s, Limits.from_env())
    assert [r.kind for r in got.recs] == ["response_item"] and s.quality.records == 1  # no header record
    p.write_text("[1, 2]")
    s = _session()
    got = load_json_rollout(p, "r.json", s, Limits.from_env())
    assert (got.recs, s.quality.unparsable_records, s.quality.records) == ([], 1, 0)
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unparsable", "not a JSON object with a session and an items list; nothing read", "r.json", 1)]
    assert is_legacy(b'\xef\xbb\xbf {\n "session": {') and not is_legacy(b'{"items": [], "session": {')
