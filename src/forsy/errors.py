"""The one exception tree of forsy.

    ForsyError                 base: every error forsy raises on purpose
    ├── InputError             a path that cannot be read or is of no format forsy reads
    │   └── UnsupportedFormat  a readable file of a format forsy does not read (yet)
    ├── ParseError             a record that cannot be understood (carries file and line)
    ├── ValidationError        a trace that breaks the Forsy trace rules
    ├── RedactionError         text that could not be scanned for secrets (fail closed)
    ├── LLMError               the optional model path failed (provider, parsing, missing extra)
    └── OutputError            the trace folder could not be written

Foreign exceptions (OSError, pydantic, sqlite, litellm) are translated into these at the
boundary, and the CLI turns them into one-line messages in one place (`cli.main`).
"""

from __future__ import annotations

from pathlib import Path


class ForsyError(Exception):
    """Base of every error forsy raises on purpose.

    `path` and `line` say where the problem is, when it has a place; the CLI prints them.
    `exit_code` is the process exit status the CLI uses for this kind of error.
    """

    exit_code = 1

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path + (f":{self.line}" if self.line else "") + ": "
        return where + self.message


class InputError(ForsyError):
    """A path that does not exist, cannot be read, or holds nothing forsy can use."""

    exit_code = 2


class UnsupportedFormat(InputError):
    """A readable file whose format forsy does not read."""

    exit_code = 3


class ParseError(ForsyError):
    """A record that cannot be understood."""

    exit_code = 2


class ValidationError(ForsyError):
    """A trace that breaks the rules of the Forsy trace format."""

    exit_code = 1


class RedactionError(ForsyError):
    """Text that could not be scanned for secrets; forsy fails closed."""

    exit_code = 4


class LLMError(ForsyError):
    """The optional LLM-assisted path failed."""

    exit_code = 5


class OutputError(ForsyError):
    """The trace folder could not be written."""

    exit_code = 6
