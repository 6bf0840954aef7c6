"""Promises of `forsy export` that hold for every format, on hand-built traces (tests/_export_traces.py):
the Hugging Face folder and its dataset card (a release tier summarised per trace), the loss report
(`_core`: what each field held, what the output lost), and the writer (which traces are exported,
where the files go, what is never overwritten). The formats' own shapes: test_export_formats_promises.py.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import forsy.store
from _export_traces import bundle, manifest, provenance, step, trace
from forsy.errors import InputError, OutputError
from forsy.export import (
    FIELDS,
    ExportOptions,
    ExportRefused,
    approved,
    coverage_of,
    export,
    formats,
    load,
    load_folder,
    load_store,
    report_path,
)
from forsy.export._core import Cover, ExportContext, LossReport, coverage, loss_report, values_of
from forsy.export.hf import HfExporter, trace_row
from forsy.models import STEP_FIELDS, TOP_LEVEL_FIELDS
from forsy.store import TraceQuery

_TEXT = ("agent_config", "static_output", "steps.input_source", "manifest", "provenance")


# --------------------------------------------------------------------------- hf
def _card(n: int, tiers: str) -> str:
    return f"""---
configs:
- config_name: traces
  data_files: traces.jsonl
  default: true
- config_name: steps
  data_files: steps.jsonl
tags:
- agent-traces
- forsy
---
# Forsy traces

{n} trace(s) of AI agents' work in the Forsy trace format (`forsy-trace-v0.1`), written by
`forsy export --to hf`.

* `traces.jsonl`: one row per trace, every field of `trace.json`; `agent_config`,
  `static_output`, each step's `input_source`, and the trace's `manifest` and `provenance`
  (where every value came from) are JSON text.
* `steps.jsonl`: one row per step with its `trace_id`, for stepwise training.

Each trace's `dataset_summary.release_tier` says how it may be shared; the release tiers here:
{tiers}.
"""


def test_hf_card_names_each_release_tier_once_sorted_and_counts_the_traces(tmp_path: Path) -> None:
    tiers = ["research_preview", "open_example", "private", "research_preview", "not_for_release"]
    bundles = [bundle(trace(f"forsy_t{i}", tier=t)) for i, t in enumerate(tiers)]
    res = export([*bundles, bundles[0]], "hf", tmp_path / "hf")  # one given twice: counted once
    assert res.traces == 5
    card = (tmp_path / "hf" / "README.md").read_text()
    assert card == _card(5, "not_for_release, open_example, private, research_preview")
    one = HfExporter().convert([bundles[2]], ExportContext(), ExportOptions())
    assert one[2].data.decode() == _card(1, "private")
    assert HfExporter().convert([], ExportContext(), ExportOptions())[2].data.decode() == _card(0, "none")


def test_hf_rows_keep_every_value_and_write_varying_objects_as_json_text(tmp_path: Path) -> None:
    t1 = trace("forsy_a", [step(1, action="user_message", actor="user", input="hi",
                                input_source={"actor": "user"}),
                           step(2, output="ok", success=True)],
               agent_config={"model": "m", "n": 2})
    t2 = trace("forsy_b", [step(1, output="x")], tier="open_example")
    b1, b2 = bundle(t1, man=True, prov=True), bundle(t2)
    files = HfExporter().convert([b1, b2], ExportContext(), ExportOptions())
    assert [f.name for f in files] == ["traces.jsonl", "steps.jsonl", "README.md"]
    rows = [json.loads(x) for x in files[0].data.decode().split("\n")[:-1]]
    assert files[0].data.endswith(b"\n") and len(rows) == 2
    assert rows[0]["agent_config"] == '{"model":"m","n":2}' and rows[1]["agent_config"] is None
    assert rows[0]["static_output"] == '{"artifacts":[]}'
    assert rows[0]["steps"][0]["input_source"] == '{"actor":"user","source_step":null,"source_field":null,"note":null}'
    assert rows[0]["steps"][1]["input_source"] is None
    assert json.loads(rows[0]["manifest"]) == b1.manifest.model_dump(mode="json")  # type: ignore[union-attr]
    assert json.loads(rows[0]["provenance"]) == b1.provenance.model_dump(mode="json")  # type: ignore[union-attr]
    assert rows[1]["manifest"] is None and rows[1]["provenance"] is None
    for row, t in ((rows[0], t1), (rows[1], t2)):  # every other value as trace.json has it
        d = t.model_dump(mode="json")
        assert {k: v for k, v in row.items() if k not in (*_TEXT, "steps")} == \
               {k: v for k, v in d.items() if k not in (*_TEXT, "steps")}
        assert [{k: v for k, v in s.items() if k != "input_source"} for s in row["steps"]] == \
               [{k: v for k, v in s.items() if k != "input_source"} for s in d["steps"]]
    assert trace_row(b2) == rows[1]
    steps = [json.loads(x) for x in files[1].data.decode().splitlines()]
    assert files[1].data.count(b"\n") == 3
    assert [(s["trace_id"], s["step"]) for s in steps] == [("forsy_a", 1), ("forsy_a", 2), ("forsy_b", 1)]
    assert steps[0] == {"trace_id": "forsy_a", **rows[0]["steps"][0]}
    assert list(steps[0])[0] == "trace_id"


def test_hf_declares_every_field_kept_and_the_varying_objects_as_json_text() -> None:
    cov = coverage_of("hf")
    assert HfExporter.name == "hf" and HfExporter.directory is True
    for f in FIELDS:
        want = (Cover("transformed", "JSON text in traces.jsonl") if f in _TEXT
                else Cover("kept", "traces.jsonl (steps also in steps.jsonl)"))
        assert cov[f] == want, f


# --------------------------------------------------------------------------- _core: fields, coverage, loss
def test_fields_are_the_top_level_fields_then_the_step_fields_then_the_two_files() -> None:
    assert FIELDS == (*(f for f in TOP_LEVEL_FIELDS if f != "steps"), *(f"steps.{f}" for f in STEP_FIELDS),
                      "manifest", "provenance")
    assert len(FIELDS) == 19 + 28 + 2 and "steps" not in FIELDS


def test_coverage_declares_every_field_and_refuses_unknown_names() -> None:
    cov = coverage(kept={"task": "k"}, transformed={"steps.input": "t"}, back=["task", "steps.input", "memory"],
                   dropped={"memory": "no room"})
    assert list(cov) == list(FIELDS)
    assert cov["task"] == Cover("kept", "k", True)
    assert cov["steps.input"] == Cover("transformed", "t", True)
    assert cov["memory"] == Cover("dropped", "no room", False)  # dropped: never read back
    assert cov["learning"] == Cover("dropped", "", False)
    assert cov["trace_id"] == Cover("dropped")
    assert coverage(kept={"task": "k"})["task"].back is False
    assert coverage(transformed={"task": "k"})["task"].back is False
    for bad in ({"kept": {"nope": "x"}}, {"transformed": {"steps": "x"}}, {"back": ["x.y"]},
                {"dropped": {"steps.nope": "x"}}):
        with pytest.raises(ValueError, match="not Forsy fields"):
            coverage(**bad)
    with pytest.raises(ValueError) as e:
        coverage(kept={"b": "", "a": ""})
    assert str(e.value) == "not Forsy fields: ['a', 'b']"


def test_the_context_counts_drops_by_forsy_field() -> None:
    ctx = ExportContext()
    ctx.drop("steps.reasoning")
    ctx.drop("steps.reasoning", 3)
    ctx.drop("manifest", 2)
    assert dict(ctx.dropped) == {"steps.reasoning": 4, "manifest": 2}
    with pytest.raises(ValueError) as e:
        ctx.drop("reasoning")
    assert str(e.value) == "not a Forsy field: reasoning"
    assert ExportContext().dropped == {} and ExportContext().dropped is not ctx.dropped


def test_values_counts_non_empty_values_of_every_field() -> None:
    t1 = trace("forsy_a", [step(1, output="", caused_by=[], success=False, eval=0),
                           step(2, output="x", reasoning="r", caused_by=[1])],
               skills=[], agent_config={}, memory="", prior_trace_id=None)
    t2 = trace("forsy_b", [step(1, reasoning="r2")], skills=["s"], agent_config={"a": 1})
    n = values_of([bundle(t1, man=True, prov=True), bundle(t2, prov=True), bundle(t2)])
    assert n["trace_id"] == 3 and n["prior_trace_id"] == 0
    assert n["skills"] == 2 and n["agent_config"] == 2  # [] and {} are no value
    assert n["memory"] == 1  # "" is a value
    assert n["agent_tools"] == 0 and n["steps"] == 0
    assert n["steps.output"] == 2 and n["steps.reasoning"] == 3 and n["steps.caused_by"] == 1
    assert n["steps.success"] == 1 and n["steps.eval"] == 4 and n["steps.step"] == 4
    assert n["steps.retry_of"] == 0
    assert n["manifest"] == 1 and n["provenance"] == 2


def test_the_loss_report_counts_what_each_fate_loses() -> None:
    t = trace("forsy_a", [step(1, output="x", reasoning="r"), step(2, output="y", reasoning="s"),
                          step(3, output="z")], memory="m")
    cov = coverage(kept={"steps.output": "o"}, transformed={"steps.reasoning": "how", "task": "t2"},
                   dropped={"memory": "why"})
    ctx = ExportContext()
    ctx.drop("steps.reasoning")
    ctx.drop("task", 5)  # more than it held: lost is capped at the values
    ctx.drop("steps.output")  # a kept field a converter still could not carry
    rep = loss_report("fmt", cov, [bundle(t)], ctx)
    assert rep.format == "fmt" and rep.traces == ["forsy_a"]
    assert [f.field for f in rep.fields] == list(FIELDS)
    by = {f.field: f for f in rep.fields}
    assert by["steps.reasoning"].as_dict() == {"field": "steps.reasoning", "fate": "transformed", "how": "how",
                                               "values": 2, "lost": 1}
    assert (by["task"].values, by["task"].lost) == (1, 1)
    assert (by["steps.output"].fate, by["steps.output"].values, by["steps.output"].lost) == ("kept", 3, 1)
    assert (by["memory"].fate, by["memory"].how, by["memory"].values, by["memory"].lost) == ("dropped", "why", 1, 1)
    assert (by["learning"].values, by["learning"].lost) == (0, 0)
    assert by["steps.step"].lost == 3  # dropped: every value
    assert rep.lossy
    lost = rep.lost_fields()
    assert lost[:2] == ["schema_version (1 of 1)", "trace_id (1 of 1)"]
    assert "steps.reasoning (1 of 2)" in lost and "task (1 of 1)" in lost
    assert not any(x.startswith("learning") for x in lost)
    d = rep.as_dict()
    assert list(d) == ["generator", "format", "traces", "lossy", "fields", "skipped"] and d["skipped"] == []
    assert d["generator"] == "forsy export" and d["format"] == "fmt" and d["traces"] == ["forsy_a"]
    assert d["lossy"] is True and d["fields"] == [f.as_dict() for f in rep.fields]
    whole = coverage(kept=dict.fromkeys(FIELDS, "k"))
    clean = loss_report("k", whole, [bundle(t)], ExportContext())
    assert not clean.lossy and clean.lost_fields() == [] and clean.as_dict()["lossy"] is False
    assert LossReport("x", [], []).lossy is False


# --------------------------------------------------------------------------- writer: loading
def test_formats_and_load_name_the_entry_points() -> None:
    assert sorted(formats()) == ["atif", "hf", "invariant", "openai", "opentraces", "otlp"]
    assert formats()["hf"] == "forsy.export.hf:HfExporter"
    assert isinstance(load("hf"), HfExporter)
    with pytest.raises(InputError) as e:
        load("nope")
    assert e.value.message == ("unknown export format 'nope'; known: atif, hf, invariant, openai, opentraces, "
                               "otlp")


def test_load_folder_reads_the_trace_and_the_files_beside_it(tmp_path: Path) -> None:
    t = trace("forsy_a")
    full, bare = tmp_path / "full", tmp_path / "bare"
    for d in (full, bare):
        d.mkdir()
        (d / "trace.json").write_text(t.model_dump_json())
    (full / "manifest.json").write_text(manifest("forsy_a").model_dump_json())
    (full / "provenance.json").write_text(provenance("forsy_a").model_dump_json())
    b = load_folder(full)
    assert (b.trace, b.manifest, b.provenance, b.where) == (t, manifest("forsy_a"), provenance("forsy_a"), str(full))
    assert (b.status, b.reviewed) == (None, False)
    b = load_folder(bare / "trace.json")  # the file itself: the files beside it
    assert (b.trace, b.manifest, b.provenance, b.where) == (t, None, None, str(bare))
    (bare / "manifest.json").mkdir()  # not a file: not read
    assert load_folder(str(bare)).manifest is None  # type: ignore[arg-type]
    with pytest.raises(InputError) as e:
        load_folder(tmp_path / "none")
    assert (e.value.message, e.value.path) == ("No such file or directory", str(tmp_path / "none"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "trace.json").write_text('{"trace_id": 1}')
    with pytest.raises(InputError) as e:
        load_folder(tmp_path / "bad")
    assert e.value.path == str(tmp_path / "bad" / "trace.json")
    assert e.value.message.startswith("not a Forsy trace (") and "\n" not in e.value.message
    assert e.value.message.endswith("validation errors for Trace)")


class _Store:
    url = "sqlite:///fake"

    def __init__(self, rows: list[tuple[str, str, dict[str, bytes], object]]) -> None:
        self.rows, self.closed = rows, False
        self.asked: object = None

    def count_traces(self, query: object) -> int:
        return len(self.rows)

    def traces(self, query: Any) -> list[Any]:
        self.asked = query
        return [SimpleNamespace(trace_id=i, status=s) for i, s, _, _ in self.rows][:query.limit]

    def trace_files(self, trace_id: str) -> list[Any]:
        files = next(f for i, _, f, _ in self.rows if i == trace_id)
        return [SimpleNamespace(name=k, data=v) for k, v in files.items()]

    def draft_state(self, trace_id: str) -> object:
        return next(st for i, _, _, st in self.rows if i == trace_id)

    def close(self) -> None:
        self.closed = True


def test_load_store_reads_each_selected_trace_with_its_review_state(monkeypatch: pytest.MonkeyPatch) -> None:
    ta, tb, tc = trace("forsy_a"), trace("forsy_b"), trace("forsy_c")
    store = _Store([
        ("forsy_a", "approved", {"trace.json": ta.model_dump_json().encode(),
                                 "manifest.json": manifest("forsy_a").model_dump_json().encode(),
                                 "provenance.json": provenance("forsy_a").model_dump_json().encode()},
         SimpleNamespace(review_of="forsy_draft")),
        ("forsy_b", "pending", {"trace.json": tb.model_dump_json().encode()}, None),
        ("forsy_c", "approved", {"trace.json": tc.model_dump_json().encode(), "manifest.json": b""},
         SimpleNamespace(review_of=None)),
    ])
    opened: list[tuple[object, object]] = []

    def open_store(url: object, create: object = True) -> _Store:
        opened.append((url, create))
        return store

    monkeypatch.setattr(forsy.store, "open_store", open_store)
    q = TraceQuery(agent="x")
    a, b, c = load_store("sqlite:///s", q)
    # the query as given, asked for one row more than the store counts (no page of it only)
    assert opened == [("sqlite:///s", False)] and store.asked == replace(q, limit=4, offset=0) and store.closed
    assert (a.trace, a.manifest, a.provenance, a.where, a.status, a.reviewed) == \
           (ta, manifest("forsy_a"), provenance("forsy_a"), "store:forsy_a", "approved", True)
    assert (b.trace, b.manifest, b.provenance, b.where, b.status, b.reviewed) == \
           (tb, None, None, "store:forsy_b", "pending", False)
    assert (c.manifest, c.reviewed) == (None, False)  # an empty manifest file is none
    store2 = _Store([("forsy_d", "pending", {"manifest.json": b"{}"}, None)])
    monkeypatch.setattr(forsy.store, "open_store", lambda url, create=True: store2)
    with pytest.raises(InputError) as e:
        load_store(None, q)
    assert e.value.message == "trace forsy_d lacks trace.json in the store sqlite:///fake"
    assert store2.closed
    with pytest.raises(TypeError, match="^query must be a TraceQuery$"):
        load_store(None, "*")


def test_approved_means_a_person_confirmed_the_trace() -> None:
    human = trace(validation_level="human_reviewed")
    for level, ok in (("human_reviewed", True), ("expert_reviewed", True), ("client_validated", True),
                      ("model_reviewed", False), ("retraced_from_logs", False), ("self_traced", False)):
        t = trace(validation_level=level)
        assert approved(bundle(t)) is ok, level  # a folder: the level alone
        assert approved(bundle(t, status="approved", reviewed=True)) is ok, level
    assert approved(bundle(human, status="approved")) is False  # the draft a review was made from
    assert approved(bundle(human, status="pending", reviewed=True)) is False
    assert approved(bundle(human, status="", reviewed=True)) is False


# --------------------------------------------------------------------------- writer: export
def test_export_keeps_the_approved_and_the_first_of_each_trace_id(tmp_path: Path) -> None:
    ok = trace("forsy_ok", [step(1, output="first")], validation_level="human_reviewed")
    again = trace("forsy_ok", [step(1, output="second")], validation_level="human_reviewed")
    other = trace("forsy_no")
    res = export([bundle(ok), bundle(other), bundle(again)], "hf", tmp_path / "a",
                 options=ExportOptions(approved_only=True))
    assert (res.format, res.traces, res.duplicates) == ("hf", 1, 1)
    rows = (tmp_path / "a" / "traces.jsonl").read_text().splitlines()
    assert [json.loads(r)["steps"][0]["output"] for r in rows] == ["first"]
    assert res.report.traces == ["forsy_ok"]
    res = export([bundle(other), bundle(ok)], "hf", tmp_path / "b")
    assert (res.traces, res.duplicates, res.report.traces) == (2, 0, ["forsy_no", "forsy_ok"])
    with pytest.raises(InputError) as e:
        export([bundle(other)], "hf", tmp_path / "c", options=ExportOptions(approved_only=True))
    assert e.value.message == "no trace to export (none approved)"
    with pytest.raises(InputError) as e:
        export([], "hf", tmp_path / "c")
    assert e.value.message == "no trace to export"
    assert not (tmp_path / "c").exists()


def test_export_writes_a_folder_or_a_file_and_the_report_beside_it(tmp_path: Path) -> None:
    t = trace("forsy_a", [step(1, output="x")])
    res = export([bundle(t)], "hf", tmp_path / "hf")
    names = ["traces.jsonl", "steps.jsonl", "README.md", "loss.json"]
    assert res.paths == [tmp_path / "hf" / n for n in names]
    report = json.loads((tmp_path / "hf" / "loss.json").read_text())
    assert report == res.report.as_dict() and report["generator"] == "forsy export"
    assert (tmp_path / "hf" / "loss.json").read_bytes().endswith(b"}\n")
    assert b'\n  "format": "hf",' in (tmp_path / "hf" / "loss.json").read_bytes()  # indented
    deep = tmp_path / "deep" / "er"  # folders made as needed
    res = export([bundle(t)], "invariant", deep / "inv.json")  # a file, and one beside it
    assert res.paths == [deep / "inv.json", deep / "inv.dataset.json", deep / "inv.json.loss.json"]
    assert all(p.is_file() for p in res.paths)
    res = export([bundle(t), bundle(trace("forsy_b"))], "atif", tmp_path / "many.json")  # named files: a folder
    assert res.paths == [tmp_path / "many.json" / "forsy_a.json", tmp_path / "many.json" / "forsy_b.json",
                         tmp_path / "many.json" / "loss.json"]
    res = export([bundle(t)], "atif", tmp_path / "noext")
    assert res.paths == [tmp_path / "noext", tmp_path / "noext.loss.json"]
    assert report_path(tmp_path / "x.json", folder=False) == tmp_path / "x.json.loss.json"
    assert report_path(tmp_path / "x", folder=True) == tmp_path / "x" / "loss.json"


def test_strict_refuses_a_lossy_export_naming_what_it_would_lose(tmp_path: Path) -> None:
    t = trace("forsy_a", [step(1, output="x", reasoning="r")])
    with pytest.raises(ExportRefused) as e:
        export([bundle(t, man=True)], "openai", tmp_path / "o.jsonl", strict=True)
    assert e.value.path == str(tmp_path / "o.jsonl")
    assert e.value.message.startswith("--strict: the openai export would lose values of schema_version (1 of 1), ")
    assert ", steps.reasoning (1 of 1), " in e.value.message and e.value.message.endswith(", manifest (1 of 1)")
    assert list(tmp_path.iterdir()) == []
    assert not export([bundle(t)], "hf", tmp_path / "h", strict=True).report.lossy


def test_export_never_writes_over_what_it_did_not_write(tmp_path: Path) -> None:
    b = bundle(trace("forsy_a"))
    cases: list[tuple[str, str, Path]] = []
    (tmp_path / "f1").mkdir()
    (tmp_path / "f1" / "README.md").write_text("mine")  # a folder output's file
    cases.append(("hf", "f1", tmp_path / "f1" / "README.md"))
    (tmp_path / "f2").mkdir()
    (tmp_path / "f2" / "loss.json").write_text('{"generator": "someone"}')  # a report not ours
    cases.append(("hf", "f2", tmp_path / "f2" / "loss.json"))
    (tmp_path / "f3").write_text("a file where the folder goes")
    cases.append(("hf", "f3", tmp_path / "f3"))
    (tmp_path / "f4.json").write_text("mine")
    cases.append(("atif", "f4.json", tmp_path / "f4.json"))
    (tmp_path / "f5.json.loss.json").write_text("[1]")  # a report that is no object
    cases.append(("atif", "f5.json", tmp_path / "f5.json.loss.json"))
    os.symlink(tmp_path / "missing", tmp_path / "f6.json")  # a dangling link is taken too
    cases.append(("atif", "f6.json", tmp_path / "f6.json"))
    (tmp_path / "f7.dataset.json").write_text("mine")  # the second file of a one-trace export
    cases.append(("invariant", "f7.json", tmp_path / "f7.dataset.json"))
    for fmt, out, taken in cases:
        before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        with pytest.raises(OutputError) as e:
            export([b], fmt, tmp_path / out)
        assert (e.value.message, e.value.path) == ("exists and was not written by forsy export; not overwritten",
                                                    str(taken)), out
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    export([b], "atif", tmp_path / "ok.json")
    (tmp_path / "ok.json").write_text("changed")
    export([b], "atif", tmp_path / "ok.json")  # its own report beside it: replaced
    assert json.loads((tmp_path / "ok.json").read_text())["trajectory_id"] == "forsy_a"


def test_a_write_that_fails_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir()
    blocker = tmp_path / "ro" / "sub"
    blocker.write_text("x")
    with pytest.raises(OutputError) as e:  # a file where a parent folder must go: no run of mkdir makes it
        export([bundle(trace())], "atif", blocker / "t.json")
    assert e.value.path == str(blocker / "t.json") and e.value.message in ("Not a directory", "File exists")


def test_an_os_error_without_a_strerror_is_said_by_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.export.writer as w

    def refuse(path: Path, data: bytes) -> None:
        raise OSError("the disk went away")

    monkeypatch.setattr(w, "replace_file", refuse)
    with pytest.raises(OutputError) as e:
        export([bundle(trace())], "atif", tmp_path / "t.json")
    assert (e.value.message, e.value.path) == ("the disk went away", str(tmp_path / "t.json"))

    def unreadable(self: Path) -> bytes:
        raise OSError("cannot read")

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    with pytest.raises(InputError) as e2:
        load_folder(tmp_path)
    assert (e2.value.message, e2.value.path) == ("cannot read", str(tmp_path / "trace.json"))
