"""Typed payloads of events: what a source knows about an event beyond its core fields.

`Event.info` holds one payload object, of the class for its kind (`MessageInfo` for user /
agent_text / reasoning, `CallInfo`, `ResultInfo`, `NoteInfo` for note / interrupt /
compaction, `ShellInfo`, `CommitInfo`); `Event.link` ties a subagent's event to the call that
spawned its thread. They are slotted dataclasses, not dicts: a 100 MB log has ~100k events,
and mypy checks every field a source writes and a rule reads.

Each class names in `TEXT_FIELDS` the fields that hold text copied from the log; redaction
masks those (`redact_payload`) and nothing else needs to know a source's fields. A field
that holds another payload (`ResultInfo.persisted`, `CallInfo.shell_history`) is listed
too, and its own `TEXT_FIELDS` are masked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, NotRequired, TypeAlias, TypedDict

from .ids import Ref

JSONValue: TypeAlias = "None | bool | int | float | str | list[JSONValue] | dict[str, JSONValue]"


@dataclass(slots=True, kw_only=True)
class Info:
    """Fields any kind may carry: where exactly the event's text sits in its record."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("turn_id",)

    turn_id: str | None = None  # Codex: the turn the event belongs to
    lossy_utf8: bool = False  # the record was decoded with invalid UTF-8 replaced
    inner_pointer: str | None = None  # the ref points at a JSON string: parse it, follow this
    span: tuple[int, int] | None = None  # the text is this slice of the string the ref points at


@dataclass(slots=True, kw_only=True)
class Link:
    """A subagent's event: which call spawned its thread, and the rule that found it."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("subagent", "parent_thread_id", "parent_call_id")

    subagent: str | None = None  # Claude Code: the agent id of the thread
    parent_thread_id: str | None = None  # Codex: the spawning thread
    parent_call_id: str | None = None
    link_rule: str | None = None
    thread_source: str | None = None  # Claude Code: "inline" or "file"


@dataclass(slots=True, kw_only=True)
class MessageInfo(Info):
    """user, agent_text and reasoning events."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("turn_id", "context")

    rule: str | None = None  # a user event derived by this rule (slash-command, bash-input)
    # (on agent text: the id of the rule that joined it from the pieces it streamed in, R-text/deltas)
    synthetic: bool = False  # a harness filler or API error, not the model's words
    api_error: bool = False
    attachments_omitted: int = 0  # Claude Code: images/documents sent with the message
    images: int = 0  # Codex: images sent with the message
    wrapped: str | None = None  # the words were cut out of this wrapper (with `span`)
    context: str | None = None  # the rest of that wrapper: what the client sent with the words ...
    context_span: tuple[int, int] | None = None  # ... and where it is in the same string
    phase: str | None = None  # Codex: commentary / final_answer
    part: str | None = None  # Codex reasoning: "summary" or "raw"


@dataclass(slots=True, frozen=True)
class Match:
    """A timeline decision: a history command or a commit matched to a call."""

    rule: str
    score: float
    dt_s: float | None = None
    call_id: str | None = None  # an uncertain match: the call it may be
    files: tuple[str, ...] = ()
    calls: tuple[str | None, ...] = ()  # the edit calls a commit was matched by
    # a commit the log names: the record that names it (evidence id), the pointer of the result's
    # text in it (and inside a JSON string there, `inner_pointer`), and [start, end) of the name
    # (`[branch sha] subject`) in that text
    evidence: str | None = None
    pointer: str | None = None
    inner_pointer: str | None = None
    span: tuple[int, int] | None = None


@dataclass(slots=True, kw_only=True)
class HistoryMatch:
    """A call matched to the shell history: the exit code and time the history recorded."""

    exit_code: int | None
    duration_s: float | None
    record: str | None  # evidence id of the whole history record
    match: Match


@dataclass(slots=True, kw_only=True)
class CallInfo(Info):
    """tool_call events."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("turn_id", "raw_name", "namespace", "status")

    raw_name: str | None = None  # the name as written, when forsy renamed it (mcp:server.tool)
    server_side: bool = False
    args_unparsed: bool = False  # Codex arguments that are not JSON: kept as the raw string
    namespace: str | None = None
    call_id_from: str | None = None
    status: str | None = None
    result_in_log: bool = True  # False: the log never holds a result for this tool
    no_result: bool = False  # a result was expected and is missing
    shell_history: HistoryMatch | None = None  # set by the timeline merge
    decoded: str | None = None  # the arguments were rebuilt from the log by this decoding (R-shell/decoded)
    # the call was read out of the model's text by this rule of its source (R-call/cline-xml): its
    # name and arguments are derived, and `span` is where the call is written in the cited text
    parsed_by: str | None = None
    # the person changed the proposed call before accepting it (R-call/user-edited): where the log says so
    user_edited: Ref | None = None
    # the call writes to a process another call started (Codex's write_stdin): that call's id, and
    # where its output stated the process's id (R-cause/exec-session)
    continues: str | None = None
    continues_refs: list[Ref] = field(default_factory=list)
    # the process the call writes to as the log names it (write_stdin's session_id), whether or not a
    # call of the log started it: a call to one process never retries a call to another (R-retry)
    process: str | None = None


@dataclass(slots=True, kw_only=True)
class Persisted:
    """A large output the agent saved beside its log (Claude Code's `tool-results/`, Gemini
    CLI's `tool-outputs/`), read back."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("text",)

    ref: Ref
    text: str
    source: str
    by: str = "Claude Code"  # the agent that saved it
    folder: str = "tool-results"  # where, beside its log


@dataclass(slots=True, kw_only=True)
class ResultInfo(Info):
    """tool_result events."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("turn_id", "rich", "tools", "raw", "persisted_path", "persisted")

    rich: JSONValue = None  # Claude Code's toolUseResult, slimmed to what rules read
    rich_ref: Ref | None = None
    rejected: bool = False
    exit_code: int | None = None
    duration_s: float | None = None
    exit_code_from: Ref | None = None  # Codex: the *_end event these came from
    duration_from: Ref | None = None
    success_from: Ref | None = None
    failure_rule: str | None = None  # the source's named rule that read a failure (or success) from the output's words
    # the outcome (success, exit code) was stated by another record than this result, which the
    # outcome cites instead (Codex: a later poll of the process the call started)
    outcome_refs: list[Ref] | None = None
    truncated_by_codex: bool = False
    orphan: bool = False  # no call with this id in the log
    exec_session_id: int | None = None
    exec_call_id: str | None = None  # a poll of a unified exec process: the call that started it
    tools: JSONValue = None  # tool_search_output: the tools found
    raw: str | None = None  # the output string, when it held more than output and metadata
    images: int = 0
    parts: list[str] | None = None  # the text joins these parts (pointers under the ref) ...
    joined: str | None = None  # ... with this separator
    persisted_path: str | None = None
    persisted_missing: bool = False
    persisted: Persisted | None = None
    # Claude Code: the person changed the proposed edit before accepting it, so what ran is not
    # the call's input (R-call/user-modified): where the result says so
    user_modified: Ref | None = None
    # the output's text was rendered from its records by this decoding (R-output/rendered), not
    # copied: a terminal's escapes applied, say. A rule's words, not log text
    decoded: str | None = None


@dataclass(slots=True, kw_only=True)
class NoteInfo(Info):
    """note, interrupt and compaction events."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("turn_id", "compact", "reason", "spawn_call_id", "raw")

    subtype: str | None = None
    role: str | None = None
    hook: str | None = None  # subtype "hook": the hook event (Stop, PreToolUse, UserPromptSubmit...) ...
    hook_target: str | None = None  # ... and the actor it intervened with ("agent", "subagent:<id>")
    compact: JSONValue = None  # Claude Code: compactMetadata
    num_turns: JSONValue = None  # Codex thread_rolled_back, as written
    reason: JSONValue = None  # Codex turn_aborted, as written
    spawn_call_id: str | None = None
    replacement_history_items: int | None = None
    encrypted: bool = False
    raw: dict[str, JSONValue] = field(default_factory=dict)  # Codex references: the payload, copied


@dataclass(slots=True, kw_only=True)
class ShellInfo(Info):
    """shell_command events (history files and atuin rows)."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = (
        "atuin_id", "session", "user", "paths", "cwd", "hostname", "author", "intent", "author_kind",
    )  # fmt: skip

    shell: str | None = None
    atuin_id: JSONValue = None
    session: str | None = None  # bash session logs: the shell's pid; atuin: its session id
    user: str | None = None
    histnum: int | None = None
    exit_code: int | None = None
    duration_s: float | None = None
    paths: list[str] | None = None  # fish: paths the command named
    cwd: str | None = None
    hostname: str | None = None
    author: str | None = None
    intent: str | None = None
    author_kind: JSONValue = None
    record_ref: Ref | None = None  # the whole record, when the command is only part of it
    decoded: str | None = None  # how the command's bytes were decoded (a rule, not log text)
    duplicate_of_line: int | None = None
    possible_match: Match | None = None  # set by the timeline merge


class Hunk(TypedDict):
    header: str
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int


class FileChange(TypedDict):
    path: str | None
    status: str
    diff: str
    hunks: list[Hunk]
    old_path: NotRequired[str]
    binary: NotRequired[bool]
    combined: NotRequired[bool]


@dataclass(slots=True, kw_only=True)
class CommitInfo(Info):
    """commit events (git commits and patches). `branches`, `patch_id` and `missing` are what
    only a repository can say (sources.git.read_git); a patch file leaves them unset."""

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = (
        "sha", "parents", "author_name", "author_email", "author_date",
        "committer_name", "committer_email", "committer_date", "files", "branches", "missing",
    )  # fmt: skip

    sha: str | None = None
    parents: list[str] = field(default_factory=list)
    author_name: str | None = None
    author_email: str | None = None
    author_date: str | None = None
    committer_name: str | None = None
    committer_email: str | None = None
    committer_date: str | None = None
    files: list[FileChange] = field(default_factory=list)
    merge: bool = False
    patch: bool = False  # read from a patch file, not a repository
    # the branches whose history holds it, as git reported them when read; [] = only a reflog holds
    # it (amended or rebased away); None = not asked (a patch file, or one revision read)
    branches: list[str] | None = None
    patch_id: str | None = None  # `git patch-id --stable`: the same change under another sha
    missing: list[str] = field(default_factory=list)  # objects a partial clone lacks ("blob <id> (<path>)")
    matched_call_id: str | None = None  # set by the timeline merge
    match: Match | None = None
    possible_match: Match | None = None


Payload = MessageInfo | CallInfo | ResultInfo | NoteInfo | ShellInfo | CommitInfo

# The payload class of each event kind.
PAYLOAD_FOR_KIND: dict[str, type[Payload]] = {
    "user": MessageInfo, "agent_text": MessageInfo, "reasoning": MessageInfo,
    "tool_call": CallInfo, "tool_result": ResultInfo,
    "note": NoteInfo, "interrupt": NoteInfo, "compaction": NoteInfo,
    "shell_command": ShellInfo, "commit": CommitInfo,
}  # fmt: skip


def redact_payload(obj: Info | Link | Persisted | HistoryMatch, rv: Callable[[object], object]) -> None:
    """Mask, in place, the fields the class declares as log text (nested payloads too)."""
    for name in getattr(obj, "TEXT_FIELDS", ()):
        value = getattr(obj, name)
        if value is None:
            continue
        if isinstance(value, Persisted):
            redact_payload(value, rv)
        else:
            setattr(obj, name, rv(value))
