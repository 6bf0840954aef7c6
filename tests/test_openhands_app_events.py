"""The OpenHands app server's conversations as it keeps them (openhands/app_server/event/
filesystem_event_service.py): `<persistence dir>/v1/events/<conversation id>/<YYYYMMDDHHMMSS>_
<kind>_<id hex>`, no extension, each an SDK event `model_dump(mode='json')`, indented. Before,
no search found them (no log suffix), and the sweep never looked. One session per conversation
folder, its events in their own time's order (the names keep seconds only). Hand-built events
in the SDK's field order (kind last)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy import sources
from forsy.config import default_log_roots
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource
from forsy.sources.walk import discover_tree
from forsy.store import open_store
from forsy.sweep import SweepOptions, sweep

SRC = OpenHandsSource()
CONVO = "aaaaaaaa-1111-2222-3333-4444deadbeef"


def _event(root: Path, second: str, micro: str, kind: str, n: int, **fields: Any) -> Path:
    eid = f"{n:032x}"
    e = {"id": f"{eid[:8]}-{eid[8:12]}-{eid[12:16]}-{eid[16:20]}-{eid[20:]}",
         "timestamp": f"2026-08-20T10:00:{second}.{micro}", **fields, "kind": kind}
    p = root / "v1" / "events" / CONVO / f"2026082010000{second[-1]}_{kind}_{eid}"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(e, indent=2), "utf-8")
    return p


def _conversation(root: Path) -> list[Path]:
    text = {"type": "text", "text": ""}
    return [
        _event(root, "00", "000100", "SystemPromptEvent", 1, source="agent",
               system_prompt={**text, "text": "You are OpenHands agent."}, tools=[]),
        # the same second: by name the action would come first, by time the message does
        _event(root, "01", "000100", "MessageEvent", 2, source="user",
               llm_message={"role": "user", "content": [{**text, "text": "list the files"}]}),
        _event(root, "01", "000900", "ActionEvent", 3, source="agent", thought=[], tool_name="terminal",
               tool_call_id="c1", action={"command": "ls", "kind": "TerminalAction"}),
        _event(root, "02", "000000", "ObservationEvent", 4, source="environment", tool_name="terminal",
               tool_call_id="c1", observation={"content": [{**text, "text": "a b"}], "exit_code": 0,
                                               "kind": "TerminalObservation"}),
    ]


def test_an_app_conversation_is_one_session_in_its_events_time_order(tmp_path: Path) -> None:
    files = _conversation(tmp_path)
    tree = discover_tree(tmp_path, sources.available())
    assert [(s.name, p.name) for s, p in tree.found] == [("openhands", files[0].name)]
    assert (tree.unrecognised, tree.not_searched) == ([], [])
    assert SRC.sniff(files[2], files[2].read_bytes()) is True
    [s] = SRC.read(files[3], ReadContext(root=tmp_path))  # any of its files: the whole conversation
    assert s.session_id == CONVO and len(s.files) == 4
    assert [(e.kind, e.text) for e in s.events if e.kind != "note"] == [
        ("user", "list the files"), ("tool_call", None), ("tool_result", "a b")]


def test_the_sweep_looks_where_the_app_keeps_them_and_sees_a_new_event(tmp_path: Path) -> None:
    assert tmp_path / ".openhands" / "v1" / "events" in default_log_roots(tmp_path, env={})
    env = {"OH_PERSISTENCE_DIR": str(tmp_path / "oh")}
    assert tmp_path / "oh" / "v1" / "events" in default_log_roots(tmp_path, env=env)
    _conversation(tmp_path / "oh")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")

    def run(now: float) -> Any:
        return sweep(store, SweepOptions(roots=[tmp_path / "oh" / "v1" / "events"], ignore_settle=True,
                                         claude_home=Path("/nonexistent"), now=lambda: now))

    try:
        first = run(2_000_000_000.0)
        assert (first.counts.seen, first.counts.new, first.counts.traces_written) == (1, 1, 1)
        _event(tmp_path / "oh", "03", "000000", "MessageEvent", 5, source="agent",
               llm_message={"role": "assistant", "content": [{"type": "text", "text": "done"}]})
        second = run(2_000_000_060.0)
        assert (second.counts.unchanged, second.counts.traces_written) == (0, 1)
        assert run(2_000_000_120.0).counts.unchanged == 1
    finally:
        store.close()
