"""A run: session files found, each taken through the same stages, and what became of each.

    options     RetraceOptions, progress events and their Meter, how many processes a run uses
    outcome     Outcome per session, RetraceRun in input order
    discovery   which session files some paths name (`discover`), read as sessions
    timeline    the --history/--git inputs, read once and merged into each session
    redaction   a session's strings masked before any later stage, a last scan of the trace
    session     the per-session stage: read, redact, segment, [model,] assemble, hand to the sink
    serial      `retrace` and `retrace_one`, one session at a time (or through `parallel`)
    parallel    session files on a pool of worker processes, handed to the sink in input order
    store_worker  `forsy worker`: the shared store's jobs, run until stopped

Imports go down this list's dependencies: `serial` and `parallel` use `session`, which uses
the modules above it; `parallel` and `store_worker` are imported by the callers that need
them, not from here.
"""

from .discovery import NOT_READ, discover, one_trace_expected, read, read_sessions
from .options import (
    AUTO_PARALLEL_BYTES,
    Meter,
    Progress,
    ProgressEvent,
    RetraceOptions,
    Stage,
    default_jobs,
    parallel_jobs,
)
from .outcome import LLMResult, Outcome, RetraceRun, TimelineCounts
from .redaction import make_redactor
from .serial import retrace, retrace_one
from .session import SAME_TRACE, process
from .timeline import Timeline, timeline_inputs

__all__ = [
    "AUTO_PARALLEL_BYTES", "LLMResult", "Meter", "NOT_READ", "Outcome", "Progress", "ProgressEvent", "RetraceOptions",
    "RetraceRun", "SAME_TRACE", "Stage", "Timeline", "TimelineCounts", "default_jobs", "discover", "make_redactor",
    "one_trace_expected", "parallel_jobs", "process", "read", "read_sessions", "retrace", "retrace_one",
    "timeline_inputs",
]
