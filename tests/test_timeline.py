"""timeline.merge: agent calls, shell history and a real git repository on one timeline.

The git repository is built in a temp dir with an isolated HOME/config; no git command
runs in the project checkout.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import _gitrepo
from forsy.errors import InputError
from forsy.evidence import Event, Ref, Session, SessionMeta
from forsy.payloads import CallInfo, CommitInfo, HistoryMatch, Match, ShellInfo
from forsy.rules.timeline import merge, to_epoch
from forsy.sources import ReadContext
from forsy.sources.git import read_git
from forsy.sources.shell import ShellHistorySource

PROJECT = Path(__file__).resolve().parents[1]
T0 = datetime(2024, 3, 1, 10, 0, 0, tzinfo=UTC)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def epoch(minutes: float) -> int:
    return int((T0 + timedelta(minutes=minutes)).timestamp())


# --- building blocks -----------------------------------------------------------------------


class AgentLog:
    """An agent session written event by event, as a source would produce it."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, kind: str, minute: float | None, **kw: Any) -> Event:
        ts = at(minute) if minute is not None else None
        e = Event(kind, kw.pop("actor", "agent"), ts, [Ref(f"ev_agent{len(self.events)}", "")], **kw)  # type: ignore[arg-type]
        self.events.append(e)
        return e

    def call(self, cid: str, tool: str, args: Any, start: float, end: float | None) -> None:
        self.add("tool_call", start, call_id=cid, tool=tool, args=args)
        if end is not None:
            self.add("tool_result", end, call_id=cid, text="ok")

    def session(self) -> Session:
        return Session("claude_code", "s-agent", [], {}, self.events, SessionMeta(agent="claude-code"))


def zsh_history(tmp: Path, entries: list[tuple[float, str]]) -> Session:
    p = tmp / ".zsh_history"
    p.write_bytes(b"".join(b": %d:0;%s\n" % (epoch(m), c.encode()) for m, c in entries))
    (s,) = ShellHistorySource().read(p, ReadContext(root=tmp))
    return s


class Repo(_gitrepo.Repo):
    def commit(self, minute: float, msg: str, changes: dict[str, str]) -> None:  # type: ignore[override]
        for rel, text in changes.items():
            self.write(rel, text)
        when = f"@{epoch(minute)} +0000"
        self.git("add", "-A", when=when)
        self.git("commit", "-q", "-m", msg, when=when)


# --- the scenario --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("timeline")
    log = AgentLog()
    log.add("user", 0.0, actor="user", text="fix the parser")
    log.call("c1", "Bash", {"command": "pytest -q"}, 0.15, 0.25)
    log.call(
        "c2",
        "Edit",
        {"file_path": "/home/ada/demo/src/app.py", "old_string": "a", "new_string": "b"},
        1,
        1.02,
    )
    log.call("c3", "Bash", {"command": 'git add -A && git commit -m "Fix parser"'}, 2, 2.05)
    log.call("c4", "Write", {"file_path": "/home/ada/demo/docs/notes.md", "content": "x"}, 3, 3.02)
    log.call("c5", "Bash", {"command": "git status"}, 4, 4.02)
    log.call("c6", "Bash", {"command": "ls -la"}, 4.5, 4.52)
    log.add("agent_text", None, text="(no timestamp on this one)")
    log.call(
        "c7",
        "Edit",
        {"file_path": "/home/ada/demo/src/app.py", "old_string": "b", "new_string": "c"},
        6.5,
        6.52,
    )
    log.add("agent_text", 8, text="Done.")
    hist = zsh_history(
        tmp,
        [
            (-1, "cd ~/demo"),
            (0.17, "pytest   -q"),  # c1, whitespace differs
            (2.02, 'git add -A && git commit -m "Fix parser"'),  # c3
            (3.5, "vim docs/notes.md"),
            (4.5, "ls -l"),  # c6's time, but not its text: uncertain by score
            (4.7, "git status"),  # c5's text, 40 s after it: uncertain by time
            (6, "git commit -am 'human tweak'"),
            (60, "make deploy"),  # an hour later: outside the window
        ],
    )
    repo = Repo(tmp / "demo")
    repo.commit(-30, "Initial", {"src/app.py": "a\n", "README.md": "r\n"})
    repo.commit(2.034, "Fix parser", {"src/app.py": "b\n"})
    repo.commit(3.6, "Add notes", {"docs/notes.md": "x\n"})
    repo.commit(6.1, "human tweak", {"README.md": "r2\n"})
    repo.commit(7, "Big change", {"src/app.py": "c\n", "README.md": "r3\n", "docs/x.md": "y\n"})
    git = read_git(repo.path, since=None, until=None, ctx=ReadContext(root=repo.path))
    agent = log.session()
    merged = merge(agent, [hist], [git])
    return {"agent": agent, "hist": hist, "git": git, "merged": merged}


def calls(s: Session) -> dict[str, Event]:
    return {e.call_id or "": e for e in s.events if e.kind == "tool_call"}


def commands(s: Session) -> dict[str, Event]:
    return {e.text or "": e for e in s.events if e.kind == "shell_command"}


def commits(s: Session) -> dict[str, Event]:
    return {e.text or "": e for e in s.events if e.kind == "commit"}


def hist_of(e: Event) -> HistoryMatch | None:
    return e.info.shell_history if isinstance(e.info, CallInfo) else None


def possible(e: Event) -> Match | None:
    return e.info.possible_match if isinstance(e.info, ShellInfo | CommitInfo) else None


def commit(e: Event) -> CommitInfo:
    assert isinstance(e.info, CommitInfo)
    return e.info


def test_agent_commands_merge_into_their_calls(world: dict[str, Any]) -> None:
    m = world["merged"]
    c1 = calls(m)["c1"]
    sh = hist_of(c1)
    assert sh is not None and sh.match.rule == "command-text+time" and sh.match.score == 1.0
    assert sh.match.dt_s == 1.0  # zsh keeps whole seconds
    assert sh.exit_code is None and sh.duration_s == 0.0  # zsh records no exit code
    assert sh.record is not None
    ev = m.evidence[sh.record]
    assert ev.source == ".zsh_history" and ev.line == 2
    assert c1.refs == world["agent"].events[1].refs  # refs still say where the call was copied from
    assert (h3 := hist_of(calls(m)["c3"])) is not None and h3.match.score == 1.0
    assert "pytest   -q" not in commands(m) and 'git add -A && git commit -m "Fix parser"' not in commands(m)
    assert hist_of(world["agent"].events[1]) is None  # the input session is untouched


def test_human_commands_stay_human(world: dict[str, Any]) -> None:
    cmds = commands(world["merged"])
    for text in ("cd ~/demo", "vim docs/notes.md", "git commit -am 'human tweak'"):
        assert cmds[text].actor == "human:shell" and possible(cmds[text]) is None
    assert "make deploy" not in cmds  # an hour after the session: outside the window


def test_uncertain_matches_are_recorded_not_merged(world: dict[str, Any]) -> None:
    m = world["merged"]
    cmds = commands(m)
    by_score = possible(cmds["ls -l"])
    assert by_score is not None and by_score.call_id == "c6" and 0.8 <= by_score.score < 0.95
    by_time = possible(cmds["git status"])
    assert by_time is not None and by_time.call_id == "c5" and by_time.score == 1.0
    assert by_time.dt_s == pytest.approx(42)
    assert hist_of(calls(m)["c5"]) is None and hist_of(calls(m)["c6"]) is None
    big = commits(m)["Big change"]
    assert big.actor == "human:git" and commit(big).matched_call_id is None
    big_possible = possible(big)
    assert big_possible is not None and big_possible.call_id == "c7" and big_possible.files == ("src/app.py",)
    assert m.quality.extra["uncertain_matches"] == 3


def test_commits_attributed_to_the_calls_that_made_them(world: dict[str, Any]) -> None:
    cs = commits(world["merged"])
    fix = cs["Fix parser"]
    assert fix.actor == "agent" and commit(fix).matched_call_id == "c3"
    assert commit(fix).match == Match("shell-git-commit+time", 1.0, files=("src/app.py",))
    notes = cs["Add notes"]
    assert notes.actor == "agent" and commit(notes).matched_call_id == "c4"
    nm = commit(notes).match
    assert nm is not None and nm.rule == "edits-before-commit" and nm.score == 0.5
    assert nm.files == ("docs/notes.md",)
    tweak = cs["human tweak"]
    assert tweak.actor == "human:git" and commit(tweak).match is None and possible(tweak) is None
    assert "Initial" not in cs  # half an hour before the session
    assert all(e.actor == "human:git" for e in world["git"].events)  # input untouched


def test_order_is_by_time_and_keeps_the_agent_order(world: dict[str, Any]) -> None:
    m, agent = world["merged"], world["agent"]
    kept = [e for e in m.events if e.kind not in ("shell_command", "commit")]
    assert [(e.kind, e.call_id, e.text) for e in kept] == [(e.kind, e.call_id, e.text) for e in agent.events]
    times = [t for t in (to_epoch(e.ts) for e in m.events) if t is not None]
    assert times == sorted(times)
    texts = [e.text if e.kind != "tool_call" else e.call_id for e in m.events if e.kind != "tool_result"]
    assert texts.index("cd ~/demo") < texts.index("fix the parser")
    assert texts.index("c3") < texts.index("Fix parser") < texts.index("c4")
    assert texts.index("Add notes") < texts.index("c5")
    # the untimed agent text stays right after its neighbour c6's result
    i = next(k for k, e in enumerate(m.events) if e.text == "(no timestamp on this one)")
    assert m.events[i - 1].kind == "tool_result" and m.events[i - 1].call_id == "c6"


def test_counts_evidence_and_session(world: dict[str, Any]) -> None:
    m = world["merged"]
    t = m.meta.extra["timeline"]
    assert (t["commands"], t["matched"], t["uncertain"]) == (7, 2, 2)
    assert (t["commits"], t["matched_commits"], t["uncertain_commits"], t["human_commits"]) == (4, 2, 1, 1)
    assert t["outside_window"] == 2 and t["window"]["rule"].startswith("agent-span")
    assert m.source_kind == "claude_code" and m.session_id == "s-agent" and m.meta.agent == "claude-code"
    for e in m.events:
        for r in e.refs:
            assert r.ev in m.evidence or r.ev.startswith("ev_agent")
    ids = {h.record for e in m.events if (h := hist_of(e)) is not None}
    assert ids <= set(m.evidence)
    assert {f.kind for f in m.files} == {"shell", "git"}


# --- smaller cases -------------------------------------------------------------------------


def test_each_command_matches_one_call_in_order(tmp_path: Path) -> None:
    log = AgentLog()
    log.call("a", "Bash", {"command": "make"}, 0, 0.1)
    log.call("b", "Bash", {"command": "make"}, 0.2, 0.3)
    log.call("c", "Bash", {"command": "make"}, 0.4, 0.5)
    hist = zsh_history(tmp_path, [(0.02, "make"), (0.22, "make")])
    m = merge(log.session(), [hist], [])
    got = {cid: h.record if (h := hist_of(e)) is not None else None for cid, e in calls(m).items()}
    assert got["a"] and got["b"] and got["a"] != got["b"] and got["c"] is None
    assert commands(m) == {}


def test_codex_shell_argv_matches_history(tmp_path: Path) -> None:
    log = AgentLog()
    log.call("x", "shell", {"command": ["bash", "-lc", "npm test"]}, 0, 0.2)
    log.call("y", "exec_command", {"cmd": "npm run lint"}, 1, None)
    log.add("agent_text", 1.1, text="next")
    hist = zsh_history(tmp_path, [(0.01, "npm test"), (1.02, "npm run lint")])
    m = merge(log.session(), [hist], [])
    hx, hy = hist_of(calls(m)["x"]), hist_of(calls(m)["y"])
    assert hx is not None and hx.match.score == 1.0
    assert hy is not None and hy.match.dt_s == 1.0


def test_no_agent_merges_history_and_git_in_time_order(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit(1, "one", {"a": "1\n"})
    repo.commit(3, "two", {"a": "2\n"})
    git = read_git(repo.path, since=None, until=None, ctx=ReadContext())
    hist = zsh_history(tmp_path, [(0, "vim a"), (2, "make"), (4, "ls")])
    m = merge(None, [hist], [git])
    assert [e.text for e in m.events] == ["vim a", "one", "make", "two", "ls"]
    assert all(e.actor in ("human:shell", "human:git") for e in m.events)
    assert m.source_kind == "shell" and m.meta.extra["timeline"]["window"]["rule"] == "none"
    w = merge(None, [hist], [git], window=(at(1.5), at(3.5)))
    assert [e.text for e in w.events] == ["make", "two"]
    assert w.meta.extra["timeline"]["outside_window"] == 3
    assert merge(None, [hist], [git], window=(None, None)).meta.extra["timeline"]["window"]["rule"] == "none"
    with pytest.raises(InputError, match="until"):
        merge(None, [hist], [git], window=(None, "tomorrow"))


def test_untimed_history_keeps_its_order_and_is_left_out_under_a_window(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_text("ls\npwd\n")
    (plain,) = ShellHistorySource().read(p, ReadContext(root=tmp_path))
    hist = zsh_history(tmp_path, [(0, "make")])
    m = merge(None, [plain, hist], [])
    assert [e.text for e in m.events] == ["ls", "pwd", "make"]
    log = AgentLog()
    log.add("user", 0, actor="user", text="hi")
    m = merge(log.session(), [plain, hist], [])
    assert [e.text for e in m.events] == ["hi", "make"]
    assert m.meta.extra["timeline"]["untimed_left_out"] == 2
