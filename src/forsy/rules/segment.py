"""The deterministic segmenter: a `Session`'s events → Forsy steps, by stated rules.

Every value written on a step is recorded with its origin (`copied` from named evidence,
or `derived` by a named rule from named evidence); a field with no origin is null. The
rules are listed in docs/rules.md and named in provenance.json:

* R-user: each `user` event → a `user_message` step with the exact words; turn + 1. One with
  no words (empty or blank) is no step: its record is set aside in the ledger.
* R-call: each `tool_call` → one `agent_step`: tool = exact name, operation from the tool
  (R-operation), input = the exact arguments (JSON text), output = the exact result the
  model saw, success from the error flag / rejection, times from call and result.
* R-parallel: calls issued in one model message share a `parallel_group`.
* R-reasoning: the agent's text and thinking before a call are that call's reasoning.
* R-answer: text the agent ends a turn with is an `output` step.
* R-error: a failed call has eval -1; an API error message is an `error` step.
* R-cause: caused_by = the user message that opened the turn (first action), the results
  that arrived since the actor's previous action, or the spawning call (subagents).
* R-retry: a call repeating a failed call of the same actor and tool (input similarity ≥ 90,
  rapidfuzz) within the last 8 steps is `retry_of` it (never one on a branch the
  conversation left, for a step on the branch it went on with: R-cause/branch; never one that
  wrote to another running process).
* R-commit: a commit is a step of its own or the change of its call (forsy.rules._commit_steps).
* R-compaction: a compaction is a `system` step whose output is the summary the model got.
* R-abandoned: steps from rewound branches keep their place, flagged in eval_reason.
* R-hook: a hook's intervention (a Stop hook's feedback, context a hook added) is a step of
  actor `system:hook`, caused by the step before; the actor's pending answer ends there and
  its next action is caused by the hook (R-cause/hook).
* R-user/context: the context a client sent around the user's words (IDE setup, files
  mentioned) is a `system:ide` step right after the user message, copied as a slice.
* R-turn/unlogged: a turn the log marks without holding its request (a `turn_started` note)
  ends the answers pending, as a user message would, and starts the next turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from .. import tools
from ..evidence import Event, Ref, Session
from ..payloads import CallInfo, CommitInfo, HistoryMatch, JSONValue, MessageInfo, NoteInfo, ResultInfo, ShellInfo
from . import _commit_steps
from ._continues import continues_cause, other_process, writes_to
from .draft import Draft as Draft
from .draft import copied as copied
from .draft import derived as derived
from .draft import json_text as json_text
from .draft import parsed_call, sharing_refs, sliced_rule
from .draft import source_rule as source_rule

RETRY_SIMILARITY = 90.0
RETRY_WINDOW = 8

HOOK_ACTOR = "system:hook"
TURN_STARTED = "turn_started"  # a note: a turn began whose request the log does not hold
CONTEXT_ACTOR = "system:ide"
SUBAGENT_TOOLS = frozenset({"Task", "Agent", "SendMessage", "spawn_agent", "wait_agent", "send_input", "resume_agent"})
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"})


@dataclass
class _Pending:
    texts: list[Event] = field(default_factory=list)  # agent_text and reasoning since the last action
    results: list[int] = field(default_factory=list)  # step indexes whose results arrived since


BLANK_USER = "a user message with no words"
# R-call/user-edited: the input_source note of a call the person changed before accepting it
USER_EDITED_NOTE = "The user changed the proposed call before accepting it; the input is what ran."
# R-call/user-modified: the input_source note of a call whose result says the person changed it (the
# input is the model's proposal, not what ran)
USER_MODIFIED_NOTE = ("The model proposed this input; the user changed it before accepting it, so what was "
                      "written is the user's version (the result's patch), not this input.")


class Segmenter:
    """Walks a session's events once and builds drafts."""

    def __init__(self, session: Session):
        self.session = session
        self.drafts: list[Draft] = []
        self.by_actor: dict[str, list[int]] = {}  # actor → its drafts' indexes, in order
        self.turn = 0
        self.last_user: int | None = None
        self.calls: dict[str, int] = {}  # call_id → draft index
        self.pending: dict[str, _Pending] = {}
        self.groups: dict[tuple[str, str], list[int]] = {}
        self.subagent_parent: dict[str, str] = {}  # actor → spawning call_id
        self.first_action: set[str] = set()
        self.interrupts: list[Event] = []
        self.compact_meta: dict[str, JSONValue] | None = None
        self.abandoned_run: list[int] = []
        self.counts: dict[str, int] = {"interrupts": 0, "rejected_calls": 0, "api_errors": 0}
        self.matches: list[dict[str, Any]] = []  # history/git match decisions, for provenance

    # ------------------------------------------------------------------ driving
    def run(self) -> list[Draft]:
        with sharing_refs():
            return self._run()

    def _run(self) -> list[Draft]:
        for e in self.session.events:
            parent = e.link.parent_call_id if e.link is not None and e.actor.startswith("subagent:") else None
            if parent and e.actor not in self.subagent_parent:
                self.subagent_parent[e.actor] = parent  # its answer is flushed when that call returns
            handler = getattr(self, f"_on_{e.kind}", None)
            if handler is not None:
                handler(e)
        for actor in list(self.pending):
            self._flush(actor)
        self._finish_parallel()
        _commit_steps.link_amends(self.drafts, self.calls, self.session.meta.extra.get("timeline"), derived)
        return self.drafts

    def _new(self, actor: str, action: str, e: Event | None) -> Draft:
        if self.turn == 0:
            self.turn = 1  # work before any user message (history-only traces) is turn 1
        d = Draft({"actor": actor, "action": action, "turn": self.turn, "eval": 0}, actor_key=actor)
        if action != "user_message":
            d.values["execution_mode"] = "serial"
            d.prov["execution_mode"] = derived("R-parallel/serial", e.refs[:1] if e else [])
        if e is not None and e.abandoned:
            d.values["eval_reason"] = ("On a branch the user rewound away from: kept because it happened, "
                                       "but not part of the final conversation path.")
            d.prov["eval_reason"] = derived("R-abandoned", e.refs[:1])
            d.abandoned = True
        self.by_actor.setdefault(actor, []).append(len(self.drafts))
        self.drafts.append(d)
        return d

    def _pend(self, actor: str) -> _Pending:
        return self.pending.setdefault(actor, _Pending())

    # ------------------------------------------------------------------ events
    def _on_user(self, e: Event) -> None:
        if not (e.text or "").strip():
            # a user_message step holds the user's words (U004): a message of none is no step,
            # and its record says so in the ledger (unless a step cites it for something else)
            for ref in e.refs:
                self.session.mark(ref.ev, "set_aside", BLANK_USER)
            return
        self._flush_all()
        for p in self.pending.values():
            p.results = []  # a new request: earlier results no longer drive the next action
        self.turn += 1 if self.drafts else 0
        if self.turn == 0:
            self.turn = 1
        d = self._new("user", "user_message", e)
        d.values.pop("eval_reason", None)  # user messages carry no eval_reason (spec invariant)
        rule = e.info.rule if isinstance(e.info, MessageInfo) else None
        if rule:
            prov = derived(f"R-user/{rule}", e.refs)
        else:
            src_rule, params = source_rule(e, "R-user")
            # a turn of attachments alone is stated by markers the source wrote (an excerpt)
            prov = copied(e.refs, rule=src_rule, params=params, excerpt=e.excerpt)
        d.set("input", e.text, prov)
        if self.last_user is None:
            d.set("message_role", "direct_request", derived("R-first-request", e.refs))
        notes = []
        if self.interrupts:
            notes.append(f"The user interrupted the agent {len(self.interrupts)} time(s) before this message.")
        if d.abandoned or (self.abandoned_run and not e.abandoned):
            if self.abandoned_run and not e.abandoned:
                a, b = self.abandoned_run[0] + 1, self.abandoned_run[-1] + 1
                notes.append(f"The conversation was rewound before this message: steps {a}-{b} are on an "
                             "abandoned branch.")
                self.abandoned_run = []
        if notes:
            refs = [r for i in self.interrupts for r in i.refs] or e.refs
            d.set("causal_note", " ".join(notes), derived("R-interrupt/R-rewind", refs))
        self.interrupts = []
        if e.abandoned:
            d.abandoned = True
            d.set("causal_note", ((d.values.get("causal_note") or "") + " This message is on a branch the user later "
                  "rewound away from.").strip(), derived("R-abandoned", e.refs))
            self._mark_abandoned(d, e)
        self._times(d, e, e)
        self.last_user = len(self.drafts) - 1
        self.first_action = set()
        if isinstance(e.info, MessageInfo) and e.info.context is not None:
            self._user_context(e, e.info.context)

    def _user_context(self, e: Event, context: str) -> None:
        """R-user/context: what the client wrapped the words in, a step after the user message
        (not before: a trace's first step is its request), in the same turn."""
        user = len(self.drafts)
        d = self._new(CONTEXT_ACTOR, "agent_step", e)
        d.set("output", context, copied(e.refs, rule="C-span"))
        for name, value in (("operation", "other"), ("success", True), ("caused_by", [user]),
                            ("causal_type", "user_request"), ("causal_note", "The client sent this context with "
                             f"the user's message of step {user}; the agent was shown both.")):
            d.set(name, value, derived("R-user/context", e.refs))
        self._times(d, e, e)
        self._mark_abandoned(d, e)

    def _on_interrupt(self, e: Event) -> None:
        self.counts["interrupts"] += 1
        self.interrupts.append(e)
        self._flush_all()

    def _on_agent_text(self, e: Event) -> None:
        info = e.info if isinstance(e.info, MessageInfo) else None
        if info is not None and info.api_error:
            self._flush(e.actor)
            self.counts["api_errors"] += 1
            d = self._new(e.actor, "error", e)
            rule, params = source_rule(e, "R-error")  # C-span: the error cut out of the model's text
            d.set("output", e.text, copied(e.refs, rule=rule, params=params))
            d.set("success", False, derived("R-error", e.refs))
            d.values["eval"] = -1
            d.set("eval_reason", "The model call failed with an API error.", derived("R-error", e.refs))
            self._times(d, e, e)
            self._mark_abandoned(d, e)
            return
        if info is not None and info.synthetic:
            return  # "No response requested." and similar harness fillers are not work
        self._pend(e.actor).texts.append(e)

    def _on_reasoning(self, e: Event) -> None:
        self._pend(e.actor).texts.append(e)

    def _on_tool_call(self, e: Event) -> None:
        pend = self._pend(e.actor)
        d = self._new(e.actor, "agent_step", e)
        d.call_id, d.tool_args, d.writes_to = e.call_id, e.args, writes_to(e)
        d.group = e.group
        tool = e.tool or "unknown"
        read = parsed_call(e)  # a call read out of the model's text: name and input derived by the source's rule
        d.set("tool", tool, copied([e.name_ref]) if e.name_ref else read or derived("R-call/name", e.refs[:1]))
        # R-operation: what the tool's source declares (forsy.tools, the one table of tools); else "other"
        d.set("operation", tools.operation_for(tool), derived("R-operation", e.refs[:1]))
        if e.args is not None and read is not None:
            d.set("input", json_text(e.args), read)
        elif e.args is not None and isinstance(e.info, CallInfo) and e.info.decoded:
            # rebuilt from what the log shows (a terminal's echo, edited): derived, not a copy
            d.set("input", json_text(e.args), derived("R-shell/decoded", e.refs, decoding=e.info.decoded))
        elif e.args is not None:  # a call logged without arguments keeps a null input
            rule, params = source_rule(e, "R-call/json" if not isinstance(e.args, str) else None)
            d.set("input", json_text(e.args), copied(e.refs, rule=rule, params=params))
        if isinstance(e.info, CallInfo) and e.info.user_edited is not None:  # what ran is the person's version
            d.set("input_source", {"actor": "user", "source_step": None, "source_field": "external",
                                   "note": USER_EDITED_NOTE}, derived("R-call/user-edited", [e.info.user_edited]))
        if pend.texts:
            self._reasoning(d, pend.texts)
            pend.texts = []
        self._cause(d, e, pend)
        self._retry(d, e)
        self._times(d, e, None)
        if e.call_id:
            self.calls[e.call_id] = len(self.drafts) - 1
        hist = e.info.shell_history if isinstance(e.info, CallInfo) else None
        if hist is not None:
            self._history_match(d, hist)
        if isinstance(e.info, CallInfo) and not e.info.result_in_log:
            d.no_result_expected = True  # e.g. Codex web searches leave no result record
        key = (e.actor, e.group or f"solo-{len(self.drafts)}")
        self.groups.setdefault(key, []).append(len(self.drafts) - 1)
        self._mark_abandoned(d, e)

    def _on_tool_result(self, e: Event) -> None:
        idx = self.calls.get(e.call_id or "")
        if idx is None:
            ev = self.session.evidence.get(e.refs[0].ev) if e.refs else None  # where the result was read
            which = f"result for unknown call {e.call_id!r}" if e.call_id else "a result that names no call"
            self.session.warn("orphan-result", f"{which} kept out of the trace",
                              ev.source if ev else None, ev.line if ev else None)
            return
        d = self.drafts[idx]
        for actor, parent in list(self.subagent_parent.items()):
            if parent == e.call_id:
                self._flush(actor)
        info = e.info if isinstance(e.info, ResultInfo) else None
        if info is not None and info.decoded:
            d.set("output", e.text, derived("R-output/rendered", e.refs, decoding=info.decoded))
        else:
            rule, params = source_rule(e)
            d.set("output", e.text, copied(e.refs, rule=rule, params=params, excerpt=e.excerpt))
        if e.excerpt:
            self.session.quality.truncated_outputs += 1
        rejected = info is not None and info.rejected
        said = info.outcome_refs if info is not None and info.outcome_refs else e.refs  # where the outcome was read
        if e.is_error is not None or rejected:
            # an outcome the source read from the output's own words names its rule (catalogue): a
            # failure, or a success a rule reads too (aider's /test before 0.64), unless rejected
            why = info.failure_rule if info is not None and info.failure_rule and (e.is_error or not rejected) \
                else "R-call/error-flag"
            d.set("success", not (e.is_error or rejected), derived(why, said))
        # else the log does not say whether the call worked (no exit code, no error flag):
        # success stays null (validator S015: not assessed) rather than an invented `true`
        if rejected:
            self.counts["rejected_calls"] += 1
            d.values["eval"] = -1
            d.set("eval_reason", "The user rejected this tool call.", derived("R-error/rejected", e.refs))
            d.set("state_change", "No change: the tool call was rejected, so it did not run.",
                  derived("R-error/rejected", e.refs))
        elif e.is_error:
            d.values["eval"] = -1
            d.set("eval_reason", "The tool returned an error.", derived("R-error", said))
        if info is not None and info.user_modified is not None:
            d.set("input_source", {"actor": "agent", "source_step": None, "source_field": None,
                                   "note": USER_MODIFIED_NOTE}, derived("R-call/user-modified", [info.user_modified]))
        d.rich = info.rich if info is not None else None
        d.result = info
        self._times(d, None, e)
        self._pend(d.actor_key).results.append(idx)

    def _on_compaction(self, e: Event) -> None:
        self._flush_all()
        d = self._new("system", "agent_step", e)
        d.set("operation", "other", derived("R-compaction", e.refs))
        d.set("output", e.text, copied(e.refs))
        info = ""
        if self.compact_meta:
            trig, pre = self.compact_meta.get("trigger"), self.compact_meta.get("preTokens")
            info = f" (trigger: {trig}, {pre} tokens before)" if trig or pre else ""
        d.set("state_change", f"Context compacted{info}: the model continued from this summary instead of the "
              "earlier conversation.", derived("R-compaction", e.refs))
        d.set("success", True, derived("R-compaction", e.refs))
        self._times(d, e, e)
        self.compact_meta = None

    def _on_note(self, e: Event) -> None:
        if isinstance(e.info, NoteInfo) and e.info.subtype == "compact_boundary":
            self.compact_meta = e.info.compact if isinstance(e.info.compact, dict) else {}
        elif isinstance(e.info, NoteInfo) and e.info.subtype == "hook":
            self._hook(e, e.info)
        elif isinstance(e.info, NoteInfo) and e.info.subtype == TURN_STARTED:
            self._turn_started()

    def _turn_started(self) -> None:
        """R-turn/unlogged: a turn began whose request the log does not hold (Codex exec's
        `turn.started`: the prompt was given on the command line). The answers pending end
        there, as at a user message, and the steps after it are the next turn's."""
        self._flush_all()
        for p in self.pending.values():
            p.results = []  # a new request: earlier results no longer drive the next action
        if self.drafts:
            self.turn += 1

    def _hook(self, e: Event, info: NoteInfo) -> None:
        """R-hook: the hook's text is what the agent was given; the answer pending before it is
        ended (it is not merged with the one after), and the hook causes the next action."""
        target = info.hook_target or "agent"
        self._flush(target)
        before = len(self.drafts)  # the step before, 1-based (0: none)
        d = self._new(HOOK_ACTOR, "agent_step", e)
        d.set("operation", "other", derived("R-hook", e.refs))
        d.set("output", e.text, copied(e.refs))
        d.set("success", True, derived("R-hook", e.refs))
        what = f"A {info.hook or 'hook'} hook"
        if before:
            d.set("caused_by", [before], derived("R-hook", e.refs))
            d.set("causal_type", "other", derived("R-hook", e.refs))
            note = f"{what} ran after step {before}; its output was given to the agent."
        else:
            note = f"{what} ran; its output was given to the agent."
        d.set("causal_note", note, derived("R-hook", e.refs))
        self._times(d, e, e)
        self._mark_abandoned(d, e)
        self._pend(target).results.append(len(self.drafts) - 1)

    def _on_shell_command(self, e: Event) -> None:
        info = e.info if isinstance(e.info, ShellInfo) else ShellInfo()
        possible = info.possible_match
        d = self._new(e.actor, "agent_step", e)
        if possible is not None:
            self.matches.append({"kind": "shell_history", "step": len(self.drafts), "uncertain": True,
                                 "rule": possible.rule, "score": possible.score,
                                 "evidence": [r.ev for r in e.refs[:1]], "possible_call_id": possible.call_id})
        d.set("tool", "shell", derived("R-shell", e.refs))
        d.set("operation", "execute", derived("R-shell", e.refs))
        decoded = info.decoded
        d.set("input", e.text, derived("R-shell/decoded", e.refs, decoding=str(decoded)) if decoded else copied(e.refs))
        code = info.exit_code
        if isinstance(code, int):
            d.set("success", code == 0, derived("R-shell/exit-code", e.refs))
            if code != 0:
                d.values["eval"] = -1
                d.set("eval_reason", f"The command exited with status {code}.", derived("R-shell/exit-code", e.refs))
        self._times(d, e, e)
        d.shell = info
        if e.call_id:
            # a terminal recording's command: its output follows as a `tool_result`, taken by
            # `_on_tool_result` as a call's (output, R-call/error-flag, end time)
            d.call_id = e.call_id
            self.calls[e.call_id] = len(self.drafts) - 1

    def _history_match(self, d: Draft, hist: HistoryMatch) -> None:
        match = hist.match
        self.matches.append({"kind": "shell_history", "step": len(self.drafts), "rule": match.rule,
                             "score": match.score, "dt_s": match.dt_s,
                             "evidence": [hist.record] if hist.record else [], "uncertain": False,
                             "exit_code": hist.exit_code, "duration_s": hist.duration_s})
        d.shell_history = hist

    def _on_commit(self, e: Event) -> None:
        info = e.info if isinstance(e.info, CommitInfo) else CommitInfo()
        target = info.matched_call_id
        possible = info.possible_match
        if possible is not None:
            self.matches.append({"kind": "commit", "step": None, "sha": info.sha, "uncertain": True,
                                 "rule": possible.rule, "score": possible.score,
                                 "evidence": [r.ev for r in e.refs[:1]], "branches": info.branches})
        if target and target in self.calls:
            idx = self.calls[target]
            d = self.drafts[idx]
            d.commits.append(e)
            said, entry = _commit_steps.matched(info, e, idx + 1)
            if d.values.get("state_change") is None:
                d.set("state_change", said.text, derived(said.rule, said.refs, **said.params))
            self.matches.append(entry)
            return
        d = self._new(e.actor, "agent_step", e)
        d.set("tool", "git", derived("R-commit", e.refs))
        d.set("operation", "write", derived("R-commit", e.refs))
        header = f"commit {info.sha}\n\n" if info.sha else ""  # a plain diff names no commit: none is made up
        d.set("output", f"{header}{e.text or ''}".rstrip() or None, derived("R-commit/show", e.refs))
        said = _commit_steps.recorded(info, e)
        d.set("state_change", said.text, derived(said.rule, said.refs, **said.params))
        d.set("success", True, derived("R-commit", e.refs))
        self._times(d, e, e)
        d.commits.append(e)

    # ------------------------------------------------------------------ rules
    def _reasoning(self, d: Draft, texts: list[Event]) -> None:
        said = [t for t in texts if t.text and t.text.strip()]
        if not said:
            return
        refs = [r for t in said for r in t.refs]
        rule = sliced_rule("R-reasoning" if len(said) == 1 else "R-reasoning/joined", said)
        d.set("reasoning", "\n\n".join(t.text or "" for t in said), copied(refs, rule=rule))

    def _flush_all(self) -> None:
        for actor in list(self.pending):
            self._flush(actor)

    def _flush(self, actor: str) -> None:
        """Text an actor wrote with no call after it is its answer (an `output` step); thinking
        with no text is its analysis. Called where the actor's response ended (a user message,
        an interrupt, a compaction, a hook, an API error, its spawning call's result, the log's
        end): a thought kept past that point would become the reasoning of a later call, in a
        later turn, caused by a message written after it."""
        pend = self.pending.get(actor)
        if pend is None or not pend.texts:
            return
        answer = [t for t in pend.texts if t.kind == "agent_text" and t.text and t.text.strip()]
        if not answer:
            thoughts = [t for t in pend.texts if t.text]
            if thoughts:
                d = self._new(actor, "agent_step", thoughts[0])
                d.set("operation", "analyze", derived("R-answer/thinking-only", thoughts[0].refs))
                self._reasoning(d, thoughts)
                self._cause(d, thoughts[0], pend)
                self._times(d, thoughts[0], thoughts[-1])
                self._mark_abandoned(d, thoughts[0])
            pend.texts = []
            return
        thoughts = [t for t in pend.texts if t.kind == "reasoning"]
        first = pend.texts[0]
        d = self._new(actor, "output", first)
        d.set("operation", "answer", derived("R-answer", answer[0].refs))
        refs = [r for t in answer for r in t.refs]
        text = "\n\n".join(t.text for t in answer if t.text)
        # one answer cut out of its string (C-span: Cline's interruption notice after the words) says so
        rule, params = source_rule(answer[0], sliced_rule("R-answer", answer)) if len(answer) == 1 else (
            sliced_rule("R-answer/joined", answer), None)
        d.set("output", text, copied(refs, rule=rule, params=params))
        if thoughts:
            self._reasoning(d, thoughts)
        d.set("success", True, derived("R-answer", refs))
        self._cause(d, first, pend)
        self._times(d, first, answer[-1])
        self._mark_abandoned(d, first)
        pend.texts = []

    def _cause(self, d: Draft, e: Event, pend: _Pending) -> None:
        actor = d.actor_key
        me = len(self.drafts) - 1
        if continues_cause(d, e, self.calls, me, self.drafts):  # a poll of another call's process
            pend.results = []
            self.first_action.add(actor)
            return
        group = self.groups.get((actor, e.group or ""), []) if e.group else []
        if group and e.kind == "tool_call":  # a parallel sibling shares the first call's causes
            first = self.drafts[group[0]]
            for k in ("caused_by", "causal_type", "causal_note"):
                if k in first.prov:
                    d.set(k, first.values[k], first.prov[k])
            return
        parent_call = e.link.parent_call_id if e.link is not None else None
        if actor.startswith("subagent:") and parent_call and actor not in self.first_action:
            idx = self.calls.get(parent_call)
            if idx is not None and idx < me:
                self.first_action.add(actor)
                d.set("caused_by", [idx + 1], derived("R-cause/delegation", e.refs))
                d.set("causal_type", "delegation_to_subagent", derived("R-cause/delegation", e.refs))
                rule = e.link.link_rule if e.link else None
                d.set("causal_note", f"Work delegated by the {self.drafts[idx].values.get('tool')} call in "
                      f"step {idx + 1} (linked by {rule}).", derived("R-cause/delegation", e.refs))
                return
        results = [i for i in pend.results if i < me]
        pend.results = []
        # results of steps on a branch the conversation left (OpenHands' navigate_to) are no
        # cause of a step on the branch it went on with: that one follows the request
        left = [] if e.abandoned else [i for i in results if self.drafts[i].abandoned]
        results = [i for i in results if i not in left]
        if results and all(self.drafts[i].actor_key == HOOK_ACTOR for i in results):
            self._hook_cause(d, e, results)
        elif results:
            ran = set(self.subagent_parent.values())  # calls a linked subagent's work followed
            sub = any(self.drafts[i].values.get("tool") in SUBAGENT_TOOLS or self.drafts[i].call_id in ran
                      for i in results)
            ctype = ("used_subagent_result" if sub else
                     "dependency_on_tool_result" if len(results) == 1 else "dependency_on_multiple_prior_steps")
            steps = sorted(i + 1 for i in results)
            d.set("caused_by", steps, derived("R-cause/results", e.refs))
            d.set("causal_type", ctype, derived("R-cause/results", e.refs))
            d.set("causal_note", f"Followed the result(s) of step(s) {', '.join(map(str, steps))}.",
                  derived("R-cause/results", e.refs))
        elif actor == "agent" and (actor not in self.first_action or left) and self.last_user is not None:
            ctype = "user_request" if self.drafts[self.last_user].values["turn"] == 1 else "follow_up_user_request"
            rule = "R-cause/branch" if left else "R-cause/user"
            d.set("caused_by", [self.last_user + 1], derived(rule, e.refs))
            d.set("causal_type", ctype, derived(rule, e.refs))
            if left and self.abandoned_run:
                a, b = self.abandoned_run[0] + 1, self.abandoned_run[-1] + 1
                which = f"step {a} is" if a == b else f"steps {a}-{b} are"
                d.set("causal_note", f"The conversation went back before step {a}: {which} on an abandoned "
                      "branch.", derived(rule, e.refs))
                self.abandoned_run = []
        self.first_action.add(actor)

    def _hook_cause(self, d: Draft, e: Event, hooks: list[int]) -> None:
        """R-cause/hook: the action follows the hook(s); the turn's first action also the request."""
        opens_turn = d.actor_key == "agent" and "agent" not in self.first_action and self.last_user is not None
        steps = sorted(i + 1 for i in hooks + ([self.last_user] if opens_turn and self.last_user is not None else []))
        ctype = "other" if len(steps) == 1 else "dependency_on_multiple_prior_steps"
        for name, value in (("caused_by", steps), ("causal_type", ctype), ("causal_note", "Followed the hook "
                            f"intervention(s) of step(s) {', '.join(str(i + 1) for i in hooks)}.")):
            d.set(name, value, derived("R-cause/hook", e.refs))

    def _retry(self, d: Draft, e: Event) -> None:
        text = d.values.get("input") or ""
        # the actor's last RETRY_WINDOW drafts before this one (the latest draft), latest first
        for i in reversed(self.by_actor[d.actor_key][-RETRY_WINDOW - 1:-1]):
            prev = self.drafts[i]
            if prev.values.get("tool") != d.values.get("tool"):
                continue
            if prev.abandoned and not d.abandoned:
                continue  # a step on a branch the conversation left is retried by none on the one it went on with
            if (e.group and prev.group == e.group) or other_process(prev, d):
                continue  # a sibling sent in the same message, or a call to another process, is not retried
            # score_cutoff: below it rapidfuzz returns 0 without finishing (large edit payloads);
            # at or above it the score is the same
            score = fuzz.ratio(str(prev.values.get("input") or ""), str(text), score_cutoff=RETRY_SIMILARITY)
            if score >= RETRY_SIMILARITY:
                if prev.values.get("success") is not False:
                    return  # the latest attempt like it did not fail (or is not known to): nothing to retry
                params: dict[str, str | int | float] = {"similarity": round(score), "failed_step": i + 1}
                d.set("retry_of", i + 1, derived("R-retry", e.refs, **params))
                d.set("causal_type", "retry_after_failure", derived("R-retry", e.refs, **params))
                cb = sorted(set((d.values.get("caused_by") or []) + [i + 1]))
                d.set("caused_by", cb, derived("R-retry", e.refs, **params))
                d.set("causal_note", f"Repeats step {i + 1}, which failed (input similarity {score:.0f}); "
                      f"also follows step(s) {', '.join(str(x) for x in cb if x != i + 1) or 'none'}.",
                      derived("R-retry", e.refs, **params))
                return

    def _times(self, d: Draft, start: Event | None, end: Event | None) -> None:
        for name, e in (("started_at", start), ("ended_at", end)):
            if e is None or not e.ts:
                continue
            prov = copied([e.ts_ref]) if e.ts_ref else derived("R-time", [e.ts_from] if e.ts_from else e.refs[:1])
            d.set(name, e.ts, prov)

    def _mark_abandoned(self, d: Draft, e: Event) -> None:
        if e.abandoned:
            self.abandoned_run.append(len(self.drafts) - 1)

    def _finish_parallel(self) -> None:
        n = 0
        for (_actor, _g), idxs in sorted(self.groups.items(), key=lambda kv: kv[1][0]):
            if len(idxs) < 2:
                continue
            n += 1
            for i in idxs:
                d = self.drafts[i]
                refs = [Ref(x.id, x.pointer) for x in d.prov["tool"].evidence]
                d.set("execution_mode", "parallel", derived("R-parallel", refs))
                d.set("parallel_group", f"pg_{n:03d}", derived("R-parallel", refs))
