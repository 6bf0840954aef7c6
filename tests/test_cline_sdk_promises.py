"""The edges of Cline's SDK session reader (`_sdk.py`), each file built by hand from the writer
(cline/cline sdk/packages/core/src/services/session-data.ts `buildMessagesFilePayload`: one JSON
object `{version, updated_at, agent, sessionId, taskType?, origin, messages, system_prompt?}`;
session-manifest.ts `SessionManifestSchema`: `<session id>.json` beside it). Expectations by hand.

* The file is claimed only by its name (`.messages.json`), an object opening (after a BOM or
  blank), a `messages` member and a `sessionId` in its first 4096 bytes.
* The session is named by `sessionId`, else by the file's stem; its one file is recorded whole.
* Each header member is one record, marked as metadata; `agent`, `taskType`, `origin` are kept.
* A file that is no JSON object is one unparsable record, warned, and nothing else.
* The manifest is one more file and record (line 1, offset 0), marked; one that is not an object
  is unparsable and warned; one too large to read is warned, not read; `ts` only in (0, 10**14)
  ms (a bool is no time).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Mark, ReadingWarning, Ref, SourceFile
from forsy.sources import ReadContext
from forsy.sources.cline._sdk import HEADER_WHY, is_sdk_messages, read_sdk
from forsy.sources.lines import Limits, sha256

HEAD = b'{"version": 1, "sessionId": "s1", "messages": []}'


def test_the_file_is_claimed_by_its_name_opening_and_members() -> None:
    ok = Path("s1.messages.json")
    assert is_sdk_messages(ok, HEAD) is True
    assert is_sdk_messages(ok, b"\xef\xbb\xbf\n  " + HEAD) is True  # a BOM, then blank
    assert is_sdk_messages(ok, b"X" + HEAD) is False
    assert is_sdk_messages(ok, b'[{"sessionId": "s1", "messages": []}]') is False
    assert is_sdk_messages(Path("s1.json"), HEAD) is False
    assert is_sdk_messages(ok, b'{"sessionId": "s1"}') is False  # no messages
    assert is_sdk_messages(ok, b'{"messages": []}') is False  # no sessionId
    late = b'{"pad": "' + b"x" * 4074 + b'", "sessionId": "s1", "messages": []}'
    assert late.index(b'"sessionId"') == 4086  # it ends at byte 4097
    assert is_sdk_messages(ok, late) is False
    early = b'{"pad": "' + b"x" * 4074 + b'","sessionId": "s1", "messages": []}'
    assert early.index(b'"sessionId"') == 4085  # it ends at byte 4096
    assert is_sdk_messages(ok, early) is True


def _write(tmp_path: Path, doc: Any, stem: str = "s1") -> Path:
    p = tmp_path / f"{stem}.messages.json"
    p.write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    return p


def test_the_header_is_read_member_by_member(tmp_path: Path) -> None:
    origin = {"source": "cli", "mode": "user"}
    p = _write(tmp_path, {"version": 1, "agent": "lead", "sessionId": "", "taskType": "chat", "origin": origin,
                          "system_prompt": "You are Cline.", "messages": [{"role": "user", "content": "hi"}, 5]})
    data = p.read_bytes()
    s = read_sdk(p, data, "x/s1.messages.json")
    assert s.session_id == "s1"  # an empty sessionId: the stem
    assert s.source_kind == "cline" and s.meta.agent == "cline"
    assert s.files == [SourceFile("x/s1.messages.json", str(p.resolve()), "cline", len(data), sha256(data))]
    assert s.quality.extra["sdk_session"] == 1
    assert (s.quality.records, s.quality.unparsable_records) == (2 + 6, 1)  # 2 messages, 6 members besides `messages`
    lines = data.decode().split("\n")
    for key in ("version", "agent", "sessionId", "taskType", "origin", "system_prompt"):
        [ev] = [e for e in s.evidence.values() if e.record_type == key]
        assert ev.line == 1 + next(i for i, t in enumerate(lines) if t.startswith(f' "{key}"'))
        assert s.ledger[ev.id] == Mark("metadata", HEADER_WHY, key)
    [sp] = [e for e in s.evidence.values() if e.record_type == "system_prompt"]
    assert (s.meta.system_prompt, s.meta.system_prompt_ref) == ("You are Cline.", Ref(sp.id, ""))
    assert {k: v for k, v in s.meta.extra.items() if k.startswith("sdk_")} == {
        "sdk_agent": "lead", "sdk_taskType": "chat", "sdk_origin": origin}
    five = 1 + next(i for i, t in enumerate(lines) if t == "  5")
    not_an_object = "element is int, not an object; skipped"
    assert s.warnings == [ReadingWarning("not-an-object", not_an_object, "x/s1.messages.json", five)]
    q = _write(tmp_path, {"agent": "lead", "sessionId": "s9", "messages": []}, stem="s9")
    assert read_sdk(q, q.read_bytes(), "q").meta.system_prompt is None  # only system_prompt is the prompt


def test_a_file_of_another_name_is_named_by_its_stem_and_has_no_manifest(tmp_path: Path) -> None:
    p = tmp_path / "s3.json"
    p.write_bytes(b'{"messages": []}')
    (tmp_path / ".json").write_bytes(b'{"cwd": "/elsewhere"}')
    s = read_sdk(p, p.read_bytes(), "s3.json")
    assert (s.session_id, s.meta.cwd, len(s.files)) == ("s3", None, 1)


def test_a_bad_manifest_adds_to_the_messages_unparsable_records(tmp_path: Path) -> None:
    p = _write(tmp_path, {"sessionId": "s1", "messages": [7]})
    (tmp_path / "s1.json").write_bytes(b"[]")
    assert read_sdk(p, p.read_bytes(), "s1.messages.json").quality.unparsable_records == 2


def test_a_named_session_keeps_its_id_and_a_non_object_is_one_unparsable_record(tmp_path: Path) -> None:
    p = _write(tmp_path, {"sessionId": "real", "messages": []}, stem="other")
    assert read_sdk(p, p.read_bytes(), "n").session_id == "real"
    bad = tmp_path / "s2.messages.json"
    bad.write_bytes(b"[1, 2]\n")
    s = read_sdk(bad, bad.read_bytes(), "b/s2.messages.json")
    assert s.session_id == "s2" and s.events == [] and s.quality.extra["sdk_session"] == 1
    assert s.quality.unparsable_records == 1
    assert s.warnings == [ReadingWarning("unparsable", "an SDK session file that is not a JSON object; not read",
                                         "b/s2.messages.json", 1)]


def test_the_manifest_is_one_more_file_and_record(tmp_path: Path) -> None:
    p = _write(tmp_path, {"sessionId": "s1", "messages": []})
    m = tmp_path / "s1.json"
    man = {"cwd": "/w", "status": "completed", "exit_code": 0, "source": "cli", "workspace_root": "/w", "pid": 9}
    raw = json.dumps(man).encode()
    m.write_bytes(raw)
    s = read_sdk(p, p.read_bytes(), "s1.messages.json")  # no context: the manifest is named as given
    assert s.files[1] == SourceFile("s1.json", str(m.resolve()), "cline", len(raw), sha256(raw))
    [ev] = [e for e in s.evidence.values() if e.record_type == "manifest"]
    assert (ev.source, ev.line, ev.byte_offset, ev.byte_length, ev.sha256) == ("s1.json", 1, 0, len(raw), sha256(raw))
    assert s.ledger[ev.id] == Mark("metadata", "the session's manifest (cwd, status, exit code; agent_config.sdk_*)",
                                   "manifest")
    assert s.quality.records == 1 + 1  # sessionId (the messages member is its elements), the manifest
    assert s.meta.cwd == "/w"
    assert {k: v for k, v in s.meta.extra.items() if k.startswith("sdk_")} == {
        "sdk_status": "completed", "sdk_exit_code": 0, "sdk_source": "cli", "sdk_workspace_root": "/w"}
    m.write_bytes(b'{"cwd": ""}')
    assert read_sdk(p, p.read_bytes(), "s1.messages.json").meta.cwd is None


def test_a_manifest_that_is_no_object_or_too_large_is_warned(tmp_path: Path) -> None:
    p = _write(tmp_path, {"sessionId": "s1", "messages": []})
    (tmp_path / "s1.json").write_bytes(b'"done"')
    s = read_sdk(p, p.read_bytes(), "s1.messages.json", ReadContext(root=tmp_path))
    assert (s.quality.records, s.quality.unparsable_records) == (2, 1)
    assert s.warnings == [ReadingWarning("unparsable", "the session's manifest is not a JSON object; not read",
                                         "s1.json", 1)]
    (tmp_path / "s1.json").write_bytes(b"{not json")
    assert read_sdk(p, p.read_bytes(), "s1.messages.json").quality.unparsable_records == 1
    (tmp_path / "s1.json").write_bytes(b'{"cwd": "/w", "pad": "' + b"x" * 200 + b'"}')
    s = read_sdk(p, p.read_bytes(), "s1.messages.json", ReadContext(root=tmp_path, limits=Limits(max_file_bytes=100)))
    [w] = s.warnings
    assert (w.code, w.file, w.line) == ("manifest-unreadable", "s1.json", None) and w.message.startswith("s1.json: ")
    assert len(s.files) == 1 and s.meta.cwd is None and s.quality.records == 1


def test_a_time_is_read_only_from_a_positive_count_of_ms_below_ten_to_the_fourteen(tmp_path: Path) -> None:
    msgs = [{"role": "assistant", "ts": ts, "content": "x"} for ts in (1, 0, True, 10**14 - 1, 10**14, -5)]
    p = _write(tmp_path, {"sessionId": "s1", "messages": msgs})
    s = read_sdk(p, p.read_bytes(), "s1.messages.json")
    assert [e.ts for e in s.events] == ["1970-01-01T00:00:00.001Z", None, None, "5138-11-16T09:46:39.999Z", None, None]
    assert [e.ts_from is not None for e in s.events] == [True, False, False, True, False, False]
