"""End to end: a Claude Code session, a zsh history and a real git repository on one timeline."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from forsy.verification import verify_folder

T0 = 1767261600  # 2026-01-01T10:00:00Z


def iso(sec: int) -> str:
    return f"2026-01-01T10:{sec // 60:02d}:{sec % 60:02d}.000Z"


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.org",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.org",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{T0 + when} +0000"
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("print('v1')\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "initial import", when=5)  # before the session: a human commit
    (repo / "app.py").write_text("print('v2')\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "bump to v2", when=31)  # made by the agent's Bash call at 0:30
    (repo / "notes.md").write_text("human notes\n")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "notes by hand", when=90)  # the human, after the session
    v2 = git(repo, "rev-parse", "--short=7", "HEAD~1")  # what `git commit` printed for the agent's commit

    def rec(i: int, kind: str, msg: dict[str, object], **extra: object) -> dict[str, object]:
        return {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None, "sessionId": "tl-1",
                "cwd": str(repo), "timestamp": iso(10 + i * 5), "message": msg, **extra}

    session = [
        rec(1, "user", {"role": "user", "content": "Bump the version to v2 and commit"}),
        rec(2, "assistant", {"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "Edit", "input": {
                "file_path": str(repo / "app.py"), "old_string": "v1", "new_string": "v2"}}]}),
        rec(3, "user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                                     "content": "The file app.py has been updated."}]}),
        rec(4, "assistant", {"id": "m4", "role": "assistant", "content": [
            {"type": "tool_use", "id": "c2", "name": "Bash", "input": {
                "command": "git commit -am 'bump to v2'"}}]}),
        rec(5, "user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2",
                                                     "content": f"[main {v2}] bump to v2"}]}),
        rec(6, "assistant", {"id": "m6", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    sess = logs / "tl-1.jsonl"
    sess.write_text("".join(json.dumps(r) + "\n" for r in session))
    hist = tmp_path / "hist" / ".zsh_history"
    hist.parent.mkdir()
    hist.write_bytes(f": {T0 + 29}:1;git commit -am 'bump to v2'\n: {T0 + 60}:0;ls -la\n".encode())
    return {"repo": repo, "session": sess, "history": hist}


def test_commits_and_commands_on_one_timeline(world: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "trace"
    retrace([world["session"]], RetraceOptions(out=out, redact=False, history=[world["history"]],
                                               git=world["repo"], since="2026-01-01T09:00:00Z",
                                               until="2026-01-01T11:00:00Z"))
    assert validate_path(out).errors == []
    trace = json.loads((out / "trace.json").read_text())
    prov = json.loads((out / "provenance.json").read_text())
    steps = trace["steps"]
    commit_step = next(s for s in steps if s["tool"] == "Bash")
    # the agent's commit is attributed to the Bash call that made it
    sha_v2 = git(world["repo"], "rev-parse", "HEAD~1")
    assert sha_v2[:12] in commit_step["state_change"]
    m = [x for x in prov["matches"] if x["kind"] == "commit" and not x["uncertain"]]
    assert [(x["step"], x["sha"], x["rule"]) for x in m] == [(commit_step["step"], sha_v2, "G-named-commit")]
    art = next(a for a in trace["static_output"]["artifacts"] if a["path"] == "app.py")
    assert commit_step["step"] in art["related_steps"] and "+print('v2')" in art["diff"]
    # the history line of that command is the same run: no separate step, match recorded
    assert any(x["kind"] == "shell_history" and x["step"] == commit_step["step"] for x in prov["matches"])
    # what nobody's agent ran is the human's
    human = [s for s in steps if s["actor"] == "human:shell"]
    assert [s["input"] for s in human] == ["ls -la"]
    human_commits = [s for s in steps if s["actor"] == "human:git"]
    assert [s["output"].splitlines()[-1] for s in human_commits] == ["initial import", "notes by hand"]
    # every history record brought in is accounted for: cited by a step or a match, or marked
    # (an entry's whole record, read for its time); none is unknown
    man = json.loads((out / "manifest.json").read_text())
    [hist_ledger] = [x for x in man["ledger"] if x["path"] == ".zsh_history"]
    assert hist_ledger["totals"]["unknown"] == 0 and hist_ledger["records_read"] == 3, hist_ledger
    # every copied value checks out against the session, the history and the repository
    rep = verify_folder(out, [world["session"].parent, world["history"].parent, world["repo"]])
    assert rep.ok, rep.problems[:5]


def test_history_and_git_without_agent_log(world: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "t2"
    [res] = retrace([], RetraceOptions(out=out, redact=False, history=[world["history"]], git=world["repo"],
                                       since="2026-01-01T09:00:00Z", until="2026-01-01T11:00:00Z")).results
    trace = res.assembled.trace
    assert trace.trace_mode == "retraced"
    assert all(s.reasoning is None for s in trace.steps)  # no invented reasoning
    # by hand (assemble/score.py): base 40 (shell and git evidence only); 5 steps, the 2 history
    # commands have no output (a history records none), the 3 commits have theirs:
    # empty fields 15 × 2/5 = 6 → 34
    assert [s.actor for s in trace.steps].count("human:shell") == 2 and len(trace.steps) == 5
    assert trace.summary.agent_confidence == 34
    assert {s.actor for s in trace.steps} == {"human:shell", "human:git"}
    assert validate_path(out).errors == []
