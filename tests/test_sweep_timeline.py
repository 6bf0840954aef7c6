"""`forsy sweep` merges the shell histories and the git repository named in its config (or its
`--history`/`--git` flags) into each trace it makes, as `forsy retrace --history/--git` does:
the sweep docs promise it, and a sweep that dropped them would lose that evidence silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.run import RetraceOptions, retrace
from forsy.store import Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep
from test_timeline_e2e import T0, git, iso  # the same world's helpers


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A Claude session (0:15–0:40), a zsh history with a command of its own in that window and
    a repository with a commit made by hand in it."""
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "hand-made commit in the window", when=25)
    recs = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "sw-1", "cwd": str(repo),
         "timestamp": iso(15), "message": {"role": "user", "content": "Look at the repo"}},
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "sw-1", "cwd": str(repo),
         "timestamp": iso(40), "message": {"id": "m2", "role": "assistant",
                                            "content": [{"type": "text", "text": "Looked."}]}},
    ]
    logs = tmp_path / "logs" / "claude" / "-proj"
    logs.mkdir(parents=True)
    (logs / "sw-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    hist = tmp_path / "hist" / ".zsh_history"
    hist.parent.mkdir()
    hist.write_bytes(f": {T0 + 20}:0;make check-the-window\n".encode())
    return {"repo": repo, "logs": tmp_path / "logs", "history": hist}


def _step_texts(trace: dict[str, object]) -> str:
    return json.dumps(trace["steps"])


def test_sweep_merges_config_history_and_git_into_each_trace(world: dict[str, Path], tmp_path: Path) -> None:
    store: Store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        opts = RetraceOptions(redact=False, history=[world["history"]], git=world["repo"])
        rep = sweep(store, SweepOptions(roots=[world["logs"] / "claude"], retrace=opts, ignore_settle=True,
                                        claude_home=tmp_path / "no-claude-home"))
        assert rep.counts.failed == 0, rep
        assert rep.counts.traced == 1, rep
        [row] = store.traces(TraceQuery(limit=10))
        files = {f.name: f.data for f in store.trace_files(row.trace_id)}
        trace = json.loads(files["trace.json"])
        text = _step_texts(trace)
        assert "make check-the-window" in text  # the history's command
        assert "hand-made commit in the window" in text  # the commit
        # the same steps `forsy retrace --history --git` makes for that session
        out = tmp_path / "retraced"
        retrace([world["logs"] / "claude" / "-proj" / "sw-1.jsonl"],
                RetraceOptions(out=out, redact=False, history=[world["history"]], git=world["repo"]))
        direct = json.loads((out / "trace.json").read_bytes())
        assert [s["action"] for s in trace["steps"]] == [s["action"] for s in direct["steps"]]
    finally:
        store.close()
