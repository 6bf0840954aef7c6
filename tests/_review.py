"""Helpers of the review tests: a real SQLite store holding drafts of the sample sessions,
one of them with hostile text (HTML, a script, an onerror image, an ANSI escape) in its log."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.models import Origin
from forsy.pipeline import RetraceOptions, retrace_one
from forsy.store import Store
from forsy.store.sink import StoreSink

NOW = "2026-03-01T12:00:00+00:00"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)> \\u001b[31mRED\\u001b[0m"
SHOWN = "<script>alert(1)</script> <img src=x onerror=alert(2)>"

# The reviewed trace's provenance says origin "human" for what the reviewer set; until
# forsy.models.Origin lists "human", `forsy validate` refuses that provenance (P002) and so
# every approval is refused. Tests of approvals expect exactly that failure until then.
HUMAN_ORIGIN = "human" in typing.get_args(Origin)
needs_human_origin = pytest.mark.xfail(
    not HUMAN_ORIGIN, strict=True, raises=AssertionError,
    reason="forsy.models.Origin lacks 'human': forsy validate refuses a reviewer's provenance (P002)")


def hostile_log(folder: Path) -> Path:
    """demo-session.jsonl with the user's first words replaced by hostile text."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8")
    assert "Can you fix it" in text
    out = folder / "hostile-session.jsonl"
    out.write_text(text.replace("Can you fix it", HOSTILE + " Can you fix it", 1), "utf-8")
    return out


def put(store: Store, log: Path) -> str:
    [o] = retrace_one(log, RetraceOptions(), sink=StoreSink(store, now=NOW), keep=False)
    assert o.status == "written" and o.trace_id
    return o.trace_id
