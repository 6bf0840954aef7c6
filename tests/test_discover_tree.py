"""`forsy retrace DIR` on a folder of collected logs: every session at any depth is found by
its source's own rules, each read once, and what is not read is said (sources/walk.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.run import NOT_READ, RetraceOptions, discover, retrace
from forsy.sources import available, walk

SUB = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"


def collected(tmp_path: Path) -> Path:
    """An archive of several agents' logs, each deeper than its agent keeps them."""
    root = tmp_path / "archive"
    deep = root / "team" / "alice" / "2026" / "claude-sessions"
    deep.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", deep / "demo-session.jsonl")
    # a session with its subagent: the subagent file is part of it, not a session of its own
    sess = root / "team" / "bob" / "export"
    sess.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB}.jsonl", sess / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, sess / SUB)
    shutil.copytree(SAMPLES / "codex" / "sessions", root / "team" / "carol" / "codex")
    hist = root / "team" / "dave" / "shell"
    hist.mkdir(parents=True)
    shutil.copy(SAMPLES / "shell" / "extended.zsh_history", hist / ".zsh_history")
    # log-like files in no format forsy reads, and files that are not logs at all
    (root / "team" / "notes.json").write_text(json.dumps({"todo": ["x"]}))
    (root / "team" / "alice" / "junk.json").write_text("not json at all\n")
    (root / "team" / "README.md").write_text("# archive\n")
    # what a walk must not enter: hidden folders and dependencies
    for skip in (".git", "node_modules"):
        (root / "team" / "erin" / skip / "x").mkdir(parents=True)
        shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "team" / "erin" / skip / "x" / "s.jsonl")
    return root


def test_every_session_in_a_collected_tree_is_found_once(tmp_path: Path) -> None:
    root = collected(tmp_path)
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    got = sorted((src.name, str(p.relative_to(root))) for src, p in found)
    assert got == [
        ("claude_code", "team/alice/2026/claude-sessions/demo-session.jsonl"),
        ("claude_code", f"team/bob/export/{SUB}.jsonl"),
        # its subagent's rollout beside it is part of it (Codex reads the two together)
        ("codex", "team/carol/codex/2026/05/12/rollout-2026-05-12T09-00-00-019e2a10-0000-7000-8000-00000000aaaa.jsonl"),
        ("shell", "team/dave/shell/.zsh_history"),
    ]
    # the two log-like files nobody reads are said; the subagent file (its session's part),
    # the markdown and the skipped folders are not
    assert sorted((str(p.relative_to(root)), why) for p, why in unread) == [
        ("team/alice/junk.json", NOT_READ), ("team/notes.json", NOT_READ)]


def test_a_run_over_the_tree_reports_what_it_did_not_read(tmp_path: Path) -> None:
    root = collected(tmp_path)
    run = retrace([root], RetraceOptions(out=tmp_path / "out", redact=False))
    assert len(run.results) == 4
    not_read = sorted(Path(o.path).name for o in run.outcomes if o.status == "skipped" and o.message == NOT_READ)
    assert not_read == ["junk.json", "notes.json"]
    r = CliRunner().invoke(app, ["retrace", str(root), "-o", str(tmp_path / "out2"), "--no-redact"])
    assert r.exit_code == 0, r.output
    assert "4 written, 2 skipped (2 not a log format forsy reads)" in r.output


def test_a_tree_with_only_unknown_logs_says_how_many_it_saw(tmp_path: Path) -> None:
    (tmp_path / "d" / "x").mkdir(parents=True)
    (tmp_path / "d" / "x" / "a.json").write_text("not json at all\n")
    r = CliRunner().invoke(app, ["retrace", str(tmp_path / "d"), "-o", str(tmp_path / "out")])
    assert r.exit_code != 0
    assert "no session logs forsy reads were found" in r.output
    assert "1 file(s) that look like logs" in r.output


def test_the_depth_limit_is_reported_not_silent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "MAX_DEPTH", 1)
    root = tmp_path / "r"
    (root / "a").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "a" / "s.jsonl")
    deep = root / "b" / "c" / "d"
    deep.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", deep / "s.jsonl")
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p.relative_to(root) for _, p in found] == [Path("a/s.jsonl")]
    [(folder, why)] = unread
    assert folder == root / "b" / "c" and "deeper than 1 folders" in why


def test_a_home_folder_is_searched_only_where_agents_keep_logs(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    proj = home / ".claude" / "projects" / "-p"
    proj.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", proj / "s.jsonl")
    # a project folder in the home holding a copy: the home walk does not go there
    (home / "src" / "fixtures").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", home / "src" / "fixtures" / "s.jsonl")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    found = discover([home])
    assert [p for _, p in found] == [proj / "s.jsonl"]


def test_the_usual_layouts_find_what_they_found_before(tmp_path: Path) -> None:
    """~/.claude/projects-like and ~/.codex/sessions-like roots: the walk adds nothing and
    reports nothing (their sessions' folders are their agents')."""
    projects = tmp_path / "projects"
    p = projects / "-home-dev-a"
    p.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / f"subagents/{SUB}.jsonl", p / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, p / SUB)
    (p / SUB / "tool-results").mkdir()
    (p / SUB / "tool-results" / "x.json").write_text("{}")
    unread: list[tuple[Path, str]] = []
    assert [q for _, q in discover([projects], unread)] == [p / f"{SUB}.jsonl"]
    assert unread == []


def test_what_the_walk_cannot_enter_is_reported(tmp_path: Path) -> None:
    import os

    root = tmp_path / "r"
    (root / "ok").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "ok" / "s.jsonl")
    (root / "elsewhere").mkdir()
    (root / "link").symlink_to(root / "elsewhere")
    os.mkfifo(root / "pipe.jsonl")
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [root / "ok" / "s.jsonl"]
    assert sorted((p.name, why.split(":")[0]) for p, why in unread) == [("link", "not searched"),
                                                                       ("pipe.jsonl", "not read")]


def test_a_compressed_log_is_named_with_how_to_read_it(tmp_path: Path) -> None:
    """`session.jsonl.gz` beside the logs: not read (no source reads a compressed log but
    Codex's zstd rollouts), and named with its compression and the command that gives the log
    back; it was passed over without a word. A `.gz` whose name is no log's stays unmentioned."""
    import gzip

    root = tmp_path / "r"
    root.mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "s.jsonl")
    (root / "old.jsonl.gz").write_bytes(gzip.compress((SAMPLES / "claude" / "demo-session.jsonl").read_bytes()))
    (root / "not-gzip.json.gz").write_bytes(b"plain text")
    (root / "photos.tar.gz").write_bytes(gzip.compress(b"x"))
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [root / "s.jsonl"]
    assert sorted((p.name, why) for p, why in unread) == [
        ("not-gzip.json.gz", "not read: starts with 'plain text'"),
        ("old.jsonl.gz", "not read: gzip-compressed: decompress it first, e.g. gunzip -k FILE")]


def _locked(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """`folder` cannot be listed, as a folder of mode 000 is for a user who is not root (the
    tests run as root in CI); walks and globs list a folder with one of these two."""
    import os

    real_scandir, real_listdir = os.scandir, os.listdir

    def check(path: os.PathLike[str] | str) -> None:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))

    def scandir(path: os.PathLike[str] | str = ".") -> Iterator[os.DirEntry[str]]:
        check(path)
        return real_scandir(path)

    def listdir(path: os.PathLike[str] | str = ".") -> list[str]:
        check(path)
        return real_listdir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)


def test_a_folder_that_cannot_be_listed_is_one_skip_named_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the user may not read (left by `sudo`) made the sources that search below the
    named folder fail there and at the folder itself, so one folder was counted four times in
    two spellings; the walk names it once, and the rest is read."""

    root = tmp_path / "r"
    (root / "ok").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "ok" / "s.jsonl")
    (root / "locked").mkdir()
    (root / "locked" / "x.jsonl").write_text("{}\n")
    _locked(monkeypatch, root / "locked")
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [root / "ok" / "s.jsonl"]
    assert unread == [(root / "locked", "not searched: Permission denied")]


@pytest.mark.parametrize("home", [False, True])
def test_an_unreadable_project_under_a_hidden_agent_folder_hides_only_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: bool) -> None:
    """A tree (or a home folder) holding `.claude/projects` with one project folder the user may
    not list: Claude Code's layout failed there as a whole and the walk, which does not enter
    hidden folders, found nothing else, so every other project's sessions were left out of the
    run (a sweep traced none of them). The folder the layout failed in is searched one by one."""

    root = tmp_path / "r"
    projects = root / ".claude" / "projects"
    (projects / "-home-x-ok").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", projects / "-home-x-ok" / "s.jsonl")
    (projects / "-home-x-locked").mkdir()
    (projects / "-home-x-locked" / "x.jsonl").write_text("{}\n")
    locked = projects / "-home-x-locked"
    _locked(monkeypatch, locked)
    if home:
        monkeypatch.setenv("HOME", str(root))
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [projects / "-home-x-ok" / "s.jsonl"]
    assert unread == [(locked, "not searched: Permission denied")]


def test_what_cannot_be_read_beside_a_session_is_reported_too(tmp_path: Path) -> None:
    """Files beside a found session are taken as its parts (metadata, a subagent's file), so they
    were not reported; but a FIFO or a broken link named like a log is never a part, and was
    left out without a word."""
    import os

    root = tmp_path / "r"
    root.mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "s.jsonl")
    os.mkfifo(root / "pipe.jsonl")
    (root / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [root / "s.jsonl"]
    assert sorted((p.name, why) for p, why in unread) == [("gone.jsonl", "not read: a link to nothing"),
                                                          ("pipe.jsonl", "not read: not a regular file")]


def test_a_trace_folder_forsy_wrote_inside_the_tree_is_named_as_such(tmp_path: Path) -> None:
    """`forsy retrace logs -o logs/traces`, then `forsy retrace logs`: the trace folder's three
    JSON files were each 'not a log format forsy reads'; it is one folder of forsy's output."""
    root = tmp_path / "logs"
    root.mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", root / "s.jsonl")
    retrace([root], RetraceOptions(out=root / "traces"))
    [folder] = list((root / "traces").iterdir())
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [p for _, p in found] == [root / "s.jsonl"]
    assert unread == [(folder, "not searched: a trace folder forsy wrote (its output, not a log)")]


def test_a_session_no_layout_offers_is_read_by_the_source_that_sniffs_it(tmp_path: Path) -> None:
    """A Claude Code session saved as `logs/chat.json` and a Codex rollout renamed `run.jsonl`:
    no source's layout offers them, but each is its agent's log; the walk used to skip both
    without a word (neither found nor named as unrecognised)."""
    logs = tmp_path / "exported" / "logs"
    logs.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", logs / "chat.json")
    shutil.copy(next((SAMPLES / "codex").glob("rollout-*.jsonl")), logs / "run.jsonl")
    (logs / "notes.json").write_text(json.dumps({"todo": ["x"]}))
    found = walk.discover_tree(tmp_path, available())
    assert sorted((s.name, p.name) for s, p in found.found) == [("claude_code", "chat.json"), ("codex", "run.jsonl")]
    # Claude Code's layout offers a `.json` it reads (a transcript saved as an array or as lines, a
    # print-mode run): notes.json lies beside a session found, so it is taken for its agent's file
    assert found.unrecognised == []
    run = retrace([tmp_path], RetraceOptions(redact=False))
    assert sorted(Path(o.path).name for o in run.outcomes if o.status == "traced") == ["chat.json", "run.jsonl"]


def test_a_sessions_own_folder_walked_alone_holds_parts_not_sessions(tmp_path: Path) -> None:
    """`<id>/subagents/…` beside `<id>.jsonl`, given as a root of its own (a hook sweeps a session
    and its folder): the subagents' logs are sniffed as Claude Code's but are parts of `<id>`."""
    proj = tmp_path / "projects" / "-home-dev-app"
    proj.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB}.jsonl", proj / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, proj / SUB)
    inside = walk.discover_tree(proj / SUB, available())  # the folder names its session: that one only
    assert ([(s.name, p) for s, p in inside.found], inside.unrecognised) == (
        [("claude_code", proj / f"{SUB}.jsonl")], [])
    # the same files with no session beside their folder are sessions of their own
    alone = tmp_path / "loose"
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, alone)
    assert len(walk.discover_tree(alone, available()).found) == len(list(alone.rglob("*.jsonl"))) > 0


@pytest.mark.parametrize("home", [False, True])
def test_a_dated_codex_folder_that_cannot_be_listed_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: bool) -> None:
    """Codex's layout searched `.codex/sessions` with Python's own glob, which passes over a
    folder it may not list: a day folder left by `sudo` lost its rollouts without a word. The
    layout says what it could not list, and the run names it with what was found."""
    root = tmp_path / "r"
    sessions = root / ".codex" / "sessions" / "2026" / "05"
    shutil.copytree(SAMPLES / "codex" / "sessions" / "2026" / "05" / "12", sessions / "12")
    locked = sessions / "11"
    locked.mkdir()
    shutil.copy(next((sessions / "12").glob("rollout-*.jsonl")), locked / "rollout-2026-05-11T10-00-00-x.jsonl")
    _locked(monkeypatch, locked)
    if home:
        monkeypatch.setenv("HOME", str(root))
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert found and all(p.parent == sessions / "12" for _, p in found)
    assert unread == [(locked, "not searched: Permission denied")]


def test_a_folder_both_a_layout_and_the_walk_cannot_list_is_named_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Aider's layout walks the repositories below the named folder, as the walk does: a folder
    neither may list is one folder left out, named once."""
    root = tmp_path / "r"
    (root / "repo").mkdir(parents=True)
    (root / "repo" / ".aider.chat.history.md").write_text(
        "\n# aider chat started at 2026-05-11 10:00:00\n\n#### fix the test  \n\nDone.\n", encoding="utf-8")
    (root / "locked").mkdir()
    _locked(monkeypatch, root / "locked")
    unread: list[tuple[Path, str]] = []
    found = discover([root], unread)
    assert [(src.name, p) for src, p in found] == [("aider", root / "repo" / ".aider.chat.history.md")]
    assert unread == [(root / "locked", "not searched: Permission denied")]
