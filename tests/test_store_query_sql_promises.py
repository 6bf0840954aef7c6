"""The SQL both stores share (`store/_query.py`), asked directly and through a SQLite store, on
hand-built traces with hand-computed expectations: the SELECT of listed rows reads them; a
stored blob that is not the compressed data forsy wrote is refused naming the file, the trace
and the store. And the store's sink (`store/sink.py`): a session read from no file is kept under
its id; a draft a person reopened is not dismissed again by the queue's rules when the sweep
stores another; the store counts the values a model proposed. (Sorting in byte order whatever
the database's collation, and the PostgreSQL side of every filter, are in
test_store_postgres_promises.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import put
from forsy.assemble import Assembled
from forsy.errors import InputError
from forsy.evidence import Session
from forsy.run import RetraceOptions, retrace_one
from forsy.store import TraceQuery
from forsy.store._query import trace_row, trace_select
from forsy.store._sqlite import SqliteStore
from forsy.store.models import NewTrace, StoredFile
from forsy.store.queue_rules import QueueRule, add_rule
from forsy.store.sink import StoreSink


@pytest.fixture
def st(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "s.db")
    yield s
    s.close()


def _trace(tid: str, session: str, *, agent: str | None = "claude-code", task: str = "fix the parser",
           data: bytes = b'{"trace": 1}\n') -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="claude_code", session_id=session, unit_path=f"/logs/{session}.jsonl",
                    agent=agent, project="~/proj", started_at="2026-03-01T10:00:00Z",
                    ended_at="2026-03-01T10:05:00Z", confidence=70, steps=3, turns=1, task=task,
                    files=[StoredFile("trace.json", data)], texts=[])


NOW = "2026-03-01T12:00:00+00:00"


def test_the_select_of_listed_rows_reads_every_row_as_the_store_lists_it(st: SqliteStore) -> None:
    st.add_trace(_trace("t-1", "s1"), NOW)
    st.add_trace(_trace("t-2", "s2", agent=None, task="other"), NOW)
    sql = trace_select("0", "f.path = s.unit_path") + " ORDER BY t.trace_id"
    rows = [trace_row(r) for r in st.db.execute(sql).fetchall()]
    assert rows == sorted(st.traces(TraceQuery()), key=lambda r: r.trace_id)
    assert [(r.trace_id, r.agent, r.task, r.source_gone) for r in rows] == [
        ("t-1", "claude-code", "fix the parser", False), ("t-2", None, "other", False)]


@pytest.mark.parametrize("blob", [b"", b"not zstd at all", b"\x28\xb5\x2f\xfd\x00"])
def test_a_stored_blob_that_is_not_forsys_compressed_data_is_refused_naming_it(st: SqliteStore,
                                                                                blob: bytes) -> None:
    st.add_trace(_trace("t-1", "s1"), NOW)
    st.db.execute("UPDATE trace_files SET data = ? WHERE name = 'trace.json'", (blob,))
    with pytest.raises(InputError) as e:
        st.trace_files("t-1")
    assert e.value.message == ("stored file trace.json of trace t-1 is damaged (not the compressed data "
                               "forsy wrote)")
    assert e.value.path == str(st.path)


# ------------------------------------------------------------------ the sink
class _NoFiles:
    """A sink handing the store's sink its session as a source that read no file would give it."""

    def __init__(self, inner: StoreSink) -> None:
        self.inner = inner

    def write(self, a: Assembled, s: Session) -> str:
        from dataclasses import replace

        return self.inner.write(a, replace(s, files=[]))


def test_a_session_read_from_no_file_is_kept_under_its_id(st: SqliteStore) -> None:
    sink = StoreSink(st, now=NOW)
    [o] = retrace_one(SAMPLES / "claude" / "demo-session.jsonl", RetraceOptions(), sink=_NoFiles(sink), keep=False)
    assert o.trace_id is not None
    row = st.trace(o.trace_id)
    assert row is not None and row.unit_path == row.session_id == "d99e6618-d709-41f9-91b5-6b444aebcc56"
    assert sink.files_read == set()


def test_a_draft_a_person_reopened_is_not_dismissed_again_when_another_arrives(st: SqliteStore) -> None:
    add_rule(st, QueueRule("slug", "slugify()*", "dismiss"), actor="ana", now=NOW)
    tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    assert st.draft_state(tid).status == "rejected"  # type: ignore[union-attr]
    st.set_draft_status(tid, "pending", "ana", NOW, note="worth a look after all")
    other = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    assert st.draft_state(tid).status == "pending"  # type: ignore[union-attr]  # the person's decision
    assert st.draft_state(other).status == "pending"  # type: ignore[union-attr]


def test_the_store_counts_the_values_a_model_proposed(st: SqliteStore) -> None:
    from test_review_conversation import ModelSink

    [o] = retrace_one(SAMPLES / "claude" / "demo-session.jsonl", RetraceOptions(),
                      sink=ModelSink(StoreSink(st, now=NOW)), keep=False)
    plain = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    got = dict(st.db.execute("SELECT trace_id, model_values FROM traces").fetchall())
    assert got == {o.trace_id: 1, plain: 0}  # ModelSink: one value, step 2's observation
