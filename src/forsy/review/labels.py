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
    return Labels(d)(path)


def step_label(d: LoadedTrace | None, n: int) -> str:
    """Step `n` as the conversation heads it: `step #3 (Bash)`; `step #3` when it is not there."""
    return Labels(d).step(n)


class Labels:
    """`field_label` for many paths of one trace: the conversation (where a step's title comes
    from) is made once, when a step is first named, not once per path."""

    def __init__(self, d: LoadedTrace | None) -> None:
        self.d = d
        self._titles: dict[int, str] | None = None

    def __call__(self, path: str) -> str:
        try:
            where = parse_path("/" + path.lstrip("/"))
        except ValueError:
            return path
        if not isinstance(where, StepPath):
            return _ASKED.get("/" + where.replace(".", "/"), where)
        return f"{where.field} of {self.step(where.step)}"

    def step(self, n: int) -> str:
        title = self.titles().get(n, "") if self.d is not None and 1 <= n <= len(self.d.steps) else ""
        return f"step #{n} ({title})" if title else f"step #{n}"

    def titles(self) -> dict[int, str]:
        if self._titles is None:
            self._titles = {} if self.d is None else {
                e.step: e.title for b in conversation(self.d) for e in (b.entries if isinstance(b, Subagent) else [b])}
        return self._titles


__all__ = ["Labels", "field_label", "step_label"]
