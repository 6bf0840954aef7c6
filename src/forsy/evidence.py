"""Evidence and the normalized event stream every log source produces.

A source module reads a log and returns a `Session`:

* `evidence`: one `Evidence` per record read (a JSONL line, a history entry, a commit hunk),
  with an id derived from its place (source path, line, byte offset and length) and the
  sha256 of its bytes. Anyone can re-read those bytes and check them.
* `events`: what happened, in order, in a shape common to every source (`Event`). Each event
  cites the evidence it came from with `Ref`s (evidence id + JSON pointer inside the record),
  so the segmenter can say for every field where it was copied from.

The segmenter (`segment.py`) only ever sees `Session`s; it knows nothing about formats.
Events are plain slotted dataclasses, not pydantic models: a 100 MB log has ~100k of them.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .ids import Ref as Ref  # re-exported: a value's place, imported from here by every source
from .ids import evidence_id

if TYPE_CHECKING:
    from .payloads import Link, Payload

EventKind = Literal[
    "user",  # words a person typed (slash commands included)
    "agent_text",  # visible text of the agent
    "reasoning",  # thinking / reasoning summary of the agent
    "tool_call",  # a call of a tool, with exact arguments
    "tool_result",  # what the tool returned, linked by call_id
    "compaction",  # context was compacted; text is the summary the model got
    "interrupt",  # the user interrupted the agent
    "shell_command",  # a command from a shell history (no agent log)
    "commit",  # a git commit
    "note",  # anything else worth keeping on the timeline (system notices)
]


@dataclass(slots=True, frozen=True)
class Evidence:
    """One record read from a log, located exactly."""

    id: str
    source: str  # path relative to the input root (stable across machines)
    line: int | None  # 1-based line number, None for non-line formats
    byte_offset: int
    byte_length: int
    sha256: str
    record_type: str | None = None

    @classmethod
    def make(
        cls,
        source: str,
        line: int | None,
        offset: int,
        raw: bytes,
        digest: str,
        record_type: str | None = None,
    ) -> Evidence:
        return cls(
            evidence_id(source, line, offset, len(raw), digest),
            source,
            line,
            offset,
            len(raw),
            digest,
            # one string per record type, not one per record (most of a large log's records
            # are of a few types)
            sys.intern(record_type) if record_type is not None else None,
        )


@dataclass(slots=True)
class Event:
    """One thing that happened, in a shape common to all sources.

    Fields not relevant to a kind stay None. `refs` cite where `text`/`args` were copied
    from; `info` holds what the source knows beyond these fields, typed per kind (exit
    codes, rich tool results, commit files... see forsy.payloads); `link` ties a subagent's
    event to its spawning call.
    """

    kind: EventKind
    actor: str  # "user", "agent", "subagent:<id>", "system", "human:shell"...
    ts: str | None  # ISO 8601 timestamp, as written in the log
    refs: list[Ref]
    text: str | None = None
    call_id: str | None = None  # links tool_call ↔ tool_result
    tool: str | None = None  # exact tool name (mcp tools as mcp:server.tool)
    args: Any = None  # exact call arguments (parsed JSON value) for tool_call
    is_error: bool | None = None  # tool_result error flag
    group: str | None = None  # calls sharing a group were issued together (parallel)
    abandoned: bool = False  # on a branch the user rewound away from
    excerpt: bool = False  # text is only part of what the log held (stated in text)
    ts_ref: Ref | None = None  # where `ts` was copied from (else it is cited as derived)
    ts_from: Ref | None = None  # the record a derived `ts` was computed from (else the event's first ref)
    name_ref: Ref | None = None  # where `tool` was copied from
    info: Payload | None = None  # what the source knows beyond these fields (forsy.payloads)
    link: Link | None = None  # a subagent's event: the call that spawned its thread


@dataclass(slots=True)
class ReadingWarning:
    """A problem met while reading: kept for the manifest and printed on stderr."""

    code: str
    message: str
    file: str | None = None
    line: int | None = None


@dataclass(slots=True)
class SourceFile:
    path: str  # relative to the input root
    abs_path: str
    kind: str
    bytes: int
    sha256: str


@dataclass(slots=True)
class SessionMeta:
    """Session-wide facts that feed top-level trace fields (agent_config, tools...)."""

    agent: str = ""  # "claude-code", "codex-cli", "shell", ...
    agent_version: str | None = None
    models: list[str] = field(default_factory=list)
    cwd: str | None = None
    git_branch: str | None = None
    tools: list[str] = field(default_factory=list)
    system_prompt: str | None = None
    system_prompt_ref: Ref | None = None
    # when a header says the session started, for a log whose records carry no times (old Codex)
    started_at: str | None = None
    started_at_ref: Ref | None = None
    skills: list[str] = field(default_factory=list)
    memory: str | None = None
    token_usage: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # how the log itself says the session ended, as a termination_reason (T-termination/declared),
    # and the value it was read from
    ending: str | None = None
    ending_ref: Ref | None = None


@dataclass(slots=True)
class Quality:
    """Counts that lower confidence: what the log did not let us see."""

    records: int = 0
    unparsable_records: int = 0
    missing_results: int = 0
    truncated_outputs: int = 0
    compactions: int = 0
    unknown_records: int = 0
    abandoned_events: int = 0
    duplicate_records: int = 0
    encrypted_reasoning: int = 0
    extra: dict[str, int] = field(default_factory=dict)


LedgerHeading = Literal["metadata", "set_aside", "duplicate"]

# Warning codes of a record that was read but could not be parsed (it has no Evidence): the
# shared readers' (sources/_records.py), Codex's and shell history's. The manifest's ledger
# counts these under `unparsable`, by the file and line the warning names.
UNPARSABLE_WARNINGS = frozenset({
    "nul-run", "truncated-line", "unparsable-line", "not-an-object", "too-deep", "unparsable-element",
    "unparsable", "too_deep", "unparsable_line", "orphan_timestamp",
})


# Warning codes that a part of a session (a file or folder read with it: a subagent's transcript,
# a saved output, a task's metadata) could not be read: the session was read without it. A sweep
# reads such a session again each run (it is marked failed, naming the part), so the whole of it
# is traced once the part can be read.
PART_UNREADABLE_WARNINGS = frozenset({
    "companion_unreadable", "subagent_unreadable", "subagent_folder_unreadable", "rollout_unreadable",
    "saved-output-unreadable", "compaction-unreadable", "manifest-unreadable", "state-unreadable", "unreadable",
})

@dataclass(slots=True, frozen=True)
class Mark:
    """Why a record that no step cites was read: metadata (`name` says which), set aside by
    the rule `name`, or a duplicate (`name` says of what). `subtype` refines its record type."""

    heading: LedgerHeading
    name: str
    subtype: str | None = None


# A large log marks tens of thousands of records with a few dozen different marks (progress
# records, snapshots...): records marked alike share one Mark (frozen, so sharing is safe)
_shared_mark = functools.lru_cache(maxsize=1024)(Mark)


@dataclass(slots=True)
class Session:
    """What one source read from one piece of work.

    `ledger` marks, per evidence id, why a record was used other than as a step's evidence
    (`mark`); a record neither cited by the trace nor marked is `unknown` in the manifest.
    """

    source_kind: str
    session_id: str
    files: list[SourceFile]
    evidence: dict[str, Evidence]
    events: list[Event]
    meta: SessionMeta
    quality: Quality = field(default_factory=Quality)
    warnings: list[ReadingWarning] = field(default_factory=list)
    ledger: dict[str, Mark] = field(default_factory=dict)

    def mark(self, ev_id: str, heading: LedgerHeading, name: str, subtype: str | None = None) -> None:
        """Say why the record `ev_id` was read if no step cites it (the last mark stands)."""
        self.ledger[ev_id] = _shared_mark(heading, name, subtype)

    def add_evidence(self, ev: Evidence) -> str:
        self.evidence.setdefault(ev.id, ev)
        return ev.id

    def warn(self, code: str, message: str, file: str | None = None, line: int | None = None) -> None:
        self.warnings.append(ReadingWarning(code, message, file, line))

    def warn_at(self, code: str, message: str, e: Event | None, file: str | None = None) -> None:
        """A warning about event `e`, named by the file and line of the record it was read from
        (its first ref), else by `file` alone."""
        ev = self.evidence.get(e.refs[0].ev) if e is not None and e.refs else None
        self.warn(code, message, ev.source if ev is not None else file, ev.line if ev is not None else None)


def pointer(*parts: str | int) -> str:
    """RFC 6901 JSON pointer from path parts."""
    out = []
    for p in parts:
        s = str(p).replace("~", "~0").replace("/", "~1")
        out.append(s)
    return "/" + "/".join(out) if out else ""


def resolve_pointer(doc: Any, ptr: str) -> Any:
    """Follow an RFC 6901 pointer; raises KeyError/IndexError when it does not resolve."""
    if ptr == "":
        return doc
    cur = doc
    for raw in ptr.lstrip("/").split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, list):
            cur = cur[int(key)]
        elif isinstance(cur, dict):
            cur = cur[key]
        else:
            raise KeyError(ptr)
    return cur
