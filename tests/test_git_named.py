"""the commits the log names, every branch, rebases, squashes, amends, partial clones.

One repository is built in the test: a partial clone (`--filter=blob:none`, from a local path,
then cut off from its origin) where an agent commits on a branch, amends, rebases onto `main`
(the originals then pruned from the repository), squash-merges the branch, and commits once
more; a person commits on `main` in between. The Claude Code session's `git commit` results
name the commits (`[branch sha] subject`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import Repo
from forsy.evidence import Event, Ref, Session, SessionMeta
from forsy.payloads import CommitInfo
from forsy.rules.commits import NAMED, named_in
from forsy.rules.timeline import merge
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext
from forsy.sources.git import read_git
from forsy.validation import validate_path
from forsy.verification import verify_folder

T0 = 1767261600  # 2026-01-01T10:00:00Z
SINCE, UNTIL = "2026-01-01T09:55:00Z", "2026-01-01T10:10:00Z"


def iso(sec: int) -> str:
    return f"2026-01-01T10:{sec // 60:02d}:{sec % 60:02d}.000Z"


def when(sec: int) -> str:
    return f"@{T0 + sec} +0000"


def commit(r: Repo, sec: int, *args: str) -> str:
    r.git("commit", "-q", *args, when=when(sec))
    return r.git("rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("named")
    up = Repo(base / "up")
    up.write("data.txt", "v1\n")
    up.write("app.py", "x = 1\n")
    up.git("add", "-A")
    commit(up, -3600, "-m", "initial")
    up.write("data.txt", "v2\n")
    u1 = commit(up, 10, "-am", "upstream: data v2")  # its diff needs data.txt v1, which the clone lacks
    r = Repo.partial_clone(up, base / "proj")
    up.path.rename(base / "up.gone")  # cut off: a lazy fetch could only fail (and must not be tried)
    sha: dict[str, str] = {"u1": u1}
    r.git("checkout", "-q", "-b", "feature")
    r.write("a.py", "print('a')\n")
    r.git("add", "a.py")
    sha["c1"] = commit(r, 52, "-m", "feat: add a")
    r.git("checkout", "-q", "main")
    r.write("notes.txt", "by hand\n")
    r.git("add", "notes.txt")
    sha["h1"] = commit(r, 71, "-m", "chore: human on main")  # inside the agent's next `git commit` call
    r.git("checkout", "-q", "feature")
    r.write("a.py", "print('a!')\n")
    sha["c2"] = commit(r, 72, "-am", "fix: typo in a")
    r.write("a.py", "print('a!!')\n")
    r.git("add", "a.py")
    sha["c2b"] = commit(r, 92, "--amend", "-m", "fix: typo in a.py")
    r.env["GIT_COMMITTER_DATE"] = when(112)  # a rebase keeps each commit's author date
    r.git("rebase", "-q", "main")
    del r.env["GIT_COMMITTER_DATE"]
    sha["c1r"], sha["c2r"] = r.git("rev-list", "--reverse", "main..feature").split()
    # the originals are gone from the repository: only the session still names them
    r.git("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    r.git("prune", "--expire=now")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--squash", "feature")
    sha["sq"] = commit(r, 132, "-m", "feat: a (squashed)")
    r.write("notes.txt", "by hand\nand the agent\n")
    sha["d"] = commit(r, 152, "-am", "docs: notes")
    r.write("later.txt", "later\n")
    r.git("add", "later.txt")
    sha["h2"] = commit(r, 200, "-m", "chore: human after")
    assert r.git("cat-file", "-t", sha["c1r"]).strip() == "commit"

    def call(i: int, cid: str, command: str, result: str, at: int, done: int) -> list[dict[str, Any]]:
        use = {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": command}}
        res = {"type": "tool_result", "tool_use_id": cid, "content": result}
        return [rec(i, "assistant", {"id": f"m{i}", "role": "assistant", "content": [use]}, at),
                rec(i + 1, "user", {"role": "user", "content": [res]}, done)]

    def rec(i: int, kind: str, msg: dict[str, Any], at: int) -> dict[str, Any]:
        return {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None, "sessionId": "n-1",
                "cwd": str(r.path), "timestamp": iso(at), "message": msg}

    s = sha
    recs = [rec(1, "user", {"role": "user", "content": "Add a on a branch, then squash it into main"}, 20)]
    recs += call(2, "c_branch", "git checkout -b feature", "Switched to a new branch 'feature'", 30, 35)
    write = {"type": "tool_use", "id": "c_write", "name": "Write",
             "input": {"file_path": str(r.path / "a.py"), "content": "print('a')\n"}}
    recs += [rec(4, "assistant", {"id": "m4", "role": "assistant", "content": [write]}, 40),
             rec(5, "user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c_write",
                                                           "content": "File created"}]}, 41)]
    recs += call(6, "c_c1", 'git add a.py && git commit -m "feat: add a"',
                 f"[feature {s['c1'][:7]}] feat: add a\n 1 file changed, 1 insertion(+)\n create mode 100644 a.py",
                 50, 55)
    recs += call(8, "c_c2", 'git commit -am "fix: typo in a"',
                 f"[feature {s['c2'][:7]}] fix: typo in a\n 1 file changed, 1 insertion(+), 1 deletion(-)", 70, 75)
    recs += call(10, "c_amend", 'git commit --amend -am "fix: typo in a.py"',
                 f"[feature {s['c2b'][:9]}] fix: typo in a.py\n Date: Thu Jan 1 10:01:12 2026 +0000\n"
                 " 1 file changed, 1 insertion(+), 1 deletion(-)", 90, 95)
    recs += call(12, "c_rebase", "git rebase main", "Successfully rebased and updated refs/heads/feature.", 110, 115)
    squash = 'git checkout main && git merge --squash feature && git commit -m "feat: a (squashed)"'
    recs += call(14, "c_squash", squash,
                 "Switched to branch 'main'\nSquash commit -- not updating HEAD\n"
                 f"[main {s['sq'][:7]}] feat: a (squashed)\n 1 file changed, 1 insertion(+)", 130, 135)
    recs += call(16, "c_docs", 'git commit -am "docs: notes"',
                 f"[main {s['d'][:10]}] docs: notes\n 1 file changed, 1 insertion(+)", 150, 155)
    recs += [rec(18, "assistant", {"id": "m18", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
                 160)]
    logs = base / "logs"
    logs.mkdir()
    session = logs / "n-1.jsonl"
    session.write_text("".join(json.dumps(x) + "\n" for x in recs))
    return {"repo": r, "sha": sha, "session": session, "base": base}


# --- what the log names ----------------------------------------------------------------------


def test_named_patterns() -> None:
    text = ("[main (root-commit) 1a2b3c4] first\n[detached HEAD 89abcde] loose\nHEAD is now at 0123456 reset here\n"
            "   1111111..2222222  main -> main\n + 3333333...4444444 feat -> feat (forced update)\n"
            "Commit 5555555 aider: did it\n[feature 6666666] x [not] y\nnot [a 7777777] mid-line\n")
    got = [(n.kind, n.sha, n.subject, n.made) for n in named_in(text)]
    assert got == [
        ("commit", "1a2b3c4", "first", True), ("commit", "89abcde", "loose", True),
        ("head", "0123456", "reset here", False), ("push", "2222222", "main -> main", False),
        ("push", "4444444", "feat -> feat", False), ("aider", "5555555", "aider: did it", True),
        ("commit", "6666666", "x [not] y", True),
    ]
    first = named_in(text)[0]
    assert text[first.span[0]:first.span[1]] == "[main (root-commit) 1a2b3c4] first"
    assert NAMED  # the rule names are in the catalogue (checked in test_catalogue_has_rules)


def test_catalogue_has_rules() -> None:
    from forsy.rules.catalogue import CATALOGUE

    for rule in NAMED:
        assert rule in CATALOGUE, rule


# --- read_git: every branch, the reflog, missing blobs -------------------------------------------


def test_every_branch_and_missing_blob(world: dict[str, Any]) -> None:
    r, sha = world["repo"], world["sha"]
    s = read_git(r.path, since=SINCE, until=UNTIL, ctx=ReadContext(root=r.path))
    infos = {e.info.sha: e.info for e in s.events if isinstance(e.info, CommitInfo)}
    assert set(infos) == {sha[k] for k in ("u1", "h1", "c1r", "c2r", "sq", "d", "h2")}
    assert infos[sha["c1r"]].branches == ["feature"]
    assert infos[sha["sq"]].branches == ["main"]
    assert infos[sha["u1"]].branches == ["feature", "main", "origin/main"]
    # the partial clone lacks data.txt v1: the commit is kept, its metadata read, the blob named
    u1 = infos[sha["u1"]]
    assert u1.missing and "data.txt" in u1.missing[0] and u1.author_name == "Ada Dev"
    assert [f["path"] for f in u1.files] == ["data.txt"] and u1.files[0]["hunks"] == []
    warn = [w for w in s.warnings if w.code == "git_missing_object"]
    assert len(warn) == 1 and sha["u1"] in warn[0].message and "data.txt" in warn[0].message
    assert s.quality.extra["commits_without_diff"] == 1
    assert not (world["base"] / "up").exists()  # nothing was fetched from (or recreated at) the origin


# --- the whole retrace -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def traced(world: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("out") / "trace"
    retrace([world["session"]], RetraceOptions(out=out, redact=False, git=world["repo"].path,
                                               since=SINCE, until=UNTIL))
    return {"out": out, **{k: json.loads((out / f"{k}.json").read_text())
                           for k in ("trace", "provenance", "manifest")}}


def _step_of(trace: dict[str, Any], command_start: str) -> dict[str, Any]:
    return next(s for s in trace["steps"] if s["tool"] == "Bash" and json.loads(s["input"])["command"]
                .startswith(command_start))


def test_named_commits_matched_exactly(world: dict[str, Any], traced: dict[str, Any]) -> None:
    sha, trace, prov = world["sha"], traced["trace"], traced["provenance"]
    matches = {m["sha"]: m for m in prov["matches"] if m["kind"] == "commit" and not m["uncertain"]}
    squash, docs = _step_of(trace, "git checkout main"), _step_of(trace, 'git commit -am "docs')
    assert (matches[sha["sq"]]["step"], matches[sha["sq"]]["rule"]) == (squash["step"], "G-named-commit")
    assert (matches[sha["d"]]["step"], matches[sha["d"]]["rule"]) == (docs["step"], "G-named-commit")
    assert matches[sha["d"]]["score"] == 1.0
    named = {n["named"]: n for n in trace["agent_config"]["timeline"]["named_commits"]}
    d = named[sha["d"][:10]]
    assert (d["sha"], d["status"], d["call_id"], d["branches"]) == (sha["d"], "matched", "c_docs", ["main"])
    ev = prov["evidence"][d["evidence"]]  # the tool result's record, and where in its text the name is
    raw = (world["session"].read_bytes()[ev["byte_offset"]:ev["byte_offset"] + ev["byte_length"]])
    text = json.loads(raw)["message"]["content"][0]["content"]
    assert text[d["span"][0]:d["span"][1]] == f"[main {sha['d'][:10]}] docs: notes"


def test_rebased_and_amended_commits_linked(world: dict[str, Any], traced: dict[str, Any]) -> None:
    sha, trace, prov, man = world["sha"], traced["trace"], traced["provenance"], traced["manifest"]
    named = {n["named"]: n for n in trace["agent_config"]["timeline"]["named_commits"]}
    c1, c2, c2b = named[sha["c1"][:7]], named[sha["c2"][:7]], named[sha["c2b"][:9]]
    assert (c1["status"], c1["sha"], c1["rebased_as"]) == ("missing", None, sha["c1r"])
    assert (c2b["status"], c2b["rebased_as"]) == ("missing", sha["c2r"])
    assert (c2["status"], c2["amended_as"], c2["amended_by"]) == ("amended", sha["c2b"][:9], "c_amend")
    missing = [w for w in man["warnings"] if w["code"] == "git_named_commit_missing"]
    assert sorted(sha[k][:7] for k in ("c1", "c2b")) == sorted(
        next(x for x in (sha["c1"][:7], sha["c2b"][:7]) if x in w["message"]) for w in missing)
    assert all("rebased as" in w["message"] for w in missing)
    matches = {m["sha"]: m for m in prov["matches"] if m["kind"] == "commit" and not m["uncertain"]}
    first, amend = _step_of(trace, "git add a.py"), _step_of(trace, "git commit --amend")
    assert (matches[sha["c1r"]]["step"], matches[sha["c1r"]]["rule"]) == (first["step"], "G-named-rewritten")
    assert matches[sha["c1r"]]["score"] < 1.0 and matches[sha["c2r"]]["step"] == amend["step"]
    # the squash on main holds both rebased commits
    sq = named[sha["sq"][:7]]
    assert sq["squash_of"] == [sha["c1r"], sha["c2r"]]


def test_no_heuristic_match_contradicting_the_log(world: dict[str, Any], traced: dict[str, Any]) -> None:
    sha, trace, prov = world["sha"], traced["trace"], traced["provenance"]
    human = [s for s in trace["steps"] if s["actor"] == "human:git"]
    outs = [s["output"].splitlines()[0] for s in human]
    assert outs == [f"commit {sha['u1']}", f"commit {sha['h1']}", f"commit {sha['h2']}"]
    assert not any(m.get("sha") == sha["h1"] for m in prov["matches"] if m["kind"] == "commit")
    tl = trace["agent_config"]["timeline"]
    assert tl["refused_matches"] == 1 and tl["named_matched"] == 2


def test_trace_written_with_missing_blob(world: dict[str, Any], traced: dict[str, Any]) -> None:
    assert validate_path(traced["out"]).errors == []
    warn = [w for w in traced["manifest"]["warnings"] if w["code"] == "git_missing_object"]
    assert len(warn) == 1 and world["sha"]["u1"] in warn[0]["message"]
    rep = verify_folder(traced["out"], [world["session"].parent, world["repo"].path])
    assert rep.ok, rep.problems[:5]


# --- merge on its own: amend when the first commit is still in the repository ----------------------


def _event(kind: str, sec: int, n: int, **kw: Any) -> Event:
    return Event(kind, "agent", iso(sec), [Ref(f"ev_{n}", "")], **kw)  # type: ignore[arg-type]


def _commit(sha: str, sec: int, subject: str, parents: list[str]) -> Event:
    info = CommitInfo(sha=sha, parents=parents, author_name="A", author_date=iso(sec), committer_date=iso(sec),
                         branches=["main"])
    return Event("commit", "human:git", iso(sec), [Ref(f"ev_{sha}", "")], text=subject, info=info)


def _amended() -> tuple[str, str, Session, Session]:
    """An agent that commits `a`, then amends it as `b` (both named in its results), and the
    repository holding both commits (same parent)."""
    a, b, p = "a" * 40, "b" * 40, "c" * 40
    agent = Session("claude_code", "s", [], {}, [
        _event("tool_call", 10, 1, call_id="k1", tool="Bash", args={"command": "git commit -m one"}),
        _event("tool_result", 12, 2, call_id="k1", text=f"[main {a[:7]}] one"),
        _event("tool_call", 20, 3, call_id="k2", tool="Bash", args={"command": "git commit --amend -m one!"}),
        _event("tool_result", 22, 4, call_id="k2", text=f"[main {b[:7]}] one!"),
    ], SessionMeta(agent="claude-code"))
    git = Session("git", "g", [], {}, [_commit(a, 11, "one", [p]), _commit(b, 21, "one!", [p])], SessionMeta())
    return a, b, agent, git


def test_amend_replaces_the_earlier_commit() -> None:
    a, b, agent, git = _amended()
    out = merge(agent, [], [git], window=(SINCE, UNTIL))
    commits = [e for e in out.events if e.kind == "commit"]
    assert [e.info.sha for e in commits if isinstance(e.info, CommitInfo)] == [b]
    named = {n["named"]: n for n in out.meta.extra["timeline"]["named_commits"]}
    assert (named[a[:7]]["status"], named[a[:7]]["amended_as"], named[a[:7]]["amended_by"]) == ("amended", b[:7], "k2")
    assert named[b[:7]]["amends"] == a[:7]


def _one_call(command: str, result: str, *, error: bool = False) -> Session:
    return Session("claude_code", "s", [], {}, [
        _event("tool_call", 10, 1, call_id="k1", tool="Bash", args={"command": command}),
        _event("tool_result", 40, 2, call_id="k1", text=result, is_error=error),
    ], SessionMeta(agent="claude-code"))


def _actor_of(agent: Session, subject: str) -> tuple[str, int]:
    git = Session("git", "g", [], {}, [_commit("e" * 40, 30, subject, ["c" * 40])], SessionMeta())
    out = merge(agent, [], [git], window=(SINCE, UNTIL))
    (c,) = [e for e in out.events if e.kind == "commit"]
    return c.actor, out.meta.extra["timeline"]["refused_matches"]


HEREDOC = ("git commit -m \"$(cat <<'EOF'\nfeat: unified transcript visualization\n\n"
           "Extract shared transcript pipeline\nEOF\n)\"")


def test_heuristic_refused_when_the_message_is_another_subject() -> None:
    # spotter 4d5611e5: a failed `git commit` (pre-commit hook) took a commit made elsewhere at that time
    failed = _one_call(HEREDOC, "Pre-commit validation failed:\n[DIALYZER] ...", error=True)
    assert _actor_of(failed, "feat: add transcript tail adapter and live tail workers") == ("human:git", 1)
    assert _actor_of(_one_call(HEREDOC, ""), "feat: add transcript tail adapter and live tail workers") \
        == ("human:git", 1)
    assert _actor_of(_one_call('git commit -qam "fix: one"', ""), "feat: other") == ("human:git", 1)
    # the same subject: the time match stands
    assert _actor_of(_one_call(HEREDOC, ""), "feat: unified transcript visualization") == ("agent", 0)
    assert _actor_of(_one_call('git commit -qam "fix: one"', ""), "fix: one") == ("agent", 0)


def test_named_commit_copied_to_another_branch() -> None:
    # spotter 4d5611e5: 64f1b9a on spotter-dov, rebased onto master as edd69f5 (same subject, author and
    # author date; another patch id: the rebase changed the diff)
    a, b = "a" * 40, "b" * 40
    agent = _one_call("git commit -m one", f"[topic {a[:7]}] one")
    first, copy = _commit(a, 20, "one", ["c" * 40]), _commit(b, 25, "one", ["d" * 40])
    assert isinstance(copy.info, CommitInfo)
    copy.info.author_date, copy.info.branches = iso(20), ["master"]
    out = merge(agent, [], [Session("git", "g", [], {}, [first, copy], SessionMeta())], window=(SINCE, UNTIL))
    (rec,) = out.meta.extra["timeline"]["named_commits"]
    assert (rec["sha"], rec["status"], rec["same_change_as"]) == (a, "matched", [b])


def test_aider_note_and_pull_request_name_commits() -> None:
    a, pr = "a" * 40, "f" * 40
    agent = Session("aider", "s", [], {}, [
        _event("note", 10, 1, text="Applied edit to app.py\nCommit aaaaaaa feat: from aider\n"),
        _event("tool_call", 20, 2, call_id="k1", tool="Bash", args={"command": "gh pr merge 12 --squash"}),
        _event("tool_result", 24, 3, call_id="k1", text="✓ Squashed and merged pull request #12 (Add things)"),
    ], SessionMeta(agent="aider"))
    git = Session("git", "g", [], {}, [_commit(a, 9, "feat: from aider", ["c" * 40]),
                                       _commit(pr, 23, "Add things (#12)", [a])], SessionMeta())
    out = merge(agent, [], [git], window=(SINCE, UNTIL))
    got = {e.info.sha: (e.actor, e.info.matched_call_id, e.info.match.rule if e.info.match else None)
           for e in out.events if isinstance(e.info, CommitInfo)}
    assert got == {a: ("agent", None, "G-named-commit"), pr: ("agent", "k1", "G-named-pull-request")}


def test_named_commit_outside_the_window_is_reported(tmp_path: Path) -> None:
    r = Repo(tmp_path / "small")
    r.write("x.txt", "x\n")
    r.git("add", "x.txt")
    sha = commit(r, -1000, "-m", "long ago")
    git = read_git(r.path, since=SINCE, until=UNTIL, ctx=ReadContext(root=r.path))
    assert git.events == []
    out = merge(_one_call("git commit -m 'long ago'", f"[main {sha[:8]}] long ago"), [], [git],
                window=(SINCE, UNTIL))
    (rec,) = out.meta.extra["timeline"]["named_commits"]
    assert (rec["sha"], rec["status"]) == (sha, "outside_window")
    (w,) = [w for w in out.warnings if w.code == "git_named_commit_outside_window"]
    assert sha[:8] in w.message and "k1" in w.message


def test_rebased_commit_still_in_the_reflog(tmp_path: Path) -> None:
    r = Repo(tmp_path / "rl")
    r.write("base.txt", "b\n")
    r.git("add", "-A")
    commit(r, 5, "-m", "base")
    r.git("checkout", "-q", "-b", "topic")
    r.write("t.txt", "t\n")
    r.git("add", "t.txt")
    first = commit(r, 30, "-m", "topic work")
    r.git("checkout", "-q", "main")
    r.write("m.txt", "m\n")
    r.git("add", "m.txt")
    commit(r, 40, "-m", "main work")
    r.git("checkout", "-q", "topic")
    r.env["GIT_COMMITTER_DATE"] = when(60)
    r.git("rebase", "-q", "main")
    rebased = r.git("rev-parse", "HEAD").strip()
    git = read_git(r.path, since=SINCE, until=UNTIL, ctx=ReadContext(root=r.path))
    infos = {e.info.sha: e.info for e in git.events if isinstance(e.info, CommitInfo)}
    assert infos[first].branches == [] and infos[rebased].branches == ["topic"]  # the original: reflog only
    out = merge(_one_call("git commit -m 'topic work'", f"[topic {first[:7]}] topic work"), [], [git],
                window=(SINCE, UNTIL))
    (rec,) = out.meta.extra["timeline"]["named_commits"]
    assert (rec["sha"], rec["status"], rec["rebased_as"], rec["same_change_as"]) == (first, "matched", rebased,
                                                                                    [rebased])


# --- the commit facts on the steps themselves ------------------------------------------------------


def _step_no(trace: dict[str, Any], n: int) -> dict[str, Any]:
    return next(s for s in trace["steps"] if s["step"] == n)


def _prov_of(prov: dict[str, Any], step: int, field: str) -> dict[str, Any]:
    sp = next(s for s in prov["steps"] if s["step"] == step)
    return dict(sp["fields"][field])


def test_commit_steps_say_which_branches_hold_them(world: dict[str, Any], traced: dict[str, Any]) -> None:
    sha, trace, prov = world["sha"], traced["trace"], traced["provenance"]
    # a person's commit on every branch: its own step says so, by R-commit/branches
    u1 = next(s for s in trace["steps"] if s["actor"] == "human:git" and s["output"].startswith(f"commit {sha['u1']}"))
    assert u1["state_change"] == (f"Commit {sha['u1'][:12]} was recorded in the repository, on branches feature, "
                                  "main, origin/main.")
    assert _prov_of(prov, u1["step"], "state_change")["rule"] == "R-commit+R-commit/branches"
    # the agent's commit, on the step of the call that made it
    docs = _step_of(trace, 'git commit -am "docs')
    assert docs["state_change"] == f"Commit {sha['d'][:12]} records this change (1 file(s): notes.txt), on branch main."
    assert _prov_of(prov, docs["step"], "state_change")["rule"] == "R-commit/named+R-commit/branches"
    matches = {m["sha"]: m for m in prov["matches"] if m["kind"] == "commit" and not m["uncertain"]}
    assert matches[sha["d"]]["branches"] == ["main"] and matches[sha["c1r"]]["branches"] == ["feature"]
    assert sha["h1"] not in matches  # a person's commit: a step of its own, no match


def test_provenance_names_the_bytes_that_named_the_commit(world: dict[str, Any], traced: dict[str, Any]) -> None:
    from forsy.evidence import resolve_pointer

    sha, trace, prov = world["sha"], traced["trace"], traced["provenance"]
    m = next(m for m in prov["matches"] if m.get("sha") == sha["d"])
    named = m["named_by"]
    ev = prov["evidence"][named["evidence"]]
    raw = world["session"].read_bytes()[ev["byte_offset"]:ev["byte_offset"] + ev["byte_length"]]
    text = resolve_pointer(json.loads(raw), named["pointer"])
    a, b = named["span"]
    assert text[a:b] == f"[main {sha['d'][:10]}] docs: notes"
    assert named["evidence"] in m["evidence"]
    # the same in the rule's parameters of the step's state_change, and the evidence it cites
    docs = _step_of(trace, 'git commit -am "docs')
    fp = _prov_of(prov, docs["step"], "state_change")
    assert fp["params"] == {"match": "G-named-commit", "score": 1.0, "named_in": named["evidence"],
                            "pointer": named["pointer"], "span_start": a, "span_end": b}
    assert {"id": named["evidence"], "pointer": named["pointer"]} in fp["evidence"]
    # a rebased commit is named by the bytes of the original's line
    c1r = next(m for m in prov["matches"] if m.get("sha") == sha["c1r"])
    ev = prov["evidence"][c1r["named_by"]["evidence"]]
    raw = world["session"].read_bytes()[ev["byte_offset"]:ev["byte_offset"] + ev["byte_length"]]
    a, b = c1r["named_by"]["span"]
    assert resolve_pointer(json.loads(raw), c1r["named_by"]["pointer"])[a:b] == f"[feature {sha['c1'][:7]}] feat: add a"


def test_the_amend_step_redoes_the_amended_commit_step(traced: dict[str, Any]) -> None:
    trace, prov = traced["trace"], traced["provenance"]
    first, amend = _step_of(trace, 'git commit -am "fix: typo in a"'), _step_of(trace, "git commit --amend")
    assert amend["retry_of"] == first["step"] and first["step"] in amend["caused_by"]
    assert "amends the commit" in amend["causal_note"]
    fp = _prov_of(prov, amend["step"], "retry_of")
    assert fp["rule"] == "R-commit/amend" and fp["params"]["amended_step"] == first["step"]
    # an amend redoes a commit that worked: no failure was recovered from (no R-retry in this session)
    assert not any(_prov_of(prov, s["step"], "retry_of")["rule"] == "R-retry" for s in trace["steps"] if s["retry_of"])
    assert "failure-recovery" not in trace["dataset_summary"]["tags"]


def test_a_commit_without_its_diff_is_its_own_confidence_factor(traced: dict[str, Any]) -> None:
    factors = {f["name"]: f for f in traced["manifest"]["confidence_factors"]}
    # by hand (assemble/score.py): one commit (u1) kept without its diff: 2 points; no output was cut
    assert (factors["commits_without_diff"]["value"], factors["commits_without_diff"]["penalty"]) == (1, 2)
    assert "truncated_outputs" not in factors  # the manifest lists factors that cost something: no output was cut


def test_amend_link_when_the_amended_commit_is_still_in_the_repository() -> None:
    from forsy.rules.segment import Segmenter

    a, b, agent, git = _amended()
    drafts = Segmenter(merge(agent, [], [git], window=(SINCE, UNTIL))).run()
    first, amend = drafts[0], drafts[1]
    assert amend.values["retry_of"] == 1 and amend.values["caused_by"] == [1]
    assert amend.prov["retry_of"].rule == "R-commit/amend" and amend.prov["retry_of"].params == {
        "amended_step": 1, "amended": a[:7], "amended_as": b[:7]}
    assert [r.id for r in amend.prov["retry_of"].evidence] == ["ev_2", "ev_4"]  # the two results that named them
    assert "retry_of" not in first.values
    assert amend.values["state_change"] == f"Commit {b[:12]} records this change (0 file(s): ), on branch main."


def test_one_revision_read_says_nothing_of_branches(tmp_path: Path) -> None:
    from forsy.rules.segment import Segmenter

    r = Repo(tmp_path / "one")
    r.write("x.txt", "x\n")
    r.git("add", "x.txt")
    sha = commit(r, 30, "-m", "only")
    git = read_git(r.path, since=SINCE, until=UNTIL, ctx=ReadContext(root=r.path), rev="HEAD")
    (e,) = git.events
    assert isinstance(e.info, CommitInfo) and e.info.branches is None  # not asked: not "no branch"
    (d,) = Segmenter(merge(None, [], [git], window=(SINCE, UNTIL))).run()
    assert d.values["state_change"] == f"Commit {sha[:12]} was recorded in the repository."
    assert d.prov["state_change"].rule == "R-commit"
    every = read_git(r.path, since=SINCE, until=UNTIL, ctx=ReadContext(root=r.path))
    (d,) = Segmenter(merge(None, [], [every], window=(SINCE, UNTIL))).run()
    assert d.values["state_change"] == f"Commit {sha[:12]} was recorded in the repository, on branch main."


def test_many_branches_are_counted_past_ten() -> None:
    from forsy.rules._commit_steps import on_branches

    names = [f"b{i:02d}" for i in range(17)]
    assert on_branches(names) == ", on branches " + ", ".join(names[:10]) + " and 7 more"
    assert (on_branches(["main"]), on_branches([]), on_branches(None)) == (
        ", on branch main", ", on no branch (only a reflog holds it)", None)
