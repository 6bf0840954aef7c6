"""A trace as the conversation it was: what the user asked, what the agent said, each tool call
with its input and output, file edits as diffs, failures and retries, subagents nested, system
events (compactions, hooks) where they happened. Plain values, for every renderer (the web
draft page, `forsy render`); each escapes for its medium.

Nothing here is inferred: every entry is one step of the trace, shown with the trace's own
values (already redacted), in step order.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ..evidence import Event
from ..rules.timeline import shell_command_of
from ..tools import ToolKind, kind_of, spec
from .source import LoadedTrace

FOLD = 1_500  # characters of an output shown before "show all"
WHOLE_CAP = 200_000  # characters of one value put into the page at all (the step page has the rest)
DIFF_LINES = 400  # lines of one diff shown

Kind = Literal["user", "answer", "call", "system", "hook", "compaction", "error"]
LineKind = Literal["file", "hunk", "add", "del", "same"]


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str


@dataclass(frozen=True)
class Entry:
    step: int
    kind: Kind
    actor: str
    title: str  # "You", "Agent", the tool's name, "Compaction", …
    time: str
    text: str = ""  # words (the user's, the agent's answer: Markdown source) or a system event
    command: str = ""  # a shell call's command line
    target: str = ""  # what another call acts on (a file, a pattern, a URL), shown beside its name
    input: str = ""  # a tool call's input, as readable text
    output: str = ""  # at most WHOLE_CAP characters
    output_length: int = 0
    diff: tuple[DiffLine, ...] = ()
    reasoning: str = ""  # the agent's thinking before it (folded)
    failed: bool = False
    retry_of: int | None = None
    retried_by: tuple[int, ...] = ()
    note: str = ""  # causal note (interruptions, rewinds) shown beside it

    @property
    def folded(self) -> bool:
        return self.output_length > FOLD

    @property
    def cut(self) -> bool:
        return self.output_length > len(self.output)


@dataclass(frozen=True)
class Subagent:
    actor: str
    entries: list[Entry] = field(default_factory=list)


Block = Entry | Subagent


def _str(v: Any) -> str:
    return v if isinstance(v, str) else "" if v is None else orjson.dumps(v).decode()


def _args(text: str) -> dict[str, Any] | None:
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return v if isinstance(v, dict) else None


def _pick(args: dict[str, Any], *names: str) -> str | None:
    for n in names:
        v = args.get(n)
        if isinstance(v, str):
            return v
    return None


def _command(tool: str | None, args: dict[str, Any] | None, raw: str) -> str:
    """A shell call's command: the project's one reading of it (shell calls by tool kind; Codex's
    `bash -lc` script, not the whole argv); a command logged as text is that text."""
    if args is None:
        return raw
    return shell_command_of(Event("tool_call", "agent", None, [], tool=tool, args=args)) or ""


def _readable(args: dict[str, Any] | None, raw: str) -> str:
    """A tool call's input for a person: JSON laid out, one key a line when it is an object."""
    if args is None:
        return raw
    return orjson.dumps(args, option=orjson.OPT_INDENT_2).decode()


def _unified(path: str, old: str, new: str) -> list[DiffLine]:
    out = [DiffLine("file", path)]
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3):
        if line.startswith(("---", "+++")):
            continue
        kind: LineKind = "hunk" if line.startswith("@@") else "add" if line.startswith("+") else \
            "del" if line.startswith("-") else "same"
        out.append(DiffLine(kind, line))
    return out


_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")


def _patch(text: str) -> list[DiffLine]:
    """An apply_patch text (`*** Begin Patch … *** End Patch`) or a unified diff, line by line."""
    out: list[DiffLine] = []
    for line in text.splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            out.append(DiffLine("file", f"{m.group(2)} ({m.group(1).lower()})"))
        elif line.startswith(("*** Begin Patch", "*** End Patch", "--- ", "+++ ")):
            continue
        elif line.startswith("diff --git "):
            out.append(DiffLine("file", line.removeprefix("diff --git ")))
        elif line.startswith("@@"):
            out.append(DiffLine("hunk", line))
        elif line.startswith("+"):
            out.append(DiffLine("add", line))
        elif line.startswith("-"):
            out.append(DiffLine("del", line))
        else:
            out.append(DiffLine("same", line))
    return out


def _find_patch(args: dict[str, Any] | None, raw: str) -> str | None:
    for v in [*(args or {}).values(), raw]:
        if isinstance(v, str) and ("*** Begin Patch" in v or v.startswith("diff --git ")):
            return v
    return None


def edit_diff(tool: str | None, text: str) -> list[DiffLine]:
    """The change an edit tool's input describes, as diff lines (empty when it is no edit)."""
    s = spec(tool)
    if s is None or s.kind is not ToolKind.EDIT:
        return []
    args = _args(text)
    patch = _find_patch(args, text)
    if patch is not None:
        return _patch(patch)[:DIFF_LINES]
    if args is None:
        return []
    path = _pick(args, "file_path", "path", "notebook_path", "absolute_path") or "(file)"
    pairs: list[tuple[str, str]] = []
    edits = args.get("edits")
    if isinstance(edits, list):  # MultiEdit
        pairs = [(_str(e.get("old_string")), _str(e.get("new_string"))) for e in edits if isinstance(e, dict)]
    old, new = _pick(args, "old_string", "old_str", "old"), _pick(args, "new_string", "new_str", "new")
    if old is not None or new is not None:
        pairs.append((old or "", new or ""))
    content = _pick(args, "content", "file_text", "new_source")
    if not pairs and content is not None:  # a whole file written
        pairs.append(("", content))
    out: list[DiffLine] = []
    for old_text, new_text in pairs:
        lines = _unified(path, old_text, new_text)
        out += lines if not out else lines[1:]  # one file header for the edits of one call
    return out[:DIFF_LINES]


_SEARCH_REPLACE = re.compile(r"^(?P<path>[^\n]*)\n?```[^\n]*\n<<<<<<< SEARCH\n(?P<old>.*?)^=======\n(?P<new>.*?)"
                             r"^>>>>>>> REPLACE", re.S | re.M)


def answer_diff(text: str) -> list[DiffLine]:
    """The SEARCH/REPLACE blocks an answer holds (Aider writes its edits so), as diff lines."""
    out: list[DiffLine] = []
    for m in _SEARCH_REPLACE.finditer(text):
        out += _unified(m.group("path").strip() or "(file)", m.group("old"), m.group("new"))
    return out[:DIFF_LINES]


# the argument that says what a call acts on, by the names agents' tools give it
_TARGETS = ("file_path", "path", "notebook_path", "absolute_path", "pattern", "url", "query", "description",
            "subagent_type", "prompt")


def _rule(d: LoadedTrace, n: int, name: str) -> str:
    fp = (d.step_provenance(n).get("fields") or {}).get(name) or {}
    return str(fp.get("rule") or "")


def _entry(d: LoadedTrace, s: dict[str, Any]) -> Entry:
    n = int(s.get("step") or 0)
    actor, action, tool = str(s.get("actor") or ""), s.get("action"), s.get("tool")
    time = str(s.get("started_at") or "")[11:19]
    inp, out = _str(s.get("input")), _str(s.get("output"))
    failed = s.get("success") is False or action == "error"
    # a causal note worth a reader's eye: an interruption or a rewind (the others restate the links)
    note = _str(s.get("causal_note")) if any(k in _rule(d, n, "causal_note") for k in ("interrupt", "rewind")) else ""
    common: dict[str, Any] = dict(step=n, actor=actor, time=time, failed=failed, retry_of=s.get("retry_of"),
                                  reasoning=_str(s.get("reasoning")), note=note,
                                  output=out[:WHOLE_CAP], output_length=len(out))
    if action == "user_message":
        return Entry(kind="user", title="User" if actor in ("user", "human") else actor, text=inp, **common)
    if action == "error":
        return Entry(kind="error", title="Error", text=out or inp, **common)
    if actor.startswith("system"):
        kind: Kind = "hook" if actor == "system:hook" else \
            "compaction" if "compaction" in _rule(d, n, "operation") else "system"
        return Entry(kind=kind, title={"hook": "Hook", "compaction": "Compaction"}.get(kind, "System"),
                     text=out or inp, **{**common, "output": "", "output_length": 0})
    if action == "output":
        return Entry(kind="answer", title="Agent" if actor == "agent" else actor, text=out,
                     diff=tuple(answer_diff(out)), **{**common, "output": "", "output_length": 0})
    args = _args(inp)
    target = _pick(args, *_TARGETS) if args is not None else None
    return Entry(kind="call", title=str(tool or s.get("operation") or "step"),
                 command=_command(tool, args, inp) if kind_of(tool) is ToolKind.SHELL else "",
                 target=" ".join((target or "").split())[:200],
                 input=_readable(args, inp), diff=tuple(edit_diff(tool, inp)), **common)


def gist(e: Entry) -> str:
    """One line saying what a step is about: the command, the target, or the words."""
    text = e.command or (f"{e.target}" if e.target else "") or e.text or e.input or e.output
    return " ".join(text.split())


def conversation(d: LoadedTrace) -> list[Block]:
    """The trace's steps as entries in order, a subagent's consecutive steps grouped under it."""
    entries = [_entry(d, s) for s in d.steps if isinstance(s, dict)]
    retried: dict[int, list[int]] = {}
    for e in entries:
        if isinstance(e.retry_of, int):
            retried.setdefault(e.retry_of, []).append(e.step)
    out: list[Block] = []
    for e in entries:
        if e.step in retried:
            e = Entry(**{**e.__dict__, "retried_by": tuple(retried[e.step])})
        if e.actor.startswith("subagent"):
            last = out[-1] if out else None
            if isinstance(last, Subagent) and last.actor == e.actor:
                last.entries.append(e)
            else:
                out.append(Subagent(e.actor, [e]))
        else:
            out.append(e)
    return out


__all__ = ["FOLD", "Block", "DiffLine", "Entry", "Subagent", "answer_diff", "conversation", "edit_diff", "gist"]
