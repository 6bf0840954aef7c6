"""Reading every row a query selects, whatever its number: `every_trace` (one more than the store
counts, then twice as many while the answer comes back full) and `every_audit` (twice the limit
while full). An export from a store, a review list or an audit log is never cut at a fixed limit
without a word (they were cut at 1,000,000 and 10^9)."""

from __future__ import annotations

from pathlib import Path

from _review import cli, stored
from forsy.export import load_store
from forsy.store import AuditRow, TraceQuery, every_audit


def test_an_export_from_a_store_takes_every_trace_whatever_the_querys_limit(tmp_path: Path) -> None:
    url, listed = stored(tmp_path / "store.db", "demo-session.jsonl", "legacy-inline-sidechain.jsonl",
                         "compaction-and-branches.jsonl")
    ids = set(listed)
    assert len(ids) == 3
    got = load_store(url, TraceQuery(limit=1))  # a page size, not a cap
    assert {b.where.removeprefix("store:") for b in got} == ids


class Audit:
    """A store whose audit log holds `n` records and answers at most `limit` of them."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.asked: list[tuple[str | None, int]] = []

    def audit(self, trace_id: str | None = None, limit: int = 1000) -> list[AuditRow]:
        self.asked.append((trace_id, limit))
        return [AuditRow(i, "t", "a", "edit", trace_id, "{}", None, None) for i in range(min(self.n, limit))]


def test_every_audit_record_is_read_whatever_their_number() -> None:
    for n, limits in ((0, [1000]), (999, [1000]), (1000, [1000, 2000]), (2500, [1000, 2000, 4000])):
        st = Audit(n)
        rows = every_audit(st, "forsy_x")  # type: ignore[arg-type]
        assert [r.id for r in rows] == list(range(n)), n
        assert st.asked == [("forsy_x", lim) for lim in limits], n


def test_the_audit_command_lists_every_record(tmp_path: Path) -> None:
    url, [tid] = stored(tmp_path / "store.db", "demo-session.jsonl")
    for v in ("-1", "0", "1"):
        assert cli("review", "edit", tid, "--step", "2", "--field", "eval", "--value", v, "--store", url)[0] == 0
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    assert code == 0 and len(out.splitlines()) == 4  # draft_created and the three edits
