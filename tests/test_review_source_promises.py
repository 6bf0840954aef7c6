"""The promises of `forsy.review.source`: a trace is read from a folder (or its trace.json) or
from the store, with the reviewer's edits applied over the stored files; where its logs are
looked for; what is refused, and why. Folders written here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, put
from forsy.errors import InputError
from forsy.review import actions
from forsy.review.source import LoadedTrace, from_folder, from_store, load
from forsy.store import open_store


def folder(tmp_path: Path, **files: bytes) -> Path:
    f = tmp_path / "t"
    f.mkdir(exist_ok=True)
    for name, data in files.items():
        (f / name.replace("_", ".")).write_bytes(data)
    return f


TRACE = json.dumps({"trace_id": "forsy_f", "steps": [{"step": 1}, {"step": 2}]}).encode()


def test_a_folder_or_its_trace_json(tmp_path: Path) -> None:
    f = folder(tmp_path, trace_json=TRACE, provenance_json=b'{"steps": [{"step": 2, "x": 1}]}',
               manifest_json=b'{"session_id": "s"}', README_md=b"card")
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "a.jsonl").write_text("{}")
    for ref in (f, f / "trace.json", f / "manifest.json"):
        d = from_folder(ref, [logs / "a.jsonl", logs / "sub"])
        assert (d.trace_id, d.trace["steps"][1], d.manifest, d.roots) == (
            "forsy_f", {"step": 2}, {"session_id": "s"}, [logs, logs / "sub"])
        assert sorted(d.files) == ["manifest.json", "provenance.json", "trace.json"]  # the card is not read
        assert (d.row, d.state, d.proposals) == (None, None, [])
    d = from_folder(f)
    assert d.roots == [] and d.steps == [{"step": 1}, {"step": 2}]
    assert d.step_provenance(2) == {"step": 2, "x": 1}
    assert d.step_provenance(1) == {"step": 1, "evidence": [], "fields": {}}


def test_a_folder_with_only_a_trace(tmp_path: Path) -> None:
    d = from_folder(folder(tmp_path, trace_json=b'{"steps": "odd"}'))
    assert (d.trace_id, d.provenance, d.manifest, d.steps) == ("None", {}, {}, [])
    d = from_folder(folder(tmp_path, trace_json=TRACE, provenance_json=b"[1]", manifest_json=b"{bad"))
    assert (d.provenance, d.manifest) == ({}, {})


@pytest.mark.parametrize(("files", "message"), [
    ({}, "no trace.json here: give a trace folder or a stored trace id"),
    ({"provenance_json": b"{}"}, "no trace.json here: give a trace folder or a stored trace id"),
    ({"trace_json": b"[1, 2]"}, "trace.json is not a JSON object"),
])
def test_a_folder_that_holds_no_trace_is_refused(tmp_path: Path, files: dict[str, bytes], message: str) -> None:
    f = folder(tmp_path, **files)
    with pytest.raises(InputError) as e:
        from_folder(f)
    assert e.value.message == message and e.value.path == str(f)


def test_a_trace_json_that_is_not_json_or_a_file_that_is_no_trace(tmp_path: Path) -> None:
    f = folder(tmp_path, trace_json=b"{nope")
    with pytest.raises(InputError) as e:
        from_folder(f)
    assert e.value.message.startswith("trace.json is not JSON: ") and e.value.path == str(f)
    other = tmp_path / "notes.txt"
    other.write_text("x")
    with pytest.raises(InputError) as e:
        from_folder(other)
    assert e.value.message == "not a trace folder nor a trace's trace.json" and e.value.path == str(other)


def test_from_the_store_with_the_edits_over_the_stored_files(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        actions.edit(st, tid, "/steps/3/eval", "1", reviewer=ADA, at="2026-03-02T10:00:00+00:00")
        actions.edit(st, tid, "/steps/2/directive", "Fix", reviewer=ADA, at="2026-03-02T10:00:01+00:00")
        stored = {f.name: f.data for f in st.trace_files(tid)}
        d = from_store(st, tid)
        with pytest.raises(InputError) as e:
            from_store(st, "forsy_nothing")
        assert e.value.message == f"no trace forsy_nothing in the store {st.url}"
        row = st.trace(tid)
        assert row is not None
    finally:
        st.close()
    assert d.files == stored and json.loads(stored["trace.json"])["steps"][2]["eval"] == -1
    assert d.trace["steps"][2]["eval"] == 1 and d.trace["steps"][1]["directive"] == "Fix"
    assert d.trace["summary"]["directive_signals"] == 1  # the summary's count follows the edit
    assert d.step_provenance(3)["fields"]["eval"]["reviewer"]["reviewer"] == ADA
    assert [(p.path, p.value, p.origin, p.actor.name, p.time) for p in d.proposals] == [
        ("/steps/3/eval", 1, "human", ADA, "2026-03-02T10:00:00+00:00"),
        ("/steps/2/directive", "Fix", "human", ADA, "2026-03-02T10:00:01+00:00")]
    assert d.proposals[0].replaces is not None and d.proposals[0].replaces.value == -1
    assert d.row == row and d.state is not None and d.state.version == 2
    assert d.roots == [Path(row.unit_path).parent] and d.manifest["session_id"]
    assert d.trace_id == tid
    again = load(tid, url, [tmp_path])
    assert again.roots == [tmp_path] and again.trace == d.trace
    log = tmp_path / "logs" / "demo.jsonl"  # a log named by its file: its folder is where to look
    log.parent.mkdir()
    log.write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    assert load(tid, url, [log, tmp_path]).roots == [log.parent, tmp_path]


def test_load_a_path_or_an_id(tmp_path: Path) -> None:
    f = folder(tmp_path, trace_json=TRACE)
    assert isinstance(load(str(f), None), LoadedTrace) and load(str(f / "trace.json"), None).trace_id == "forsy_f"
    for ref in ("no/such/folder", "missing.json"):
        given = str(tmp_path / ref) if "/" in ref else ref
        with pytest.raises(InputError) as e:
            load(given, None)
        assert e.value.message == "no such file or directory" and e.value.path == given
    with pytest.raises(InputError):
        load("forsy_nothing", f"sqlite:///{tmp_path / 'none.db'}")  # no store there: not made
    assert not (tmp_path / "none.db").exists()
