"""rules/commits.py, `plan`: what the agent's log says about commits, before any heuristic.

Hand-built agent sessions (results and notes that name commits), timed calls and git sessions of
window commits; the repository (`GitLookup`) is a scripted double that answers from a table, so
each promise is pinned on its own: a short sha is resolved only when one commit holds it, a named
commit the repository lacks is linked to its rewritten form only on the same subject AND an
author date not after the naming, an amend replaces the commit before it on its branch, a squash
lists the agent's commits it holds. Expectations computed by hand from the module's docstring.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forsy.evidence import Event, Evidence, ReadingWarning, Ref, Session, SessionMeta
from forsy.payloads import CommitInfo, ResultInfo
from forsy.rules import commits
from forsy.rules.commits import CallSpan, NamedPlan, plan

T0 = 1767261600.0  # 2026-01-01T10:00:00Z
A1, A2 = "abcdef1" + "1" * 33, "abcdef1" + "2" * 33  # two commits sharing a 7-digit prefix
B, C, D, E = "b" * 40, "c" * 40, "d" * 40, "e" * 40


def iso(sec: float) -> str:
    return f"2026-01-01T10:00:{sec:06.3f}Z" if sec < 60 else f"2026-01-01T10:{int(sec) // 60:02d}:{sec % 60:06.3f}Z"


def commit(sha: str, subject: str, *, files: tuple[str, ...] = (), branches: list[str] | None = None,
           patch_id: str | None = None, parents: tuple[str, ...] = ("0" * 40,), authored: float | None = 0.0,
           author: tuple[str, str] = ("Ada Dev", "ada@example.org")) -> Event:
    info = CommitInfo(sha=sha, parents=list(parents), author_name=author[0], author_email=author[1],
                      author_date=None if authored is None else iso(authored), branches=branches,
                      patch_id=patch_id, files=[{"path": f, "status": "M"} for f in files])  # type: ignore[typeddict-item]
    return Event("commit", "human:git", None, [], text=f"{subject}\n\nbody", info=info)


def git(*events: Event, cwd: str | None = None) -> Session:
    return Session("git", "g1", [], {}, list(events), SessionMeta(cwd=cwd))


def result(cid: str | None, text: str, at: float, *, ev: str = "ev-r1", kind: str = "tool_result",
           actor: str = "agent", inner: str | None = None) -> Event:
    info = ResultInfo(inner_pointer=inner) if kind == "tool_result" else None
    return Event(kind, actor, iso(at), [Ref(ev, "/message/content/0/content")], text=text,  # type: ignore[arg-type]
                 call_id=cid, info=info)


def agent(*events: Event) -> Session:
    evidence = {f"ev-r{i}": Evidence(f"ev-r{i}", "logs/s.jsonl", 10 + i, 0, 1, "00") for i in range(1, 9)}
    return Session("claude-code", "s1", [], evidence, list(events), SessionMeta())


def call(cid: str, command: str | None, start: float, end: float, actor: str = "agent") -> CallSpan:
    ev = Event("tool_call", actor, iso(start), [], call_id=cid, tool="Bash")
    return CallSpan(ev, T0 + start, T0 + end, command, [], raw_command=command)


class Repo:
    """The repository's answers, from tables (`GitLookup`'s three questions)."""

    def __init__(self) -> None:
        self.full: dict[str, str] = {}
        self.ancestors: set[tuple[str, str]] = set()
        self.ranges: dict[tuple[str, str], tuple[str, list[str]]] = {}
        self.asked: list[Any] = []

    def __call__(self, repo: Path) -> Repo:
        self.asked.append(("at", str(repo)))
        return self

    def resolve(self, prefix: str) -> str | None:
        self.asked.append(("resolve", prefix))
        return self.full.get(prefix)

    def is_ancestor(self, a: str, b: str) -> bool:
        return (a, b) in self.ancestors

    def range_patch_id(self, onto: str, tip: str) -> tuple[str, list[str]] | None:
        self.asked.append(("range", onto, tip))
        return self.ranges.get((onto, tip))


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch) -> Repo:
    r = Repo()
    monkeypatch.setattr(commits, "GitLookup", r)
    return r


def warning(code: str, message: str, line: int | None = 11) -> ReadingWarning:
    return ReadingWarning(code, message, "logs/s.jsonl" if line is not None else None, line)


# --- a short sha is resolved only when one commit holds it ------------------------------------------


def test_a_short_sha_one_window_commit_holds_is_that_commit(repo: Repo) -> None:
    text = "[main bbbbbbb] feat: b\n 1 file changed"
    p = plan(agent(result("c1", text, 9, inner="/out")), [git(commit(B, "feat: b", branches=["main"]), cwd="/r")],
             [call("c1", "git commit -m 'feat: b'", 5, 8, actor="subagent:s1")])
    (rec,) = p.records
    assert (rec.named, rec.kind, rec.subject, rec.call_id, rec.evidence, rec.pointer, rec.span, rec.inner_pointer) == (
        "bbbbbbb", "commit", "feat: b", "c1", "ev-r1", "/message/content/0/content", (0, 22), "/out")
    assert (rec.status, rec.sha, rec.rule, rec.branches) == ("matched", B, "G-named-commit", ["main"])
    claim = p.claims[B]
    assert (claim.sha, claim.rule, claim.score, claim.actor, claim.call_id, claim.named) == (
        B, "G-named-commit", 1.0, "subagent:s1", "c1", rec)
    assert p.busy == {"c1"} and p.named_at == [T0 + 8]  # the call's end, not the result's time
    assert p.counts == {"commits_named": 1, "named_matched": 1} and p.warnings == []
    assert ("resolve", "bbbbbbb") not in repo.asked  # the window answered


def test_an_ambiguous_short_sha_is_never_resolved_to_a_commit(repo: Repo) -> None:
    window = [git(commit(A1, "one"), commit(A2, "two"), cwd="/r")]
    p = plan(agent(result("c1", "[main abcdef1] three", 9)), window, [call("c1", "git commit -m three", 5, 8)])
    (rec,) = p.records
    assert (rec.status, rec.sha, rec.rebased_as, rec.rule) == ("missing", None, None, None)
    assert p.claims == {} and ("resolve", "abcdef1") in repo.asked  # git was asked, and refused it
    assert p.warnings == [warning("git_named_commit_missing", "the result of call c1 names commit abcdef1 (three), "
                                  "which the repository does not hold; no rewritten form found in the window")]
    assert p.counts == {"commits_named": 1, "named_missing": 1}
    # without a repository to ask, the same
    p = plan(agent(result("c1", "[main abcdef1] three", 9)), [git(commit(A1, "one"), commit(A2, "two"))],
             [call("c1", "git commit -m three", 5, 8)])
    assert p.records[0].status == "missing" and p.claims == {}
    # a longer prefix that only one holds is that one
    p = plan(agent(result("c1", f"[main {A2[:9]}] two", 9)), window, [call("c1", "git commit -m two", 5, 8)])
    assert p.records[0].sha == A2 and list(p.claims) == [A2]


def test_a_commit_the_repository_holds_outside_the_window_is_a_warning(repo: Repo) -> None:
    repo.full["ddddddd"] = D
    p = plan(agent(result("c1", "[main ddddddd] old one", 9)), [git(commit(B, "feat: b"), cwd="/r")],
             [call("c1", "git commit -m 'old one'", 5, 8)])
    (rec,) = p.records
    assert (rec.status, rec.sha, rec.rule, rec.branches) == ("outside_window", D, None, [])
    assert p.claims == {} and p.busy == {"c1"} and p.counts == {"commits_named": 1}
    assert p.warnings == [warning("git_named_commit_outside_window", f"the result of call c1 names commit ddddddd "
                                  f"({D}, old one), which the repository holds outside the time window: it is not on "
                                  "the timeline")]
    assert repo.asked[0] == ("at", "/r")


def test_a_sha_the_repository_resolves_into_the_window_is_matched(repo: Repo) -> None:
    repo.full["abcdef1"] = A2  # the window holds two; git, which knows more refs, says which
    p = plan(agent(result("c1", "[main abcdef1] two", 9)), [git(commit(A1, "one"), commit(A2, "two"), cwd="/r")],
             [call("c1", "git commit -m two", 5, 8)])
    assert (p.records[0].status, p.records[0].sha) == ("matched", A2) and list(p.claims) == [A2]


def test_the_first_git_session_with_a_folder_is_the_repository_asked(repo: Repo) -> None:
    plan(agent(result("c1", "[main 1234567] x", 9)), [git(cwd=None), git(cwd="/first"), git(cwd="/second")],
         [call("c1", "git commit -m x", 5, 8)])
    assert repo.asked[0] == ("at", "/first") and ("at", "/second") not in repo.asked


def test_the_window_keeps_the_first_event_of_a_sha_and_only_commits(repo: Repo) -> None:
    first = commit(B, "feat: b", branches=["first"])
    again = commit(B, "feat: b", branches=["second"])
    not_a_commit = Event("note", "system", None, [], text="x", info=CommitInfo(sha=C))
    no_info = Event("note", "system", None, [], text="a note without a payload")
    no_sha = commit("", "feat: c")
    p = plan(agent(result("c1", "[main bbbbbbb] feat: b\n[main ccccccc] feat: c", 9)),
             [git(first, not_a_commit, no_info, no_sha), git(again)], [call("c1", "git commit -m 'feat: b'", 5, 8)])
    assert [(r.status, r.branches) for r in p.records] == [("matched", ["first"]), ("missing", [])]


# --- which lines count, and as what -----------------------------------------------------------------


def test_a_commit_line_outside_a_shell_result_names_nothing_made(repo: Repo) -> None:
    line = "[main bbbbbbb] feat: b"
    window = [git(commit(B, "feat: b", branches=["main"]))]
    # a file read (no timed shell call): not counted at all
    assert plan(agent(result("r1", line, 9)), window, []).records == []
    # the output of `git log` / `git show`: a mention
    p = plan(agent(result("c1", line, 9)), window, [call("c1", "git log -1", 5, 8)])
    (rec,) = p.records
    assert (rec.status, rec.rule, rec.sha, rec.branches) == ("mentioned", "G-named-mention", B, ["main"])
    assert p.claims == {} and p.busy == set() and p.named_at == [] and p.counts == {}
    # a note: a mention too
    p = plan(agent(result(None, line, 9, kind="note")), window, [])
    assert [(r.status, r.call_id) for r in p.records] == [("mentioned", None)]
    # a call's own events are not results
    p = plan(agent(Event("tool_call", "agent", iso(9), [], text=line, call_id="c1")), window,
             [call("c1", "git commit -m 'feat: b'", 5, 8)])
    assert p.records == []


def test_a_line_left_out_does_not_hide_the_lines_after_it(repo: Repo) -> None:
    window = [git(commit(B, "feat: b"), commit(C, "feat: c"))]
    # a file read showing a commit line, then Aider's line: the Aider line counts
    p = plan(agent(result("r1", "[main bbbbbbb] feat: b\nCommit ccccccc feat: c", 9)), window, [])
    assert [(r.kind, r.status) for r in p.records] == [("aider", "matched")]
    # a pull request line not printed by `gh pr merge`, then the commit line of `git commit`
    text = "Merged pull request #12 (feat: b)\n[main ccccccc] feat: c"
    p = plan(agent(result("c1", text, 9)), window, [call("c1", "gh pr view 12; git commit -m 'feat: c'", 5, 8)])
    assert [(r.kind, r.status, r.sha) for r in p.records] == [("commit", "matched", C)]


def test_a_head_or_push_line_is_a_mention_in_a_shell_result_only(repo: Repo) -> None:
    window = [git(commit(B, "feat: b"), commit(C, "feat: c"))]
    text = "HEAD is now at bbbbbbb feat: b\n   ccccccc..bbbbbbb  main -> main"
    p = plan(agent(result("c1", text, 9)), window, [call("c1", "git reset --hard HEAD~1 && git push", 5, 8)])
    assert [(r.kind, r.status, r.sha, r.subject) for r in p.records] == [
        ("head", "mentioned", B, "feat: b"), ("push", "mentioned", B, "main -> main")]
    assert p.claims == {} and p.busy == set()
    assert plan(agent(result("r1", text, 9)), window, []).records == []


def test_an_aider_line_is_made_even_without_a_call(repo: Repo) -> None:
    window = [git(commit(B, "feat: b"))]
    p = plan(agent(result(None, "Commit bbbbbbb feat: b", 9, kind="note", actor="subagent:a")), window, [])
    assert [(r.status, r.rule) for r in p.records] == [("matched", "G-named-commit")]
    claim = p.claims[B]
    assert (claim.actor, claim.call_id, claim.score) == ("subagent:a", None, 1.0)
    assert p.named_at == [T0 + 9] and p.busy == set()  # the note's own time
    # a result whose call is not timed: no call to attribute it to, its result's time
    p = plan(agent(result("c7", "Commit bbbbbbb feat: b", 9.5)), window, [])
    assert (p.claims[B].call_id, p.records[0].call_id, p.named_at) == (None, "c7", [T0 + 9.5])
    # an untimed note still names it, and nothing is timed
    p = plan(agent(Event("note", "agent", None, [], text="Commit bbbbbbb feat: b")), window, [])
    assert list(p.claims) == [B] and p.named_at == [] and p.records[0].evidence is None


def test_the_first_line_that_names_a_commit_made_it(repo: Repo) -> None:
    window = [git(commit(B, "feat: b"))]
    first = result("c1", "[main bbbbbbb] feat: b", 9)
    again = result("c2", "[main bbbbbbb] feat: b", 19, ev="ev-r2")
    p = plan(agent(first, again), window, [call("c1", "git commit -m 'feat: b'", 5, 8),
                                           call("c2", "git commit --allow-empty -m x", 15, 18, actor="subagent:z")])
    assert (p.claims[B].call_id, p.claims[B].actor, p.claims[B].named.evidence) == ("c1", "agent", "ev-r1")
    assert [r.status for r in p.records] == ["matched", "matched"] and p.counts["named_matched"] == 2
    assert p.busy == {"c1", "c2"} and p.named_at == [T0 + 8, T0 + 18]


def test_a_merged_pull_request_is_its_commit_in_the_window(repo: Repo) -> None:
    text = "✓ Merged pull request acme/app#12 (Add the thing)"
    window = [git(commit(B, "Add the thing (#12)"), commit(C, "Other (#123)"), commit(D, "Merge pull request #123 x"))]
    p = plan(agent(result("c1", text[2:], 9)), window, [call("c1", "gh pr merge 12 --squash", 5, 8)])
    (rec,) = p.records
    assert (rec.named, rec.kind, rec.subject, rec.status, rec.sha, rec.rule) == (
        "#12", "pr", "Add the thing", "matched", B, "G-named-pull-request")
    assert (p.claims[B].rule, p.claims[B].score) == ("G-named-pull-request", 0.95)
    window = [git(commit(D, "Merge pull request #12 from acme/x"))]
    assert plan(agent(result("c1", text[2:], 9)), window, [call("c1", "gh pr merge 12", 5, 8)]).records[0].sha == D
    # two commits of that pull request: unresolved, and not a missing commit (no warning)
    window = [git(commit(B, "Add (#12)"), commit(D, "Merge pull request #12 from acme/x"))]
    p = plan(agent(result("c1", text[2:], 9)), window, [call("c1", "gh pr merge 12", 5, 8)])
    assert (p.records[0].status, p.records[0].sha, p.claims, p.warnings) == ("unresolved", None, {}, [])
    assert p.counts == {"commits_named": 1}
    # printed by another command (gh pr view): not counted
    assert plan(agent(result("c1", text[2:], 9)), window, [call("c1", "gh pr view 12", 5, 8)]).records == []


def test_a_mention_of_an_unknown_sha_is_unresolved_and_not_a_warning(repo: Repo) -> None:
    p = plan(agent(result("c1", "HEAD is now at 9999999 gone", 9)), [git(commit(B, "x"))],
             [call("c1", "git checkout 9999999", 5, 8)])
    assert (p.records[0].status, p.warnings, p.counts) == ("unresolved", [], {})


def test_no_agent_no_plan() -> None:
    assert plan(None, [git(commit(B, "x"))], []) == NamedPlan()


# --- an amend replaces the commit before it on its branch -----------------------------------------


def amend_session(first: str, second: str, amend: str = "git commit --amend -m 'fix: b2'"
                  ) -> tuple[Session, list[CallSpan]]:
    return (agent(result("c1", first, 9), result("c2", second, 19, ev="ev-r2")),
            [call("c1", "git commit -m 'fix: b'", 5, 8), call("c2", amend, 15, 18)])


def test_an_amend_replaces_the_commit_before_it_on_its_branch(repo: Repo) -> None:
    a, calls = amend_session("[feature bbbbbbb] fix: b", "[feature ccccccc] fix: b2")
    p = plan(a, [git(commit(B, "fix: b", branches=[]), commit(C, "fix: b2", branches=["feature"]))], calls)
    old, new = p.records
    assert (old.status, old.rule, old.amended_as, old.amended_by, old.amends) == (
        "amended", "G-amend", "ccccccc", "c2", None)
    assert (new.status, new.rule, new.amends, new.amended_as) == ("matched", "G-named-commit", "bbbbbbb", None)
    assert p.drop == {B} and list(p.claims) == [C]  # the amended one leaves the timeline
    assert p.counts == {"commits_named": 2, "named_matched": 1, "named_amended": 1} and p.warnings == []


def test_an_amended_commit_the_repository_lost_is_not_missing(repo: Repo) -> None:
    a, calls = amend_session("[feature bbbbbbb] fix: b", "[feature ccccccc] fix: b2")
    p = plan(a, [git(commit(C, "fix: b2"), commit(D, "fix: b"))], calls)  # D: no rewritten form of B, it was amended
    assert [r.status for r in p.records] == ["amended", "matched"]
    assert p.drop == set() and list(p.claims) == [C] and p.warnings == [] and p.records[0].rebased_as is None
    assert p.counts == {"commits_named": 2, "named_matched": 1, "named_amended": 1}


def test_only_an_amend_on_the_same_branch_replaces(repo: Repo) -> None:
    window = [git(commit(B, "fix: b"), commit(C, "fix: b2"))]
    a, calls = amend_session("[feature bbbbbbb] fix: b", "[main ccccccc] fix: b2")  # another branch
    p = plan(a, window, calls)
    assert [r.status for r in p.records] == ["matched", "matched"] and p.drop == set() and len(p.claims) == 2
    a, calls = amend_session("[feature bbbbbbb] fix: b", "[feature ccccccc] fix: b2", amend="git commit -m 'fix: b2'")
    p = plan(a, window, calls)  # not an amend: two commits
    assert [r.status for r in p.records] == ["matched", "matched"] and p.drop == set()
    assert [r.amends for r in p.records] == [None, None]
    a, calls = amend_session("Commit bbbbbbb fix: b", "Commit ccccccc fix: b2")  # Aider's lines: no branch to amend on
    assert [r.status for r in plan(a, window, calls).records] == ["matched", "matched"]
    # an Aider line before them does not stop the amend from being seen
    a = agent(result(None, "Commit ddddddd other", 1, kind="note"), result("c1", "[f bbbbbbb] fix: b", 9),
              result("c2", "[f ccccccc] fix: b2", 19, ev="ev-r2"))
    p = plan(a, [git(commit(B, "fix: b"), commit(C, "fix: b2"), commit(D, "other"))], calls)
    assert [r.status for r in p.records] == ["matched", "amended", "matched"] and p.drop == {B}
    # the first commit on a branch amends nothing, even with --amend
    a = agent(result("c2", "[feature ccccccc] fix: b2", 19, ev="ev-r2"))
    p = plan(a, window, [call("c2", "git commit --amend -m 'fix: b2'", 15, 18)])
    assert (p.records[0].amends, p.counts) == (None, {"commits_named": 1, "named_matched": 1})


def test_an_amended_commit_outside_the_window_takes_nothing_from_the_window(repo: Repo) -> None:
    repo.full["bbbbbbb"] = B  # the repository holds it, before the window
    a, calls = amend_session("[feature bbbbbbb] fix: b", "[feature ccccccc] fix: b2")
    p = plan(a, [git(commit(C, "fix: b2"), cwd="/r")], calls)
    assert [r.status for r in p.records] == ["amended", "matched"] and p.records[0].sha == B
    assert p.drop == set() and list(p.claims) == [C]
    assert p.counts == {"commits_named": 2, "named_matched": 1, "named_amended": 1}


def test_a_second_amend_replaces_the_first_one(repo: Repo) -> None:
    a = agent(result("c1", "[f bbbbbbb] x", 9), result("c2", "[f ccccccc] x", 19, ev="ev-r2"),
              result("c3", "[f ddddddd] x", 29, ev="ev-r3"), result("c4", "[g eeeeeee] y", 39, ev="ev-r4"))
    calls = [call("c1", "git commit -m x", 5, 8), call("c2", "git commit --amend -m x", 15, 18),
             call("c3", "git commit --amend -m x", 25, 28), call("c4", "git commit -m y", 35, 38)]
    p = plan(a, [git(commit(B, "x"), commit(C, "x"), commit(D, "x"), commit(E, "y"))], calls)
    assert [(r.status, r.amended_as, r.amends) for r in p.records] == [
        ("amended", "ccccccc", None), ("amended", "ddddddd", "bbbbbbb"), ("matched", None, "ccccccc"),
        ("matched", None, None)]
    assert p.drop == {B, C} and list(p.claims) == [D, E]
    assert p.counts == {"commits_named": 4, "named_matched": 2, "named_amended": 2}


def test_an_amend_back_to_an_earlier_commit_then_amended_again_ends_with_the_last(repo: Repo) -> None:
    # within one second, amending the message back makes the first commit again (B, C, B, then D)
    lines = ["[f bbbbbbb] x", "[f ccccccc] y", "[f bbbbbbb] x", "[f ddddddd] z"]
    a = agent(*[result(f"c{i}", line, 10 * i + 9, ev=f"ev-r{i}") for i, line in enumerate(lines, 1)])
    calls = [call("c1", "git commit -m x", 5, 8)] + [
        call(f"c{i}", "git commit --amend -m x", 10 * i + 5, 10 * i + 8) for i in (2, 3, 4)]
    p = plan(a, [git(commit(B, "x"), commit(C, "y"), commit(D, "z"))], calls)
    assert [r.status for r in p.records] == ["amended", "amended", "amended", "matched"]
    assert p.drop == {B, C} and list(p.claims) == [D]
    assert p.counts == {"commits_named": 4, "named_matched": 1, "named_amended": 3}


# --- a named commit the repository lacks, and the one it became ---------------------------------------


def rewritten(*window: Event, at: float = 9, note: bool = False) -> NamedPlan:
    if note:
        a = agent(Event("note", "agent", None, [], text="Commit 9999999 feat: x"))
        return plan(a, [git(*window)], [])
    return plan(agent(result("c1", "[main 9999999] feat: x", at, ev="ev-r3")), [git(*window)],
                [call("c1", "git commit -m 'feat: x'", at - 4, at - 1)])


def missing(where: str) -> ReadingWarning:
    return warning("git_named_commit_missing", "the result of call c1 names commit 9999999 (feat: x), which the "
                   f"repository does not hold{where}", line=13)


def test_a_rewritten_commit_is_linked_by_subject_and_author_date(repo: Repo) -> None:
    p = rewritten(commit(B, "feat: x", authored=10, branches=["main"]), commit(C, "feat: y", authored=1), at=9)
    (rec,) = p.records  # named at 8 (the call's end): authored by 10 = 8 + 2 s of slack
    assert (rec.status, rec.sha, rec.rebased_as, rec.rule, rec.branches) == (
        "missing", None, B, "G-named-rewritten", ["main"])
    claim = p.claims[B]
    assert (claim.sha, claim.rule, claim.score, claim.call_id, claim.actor) == (
        B, "G-named-rewritten", 0.7, "c1", "agent")
    assert p.warnings == [missing(f"; rebased as {B} (same subject, authored before the log named it)")]
    assert p.counts == {"commits_named": 1, "named_missing": 1, "named_rewritten": 1}


def test_a_rewritten_commit_is_never_linked_on_its_subject_alone(repo: Repo) -> None:
    none = "; no rewritten form found in the window"
    later = rewritten(commit(B, "feat: x", authored=10.5), at=9)  # authored after the log named it
    undated = rewritten(commit(B, "feat: x", authored=None), at=9)
    other = rewritten(commit(B, "feat: y", authored=1), at=9)
    for p in (later, undated, other):
        assert (p.records[0].rebased_as, p.records[0].rule, p.claims) == (None, None, {})
        assert p.warnings == [missing(none)] and p.counts == {"commits_named": 1, "named_missing": 1}
    two = rewritten(commit(B, "feat: x", authored=1), commit(C, "feat: x", authored=2), at=9)
    assert (two.records[0].rebased_as, two.claims) == (None, {})
    assert two.warnings == [missing("; 2 commits in the window have its subject: not linked")]


def test_a_commit_another_line_made_is_not_a_rewritten_form(repo: Repo) -> None:
    a = agent(result("c1", "[main bbbbbbb] feat: x", 5), result("c2", "[main 9999999] feat: x", 9, ev="ev-r3"))
    p = plan(a, [git(commit(B, "feat: x", authored=1))],
             [call("c1", "git commit -m 'feat: x'", 1, 4), call("c2", "git commit -m 'feat: x'", 5, 8)])
    assert [r.status for r in p.records] == ["matched", "missing"] and p.records[1].rebased_as is None
    assert list(p.claims) == [B] and p.claims[B].call_id == "c1"


def test_an_untimed_naming_links_any_author_date(repo: Repo) -> None:
    p = rewritten(commit(B, "feat: x", authored=3000), note=True)
    assert p.records[0].rebased_as == B and p.claims[B].call_id is None
    assert p.warnings == [ReadingWarning(
        "git_named_commit_missing", f"a note names commit 9999999 (feat: x), which the repository does not hold; "
        f"rebased as {B} (same subject, authored before the log named it)", None, None)]


# --- a named commit's copies -------------------------------------------------------------------------


def same_change(*window: Event) -> list[str]:
    p = plan(agent(result("c1", "[main bbbbbbb] feat: b", 9)), [git(*window)],
             [call("c1", "git commit -m 'feat: b'", 5, 8)])
    assert p.records[0].status == "matched"
    return p.records[0].same_change_as


def test_a_named_commits_copies_are_its_patch_id_or_its_authorship() -> None:
    named = commit(B, "feat: b", patch_id="p1", authored=1)
    assert same_change(named, commit(C, "other", patch_id="p1", authored=5), commit(D, "feat: b", authored=1),
                       commit(E, "feat: b", authored=2)) == [C, D]
    assert same_change(named, commit(C, "feat: b", authored=1, author=("Bob", "ada@example.org")),
                       commit(D, "feat: b", authored=1, author=("Ada Dev", "bob@example.org"))) == []
    # no patch id is not a patch id in common, and no author date is not a date in common
    assert same_change(commit(B, "feat: b", authored=None), commit(C, "other", authored=None),
                       commit(D, "feat: b", authored=None)) == []


def test_a_named_commit_only_a_reflog_holds_was_rebased_as_its_copy_on_a_branch() -> None:
    def rebased(branches: list[str] | None, *copies: Event) -> str | None:
        p = plan(agent(result("c1", "[main bbbbbbb] feat: b", 9)),
                 [git(commit(B, "feat: b", patch_id="p1", branches=branches), *copies)],
                 [call("c1", "git commit -m 'feat: b'", 5, 8)])
        return p.records[0].rebased_as

    on_main = commit(C, "feat: b", patch_id="p1", branches=["main"])
    assert rebased([], on_main, commit(D, "feat: b", patch_id="p1", branches=[])) == C
    assert rebased(None, on_main) is None  # not asked: not known to be rewritten
    assert rebased(["main"], on_main) is None
    assert rebased([], on_main, commit(D, "feat: b", patch_id="p1", branches=["dev"])) is None  # two: which?
    assert rebased([]) is None


def test_an_amend_that_made_the_same_commit_replaces_nothing(tmp_path: Path, repo: Repo) -> None:
    # `commit --amend --no-edit` with nothing staged, in the same second: git makes the very same commit
    from _gitrepo import Repo as GitRepo

    r = GitRepo(tmp_path / "same")
    r.write("a.py", "x\n")
    sha = r.commit("fix: b", when="@1767261605 +0000")
    r.git("commit", "-q", "--amend", "--no-edit", when="@1767261605 +0000")
    assert r.git("rev-parse", "HEAD").strip() == sha
    a, calls = amend_session(f"[feature {sha[:7]}] fix: b", f"[feature {sha[:7]}] fix: b",
                             amend="git commit --amend --no-edit")
    p = plan(a, [git(commit(sha, "fix: b", branches=["feature"]))], calls)
    assert p.drop == set() and list(p.claims) == [sha] and p.claims[sha].call_id == "c1"
    assert [(x.status, x.amended_as, x.amends) for x in p.records] == [("matched", None, None)] * 2
    assert p.counts == {"commits_named": 2, "named_matched": 2}
    # neither in the repository: one short sha the start of the other is still one commit
    a, calls = amend_session("[feature 9999999] fix: b", "[feature 999999999] fix: b",
                             amend="git commit --amend --no-edit")
    p = plan(a, [git()], calls)
    assert [(x.status, x.amended_as, x.amends) for x in p.records] == [("missing", None, None)] * 2
