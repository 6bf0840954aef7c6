"""What the store lists, read back whole (`store/_query.py`, `store/sink.py`): a listed row field
by field as the sink stored it; rows with equal sort values in trace-id order, so that pages never
overlap; a sort by trace id either way; the project as a person reads it (none for a session with
no folder); full-text search in every prompt and tool input, not only the first."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import NOW, put
from forsy.store import Store, TraceQuery, TraceRow, open_store
from forsy.store.models import FileState
from forsy.store.sink import project_name

DEMO, BRANCHES, SIDE = "forsy_549cf22fd03984d47709", "forsy_e553d89d9a031d915823", "forsy_02dfa31d394d5217a503"
SHELL = "forsy_c54bbb28b912d7978ad3"  # its id: the history file's name, its bytes


@pytest.fixture
def st(tmp_path: Path) -> Iterator[Store]:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    # stored in an order that is not the trace ids' (549c…, e553…, 02df…, then the shell history)
    for log in ("claude/demo-session.jsonl", "claude/compaction-and-branches.jsonl",
                "claude/legacy-inline-sidechain.jsonl", "shell/plain.bash_history"):
        put(store, SAMPLES / log)
    yield store
    store.close()


def test_a_listed_row_is_the_stored_session_field_by_field(st: Store) -> None:
    [row] = [r for r in st.traces(TraceQuery()) if r.trace_id == DEMO]
    assert row == TraceRow(
        trace_id=DEMO, draft_id=1, status="pending", source_kind="claude_code",
        session_id="d99e6618-d709-41f9-91b5-6b444aebcc56", unit_path=str(SAMPLES / "claude" / "demo-session.jsonl"),
        agent="claude-code", project="~/projects/textkit", started_at="2026-02-16T09:14:06.328Z",
        ended_at="2026-02-16T09:15:10.099Z", confidence=90, steps=9, turns=2,
        task='slugify() in textkit/slug.py turns "Hello,  World!" into "hello---world". Runs of spaces and '
             'punctuation should become a single dash. Can you fix it and make sure the tests pass?',
        prior_trace_id=None, created_at=NOW, source_gone=False, sha256={})
    files = {f.name: hashlib.sha256(f.data).hexdigest() for f in st.trace_files(DEMO)}
    assert sorted(files) == ["README.md", "manifest.json", "provenance.json", "trace.json"]
    assert st.trace(DEMO) == replace(row, sha256=files)  # one trace: with its files' hashes
    unit = str(SAMPLES / "claude" / "demo-session.jsonl")  # a later sweep finds the session file gone
    st.put_file_states([FileState(unit, unit, "claude_code", 1, 1, 10, 1, "h", None, 0, 10, "source_gone")])
    assert [r.source_gone for r in st.traces(TraceQuery()) if r.trace_id == DEMO] == [True]


def test_equal_sort_values_are_in_trace_id_order_so_pages_never_overlap(st: Store) -> None:
    for descending in (True, False):
        ids = [r.trace_id for r in st.traces(TraceQuery(order="agent", descending=descending))]
        claude = [SIDE, DEMO, BRANCHES]  # the three claude-code drafts: ties, by trace id
        assert ids == ([SHELL, *claude] if descending else [*claude, SHELL]), descending
        pages = [r.trace_id for off in range(4) for r in
                 st.traces(TraceQuery(order="agent", descending=descending, limit=1, offset=off))]
        assert pages == ids


def test_a_sort_by_trace_id_either_way(st: Store) -> None:
    ids = sorted([DEMO, BRANCHES, SIDE, SHELL])
    assert [r.trace_id for r in st.traces(TraceQuery(order="trace", descending=False))] == ids
    assert [r.trace_id for r in st.traces(TraceQuery(order="trace"))] == ids[::-1]


def test_the_project_as_a_person_reads_it() -> None:
    assert project_name("/") == "/"
    assert project_name("/srv/api/") == "/srv/api"
    assert project_name("/srv/apiX/") == "/srv/apiX"
    assert project_name("C:\\work\\api\\") == "C:/work/api"


def test_a_session_with_no_folder_has_no_project(st: Store) -> None:
    row = st.trace(SHELL)
    assert row is not None and row.agent == "shell" and row.project is None


def test_every_prompt_and_tool_input_is_searched(st: Store) -> None:
    # "letters" is only in the demo's second prompt (step 7), not in its task (the first prompt);
    # "lait" in it and in step 8's command, after a step with no input (the agent's answer, step 6)
    for word in ("letters", "lait"):
        assert [r.trace_id for r in st.traces(TraceQuery(text=word))] == [DEMO], word
