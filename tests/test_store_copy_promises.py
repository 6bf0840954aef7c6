"""`copy_store(..., ship_evidence=True)`: each cited record is shipped only when its bytes still
hash to the sha256 the trace recorded; a record that changed (even to one of the same length), a
log that is gone and a source that names no file here are each said, per record, never shipped.
SQLite to SQLite, calling `copy_store` itself (the CLI around it is tested in test_team.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.errors import InputError
from forsy.models import Provenance
from forsy.run import RetraceOptions, retrace_one
from forsy.store import Store, TraceQuery, open_store, shown_url
from forsy.store.copy import EVIDENCE_FILE, CopyReport, check_copyable, copy_store
from forsy.store.sink import StoreSink

NOW, LATER = "2026-03-01T12:00:00+00:00", "2026-03-01T12:05:00+00:00"


def _local(tmp_path: Path) -> tuple[Store, str, Path]:
    """A local store holding the demo session's trace: (store, trace id, the log it was read from)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "d.jsonl"
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", log)
    st = open_store(f"sqlite:///{tmp_path / 'local.db'}")
    tid = retrace_one(log, RetraceOptions(), sink=StoreSink(st, now=NOW), keep=False)[0].trace_id
    assert tid is not None
    return st, tid, log


def _provenance(st: Store, tid: str) -> Provenance:
    return Provenance.model_validate_json(next(f.data for f in st.trace_files(tid) if f.name == "provenance.json"))


def _shipped(tmp_path: Path, src: Store, tid: str) -> tuple[CopyReport, list[dict[str, object]]]:
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    try:
        rep = copy_store(src, dst, NOW, ship_evidence=True)
        data = next(f.data for f in dst.trace_files(tid) if f.name == EVIDENCE_FILE)
    finally:
        dst.close()
    assert data.endswith(b"\n")
    return rep, [json.loads(line) for line in data.splitlines()]


def test_shipped_evidence_is_each_cited_record_with_its_line_and_hash(tmp_path: Path) -> None:
    src, tid, log = _local(tmp_path)
    prov = _provenance(src, tid)
    rep, ev = _shipped(tmp_path, src, tid)
    src.close()
    assert [e["id"] for e in ev] == sorted(prov.evidence)  # one line per cited record, by id
    raw = log.read_bytes()
    for e in ev:
        info = prov.evidence[str(e["id"])]
        assert (e["source"], e["line"], e["sha256"]) == (info.source, info.line, info.sha256)
        # the record's own text (this log holds no secret, so redaction leaves it as it is)
        assert e["record"] == raw[info.byte_offset: info.byte_offset + info.byte_length].decode()
        assert "missing" not in e
    assert rep.evidence_shipped == len(ev) and rep.evidence_missing == []
    assert (rep.copied, rep.already) == (1, 0)


def test_a_record_changed_to_one_of_the_same_length_is_not_shipped(tmp_path: Path) -> None:
    """The check is the record's sha256: a change that keeps the offsets, the length and the line
    (one letter of one cited record) must be caught, and said, for that record alone."""
    src, tid, log = _local(tmp_path)
    prov = _provenance(src, tid)
    first_id = sorted(prov.evidence)[0]
    info = prov.evidence[first_id]
    raw = bytearray(log.read_bytes())
    rec = raw[info.byte_offset: info.byte_offset + info.byte_length]
    i = rec.index(b'"type"') + 2  # a letter inside the record: the length stays
    raw[info.byte_offset + i] ^= 0x20  # "type" -> "Type"
    log.write_bytes(bytes(raw))
    rep, ev = _shipped(tmp_path, src, tid)
    src.close()
    by_id = {e["id"]: e for e in ev}
    assert by_id[first_id]["missing"] == "the log changed since the trace was made (sha256 differs)"
    assert "record" not in by_id[first_id]
    assert all("record" in e for k, e in by_id.items() if k != first_id)
    assert rep.evidence_shipped == len(ev) - 1
    assert rep.evidence_missing == [
        f"{tid}: {info.source}:{info.line}: the log changed since the trace was made (sha256 differs)"]


def test_a_log_that_is_gone_is_said_for_every_record_it_held(tmp_path: Path) -> None:
    src, tid, log = _local(tmp_path)
    log.unlink()
    rep, ev = _shipped(tmp_path, src, tid)
    src.close()
    assert ev and all(e["missing"] == "its log is not on this machine" and "record" not in e for e in ev)
    assert rep.evidence_shipped == 0 and len(rep.evidence_missing) == len(ev)
    assert all(m.startswith(f"{tid}: d.jsonl:") and m.endswith(": its log is not on this machine")
               for m in rep.evidence_missing)


def test_a_log_that_became_a_folder_is_not_read(tmp_path: Path) -> None:
    src, tid, log = _local(tmp_path)
    log.unlink()
    log.mkdir()
    _, ev = _shipped(tmp_path, src, tid)
    src.close()
    assert ev and all(e["missing"] == "its log is not on this machine" for e in ev)


def test_copy_ships_no_evidence_unless_asked(tmp_path: Path) -> None:
    src, tid, _ = _local(tmp_path)
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    rep = copy_store(src, dst, NOW)
    names = {f.name for f in dst.trace_files(tid)}
    assert EVIDENCE_FILE not in names and {"trace.json", "provenance.json", "manifest.json"} <= names
    assert [f.data for f in dst.trace_files(tid) if f.name == "trace.json"] == \
        [f.data for f in src.trace_files(tid) if f.name == "trace.json"]
    assert (rep.copied, rep.evidence_shipped, rep.evidence_missing) == (1, 0, [])
    again = copy_store(src, dst, NOW)
    assert (again.copied, again.already) == (0, 1)
    assert [r.trace_id for r in dst.traces(TraceQuery())] == [tid]
    dst.close()
    src.close()


def test_a_store_is_not_copied_onto_itself_and_a_password_is_never_shown(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with pytest.raises(InputError, match=r"^copying a store onto itself$"):
        check_copyable(st, st)
    other = open_store(f"sqlite:///{tmp_path / 'b.db'}")
    check_copyable(st, other)  # another store: no error
    other.close()
    st.close()
    assert shown_url("postgresql://ada:s3cret@db.example.org:5432/forsy") == \
        "postgresql://ada:***@db.example.org:5432/forsy"
    assert shown_url("postgresql://ada@db/forsy") == "postgresql://ada@db/forsy"
    assert shown_url("sqlite:////tmp/a.db") == "sqlite:////tmp/a.db"



@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://u:p@w@h/d", "postgresql://u:***@h/d"),  # an unescaped @ in the password: all of it masked
    ("postgres://u:pw@h:5432/d?sslmode=require", "postgres://u:***@h:5432/d?sslmode=require"),
    ("postgresql://:pw@h/d", "postgresql://:***@h/d"),
    ("postgresql://u@h/d?password=pw&port=5432", "postgresql://u@h/d?password=***&port=5432"),
    ("postgresql://u@h/d?sslpassword=k&PASSWORD=pw#f", "postgresql://u@h/d?sslpassword=***&PASSWORD=***#f"),
    ("postgresql://u@h/d?authToken=t&client_secret=s", "postgresql://u@h/d?authToken=***&client_secret=***"),
    ("postgresql://u@h/d?passfile=/home/u/.pgpass", "postgresql://u@h/d?passfile=/home/u/.pgpass"),  # a path
    ("host=db user=u password=pw dbname=d", "host=db user=u password=*** dbname=d"),  # libpq key=value
    ("mysql://root:toor@h/db", "mysql://root:***@h/db"),  # any scheme
    ("postgresql://u@/d?host=/run/postgresql&port=5433", "postgresql://u@/d?host=/run/postgresql&port=5433"),
    ("sqlite:///home/me/pass-word.db", "sqlite:///home/me/pass-word.db"),
])
def test_a_store_url_is_shown_without_any_password_it_holds(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert shown_url(shown) == shown  # masking twice changes nothing


def test_the_shipped_file_is_sorted_keys_and_its_text_as_written(tmp_path: Path) -> None:
    """One JSON object a line, keys sorted, non-ASCII text as itself (not `\\u` escapes): the
    file's bytes, not only what it parses to."""
    src, tid, _ = _local(tmp_path)
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    copy_store(src, dst, NOW, ship_evidence=True)
    data = next(f.data for f in dst.trace_files(tid) if f.name == EVIDENCE_FILE)
    dst.close()
    src.close()
    lines = data.splitlines()
    assert not all(line.isascii() for line in lines)  # a cited record holds non-ASCII text
    assert data == b"".join(json.dumps(json.loads(line), ensure_ascii=False, sort_keys=True).encode() + b"\n"
                            for line in lines)
    assert all(list(json.loads(line)) == sorted(json.loads(line)) for line in lines)


def test_the_report_counts_every_history_carried(tmp_path: Path) -> None:
    """Drafts with histories: one edited and approved, one edited and still pending, and the
    trace the approval made (approved, pointing back at the first). The report adds them up;
    the pending one is no status set."""
    from forsy.review import actions

    src, a, _ = _local(tmp_path)
    other = tmp_path / "logs" / "c.jsonl"
    shutil.copy(SAMPLES / "claude" / "compaction-and-branches.jsonl", other)
    b = retrace_one(other, RetraceOptions(), sink=StoreSink(src, now=NOW), keep=False)[0].trace_id
    assert b is not None
    ada = "Ada Lovelace <ada@example.org>"
    actions.edit(src, a, "/steps/2/reasoning", "Looked first.", reviewer=ada, at=NOW)
    actions.approve(src, a, "human_reviewed", reviewer=ada, at=LATER)
    actions.edit(src, b, "/steps/2/reasoning", "Read it.", reviewer=ada, at=NOW)
    audit = sum(len([x for x in src.audit(t) if x.action != "draft_created"]) for t in (a, b))
    proposals = len(src.proposals(a)) + len(src.proposals(b))
    assert audit >= 3 and proposals >= 2
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    rep = copy_store(src, dst, NOW)
    dst.close()
    src.close()
    assert (rep.reviews_copied, rep.proposals_copied, rep.audit_copied, rep.status_set) == (3, proposals, audit, 2)
    assert rep.not_copied == [] and rep.copied == 3  # a, b and the trace a's approval made


def test_a_history_of_more_than_a_thousand_audit_records_is_copied_whole(tmp_path: Path) -> None:
    """The store's audit listing stops at 1,000 unless asked for all: a copy that kept its default
    would carry the first 1,000 of a long-reviewed draft's records and drop the rest silently."""
    from forsy.store.copy import ALL

    src, tid, _ = _local(tmp_path)
    db = src.db  # type: ignore[attr-defined]
    (draft_id,) = db.execute("SELECT id FROM drafts WHERE trace_id = ?", (tid,)).fetchone()
    with src.transaction():  # type: ignore[attr-defined]
        db.executemany("INSERT INTO audit (at, actor, action, draft_id, detail_json) VALUES (?, ?, ?, ?, ?)",
                       [(NOW, "Ada <ada@example.org>", "note", draft_id, json.dumps({"n": i})) for i in range(1100)])
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    try:
        rep = copy_store(src, dst, NOW)
        copied = [a for a in dst.audit(tid, limit=ALL) if a.action == "note"]
    finally:
        dst.close()
        src.close()
    assert rep.audit_copied == 1100
    assert len(copied) == 1100 and sorted(json.loads(a.detail_json)["n"] for a in copied) == list(range(1100))


def test_a_cited_record_that_is_not_utf8_is_shipped_readable_with_its_raw_hash(tmp_path: Path) -> None:
    """A log line holding a byte that is not UTF-8 (`caf\\xe9`, Latin-1): the record ships as text
    with U+FFFD where the byte was (JSON lines must be text), and its sha256 is still that of the
    raw bytes in the log, so the shipped line says which bytes it stands for."""
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = (SAMPLES / "claude" / "demo-session.jsonl").read_bytes().split(b"\n")
    i = next(n for n, line in enumerate(lines) if b'"type":"user"' in line and b'"content":"' in line)
    head, _, tail = lines[i].partition(b'"content":"')
    lines[i] = head + b'"content":"caf\xe9 ' + tail
    log = logs / "d.jsonl"
    log.write_bytes(b"\n".join(lines))
    src = open_store(f"sqlite:///{tmp_path / 'local.db'}")
    tid = retrace_one(log, RetraceOptions(), sink=StoreSink(src, now=NOW), keep=False)[0].trace_id
    assert tid is not None
    prov = _provenance(src, tid)
    rep, ev = _shipped(tmp_path, src, tid)
    src.close()
    latin = [e for e in ev if "caf\ufffd " in str(e.get("record", ""))]
    assert len(latin) == 1
    info = prov.evidence[str(latin[0]["id"])]
    raw = log.read_bytes()[info.byte_offset: info.byte_offset + info.byte_length]
    assert b"caf\xe9 " in raw and latin[0]["sha256"] == info.sha256 == hashlib.sha256(raw).hexdigest()
    assert latin[0]["record"] == raw.decode("utf-8", "replace")  # nothing in it to redact
    assert rep.evidence_missing == [] and rep.evidence_shipped == len(ev)


def test_a_trace_with_model_proposed_values_is_copied_with_them(tmp_path: Path) -> None:
    """A --llm draft: its model-proposed value, with its model and cited quote, reaches the
    destination byte for byte, and the destination's queue counts it as awaiting a decision."""
    from test_review_conversation import MODEL_VALUE, ModelSink

    src = open_store(f"sqlite:///{tmp_path / 'local.db'}")
    [o] = retrace_one(SAMPLES / "claude" / "demo-session.jsonl", RetraceOptions(),
                      sink=ModelSink(StoreSink(src, now=NOW)), keep=False)
    tid = o.trace_id
    assert tid is not None
    want = {f.name: f.data for f in src.trace_files(tid)}
    assert [r.trace_id for r in src.traces(TraceQuery(model_values=True))] == [tid]
    dst = open_store(f"sqlite:///{tmp_path / 'team.db'}")
    try:
        copy_store(src, dst, NOW)
        got = {f.name: f.data for f in dst.trace_files(tid)}
        with_model = [r.trace_id for r in dst.traces(TraceQuery(model_values=True))]
        without = [r.trace_id for r in dst.traces(TraceQuery(model_values=False))]
    finally:
        dst.close()
        src.close()
    assert got == want and MODEL_VALUE.encode() in got["trace.json"]
    assert b'"origin": "model"' in got["provenance.json"] and b"scripted/model-a" in got["provenance.json"]
    assert (with_model, without) == ([tid], [])
