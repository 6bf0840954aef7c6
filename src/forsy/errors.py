"""The one exception tree of forsy.

    ForsyError                 base: every error forsy raises on purpose
    ├── InputError             a path that cannot be read or is of no format forsy reads
    │   ├── UnsupportedFormat  a readable file of a format forsy does not read (yet)
    │   └── NoWork             a log that was read but holds no work
    ├── ParseError             a record that cannot be understood (carries file and line)
    ├── ValidationError        a trace that breaks the Forsy trace rules
    ├── RedactionError         text that could not be scanned for secrets (fail closed)
    ├── LLMError               the optional model path failed (provider, parsing, missing extra)
    ├── OutputError            the trace folder could not be written
    └── StoreError             the store could not be read or written (corrupt, disk full, read-only)
        └── StoreUnreachable   the store's server could not be reached (down, restarting, connection lost)

Foreign exceptions (OSError, pydantic, sqlite, litellm) are translated into these at the
boundary, and the CLI turns them into one-line messages in one place (`cli.main`).
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """Every exit status of the `forsy` command, defined here and only here (the README's
    table is checked against this by a test)."""

    OK = 0  # done (trace written / trace valid)
    INVALID = 1  # the trace breaks rules of the format (validate), or copied values differ (verify)
    INPUT = 2  # unusable input: missing path, unreadable file, no session found, no work in the log
    UNSUPPORTED = 3  # a file of a format forsy does not read
    REDACTION = 4  # text that could not be scanned for secrets (forsy fails closed)
    LLM = 5  # the optional LLM path failed
    OUTPUT = 6  # the trace folder could not be written
    PARTIAL = 7  # some sessions were written, others failed (each failure is listed)
    STORE = 8  # the store could not be read or written (corrupt, full disk, read-only): nothing half-written
    CONFLICT = 9  # a review action refused: the draft changed since it was read (someone acted first), or was replaced
    INTERNAL = 70  # internal error (a bug: run with --debug for the traceback and report it)
    INTERRUPTED = 130  # interrupted (Ctrl-C)
    BROKEN_PIPE = 141  # the reader of stdout went away (`forsy validate … | head`)


class ForsyError(Exception):
    """Base of every error forsy raises on purpose.

    `path` and `line` say where the problem is, when it has a place; the CLI prints them.
    `exit_code` is the process exit status the CLI uses for this kind of error.
    """

    exit_code: int = ExitCode.INVALID

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

    exit_code: int = ExitCode.INPUT


class UnsupportedFormat(InputError):
    """A readable file whose format forsy does not read."""

    exit_code: int = ExitCode.UNSUPPORTED


class NoWork(InputError):
    """A log that was read but holds no work (no messages, calls or commands)."""


class ParseError(ForsyError):
    """A record that cannot be understood."""

    exit_code: int = ExitCode.INPUT


class ValidationError(ForsyError):
    """A trace that breaks the rules of the Forsy trace format."""

    exit_code: int = ExitCode.INVALID


class RedactionError(ForsyError):
    """Text that could not be scanned for secrets; forsy fails closed."""

    exit_code: int = ExitCode.REDACTION


class LLMError(ForsyError):
    """The optional LLM-assisted path failed."""

    exit_code: int = ExitCode.LLM


class OutputError(ForsyError):
    """The trace folder could not be written."""

    exit_code: int = ExitCode.OUTPUT


class StoreError(ForsyError):
    """The store could not be read or written: a corrupt page, a full disk or a file-size limit,
    a read-only file or folder. What was being written is rolled back (the store stays
    consistent); the message says what the database reported."""

    exit_code: int = ExitCode.STORE


class StoreUnreachable(StoreError):
    """The store's database server could not be reached: not running, restarting, or the
    connection was lost. Nothing was written (a transaction under way is rolled back by the
    server); the same command run again once the server is back does the work."""


class InternalError(ForsyError):
    """A bug met while retracing one file: that file failed (named, with the exception's type and
    words) and the others went on; `--debug` raises it with its traceback."""

    exit_code: int = ExitCode.INTERNAL


class SameTrace(ForsyError):
    """A trace this run has already written (a session given twice: a log and its copy make the
    same trace, ids being content hashes). Reported as skipped, naming the first; not an error."""

    exit_code: int = ExitCode.OK
