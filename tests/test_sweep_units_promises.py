"""Which sessions a sweep has to do (`plan_units`), on hand-built stats and remembered rows: one
change at a time against a session the store knows (its file, one of its other files, its
status), files gone or out of sight, a new subagent file of a known session, and what is left
for discovery. No log is read: the paths are names (the few that must exist are made)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forsy.store import FileState
from forsy.sweep._files import Stat
from forsy.sweep._units import Plan, Unit, plan_units

R = "/logs"
MAIN = f"{R}/p/s.jsonl"
SUB = f"{R}/p/s/subagents/agent-1.jsonl"


def st(ino: int, size: int = 10, mtime_ns: int = 1_000, dev: int = 7) -> Stat:
    return Stat(dev, ino, size, mtime_ns)


def row(path: str, unit: str, s: Stat, status: str = "ok", kind: str | None = "claude") -> FileState:
    return FileState(path, unit, kind if unit else None, s.dev, s.ino, s.size, s.mtime_ns, "h", "t", 0, s.size,
                     status)  # type: ignore[arg-type]


class Discovery:
    """A stand-in for the sources' discovery: what it finds, and what it was asked."""

    def __init__(self, mains: dict[str, str] | None = None, problems: list[tuple[str, str]] | None = None) -> None:
        self.mains = mains or {}
        self.problems = problems or []
        self.asked: list[set[str]] = []

    def __call__(self, fresh: set[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
        self.asked.append(set(fresh))
        return self.mains, self.problems


def plan(on_disk: dict[str, Stat], known: dict[str, FileState], discover: Discovery | None = None,
         blocked: set[str] | None = None, roots: list[str] | None = None) -> Plan:
    return plan_units(on_disk, known, roots or [R], discover or Discovery(), blocked)


def known_session() -> tuple[dict[str, Stat], dict[str, FileState]]:
    on_disk = {MAIN: st(1), SUB: st(2, 20, 2_000)}
    return on_disk, {MAIN: row(MAIN, MAIN, on_disk[MAIN]), SUB: row(SUB, MAIN, on_disk[SUB])}


def test_a_session_as_remembered_is_unchanged_and_nothing_is_searched() -> None:
    on_disk, known = known_session()
    d = Discovery()
    p = plan(on_disk, known, d)
    assert p.units == [Unit(MAIN, "unchanged", [SUB], "claude")]
    assert (p.gone, p.unclaimed, d.asked) == ([], set(), [])


@pytest.mark.parametrize("now", [st(1, dev=8), st(9), st(1, 11), st(1, mtime_ns=1_001)],
                         ids=["device", "inode", "size", "mtime"])
@pytest.mark.parametrize("which", [MAIN, SUB])
def test_any_stat_field_of_any_file_of_a_session_changes_it(now: Stat, which: str) -> None:
    on_disk, known = known_session()
    known[which] = row(which, MAIN, now)  # remembered other than it is
    p = plan(on_disk, known)
    assert p.units == [Unit(MAIN, "changed", [SUB], "claude")]
    assert (p.gone, p.unclaimed) == ([], set())


@pytest.mark.parametrize(("status", "change"), [("failed", "retried"), ("source_gone", "changed")])
def test_a_session_that_failed_or_was_gone_is_done_again_though_the_same(status: str, change: str) -> None:
    on_disk, known = known_session()
    known[MAIN] = row(MAIN, MAIN, on_disk[MAIN], status)
    assert plan(on_disk, known).units == [Unit(MAIN, change, [SUB], "claude")]  # type: ignore[arg-type]


@pytest.mark.parametrize("which", [MAIN, SUB])
def test_a_session_that_failed_and_changed_since_is_changed_not_retried(which: str) -> None:
    on_disk, known = known_session()
    known[MAIN] = row(MAIN, MAIN, on_disk[MAIN], "failed")
    on_disk[which] = st(1, 99)  # grew since
    assert plan(on_disk, known).units == [Unit(MAIN, "changed", [SUB], "claude")]


def test_a_session_that_failed_with_a_new_file_beside_it_is_changed_not_retried() -> None:
    on_disk, known = known_session()
    known[MAIN] = row(MAIN, MAIN, on_disk[MAIN], "failed")
    new = f"{R}/p/s/subagents/agent-9.jsonl"
    on_disk[new] = st(9)
    assert plan(on_disk, known).units == [Unit(MAIN, "changed", sorted([SUB, new]), "claude")]


def test_a_member_outside_the_walk_is_looked_at_on_disk(tmp_path: Path) -> None:
    outside = tmp_path / "tool-result.txt"
    outside.write_bytes(b"1234")
    o = os.stat(outside)
    s = Stat(o.st_dev, o.st_ino, o.st_size, o.st_mtime_ns)
    on_disk = {MAIN: st(1)}
    known = {MAIN: row(MAIN, MAIN, st(1)), str(outside): row(str(outside), MAIN, s)}
    assert plan(on_disk, known).units == [Unit(MAIN, "unchanged", [str(outside)], "claude")]
    outside.write_bytes(b"12345")
    assert plan(on_disk, known).units == [Unit(MAIN, "changed", [str(outside)], "claude")]
    outside.unlink()
    assert plan(on_disk, known).units == [Unit(MAIN, "changed", [str(outside)], "claude")]


def test_a_session_file_gone_takes_its_files_with_it_once() -> None:
    on_disk, known = known_session()
    other = f"{R}/p/s/subagents/agent-2.jsonl"
    known[other] = row(other, MAIN, st(3), "source_gone")  # already said gone: not again
    del on_disk[MAIN]
    p = plan(on_disk, known)
    assert p.units == []
    assert sorted(p.gone) == [MAIN, SUB]
    assert p.unclaimed == set()  # SUB is still claimed by its (gone) session: not searched


def test_ignored_files_gone_are_gone_once_and_changed_ones_searched_again() -> None:
    a, b, c = f"{R}/x/a.json", f"{R}/x/b.json", f"{R}/x/c.json"
    on_disk = {c: st(5, 6)}
    known = {a: row(a, "", st(3), "ignored"), b: row(b, "", st(4), "source_gone"), c: row(c, "", st(5), "ignored")}
    d = Discovery()
    p = plan(on_disk, known, d)
    assert (p.units, p.gone, p.unclaimed, d.asked) == ([], [a], {c}, [{c}])
    on_disk[c] = st(5)  # as remembered: not searched again
    d = Discovery()
    p = plan(on_disk, known, d)
    assert (p.units, p.gone, p.unclaimed, d.asked) == ([], [a], set(), [])


def test_rows_of_a_session_never_remembered_itself_are_searched_again() -> None:
    orphan = f"{R}/q/t/subagents/agent-9.jsonl"
    on_disk = {orphan: st(4)}
    known = {orphan: row(orphan, f"{R}/q/t.jsonl", st(4))}
    d = Discovery()
    p = plan(on_disk, known, d)
    assert (p.units, p.gone, p.unclaimed, d.asked) == ([], [], set(), [])  # as remembered: nothing to do
    on_disk[orphan] = st(4, 99)
    d = Discovery({f"{R}/q/t.jsonl": "claude"})
    p = plan(on_disk, known, d)
    assert d.asked == [{orphan}]
    assert p.units == [Unit(f"{R}/q/t.jsonl", "new", [], "claude")]
    assert p.unclaimed == {orphan}  # no session of the search's claims it by name


def test_a_new_file_in_a_known_sessions_folder_joins_that_session() -> None:
    on_disk, known = known_session()
    new = f"{R}/p/s/subagents/agent-0.jsonl"
    on_disk[new] = st(5)
    d = Discovery()
    p = plan(on_disk, known, d)
    assert p.units == [Unit(MAIN, "changed", [new, SUB], "claude")]
    assert (p.gone, p.unclaimed, d.asked) == ([], set(), [])
    known[MAIN] = row(MAIN, MAIN, st(1), "failed")  # changed already: stays changed, gains it
    assert plan(on_disk, known).units == [Unit(MAIN, "changed", [new, SUB], "claude")]


def test_a_new_file_beside_a_session_or_in_a_root_goes_to_discovery() -> None:
    on_disk, known = known_session()
    beside = f"{R}/p/t.jsonl"
    in_root = f"{R}/u.jsonl"
    stem_root = f"{R}/p/s/x.jsonl"  # in the session's folder, but that folder is a root itself
    on_disk.update({beside: st(5), in_root: st(6), stem_root: st(7)})
    d = Discovery({beside: "claude", in_root: "codex"}, [(stem_root, "cannot read: permission denied")])
    p = plan(on_disk, known, d, roots=[R, f"{R}/p/s"])
    assert d.asked == [{beside, in_root, stem_root}]
    assert p.units == [Unit(MAIN, "unchanged", [SUB], "claude"),
                       Unit(stem_root, "new", [], None, "cannot read: permission denied"),
                       Unit(beside, "new", [], "claude"), Unit(in_root, "new", [], "codex")]
    assert p.unclaimed == set()


def test_discovery_does_not_take_over_a_known_session_or_a_claimed_file() -> None:
    on_disk, known = known_session()
    fresh = f"{R}/z/new.jsonl"
    on_disk[fresh] = st(5)
    d = Discovery({MAIN: "codex", SUB: "codex", fresh: "gemini"}, [(MAIN, "odd"), (fresh, "odd")])
    p = plan(on_disk, known, d)
    assert p.units == [Unit(MAIN, "unchanged", [SUB], "claude"), Unit(fresh, "new", [], "gemini")]
    assert p.unclaimed == set()


def test_files_in_a_folder_out_of_sight_are_neither_gone_nor_changed() -> None:
    on_disk, known = known_session()
    hidden = f"{R}/p/s/subagents/deep/agent-3.jsonl"
    shown = f"{R}/p/s/subagentsX/agent-4.jsonl"  # a sibling whose name starts the same: not hidden
    known[hidden] = row(hidden, MAIN, st(3))
    known[shown] = row(shown, MAIN, st(4))
    p = plan(on_disk, known, blocked={f"{R}/p/s/subagents"})
    # SUB is on disk (listed before the folder failed): it stays; `hidden` is out of sight
    assert p.units == [Unit(MAIN, "changed", [SUB, shown], "claude")]
    assert p.gone == []
    del on_disk[MAIN]
    p = plan(on_disk, known, blocked={f"{R}/p"})
    # the session file itself out of sight: it and its files wait, SUB (in sight, as remembered) too
    assert (p.units, p.gone, p.unclaimed) == ([], [], set())
    p = plan(on_disk, known, blocked={"/elsewhere"})
    assert sorted(p.gone) == sorted([MAIN, SUB, hidden, shown])


def test_orphan_rows_do_not_hide_the_sessions_after_them() -> None:
    orphan = f"{R}/q/t/subagents/agent-9.jsonl"
    on_disk, rest = known_session()
    on_disk[orphan] = st(4)
    known = {orphan: row(orphan, f"{R}/q/t.jsonl", st(4)), **rest}  # the orphan's group comes first
    assert plan(on_disk, known).units == [Unit(MAIN, "unchanged", [SUB], "claude")]
