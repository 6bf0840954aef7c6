"""One sweep run (`forsy.sweep.run`) in process, beside test_sweep_run_promises.py and
test_sweep_run_edges.py: what a run that ends well reports and records (its store and roots,
how long it ran, when it finished, the run that met each fault), links it names, a folder it
cannot list that hides no session, a history alone and a git repository whose fault is cleared,
a compressed session's remembered state, the sweep's options reaching each trace, a root whose
name ends in a space, and auto jobs. Hand-built trees, hand-computed expectations."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import zstandard

import forsy.run as forsy_run
import forsy.sweep.run as sweep_mod
from _paths import SAMPLES
from forsy.errors import InputError
from forsy.run import RetraceOptions, Timeline
from forsy.store import Store, open_store
from forsy.sweep import SweepOptions, SweepReport, sweep
from forsy.sweep._files import HEAD_BLOCK, LINK, NOT_A_FILE
from forsy.sweep.run import _TestHold, iso

T = 2_000_000_000.0
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
OTHER = SAMPLES / "claude" / "compaction-and-branches.jsonl"
CODEX = SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
SUB = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"


def tree(r: Path) -> Path:
    """r/p/a.jsonl and r/p/b.jsonl (two sample Claude sessions), a day old."""
    (r / "p").mkdir(parents=True)
    shutil.copy(DEMO, r / "p" / "a.jsonl")
    shutil.copy(OTHER, r / "p" / "b.jsonl")
    for f in (r / "p").iterdir():
        os.utime(f, (T - 86400, T - 86400))
    return r


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tree(tmp_path / "logs")



def swp(store: Store, *roots: Path | str, **kw: Any) -> SweepReport:
    kw.setdefault("now", lambda: T)
    return sweep(store, SweepOptions(roots=list(roots), ignore_settle=True, claude_home=Path("/nonexistent"), **kw))


def test_a_done_run_reports_its_store_roots_duration_and_finish_time(root: Path, store: Store) -> None:
    calls = itertools.count()
    rep = swp(store, f"{root}/p/..", now=lambda: T if next(calls) < 2 else T + 7)  # the lock, the run; its end
    assert (rep.store, rep.roots, rep.run_id, rep.counts.traced) == (store.url, [str(root)], 1, 2)
    [run] = store.runs()
    assert (run.status, run.started_at, run.finished_at, run.roots) == ("done", iso(T), iso(T + 7), [str(root)])
    assert rep.duration_s is not None and 0 < rep.duration_s < 600 and run.duration_s == rep.duration_s


def test_a_fault_names_the_run_that_met_it(root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    real = sweep_mod.walk

    def walk(r: str, blocked: dict[str, str], links: list[tuple[str, str]]) -> Any:
        found = real(r, blocked, links)
        blocked[str(root / "q")] = "cannot list this folder: permission denied"
        return found

    monkeypatch.setattr(sweep_mod, "walk", walk)
    swp(store, root)
    rep = swp(store, root, now=lambda: T + 5)
    [f] = rep.faults
    assert (f.path, f.first_run, f.first_at, f.last_run, f.last_at, f.runs) == (
        str(root / "q"), 1, iso(T), 2, iso(T + 5), 2)


def test_links_to_folders_and_to_nothing_are_named_left_out(root: Path, store: Store, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (root / "p" / "to-folder").symlink_to(tmp_path / "elsewhere")
    (root / "p" / "gone.jsonl").symlink_to(tmp_path / "nothing.jsonl")
    os.mkfifo(root / "p" / "pipe.jsonl")  # opened, it would block the sweep
    rep = swp(store, root)
    assert rep.left_out == [(str(root / "p" / "gone.jsonl"), LINK), (str(root / "p" / "pipe.jsonl"), NOT_A_FILE),
                            (str(root / "p" / "to-folder"), LINK)]
    assert rep.counts.traced == 2


def test_a_folder_that_cannot_be_listed_hides_its_sessions_without_calling_them_gone(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "q").mkdir()
    shutil.copy(DEMO, root / "q" / "c.jsonl")
    os.utime(root / "q" / "c.jsonl", (T - 86400, T - 86400))
    assert swp(store, root).counts.traced == 3
    real = sweep_mod.walk

    def walk(r: str, blocked: dict[str, str], links: list[tuple[str, str]]) -> Any:
        found = {p: st for p, st in real(r, blocked, links).items() if not p.startswith(str(root / "q") + os.sep)}
        blocked[str(root / "q")] = "cannot list this folder: permission denied"
        return found

    monkeypatch.setattr(sweep_mod, "walk", walk)
    rep = swp(store, root)
    assert (rep.counts.gone, rep.counts.seen, rep.counts.unchanged) == (0, 2, 2)
    assert store.file_states([str(root)])[str(root / "q" / "c.jsonl")].status == "ok"


def test_a_history_alone_is_read_and_a_repositorys_fault_is_cleared_when_it_reads(
        root: Path, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hist, repo = tmp_path / "h", tmp_path / "repo"
    asked: list[tuple[list[Path], Path | None]] = []
    broken = {repo}

    def inputs(opts: RetraceOptions) -> Timeline:
        asked.append((list(opts.history), opts.git))
        if opts.git in broken:
            raise PermissionError(13, "Permission denied", str(opts.git))
        return Timeline([], [])

    monkeypatch.setattr(forsy_run, "timeline_inputs", inputs)
    assert swp(store, root, retrace=RetraceOptions(history=[hist])).counts.traced == 2
    assert asked == [([hist], None)]  # a history without a repository is read too
    (root / "p" / "c.jsonl").write_bytes(DEMO.read_bytes())
    os.utime(root / "p" / "c.jsonl", (T - 86400, T - 86400))
    first = swp(store, root, retrace=RetraceOptions(git=repo))
    assert asked[1:] == [([], repo)] and [f.path for f in first.faults] == [str(repo)]
    assert [f.path for f in store.faults()] == [str(repo)]
    broken.clear()
    again = swp(store, root, retrace=RetraceOptions(git=repo))
    assert again.faults == [] and store.faults() == []  # the repository's own fault, cleared by its sweep


def test_a_compressed_session_is_remembered_by_its_size_without_a_fingerprint(tmp_path: Path, store: Store) -> None:
    day = tmp_path / "logs" / "2025" / "11" / "20"
    day.mkdir(parents=True)
    z = day / (CODEX.name + ".zst")
    z.write_bytes(zstandard.ZstdCompressor().compress(CODEX.read_bytes()))
    os.utime(z, (T - 86400, T - 86400))
    rep = swp(store, tmp_path / "logs")
    assert (rep.counts.traced, rep.counts.failed) == (1, 0)
    st = store.file_states([str(tmp_path / "logs")])[str(z)]
    size = z.stat().st_size
    assert (st.status, st.size, st.head_sha256, st.tail_sha256, st.tail_offset, st.read_to) == (
        "ok", size, "", None, 0, size)
    assert swp(store, tmp_path / "logs").counts.unchanged == 1


def test_each_file_with_no_work_is_counted_skipped(root: Path, store: Store) -> None:
    (root / "p" / "c.jsonl").write_bytes(b"")
    (root / "p" / "d.jsonl").write_bytes(b"")
    rep = swp(store, root)
    assert (rep.counts.traced, rep.counts.skipped, rep.counts.seen) == (2, 2, 4)
    # each named with why, in the report and its JSON: read once, then not again until it changes
    why = "the log holds no work (no messages, calls or commands)"
    assert rep.no_work == [(str(root / "p" / "c.jsonl"), why), (str(root / "p" / "d.jsonl"), why)]
    assert rep.to_json()["no_work_files"] == [{"path": p, "reason": r} for p, r in rep.no_work]
    again = swp(store, root, now=lambda: T + 60)
    assert (again.counts.unchanged, again.counts.skipped, again.no_work) == (4, 0, [])


def test_an_input_error_mid_run_marks_it_failed_with_its_own_words(root: Path, store: Store,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def overlap(*a: Any, **k: Any) -> Any:
        raise InputError("two roots hold the same folder")

    monkeypatch.setattr(sweep_mod, "plan_units", overlap)
    with pytest.raises(InputError):
        swp(store, root)
    [run] = store.runs()
    assert (run.status, run.failure) == ("failed", "two roots hold the same folder")


def test_the_hold_without_a_mark_writes_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_SWEEP_TEST_HOLD", "2:committed")
    monkeypatch.delenv("FORSY_SWEEP_TEST_MARK", raising=False)
    assert _TestHold.from_env() == _TestHold(2, "committed", "")


def test_the_sweeps_options_reach_each_trace(root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    got: list[object] = []
    real = forsy_run.retrace_one

    def retrace_one(path: Any, options: Any, **k: Any) -> Any:
        got.append(options)
        return real(path, options, **k)

    monkeypatch.setattr(forsy_run, "retrace_one", retrace_one)
    opts = RetraceOptions(redact=False)
    assert swp(store, root, retrace=opts).counts.traced == 2
    assert got == [opts, opts] and got[0] is opts


def test_a_root_whose_name_ends_in_a_space_is_searched_with_its_members(tmp_path: Path, store: Store) -> None:
    r = tmp_path / "logs "
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB}.jsonl", r / "p" / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, r / "p" / SUB)
    rep = swp(store, r)
    assert (rep.counts.new, rep.counts.traced) == (1, 1)
    member = next((r / "p" / SUB).rglob("*.jsonl"))
    assert store.file_states([str(r)])[str(member)].status == "member"
    # bytes read: the session's fingerprint (to look, to remember), its bytes and its member's
    # (traced), the member's fingerprint (to remember); a fingerprint of a file under 64 KiB
    # reads its first block, then the whole file back
    main, sub = (r / "p" / f"{SUB}.jsonl").stat().st_size, member.stat().st_size
    assert rep.counts.bytes_read == 2 * (HEAD_BLOCK + main) + main + sub + (HEAD_BLOCK + sub)


def test_auto_jobs_on_a_small_tree_sweep_in_this_process(root: Path, store: Store) -> None:
    rep = swp(store, root, retrace=RetraceOptions(jobs=0))
    assert (rep.counts.new, rep.counts.traced, rep.counts.failed) == (2, 2, 0)


def test_a_parallel_sweep_remembers_a_sessions_members_as_a_serial_one(tmp_path: Path) -> None:
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB}.jsonl", r / "p" / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, r / "p" / SUB)
    shutil.copy(DEMO, r / "p" / "a.jsonl")
    one = open_store(f"sqlite:///{tmp_path / 'one.db'}")
    two = open_store(f"sqlite:///{tmp_path / 'two.db'}")
    try:
        serial = swp(one, r)
        both = swp(two, r, retrace=RetraceOptions(jobs=2))
        member = str(next((r / "p" / SUB).rglob("*.jsonl")))
        assert (both.counts.traced, both.counts.bytes_read) == (2, serial.counts.bytes_read)
        states = two.file_states([str(r)])
        assert states == one.file_states([str(r)]) and states[member].status == "member"
    finally:
        one.close()
        two.close()


def test_a_file_ending_in_a_partial_line_is_remembered_up_to_its_last_newline(root: Path, store: Store) -> None:
    notes = root / "p" / "notes.json"  # no session claims it: remembered as ignored, fingerprint and all
    notes.write_bytes(b'{"a": 1}\n{"b"')
    swp(store, root)
    st = store.file_states([str(root)])[str(notes)]
    assert (st.status, st.size, st.tail_offset, st.read_to) == ("ignored", 13, 0, 9)


def test_a_copy_of_a_session_file_is_named_already_in_the_store(root: Path, store: Store) -> None:
    """Two names, one session (the same bytes): one draft, and the copy is named with the
    trace it read to and the file that trace was stored from, not counted silently."""
    shutil.copy(root / "p" / "a.jsonl", root / "p" / "c.jsonl")
    rep = swp(store, root)
    assert (rep.counts.new, rep.counts.traced, rep.counts.traces_written) == (3, 3, 2)
    [(path, tid, first)] = rep.already_stored
    assert (path, first) == (str(root / "p" / "c.jsonl"), str(root / "p" / "a.jsonl"))
    row = store.trace(tid)
    assert row is not None and row.unit_path == first
    assert rep.to_json()["already_stored"] == [{"path": path, "trace_id": tid, "stored_from": first}]
    # the file rewritten with the same bytes: read again, its own trace already there
    os.utime(root / "p" / "b.jsonl", (T - 10, T - 10))
    again = swp(store, root, now=lambda: T + 5)
    b = str(root / "p" / "b.jsonl")
    assert (again.counts.rewritten, again.counts.traces_written) == (1, 0)
    assert [(p, f) for p, _, f in again.already_stored] == [(b, b)]


def test_the_sweep_summary_says_a_copy_made_no_new_draft(root: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from forsy.cli import app

    shutil.copy(root / "p" / "a.jsonl", root / "p" / "c.jsonl")
    res = CliRunner().invoke(app, ["sweep", str(root), "--store", f"sqlite:///{tmp_path / 'cli.db'}", "--now",
                                   "--settle", "0"])
    assert res.exit_code == 0, res.output
    assert "1 already in the store; 2 draft(s) written" in res.stdout
    assert (f"forsy: already in the store: {root / 'p' / 'c.jsonl'}: the same trace as "
            in res.stderr) and f"(stored from {root / 'p' / 'a.jsonl'}); no new draft" in res.stderr
