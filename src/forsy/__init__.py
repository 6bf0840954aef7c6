"""forsy: retrace AI agent logs into honest, structured Forsy work traces.

The public API is what `__all__` lists; everything else is internal and may change:
    import forsy
    run = forsy.retrace(["~/.claude/projects/-home-me-proj"])        # traces in memory
    run = forsy.retrace(["session.jsonl"], sink=forsy.FolderSink(Path("out"), parent=True))
    for outcome in run.outcomes: ...
    report = forsy.validate("out/<trace>")
    check = forsy.verify("out/<trace>", ["~/.claude/projects/-home-me-proj"])

Names are imported on first use, so `import forsy` (and `forsy --help`) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

_EXPORTS: dict[str, str] = {
    # the flow
    "retrace": "forsy.run:retrace",
    "retrace_one": "forsy.run:retrace_one",
    "read_sessions": "forsy.run:read_sessions",
    "RetraceOptions": "forsy.run:RetraceOptions",
    "RetraceRun": "forsy.run:RetraceRun",
    "Outcome": "forsy.run:Outcome",
    # sinks
    "Sink": "forsy.sinks:Sink",
    "FolderSink": "forsy.sinks:FolderSink",
    # the trace models (the spec in code)
    "Trace": "forsy.models:Trace",
    "Step": "forsy.models:Step",
    "Manifest": "forsy.models:Manifest",
    "Provenance": "forsy.models:Provenance",
    # checks
    "validate": "forsy.validation:validate_path",
    "verify": "forsy.verification:verify_folder",
    # errors
    **{name: f"forsy.errors:{name}" for name in (
        "ExitCode", "ForsyError", "InputError", "UnsupportedFormat", "NoWork", "ParseError", "ValidationError",
        "RedactionError", "LLMError", "OutputError")},
}

__all__ = [  # the same names as _EXPORTS (a test checks), written out so tools can read them
    "ExitCode", "FolderSink", "ForsyError", "InputError", "LLMError", "Manifest", "NoWork", "Outcome",
    "OutputError", "ParseError", "Provenance", "RedactionError", "RetraceOptions", "RetraceRun", "Sink", "Step",
    "Trace", "UnsupportedFormat", "ValidationError", "__version__", "read_sessions", "retrace", "retrace_one",
    "validate", "verify",
]

if TYPE_CHECKING:
    from .errors import (
        ExitCode,
        ForsyError,
        InputError,
        LLMError,
        NoWork,
        OutputError,
        ParseError,
        RedactionError,
        UnsupportedFormat,
        ValidationError,
    )
    from .models import Manifest, Provenance, Step, Trace
    from .run import Outcome, RetraceOptions, RetraceRun, read_sessions, retrace, retrace_one
    from .sinks import FolderSink, Sink
    from .validation import validate_path as validate
    from .verification import verify_folder as verify


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'forsy' has no attribute {name!r}")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value
