"""forsy export: every format checked by its real consumer over the traces of the real logs
(../shared/real_logs, retraced here; skipped when absent) and of the sample logs, the loss
report, --strict, and never writing over a file forsy did not write.

The `traced` fixture (session-scoped) is shared with tests/test_import.py.
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _paths import ROOT, SAMPLES, real_logs
from forsy.cli import app
from forsy.errors import OutputError, UnsupportedFormat
from forsy.export import (
    FIELDS,
    Bundle,
    ExportOptions,
    ExportRefused,
    coverage_of,
    export,
    formats,
    load_folder,
    report_path,
)
from forsy.run import RetraceOptions, retrace

LOGS = [*real_logs("claude", "**/*.jsonl", "**/chat.json"), *real_logs("codex"),
        *sorted(SAMPLES.glob("claude/**/*.json*")), *sorted(SAMPLES.glob("codex/**/*.jsonl"))]
DEMO = SAMPLES / "claude" / "demo-session.jsonl"


def _trace_all(out: Path) -> list[Bundle]:
    bundles = []
    for i, f in enumerate(LOGS):
        try:
            run = retrace([f], RetraceOptions(redact=False, out=out / f"t{i}"), raise_if_empty=False)
        except UnsupportedFormat:
            continue  # an empty fixture file among the real logs
        bundles += [load_folder(o.folder) for o in run.results if o.folder is not None]
    return bundles


@pytest.fixture(scope="session")
def traced(tmp_path_factory: pytest.TempPathFactory) -> list[Bundle]:
    """Every trace of the real and sample Claude Code and Codex logs, as trace folders."""
    bundles = _trace_all(tmp_path_factory.mktemp("traced"))
    assert len(bundles) >= 9  # the sample logs alone give 9 traces
    return bundles


@pytest.fixture
def demo(tmp_path: Path) -> Bundle:
    run = retrace([DEMO], RetraceOptions(redact=False, out=tmp_path / "demo"))
    folder = run.results[0].folder
    assert folder is not None
    return load_folder(folder)


def _one_by_one(bundles: list[Bundle], fmt: str, out: Path, suffix: str) -> Iterator[tuple[Bundle, Path]]:
    for i, b in enumerate(bundles):
        p = out / f"{i}{suffix}"
        export([b], fmt, p)
        yield b, p


# --------------------------------------------------------------------------- declarations
@pytest.mark.parametrize("fmt", sorted(formats()))
def test_every_format_declares_every_field(fmt: str) -> None:
    cov = coverage_of(fmt)
    assert list(cov) == list(FIELDS)
    for name, c in cov.items():
        assert c.fate in ("kept", "transformed", "dropped")
        if c.fate == "transformed":
            assert c.how, f"{fmt}: {name} is transformed without saying how"
        if c.back:
            assert c.fate != "dropped", f"{fmt}: {name} is read back but declared dropped"


# --------------------------------------------------------------------------- consumers
def test_invariant_loads_and_a_policy_runs(traced: list[Bundle], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Invariant stops a rule after 100 evaluations unless told otherwise (its own setting):
    # the real traces hold up to ~200 calls
    monkeypatch.setenv("INVARIANT_MAX_ITERATIONS", "100000")
    # skipped without the `invariant` extra, except in the run of README's test command that
    # installs it (its own venv: it pins openai<2), where a failed import must fail
    need = importlib.import_module if os.environ.get("FORSY_REQUIRE_INVARIANT") else pytest.importorskip
    analyzer = need("invariant.analyzer")
    sdk = need("invariant_sdk.types.push_traces")
    checked = 0
    for b, p in _one_by_one(traced, "invariant", tmp_path, ".json"):
        events = json.loads(p.read_text())
        assert isinstance(events, list)  # the interface scripts rely on: one JSON array
        calls = [c["function"]["name"] for e in events for c in e.get("tool_calls") or []]
        assert len(calls) == sum(1 for s in b.trace.steps if s.tool is not None)
        names = sorted({n for n in calls if re.fullmatch(r"[A-Za-z_]\w*", n)})
        if not names:
            assert analyzer.LocalPolicy.from_string('raise "x" if:\n    (m: Message)\n    m.role == "nobody"\n'
                                                    ).analyze(events).errors == []
            continue
        # a policy over the tool calls: one violation per call of the tool
        tool = max(names, key=calls.count)
        policy = analyzer.LocalPolicy.from_string(
            f'raise "used" if:\n    (call: ToolCall)\n    call is tool:{tool}\n')
        assert len(policy.analyze(events).errors) == calls.count(tool), (b.where, tool)
        checked += 1
        upload = json.loads(p.with_name(p.stem + ".dataset.json").read_text())
        sdk.PushTracesRequest(**upload)  # the Explorer's upload request accepts it
        assert upload["metadata"][0]["trace_id"] == b.trace.trace_id
    assert checked >= 5


def _known_keys(model: Any, data: Any, where: str) -> None:
    """opentraces models ignore unknown keys: check that every key written is one of theirs."""
    from pydantic import BaseModel

    if isinstance(data, list):
        for x in data:
            _known_keys(model, x, where)
        return
    if not (isinstance(model, type) and issubclass(model, BaseModel)) or not isinstance(data, dict):
        return
    unknown = set(data) - set(model.model_fields)
    assert not unknown, f"{where}: {model.__name__} has no {sorted(unknown)}"
    for k, v in data.items():
        ann = model.model_fields[k].annotation
        for arg in (*getattr(ann, "__args__", ()), ann):
            for inner in (*getattr(arg, "__args__", ()), arg):
                _known_keys(inner, v, f"{where}.{k}")


def test_opentraces_records_validate(traced: list[Bundle], tmp_path: Path) -> None:
    ot = pytest.importorskip("opentraces_schema")
    p = tmp_path / "all.jsonl"
    export(traced, "opentraces", p)
    lines = p.read_text().splitlines()
    assert len(lines) == len(traced)  # one JSON line per trace
    for line, b in zip(lines, traced, strict=True):
        data = json.loads(line)
        rec = ot.TraceRecord.model_validate(data)
        _known_keys(ot.TraceRecord, data, b.where)
        assert rec.trace_id == b.trace.trace_id
        for st in rec.steps:
            assert {o.source_call_id for o in st.observations} <= {c.tool_call_id for c in st.tool_calls}
        calls = sum(len(st.tool_calls) for st in rec.steps)
        assert calls == sum(1 for s in b.trace.steps if s.tool is not None)


def test_opentraces_subagent_steps_link_their_parent(traced: list[Bundle]) -> None:
    from forsy.export.opentraces import record

    linked = 0
    for b in traced:
        rec = record(b)
        index = {st["step_index"]: st for st in rec["steps"]}
        for st in rec["steps"]:
            if st.get("call_type") == "subagent" and st.get("parent_step") is not None:
                linked += 1
                parent = index[st["parent_step"]]
                assert parent["tool_calls"], "a subagent's parent step is the call that delegated to it"
    assert linked > 0


def test_atif_trajectories_validate(traced: list[Bundle], tmp_path: Path) -> None:
    atif = pytest.importorskip("atif")
    for b, p in _one_by_one(traced, "atif", tmp_path, ".json"):
        doc = json.loads(p.read_text())  # one JSON trajectory
        traj = atif.Trajectory.model_validate(doc)
        assert traj.schema_version == "ATIF-v1.8"
        calls = sum(len(st.tool_calls or []) for st in traj.steps)
        assert calls == sum(1 for s in b.trace.steps if s.tool is not None)


def test_openai_messages_are_chat_messages(traced: list[Bundle], tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessageParam
    from pydantic import TypeAdapter

    adapter = TypeAdapter(list[ChatCompletionMessageParam])
    p = tmp_path / "chat.jsonl"
    export(traced, "openai", p)
    for line in p.read_text().splitlines():
        msgs = json.loads(line)["messages"]
        adapter.validate_python(msgs)
        seen: set[str] = set()
        for m in msgs:
            seen.update(c["id"] for c in m.get("tool_calls") or [])
            if m["role"] == "tool":
                assert m["tool_call_id"] in seen  # a result follows its call


def test_openai_approved_only(demo: Bundle, tmp_path: Path) -> None:
    """Only what a person confirmed: the trace a review made (reviewed, at a human level), never
    the draft it was made from, whose store status reads approved too."""
    reviewed = demo.trace.model_copy(update={"trace_id": "forsy_reviewed0000000000",
                                             "validation_level": "human_reviewed"})
    approved = Bundle(reviewed, demo.manifest, demo.provenance, "store:a", status="approved", reviewed=True)
    its_draft = Bundle(demo.trace, demo.manifest, demo.provenance, "store:d", status="approved")
    pending = Bundle(demo.trace, demo.manifest, demo.provenance, "store:b", status="pending")
    res = export([approved, its_draft, pending, demo], "openai", tmp_path / "a.jsonl",
                 options=ExportOptions(approved_only=True))
    assert res.traces == 1
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 1
    for alone in (pending, its_draft, demo):
        with pytest.raises(Exception, match="none approved"):
            export([alone], "openai", tmp_path / "b.jsonl", options=ExportOptions(approved_only=True))


def test_hf_dataset_loads(traced: list[Bundle], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "hf"
    export(traced, "hf", out)
    cache = str(tmp_path / "cache")
    rows = datasets.load_dataset("json", data_files=str(out / "traces.jsonl"), split="train", cache_dir=cache)
    steps = datasets.load_dataset("json", data_files=str(out / "steps.jsonl"), split="train", cache_dir=cache)
    assert rows.num_rows == len(traced)
    assert steps.num_rows == sum(len(b.trace.steps) for b in traced)
    assert sorted(rows["trace_id"]) == sorted(b.trace.trace_id for b in traced)
    card = (out / "README.md").read_text()
    assert "config_name: traces" in card and "config_name: steps" in card
    # nothing lost: the manifest and provenance travel as JSON text
    first = rows[0]
    assert json.loads(first["provenance"])["trace_id"] == first["trace_id"]


def _b64(h: str) -> str:
    return base64.b64encode(bytes.fromhex(h)).decode()


def test_otlp_parsed_by_opentelemetry_proto(traced: list[Bundle], tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.proto.trace.v1.trace_pb2")
    from google.protobuf import json_format
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    p = tmp_path / "otlp.json"
    export(traced, "otlp", p)
    doc = json.loads(p.read_text())
    # OTLP/JSON writes ids as hex; protobuf's generic JSON mapping reads bytes as base64 (as
    # an OTLP receiver does, the ids are turned into that before parsing)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if sp.get(k):
                        sp[k] = _b64(sp[k])
                for link in sp.get("links", []):
                    link["traceId"], link["spanId"] = _b64(link["traceId"]), _b64(link["spanId"])
    data = json_format.Parse(json.dumps(doc), TracesData())
    spans = list(data.resource_spans[0].scope_spans[0].spans)
    assert len(spans) == sum(len(b.trace.steps) + 1 for b in traced)  # a root per session, a span per step
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)
    links = sum(len(s.caused_by or []) + (s.retry_of is not None) for b in traced for s in b.trace.steps)
    assert sum(len(s.links) for s in spans) == links
    roots = [s for s in spans if not s.parent_span_id]
    assert len(roots) == len(traced)
    ids = {s.span_id for s in spans}
    assert all(s.parent_span_id in ids for s in spans if s.parent_span_id)


# --------------------------------------------------------------------------- loss report, strict, files
def test_loss_report_beside_the_export(demo: Bundle, tmp_path: Path) -> None:
    res = export([demo], "invariant", tmp_path / "t.json")
    rpath = report_path(tmp_path / "t.json", folder=False)
    assert rpath == tmp_path / "t.json.loss.json" and rpath.is_file()
    report = json.loads(rpath.read_text())
    fields = {f["field"]: f for f in report["fields"]}
    assert report["lossy"] is True
    assert fields["steps.eval"]["fate"] == "dropped"
    assert fields["steps.eval"]["lost"] == fields["steps.eval"]["values"] == len(demo.trace.steps)
    # a transformed field whose value had no place in one case is counted where it was lost
    answers_with_reasoning = sum(1 for s in demo.trace.steps if s.tool is None and s.reasoning)
    assert fields["steps.reasoning"]["lost"] == answers_with_reasoning
    assert fields["steps.tool"]["lost"] == 0
    assert res.report.lossy


def test_strict_refuses_a_lossy_export_and_writes_nothing(demo: Bundle, tmp_path: Path) -> None:
    with pytest.raises(ExportRefused, match="provenance"):
        export([demo], "atif", tmp_path / "t.json", strict=True)
    assert list(tmp_path.iterdir()) == [tmp_path / "demo"]
    res = export([demo], "hf", tmp_path / "hf", strict=True)  # hf carries every field
    assert not res.report.lossy and (tmp_path / "hf" / "loss.json").is_file()


def test_never_over_a_file_forsy_did_not_write(demo: Bundle, tmp_path: Path) -> None:
    mine = tmp_path / "notes.json"
    mine.write_text("my notes")
    with pytest.raises(OutputError, match="not written by forsy"):
        export([demo], "atif", mine)
    assert mine.read_text() == "my notes"
    ours = tmp_path / "t.json"
    export([demo], "atif", ours)
    export([demo], "atif", ours)  # its own earlier export is replaced
    assert json.loads(ours.read_text())["trajectory_id"] == demo.trace.trace_id


def test_several_traces_of_a_one_document_format_make_a_folder(traced: list[Bundle], tmp_path: Path) -> None:
    res = export(traced[:3], "atif", tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted([f"{b.trace.trace_id}.json" for b in traced[:3]] + ["loss.json"])
    assert res.paths[-1] == tmp_path / "out" / "loss.json"


def test_cli_export(demo: Bundle, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "inv.json"
    r = runner.invoke(app, ["export", demo.where, "--to", "invariant", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert isinstance(json.loads(out.read_text()), list)
    assert "loss report" in r.output
    r = runner.invoke(app, ["export", demo.where, "--to", "opentraces", "-o", str(tmp_path / "o.jsonl"), "--strict"])
    assert r.exit_code == 1 and "--strict" in r.output
    assert not (tmp_path / "o.jsonl").exists()
    r = runner.invoke(app, ["export", demo.where, "--to", "nope", "-o", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--to must be one of" in r.output


def test_export_from_store(tmp_path: Path) -> None:
    from forsy.store import open_store
    from forsy.store.sink import StoreSink

    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        retrace([DEMO], RetraceOptions(redact=False), sink=StoreSink(st, now="2026-01-01T00:00:00Z"))
    finally:
        st.close()
    runner = CliRunner()
    out = tmp_path / "s.jsonl"
    # a store's drafts leave it once a person approves them: the draft is pending
    r = runner.invoke(app, ["export", "--from-store", "*", "--store", url, "--to", "opentraces", "-o", str(out)])
    assert r.exit_code == 2 and "no approved trace to export" in r.output and "--status pending" in r.output
    assert not out.exists()
    r = runner.invoke(app, ["export", "--from-store", "*", "--store", url, "--to", "openai", "--approved-only",
                            "-o", str(tmp_path / "a.jsonl")])
    assert r.exit_code == 2 and "no approved trace" in r.output and not (tmp_path / "a.jsonl").exists()
    # asked for by their status, drafts are exported, and said to be drafts no person approved
    r = runner.invoke(app, ["export", "--from-store", "*", "--status", "pending", "--store", url, "--to",
                            "opentraces", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "1 draft(s) no person has approved (--status pending) are exported" in r.stderr
    assert len(out.read_text().splitlines()) == 1


def test_a_trace_given_twice_is_exported_once_and_said_so(demo: Bundle, tmp_path: Path) -> None:
    """`forsy export T T` (or a folder and its copy) said '2 trace(s)' of one trace in one file."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(demo.where, copy)
    res = export([demo, demo, load_folder(copy)], "atif", tmp_path / "a.json")
    assert (res.traces, res.duplicates) == (1, 2)
    assert json.loads((tmp_path / "a.json").read_text())["trajectory_id"] == demo.trace.trace_id
    r = CliRunner().invoke(app, ["export", demo.where, str(copy), "--to", "atif", "-o", str(tmp_path / "b.json")])
    assert r.exit_code == 0, r.stderr
    assert f"{tmp_path / 'b.json'}: 1 trace(s) as atif (1 given twice: exported once);" in r.stdout


def test_the_refusal_names_the_file_once(demo: Bundle, tmp_path: Path) -> None:
    mine = tmp_path / "notes.json"
    mine.write_text("my notes")
    r = CliRunner().invoke(app, ["export", demo.where, "--to", "atif", "-o", str(mine)])
    assert r.exit_code == 6
    assert r.stderr == f"forsy: error: {mine}: exists and was not written by forsy export; not overwritten\n"


def test_hf_card_names_every_release_tier_of_the_traces_it_holds(demo: Bundle, tmp_path: Path) -> None:
    """A private (unredacted) trace beside a research_preview one: the card says both, so whoever
    publishes the folder sees that it holds a trace not meant to be shared."""
    redacted_run = retrace([DEMO], RetraceOptions(out=tmp_path / "red"))
    folder = redacted_run.results[0].folder
    assert folder is not None
    red = load_folder(folder)
    other = red.trace.model_copy(update={"trace_id": "forsy_other00000000000000"})
    bundles = [demo, Bundle(other, red.manifest, red.provenance, "x")]
    tiers = sorted({b.trace.dataset_summary.release_tier for b in bundles})
    assert tiers == ["private", "research_preview"]
    export(bundles, "hf", tmp_path / "hf")
    card = (tmp_path / "hf" / "README.md").read_text()
    assert "2 trace(s)" in card
    assert all(t in card.split("release tiers here:")[1] for t in tiers), card


def test_export_formats_are_registered_like_plugins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   demo: Bundle) -> None:
    """forsy's own formats are the `forsy.exporters` entry points its pyproject.toml declares, and a
    plugin's format is found the same way."""
    import tomllib
    from importlib.metadata import EntryPoint

    import forsy.export.writer as fe

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["forsy.exporters"]
    assert fe.formats() == declared
    plugin = EntryPoint("shout", "forsy.export.openai:OpenAIExporter", fe.EXPORTERS)
    monkeypatch.setattr(fe, "entry_points", lambda group: [*(EntryPoint(n, v, group) for n, v in declared.items()),
                                                           plugin])
    fe.formats.cache_clear()
    try:
        res = export([demo], "shout", tmp_path / "x.jsonl")
        assert res.traces == 1 and (tmp_path / "x.jsonl").is_file()
    finally:
        fe.formats.cache_clear()
