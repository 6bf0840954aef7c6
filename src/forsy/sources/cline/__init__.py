"""Cline tasks (VS Code globalStorage `saoudrizwan.claude-dev/tasks/<task id>/`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts. The parts a fork of Cline reads its own tasks with (Roo Code's
reader, `sources.roo_code`) are named here: the XML call parser, the UI's record kinds, and
the reading of a task's files.
"""

from __future__ import annotations

from ._files import content_blocks, load_array, load_file, members
from ._ledger import kind_of, request_tokens
from ._sdk import iso_ms
from ._xml_calls import Call, Grammar, cut_notice, events, split
from .source import EDITOR_SERVERS, EDITORS, ClineSource

__all__ = ["EDITORS", "EDITOR_SERVERS", "Call", "ClineSource", "Grammar", "content_blocks", "cut_notice", "events",
           "iso_ms", "kind_of", "load_array", "load_file", "members", "request_tokens", "split"]
