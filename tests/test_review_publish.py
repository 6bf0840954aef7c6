"""What the review queue promises about confirmed work: an approved draft stays listed (as
approved), and only what a person confirmed leaves through an "approved" door (`forsy export
--approved-only`, `forsy review export`)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, cli, put
from forsy.run.store_worker import worker_name
from forsy.store import open_store

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient



@pytest.fixture
def two(tmp_path: Path) -> tuple[str, str, str]:
    """A store with two drafts of two sessions; the first is approved from the command line."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        first = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        second = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    finally:
        st.close()
    code, _, err = cli("review", "approve", first, "--store", url)
    assert code == 0, err
    return url, first, second


def listed(url: str, *args: str) -> list[dict[str, object]]:
    code, out, err = cli("review", "list", "--json", "--store", url, *args)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_an_approved_draft_stays_in_the_queue_as_approved(two: tuple[str, str, str]) -> None:
    url, first, second = two
    every = {r["trace_id"]: r for r in listed(url)}
    assert set(every) == {first, second}  # approving took nothing out of the list
    assert every[first]["status"] == "approved" and every[first]["reviewed_as"]
    assert [r["trace_id"] for r in listed(url, "--status", "approved")] == [first]
    assert [r["trace_id"] for r in listed(url, "--status", "pending")] == [second]


def test_the_web_queue_counts_and_lists_approved_drafts(two: tuple[str, str, str]) -> None:
    from forsy.web.app import make_app
    from forsy.web.guard import Settings

    url, first, _ = two
    token = "t" * 40
    s = Settings(store_url=url, reviewer=ADA, token=token, hosts={"127.0.0.1:9"})
    with TestClient(make_app(s), base_url="http://127.0.0.1:9", follow_redirects=True) as c:
        html = c.get(f"/?token={token}").text
        assert "approved 1" in " ".join(html.split()), html
        shown = c.get("/?status=approved").text
        assert f'href="/t/{first}"' in shown


def test_export_approved_only_publishes_only_the_reviewed_trace(two: tuple[str, str, str], tmp_path: Path) -> None:
    url, first, _ = two
    out = tmp_path / "out.jsonl"
    code, _, err = cli("export", "--from-store", "*", "--approved-only", "--to", "openai", "-o", str(out),
                       "--store", url)
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert len(lines) == 1  # the reviewed trace, never the unedited draft beside it
    folder = tmp_path / "folder"
    code, _, err = cli("export", "--from-store", "*", "--approved-only", "--to", "hf", "-o", str(folder),
                       "--store", url)
    assert code == 0, err
    rows = [json.loads(x) for x in (folder / "traces.jsonl").read_text().splitlines()]
    assert [r["validation_level"] for r in rows] == ["human_reviewed"]
    assert all(r["prior_trace_id"] == first for r in rows)


def test_export_approved_only_of_a_store_with_nothing_confirmed_exports_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    finally:
        st.close()
    # a status set by hand (not a review: no reviewed trace) is no confirmation either
    code, _, err = cli("export", "--from-store", "*", "--status", "approved", "--approved-only", "--to", "openai",
                       "-o", str(tmp_path / "o.jsonl"), "--store", url)
    assert code == 2 and "no approved trace to export" in err
    st = open_store(url)
    try:
        st.set_draft_status(tid, "approved", "someone", "2026-03-01T00:00:00+00:00")
    finally:
        st.close()
    for approved_only in (["--approved-only"], []):  # the default from a store
        code, _, err = cli("export", "--from-store", "*", *approved_only, "--to", "openai",
                           "-o", str(tmp_path / "o.jsonl"), "--store", url)
        assert code == 2 and "no approved trace to export" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_export_jobs_of_approved_traces_queue_only_the_reviewed_trace(two: tuple[str, str, str],
                                                                      tmp_path: Path) -> None:
    url, first, _ = two
    code, out, err = cli("jobs", "add", "export", "-o", str(tmp_path / "pub"), "--store", url)
    assert code == 0, err
    st = open_store(url)
    try:
        reviewed = st.draft_state(first).reviewed_as  # type: ignore[union-attr]
    finally:
        st.close()
    code, out, err = cli("jobs", "list", "--json", "--store", url)
    assert code == 0, err
    queued = [json.loads(x) for x in out.splitlines()]
    assert [j["args"]["trace_id"] for j in queued] == [reviewed]
    # the folder is this machine's: only a worker of this machine runs the job (another wrote its own disk)
    assert [j["host"] for j in queued] == [worker_name()]
