"""What a run comes to: an `Outcome` per session (or per input that could not be read), and
the `RetraceRun` that holds them in input order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..assemble import Assembled
from ..errors import ExitCode, ForsyError
from ..evidence import ReadingWarning, Session

if TYPE_CHECKING:
    from ..validation import Report


@dataclass(frozen=True)
class LLMResult:
    """What the model pass of one session came to (the whole report is `manifest.llm`):
    kept on the Outcome so a caller that does not keep the trace can still report it."""

    model: str
    accepted: int  # model values that passed the checks and are in the trace
    fallbacks: int  # chunks that got no usable answer and kept the deterministic result
    warning: str | None  # the report's warning, when there is one


@dataclass(frozen=True)
class TimelineCounts:
    """What `--history`/`--git` contributed to one trace (`timeline.merge`'s counts), kept on
    the Outcome so a caller can say it without keeping the trace."""

    sources: tuple[tuple[str, int], ...]  # (kind, entries read) per history file / repository, in the order given
    commands: int  # history commands in the timeline (matched to an agent call or on their own)
    commits: int
    outside_window: int  # history commands and commits left out: their time is outside the window
    untimed_left_out: int  # left out: no time, so they cannot be placed in a window
    window_from: str | None
    window_to: str | None
    window_rule: str  # "explicit", "agent-span±300s" or "none"


@dataclass
class Outcome:
    """What became of one session (or of one input that could not be read).

    `status`: `written` (a sink took it), `traced` (kept in memory, no sink), `skipped` (no
    work in it: reported, not an error) or `failed` (`error` says why; counts in the exit
    code). `assembled` is kept only when the run keeps traces (`keep=True`), so a run over a
    large directory holds one session at a time.
    """

    path: str  # the session file (or the input that failed)
    status: Literal["written", "traced", "skipped", "failed"]
    message: str = ""
    session_id: str | None = None
    trace_id: str | None = None
    where: str | None = None  # what the sink returned (a folder path, a store id)
    steps: int = 0
    turns: int = 0
    confidence: int | None = None
    warnings: list[ReadingWarning] = field(default_factory=list)
    assembled: Assembled | None = field(default=None, repr=False)
    session: Session | None = field(default=None, repr=False)
    error: ForsyError | None = field(default=None, repr=False)
    exit_code: int = ExitCode.OK
    llm: LLMResult | None = None  # set when the run had a model pass (`RetraceOptions.llm_model`)
    timeline: TimelineCounts | None = None  # set when history or git was merged in
    # the written folder's validation, when it was made where the trace was: a pool worker
    # validates the files it rendered, which the parent then writes unchanged
    checked: Report | None = field(default=None, repr=False)

    @property
    def folder(self) -> Path | None:
        return Path(self.where) if self.where else None


@dataclass
class RetraceRun:
    """Every outcome of a run, in input order."""

    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def results(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("written", "traced")]

    @property
    def skipped(self) -> list[Outcome]:
        """Read but not traced, for a stated reason (no work, outside the window, a copy): never a failure."""
        return [o for o in self.outcomes if o.status == "skipped"]

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def exit_code(self) -> int:
        if not self.failed:
            return ExitCode.OK
        return ExitCode.PARTIAL if self.results else self.failed[0].exit_code
