"""Where OpenCode's sessions are found: from its data folder, its storage folder, a project's
folder, one session's file or a home folder; the files of a session (messages, parts, its
subagents' sessions, its state) are its parts, never sessions or unrecognised logs of their
own; `forsy sweep` looks where OpenCode writes (`XDG_DATA_HOME`); the OpenCode source takes no
other agent's file and no other source takes OpenCode's."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from _opencode_store import Store, call, text
from _paths import REAL_LOGS, SAMPLES
from forsy.config import default_log_roots
from forsy.errors import ForsyError
from forsy.sources import available, detect, load, read_head
from forsy.sources.opencode import _layout
from forsy.sources.walk import discover_tree
from forsy.store import TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep
from test_sources_opencode_db import SCHEMA

MAIN, CHILD = "ses_main0001", "ses_child001"


def _tree(tmp: Path) -> Store:
    """A data folder (`opencode/`) with its storage: a session, its subagent's, another
    project's session, the project's and the session's state, and the files OpenCode keeps
    beside its storage (credentials, its own log)."""
    data = tmp / "opencode"
    st = Store(data)
    u = st.user(MAIN, 1, text("Fix it."))
    st.assistant(MAIN, 2, call("task", "call_t", {"description": "d", "prompt": "Look.", "subagent_type": "explore"},
                               3, output="done", metadata={"sessionId": CHILD}), parent=u)
    st.session(MAIN)
    st.session(CHILD, parent=MAIN)
    c = st.user(CHILD, 4, text("Look."))
    st.assistant(CHILD, 5, text("Seen.", 5), parent=c)
    other = Store(data, project="global")
    o = other.user("ses_other001", 9, text("Hello."), mid="msg_900001")
    other.assistant("ses_other001", 10, text("Hi.", 10), parent=o, mid="msg_900002")
    other.session("ses_other001")
    st.write(f"project/{st.project}.json", {"id": st.project, "worktree": "/w", "vcs": "git", "time": {"created": 1}})
    st.write(f"session_diff/{MAIN}.json", [])
    st.write(f"todo/{MAIN}.json", [])
    (data / "auth.json").write_text('{"anthropic": {"type": "api", "key": "not-a-real-key"}}')
    # 1.2's database as OpenCode makes it on starting, before any session is in it
    con = sqlite3.connect(data / "opencode.db")
    con.executescript(SCHEMA)
    con.close()
    (data / "log").mkdir()
    (data / "log" / "2026-01-14T090000.log").write_text("INFO service=server\n")
    return st


def _names(paths: list[Path]) -> list[str]:
    return sorted(p.stem for p in paths)


def test_discover_finds_the_main_sessions_from_any_of_its_folders(tmp_path: Path) -> None:
    st = _tree(tmp_path)
    src = load("opencode")
    project = st.storage / "session" / st.project
    # and, from any of them, the database beside the storage (`test_sources_opencode_db`)
    for given in (tmp_path / "opencode", st.storage, st.storage / "session", st.storage / "message"):
        assert _names(src.discover(given)) == ["opencode", MAIN, "ses_other001"], given
    assert _names(src.discover(project)) == ["opencode", MAIN]  # a project's folder: its sessions
    assert _names(src.discover(project / f"{MAIN}.json")) == [MAIN]
    assert src.discover(st.storage / "part") != [] and src.discover(tmp_path) == []
    home = tmp_path / "home"
    (home / ".local" / "share").mkdir(parents=True)
    (tmp_path / "opencode").rename(home / ".local" / "share" / "opencode")
    assert _names(src.discover(home)) == ["opencode", MAIN, "ses_other001"]  # a home folder: where OpenCode writes


def test_a_sessions_files_belong_to_it(tmp_path: Path) -> None:
    st = _tree(tmp_path)
    top = st.storage / "session" / st.project / f"{MAIN}.json"
    child = top.parent / f"{CHILD}.json"
    part = next((st.storage / "part").glob("*/*.json"))
    child_part = next(p for p in (st.storage / "part").rglob("*.json") if CHILD in p.read_text())
    for f in (child, part, child_part, *(st.storage / "message" / MAIN).glob("*.json"),
              st.storage / "session_diff" / f"{MAIN}.json", st.storage / "todo" / f"{MAIN}.json",
              st.storage / "project" / f"{st.project}.json"):
        assert _layout.session_of(f) == top, f
    assert _layout.session_of(top) is None
    assert _layout.session_of(tmp_path / "opencode" / "auth.json") is None


def test_the_walk_reads_each_main_session_once_and_reports_no_part(tmp_path: Path) -> None:
    st = _tree(tmp_path)
    for root in (st.storage, tmp_path / "opencode" / "storage" / "session"):
        found = discover_tree(root, available())
        # and the database beside the storage, which holds what OpenCode 1.2 writes
        assert sorted(p.stem for s, p in found.found if s.name == "opencode") == ["opencode", MAIN, "ses_other001"]
        assert found.unrecognised == [] and found.not_searched == []
    # the data folder holds the database and, beside it, OpenCode's credentials: the agent's file
    # beside a session found (sources.walk), neither read nor reported
    found = discover_tree(tmp_path / "opencode", available())
    assert [p.name for s, p in found.found] == ["opencode.db", f"{MAIN}.json", "ses_other001.json"]
    assert found.unrecognised == []


def test_sweep_looks_where_opencode_writes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    roots = default_log_roots(home, {})
    assert home / ".local" / "share" / "opencode" / "storage" in roots
    assert Path("/data/x/opencode/storage") in default_log_roots(home, {"XDG_DATA_HOME": "/data/x"})
    blank = default_log_roots(home, {"XDG_DATA_HOME": "  "})  # a variable set but blank is unset
    assert not any("opencode" in str(r) and not r.is_relative_to(home) for r in blank)


def test_a_sweep_traces_a_session_and_sees_it_grow(tmp_path: Path) -> None:
    st = _tree(tmp_path)
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        opts = SweepOptions(roots=[st.storage], ignore_settle=True, claude_home=tmp_path / "no-claude")
        first = sweep(store, opts)
        assert first.counts.failed == 0, first.failures
        assert (first.counts.new, first.counts.traced) == (3, 2)  # the database beside: no session yet
        assert {r.source_kind for r in store.traces(TraceQuery(limit=10))} == {"opencode"}
        # the session goes on: a new message and its parts (a new folder) change its session
        u = st.user(MAIN, 20, text("And the tests?"))
        st.assistant(MAIN, 21, text("They pass.", 21), parent=u, finish="stop")
        second = sweep(store, opts)
        assert second.counts.failed == 0 and second.counts.traced == 1 and second.counts.unchanged == 1
    finally:
        store.close()


def _logs() -> list[Path]:
    roots = [SAMPLES, REAL_LOGS]
    return sorted(p for r in roots if r.is_dir() for p in r.rglob("*") if p.is_file())


@pytest.mark.parametrize("path", _logs(), ids=lambda p: p.name[:40])
def test_the_opencode_source_takes_only_opencodes_session_files(path: Path) -> None:
    """Every sample and real log: only OpenCode's session info files are OpenCode's, and the
    files of its storage are no other source's."""
    head = read_head(path)
    ours = path.is_relative_to(SAMPLES / "opencode" / "storage" / "session")
    assert load("opencode").sniff(path, head) == ours
    if path.is_relative_to(SAMPLES / "opencode" / "storage"):
        try:
            got = detect(path).name
        except ForsyError:
            got = None
        assert got == ("opencode" if ours else None)
