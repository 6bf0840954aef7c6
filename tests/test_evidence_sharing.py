"""A large log's records are mostly of a few types and marked alike (progress records, file
snapshots): what repeats is held once, whatever the reader decoded it into."""

from __future__ import annotations

from forsy.evidence import Evidence, Mark, Session, SessionMeta


def _fresh(text: str) -> str:
    """An equal string that is another object (as each decoded line gives)."""
    return "".join(list(text))


def test_records_of_one_type_share_its_name() -> None:
    a = Evidence.make("s.jsonl", 1, 0, b"{}", "0" * 64, _fresh("progress"))
    b = Evidence.make("s.jsonl", 2, 3, b"{}", "1" * 64, _fresh("progress"))
    assert a.record_type == b.record_type == "progress"
    assert a.record_type is b.record_type
    assert Evidence.make("s.jsonl", 3, 6, b"{}", "2" * 64).record_type is None


def test_records_marked_alike_share_one_mark() -> None:
    s = Session("claude_code", "x", [], {}, [], SessionMeta())
    s.mark("ev_a", "set_aside", _fresh("progress records carry no work"), _fresh("hook_progress"))
    s.mark("ev_b", "set_aside", _fresh("progress records carry no work"), _fresh("hook_progress"))
    s.mark("ev_c", "set_aside", "progress records carry no work", "bash_progress")
    assert s.ledger["ev_a"] is s.ledger["ev_b"]
    assert s.ledger["ev_a"] == Mark("set_aside", "progress records carry no work", "hook_progress")
    assert s.ledger["ev_c"] == Mark("set_aside", "progress records carry no work", "bash_progress")
    s.mark("ev_a", "metadata", "title")  # the last mark stands, as before
    assert s.ledger["ev_a"] == Mark("metadata", "title") and s.ledger["ev_b"].heading == "set_aside"
