"""The OpenHands app's sessions before the SDK (V0), as its writer keeps them (openhands/events/
stream.py, storage/locations.py): `sessions/<sid>/events/<id>.json`, one `event_to_dict` per
file, each full page of 25 events written again as `event_cache/<start>-<end>.json`, and the
conversation's `metadata.json`. One session per conversation folder, its events in id order;
the cache pages and state files are its parts, neither read alone nor reported. Hand-built
events in the writer's shape; the expectation is the same events read as one array."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy import sources
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource
from forsy.sources.walk import discover_tree

SRC = OpenHandsSource()
SID = "3f2a9c0d1e4b4a5f9c8d7e6f5a4b3c2d"


def _events(n_runs: int) -> list[dict[str, Any]]:
    t = "2025-01-27T22:45:{:02d}.000000"
    out: list[dict[str, Any]] = [{"id": 0, "timestamp": t.format(0), "source": "user", "message": "list files",
                                  "action": "message", "args": {"content": "list files", "image_urls": None,
                                                                "wait_for_response": False}}]
    for i in range(n_runs):
        a, o = 1 + 2 * i, 2 + 2 * i
        out.append({"id": a, "timestamp": t.format(a % 60), "source": "agent", "message": f"Running command: ls {i}",
                    "action": "run", "args": {"command": f"ls {i}", "is_input": False, "thought": "",
                                              "blocking": False, "hidden": False}})
        out.append({"id": o, "timestamp": t.format(o % 60), "source": "agent", "cause": a, "observation": "run",
                    "content": f"file{i}", "message": f"Command `ls {i}` executed with exit code 0.",
                    "extras": {"command": f"ls {i}", "metadata": {"exit_code": 0}, "hidden": False}})
    return out


def _session(root: Path, events: list[dict[str, Any]]) -> Path:
    convo = root / "sessions" / SID
    (convo / "events").mkdir(parents=True)
    (convo / "event_cache").mkdir()
    for e in events:
        (convo / "events" / f"{e['id']}.json").write_text(json.dumps(e), "utf-8")
    for start in range(0, len(events) - 24, 25):  # only full pages are cached
        page = events[start:start + 25]
        (convo / "event_cache" / f"{start}-{start + 25}.json").write_text(json.dumps(page), "utf-8")
    (convo / "metadata.json").write_text(json.dumps({"conversation_id": SID, "title": "t"}), "utf-8")
    return convo


def _steps(s: Any) -> list[tuple[str, str | None]]:
    return [(e.kind, e.text) for e in s.events]


def test_a_v0_session_is_one_session_of_all_its_events_in_id_order(tmp_path: Path) -> None:
    events = _events(13)  # 27 events: one full cache page, two events after it
    convo = _session(tmp_path, events)
    tree = discover_tree(tmp_path / "sessions", sources.available())
    assert [(s.name, p.name) for s, p in tree.found] == [("openhands", "0.json")]
    assert (tree.unrecognised, tree.not_searched) == ([], [])  # the cache page, metadata.json: its parts
    [s] = SRC.read(convo / "events" / "0.json", ReadContext(root=tmp_path))
    assert s.session_id == SID and len(s.files) == 27
    array = tmp_path / "all.json"
    array.write_text(json.dumps(events), "utf-8")
    [whole] = SRC.read(array, ReadContext(root=tmp_path))
    assert _steps(s) == _steps(whole) and ("tool_result", "file12") in _steps(s)  # past the cached page


def test_a_v0_event_file_is_known_by_its_name_folder_and_kind_of_event(tmp_path: Path) -> None:
    convo = _session(tmp_path, _events(1))
    one = convo / "events" / "2.json"
    assert SRC.sniff(one, one.read_bytes()) is True
    assert SRC.sniff(one, b'{"id": 2, "source": "agent", "content": "x"}') is False  # no action nor observation
    assert SRC.sniff(tmp_path / "2.json", one.read_bytes()) is False  # not in an events folder
    # named alone, any event file gives its whole session
    [s] = SRC.read(one, ReadContext(root=tmp_path))
    assert s.session_id == SID and len(s.files) == 3


def test_the_sdk_conversations_state_file_is_its_part_not_an_unknown_log(tmp_path: Path) -> None:
    src = Path(__file__).parent / "fixtures" / "openhands" / "conversations"
    tree = discover_tree(src, sources.available())
    assert len(tree.found) == 1 and tree.unrecognised == []


def test_a_sweep_retraces_a_conversation_when_an_event_file_is_added(tmp_path: Path) -> None:
    """Each event is a file of its own: a new one is the conversation going on (before, the
    sweep called the conversation unchanged and its draft stayed behind)."""
    from forsy.store import TraceQuery, open_store
    from forsy.sweep import SweepOptions, sweep

    events = _events(2)
    convo = _session(tmp_path / "logs", events)
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")

    def run(now: float) -> Any:
        return sweep(store, SweepOptions(roots=[tmp_path / "logs"], ignore_settle=True,
                                         claude_home=Path("/nonexistent"), now=lambda: now))

    try:
        first = run(2_000_000_000.0)
        assert (first.counts.new, first.counts.traces_written) == (1, 1)
        late = {**events[-1], "id": len(events), "content": "late output"}
        (convo / "events" / f"{late['id']}.json").write_text(json.dumps(late), "utf-8")
        second = run(2_000_000_060.0)
        assert (second.counts.unchanged, second.counts.traces_written) == (0, 1)
        third = run(2_000_000_120.0)
        assert (third.counts.unchanged, third.counts.traces_written) == (1, 0)
        [latest] = store.traces(TraceQuery(latest_only=True))
        assert latest.steps > 0 and len(store.traces(TraceQuery())) == 2
    finally:
        store.close()


def test_only_the_conversations_own_state_files_are_its_parts(tmp_path: Path) -> None:
    """Beside an events folder, the conversation's state files (storage/locations.py, the SDK's
    base_state.json) are its parts; another JSON file there is a file of its own, read or
    named as any other, never taken for the conversation's state."""
    from forsy.sources.openhands._events_dir import session_of

    convo = _session(tmp_path, _events(1))
    first = convo / "events" / "0.json"
    for name in ("metadata.json", "init.json", "base_state.json", "llm_registry.json", "exp_config.json"):
        (convo / name).write_text("{}", "utf-8")
        assert session_of(convo / name) == first, name
    for name in ("trajectory.json", "notes.json"):
        (convo / name).write_text("[]", "utf-8")
        assert session_of(convo / name) is None, name
    assert session_of(tmp_path / "metadata.json") is None  # no events folder beside it
