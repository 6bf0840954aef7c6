"""An export of many traces: a trace that cannot be read (its trace.json, manifest.json or
provenance.json damaged, in a folder or in the store) is left out and named, the others are
exported, the loss report lists it and the exit is 7; with --strict nothing is written; when
none can be read, the first is the error (exit 2). A damaged manifest or provenance was an
internal error (exit 70), and one damaged trace stopped the whole export."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
import zstandard

from _paths import SAMPLES
from _review import cli, put, stored
from forsy.store import TraceQuery, open_store


def _folders(tmp_path: Path) -> list[Path]:
    out = []
    for name in ("demo-session.jsonl", "legacy-inline-sidechain.jsonl", "compaction-and-branches.jsonl"):
        folder = tmp_path / name.split(".")[0]
        assert cli("retrace", str(SAMPLES / "claude" / name), "-o", str(folder), "--no-redact", "-q")[0] == 0
        out.append(folder)
    return out


@pytest.mark.parametrize("damaged", ["trace.json", "manifest.json", "provenance.json"])
def test_a_damaged_trace_folder_is_left_out_and_named(tmp_path: Path, damaged: str) -> None:
    a, b, c = _folders(tmp_path)
    (b / damaged).write_text('{"broken', "utf-8")
    out = tmp_path / "x.opentraces"
    code, stdout, err = cli("export", str(a), str(b), str(c), "--to", "opentraces", "-o", str(out), "--json")
    assert code == 7, err
    assert err.startswith(f"forsy: skipped: {b / damaged}: not ") and err.count("\n") == 1
    report = json.loads(stdout)
    ids = [json.loads((f / "trace.json").read_text())["trace_id"] for f in (a, c)]
    assert report["traces"] == ids and [s["path"] for s in report["skipped"]] == [str(b / damaged)]
    assert [json.loads(x)["trace_id"] for x in out.read_text().splitlines()] == ids
    on_disk = json.loads((tmp_path / "x.opentraces.loss.json").read_text())
    assert on_disk["skipped"] == report["skipped"]  # the report beside the export says so too


def test_strict_writes_nothing_and_none_readable_is_the_error(tmp_path: Path) -> None:
    a, b, c = _folders(tmp_path)
    (b / "manifest.json").write_text("[]", "utf-8")
    out = tmp_path / "x.opentraces"
    code, _, err = cli("export", str(a), str(b), str(c), "--to", "opentraces", "-o", str(out), "--strict")
    assert code == 2 and "; --strict: nothing exported" in err and str(b / "manifest.json") in err
    assert not out.exists() and not (tmp_path / "x.opentraces.loss.json").exists()
    (a / "trace.json").write_text("no json", "utf-8")
    (c / "trace.json").unlink()
    code, _, err = cli("export", str(a), str(c), "--to", "opentraces", "-o", str(out))
    assert code == 2 and str(a / "trace.json") in err and "(and 1 more)" in err and not out.exists()


@pytest.mark.parametrize(("data", "why"), [
    (b"{}", "stored file provenance.json of trace {t} is damaged (not the compressed data forsy wrote)"),
    (zstandard.ZstdCompressor().compress(b"{}"), "not Forsy provenance (")])
def test_a_damaged_trace_in_the_store_is_left_out_and_named(tmp_path: Path, data: bytes, why: str) -> None:
    """The store's blob of a file that does not decompress (it crashed the export), or one
    that does and holds no provenance (its sha256 made to match)."""
    url, [good, bad] = stored(tmp_path / "store.db", "demo-session.jsonl", "legacy-inline-sidechain.jsonl")
    db = sqlite3.connect(tmp_path / "store.db")
    db.execute("UPDATE trace_files SET data = ?, sha256 = ? WHERE name = 'provenance.json' AND trace_id = ?",
               (data, hashlib.sha256(b"{}").hexdigest(), bad))
    db.commit()
    db.close()
    out = tmp_path / "x.opentraces"
    code, _, err = cli("export", "--from-store", "*", "--status", "pending", "--store", url, "--to", "opentraces",
                       "-o", str(out), "-q")
    assert code == 7 and err.startswith(f"forsy: skipped: store:{bad}: " + why.format(t=bad)), err
    assert [json.loads(x)["trace_id"] for x in out.read_text().splitlines()] == [good]


def test_review_export_leaves_out_a_trace_it_cannot_read_or_place_and_names_it(tmp_path: Path) -> None:
    """`forsy review export`: an approved trace whose stored file is damaged, and one whose folder
    already holds other files, are left out of the folders and the index and named (exit 7);
    the other approved traces are written and indexed."""
    from forsy.review import actions

    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        drafts = [put(st, SAMPLES / "claude" / n) for n in ("demo-session.jsonl", "legacy-inline-sidechain.jsonl",
                                                              "compaction-and-branches.jsonl")]
        done = [actions.approve(st, t, "human_reviewed", reviewer="Ada <ada@example.org>",
                                at="2026-03-02T10:00:00+00:00").reviewed_trace_id for t in drafts]
    finally:
        st.close()
    ok, damaged, taken = sorted(t for t in done if t)
    db = sqlite3.connect(tmp_path / "store.db")
    db.execute("UPDATE trace_files SET data = ? WHERE name = 'trace.json' AND trace_id = ?", (b"junk", damaged))
    db.commit()
    db.close()
    out = tmp_path / "out"
    (out / taken).mkdir(parents=True)
    (out / taken / "mine.txt").write_text("someone's file", "utf-8")
    code, stdout, err = cli("review", "export", "-o", str(out), "--store", url)
    assert code == 7, err
    assert err.splitlines() == [
        f"forsy: skipped: {damaged}: stored file trace.json of trace {damaged} is damaged (not the compressed data "
        "forsy wrote)",
        f"forsy: skipped: {taken}: holds other files than this trace's; refusing to replace it (export to a new "
        "folder)"]
    assert [json.loads(x)["trace_id"] for x in (out / "index.jsonl").read_text().splitlines()] == [ok]
    assert (out / ok / "trace.json").is_file() and not (out / damaged).exists()
    assert sorted(p.name for p in (out / taken).iterdir()) == ["mine.txt"]  # never replaced
    assert stdout.startswith(f"1 approved trace(s) in {out} (1 written; 2 left out (above))")


def test_store_copy_leaves_out_a_trace_it_cannot_read_and_what_rests_on_it(tmp_path: Path) -> None:
    """`forsy store copy`: a trace whose stored file is damaged is not copied, nor the trace an
    approval of it made (its prior would be missing), each named (exit 7); the others are."""
    from forsy.review import actions

    src = f"sqlite:///{tmp_path / 'a.db'}"
    st = open_store(src)
    try:
        ok = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        bad = put(st, SAMPLES / "claude" / "legacy-inline-sidechain.jsonl")
        made = actions.approve(st, bad, "human_reviewed", reviewer="Ada <ada@example.org>",
                               at="2026-03-02T10:00:00+00:00").reviewed_trace_id
    finally:
        st.close()
    db = sqlite3.connect(tmp_path / "a.db")
    db.execute("UPDATE trace_files SET data = ? WHERE name = 'trace.json' AND trace_id = ?", (b"junk", bad))
    db.commit()
    db.close()
    dst = f"sqlite:///{tmp_path / 'b.db'}"
    code, out, err = cli("store", "copy", "--from", src, "--to", dst)
    assert code == 7 and out.startswith("copied 1 trace(s), 0 already there"), (out, err)
    assert err.splitlines() == [
        f"forsy: not copied: {bad}: stored file trace.json of trace {bad} is damaged (not the compressed data "
        "forsy wrote)",
        f"forsy: not copied: {made}: its prior trace {bad} could not be read"]
    b = open_store(dst)
    try:
        assert [r.trace_id for r in b.traces(TraceQuery())] == [ok]
    finally:
        b.close()
