"""An approval carries every edit a reviewer made, of every kind, and only the last of each field:
text, booleans and evals on steps, the trace's own judgements, a field edited twice, on
several steps, by two reviewers; the reviewed trace, its provenance and the published folder
all hold the same values."""

from __future__ import annotations

import json
from pathlib import Path

from _paths import SAMPLES
from _review import ADA, put
from forsy.review import actions
from forsy.review.export import export_approved
from forsy.store import open_store

BOB = "Bob Builder <bob@example.org>"
T = "2026-03-02T10:00:{:02d}+00:00"

EDITS = [  # (reviewer, path, typed, the value the reviewed trace holds)
    (ADA, "/steps/2/reasoning", "Reads the function first.", "Reads the function first."),
    (ADA, "/steps/3/success", "true", True),
    (BOB, "/steps/3/eval", "-1", -1),
    (ADA, "/steps/4/observation", "The pattern matched one character.", "The pattern matched one character."),
    (BOB, "/steps/2/reasoning", "Reads the function, then runs the tests.", "Reads the function, then runs the tests."),
    (ADA, "/summary/goal_achieved", "false", False),
    (BOB, "/learning", "Run the failing test before editing.", "Run the failing test before editing."),
    (ADA, "/termination_reason", "user_confirmed_done", "user_confirmed_done"),
    (BOB, "/steps/3/success", "false", False),
]
FINAL = {}
for who, path, _, value in EDITS:
    FINAL[path] = (who, value)


def at(doc: dict[str, object], path: str) -> object:
    node: object = doc
    for part in path.strip("/").split("/"):
        node = node[int(part) - 1] if isinstance(node, list) else node[part]  # type: ignore[index]
    return node


def test_an_approval_keeps_every_edit_and_the_last_of_each_field(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        for i, (who, path, typed, _) in enumerate(EDITS):
            actions.edit(st, tid, path, typed, reviewer=who, at=T.format(i))
        done = actions.approve(st, tid, "expert_reviewed", reviewer=ADA, at=T.format(59))
        assert done.reviewed_trace_id
        [e] = export_approved(st, tmp_path / "out")
    finally:
        st.close()
    trace = json.loads((e.folder / "trace.json").read_text())
    prov = json.loads((e.folder / "provenance.json").read_text())
    for path, (who, value) in FINAL.items():
        assert at(trace, path) == value, path
        parts = path.strip("/").split("/")
        if parts[0] == "steps":
            fp = next(sp for sp in prov["steps"] if sp["step"] == int(parts[1]))["fields"][parts[2]]
        else:
            fp = prov["trace_fields"][".".join(parts)]
        assert fp["origin"] == "human" and fp["reviewer"]["reviewer"] == who, path
    # the summary's eval counts follow the edited eval
    evals = [s["eval"] for s in trace["steps"]]
    assert trace["summary"]["negative_steps"] == evals.count(-1) and evals[2] == -1
    assert trace["validation_level"] == "expert_reviewed" and trace["prior_trace_id"] == tid
