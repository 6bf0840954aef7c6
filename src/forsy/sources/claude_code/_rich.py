"""A tool result's `toolUseResult`: the writer's structured copy of the result (file contents,
stdout, patches, the original file), often larger than the result itself.

Later rules read a few of its keys (`RICH_KEYS`); the rest stays in the log, cited by the
result's `rich_ref`. A user record is cut down to those keys as it is read (`Slimmed`), so a
large session's results are never held whole while the session is read; a digest of the whole
value stands for it where resume replays are compared (`_graph._same_content`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import orjson

# What later rules read from `toolUseResult`
RICH_KEYS = ("type", "filePath", "structuredPatch", "agentId", "status", "interrupted", "exitCode",
             "returnCodeInterpretation", "isImage", "backgroundTaskId", "userModified", "replaceAll")
TEXT_KEPT = 2000  # characters of a result given as text (its first words say an error or a rejection)


def slim_rich(rich: Any) -> Any:
    """What later rules read of a `toolUseResult` value: its `RICH_KEYS` (and whether it held an
    original file), the start of a text, nothing of any other kind."""
    if isinstance(rich, Slimmed):
        return rich.value
    if isinstance(rich, dict):
        out = {k: rich[k] for k in RICH_KEYS if k in rich}
        if "originalFile" in rich:
            out["had_original"] = rich["originalFile"] is not None
        return out
    if isinstance(rich, str):
        return rich[:TEXT_KEPT]
    return None


@dataclass(frozen=True, slots=True)
class Slimmed:
    """A `toolUseResult` as a record keeps it once read: `slim_rich` of it, and a digest of the
    whole value (two are equal when their values are; keys in any order)."""

    value: Any = field(compare=False)
    digest: bytes

    @classmethod
    def of(cls, rich: Any) -> Slimmed:
        try:
            data = orjson.dumps(rich, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        except TypeError:  # integers beyond 64 bits, lone surrogates: the stdlib writes them
            data = json.dumps(rich, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
        return cls(slim_rich(rich), hashlib.sha256(data).digest())


def rich_of(data: dict[str, Any]) -> Any:
    """A record's `toolUseResult` as later rules read it (slimmed or not), None when absent."""
    rich = data.get("toolUseResult")
    return rich.value if isinstance(rich, Slimmed) else rich
