"""A directory retraced (or swept) with several processes gives what one process gives, byte
for byte: the same folders and files, the same outcomes in the same order, the same printed
lines and exit codes, the same store rows ("results merged in a fixed order so
output stays byte-identical to a serial run"; the first sweep on both cores).

A session whose worker raises, or whose worker process dies, fails alone: the run goes on.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import REAL_LOGS, SAMPLES
from forsy import run as forsy_run
from forsy.cli import app
from forsy.errors import ExitCode
from forsy.run import Outcome, ProgressEvent, RetraceOptions, RetraceRun, parallel
from forsy.run import options as run_options
from forsy.sinks import FolderSink
from forsy.store import open_store
from forsy.sweep import SweepOptions, SweepReport, sweep
from forsy.validation import Report, validate_path

runner = CliRunner()
BROKEN = "zz-broken.jsonl"
# real logs, small enough for a quick test (claude projects, a subagent session, codex rollouts)
REAL = [
    "claude/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project",
    "claude/marot__spotter/test/fixtures/transcripts/short.jsonl",
    "claude/marot__spotter/test/fixtures/transcripts/tool_heavy.jsonl",
    "claude/kfischer-okarin__scripts-and-tools/src/claude-history/test/fixtures/claude-projects/-Users-user-project",
    "codex/codemie-ai__codemie-code/tests/integration/metrics/fixtures/codex/sessions",
    "codex/madshn__localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions",
]


def build_dir(root: Path) -> Path:
    """Varied sessions in one tree: the samples (a subagent session, codex rollouts), a log and
    its copy (one trace: the one that comes first is written, the other skipped), a log without work, a
    broken file, and real logs when ../shared is there. Claude Code's part is laid out as its
    `projects` folder, as forsy finds it in a home folder."""
    logs = root / "logs"
    proj = logs / "projects" / "-home-dev-proj"
    proj.mkdir(parents=True)
    for p in sorted((SAMPLES / "claude").glob("*.jsonl")):
        shutil.copy(p, proj / p.name)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", proj / "demo-session-copy.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents", logs / "projects" / "-home-dev-sub")
    shutil.copytree(SAMPLES / "codex" / "sessions", logs / "codex" / "sessions")
    (proj / "no-work.jsonl").write_text(json.dumps({"type": "summary", "summary": "nothing", "leafUuid": "x"}) + "\n")
    (proj / BROKEN).write_bytes(b"\x00\x01\x02 not json at all \xff\xfe\n" * 3)
    for i, rel in enumerate(REAL):
        src = REAL_LOGS / rel
        dest = logs / ("projects" if rel.startswith("claude/") else "codex") / f"real-{i:02d}"
        if src.is_dir():
            shutil.copytree(src, dest)
        elif src.is_file():
            dest.mkdir(parents=True)
            shutil.copy(src, dest / src.name)
    return logs


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dir(tmp_path_factory.mktemp("parallel"))


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _findings(report: Report | None) -> list[tuple[str, str, object]]:
    assert report is not None
    return [(f.rule, f.message, f.step) for f in [*report.errors, *report.warnings]]


def comparable(o: Outcome, out: Path) -> dict[str, object]:
    """An outcome as data, its folder relative to the run's output folder."""
    d = asdict(o)
    d.pop("assembled"), d.pop("session")
    d.pop("error")
    d.pop("checked")  # where the folder was validated; what it found is compared below
    d["error"] = None if o.error is None else (type(o.error).__name__, str(o.error), o.error.exit_code)
    d["where"] = None if o.where is None else Path(o.where).relative_to(out).as_posix()
    d["message"] = o.message.replace(str(out), "OUT")  # a copy's skip names the folder its trace went to
    return d


def retrace(logs: Path, out: Path, jobs: int) -> tuple[RetraceRun, list[ProgressEvent]]:
    events: list[ProgressEvent] = []
    run = forsy_run.retrace([logs], RetraceOptions(jobs=jobs), sink=FolderSink(out, parent=True), keep=False,
                           progress=events.append, raise_if_empty=False)
    return run, events


@dataclass
class Serial:
    run: RetraceRun
    events: list[ProgressEvent]
    out: Path


@pytest.fixture(scope="module")
def serial(logs: Path) -> Serial:
    """The directory retraced in one process, once for the tests that compare with it."""
    out = logs.parent / "serial" / "out"
    return Serial(*retrace(logs, out, jobs=1), out)


def test_a_directory_retraced_on_two_processes_is_byte_identical_to_one(logs: Path, serial: Serial,
                                                                        tmp_path: Path) -> None:
    one, ev1 = serial.run, serial.events
    two, ev2 = retrace(logs, tmp_path / "out", jobs=2)
    t1, t2 = tree(serial.out), tree(tmp_path / "out")
    assert sorted(t1) == sorted(t2)  # the same folder names, the same files
    assert [k for k in t1 if t1[k] != t2[k]] == []  # every file byte for byte
    assert [comparable(o, serial.out) for o in one.outcomes] == [comparable(o, tmp_path / "out") for o in two.outcomes]
    assert one.exit_code == two.exit_code == ExitCode.PARTIAL
    # the workers validated the files they rendered: the same findings as the written folder's
    written = [o for o in two.outcomes if o.status == "written"]
    assert written and all(o.checked is not None for o in written)
    assert [_findings(o.checked) for o in written] == [_findings(validate_path(Path(o.where))) for o in written]
    statuses = {o.status for o in one.outcomes}
    assert {"written", "skipped", "failed"} <= statuses and len(one.results) >= 5  # the samples alone: 5
    # a log and its copy are one trace: written once, in both runs from the same file, the other skipped
    copy = logs / "projects" / "-home-dev-proj" / "demo-session-copy.jsonl"  # sorts first: written
    same = [(Path(o.path).name, o.message.startswith(f"the same trace as {copy} ")) for o in two.skipped
            if "the same trace" in o.message]
    assert same == [("demo-session.jsonl", True)]
    assert any(o.path.endswith(BROKEN) for o in two.failed)
    # progress: each file starts and finishes in input order, and the byte counts add up the same way
    done1 = [(e.path, e.index, e.files, e.bytes_done, e.bytes_total) for e in ev1 if e.stage == "done"]
    done2 = [(e.path, e.index, e.files, e.bytes_done, e.bytes_total) for e in ev2 if e.stage == "done"]
    assert done1 == done2 and len(done1) == done1[0][2]
    assert [e.index for e in ev2] == sorted(e.index for e in ev2)
    assert {e.stage for e in ev2} >= {"reading", "writing", "done"}


def test_the_parent_writes_folders_the_workers_rendered(logs: Path, serial: Serial, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The one process every trace goes through writes bytes: it neither unpickles the models
    nor renders them (FolderSink.write would); the folders are the serial run's, byte for byte."""
    def refuse(*a: object) -> str:
        raise AssertionError("the parent rendered a trace")

    monkeypatch.setattr(FolderSink, "write", refuse)
    two, _ = retrace(logs, tmp_path / "out", jobs=2)
    t1, t2 = tree(serial.out), tree(tmp_path / "out")
    assert sorted(t1) == sorted(t2) and [k for k in t1 if t1[k] != t2[k]] == []
    assert not [o for o in two.failed if "rendered" in o.message]


def test_the_cli_prints_the_same_lines_and_exit_code_with_jobs_2(logs: Path, tmp_path: Path) -> None:
    res = {}
    for jobs in ("1", "2"):
        out = tmp_path / jobs / "traces"
        r = runner.invoke(app, ["retrace", str(logs), "-o", str(out), "--jobs", jobs])
        res[jobs] = (r.exit_code, r.stdout.replace(str(out), "OUT"), r.stderr.replace(str(out), "OUT"), tree(out))
    assert res["1"] == res["2"]
    assert res["2"][0] == ExitCode.PARTIAL and BROKEN in res["2"][2]


def test_keep_gives_the_same_traces_in_memory(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for p in sorted((SAMPLES / "claude").glob("*.jsonl")):
        shutil.copy(p, logs / p.name)
    runs = [forsy_run.retrace([logs], RetraceOptions(jobs=j), keep=True) for j in (1, 2)]
    a, b = ([(o.status, o.trace_id, o.assembled.trace.model_dump_json() if o.assembled else None,
              o.session.session_id if o.session else None, len(o.session.events) if o.session else 0)
             for o in r.outcomes] for r in runs)
    assert a == b and all(x[2] for x in a) and all(x[4] for x in a)


# --------------------------------------------------------------------------- faults in a worker

def _with_fault(monkeypatch: pytest.MonkeyPatch, kind: str, name: str) -> None:
    monkeypatch.setenv("FORSY_PARALLEL_TEST_FAULT", f"{kind}:{name}")  # read by the worker processes only


@pytest.mark.parametrize("kind", ["raise", "kill"])
def test_a_worker_that_raises_or_dies_fails_its_session_alone(logs: Path, serial: Serial, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    victim = "compaction-and-branches.jsonl"
    _with_fault(monkeypatch, kind, victim)
    faulty, _ = retrace(logs, tmp_path / "out", jobs=2)
    assert len(serial.run.outcomes) == len(faulty.outcomes)
    for s, f in zip(serial.run.outcomes, faulty.outcomes, strict=True):
        if Path(s.path).name == victim:
            assert f.status == "failed" and f.exit_code == ExitCode.INTERNAL and f.path == s.path
            assert ("RuntimeError" if kind == "raise" else "worker process") in f.message, f.message
        else:
            assert comparable(s, serial.out) == comparable(f, tmp_path / "out")
    assert faulty.exit_code == ExitCode.PARTIAL
    [lost] = [o for o in serial.run.outcomes if Path(o.path).name == victim]
    assert lost.where is not None
    gone = Path(lost.where).relative_to(serial.out).as_posix() + "/"
    assert {k: v for k, v in tree(serial.out).items() if not k.startswith(gone)} == tree(tmp_path / "out")


def test_at_most_a_few_sessions_are_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory stays bounded: the parent never has more than jobs + read-ahead files submitted
    and not yet handed to the sink, whatever the directory's size."""
    logs = tmp_path / "logs"
    logs.mkdir()
    demo = (SAMPLES / "claude" / "demo-session.jsonl").read_text()
    sid = "d99e6618-d709-41f9-91b5-6b444aebcc56"
    assert sid in demo
    for i in range(12):  # twelve sessions, not twelve copies of one (a copy is the same trace: written once)
        (logs / f"s{i:02d}.jsonl").write_text(demo.replace(sid, f"{sid[:-2]}{i:02d}"))
    outstanding: list[int] = []
    live = {"n": 0}
    submit, finish = parallel.SessionPool.submit, parallel.SessionPool.finish

    def counted_submit(self: parallel.SessionPool, *a: object, **kw: object) -> parallel.Pending:
        live["n"] += 1
        outstanding.append(live["n"])
        return submit(self, *a, **kw)  # type: ignore[arg-type]

    def counted_finish(self: parallel.SessionPool, *a: object, **kw: object) -> list[Outcome]:
        live["n"] -= 1
        return finish(self, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel.SessionPool, "submit", counted_submit)
    monkeypatch.setattr(parallel.SessionPool, "finish", counted_finish)
    run = forsy_run.retrace([logs], RetraceOptions(jobs=2), sink=FolderSink(tmp_path / "out", parent=True),
                           keep=False)
    assert len(run.results) == 12 and len(outstanding) == 12
    assert max(outstanding) <= 2 + parallel.READ_AHEAD


# --------------------------------------------------------------------------- sweep

def _rows(db: Path) -> Iterator[tuple[str, list[tuple[object, ...]]]]:
    with sqlite3.connect(db) as c:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                          "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for t in tables:
            if t in ("runs", "sweep_lock", "schema_migrations"):
                continue  # durations, pids, migration times
            try:  # in insertion order, which is the order the sweep stored them in
                yield t, list(c.execute(f"SELECT * FROM {t} ORDER BY rowid"))  # table names from the schema
            except sqlite3.OperationalError:  # a WITHOUT ROWID table: by its key
                yield t, sorted(c.execute(f"SELECT * FROM {t}"), key=repr)
        yield "runs", list(c.execute("SELECT status, roots, seen, unchanged, new, failed, traces_written FROM runs"))


def _sweep(logs: Path, db: Path, jobs: int) -> SweepReport:
    store = open_store(f"sqlite:///{db}")
    try:
        return sweep(store, SweepOptions(roots=[logs], retrace=RetraceOptions(jobs=jobs), ignore_settle=True,
                                         now=lambda: NOW, claude_home=logs / "no-claude-home"))
    finally:
        store.close()


NOW = 1_800_000_000.0


@pytest.fixture(scope="module")
def serial_store(logs: Path) -> tuple[Path, SweepReport]:
    """The directory swept in one process, once, for the tests that compare with it."""
    db = logs.parent / "serial.db"
    return db, _sweep(logs, db, 1)


def test_a_sweep_on_two_processes_stores_what_one_stores(logs: Path, serial_store: tuple[Path, SweepReport],
                                                         tmp_path: Path) -> None:
    db1, one = serial_store
    two = _sweep(logs, tmp_path / "two.db", 2)
    r1, r2 = dict(_rows(db1)), dict(_rows(tmp_path / "two.db"))
    assert sorted(r1) == sorted(r2)
    for table in r1:
        assert r1[table] == r2[table], table  # drafts, traces, their stored files, file states, errors, in order
    # the samples alone give 5 drafts (the demo session's copy is the same trace: stored once)
    assert len(r1["drafts"]) >= (6 if REAL_LOGS.is_dir() else 5) and len(r1["trace_files"]) > len(r1["drafts"])
    assert one.exit_code == two.exit_code == ExitCode.PARTIAL
    assert (vars(one.counts), one.failures, one.waiting, one.warnings) == \
           (vars(two.counts), two.failures, two.waiting, two.warnings)
    assert any(BROKEN in e.path for e in two.failures)
    # and a re-run of the parallel store finds nothing new: only the failing file is read again
    again = _sweep(logs, tmp_path / "two.db", 2)
    assert again.counts.unchanged == again.counts.seen - 1 and again.counts.traces_written == 0
    assert [e.path for e in again.failures] == [e.path for e in two.failures if BROKEN in e.path]


def _count_pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The jobs of every pool of worker processes started from now on."""
    pools: list[int] = []
    real = parallel.SessionPool.__init__

    def counted(self: parallel.SessionPool, options: RetraceOptions, jobs: int, *a: object) -> None:
        pools.append(jobs)
        real(self, options, jobs, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel.SessionPool, "__init__", counted)
    return pools


def test_cli_sweep_jobs_2_stores_what_one_process_stores(logs: Path, serial_store: tuple[Path, SweepReport],
                                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pools = _count_pools(monkeypatch)
    r = runner.invoke(app, ["sweep", str(logs), "--now", "--json", "--jobs", "2",
                            "--store", f"sqlite:///{tmp_path / 'cli.db'}"])
    assert pools == [2]
    d = json.loads(r.stdout)
    assert r.exit_code == d["exit_code"] == serial_store[1].exit_code == ExitCode.PARTIAL
    assert d["counts"] == vars(serial_store[1].counts)
    assert untimed(dict(_rows(tmp_path / "cli.db"))) == untimed(dict(_rows(serial_store[0])))


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")  # the sweep's clock (sweep.iso)


def untimed(tables: dict[str, list[tuple[object, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    """The rows with the sweep's own timestamps blanked (the CLI sweeps at the wall clock's time)."""
    return {t: [tuple("TIME" if isinstance(v, str) and _STAMP.fullmatch(v) else v for v in row) for row in rows]
            for t, rows in tables.items()}


def _workers_of(home: Path) -> list[int]:
    """Worker processes (and their resource tracker) started by a sweep run with HOME=home."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if b"multiprocessing" in (proc / "cmdline").read_bytes() and \
                    f"HOME={home}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_kill_9_mid_parallel_sweep_then_rerun(tmp_path: Path) -> None:
    """The crash test of tests/test_sweep.py with --jobs 2, killed inside the second file's
    transaction (the first committed, more in the workers): the killed transaction leaves
    nothing, the re-run does every file once, and no worker outlives its killed parent."""
    hold, done_before = "2:traced", 1
    from test_sweep import _spawn, _wait_for, build_tree, units
    from test_sweep import run as sweep_once

    tree = build_tree(tmp_path)
    shutil.rmtree(tree / "codex" / "sessions" / "2026")  # three claude session files
    shutil.rmtree(tree / "claude" / "-home-dev-projects-b")
    db, mark = tmp_path / "store.db", tmp_path / "held"
    child = _spawn(tree, db, hold, mark, ["--jobs", "2"])
    _wait_for(mark, child)
    home = tree.parent / "home"
    assert _workers_of(home), "the sweep ran in one process"
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 30  # generous: a worker notices within half a second
    while _workers_of(home) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers_of(home) == []
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        done = c.execute("SELECT status FROM source_files WHERE path = unit_path").fetchall()
        assert len(done) == done_before
        assert c.execute("SELECT count(*) FROM drafts").fetchone()[0] == done_before
    store = open_store(f"sqlite:///{db}")
    try:
        rep = sweep_once(store, tree)
        assert rep.counts.failed == 0 and rep.counts.new == 3 - done_before
        assert set(units(store).values()) == {"ok"} and len(units(store)) == 3
    finally:
        store.close()


def test_auto_jobs_count_the_bytes_beside_the_largest_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One large session with little beside it is traced in this process (a worker would add
    only its start-up); many sessions that add up are spread over the CPUs."""
    from forsy.run import AUTO_PARALLEL_BYTES, default_jobs, parallel_jobs

    auto = RetraceOptions(jobs=0)
    big = AUTO_PARALLEL_BYTES * 5
    assert parallel_jobs(auto, 3, big + 40_000, big) == 1
    assert parallel_jobs(auto, 200, 58_000_000, 3_160_000) == min(default_jobs(), 200)
    assert parallel_jobs(auto, 2, 2 * big, big) == min(default_jobs(), 2)  # two large ones
    assert parallel_jobs(auto, 3, big + AUTO_PARALLEL_BYTES - 1, big) == 1
    assert parallel_jobs(RetraceOptions(jobs=2), 3, big + 40_000, big) == 2  # asked for: given

    # both callers give the largest file: a tree of one padded session and two small ones
    monkeypatch.setattr(run_options, "AUTO_PARALLEL_BYTES", 200_000)
    logs = tmp_path / "logs" / "p"
    logs.mkdir(parents=True)
    demo = (SAMPLES / "claude" / "demo-session.jsonl").read_bytes()
    (logs / "big.jsonl").write_bytes(demo + b"\n" * 400_000)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", logs / "a.jsonl")
    pools = _count_pools(monkeypatch)
    forsy_run.retrace([logs], auto, keep=False, raise_if_empty=False)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        sweep(store, SweepOptions(roots=[logs.parent], retrace=auto, ignore_settle=True))
    finally:
        store.close()
    assert pools == []  # neither started workers
    (logs / "b.jsonl").write_bytes(demo + b"\n" * 300_000)  # now 300 KB beside the largest
    forsy_run.retrace([logs], auto, keep=False, raise_if_empty=False)
    assert pools == [min(default_jobs(), 3)]
