"""Where a forked Codex thread's copy of its parent's history ends (`sources/codex/_fork.py`),
decision by decision: which files may hold the parent (the fork's folder, then the
`sessions/YYYY/MM/DD` tree it is in, then the read root; each once, in that order, rollouts
only), which rule marks the thread's own start (a `fork_reference`, the parent's file, or none:
then a warning at the line the copy begins), and how far a copy matches its parent when Codex
left out the records it never writes again. Built by hand in the recorder's layout: a fork's
file begins with its own `session_meta` (`forked_from_id`), then the parent's, then the copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forsy.evidence import Quality, Session, SessionMeta, SourceFile
from forsy.sources.codex._fork import ForkInfo, candidate_paths, copied_end, own_start
from forsy.sources.codex._read import LoadedFile, Rec

PID = "11111111-1111-4111-8111-111111111111"
FID = "22222222-2222-4222-8222-222222222222"


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{}\n")
    return path


# ------------------------------------------------------------------ where the parent may be


def test_the_forks_folder_then_the_sessions_tree_then_the_root(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    day = sessions / "2026" / "03" / "01"
    fork = touch(day / f"rollout-2026-03-01T11-00-00-{FID}.jsonl")
    here = touch(day / f"rollout-2026-03-01T10-00-00-{PID}.jsonl")
    there = touch(sessions / "2026" / "02" / "28" / f"rollout-2026-02-28T23-00-00-{PID}.jsonl.zst")
    copied = touch(tmp_path / "backup" / f"rollout-2026-02-27T09-00-00-{PID}.jsonl")
    # not candidates: other extensions, folders, other threads, the legacy document
    touch(day / f"rollout-2026-03-01T10-00-00-{PID}.jsonl.bak")
    (day / f"rollout-{PID}-dir.jsonl").mkdir()
    touch(day / "rollout-2026-03-01T09-00-00-33333333-3333-4333-8333-333333333333.jsonl")
    touch(sessions / f"rollout-2026-02-27-{PID}.json")
    touch(day / "deeper" / f"rollout-{PID}.jsonl")  # below the fork's folder: found by the tree walk
    deeper = day / "deeper" / f"rollout-{PID}.jsonl"
    assert candidate_paths(fork, PID, tmp_path) == [here, there, deeper, copied]
    assert candidate_paths(fork, PID, None) == [here, there, deeper]
    assert candidate_paths(fork, PID, tmp_path / "no-such-folder") == [here, there, deeper]
    assert candidate_paths(fork, PID, fork) == [here, there, deeper]  # a file as root: no folder
    assert candidate_paths(fork, FID, tmp_path) == []  # the fork itself is not its parent
    assert candidate_paths(fork, "44444444", tmp_path) == []


def test_a_fork_outside_a_dated_tree_looks_in_its_folder_and_the_root_only(tmp_path: Path) -> None:
    folder = tmp_path / "logs" / "a" / "b"
    fork = touch(folder / f"rollout-{FID}.jsonl")
    here = touch(folder / f"rollout-{PID}.jsonl")
    touch(tmp_path / "logs" / f"rollout-x-{PID}.jsonl")  # three levels up, but b is no day: not looked at
    below = touch(folder / "old" / f"rollout-{PID}.jsonl")  # below the folder: not looked at either
    assert candidate_paths(fork, PID, None) == [here]
    assert candidate_paths(fork, PID, folder) == [here, below]


def test_a_relative_path_in_the_dated_tree_looks_from_its_sessions_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = tmp_path / "sessions"
    touch(sessions / "2026" / "03" / "01" / f"rollout-{FID}.jsonl")
    touch(sessions / "2026" / "02" / "28" / f"rollout-{PID}.jsonl")
    touch(tmp_path / f"rollout-{PID}.jsonl")  # beside `sessions`: not in the tree
    monkeypatch.chdir(sessions)
    assert candidate_paths(Path("2026/03/01") / f"rollout-{FID}.jsonl", PID, None) == [
        Path("2026/02/28") / f"rollout-{PID}.jsonl"]
    monkeypatch.chdir(sessions / "2026")
    assert candidate_paths(Path("03/01") / f"rollout-{FID}.jsonl", PID, None) == []  # no sessions folder in it


# ------------------------------------------------------------------ where the thread begins


def rec(idx: int, kind: str, **p: Any) -> Rec:
    sub = p.get("type") if isinstance(p.get("type"), str) else None
    return Rec(idx, idx + 1, f"e{idx}", kind, sub, None, p, ("payload",))


def loaded(path: Path, specs: list[tuple[str, dict[str, Any]]]) -> LoadedFile:
    recs = [rec(i, kind, **p) for i, (kind, p) in enumerate(specs)]
    return LoadedFile(path, path.name, recs, SourceFile(path.name, str(path), "codex", 0, ""), False)


def session() -> Session:
    return Session("codex", "", [], {}, [], SessionMeta(), Quality())


OWN = ("session_meta", {"id": FID, "forked_from_id": PID})
COPY_META = ("session_meta", {"id": PID, "cwd": "/w"})
HISTORY = [("response_item", {"type": "message", "role": "user", "content": [{"text": "first"}]}),
           ("event_msg", {"type": "user_message", "message": "first"}),
           ("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "g"}}),
           ("response_item", {"type": "message", "role": "assistant", "content": [{"text": "done"}]})]
MINE = [("turn_context", {"cwd": "/w"}), ("response_item", {"type": "message", "role": "user",
                                                             "content": [{"text": "mine"}]})]


def start(specs: list[tuple[str, dict[str, Any]]], parent: list[tuple[str, dict[str, Any]]] | None,
          tmp_path: Path, meta_at: int | None = 0) -> tuple[ForkInfo, Session, list[str]]:  # fmt: skip
    asked: list[str] = []
    fork = loaded(tmp_path / "sessions" / "d" / f"rollout-{FID}.jsonl", specs)

    def find(tid: str) -> LoadedFile | None:
        asked.append(tid)
        return None if parent is None else loaded(tmp_path / "sessions" / "e" / f"rollout-{tid}.jsonl", parent)

    s = session()
    meta = fork.recs[meta_at] if meta_at is not None else None
    return own_start(fork, meta, s, find), s, asked


def test_the_parents_file_tells_where_the_copy_ends(tmp_path: Path) -> None:
    parent = [COPY_META, *HISTORY]
    # Codex copies the history without its event_msg and ghost snapshots
    copy = [COPY_META, HISTORY[0], HISTORY[3]]
    info, s, asked = start([OWN, *copy, *MINE], parent, tmp_path)
    assert info == ForkInfo(4, PID, "parent_file", 3, f"../e/rollout-{PID}.jsonl")
    assert asked == [PID] and s.warnings == [] and s.quality.extra == {}
    # a copy that keeps them matches too; one that differs ends where it differs
    info, _, _ = start([OWN, *parent, *MINE], parent, tmp_path)
    assert (info.start, info.copied) == (6, 5)
    changed = ("response_item", {"type": "message", "role": "assistant", "content": [{"text": "DONE"}]})
    info, _, _ = start([OWN, COPY_META, HISTORY[0], changed, *MINE], parent, tmp_path)
    assert (info.start, info.copied) == (3, 2)


def test_the_parents_id_from_forked_from_or_from_the_copied_meta(tmp_path: Path) -> None:
    parent = [COPY_META, *HISTORY]
    old = ("session_meta", {"id": FID, "forked_from": PID})
    _, _, asked = start([old, ("session_meta", {"cwd": "/w"}), *MINE], parent, tmp_path)
    assert asked == [PID]  # the copied meta names nobody: the older member does
    _, _, asked = start([("session_meta", {"id": FID, "forked_from_id": PID, "forked_from": "other"}),
                         ("session_meta", {"cwd": "/w"}), *MINE], parent, tmp_path)  # fmt: skip
    assert asked == [PID]  # the newer member first
    _, _, asked = start([("session_meta", {"id": FID, "forked_from_id": ""}), COPY_META, *MINE], parent, tmp_path)
    assert asked == [PID]  # an empty id is none: the copied meta names the parent
    info, _, asked = start([("session_meta", {"id": FID, "forked_from_id": 5}), COPY_META, *MINE], parent, tmp_path)
    assert asked == [PID] and info.parent_id == PID
    info, _, asked = start([("session_meta", {"id": FID}), ("session_meta", {"cwd": "/w"}), *MINE], parent,
                           tmp_path)  # fmt: skip
    assert (info, asked) == (ForkInfo(1), [])  # nobody named: nothing to look for
    # the id of a record that is no session_meta names no parent
    info, _, asked = start([("session_meta", {"id": FID}), ("response_item", {"type": "reasoning", "id": "rs_1"})],
                           parent, tmp_path)  # fmt: skip
    assert (info, asked) == (ForkInfo(1), [])


def test_a_thread_that_copies_nothing_is_its_own_from_after_its_meta(tmp_path: Path) -> None:
    info, s, asked = start([OWN, *MINE], [COPY_META], tmp_path)
    assert (info, asked, s.warnings) == (ForkInfo(1, PID), [], [])
    info, s, asked = start([OWN], [COPY_META], tmp_path)
    assert (info, asked, s.warnings) == (ForkInfo(1, PID), [], [])
    info, s, asked = start([("session_meta", {"id": FID}), *MINE], None, tmp_path)
    assert (info, asked) == (ForkInfo(1), [])
    info, s, asked = start([*MINE, OWN], None, tmp_path, meta_at=None)
    assert (info, asked) == (ForkInfo(0), [])


def test_a_fork_reference_ends_the_copy(tmp_path: Path) -> None:
    ref = ("fork_reference", {"rollout_path": "/x", "thread_id": PID, "nth_user_message": 1})
    info, s, asked = start([OWN, COPY_META, HISTORY[0], ref, *MINE, ref], None, tmp_path)
    assert (info, asked, s.warnings) == (ForkInfo(3, PID, "fork_reference", 2), [], [])
    info, s, asked = start([OWN, ref, *MINE], None, tmp_path)
    assert info == ForkInfo(1, PID, "fork_reference", 0)
    info, s, asked = start([("session_meta", {"id": FID}), ref], None, tmp_path)
    assert info == ForkInfo(1, None, "fork_reference", 0)
    info, s, asked = start([ref, OWN, COPY_META, *MINE], None, tmp_path, meta_at=1)  # before the meta: not it
    assert info == ForkInfo(2, PID, "unresolved")


def test_a_parent_not_found_keeps_everything_and_says_where_the_copy_begins(tmp_path: Path) -> None:
    info, s, asked = start([OWN, COPY_META, *HISTORY, *MINE], None, tmp_path)
    assert (info, asked) == (ForkInfo(1, PID, "unresolved"), [PID])
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [(
        "fork_prefix_unresolved",
        f"forked from {PID}, whose rollout was not found: the copied history that starts here cannot be "
        "told apart from this thread's own records, so nothing was skipped",
        f"rollout-{FID}.jsonl", 2)]
    assert s.quality.extra == {"fork_prefix_unresolved": 1}


def test_the_copy_matches_record_by_record_skipping_only_what_codex_drops() -> None:
    def recs(*specs: tuple[str, dict[str, Any]]) -> list[Rec]:
        return [rec(i, k, **p) for i, (k, p) in enumerate(specs)]

    a, b = ("response_item", {"type": "message", "text": "a"}), ("response_item", {"type": "message", "text": "b"})
    ev = ("event_msg", {"type": "agent_message", "message": "a"})
    ghost = ("response_item", {"type": "ghost_snapshot"})
    other = ("response_item", {"type": "reasoning"})
    assert copied_end(recs(a, b, b), 0, recs(a, ev, ghost, b)) == 2
    assert copied_end(recs(b, a, b), 1, recs(a, ev, ghost, b)) == 3
    assert copied_end(recs(a, b), 0, recs(a, other, b)) == 1  # a parent record Codex would copy: the end
    assert copied_end(recs(a, b), 0, recs(a)) == 1  # the parent ran out
    assert copied_end(recs(a), 0, recs(a, b)) == 1  # the child ran out
    assert copied_end(recs(("event_msg", a[1]), b), 0, recs(a, b)) == 0  # same payload, other kind
    assert copied_end(recs(a), 1, recs(a)) == 1


def test_a_forked_agents_copy_lacks_what_spawning_it_leaves_out() -> None:
    """Spawning an agent with the parent's full history copies it without usage records,
    retained context, risk scores, realtime items and `agent_message` items, may write the
    developer instructions anew, and marks inherited messages (`metadata`): none of these ends
    the copy, so the parent's calls are never read as the subagent's own."""
    def recs(*specs: tuple[str, dict[str, Any]]) -> list[Rec]:
        return [rec(i, k, **p) for i, (k, p) in enumerate(specs)]

    a, b = ("response_item", {"type": "message", "text": "a"}), ("response_item", {"type": "message", "text": "b"})
    dropped = [("token_usage_record", {"usage": {"input_tokens": 9}}), ("retained_context", {"answers": []}),
               ("security_risk_score", {"score": 1}), ("realtime_item", {"item": {}}),
               ("response_item", {"type": "agent_message", "content": []})]
    for d in dropped:
        assert copied_end(recs(a, b), 0, recs(a, d, b)) == 2, d
    dev = ("response_item", {"type": "message", "role": "developer", "content": [{"text": "parent's"}]})
    dev_anew = ("response_item", {"type": "message", "role": "developer", "content": [{"text": "the fork's"}]})
    assert copied_end(recs(dev_anew, a), 0, recs(dev, a)) == 2
    user_anew = ("response_item", {"type": "message", "role": "user", "content": [{"text": "other"}]})
    assert copied_end(recs(user_anew, a), 0, recs(dev, a)) == 0  # only instructions may differ
    inherited = recs(("response_item", {"type": "message", "text": "a, as the fork holds it"}), b)
    inherited[0].harness = {"inherited_user_message": True}
    assert copied_end(inherited, 0, recs(a, b)) == 1  # a copy by the harness's word; then `b` is not `a`
    assert copied_end([inherited[0], *recs(a, b)[0:1]], 0, recs(a, b)) == 2
    inherited[0].harness = {"inherited_user_message": False}
    assert copied_end(inherited, 0, recs(a, b)) == 0


def test_a_parent_archived_or_a_fork_archived_is_found_beside_the_sessions(tmp_path: Path) -> None:
    """`codex` archives a thread by moving its file from sessions/YYYY/MM/DD/ to the flat
    archived_sessions/ folder beside sessions/: a fork's parent may be there, or the fork."""
    home = tmp_path / ".codex"
    fork = touch(home / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T11-00-00-{FID}.jsonl")
    archived = touch(home / "archived_sessions" / f"rollout-2026-02-20T09-00-00-{PID}.jsonl")
    touch(tmp_path / "archived_sessions" / f"rollout-x-{PID}.jsonl")  # beside .codex: not Codex's
    assert candidate_paths(fork, PID, None) == [archived]
    archived_fork = touch(home / "archived_sessions" / f"rollout-2026-03-01T11-00-00-{FID}.jsonl")
    archived.unlink()
    in_tree = touch(home / "sessions" / "2026" / "02" / "20" / f"rollout-2026-02-20T09-00-00-{PID}.jsonl")
    assert candidate_paths(archived_fork, PID, None) == [in_tree]
    assert candidate_paths(tmp_path / "other" / f"rollout-{FID}.jsonl", PID, None) == []  # neither
