"""The store's sink and the queue's rules, in process: a session read again after it grew is a new
draft linking the one before (prior_trace_id), stored with its run and its end time, each new
draft counted once; a rule is refused with words that say why, and a pattern of letters is no
pattern of only wildcards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.errors import InputError
from forsy.run import RetraceOptions, retrace_one
from forsy.store import Store
from forsy.store.queue_rules import QueueRule, add_rule, rules
from forsy.store.sink import StoreSink

NOW = "2026-03-01T12:00:00+00:00"



def test_a_session_read_again_after_it_grew_links_the_draft_before(store: Store, tmp_path: Path) -> None:
    lines = (SAMPLES / "claude" / "demo-session.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "s.jsonl"
    log.write_bytes(b"".join(lines[: len(lines) - 2]))
    run = store.start_run(NOW, 1, [str(tmp_path)])
    sink = StoreSink(store, now=NOW, run_id=run)
    [first] = retrace_one(log, RetraceOptions(), sink=sink, keep=False)
    log.write_bytes(b"".join(lines))  # the session grew
    [second] = retrace_one(log, RetraceOptions(), sink=sink, keep=False)
    assert first.trace_id and second.trace_id and first.trace_id != second.trace_id
    assert sink.written == 2
    row = store.trace(second.trace_id)
    assert row is not None and row.prior_trace_id == first.trace_id
    stored = json.loads({f.name: f.data for f in store.trace_files(second.trace_id)}["trace.json"])
    assert row.ended_at == stored["ended_at"] and row.ended_at is not None
    assert row.unit_path == str(log)
    got = store.conn.execute(  # type: ignore[attr-defined]
        "SELECT trace_id, run_id FROM traces ORDER BY trace_id").fetchall()
    assert sorted(got) == sorted([(first.trace_id, run), (second.trace_id, run)])
    [again] = retrace_one(log, RetraceOptions(), sink=sink, keep=False)  # the same bytes: stored once
    assert again.trace_id == second.trace_id and sink.written == 2


@pytest.mark.parametrize("rule, words", [
    (QueueRule("bad name", "x"), "a rule's name is a word of letters, digits, '.', '_' or '-' (64 at most)"),
    (QueueRule("r", "*? *"), "a rule's pattern must name some text (a pattern of only * and ? matches every draft)"),
    (QueueRule("r", "x", action="delete"), "a rule hides or dismisses, not 'delete'"),  # type: ignore[arg-type]
])
def test_a_rule_is_refused_saying_why(store: Store, rule: QueueRule, words: str) -> None:
    with pytest.raises(InputError) as e:
        add_rule(store, rule, actor="ana", now=NOW)
    assert str(e.value) == words
    assert rules(store) == []


def test_a_second_rule_of_one_name_is_refused_and_a_pattern_of_letters_is_taken(store: Store) -> None:
    add_rule(store, QueueRule("xs", "X*"), actor="ana", now=NOW)  # "X" is text, not a wildcard
    with pytest.raises(InputError) as e:
        add_rule(store, QueueRule("xs", "other"), actor="ana", now=NOW)
    assert str(e.value) == "a rule named 'xs' exists; remove it first"
    assert rules(store) == [QueueRule("xs", "X*")]
