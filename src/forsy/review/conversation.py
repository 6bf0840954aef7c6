"""A trace as the conversation it was: what the user asked, what the agent said, each tool call
with its input and output, file edits as diffs, failures and retries, subagents nested, system
events (compactions, hooks) where they happened. Plain values, for every renderer (the web
draft page, `forsy render`); each escapes for its medium.

Nothing here is inferred: every entry is one step of the trace, shown with the trace's own
values (already redacted), in step order. What the trace says of a step that changes how it is
read is marked on it (`Mark`): a step on a branch the user rewound away from, a call the user
rejected, a call the user changed before accepting it (with what was written, when the tool
recorded it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ..evidence import Event
from ..rules.timeline import shell_command_of
from ..tools import ToolKind, kind_of, spec
from .diffs import DIFF_LINES, PATH_KEYS, DiffLine, answer_diff, args_of, as_text, edit_diff, pick, written_diff
from .source import LoadedTrace

FOLD = 1_500  # characters of an output shown before "show all"
WHOLE_CAP = 200_000  # characters of one value put into the page at all (the step page has the rest)

Kind = Literal["user", "answer", "call", "system", "hook", "compaction", "error"]
MarkKind = Literal["abandoned", "rejected", "user-changed"]


@dataclass(frozen=True)
class Mark:
    """What the trace says of a step that changes how a reviewer reads it."""

    kind: MarkKind
    label: str  # a few words, on the step's header
    note: str  # the trace's own words for it


@dataclass(frozen=True)
class Entry:
    step: int
    kind: Kind
    actor: str
    title: str  # "You", "Agent", the tool's name, "Compaction", …
    time: str
    text: str = ""  # words (the user's, the agent's answer: Markdown source) or a system event
    command: str = ""  # a shell call's command line
    code: str = ""  # the code a call ran that is no command line (OpenHands' run_ipython)
    said: str = ""  # what a call says (a final result, a question, a plan; a subagent's task): Markdown source
    target: str = ""  # what another call acts on (a file, a pattern, a URL), shown beside its name
    input: str = ""  # a tool call's input, as readable text
    output: str = ""  # at most WHOLE_CAP characters
    output_length: int = 0
    diff: tuple[DiffLine, ...] = ()
    diff_total: int = 0  # lines of the whole diff (`diff` holds the first DIFF_LINES)
    written: tuple[DiffLine, ...] = ()  # what the call wrote when the user changed the proposal
    reasoning: str = ""  # the agent's thinking before it (folded)
    failed: bool = False
    retry_of: int | None = None
    retried_by: tuple[int, ...] = ()
    note: str = ""  # causal note (interruptions, rewinds) shown beside it
    marks: tuple[Mark, ...] = ()

    @property
    def folded(self) -> bool:
        return self.output_length > FOLD

    @property
    def cut(self) -> bool:
        return self.output_length > len(self.output)

    @property
    def diff_cut(self) -> bool:
        return self.diff_total > len(self.diff)

    def marked(self, kind: str) -> bool:
        return any(m.kind == kind for m in self.marks)


@dataclass(frozen=True)
class Subagent:
    actor: str
    entries: list[Entry] = field(default_factory=list)


Block = Entry | Subagent


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


_DONE = {"completed": "☑", "done": "☑", "in_progress": "▶", "active": "▶", "cancelled": "☒"}


def _plan(items: list[Any]) -> str:
    """A plan's items (TodoWrite's todos, Codex's update_plan, Gemini's write_todos) as a list."""
    out = []
    for it in items:
        if isinstance(it, dict):
            what = pick(it, "content", "step", "description", "title", "text")
            if what is not None:
                out.append(f"- {_DONE.get(str(it.get('status')), '☐')} {what}")
    return "\n".join(out)


def _questions(qs: list[Any]) -> str:
    """The questions a call asks, each with its options as a list under it."""
    out = []
    for q in qs:
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            continue
        opts = q.get("options")
        labels = [o if isinstance(o, str) else pick(o, "label", "value") if isinstance(o, dict) else None
                  for o in (opts if isinstance(opts, list) else [])]
        out.append("\n".join([q["question"], *(f"- {x}" for x in labels if x is not None)]))
    return "\n\n".join(out)


# a call that ends the work with a result for the user, by the names agents give it
_FINAL = ("finish", "attempt_completion", "submit_and_exit", "complete", "task_complete")


def _said(tool: str | None, args: dict[str, Any] | None) -> str:
    """What a call says, which the reviewer reads rather than unfolds: the result of a call that
    ends the work, a question asked, a plan; and the task a subagent is given (its work follows)."""
    if args is None:
        return ""
    s = spec(tool)
    kind = s.kind if s is not None else ToolKind.OTHER
    if kind is ToolKind.PLAN:
        items = next((v for k in ("todos", "plan", "tasks") if isinstance(v := args.get(k), list)), None)
        return _plan(items) if items is not None else pick(args, "response", "plan", "explanation") or ""
    if kind is ToolKind.ASK_USER:
        qs = args.get("questions")
        if isinstance(qs, list):
            return _questions(qs)
        return _questions([args]) if isinstance(args.get("question"), str) else ""
    if (s is not None and s.operation == "answer") or tool in _FINAL:
        return pick(args, "result", "message", "final_answer", "text", "response") or ""
    if kind is ToolKind.DELEGATE:
        return pick(args, "prompt", "objective", "message", "task", "instructions", "context") or ""
    return ""


# the argument that says what a call acts on, by the names agents' tools give it
_TARGETS = (*PATH_KEYS, "dir_path", "pattern", "url", "query", "description", "subagent_type", "prompt")


def _rule(d: LoadedTrace, n: int, name: str) -> str:
    fp = (d.step_provenance(n).get("fields") or {}).get(name) or {}
    return str(fp.get("rule") or "")


def _first_rule(d: LoadedTrace, n: int, name: str) -> str:
    """The rule that gave a field its value, also when a reviewer has edited it since (their edit
    keeps the rule of the value it replaced)."""
    fp = (d.step_provenance(n).get("fields") or {}).get(name) or {}
    if not isinstance(fp, dict):
        return ""
    replaced = ((fp.get("reviewer") or {}).get("replaced") or {}) if fp.get("origin") == "human" else {}
    return str(fp.get("rule") or (replaced.get("rule") if isinstance(replaced, dict) else "") or "")


ABANDONED_NOTE = "On a branch the user rewound away from: it happened, but is not part of the final conversation."
REJECTED_NOTE = "The user rejected this call."
USER_CHANGED = ("R-call/user-edited", "R-call/user-modified")


def _said_by(d: LoadedTrace, s: dict[str, Any], n: int, rule: str, *names: str) -> str | None:
    """The trace's own words for a mark: the first of `names` a rule wrote, as the step holds it."""
    for name in names:
        if _rule(d, n, name) == rule and isinstance(s.get(name), str) and s[name].strip():
            return str(s[name])
    return None


def _marks(d: LoadedTrace, s: dict[str, Any], n: int) -> tuple[Mark, ...]:
    out = []
    if "R-abandoned" in (_first_rule(d, n, "eval_reason"), _first_rule(d, n, "causal_note")):
        said = _said_by(d, s, n, "R-abandoned", "eval_reason", "causal_note")
        out.append(Mark("abandoned", "abandoned branch", said or ABANDONED_NOTE))
    if "R-error/rejected" in (_first_rule(d, n, "eval_reason"), _first_rule(d, n, "state_change")):
        said = _said_by(d, s, n, "R-error/rejected", "state_change", "eval_reason")
        out.append(Mark("rejected", "rejected by the user", said or REJECTED_NOTE))
    src = s.get("input_source")
    if _rule(d, n, "input_source") in USER_CHANGED or (isinstance(src, dict) and src.get("actor") == "user"):
        note = src.get("note") if isinstance(src, dict) else None
        out.append(Mark("user-changed", "changed by the user",
                        note if isinstance(note, str) and note else "The user changed this call's input."))
    return tuple(out)


def _entry(d: LoadedTrace, s: dict[str, Any]) -> Entry:
    n = int(s.get("step") or 0)
    actor, action, tool = str(s.get("actor") or ""), s.get("action"), s.get("tool")
    time = str(s.get("started_at") or "")[11:19]
    inp, out = as_text(s.get("input")), as_text(s.get("output"))
    failed = s.get("success") is False or action == "error"
    # a causal note worth a reader's eye: an interruption or a rewind (the others restate the links)
    worth = any(k in _rule(d, n, "causal_note") for k in ("interrupt", "rewind"))
    note = as_text(s.get("causal_note")) if worth else ""
    marks = _marks(d, s, n)
    common: dict[str, Any] = dict(step=n, actor=actor, time=time, failed=failed, retry_of=s.get("retry_of"),
                                  reasoning=as_text(s.get("reasoning")), note=note,
                                  output=out[:WHOLE_CAP], output_length=len(out), marks=marks)
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
    args = args_of(inp)
    target = pick(args, *_TARGETS) if args is not None else None
    shell = kind_of(tool) is ToolKind.SHELL
    command = _command(tool, args, inp) if shell else ""
    diff = edit_diff(tool, inp, cap=None)
    # the user changed the proposal and the tool recorded what it wrote: that is the change made
    written = written_diff(d.trace, n) if _rule(d, n, "input_source") == "R-call/user-modified" else []
    return Entry(kind="call", title=str(tool or s.get("operation") or "step"), command=command,
                 code=(pick(args, "code") or "") if shell and not command and args is not None else "",
                 said=_said(tool, args), target=" ".join((target or "").split())[:200],
                 input=_readable(args, inp), diff=tuple(diff[:DIFF_LINES]), diff_total=len(diff),
                 written=tuple(written[:DIFF_LINES]), **common)


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
    before: Entry | None = None
    for e in entries:
        if e.step in retried:
            e = Entry(**{**e.__dict__, "retried_by": tuple(retried[e.step])})
        if before is not None and before.marked("abandoned") and e.marked("abandoned"):
            # a branch's steps one after another: its first says what that means, the others are marked
            e = Entry(**{**e.__dict__, "marks": tuple(Mark(m.kind, m.label, "") if m.kind == "abandoned" else m
                                                      for m in e.marks)})
        before = e
        if e.actor.startswith("subagent"):
            last = out[-1] if out else None
            if isinstance(last, Subagent) and last.actor == e.actor:
                last.entries.append(e)
            else:
                out.append(Subagent(e.actor, [e]))
        else:
            out.append(e)
    return out


def marked(blocks: list[Block]) -> list[tuple[MarkKind, str, list[int]]]:
    """Each kind of mark, its label and the steps that carry it, in the order of the first (a long
    draft's steps a reviewer reads differently, to jump to)."""
    out: dict[MarkKind, tuple[str, list[int]]] = {}
    for b in blocks:
        for e in b.entries if isinstance(b, Subagent) else [b]:
            for m in e.marks:
                out.setdefault(m.kind, (m.label, []))[1].append(e.step)
    return [(k, label, steps) for k, (label, steps) in out.items()]


__all__ = ["DIFF_LINES", "FOLD", "Block", "DiffLine", "Entry", "Mark", "Subagent", "answer_diff", "conversation",
           "edit_diff", "gist", "marked"]
