"""OpenHands evaluation and resolver outputs (`output.jsonl`: one instance per line) and saved
trajectories (one JSON array): each instance one session named by its instance id (else the
resolver's issue, else its line), each history entry read at its pointer, the oldest outputs'
(action, observation) pairs too; what is no event, or no history, is warned at its line.
Worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

SRC = OpenHandsSource()
ACT = {"id": 1, "action": "run", "source": "agent", "args": {"command": "ls"}, "timestamp": "2026-01-01T10:00:00"}
OBS = {"id": 2, "observation": "run", "source": "agent", "cause": 1, "content": "a.txt",
       "extras": {"metadata": {"exit_code": 0}}, "timestamp": "2026-01-01T10:00:01"}
MSG = {"action": "message", "source": "user", "args": {"content": "hi"}}


def test_each_instance_is_a_session_named_by_its_id(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [
        {"instance_id": "django-1", "instruction": "x", "history": [[ACT, OBS], "junk", [ACT], MSG]},
        {"issue": {"owner": "o", "repo": "r", "number": 7}, "instruction": "y", "history": "none"},
        {"instance_id": 42, "instruction": "z", "history": []},
        {"instruction": "w", "history": []},
        {"instance_id": "a", "issue": {"owner": "o", "repo": "r", "number": 8}, "history": []},
    ]
    p = tmp_path / "sub" / "output.jsonl"
    p.parent.mkdir()
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    sessions = SRC.read(p, ReadContext(root=tmp_path))
    assert [s.session_id for s in sessions] == ["django-1", "o/r#7", "42", "output:L4", "a"]
    for s in sessions:
        assert (s.source_kind, s.meta.agent, s.quality.records) == ("openhands", "openhands", 1)
        assert (s.files[0].path, s.files[0].abs_path) == ("sub/output.jsonl", str(p.resolve()))
    s = sessions[0]
    assert [(e.kind, e.text, e.args, [r.pointer for r in e.refs], e.is_error) for e in s.events] == [
        ("tool_call", None, {"command": "ls"}, ["/history/0/0/args"], None),
        ("tool_result", "a.txt", None, ["/history/0/1/content"], False),
        ("user", "hi", None, ["/history/3/args/content"], None),
    ]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("not-an-object", "history[1] is not an event; skipped", "sub/output.jsonl", 1),
        ("not-an-object", "history[2] is not an event; skipped", "sub/output.jsonl", 1)]
    assert [(w.code, w.message, w.file, w.line) for w in sessions[1].warnings] == [
        ("no-history", "the instance has no history list", "sub/output.jsonl", 2)]
    assert all(s.warnings == [] for s in sessions[2:])


def test_a_trajectory_array_after_a_bom_and_blanks_is_read(tmp_path: Path) -> None:
    p = tmp_path / "traj.json"
    p.write_bytes(b"\xef\xbb\xbf \n" + json.dumps([MSG, ACT, OBS]).encode())
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.session_id, [e.kind for e in s.events]) == ("traj", ["user", "tool_call", "tool_result"])
    assert (s.quality.records, s.quality.unparsable_records, len(s.evidence)) == (3, 0, 3)


def test_counts_of_an_empty_a_damaged_array_and_damaged_output_lines(tmp_path: Path) -> None:
    def read(name: str, data: bytes) -> list[tuple[str, int, int, list[tuple[str, int | None]]]]:
        p = tmp_path / name
        p.write_bytes(data)
        return [(s.session_id, s.quality.records, s.quality.unparsable_records,
                 [(w.code, w.line) for w in s.warnings]) for s in SRC.read(p, ReadContext(root=tmp_path))]

    assert read("empty.json", b"[]") == [("empty", 0, 0, [])]
    assert read("dam.json", json.dumps([MSG, 5]).encode()) == [("dam", 2, 1, [("not-an-object", 1)])]
    # two instances run together on one line are both recovered (an instance is what has a history)
    two = b'{"instance_id": "x", "history": []}{"instance_id": "y", "history": []}\nnot json\n'
    assert read("two.jsonl", two + b'{"instance_id": "z", "history": []}\n') == [
        ("x", 1, 1, [("damaged-line", 1), ("unparsable-line", 2)]), ("y", 1, 0, []), ("z", 1, 0, [])]
