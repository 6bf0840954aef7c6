"""The `forsy` command line: parses arguments, calls one library function, prints.

One module per command group, registered in `commands` and nowhere else: retrace
(`_retrace`), check (`_check`: validate, verify, schema), ls (`_ls`), sweep, store, review
(with show and render), team (worker, jobs), export, hook, dataset. What they share (the one
place errors become messages, --debug and --quiet on every command, terminal-safe text, JSON,
the store option) is `_output`.
Exit codes are `errors.ExitCode` (the README's table is tested against it).
"""

from ._output import STATE
from .commands import app, main

__all__ = ["STATE", "app", "main"]
