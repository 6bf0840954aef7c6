"""`forsy dataset build`: sessions in, one Parquet row per session out, the same rows on the
local engine and on Ray Data, incremental on a second run."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from forsy.dataset import build, retrace_bytes
from forsy.dataset._engines import CRASHED
from forsy.errors import InputError
from forsy.run import retrace_one

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
SUBAGENT_SESSION = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
HAS_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Claude Code (one session with a subagent), Codex, a copy of one session under another
    folder, and a broken log."""
    c = tmp_path / "corpus"
    shutil.copytree(SAMPLES / "claude", c / "claude", ignore=shutil.ignore_patterns("*.py", "*.json", "*.md"))
    shutil.copytree(SAMPLES / "codex", c / "codex", ignore=shutil.ignore_patterns("*.md"))
    (c / "copy").mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", c / "copy" / "demo-session.jsonl")
    (c / "broken").mkdir()
    (c / "broken" / "broken.jsonl").write_bytes(b"\x00\x01 not a log {{{\n" * 3)
    return c


def _rows(out: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = pq.read_table(out / "data").to_pylist()
    return sorted(rows, key=lambda r: (str(r["source_id"]), str(r["trace_id"])))


def _files(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def test_local_build_rows(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    r = build([corpus], out, num_cpus=2)
    rows = _rows(out)
    traced = [x for x in rows if x["status"] == "traced"]
    failed = [x for x in rows if x["status"] == "failed"]
    # the copy of demo-session is found but written once
    assert r.duplicates == 1
    assert len({x["trace_id"] for x in traced}) == len(traced)
    assert sum(1 for x in traced if x["session_id"] == "d99e6618-d709-41f9-91b5-6b444aebcc56") == 1
    # the broken file is a row with its error and no trace
    assert len(failed) == 1 and failed[0]["trace"] is None and "not a log format" in str(failed[0]["error"])
    # every traced row: its trace as JSON, the same trace id as `forsy retrace` gives the file
    demo = next(x for x in traced if x["session_id"] == "d99e6618-d709-41f9-91b5-6b444aebcc56")
    direct = retrace_one(SAMPLES / "claude" / "demo-session.jsonl")[0]
    assert direct.assembled is not None
    assert demo["trace_id"] == direct.trace_id and demo["steps"] == len(direct.assembled.trace.steps)
    assert json.loads(str(demo["trace"]))["trace_id"] == demo["trace_id"]
    assert demo["agent"] == "claude_code" and demo["month"] == "2026-02" and demo["project"] == "textkit"
    # the subagent travelled with its session: its file is among the trace's sources
    sub = next(x for x in traced if x["session_id"] == SUBAGENT_SESSION)
    assert any("subagents/agent-" in s["path"] for s in json.loads(str(sub["manifest"]))["sources"])
    # partitioned by agent and month, the card beside
    assert (out / "data" / "claude_code" / "2026-02").is_dir()
    card = (out / "README.md").read_text()
    assert "| failed | 1 |" in card and "not a log format" in card


def test_secrets_are_masked_and_counted_on_the_card(tmp_path: Path) -> None:
    from secretgen import SecretGen

    gen = SecretGen(seed=31)
    token, key = gen.github(), gen.aws_key_id()
    src = tmp_path / "src"
    src.mkdir()
    (src / "work.bash_history").write_text(f"#1700000000\ncurl -H 'Authorization: token {token}' https://x.test\n"
                                           f"#1700000005\nexport AWS_ACCESS_KEY_ID={key}\n#1700000009\nmake\n")
    out = tmp_path / "ds"
    build([src], out)
    (row,) = _rows(out)
    assert row["status"] == "traced" and int(str(row["redactions"])) >= 2
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert token.encode() not in written and key.encode() not in written
    card = (out / "README.md").read_text()
    assert "nothing was masked" not in card
    assert all(f"- {kind}: " in card for kind in json.loads(str(row["redaction_by_kind"])))


def test_readers_read_it(corpus: Path, tmp_path: Path) -> None:
    import datasets

    out = tmp_path / "ds"
    build([corpus], out)
    table = pq.read_table(out / "data")
    # a cache of its own: the user's cache keys a folder's dataset by its name, and a stale entry of
    # another run's `ds` (fewer rows) would be read in its place
    ds = datasets.load_dataset(str(out), split="train", cache_dir=str(tmp_path / "hf-cache"))
    assert ds.num_rows == table.num_rows > 0
    assert sorted(ds["trace_id"], key=str) == sorted(table.column("trace_id").to_pylist(), key=str)


def test_second_run_adds_nothing_and_a_grown_source_is_replaced(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    build([corpus], out)
    before = _files(out)
    again = build([corpus], out)
    assert (again.retraced, again.rows) == (0, 0)
    assert _files(out) == before
    # a session that grew: its row is replaced, nothing else changes
    grown = corpus / "claude" / "demo-session.jsonl"
    lines = grown.read_bytes().splitlines(keepends=True)
    grown.write_bytes(b"".join(lines[: len(lines) // 2]))
    build([corpus], out)  # the shorter version first, so that the full one is a growth
    old = {r["source_id"]: r for r in _rows(out)}
    grown.write_bytes(b"".join(lines))
    third = build([corpus], out)
    assert (third.retraced, third.replaced, third.rows) == (1, 1, 1)
    new = {r["source_id"]: r for r in _rows(out)}
    assert new.keys() == old.keys()
    changed = [k for k in new if new[k] != old[k]]
    assert len(changed) == 1 and int(str(new[changed[0]]["steps"])) > int(str(old[changed[0]]["steps"]))


def test_a_dataset_inside_its_source_is_not_read_as_corpus(corpus: Path) -> None:
    out = corpus / "ds"
    first = build([corpus], out)
    again = build([corpus], out)  # its parts, state and card are not sessions of the corpus
    assert (again.found, again.retraced, again.rows) == (first.found, 0, 0)


def test_a_folder_forsy_did_not_write_is_refused(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="did not write"):
        build([corpus], out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_corpus_rows_from_parquet_and_json_lines(tmp_path: Path) -> None:
    """A dataset of raw logs (Parquet, JSON Lines) gives the same traces as the files."""
    names = ["demo-session.jsonl", "compaction-and-branches.jsonl"]
    texts = [(SAMPLES / "claude" / n).read_text() for n in names]
    src = tmp_path / "src"
    src.mkdir()
    pq.write_table(pa.table({"path": [f"logs/{n}" for n in names], "content": texts}), src / "logs.parquet")
    lines = [json.dumps({"file": n, "text": t}) + "\n" for n, t in zip(names, texts, strict=True)]
    (src / "logs.jsonl").write_text("".join(lines))
    out = tmp_path / "ds"
    r = build([src / "logs.parquet", src / "logs.jsonl"], out)
    expected = {retrace_one(SAMPLES / "claude" / n)[0].trace_id for n in names}
    rows = _rows(out)
    assert {x["trace_id"] for x in rows} == expected
    assert len(rows) == 2 and r.duplicates == 2  # the JSON Lines copy of the same logs is written once


def test_retrace_bytes_is_the_pipeline_on_the_bytes() -> None:
    session = SAMPLES / "claude" / "subagents" / f"{SUBAGENT_SESSION}.jsonl"
    side = {p.relative_to(session.parent).as_posix(): p.read_bytes()
            for p in (session.parent / SUBAGENT_SESSION).rglob("*") if p.is_file()}
    with_parts = retrace_bytes(session.name, session.read_bytes(), side)
    alone = retrace_bytes(session.name, session.read_bytes())
    direct = retrace_one(session)[0]
    assert with_parts[0]["trace_id"] == direct.trace_id
    assert json.loads(with_parts[0]["manifest"])["counts"]["subagents"] == 1
    assert json.loads(alone[0]["manifest"])["counts"].get("subagents", 0) == 0
    bad = retrace_bytes("x.jsonl", b"{broken")
    assert bad[0]["status"] == "failed" and bad[0]["trace"] is None and "forsy-dataset-" not in bad[0]["error"]
    escape = retrace_bytes("x.jsonl", b"{}", {"../../escape": b"x"})  # a part may not leave its folder
    assert escape[0]["status"] == "failed" and "leaves the session's folder" in escape[0]["error"]


def test_a_worker_that_dies_twice_is_a_failed_row(corpus: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_DATASET_TEST_FAULT", "kill:legacy-inline-sidechain.jsonl")
    out = tmp_path / "ds"
    build([corpus], out, num_cpus=2)
    rows = _rows(out)
    dead = [x for x in rows if x["error"] == CRASHED]
    assert len(dead) == 1 and dead[0]["trace"] is None
    assert sum(1 for x in rows if x["status"] == "traced") == len(rows) - 2  # the broken file, the dead one
    # the next run tries it again, and its row replaces the failed one
    monkeypatch.delenv("FORSY_DATASET_TEST_FAULT")
    again = build([corpus], out)
    assert (again.retraced, again.replaced) == (1, 1)
    after = _rows(out)
    assert len(after) == len(rows) and CRASHED not in [x["error"] for x in after]


@pytest.mark.slow
@pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (pip install 'forsy[ray]')")
@pytest.mark.filterwarnings("ignore::DeprecationWarning:ray")  # Ray Data warns of its own settings
# Ray Data's own per-dataset log file (logs/ray-data/ray-data-dataset_*.log, opened by its
# SessionFileHandler) is sometimes left for the cyclic collector to close, which then warns at a
# random point of the test (2 full runs in 6, never alone; the datasets ran one after another and
# each was unregistered, so the handler is dropped somewhere inside Ray). Only files under Ray's
# logs/ray-data/ are let go: an unclosed file of forsy's still fails the test.
@pytest.mark.filterwarnings(r"ignore:unclosed file <_io\.\w+ name='[^']*/logs/ray-data/ray-data-:ResourceWarning")
def test_ray_rows_are_the_local_rows(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A local Ray with two CPUs, started and stopped by the build; on both engines a session
    whose worker dies (twice) is a failed row, the same one."""
    monkeypatch.setenv("FORSY_DATASET_TEST_FAULT", "kill:legacy-inline-sidechain.jsonl")
    monkeypatch.setattr("forsy.dataset._engines.WAVE", 3)  # several Ray Datasets, in order
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    build([corpus], local, num_cpus=2)
    r = build([corpus], on_ray, engine="ray", num_cpus=2)
    assert r.rows == len(_rows(local))
    assert _rows(on_ray) == _rows(local)
    assert _files(on_ray) == _files(local)  # the same parts, byte for byte
    assert [x["error"] for x in _rows(on_ray)].count(CRASHED) == 1


def test_cli_build(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    cmd = [sys.executable, "-m", "forsy", "dataset", "build", str(corpus), "-o", str(out)]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert first.returncode == 7, first.stderr  # partly done: the broken log is a failed row, named
    assert f"forsy: failed: {corpus / 'broken' / 'broken.jsonl'}: not a log format" in first.stderr
    assert "1 duplicate(s)" in first.stdout
    bad = subprocess.run([*cmd, "--engine", "spark"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--engine" in bad.stderr
