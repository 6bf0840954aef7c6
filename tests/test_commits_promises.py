"""rules/commits.py, attributing one commit no log line names: which call a commit goes to.

Hand-built commit events, timed calls (`CallSpan`) and named plans; every expectation is computed
by hand from the module's rules (its docstring): the `git commit` call whose time brackets the
commit (± 2 s) wins, its score 0.8 + 0.2 x the subject's partial ratio in the command; a call the
log contradicts (busy, failed, another `-m` subject) is refused; else the edit calls since the
previous commit (and since the last result that named a commit) that touch its files.
"""

from __future__ import annotations

import dataclasses
import time

import pytest

from forsy.evidence import Event
from forsy.payloads import CommitInfo, Match
from forsy.rules.commits import CallSpan, Claim, NamedPlan, NamedRecord, attribute, message_subject, named_in, to_epoch

T0 = 1767261600.0  # 2026-01-01T10:00:00Z


def commit(subject: str | None, *files: str, sha: str = "c" * 40) -> Event:
    info = CommitInfo(sha=sha, files=[{"path": f, "status": "M"} for f in files])  # type: ignore[typeddict-item]
    return Event("commit", "human:git", None, [], text=None if subject is None else f"{subject}\n\nthe body\nand more",
                 info=info)


def call(cid: str, start: float, end: float, command: str | None = None, *, paths: tuple[str, ...] = (),
         raw: str | None = None, failed: bool = False, actor: str = "agent") -> CallSpan:
    ev = Event("tool_call", actor, None, [], call_id=cid, tool="Bash" if command else "Edit")
    return CallSpan(ev, T0 + start, T0 + end, command, list(paths), raw_command=raw, failed=failed)


def attr(e: Event, at: float, calls: list[CallSpan], named: NamedPlan | None = None,
         prev: float = -1000.0) -> tuple[Event, str]:
    return attribute(e, T0 + at, T0 + prev, calls, named or NamedPlan())


def match_of(e: Event) -> Match | None:
    assert isinstance(e.info, CommitInfo)
    return e.info.match


# --- the log's claim comes first ---------------------------------------------------------------


def test_a_claimed_commit_carries_the_naming_record_whatever_the_calls_say() -> None:
    rec = NamedRecord("abc1234", "commit", "feat: a", "c1", "ev-r1", "/message/content/0/content", (3, 30),
                      inner_pointer="/output")
    named = NamedPlan(claims={"c" * 40: Claim("c" * 40, "G-named-commit", 1.0, "subagent:s1", "c1", rec)})
    other = call("c9", 0, 10, "git commit -m 'feat: a'", actor="agent")  # a bracketing call: not asked
    new, verdict = attr(commit("feat: a", "a.py", "b.py"), 5, [other], named)
    assert verdict == "matched"
    assert new.actor == "subagent:s1"
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c1"
    assert new.info.match == Match("G-named-commit", 1.0, files=("a.py", "b.py"), calls=("c1",), evidence="ev-r1",
                                   pointer="/message/content/0/content", inner_pointer="/output", span=(3, 30))
    assert new.info.sha == "c" * 40 and new.info.possible_match is None


def test_a_claim_without_a_call_lists_no_call() -> None:
    rec = NamedRecord("abc1234", "aider", "feat: a", None, "ev-n", None, (0, 20))
    named = NamedPlan(claims={"c" * 40: Claim("c" * 40, "G-named-rewritten", 0.7, "agent", None, rec)})
    new, verdict = attribute(commit("feat: a"), None, 0.0, [], named)  # no time needed
    assert verdict == "matched" and new.actor == "agent"
    assert match_of(new) == Match("G-named-rewritten", 0.7, files=(), calls=(), evidence="ev-n", span=(0, 20))
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id is None


def test_an_untimed_commit_nobody_claims_is_the_humans_as_read() -> None:
    e = commit("feat: a", "a.py")
    new, verdict = attribute(e, None, 0.0, [call("c1", 0, 10, "git commit -m 'feat: a'")], NamedPlan())
    assert verdict == "human" and new is e


# --- the `git commit` call whose time brackets the commit ----------------------------------------


def test_the_bracket_is_the_call_time_with_two_seconds_either_side() -> None:
    c = call("c1", 10, 20, "git commit -F msg.txt")
    for at, verdict in ((8.0, "matched"), (7.5, "human"), (22.0, "matched"), (22.5, "human"), (15, "matched")):
        new, got = attr(commit("qqqq"), at, [c])
        assert got == verdict, at
        if verdict == "matched":
            assert match_of(new) == Match("shell-git-commit+time", 0.8, files=())


def test_a_strong_match_scores_the_subject_found_in_the_command() -> None:
    full = call("c1", 0, 10, 'git commit -m "fix: typo"', actor="subagent:s2")
    new, verdict = attr(commit("fix: typo", "a.py"), 5, [full])
    assert verdict == "matched" and new.actor == "subagent:s2"
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c1"
    assert new.info.match == Match("shell-git-commit+time", 1.0, files=("a.py",))
    # no character of the subject in the command: 0.8 + 0.2 x 0
    new, _ = attr(commit("qqqq", "a.py"), 5, [call("c2", 0, 10, "git commit -F m.txt")])
    assert match_of(new) == Match("shell-git-commit+time", 0.8, files=("a.py",))
    # no subject at all: 0.8, whatever the command holds
    new, _ = attr(commit(None), 5, [call("c3", 0, 10, "git commit -m 'zz qq'")])
    assert match_of(new) == Match("shell-git-commit+time", 0.8, files=())


def test_the_best_subject_wins_over_a_later_call_and_a_tie_goes_to_the_later() -> None:
    named_it = call("c1", 0, 10, 'git commit -m "fix: typo"')
    later = call("c2", 2, 10, "git commit -F m.txt")
    new, _ = attr(commit("fix: typo"), 5, [named_it, later])
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c1"
    new, _ = attr(commit("fix: typo"), 5, [later, named_it])  # the order of the calls does not count
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c1"
    a, b = call("a", 0, 10, "git commit -F m.txt"), call("b", 3, 10, "git commit -F n.txt")
    for calls in ([a, b], [b, a]):
        new, _ = attr(commit("qqqq"), 5, calls)
        assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "b"


def test_only_a_git_command_that_makes_commits_is_a_strong_match() -> None:
    for cmd in ("git status", "git log -1", "git show HEAD", "legit commit", "git commitx"):
        _, verdict = attr(commit("qqqq"), 5, [call("c1", 0, 10, cmd)])
        assert verdict == "human", cmd
    _, verdict = attr(commit("qqqq"), 5, [call("c1", 0, 10, None)])
    assert verdict == "human"
    for cmd in ("git merge topic", "git -C repo cherry-pick abc", "cd x && git rebase main", "git pull"):
        _, verdict = attr(commit("qqqq"), 5, [call("c1", 0, 10, cmd)])
        assert verdict == "matched", cmd


def test_a_call_the_log_contradicts_is_refused_not_matched() -> None:
    e = commit("abcde", "a.py")
    busy = NamedPlan(busy={"c1"})
    assert attr(e, 5, [call("c1", 0, 10, "git commit -F m")], busy)[1] == "refused"
    assert attr(e, 5, [call("c1", 0, 10, "git commit -F m", failed=True)])[1] == "refused"
    # the -m subject: a ratio of 60 is another commit, 80 is still this one
    assert attr(e, 5, [call("c1", 0, 10, "git commit -m abcxy")])[1] == "refused"
    new, verdict = attr(e, 5, [call("c1", 0, 10, "git commit -m abcdx")])
    assert verdict == "matched" and match_of(new) == Match("shell-git-commit+time", 0.96, files=("a.py",))
    # the raw command (a heredoc's lines) is what the message is read from
    raw = "git commit -m \"$(cat <<'EOF'\nabcxy\n\nbody\nEOF\n)\""
    assert attr(e, 5, [call("c1", 0, 10, "git commit -m abcde", raw=raw)])[1] == "refused"
    # a commit without a subject is not refused for its message
    assert attr(commit(None), 5, [call("c1", 0, 10, "git commit -m abcxy")])[1] == "matched"


def test_a_call_that_is_no_git_commit_leaves_the_next_one_its_chance() -> None:
    for first in (call("e1", 0, 10, None), call("s1", 0, 10, "ls"), call("s2", 20, 30, "git commit -F m")):
        new, verdict = attr(commit("qqqq"), 5, [first, call("c2", 1, 10, "git commit -F m")])
        assert verdict == "matched" and isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c2"


def test_two_calls_alike_in_time_and_score_go_to_the_first_in_the_log() -> None:
    a, b = call("a", 0, 10, "git commit -F m.txt"), call("b", 0, 10, "git commit -F n.txt")
    new, _ = attr(commit("qqqq"), 5, [a, b])
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "a"


def test_scores_are_rounded_to_three_places() -> None:
    # "abx" in the command: partial ratio 2 x 2 / 6 = 66.67: 0.8 + 0.2 x 0.6667 = 0.93333
    new, _ = attr(commit("abc"), 5, [call("c1", 0, 10, "git commit -F abx")])
    assert match_of(new) == Match("shell-git-commit+time", 0.933, files=())
    # 4 of 7 files edited: 0.5 x 4/7 = 0.28571
    e = commit("qqqq", *(f"f{i}.py" for i in range(7)))
    new, _ = attr(e, 10, [call("e1", 1, 2, paths=("f0.py", "f1.py", "f2.py", "f3.py"))], prev=0)
    assert match_of(new) == Match("edits-before-commit", 0.286, files=("f0.py", "f1.py", "f2.py", "f3.py"),
                                  calls=("e1",))


def test_a_refused_call_leaves_the_next_one_its_chance() -> None:
    refused = call("c1", 0, 10, "git commit -m other", failed=True)
    fine = call("c2", 1, 10, "git commit -F m")
    new, verdict = attr(commit("abcde"), 5, [refused, fine])
    assert verdict == "matched" and isinstance(new.info, CommitInfo) and new.info.matched_call_id == "c2"


# --- the first line of a -m message -------------------------------------------------------------


def test_message_subject_reads_the_first_line_of_every_form() -> None:
    assert message_subject('git commit -m "fix: typo\n\nbody\nmore body"') == "fix: typo"
    assert message_subject('git commit -m "first" && echo "done"') == "first"
    assert message_subject('git commit --allow-empty-message -m "" && echo "x"') == ""
    assert message_subject("git commit -m ' padded  '") == "padded"
    assert message_subject("git commit -am 'both flags'") == "both flags"
    assert message_subject('git commit --message="long form" -q') == "long form"
    assert message_subject("git commit --message=bare -q") == "bare"
    assert message_subject("git commit -m bare words") == "bare"
    assert message_subject("git commit -m 'never closed") == "never closed"
    assert message_subject('git commit -m "it\'s mixed" x') == "it's mixed"
    assert message_subject("git commit -m \"$(cat <<'EOF'\n  Heredoc subject  \nmore\nEOF\n)\"") == "Heredoc subject"
    assert message_subject('git commit -m "$(cat <<-EOF\nTabbed\nEOF\n)"') == "Tabbed"
    assert message_subject("git commit -m") is None
    assert message_subject("git commit -m   ") is None
    assert message_subject("git commit -F msg.txt") is None
    assert message_subject("git commit --amend --no-edit") is None
    assert message_subject("git commit-m x") is None  # not an option: no space before it


# --- edits before the commit ----------------------------------------------------------------------


def test_edits_covering_half_the_files_match_the_last_edit() -> None:
    e = commit("qqqq", "src/a.py", "src/b.py", "c.py", "d.py")
    first = call("e1", 1, 2, paths=("/home/u/proj/src/a.py",), actor="agent")
    second = call("e2", 3, 4, paths=("./c.py", "other.py"), actor="subagent:s3")
    new, verdict = attr(e, 10, [second, first], prev=0)
    assert verdict == "matched" and new.actor == "subagent:s3"
    assert isinstance(new.info, CommitInfo) and new.info.matched_call_id == "e2"
    assert new.info.match == Match("edits-before-commit", 0.25, files=("c.py", "src/a.py"), calls=("e2", "e1"))


def test_edits_covering_less_than_half_are_only_a_possible_match() -> None:
    e = commit("qqqq", "a.py", "b.py", "c.py")
    new, verdict = attr(e, 10, [call("e1", 1, 2, paths=("a.py",)), call("e2", 3, 4, paths=("a.py",))], prev=0)
    assert verdict == "uncertain" and new.actor == "human:git"
    assert isinstance(new.info, CommitInfo) and new.info.match is None and new.info.matched_call_id is None
    assert new.info.possible_match == Match("edits-before-commit", 0.167, call_id="e2", files=("a.py",))


def test_only_edits_after_the_previous_commit_and_not_after_this_one_count() -> None:
    e = commit("qqqq", "a.py")
    at_prev = call("e1", 0, 1, paths=("a.py",))  # starts at the previous commit: before it
    at_commit = call("e2", 10, 11, paths=("a.py",))  # starts with the commit: counts
    after = call("e3", 10.5, 11, paths=("a.py",))
    new, verdict = attr(e, 10, [at_prev, at_commit, after], prev=0)
    assert verdict == "matched" and isinstance(new.info, CommitInfo)
    assert new.info.match is not None and new.info.match.calls == ("e2",)
    assert attr(e, 10, [at_prev, after], prev=0)[1] == "human"


def test_a_commit_without_files_is_never_matched_by_edits() -> None:
    assert attr(commit("qqqq"), 10, [call("e1", 1, 2, paths=("a.py",))], prev=0)[1] == "human"


def test_edits_before_a_result_that_named_a_commit_are_that_commits() -> None:
    e = commit("qqqq", "a.py")
    edit = call("e1", 2, 3, paths=("a.py",))
    named = NamedPlan(named_at=[T0 + 5, T0 + 20])  # 20: after the commit, not counted
    assert attr(e, 10, [edit], named, prev=0)[1] == "refused"  # the agent's edits, committed before
    named = NamedPlan(named_at=[T0 + 1])  # named before the edit: the edit is this commit's
    assert attr(e, 10, [edit], named, prev=0)[1] == "matched"
    named = NamedPlan(named_at=[T0 + 10])  # named at the commit's own time: counted
    assert attr(e, 10, [edit], named, prev=0)[1] == "refused"
    # a previous commit later than the naming is the bound
    assert attr(e, 10, [edit], NamedPlan(named_at=[T0 + 1]), prev=4)[1] == "human"


def test_half_the_files_edited_before_a_naming_result_is_enough_to_refuse() -> None:
    e = commit("qqqq", "a.py", "b.py")
    assert attr(e, 10, [call("e1", 2, 3, paths=("a.py",))], NamedPlan(named_at=[T0 + 5]), prev=0)[1] == "refused"


def test_a_few_edits_before_a_naming_result_leave_the_commit_human() -> None:
    e = commit("qqqq", "a.py", "b.py", "c.py")
    edit = call("e1", 2, 3, paths=("a.py",))  # a third: below the floor
    assert attr(e, 10, [edit], NamedPlan(named_at=[T0 + 5]), prev=0)[1] == "human"


def test_an_agent_path_names_a_repository_file_only_whole() -> None:
    def verdict(agent_path: str, repo_path: str) -> str:
        return attr(commit("qqqq", repo_path), 10, [call("e1", 1, 2, paths=(agent_path,))], prev=0)[1]

    assert verdict("/home/u/proj/src/a.py", "src/a.py") == "matched"
    assert verdict("C:\\proj\\src\\a.py", "src/a.py") == "matched"  # a Windows drive: absolute too
    assert verdict("c:/proj/src/a.py", "src/a.py") == "matched"
    assert verdict("C:\\proj\\src\\ba.py", "src/a.py") == "human"
    assert verdict("src\\a.py", "src/a.py") == "matched"
    assert verdict("./src/a.py", "src/a.py") == "matched"
    assert verdict("a.py", "src/a.py") == "matched"  # relative to a subfolder of the repository
    assert verdict("/home/u/proj/src/ba.py", "src/a.py") == "human"
    assert verdict("/a.py", "src/a.py") == "human"
    assert verdict("ba.py", "src/a.py") == "human"
    assert verdict("lib/a.py", "src/a.py") == "human"
    assert verdict("src/a.py/x", "src/a.py") == "human"
    assert verdict("proj/src/a.py", "src/a.py") == "human"  # a relative path longer than the file's


# --- what a text names, and times -----------------------------------------------------------------


def test_named_in_reads_every_line_kind_with_its_span_in_text_order() -> None:
    text = ("HEAD is now at 1234567 old subject\n"
            "[feat/x (root-commit) abcdef0] first\n"
            "Commit 89abcde aider subject\n"
            "   1111111..2222222  main -> main\n"
            "[detached HEAD 3333333] on no branch\n"
            "Merged pull request owner/repo#12 (the title)\n")
    got = [(n.kind, n.sha, n.subject, n.made, n.branch, n.pr, text[n.span[0]:n.span[1]]) for n in named_in(text)]
    assert got == [
        ("head", "1234567", "old subject", False, None, None, "HEAD is now at 1234567 old subject"),
        ("commit", "abcdef0", "first", True, "feat/x", None, "[feat/x (root-commit) abcdef0] first"),
        ("aider", "89abcde", "aider subject", True, None, None, "Commit 89abcde aider subject"),
        ("push", "2222222", "main -> main", False, None, None, "   1111111..2222222  main -> main"),
        ("commit", "3333333", "on no branch", True, "detached HEAD", None, "[detached HEAD 3333333] on no branch"),
        ("pr", "", "the title", True, None, 12, "Merged pull request owner/repo#12 (the title)"),
    ]
    assert named_in("[main abc123] six hex digits is too short\nCommit ABCDEF0 upper") == []


def test_to_epoch_reads_iso_times_and_refuses_the_rest() -> None:
    assert to_epoch("2026-01-01T10:00:00Z") == T0
    assert to_epoch("  2026-01-01T10:00:00  ") == T0  # naive: UTC
    assert to_epoch("2026-01-01T12:00:00+02:00") == T0
    assert to_epoch("2026-01-01T10:00:01.500Z") == T0 + 1.5
    for bad in (None, "", "yesterday", "  "):
        assert to_epoch(bad) is None


def test_a_naive_time_is_utc_whatever_the_machines_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert to_epoch("2026-01-01T10:00:00") == T0
        assert to_epoch("2026-01-01T10:00:00Z") == T0
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_copy_is_returned_and_the_input_event_is_untouched() -> None:
    e = commit("fix: typo", "a.py")
    before = dataclasses.replace(e)
    new, _ = attr(e, 5, [call("c1", 0, 10, 'git commit -m "fix: typo"')])
    assert e == before and new is not e
