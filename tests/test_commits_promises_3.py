"""rules/commits.py, `G-squash`: a window commit that holds, as one change, the agent's commits.

The window (oldest first) holds the agent's named commits and, after them, a candidate squash; the
repository is a scripted double (tests/test_commits_promises_2.py) answering `is_ancestor` and
`range_patch_id` from tables, so each condition of the rule is pinned alone: the candidate needs a
patch id equal to the tip's range (two commits or more), one parent, the tip's files, and must not
descend from the tip (a descendant holds the commits, it does not squash them).
"""

from __future__ import annotations

import pytest

from forsy.evidence import Event
from forsy.rules import commits
from forsy.rules.commits import NamedPlan, plan
from test_commits_promises_2 import Repo, agent, call, commit, git, result

B, C, D, E, P = "b" * 40, "c" * 40, "d" * 40, "e" * 40, "f" * 40  # P: where the branch left main


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch) -> Repo:
    r = Repo()
    r.ranges[(P, C)] = ("pid-bc", [B, C])
    monkeypatch.setattr(commits, "GitLookup", r)
    return r


def squash_plan(*window: Event, cwd: str | None = "/r", name_d: bool = True) -> NamedPlan:
    lines = ["[feat bbbbbbb] b", "[feat ccccccc] c"] + (["[main ddddddd] squashed"] if name_d else [])
    a = agent(*[result(f"c{i}", line, 10 * i + 9, ev=f"ev-r{i}") for i, line in enumerate(lines, 1)])
    calls = [call(f"c{i}", "git commit -m x", 10 * i + 5, 10 * i + 8) for i in range(1, len(lines) + 1)]
    return plan(a, [git(*window, cwd=cwd)], calls)


def agents(*, files_c: tuple[str, ...] = ("a.py",)) -> list[Event]:
    return [commit(B, "b", files=("a.py",), parents=(P,)), commit(C, "c", files=files_c, parents=(B,))]


def test_a_squash_lists_the_agents_commits_it_holds(repo: Repo) -> None:
    p = squash_plan(*agents(), commit(D, "squashed", files=("a.py", "b.py"), patch_id="pid-bc", parents=(P,)))
    assert p.squashes == [(D, [B, C])]
    assert [r.squash_of for r in p.records] == [[], [], [B, C]]
    # the latest tip's range holds the earlier: the earlier tip is not asked about D again
    assert [x for x in repo.asked if x[0] == "range"] == [("range", P, C)]


def test_a_squash_nobody_named_is_still_listed(repo: Repo) -> None:
    p = squash_plan(*agents(), commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,)), name_d=False)
    assert p.squashes == [(D, [B, C])] and [r.squash_of for r in p.records] == [[], []]


def test_a_rewritten_tip_is_where_the_range_ends(repo: Repo) -> None:
    # the log named 9999999, which the repository lacks; C is its rewritten form (same subject, authored before)
    a = agent(result("c1", "[feat 9999999] c", 9))
    window = [commit(C, "c", files=("a.py",), parents=(B,), authored=1),
              commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,))]
    p = plan(a, [git(*window, cwd="/r")], [call("c1", "git commit -m c", 5, 8)])
    assert p.records[0].rebased_as == C and p.squashes == [(D, [B, C])] and p.records[0].squash_of == []


@pytest.mark.parametrize("why, squash", [
    ("no patch id", commit(D, "squashed", files=("a.py",), parents=(P,))),
    ("another change", commit(D, "squashed", files=("a.py",), patch_id="pid-other", parents=(P,))),
    ("a merge", commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P, C))),
    ("a root", commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=())),
    ("not the tip's files", commit(D, "squashed", files=("b.py",), patch_id="pid-bc", parents=(P,))),
])
def test_a_commit_is_not_a_squash_unless_every_condition_holds(repo: Repo, why: str, squash: Event) -> None:
    p = squash_plan(*agents(), squash)
    assert p.squashes == [] and all(r.squash_of == [] for r in p.records), why


def test_a_descendant_of_the_tip_holds_its_commits_and_squashes_nothing(repo: Repo) -> None:
    repo.ancestors.add((C, D))
    p = squash_plan(*agents(), commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,)))
    assert p.squashes == [] and ("range", P, C) not in repo.asked


def test_a_range_of_one_commit_or_none_is_not_a_squash(repo: Repo) -> None:
    repo.ranges[(P, C)] = ("pid-bc", [C])  # a cherry-pick of one commit: a copy, not a squash
    assert squash_plan(*agents(), commit(D, "s", files=("a.py",), patch_id="pid-bc", parents=(P,))).squashes == []
    del repo.ranges[(P, C)]  # git could not say
    assert squash_plan(*agents(), commit(D, "s", files=("a.py",), patch_id="pid-bc", parents=(P,))).squashes == []


def test_a_commit_before_the_tip_is_not_its_squash(repo: Repo) -> None:
    early = commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,))
    assert squash_plan(early, *agents()).squashes == []


def test_without_a_repository_there_is_no_squash(repo: Repo) -> None:
    p = squash_plan(*agents(), commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,)), cwd=None)
    assert p.squashes == [] and repo.asked == []


def test_only_commits_the_agent_made_are_tips(repo: Repo) -> None:
    # C only mentioned (a `git log` output), B outside the window: no tip, no squash
    repo.full["bbbbbbb"] = B
    a = agent(result("c1", "[feat bbbbbbb] b", 9), result("c2", "[feat ccccccc] c", 19, ev="ev-r2"))
    window = [commit(C, "c", files=("a.py",), parents=(B,)),
              commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,))]
    p = plan(a, [git(*window, cwd="/r")], [call("c1", "git commit -m b", 5, 8), call("c2", "git log -1", 15, 18)])
    assert [r.status for r in p.records] == ["outside_window", "mentioned"] and p.squashes == []


def test_two_squashes_of_two_branches_are_told_apart(repo: Repo) -> None:
    repo.ranges[(P, E)] = ("pid-e", [D, E])
    lines = ["[f1 ccccccc] c", "[f2 eeeeeee] e"]
    a = agent(*[result(f"c{i}", line, 10 * i + 9, ev=f"ev-r{i}") for i, line in enumerate(lines, 1)])
    calls = [call(f"c{i}", "git commit -m x", 10 * i + 5, 10 * i + 8) for i in (1, 2)]
    s1, s2 = "1" * 40, "2" * 40
    window = [commit(C, "c", files=("a.py",), parents=(B,)), commit(E, "e", files=("e.py",), parents=(D,)),
              commit(s1, "s1", files=("a.py",), patch_id="pid-bc", parents=(P,)),
              commit(s2, "s2", files=("e.py",), patch_id="pid-e", parents=(P,))]
    p = plan(a, [git(*window, cwd="/r")], calls)
    assert sorted(p.squashes) == [(s1, [B, C]), (s2, [D, E])]


def test_the_latest_tip_is_asked_first_in_the_windows_order_not_the_shas(repo: Repo) -> None:
    # an empty last commit X ("1"*40 sorts before every other sha): its range holds B, C and itself
    x = "1" * 40
    repo.ranges[(P, x)] = ("pid-bc", [B, C, x])
    lines = ["[feat bbbbbbb] b", "[feat ccccccc] c", "[feat 1111111] empty"]
    a = agent(*[result(f"c{i}", line, 10 * i + 9, ev=f"ev-r{i}") for i, line in enumerate(lines, 1)])
    calls = [call(f"c{i}", "git commit -m x", 10 * i + 5, 10 * i + 8) for i in (1, 2, 3)]
    window = [*agents(), commit(x, "empty", parents=(C,)),
              commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,))]
    assert plan(a, [git(*window, cwd="/r")], calls).squashes == [(D, [B, C, x])]


def test_a_descendant_or_another_change_before_the_squash_does_not_hide_it(repo: Repo) -> None:
    child = commit(E, "after c", files=("a.py",), patch_id="pid-child", parents=(C,))
    repo.ancestors.add((C, E))
    squash = commit(D, "squashed", files=("a.py",), patch_id="pid-bc", parents=(P,))
    assert squash_plan(*agents(), child, squash).squashes == [(D, [B, C])]
    other = commit(E, "unrelated", files=("a.py",), patch_id="pid-other", parents=(P,))
    repo.ancestors.clear()
    assert squash_plan(*agents(), other, squash).squashes == [(D, [B, C])]
