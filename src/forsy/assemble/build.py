"""Drafts → a `Trace`, its `Provenance` and `Manifest`: top-level fields by stated rules.

* T-task: the first typed user message on the final path, verbatim.
* T-tools: the tools the log lists as available; when it lists none, the tools used
  (stated in provenance: a lower bound of the action space).
* T-times: started_at / ended_at are the earliest and latest step times, compared as times
  (`times.span`), each copied as written. A step time that is not a placeable time (does not
  parse, or lies outside 1990..2099) or a step end before its start is not written: the
  field is null, the evidence stays cited, and a `time-not-written` warning names it.
  T-times/header: when no step has a time, started_at is copied from the log's header
  (the first record of an old Codex rollout, whose items carry no times).
* T-final: final_output is the last answer of the main agent on the final path: its words,
  or what a completion tool call carries (T-final/answer-call, `answer_call`), or the output a
  run submitted (T-final/submission, `submission`).
* T-termination: task_complete when the session ends with the agent's answer (or such a call);
  user_abandoned when it ends with an interrupt or a rejected call; error_unrecoverable
  when it ends with an API error; partial_then_stopped when the last call has no result;
  other otherwise.
* T-card: the dataset card states what was traced and what is missing, from counts.

Values that no rule derived come in as `proposals` (`forsy.proposals`): `assemble` lays them
over copies of the drafts and over the trace-level fields, so it is a pure function of the
drafts and the accepted proposals (the caller's drafts are not changed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import times
from ..evidence import Event, ReadingWarning, Ref, Session
from ..ids import trace_id as make_trace_id
from ..models import (
    SCHEMA_VERSION,
    STEP_FIELDS,
    EvidenceInfo,
    FieldProvenance,
    Manifest,
    ManifestWarning,
    Provenance,
    SourceFileInfo,
    Step,
    StepProvenance,
    Trace,
    trusted,
)
from ..payloads import NoteInfo
from ..proposals import Proposal, TraceOverlay, apply_to_drafts, trace_overlay
from ..rules.segment import Draft, copied, derived
from ..tools import ToolKind, kind_of
from ..version import __version__
from . import artifacts, ledger
from .score import Factor, confidence

NOT_ASSESSED = ("Not assessed: forsy's deterministic pass copies what the log holds and does not judge "
                "whether the user's goal was met.")


@dataclass
class Assembled:
    trace: Trace
    provenance: Provenance
    manifest: Manifest
    files: dict[str, str]  # extra files to write under the trace folder (artifacts/...)


def _refs(p: FieldProvenance) -> list[Ref]:
    return [Ref(e.id, e.pointer) for e in p.evidence]


def _steps(drafts: list[Draft]) -> list[Step]:
    steps = []
    fields_set: set[str] | None = None
    for n, d in enumerate(drafts, start=1):
        vals = {k: d.values.get(k) for k in STEP_FIELDS}
        vals["step"] = n
        step = Step.model_validate(vals)  # every value checked here
        # then kept as `trusted` keeps a model: its values in a dict sharing its keys with the
        # other steps', one fields set for all (every field is given): a set of 28 names and a
        # dict of its own were ~2.5 KB a step
        fields_set = fields_set or step.model_fields_set
        steps.append(trusted(Step, step.__dict__, fields_set))
    return steps


ANSWER_ARGS = ("result", "summary")  # Cline's attempt_completion, the Cline SDK's submit_and_exit
# a call whose whole input is the answer: Claude Code's with a JSON schema (`--json-schema`, the Agent SDK's
# `output_format`) gives its final answer by calling StructuredOutput with the object the schema describes
STRUCTURED_ANSWERS = frozenset({"StructuredOutput"})
# calls read out of the model's text: each argument is a slice of the cited text, as written
PARSED_CALLS = frozenset({"R-call/cline-xml", "R-call/roo-xml"})
# a call's success read from the harness saying the run ended by submitting that call's output
SUBMITTED = frozenset({"R-call/mini-submitted"})


def submission(d: Draft) -> tuple[str, FieldProvenance] | None:
    """T-final/submission: a call whose result is the work the run submitted (mini-swe-agent's
    exit message: for a SWE-bench run, the patch) gives that result as the final output, copied
    from where the result is; not an empty one."""
    ok, said = d.prov.get("success"), d.prov.get("output")
    out = d.values.get("output")
    if ok is None or ok.rule not in SUBMITTED or said is None or not isinstance(out, str) or not out.strip():
        return None
    return out, copied([Ref(r.id, r.pointer) for r in said.evidence], rule="T-final/submission")


def answer_call(d: Draft) -> tuple[str, FieldProvenance] | None:
    """T-final/answer-call: a tool call by which the agent gives its answer (the catalogue's
    `answer` operation: attempt_completion, submit_and_exit) is its answer, the text of its
    `result` or `summary` argument, copied from where the arguments are (for a call written in
    the model's text, a slice of that text: C-span), or, for StructuredOutput, its whole input
    (T-final/structured-output); not when the call failed, nor when its arguments were not
    copied as one object or read out of one text."""
    prov = d.prov.get("input")
    if (d.values.get("operation") != "answer" or d.values.get("success") is False or not isinstance(d.tool_args, dict)
            or prov is None or len(prov.evidence) != 1):
        return None
    parsed = prov.origin == "derived" and prov.rule in PARSED_CALLS
    if not parsed and (prov.origin != "copied" or prov.rule not in (None, "R-call/json")):
        return None
    at = prov.evidence[0]
    whole = d.values.get("input")
    if d.values.get("tool") in STRUCTURED_ANSWERS and prov.rule == "R-call/json" and isinstance(whole, str):
        # the answer is the whole object the schema asked for, as the call's input holds it
        return whole, copied([Ref(at.id, at.pointer)], rule="T-final/structured-output+R-call/json")
    for k in ANSWER_ARGS:
        text = d.tool_args.get(k)
        if isinstance(text, str) and text.strip():
            if parsed:
                return text, copied([Ref(at.id, at.pointer)], rule="T-final/answer-call+C-span")
            return text, copied([Ref(at.id, f"{at.pointer}/{k}")], rule="T-final/answer-call")
    return None


def termination(session: Session, drafts: list[Draft]) -> tuple[str, str]:
    """T-termination: (reason, rule id) from how the session ends (a proposal may refine only 'other')."""
    if session.meta.ending is not None:
        return session.meta.ending, "T-termination/declared"
    main = [d for d in drafts if not d.abandoned and d.actor_key in ("agent", "user", "system")]
    last_event = next((e for e in reversed(session.events) if not e.abandoned and e.actor in ("agent", "user")
                       and e.kind != "note"), None)
    if last_event is not None and last_event.kind == "interrupt":
        return "user_abandoned", "T-termination/interrupt"
    if not main:
        return "other", "T-termination/none"
    last = main[-1]
    if last.values["action"] == "error":
        return "error_unrecoverable", "T-termination/api-error"
    if last.values["action"] == "output":
        return "task_complete", "T-termination/answer"
    if answer_call(last) is not None:
        return "task_complete", "T-termination/answer-call"
    if last.call_id and "output" not in last.values:
        return "partial_then_stopped", "T-termination/no-result"
    if last.values.get("eval_reason", "").startswith("The user rejected"):
        return "user_abandoned", "T-termination/rejected"
    return "other", "T-termination/other"


def _tags(drafts: list[Draft], session: Session) -> list[str]:
    tools = {str(d.values.get("tool")) for d in drafts if d.values.get("tool")}
    tags = ["agent-work-trace", "retraced", "tool-use" if tools else "conversation"]
    kinds = {kind_of(t) for t in tools}  # what the tools do, as the tool tables say for every agent
    if ToolKind.SHELL in kinds:
        tags.append("cli")
    if ToolKind.EDIT in kinds:
        tags.append("file-edits")
    if ToolKind.WEB in kinds:
        tags.append("search")
    if any(t.startswith("mcp:") for t in tools):
        tags.append("mcp")
    if any(d.actor_key.startswith("subagent:") for d in drafts):
        tags.append("subagents")
    # a retry of a failed call; an amend is `retry_of` too (R-commit/amend) but recovers from no failure
    if any(d.values.get("retry_of") and (p := d.prov.get("retry_of")) is not None and p.rule == "R-retry"
           for d in drafts):
        tags.append("failure-recovery")
    tags.append(session.source_kind.replace("_", "-"))
    return tags


TITLE_CHARS = 80  # of the task's first line in dataset_summary.title


def short_title(line: str, limit: int = TITLE_CHARS) -> str:
    """`line` cut at a word boundary with an ellipsis when longer than `limit` (one very long
    word is cut where it must be)."""
    if len(line) <= limit:
        return line
    cut = line[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return f"{cut.rstrip(' ,;:.-')}…"


def _card(session: Session, drafts: list[Draft], task: str, n_turns: int) -> tuple[str, str]:
    who = {"claude_code": "Claude Code", "codex": "Codex CLI", "shell": "shell history",
           "git": "git"}.get(session.source_kind, session.source_kind)
    head = task.strip().splitlines()[0] if task.strip() else "session"
    title = f"{who} session {session.session_id[:8]}: {short_title(head)}"
    calls = sum(1 for d in drafts if d.call_id)
    failed = sum(1 for d in drafts if d.values.get("success") is False)
    subs = len({d.actor_key for d in drafts if d.actor_key.startswith("subagent:")})
    q = session.quality
    parts = [
        f"Retraced by forsy {__version__} from a {who} log: {len(drafts)} steps in {n_turns} turn(s), "
        f"{calls} tool calls ({failed} failed or rejected)"
        + (f", {subs} subagent(s)" if subs else "") + ".",
        "Inputs, outputs, user words and timestamps are copied from the log; operations, causal links and "
        "retries are derived by stated rules (see provenance.json).",
        "Observation, state change, alternatives, feedback classification and goal assessment were not "
        "inferred and are null unless a rule supports them.",
    ]
    gaps = []
    if q.compactions:
        gaps.append(f"{q.compactions} context compaction(s)")
    if q.unparsable_records:
        gaps.append(f"{q.unparsable_records} unreadable record(s)")
    if q.abandoned_events:
        gaps.append("rewound branches (kept and flagged)")
    if q.encrypted_reasoning:
        gaps.append(f"{q.encrypted_reasoning} reasoning block(s) not readable")
    if gaps:
        parts.append("Known limits: " + ", ".join(gaps) + ".")
    ai_title = session.meta.extra.get("ai_title")
    if isinstance(ai_title, str) and ai_title.strip():
        parts.append(f"Title the agent gave the session: {ai_title.strip()}")
    return title, " ".join(parts)


# notes a source writes for the instructions a subagent's thread was started with (not a person's words)
DELEGATED = frozenset({"subagent_input", "review_request"})


def _delegated(session: Session) -> Event | None:
    """T-task/delegated: a subagent's thread read alone has no user message; its task is the
    instructions it was started with, which the source kept as a note of its own actor."""
    return next((e for e in session.events if e.kind == "note" and isinstance(e.info, NoteInfo)
                 and e.info.subtype in DELEGATED and e.text and e.text.strip() and not e.abandoned), None)


def assemble(session: Session, drafts: list[Draft], *, release_tier: str, redaction: dict[str, Any],
             proposals: Sequence[Proposal] = (), extra_factors: list[Factor] | None = None,
             llm: dict[str, Any] | None = None, matches: list[dict[str, Any]] | None = None) -> Assembled:
    """The trace of `drafts` with the accepted `proposals` laid over them (neither is changed).

    validation_level is `model_reviewed` when a model's proposal is in the trace, else
    `retraced_from_logs`.
    """
    tid = make_trace_id(session.source_kind, session.session_id, [f.sha256 for f in session.files])
    overlay = trace_overlay(proposals)
    drafts = apply_to_drafts(drafts, proposals)
    validation_level = "model_reviewed" if overlay.model_values else "retraced_from_logs"
    time_warnings = _drop_unwritable_times(session, drafts)
    tf: dict[str, FieldProvenance] = {}
    src_refs = [Ref(next(iter(session.evidence)), "")] if session.evidence else []
    tf["trace_id"] = derived("T-id", src_refs)

    # a turn of attachments alone holds no typed words (its input states what was attached): no task
    users = [d for d in drafts if d.values["action"] == "user_message" and not d.abandoned
             and not getattr(d.prov.get("input"), "excerpt", False)]
    if users:
        task = str(users[0].values["input"])
        tf["task"] = users[0].prov["input"]
    elif (handed := _delegated(session)) is not None:
        task = str(handed.text)
        tf["task"] = copied(handed.refs, rule="T-task/delegated")
    else:
        first, last = _span(drafts)
        task = f"Work recorded in {session.source_kind} evidence" + (f" from {first} to {last}" if first else "")
        tf["task"] = derived("T-task/no-user-message", src_refs)

    used = sorted({str(d.values["tool"]) for d in drafts if d.values.get("tool")})
    if session.meta.tools:
        agent_tools = list(session.meta.tools)
        tf["agent_tools"] = derived("T-tools/listed", src_refs)
    else:
        agent_tools = used
        tf["agent_tools"] = derived("T-tools/used-only", src_refs)

    started, ended = _span(drafts)
    header = session.meta.started_at
    if started is None and header is not None and session.meta.started_at_ref is not None \
            and times.instant(header) is not None:
        started = header  # T-times/header: no step has a time, the log's header says when it began
        tf["started_at"] = copied([session.meta.started_at_ref], rule="T-times/header")
    elif started:
        tf["started_at"] = derived("T-times", src_refs)
        tf["ended_at"] = derived("T-times", src_refs)

    final_output = None
    answer: tuple[Any, FieldProvenance | None] | None = None  # the main agent's last answer, in step order
    for d in drafts:
        if d.actor_key == "agent" and not d.abandoned:
            if d.values["action"] == "output":
                answer = (d.values.get("output"), d.prov.get("output"))
            elif (said := answer_call(d) or submission(d)) is not None:
                answer = said
    if answer is not None:
        final_output, how = answer
        if how is not None:
            tf["final_output"] = how

    ending, trule = termination(session, drafts)
    declared = session.meta.ending_ref
    tf["termination_reason"] = derived(trule, [declared] if declared and trule == "T-termination/declared"
                                       else src_refs)

    sens = "redacted" if redaction.get("enabled") else "private"
    arts = artifacts.collect(drafts)
    art_dicts = [artifacts.to_dict(a, sens) for a in arts]
    files = {a.file[0]: a.file[1] for a in arts if a.file}
    for i, a in enumerate(arts):
        tf[f"static_output.artifacts.{i}"] = derived("+".join(sorted(set(a.rules))), [
            r for s in a.related_steps for r in _refs(next(iter(drafts[s - 1].prov.values())))][:4])

    agent_config, skills = _config(session, drafts)
    if agent_config:
        tf["agent_config"] = derived("T-config", src_refs)
    system_prompt = session.meta.system_prompt
    if system_prompt is not None and session.meta.system_prompt_ref is not None:
        tf["system_prompt"] = copied([session.meta.system_prompt_ref])

    refined = overlay.get("termination_reason")
    if ending == "other" and refined is not None:
        ending = str(refined)
    else:
        overlay.values.pop("termination_reason", None)  # a rule's reason stands
    tf["summary.agent_confidence"] = derived("T-confidence", src_refs)
    tf["dataset_summary"] = derived("T-card", src_refs)
    for key, (_, fp) in sorted(overlay.values.items()):
        tf[key] = fp
    prov = _provenance(tid, session, drafts, tf)
    cited = set(prov.evidence) | {str(e) for m in matches or [] for e in m.get("evidence") or []}
    books = ledger.build(session, cited)
    steps = _steps(drafts)
    turns = len({s.turn for s in steps})
    # unknown records lower confidence only when they carry text (words the trace may lack)
    scored = replace(session, quality=replace(session.quality, unknown_records=books.unknown_with_text))
    conf, factors = confidence(scored, drafts, extra_factors)
    title, description = _card(session, drafts, task, turns)
    description += _proposed_note(overlay)
    evals = [s.eval for s in steps]
    goal_notes = overlay.get("summary.goal_notes")
    if goal_notes is None and "summary.goal_achieved" not in overlay.values:
        goal_notes = NOT_ASSESSED  # once an outcome is proposed, the rule's "not assessed" no longer holds
    summary = {
        "total_steps": len(steps), "total_turns": turns, "positive_steps": evals.count(1),
        "negative_steps": evals.count(-1), "neutral_steps": evals.count(0),
        "directive_signals": sum(1 for s in steps if s.directive is not None),
        "human_feedback": _feedback(steps), "agent_confidence": conf,
        "goal_achieved": overlay.get("summary.goal_achieved"), "goal_notes": goal_notes,
    }
    trace = Trace.model_validate({
        "schema_version": SCHEMA_VERSION, "trace_id": tid, "prior_trace_id": None, "trace_mode": "retraced",
        "validation_level": validation_level, "task": task, "agent_tools": agent_tools,
        "started_at": started, "ended_at": ended, "system_prompt": system_prompt,
        "skills": skills or None, "memory": session.meta.memory, "agent_config": agent_config or None,
        "learning": overlay.get("learning"), "termination_reason": ending, "steps": steps, "final_output": final_output,
        "static_output": {"artifacts": art_dicts}, "summary": summary,
        "dataset_summary": {"title": title, "description": description, "tags": _tags(drafts, session),
                            "release_tier": release_tier, "validation_level": validation_level},
    })
    prov.matches = list(matches or [])
    for m in prov.matches:
        for eid in m.get("evidence") or []:
            ev = session.evidence.get(eid)
            if ev is not None and eid not in prov.evidence:
                prov.evidence[eid] = EvidenceInfo(source=ev.source, line=ev.line, byte_offset=ev.byte_offset,
                                                  byte_length=ev.byte_length, sha256=ev.sha256,
                                                  record_type=ev.record_type)
    manifest = _manifest(tid, session, trace, drafts, factors, release_tier, redaction, llm)
    manifest.warnings.extend(ManifestWarning(code=w.code, message=w.message, file=w.file, line=w.line)
                             for w in time_warnings + books.warnings)
    manifest.ledger = books.files
    return Assembled(trace, prov, manifest, files)


def _proposed_note(overlay: TraceOverlay) -> str:
    """What the card adds when proposals are in the trace (its rule-made text says nothing was inferred)."""
    note = ""
    if overlay.model_values:
        note += (f" A model ({', '.join(overlay.models)}) then proposed values for {overlay.model_values} null "
                 "field(s); each kept value cites evidence whose quotes forsy found in the log (origin 'model' in "
                 "provenance.json).")
    described = overlay.get("dataset_summary.description")
    if described is not None:
        note += f" Summary proposed by a model (citations checked): {described}"
    return note


def _span(drafts: list[Draft]) -> tuple[str | None, str | None]:
    """T-times: by time, not by string ("10:00+02:00" is before "09:30Z")."""
    return times.span(t for d in drafts for t in (d.values.get("started_at"), d.values.get("ended_at")))


def _drop_unwritable_times(session: Session, drafts: list[Draft]) -> list[ReadingWarning]:
    """Take out of the drafts the step times a trace must not hold, and say so.

    A value that is not a time would fail `forsy validate` (H001) and any reader; one outside
    1990..2099 is not a reliable time (the spec asks for "the best reliable timestamp"); an
    end before the step's start would fail H004. Null says "unknown", which is the truth; the
    record stays in the step's evidence. The warning names the first record's file and line
    but never quotes the value: drafts are redacted, event timestamps are not.
    """
    dropped: dict[str, _Dropped] = {}
    for d in drafts:
        for name in ("started_at", "ended_at"):
            if name in d.values and times.instant(d.values[name]) is None:
                _drop(session, d, name, "unplaceable", dropped)
        start, end = times.instant(d.values.get("started_at")), times.instant(d.values.get("ended_at"))
        if start is not None and end is not None and end < start:
            _drop(session, d, "ended_at", "end-before-start", dropped)
    what = {"unplaceable": "is not a time, or lies outside 1990..2099",
            "end-before-start": "is before the step's started_at"}
    return [ReadingWarning("time-not-written",
                           f"{x.count} step time(s) written as null: the log's value {what[reason]} "
                           f"(first: the {x.field} of a step, from this record)", x.file, x.line)
            for reason, x in dropped.items()]


@dataclass
class _Dropped:
    count: int
    field: str
    file: str | None
    line: int | None


def _drop(session: Session, d: Draft, name: str, reason: str, dropped: dict[str, _Dropped]) -> None:
    prov = d.prov.pop(name, None)
    d.values.pop(name, None)
    if reason in dropped:
        dropped[reason].count += 1
        return
    ev = session.evidence.get(prov.evidence[0].id) if prov is not None and prov.evidence else None
    dropped[reason] = _Dropped(1, name, ev.source if ev else None, ev.line if ev else None)


def _feedback(steps: list[Step]) -> dict[str, int]:
    fb = {"corrections": 0, "approvals": 0, "clarifications": 0, "new_instructions": 0}
    key = {"correction": "corrections", "approval": "approvals", "clarification": "clarifications",
           "new_instruction": "new_instructions"}
    for s in steps:
        if s.action == "user_message" and s.feedback_type in key:
            fb[key[s.feedback_type]] += 1
    return fb


def _config(session: Session, drafts: list[Draft]) -> tuple[dict[str, Any], list[str]]:
    m = session.meta
    cfg: dict[str, Any] = {}
    if m.agent:
        cfg["agent"] = m.agent
    if m.agent_version:
        cfg["agent_version"] = m.agent_version
    if m.models:
        cfg["model"] = m.models[0]
        if len(m.models) > 1:
            cfg["models"] = list(m.models)
    if m.cwd:
        cfg["working_directory"] = m.cwd
    if m.git_branch:
        cfg["git_branch"] = m.git_branch
    if m.token_usage:
        cfg["token_usage"] = dict(m.token_usage)
    for k, v in m.extra.items():
        if k in ("titles", "ai_title"):
            continue
        cfg[k] = v
    skills = sorted({str(d.tool_args.get("skill") or d.tool_args.get("command"))
                     for d in drafts if d.values.get("tool") in ("Skill", "SlashCommand")
                     and isinstance(d.tool_args, dict) and (d.tool_args.get("skill") or d.tool_args.get("command"))})
    return cfg, list(m.skills) + [s for s in skills if s not in m.skills]


# the fields given to `trusted` below, one set shared by every model built (see `trusted`)
_STEP_SET = {"step", "evidence", "fields"}
_INFO_SET = {"source", "line", "byte_offset", "byte_length", "sha256", "record_type"}


def _provenance(tid: str, session: Session, drafts: list[Draft], tf: dict[str, FieldProvenance]) -> Provenance:
    # built without validation (`trusted`, model_construct's result) for the per-step and
    # per-evidence parts: tens of thousands on a large log, every value already of its type
    # (ints, strs, FieldProvenance built by the segmenter); validating them cost more than the
    # rest of assembling. Every field is given, so what is written is the same.
    used: set[str] = set()
    add = used.add
    steps = []
    for n, d in enumerate(drafts, start=1):
        values = d.values
        fields = {k: v for k, v in d.prov.items() if values.get(k) is not None}
        for v in fields.values():
            for e in v.evidence:
                add(e.id)
        used.update(d.evidence)
        steps.append(trusted(StepProvenance, {"step": n, "evidence": list(d.evidence), "fields": fields}, _STEP_SET))
    for v in tf.values():
        used.update(e.id for e in v.evidence)
    evidence = {}
    known = session.evidence
    for eid in sorted(used):
        ev = known.get(eid)
        if ev is not None:
            evidence[eid] = trusted(EvidenceInfo, {
                "source": ev.source, "line": ev.line, "byte_offset": ev.byte_offset, "byte_length": ev.byte_length,
                "sha256": ev.sha256, "record_type": ev.record_type}, _INFO_SET)
    return Provenance(trace_id=tid, sources={f.path: f.sha256 for f in session.files}, evidence=evidence,
                      trace_fields=tf, steps=steps)


def _manifest(tid: str, session: Session, trace: Trace, drafts: list[Draft], factors: list[Factor],
              release_tier: str, redaction: dict[str, Any], llm: dict[str, Any] | None) -> Manifest:
    q = session.quality
    counts = {
        "records": q.records, "unparsable_records": q.unparsable_records, "duplicate_records": q.duplicate_records,
        "unknown_records": q.unknown_records, "compactions": q.compactions,
        "abandoned_steps": sum(1 for d in drafts if d.abandoned),
        "tool_calls": sum(1 for d in drafts if d.call_id),
        "missing_results": sum(1 for d in drafts if d.call_id and "output" not in d.values
                               and not d.no_result_expected),
        "truncated_outputs": q.truncated_outputs, "encrypted_reasoning": q.encrypted_reasoning,
        "subagents": len({d.actor_key for d in drafts if d.actor_key.startswith("subagent:")}),
        "evidence_records": len(session.evidence),
    }
    counts.update({k: v for k, v in q.extra.items() if isinstance(v, int)})
    return Manifest(
        trace_id=tid, generator={"name": "forsy", "version": __version__, "segmenter": "rules-v1"},
        source_kind=session.source_kind, session_id=session.session_id,
        sources=[SourceFileInfo(path=f.path, kind=f.kind, bytes=f.bytes, sha256=f.sha256) for f in session.files],
        trace_mode=trace.trace_mode, validation_level=trace.validation_level,
        release_tier=release_tier,  # type: ignore[arg-type]
        started_at=trace.started_at, ended_at=trace.ended_at, total_steps=trace.summary.total_steps,
        total_turns=trace.summary.total_turns, agent_confidence=trace.summary.agent_confidence,
        confidence_factors=[f.as_dict() for f in factors if f.penalty or f.name == "base"], counts=counts,
        redaction=redaction, llm=llm,
        warnings=[ManifestWarning(code=w.code, message=w.message, file=w.file, line=w.line) for w in session.warnings],
    )
