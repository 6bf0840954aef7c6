"""A reviewer's edits laid over a stored trace, and the reviewed trace an approval makes.

The stored draft is a trace folder's files (trace.json, provenance.json, manifest.json,
README.md, artifacts/…), not the rule drafts `forsy.proposals.apply_to_drafts` works on, so
the overlay here works on the JSON documents:

    trace, prov = apply_to_trace(trace_json, provenance_json, proposals)   # pure: inputs untouched
    reviewed = reviewed_folder(files, proposals, level="human_reviewed", reviewer="Ada <ada@x>", at=now)

Every edited field's provenance says origin `human`, names the reviewer, the time and the value
it replaced. The reviewed trace gets a new `trace_id` (a hash of the draft's id, the level and
the edits, so the same review of the same draft is the same trace), `prior_trace_id` = the
draft, `validation_level` = the level chosen; manifest and README follow, and every other
file is carried over byte for byte.

Provenance entries are built as JSON objects (the shape of `models.FieldProvenance`, origin
`human` with its `reviewer`), so a large provenance.json is not revalidated field by field.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..assemble import Assembled
from ..errors import InputError
from ..ids import make_id
from ..models import Manifest, Provenance, Trace, ValidationLevel
from ..proposals import TRACE_PATHS, Actor, Proposal, Replaced, StepPath, Value, parse_path
from ..sinks.folder import readme

Json = dict[str, Any]

REVIEW_LEVELS: tuple[str, ...] = (ValidationLevel.human_reviewed.value, ValidationLevel.expert_reviewed.value,
                                  ValidationLevel.client_validated.value)

# Step fields a reviewer may edit, and the type of their values. The others are the trace's
# structure (numbering, turns, actors, times, causal links, parallel groups): changing one
# would leave the trace inconsistent with itself, so they are corrected by re-tracing, not here.
# `feedback_type` feeds summary.human_feedback and stays out for the same reason; `eval` and
# `directive` are editable and the summary's counts of them follow them.
STEP_EDITABLE: dict[str, type] = {
    "operation": str, "observation": str, "input": str, "output": str, "state_change": str, "reasoning": str,
    "causal_type": str, "causal_note": str, "alternatives_considered": str, "success": bool, "eval": int,
    "eval_reason": str, "directive": str, "message_role": str, "feedback_content": str,
}  # fmt: skip
TRACE_EDITABLE: dict[str, type] = {
    "/learning": str, "/summary/goal_achieved": bool, "/summary/goal_notes": str,
    "/termination_reason": str, "/dataset_summary/description": str,
}  # fmt: skip


_HINTS = {bool: "true or false", int: "-1, 0 or 1", str: "text (not empty)"}


def value_hint(step: int | None, name: str) -> str:
    """What a field's value may be, said to the reviewer typing it ("" for a field not edited in review)."""
    kind = STEP_EDITABLE.get(name) if step is not None else TRACE_EDITABLE.get(field_path(None, name))
    return _HINTS.get(kind, "") if kind is not None else ""


def field_path(step: int | None, name: str) -> str:
    """The proposal path of a step field (step given) or a trace field (`learning`, `summary.goal_notes`)."""
    if step is not None:
        return f"/steps/{step}/{name}"
    return "/" + name.lstrip("/").replace(".", "/")


def parse_value(path: str, text: str) -> Value:
    """A value typed in by a reviewer, as the field's type: text as it is for text fields;
    true/false for booleans; -1, 0 or 1 for eval. Anything else is refused with the reason."""
    on_step = path.startswith("/steps/")
    try:
        where: StepPath | str | None = parse_path(path)
    except ValueError:  # no field of the format at all (a typo, a made-up name)
        where = None
    kind = STEP_EDITABLE.get(where.field) if isinstance(where, StepPath) else TRACE_EDITABLE.get(path)
    name = where.field if isinstance(where, StepPath) else path.split("/", 3)[-1] if on_step else path
    if kind is None:
        editable = ", ".join(sorted(STEP_EDITABLE)) if on_step else ", ".join(TRACE_EDITABLE)
        raise InputError(f"{name} cannot be edited in review; editable: {editable}")
    if kind is bool:
        low = text.strip().lower()
        if low not in ("true", "false"):
            raise InputError(f"{name} is true or false, not {text!r}")
        return low == "true"
    if kind is int:
        if text.strip() not in ("-1", "0", "1", "+1"):
            raise InputError(f"{name} is -1, 0 or 1, not {text!r}")
        return int(text.strip())
    if not text.strip():
        raise InputError(f"{name}: an empty value; a field is cleared by re-tracing, not by review")
    return text


def current_value(trace: Json, path: str) -> Any:
    """The value at `path` in a trace document (None when null or absent)."""
    where = parse_path(path)
    if isinstance(where, StepPath):
        steps = trace.get("steps") or []
        if not 1 <= where.step <= len(steps):
            raise InputError(f"no step {where.step}: the trace has {len(steps)} steps")
        return steps[where.step - 1].get(where.field)
    node: Any = trace
    for part in where.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def human_proposal(trace: Json, path: str, value: Value | None, reviewer: str, at: str) -> Proposal:
    """A reviewer's edit of `path` as a proposal: origin human, the reviewer, the time, the old value."""
    old = current_value(trace, path)
    replaced = Replaced(old, None) if isinstance(old, str | int | float | bool) else None
    return Proposal(path=path, value=value, origin="human", actor=Actor(reviewer), replaces=replaced, time=at)


def field_provenance(p: Proposal, old: Json | None = None) -> Json:
    """provenance.json's entry for a proposal's value: `forsy.proposals.provenance` as JSON, with
    the replaced value's own rule and origin kept, so the correction can be audited."""
    who: Json = {"model": p.actor.name} if p.origin == "model" else {"reviewer": p.actor.name}
    if p.actor.prompt_version is not None:
        who["prompt_version"] = p.actor.prompt_version
    who["citations"] = [{"id": c.evidence_id, "quote": c.quote, "score": c.score} for c in p.citations]
    if p.replaces is not None:
        who["replaced"] = {"value": p.replaces.value, "rule": (old or {}).get("rule", p.replaces.rule),
                           "origin": (old or {}).get("origin")}
    if p.time is not None:
        who["time"] = p.time
    refs: list[Json] = []
    for c in p.citations:
        ref = {"id": c.evidence_id, "pointer": c.pointer}
        if ref not in refs:
            refs.append(ref)
    out: Json = {"origin": p.origin, "rule": p.rule, "evidence": refs, "redacted": _masked(p.value), "excerpt": False,
                 "model": who if p.origin == "model" else None}
    if p.origin == "human":
        out["reviewer"] = who
    return out


def _masked(value: object) -> bool:
    """Placeholders stand for parts of the value: a model's value quoting masked evidence, a
    reviewer's edit with a pasted token masked or a placeholder typed back."""
    from ..redact import PLACEHOLDER_RE

    return isinstance(value, str) and PLACEHOLDER_RE.search(value) is not None


def _copy(doc: Json) -> Json:
    out = orjson.loads(orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS))
    assert isinstance(out, dict)
    return out


def apply_to_trace(trace_json: Json, provenance_json: Json, proposals: Iterable[Proposal]) -> tuple[Json, Json]:
    """New trace and provenance documents with every proposal applied in order (the last for a
    path wins). Pure: the inputs are not changed. A proposal for a step the trace does not
    have is an InputError."""
    trace, prov = _copy(trace_json), _copy(provenance_json)
    steps: list[Json] = trace.get("steps") or []
    by_step = {sp["step"]: sp for sp in prov.setdefault("steps", [])}
    counted: set[str] = set()  # step fields edited that the summary counts
    for p in proposals:
        where = parse_path(p.path)
        value = list(p.value) if isinstance(p.value, tuple) else p.value
        if isinstance(where, StepPath):
            if not 1 <= where.step <= len(steps):
                raise InputError(f"an edit of step {where.step}, but the trace has {len(steps)} steps")
            steps[where.step - 1][where.field] = value
            sp = by_step.get(where.step)
            if sp is None:
                sp = by_step[where.step] = {"step": where.step, "evidence": [], "fields": {}}
                prov["steps"].append(sp)
            sp["fields"][where.field] = field_provenance(p, sp["fields"].get(where.field))
            if where.field in ("eval", "directive"):
                counted.add(where.field)
        else:
            *parents, last = where.split(".")
            node = trace
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = value
            fields = prov.setdefault("trace_fields", {})
            fields[where] = field_provenance(p, fields.get(where))
    prov["steps"].sort(key=lambda sp: sp["step"])
    summary = trace.get("summary")
    if counted and isinstance(summary, dict):
        # the summary's counts are the steps' evals and directives counted: they follow the edit
        evals = [s.get("eval") for s in steps]
        if "eval" in counted:
            summary.update(positive_steps=evals.count(1), negative_steps=evals.count(-1), neutral_steps=evals.count(0))
        if "directive" in counted:
            summary["directive_signals"] = sum(1 for s in steps if s.get("directive") is not None)
    return trace, prov


def reviewed_trace_id(draft_id: str, level: str, proposals: Sequence[Proposal]) -> str:
    """The reviewed trace's id: the draft's id, the level and the edits (path and value), hashed."""
    edits = [[p.path, list(p.value) if isinstance(p.value, tuple) else p.value] for p in proposals]
    return make_id("forsy", "reviewed", draft_id, level, edits, length=20)


@dataclass(frozen=True)
class Reviewed:
    trace_id: str
    files: dict[str, bytes]
    trace: Trace


def _load(files: dict[str, bytes], name: str) -> Json:
    try:
        doc = orjson.loads(files[name])
    except KeyError:
        raise InputError(f"the draft has no {name}") from None
    except orjson.JSONDecodeError as e:
        raise InputError(f"the draft's {name} is not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise InputError(f"the draft's {name} is not a JSON object")
    return doc


def effective(files: dict[str, bytes], proposals: Sequence[Proposal]) -> tuple[Json, Json]:
    """The draft's trace and provenance with its edits applied."""
    return apply_to_trace(_load(files, "trace.json"), _load(files, "provenance.json"), proposals)


def trace_bytes(trace: Json) -> bytes:
    """trace.json as forsy writes it (the folder writer's serializer, so hashes compare)."""
    model = Trace.model_validate(trace)
    return model.__pydantic_serializer__.to_json(model, indent=2) + b"\n"


def effective_sha256(files: dict[str, bytes], proposals: Sequence[Proposal]) -> str:
    """sha256 of the draft's trace.json with its edits (the stored bytes' when there are none)."""
    if not proposals:
        return hashlib.sha256(files["trace.json"]).hexdigest()
    trace, _ = effective(files, proposals)
    return hashlib.sha256(trace_bytes(trace)).hexdigest()


def reviewed_folder(files: dict[str, bytes], proposals: Sequence[Proposal], *, level: str, reviewer: str,
                    at: str) -> Reviewed:
    """The folder files of the trace an approval makes (see the module docstring)."""
    if level not in REVIEW_LEVELS:
        raise InputError(f"unknown review level {level!r}; one of {', '.join(REVIEW_LEVELS)}")
    trace, prov = effective(files, proposals)
    manifest = _load(files, "manifest.json")
    draft_id = str(trace.get("trace_id"))
    new_id = reviewed_trace_id(draft_id, level, proposals)
    trace.update(trace_id=new_id, prior_trace_id=draft_id, validation_level=level)
    if isinstance(trace.get("dataset_summary"), dict):
        trace["dataset_summary"]["validation_level"] = level
    by = {"reviewer": reviewer, "time": at}
    tf = prov.setdefault("trace_fields", {})
    tf["trace_id"] = _human({**by, "note": f"approved as {level}: sha256 of the draft's id, the level and the "
                                           f"{len(proposals)} edit(s)", "replaced": {"value": draft_id}})
    tf["prior_trace_id"] = _human({**by, "note": "the draft this review approved"})
    tf["validation_level"] = _human({**by, "note": f"the level the reviewer chose; the draft was "
                                                   f"{manifest.get('validation_level')}"})
    prov["trace_id"] = new_id
    manifest.update(trace_id=new_id, validation_level=level)
    try:
        model = Trace.model_validate(trace)
        man = Manifest.model_validate(manifest)
    except ValueError as e:
        raise InputError(f"the reviewed trace would not be a valid trace: {e}") from None
    out: dict[str, bytes] = {n: d for n, d in files.items() if n.startswith("artifacts/")}
    out["trace.json"] = model.__pydantic_serializer__.to_json(model, indent=2) + b"\n"
    out["provenance.json"] = orjson.dumps(prov, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n"
    texts = {n: d.decode("utf-8", "surrogatepass") for n, d in out.items() if n.startswith("artifacts/")}
    # the card reads the trace and the manifest only; provenance is not validated into a model here
    out["README.md"] = readme(Assembled(trace=model, provenance=Provenance.model_construct(), manifest=man,
                                        files=texts)).encode("utf-8")
    man.files = {n: hashlib.sha256(d).hexdigest() for n, d in sorted(out.items())}
    out["manifest.json"] = man.model_dump_json(indent=2).encode() + b"\n"
    return Reviewed(new_id, out, model)


def _human(who: Json) -> Json:
    return {"origin": "human", "rule": None, "evidence": [], "redacted": False, "excerpt": False, "model": None,
            "reviewer": who}


def proposal_json(p: Proposal) -> tuple[str, str | None]:
    """(value_json, replaced_json) of a proposal, as the store keeps them."""
    value = list(p.value) if isinstance(p.value, tuple) else p.value
    replaced = None if p.replaces is None else orjson.dumps(p.replaces.value).decode()
    return orjson.dumps(value).decode(), replaced


def stored_proposal(path: str, value_json: str, origin: str, actor: str, at: str,
                    replaced_json: str | None) -> Proposal:
    """A proposal back from the store's row."""
    value = orjson.loads(value_json)
    if isinstance(value, list):
        value = tuple(value)
    replaced = None
    if replaced_json is not None:
        replaced = Replaced(orjson.loads(replaced_json), None)
    return Proposal(path=path, value=value, origin="human" if origin == "human" else "model", actor=Actor(actor),
                    replaces=replaced, time=at)


__all__ = ["REVIEW_LEVELS", "STEP_EDITABLE", "TRACE_EDITABLE", "TRACE_PATHS", "Reviewed", "apply_to_trace",
           "current_value", "effective", "effective_sha256", "field_path", "field_provenance", "human_proposal",
           "parse_value", "proposal_json", "reviewed_folder", "reviewed_trace_id", "stored_proposal",
           "trace_bytes", "value_hint"]
