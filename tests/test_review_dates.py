"""`forsy review list --since/--until` take a time or refuse what is not one: compared as text,
a typo would match no draft (`notadate` sorts after every year) or every one, without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from _review import cli, stored

FORMS = "give a date (2026-01-31) or an ISO time (2026-01-31T10:00, 2026-01-31T10:00:00Z, 2026-01-31T12:00:00+02:00)"


@pytest.mark.parametrize(("flag", "value"), [("--since", "notadate"), ("--since", "2026-13-45"),
                                             ("--until", "yesterday"), ("--until", "2026-02-30")])
def test_a_time_option_that_is_not_a_time_is_refused_naming_it(tmp_path: Path, flag: str, value: str) -> None:
    url, _ = stored(tmp_path / "s.db", "demo-session.jsonl")
    code, out, err = cli("review", "list", "--store", url, flag, value)
    assert code == 2 and out == ""
    assert err.strip() == f"forsy: error: unknown {flag} {value!r}; {FORMS}"


def test_time_options_that_are_times_filter(tmp_path: Path) -> None:
    url, [tid] = stored(tmp_path / "s.db", "demo-session.jsonl")
    code, out, _ = cli("review", "list", "--store", url, "--since", "2020-01-01", "--until", "2100-01-01T00:00:00Z")
    assert code == 0 and tid in out
    code, out, err = cli("review", "list", "--store", url, "--since", "2099-01-01T10:00")
    assert code == 0 and out == "" and "no drafts match" in err
