"""The pieces of the git source that read text and times, on hand-written input: a
`git show --format=raw` split into header, message and diff, the header's people and times, and
the window's bounds. No repository is needed; every expectation is worked out by hand.
"""

from __future__ import annotations

import pytest

from forsy.errors import InputError
from forsy.sources.git import parse_when
from forsy.sources.git._read import _raw_info, _split_raw_show
from forsy.sources.git._run import iso_of

A, B, C = "a" * 40, "b" * 40, "c" * 40

RAW = (
    f"commit {A} (from {B})\n"
    f"tree {C}\n"
    f"parent {B}\n"
    f"parent {C}\n"
    "author Ada Q. Dev <ada@example.org> 1700000000 +0530\n"
    "committer Bo <bo@example.org> 1700000060 -0130\n"
    "mergetag object x\n"
    "\n"
    "    Subject line\n"
    "    \n"
    "    Body, with an empty line kept above\n"
    "\n"
    "\n"
    "diff --git a/x b/x\n"
    "--- a/x\n"
    "+++ b/x\n"
)


def test_a_raw_show_is_split_into_header_message_and_diff() -> None:
    head, msg, diff = _split_raw_show(RAW)
    assert head == RAW.split("\n\n")[0].split("\n")
    assert msg == "Subject line\n\nBody, with an empty line kept above"
    assert diff == "diff --git a/x b/x\n--- a/x\n+++ b/x\n"
    # an empty message (git commit --allow-empty-message): no message, the diff right after
    head, msg, diff = _split_raw_show(f"commit {A}\ntree {C}\n\n:100644 100644 x y M\tf\n")
    assert (head, msg, diff) == ([f"commit {A}", f"tree {C}"], "", ":100644 100644 x y M\tf\n")
    # a header alone (--no-patch of an empty message), and a message line that is only spaces
    assert _split_raw_show(f"commit {A}") == ([f"commit {A}"], "", "")
    assert _split_raw_show(f"commit {A}\n\n    one\n     \n    two\n") == ([f"commit {A}"], "one\n \ntwo", "")


def test_the_header_s_people_and_times_as_git_wrote_them() -> None:
    head, _, _ = _split_raw_show(RAW)
    info, ts = _raw_info(head)
    assert (info.sha, info.parents) == (A, [B, C])
    assert (info.author_name, info.author_email, info.author_date) == (
        "Ada Q. Dev", "ada@example.org", "2023-11-15T03:43:20+05:30")
    assert (info.committer_name, info.committer_email, info.committer_date) == (
        "Bo", "bo@example.org", "2023-11-14T20:44:20-01:30")
    assert ts == "2023-11-14T22:14:20Z"  # the committer's time, in UTC
    # a person line git could not have written is not half read; no committer, no time
    info, ts = _raw_info(["commit", "author Nobody", "committer Bo <bo@x> soon +0000"])
    assert (info.sha, info.author_name, info.committer_name, ts) == (None, None, None, None)


def test_times_in_the_offset_git_recorded() -> None:
    assert iso_of(0) == "1970-01-01T00:00:00Z"
    assert iso_of(1700000000, "+0000") == "2023-11-14T22:13:20+00:00"
    assert iso_of(1700000000, "-1245") == "2023-11-14T09:28:20-12:45"
    assert iso_of(1700000000, "+1400") == "2023-11-15T12:13:20+14:00"


def test_the_window_s_bounds() -> None:
    assert parse_when(None, "since") is None and parse_when("", "since") is None
    assert parse_when(" 1700000000 ", "since").isoformat() == "2023-11-14T22:13:20+00:00"
    assert parse_when("1700000000.5", "since").isoformat() == "2023-11-14T22:13:20.500000+00:00"
    assert parse_when("-60", "since").isoformat() == "1969-12-31T23:59:00+00:00"
    assert parse_when("2024-01-01T10:00:00", "since").isoformat() == "2024-01-01T10:00:00+00:00"  # naive: UTC
    assert parse_when("2024-01-01T10:00:00+02:00", "until").isoformat() == "2024-01-01T10:00:00+02:00"
    assert parse_when("2024-01-01T10:00:00Z", "until").isoformat() == "2024-01-01T10:00:00+00:00"
    for bad in ("yesterday", "1e9", "99999999999999999999"):
        with pytest.raises(InputError) as ei:
            parse_when(bad, "until")
        assert str(ei.value) == f"until is not an ISO 8601 time: {bad!r}"
