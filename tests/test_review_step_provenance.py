"""`LoadedTrace.step_provenance`: the first provenance entry naming a step, an empty one for a
step with none, and entries that are not objects (a hand-edited or damaged provenance.json)
passed over rather than failing the page."""

from __future__ import annotations

from forsy.review.source import LoadedTrace


def _loaded(steps: list[object]) -> LoadedTrace:
    return LoadedTrace("forsy_x", {}, {"steps": []}, {"steps": steps}, {}, [])


def test_the_first_entry_naming_a_step_and_an_empty_one_for_none() -> None:
    first, second, one = {"step": 2, "evidence": ["a"]}, {"step": 2, "evidence": ["b"]}, {"step": 1}
    d = _loaded(["junk", {"step": [1]}, None, first, second, one])
    assert d.step_provenance(2) is first
    assert d.step_provenance(1) is one
    assert d.step_provenance(3) == {"step": 3, "evidence": [], "fields": {}}
    assert d.step_provenance(2) is first  # asked again: the same entry


def test_no_steps_at_all() -> None:
    d = LoadedTrace("forsy_x", {}, {}, {}, {}, [])
    assert d.step_provenance(1) == {"step": 1, "evidence": [], "fields": {}}
