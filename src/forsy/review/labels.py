"""What the pages call a field a reviewer edits: the words of the form it was typed in, never a
proposal path. A judgement is named by its question on the draft page ("Summary of the work",
not `/dataset_summary/description`); a step field by its name as the step page's table shows
it, and its step by number and title as the conversation shows it (`reasoning of step #3
(Bash)`, not `/steps/3/reasoning`)."""

from __future__ import annotations

from ..proposals import StepPath, parse_path
from .conversation import Subagent, conversation
from .needs import JUDGEMENTS
from .source import LoadedTrace

_ASKED = dict(JUDGEMENTS)


def field_label(d: LoadedTrace | None, path: str) -> str:
    """The field `path` names, as the page that edits it shows it (the path itself when it names
    no field: what the form sent is all there is to show)."""
    try:
        where = parse_path("/" + path.lstrip("/"))
    except ValueError:
        return path
    if not isinstance(where, StepPath):
        return _ASKED.get("/" + where.replace(".", "/"), where)
    return f"{where.field} of {step_label(d, where.step)}"


def step_label(d: LoadedTrace | None, n: int) -> str:
    """Step `n` as the conversation heads it: `step #3 (Bash)`; `step #3` when it is not there."""
    title = ""
    if d is not None and 1 <= n <= len(d.steps):
        for b in conversation(d):
            for e in b.entries if isinstance(b, Subagent) else [b]:
                if e.step == n:
                    title = e.title
    return f"step #{n} ({title})" if title else f"step #{n}"


__all__ = ["field_label", "step_label"]
