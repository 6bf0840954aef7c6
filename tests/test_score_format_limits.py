"""what a log format does not record is said in the confidence factors, with the
penalty worked out by hand (assemble/score.py): Aider's edits rebuilt from a reply's blocks,
a terminal recording's missing exit codes. Listed only when they apply."""

from __future__ import annotations

from forsy.assemble.score import confidence
from forsy.evidence import Quality, Session, SessionMeta


def _factors(kind: str, **extra: int) -> tuple[int, dict[str, tuple[float, float, str]]]:
    s = Session(kind, "s", [], {}, [], SessionMeta(), Quality())
    s.quality.extra.update(extra)
    score, fs = confidence(s, [])
    return score, {f.name: (f.value, f.penalty, f.note) for f in fs}


def test_edits_rebuilt_from_blocks_cost_one_point_per_five_at_most_five() -> None:
    # no drafts: base 40 (no agent step), nothing else costs anything
    score, fs = _factors("aider", edits_reconstructed=7)
    assert fs["edits_reconstructed"][:2] == (7, 7 * 0.2) and score == round(40 - 1.4)  # 38.6 → 39
    score, fs = _factors("aider", edits_reconstructed=40)
    assert fs["edits_reconstructed"][:2] == (40, 5) and score == 35


def test_commands_without_exit_codes_cost_one_point_per_five_at_most_five() -> None:
    score, fs = _factors("asciinema", exit_codes_unrecorded=10)
    assert fs["exit_codes_unrecorded"][:2] == (10, 2.0) and score == 38
    assert fs["base"][2] == "terminal recording only: commands and output, no agent reasoning"


def test_the_factors_are_not_listed_when_they_do_not_apply() -> None:
    _, fs = _factors("claude_code")
    assert "edits_reconstructed" not in fs and "exit_codes_unrecorded" not in fs
    assert fs["base"][2] == "shell and git evidence only: no reasoning, no outputs"
