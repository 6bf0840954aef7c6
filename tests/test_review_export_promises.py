"""The promises of `forsy.review.export`: only approved reviewed traces are published, each as
its stored files byte for byte, with one index line that names who approved it, when, at which
level, and the sha256 of every file; forsy never overwrites a folder or an index it did not
write, and refuses before writing anything. Stores built here, expectations by hand."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from _deadline import within
from _paths import SAMPLES
from _review import ADA, hostile_log, put
from forsy.errors import InputError, OutputError
from forsy.review import actions
from forsy.review import export as ex
from forsy.review.export import INDEX, export_approved
from forsy.store import Store, TraceQuery, TraceRow, open_store

BOB = "Bob <bob@example.org>"


@pytest.fixture
def st(tmp_path: Path) -> Any:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield store
    store.close()


def approved(st: Store, tmp_path: Path) -> tuple[str, str, str, str]:
    """Two drafts approved (by Ada at expert_reviewed, by Bob at human_reviewed), a third left pending."""
    a = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    b = put(st, hostile_log(tmp_path / "logs"))
    c = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    actions.edit(st, a, "/steps/3/eval", "1", reviewer=ADA, at="2026-03-02T10:00:00+00:00")
    ra = actions.approve(st, a, "expert_reviewed", reviewer=ADA, at="2026-03-02T10:00:01+00:00").reviewed_trace_id
    rb = actions.approve(st, b, "human_reviewed", reviewer=BOB, at="2026-03-02T11:00:00+00:00").reviewed_trace_id
    assert ra and rb and c
    return a, ra, b, rb


def files_of(st: Store, tid: str) -> dict[str, bytes]:
    return {f.name: f.data for f in st.trace_files(tid)}


def test_only_approved_traces_byte_for_byte_with_their_index_line(st: Store, tmp_path: Path) -> None:
    a, ra, b, rb = approved(st, tmp_path)
    out = tmp_path / "out"
    got = export_approved(st, out)
    assert got == [ex.Exported(t, out / t, True) for t in sorted([ra, rb])]
    assert sorted(p.name for p in out.iterdir()) == sorted([ra, rb, INDEX])
    for t in (ra, rb):
        files = files_of(st, t)
        on_disk = {p.relative_to(out / t).as_posix(): p.read_bytes() for p in (out / t).rglob("*") if p.is_file()}
        assert on_disk == files
    lines = [json.loads(x) for x in (out / INDEX).read_text("utf-8").splitlines()]
    assert [x["trace_id"] for x in lines] == sorted([ra, rb])
    by = {x["trace_id"]: x for x in lines}
    row = st.trace(ra)
    assert row is not None
    assert by[ra] == {
        "trace_id": ra, "prior_trace_id": a, "folder": ra, "validation_level": "expert_reviewed", "reviewer": ADA,
        "approved_at": "2026-03-02T10:00:01+00:00", "agent": row.agent, "project": row.project,
        "started_at": row.started_at, "ended_at": row.ended_at, "steps": 9, "turns": row.turns,
        "confidence": row.confidence, "task": row.task,
        "sha256": {n: hashlib.sha256(d).hexdigest() for n, d in sorted(files_of(st, ra).items())},
        "superseded": False}
    assert list(by[ra]["sha256"]) == sorted(by[ra]["sha256"])
    assert (by[rb]["prior_trace_id"], by[rb]["reviewer"], by[rb]["validation_level"]) == (b, BOB, "human_reviewed")
    assert by[rb]["approved_at"] == "2026-03-02T11:00:00+00:00"
    # again: the same folders are left as they are, the index replaced whole with the same lines
    before = (out / INDEX).read_bytes()
    again = export_approved(st, out)
    assert [e.written for e in again] == [False, False] and (out / INDEX).read_bytes() == before


def test_the_filters_narrow_the_export(st: Store, tmp_path: Path) -> None:
    _, ra, _, rb = approved(st, tmp_path)
    row = st.trace(ra)
    assert row is not None
    assert [e.trace_id for e in export_approved(st, tmp_path / "o1", agent=row.agent)] == sorted([ra, rb])
    assert export_approved(st, tmp_path / "o2", agent="nobody") == []
    assert (tmp_path / "o2" / INDEX).read_bytes() == b""
    assert export_approved(st, tmp_path / "o3", project="nowhere") == []
    got = export_approved(st, tmp_path / "o4", project=row.project, agent=row.agent)
    assert ra in [e.trace_id for e in got]


def test_a_folder_holding_anything_else_is_refused(st: Store, tmp_path: Path) -> None:
    _, ra, _, _ = approved(st, tmp_path)
    out = tmp_path / "out"
    export_approved(st, out)
    (out / ra / "mine.txt").write_text("mine")
    with pytest.raises(OutputError) as e:
        export_approved(st, out)
    assert e.value.message == "holds other files than this trace's; refusing to replace it (export to a new folder)"
    assert e.value.path == str(out / ra) and (out / ra / "mine.txt").read_text() == "mine"
    (out / ra / "mine.txt").unlink()
    (out / ra / "README.md").write_bytes(b"changed")
    with pytest.raises(OutputError):
        export_approved(st, out)
    (out / ra / "README.md").unlink()
    with pytest.raises(OutputError):  # a file missing
        export_approved(st, out)
    (out / ra / "README.md").symlink_to(out / ra / "trace.json")
    with pytest.raises(OutputError):  # a link in its place, even to the same bytes
        export_approved(st, out)


def test_an_index_not_written_by_an_export_is_never_replaced(st: Store, tmp_path: Path) -> None:
    approved(st, tmp_path)
    cases: dict[str, bytes | None] = {
        "theirs": b'{"id": 1}\n', "text": b"not json\n", "list": b"[1]\n",
        "partial": b'{"trace_id": "x", "folder": "x", "sha256": {}}\n',
        "after": b'{"trace_id": "x", "prior_trace_id": null, "folder": "x", "sha256": {}}\nnope\n',
    }
    for name, data in cases.items():
        out = tmp_path / name
        out.mkdir()
        (out / INDEX).write_bytes(data)  # type: ignore[arg-type]
        with pytest.raises(OutputError) as e:
            export_approved(st, out)
        assert e.value.message == "exists and was not written by forsy review export; not overwritten", name
        assert sorted(p.name for p in out.iterdir()) == [INDEX] and (out / INDEX).read_bytes() == data, name
    link = tmp_path / "link"
    link.mkdir()
    (tmp_path / "ours.jsonl").write_bytes(b"")
    (link / INDEX).symlink_to(tmp_path / "ours.jsonl")
    with pytest.raises(OutputError) as e:  # a link, even to an index of ours, is someone's: never replaced
        export_approved(st, link)
    assert e.value.message == "exists and was not written by forsy review export; not overwritten"
    assert (link / INDEX).is_symlink() and sorted(p.name for p in link.iterdir()) == [INDEX]
    folder = tmp_path / "folder"
    (folder / INDEX).mkdir(parents=True)
    with pytest.raises(OutputError):
        export_approved(st, folder)
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / INDEX)  # not a file: refused without being opened (opening it waits for a writer)
    with within(10), pytest.raises(OutputError) as e:
        export_approved(st, fifo)
    assert e.value.message == "exists and was not written by forsy review export; not overwritten"


def test_an_index_an_export_wrote_is_replaced(st: Store, tmp_path: Path) -> None:
    _, ra, _, rb = approved(st, tmp_path)
    for name, data in (("empty", b""), ("older", b'{"trace_id": "t", "prior_trace_id": null, "folder": "t", '
                                                 b'"sha256": {}, "more": 1}\n'),
                       ("bare", b'{"trace_id": "t", "prior_trace_id": null, "folder": "t", "sha256": {}}\n')):
        out = tmp_path / name
        out.mkdir()
        (out / INDEX).write_bytes(data)
        export_approved(st, out)
        assert [json.loads(x)["trace_id"] for x in (out / INDEX).read_text().splitlines()] == sorted([ra, rb])


def test_a_folder_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    folder = tmp_path / "t1"
    stale = tmp_path / f".t1.forsy-tmp-{os.getpid()}"
    (stale / "old").mkdir(parents=True)  # a work folder a crash left: cleared
    assert ex._write(folder, {"trace.json": b"{}", "artifacts/a/b.txt": b"x"}) is True
    assert (folder / "artifacts/a/b.txt").read_bytes() == b"x" and not stale.exists()
    assert ex._write(folder, {"trace.json": b"{}", "artifacts/a/b.txt": b"x"}) is False
    with pytest.raises(InputError) as e:
        ex._write(tmp_path / "t2", {"trace.json": b"{}", "../escape.txt": b"x"})
    assert e.value.message == "stored file name '../escape.txt' leaves its folder"
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / f".t2.forsy-tmp-{os.getpid()}").exists()  # nothing of it written, no work folder left
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "t3").write_text("a file where the folder goes")
    with pytest.raises(OutputError):
        ex._write(tmp_path / "ro" / "t3", {"trace.json": b"{}"})
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    with pytest.raises(OutputError) as e:
        ex._write(blocked / "t4", {"trace.json": b"{}", "trace.json/x": b"y"})  # a file where a folder must go
    assert (e.value.message, e.value.path) == ("cannot write the trace folder: File exists", str(blocked / "t4"))
    assert sorted(p.name for p in blocked.iterdir()) == []  # the work folder removed
    with pytest.raises(OutputError) as e:  # under a file: not even the work folder can be made
        ex._write(tmp_path / "ro" / "t3" / "t5", {"trace.json": b"{}"})
    assert (e.value.message, e.value.path) == ("cannot write the trace folder: Not a directory",
                                               str(tmp_path / "ro" / "t3" / "t5"))


def test_the_export_folder_is_made_with_its_parents(st: Store, tmp_path: Path) -> None:
    _, ra, _, rb = approved(st, tmp_path)
    out = tmp_path / "not" / "yet" / "there"
    assert sorted(e.trace_id for e in export_approved(st, out)) == sorted([ra, rb])
    assert sorted(p.name for p in out.iterdir()) == sorted([INDEX, ra, rb])


def test_an_index_that_cannot_be_written_is_refused_in_its_words(st: Store, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    approved(st, tmp_path)

    def full(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ex, "replace_file", full)
    out = tmp_path / "out"
    with pytest.raises(OutputError) as e:
        export_approved(st, out)
    assert (e.value.message, e.value.path) == ("cannot write the index: No space left on device", str(out / INDEX))
    def broken(path: Path, data: bytes) -> None:
        raise OSError("no errno")

    monkeypatch.setattr(ex, "replace_file", broken)
    with pytest.raises(OutputError) as e:
        export_approved(st, out)
    assert e.value.message == "cannot write the index: no errno"


# every approved trace, whatever their number: the store is asked for one more row than it counts,
# and again with twice as many while a page comes back full (a store holding more than any fixed
# limit, or gaining approvals while the export counts, is never exported in part without a word)

class Counting:
    """The store, with `count_traces` answering `count` and every `traces` query recorded."""

    def __init__(self, store: Store, count: int) -> None:
        self.store, self.count = store, count
        self.limits: list[int] = []

    def count_traces(self, query: TraceQuery) -> int:
        return self.count

    def traces(self, query: TraceQuery) -> list[TraceRow]:
        if query.status == "approved":  # the export's own query (not the lineage's, which reads every draft)
            self.limits.append(query.limit)
        assert query.offset == 0
        return self.store.traces(query)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_every_approved_trace_is_exported_when_the_count_falls_short(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    _, ra, _, rb = approved(st, tmp_path)  # two approved, one pending
    for count, limits in ((2, [3]), (1, [2, 4]), (0, [1, 2, 4])):
        dbl = Counting(st, count)
        got = export_approved(dbl, tmp_path / f"out{count}")
        assert sorted(e.trace_id for e in got) == sorted([ra, rb]), count  # both, never the first page only
        assert dbl.limits == limits, count  # one more than counted, then doubled while a page came back full
    st.close()
