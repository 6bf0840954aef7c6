"""What a person has to decide about a draft, gathered at the top of its page ("needs you").

Everything the retrace could not establish or only a person can decide: the trace-level
judgements (goal achieved, termination, learning, summary), the validator's findings, the
confidence factors with their points, values a model proposed (each with its quotes, accepted
or declined on its own), outputs that were cut, and what went wrong reading the log. Each item
says whether it is still open; `open_count` is what the queue shows.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from ..models import TerminationReason
from .overlay import TRACE_EDITABLE
from .source import LoadedTrace

# the trace-level judgements, in the order a reviewer decides them, with their labels
JUDGEMENTS: tuple[tuple[str, str], ...] = (
    ("/summary/goal_achieved", "Was the user's goal achieved?"),
    ("/termination_reason", "Why did the session end?"),
    ("/summary/goal_notes", "Notes on the goal"),
    ("/learning", "What is there to learn from it?"),
    ("/dataset_summary/description", "Summary of the work"),
)


# the judgements whose values the format enumerates: a person picks one, never types a word the format refuses
CHOICES: dict[str, tuple[str, ...]] = {"/termination_reason": tuple(r.value for r in TerminationReason)}


@dataclass(frozen=True)
class Judgement:
    path: str
    label: str
    kind: str  # "bool", "choice" (one of `choices`) or "text"
    value: str  # as text; "" when null
    origin: str  # "not assessed", "derived by rule …", "proposed by model …", "decided by …"
    decided: bool  # a person set it (or accepted the value it has)
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelValue:
    path: str
    value: str
    model: str
    quotes: tuple[str, ...]
    decision: str  # "" open, "accepted", "declined"


@dataclass(frozen=True)
class Factor:
    name: str
    points: float  # what it took from the confidence (0 for the base)
    value: float
    note: str


@dataclass(frozen=True)
class FindingLine:
    """What the validator says, a line per rule and message: the steps it says it of, together
    (a long trace's "success is null" on 80 steps is one line, not 80)."""

    severity: str
    rule: str
    message: str
    steps: tuple[int, ...] = ()

    def __str__(self) -> str:
        where = "" if not self.steps else (f"step {self.steps[0]}: " if len(self.steps) == 1
                                           else f"steps {', '.join(map(str, self.steps))}: ")
        return f"{self.severity} {self.rule} {where}{self.message}"


@dataclass(frozen=True)
class Needs:
    judgements: list[Judgement]
    findings: list[FindingLine]  # the validator's errors, then its warnings, in its order
    factors: list[Factor]
    model_values: list[ModelValue]
    cut_outputs: list[int]  # steps whose output is an excerpt of what the log holds
    reading_warnings: list[str]

    @property
    def open_count(self) -> int:
        return (sum(not j.decided for j in self.judgements)
                + sum(not m.decision for m in self.model_values))


def _at(doc: Any, path: str) -> Any:
    node = doc
    for part in path.strip("/").split("/"):
        if isinstance(node, list) and part.isdigit():
            node = node[int(part) - 1] if 1 <= int(part) <= len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node


def _text(v: Any) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else orjson.dumps(v).decode()


def _field_prov(d: LoadedTrace, path: str) -> dict[str, Any]:
    parts = path.strip("/").split("/")
    if parts[0] == "steps" and len(parts) == 3 and parts[1].isdigit():
        fp = (d.step_provenance(int(parts[1])).get("fields") or {}).get(parts[2])
    else:
        fp = (d.provenance.get("trace_fields") or {}).get(".".join(parts))
    return fp if isinstance(fp, dict) else {}


def _origin(fp: dict[str, Any], value: Any) -> str:
    if fp.get("origin") == "human":
        return f"decided by {(fp.get('reviewer') or {}).get('reviewer', 'a reviewer')}"
    if fp.get("origin") == "model":
        return f"proposed by model {(fp.get('model') or {}).get('model', '')}".strip()
    if fp.get("origin") == "derived":
        return f"derived by rule {fp.get('rule')}"
    return "not assessed" if value is None else str(fp.get("origin") or "as retraced")


def decisions(d: LoadedTrace) -> dict[str, str]:
    """What a reviewer last did to each path: accepted (kept the value), declined (null again)
    or replaced (set another value)."""
    out: dict[str, str] = {}
    for p in d.proposals:
        if p.origin == "human":
            kept = p.replaces is not None and p.replaces.value == p.value
            out[p.path] = "declined" if p.value is None else "accepted" if kept else "replaced"
    return out


def judgements(d: LoadedTrace, accepted: set[str]) -> list[Judgement]:
    out = []
    for path, label in JUDGEMENTS:
        value = _at(d.trace, path)
        fp = _field_prov(d, path)
        human = fp.get("origin") == "human"
        choices = CHOICES.get(path, ())
        kind = "bool" if TRACE_EDITABLE[path] is bool else "choice" if choices else "text"
        out.append(Judgement(path, label, kind, _text(value), _origin(fp, value), human or path in accepted, choices))
    return out


def model_values(d: LoadedTrace, accepted: set[str]) -> list[ModelValue]:
    """Every value a model proposed that is in the draft, with the quotes it cited."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key, fp in (d.provenance.get("trace_fields") or {}).items():
        found.append(("/" + key.replace(".", "/"), fp))
    for sp in d.provenance.get("steps") or []:
        for name, fp in (sp.get("fields") or {}).items():
            found.append((f"/steps/{sp.get('step')}/{name}", fp))
    done = decisions(d)
    out = []
    for path, fp in found:
        if not isinstance(fp, dict):
            continue
        replaced = ((fp.get("reviewer") or {}).get("replaced") or {}) if fp.get("origin") == "human" else {}
        was_model = fp.get("origin") == "model" or replaced.get("origin") == "model"
        if not was_model:
            continue
        who = (fp.get("model") or {}) if fp.get("origin") == "model" else {}
        quotes = tuple(str(c.get("quote")) for c in who.get("citations") or [] if isinstance(c, dict))
        value = _at(d.trace, path) if fp.get("origin") == "model" else replaced.get("value")
        decision = "accepted" if path in accepted else done.get(path, "")
        out.append(ModelValue(path, _text(value), str(who.get("model") or ""), quotes, decision))
    return out


class Seen:
    """What the validator said of folders whose bytes were seen lately, by their sha256s: a
    review server keeps one, since a draft's page is loaded again and again while a person
    reviews it and validating a large draft is most of the page's time (half a second at 1,700
    steps). The same bytes get the same findings; an edit makes new bytes."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._found: OrderedDict[tuple[tuple[str, str], ...], list[FindingLine]] = OrderedDict()
        self._lock = threading.Lock()  # a server may answer pages from several threads

    def findings(self, files: dict[str, bytes]) -> list[FindingLine]:
        key = tuple(sorted((name, hashlib.sha256(data).hexdigest()) for name, data in files.items()))
        with self._lock:
            if (known := self._found.get(key)) is not None:
                self._found.move_to_end(key)
                return list(known)
        found = _findings(files)
        with self._lock:
            self._found[key] = found
            while len(self._found) > self.size:
                self._found.popitem(last=False)
        return list(found)


def findings(d: LoadedTrace, seen: Seen | None = None) -> list[FindingLine]:
    """What `forsy validate` says of the draft with its edits (errors and warnings), a line per
    rule and message with the steps it is said of; `seen`: findings kept for the same bytes."""
    edited = {"trace.json": orjson.dumps(d.trace), "provenance.json": orjson.dumps(d.provenance)}
    files = {**d.files, **edited}
    return seen.findings(files) if seen is not None else _findings(files)


def _findings(files: dict[str, bytes]) -> list[FindingLine]:
    from ..validation import validate_files

    report = validate_files(files)
    steps: dict[tuple[str, str, str], list[int]] = {}
    for f in [*report.errors, *report.warnings]:
        if f.rule.startswith("N"):  # the files' own sha256s in manifest.json describe the stored draft
            continue
        at = steps.setdefault((f.severity, f.rule, f.message), [])
        if f.step is not None and f.step not in at:
            at.append(f.step)
    return [FindingLine(sev, rule, msg, tuple(sorted(at))) for (sev, rule, msg), at in steps.items()]


def _where(w: dict[str, Any]) -> str:
    """Where a reading warning was met: the file, and its line when the warning names one (a
    warning about the whole file has none: it read `file:None`)."""
    if not w.get("file"):
        return ""
    return f" ({w['file']}:{w['line']})" if w.get("line") is not None else f" ({w['file']})"


def needs(d: LoadedTrace, accepted: set[str] | None = None, seen: Seen | None = None) -> Needs:
    """What a person has to decide about `d`; `accepted`: the model-proposed paths a reviewer
    accepted as they are (from the audit log); `seen`: the validator's findings kept for the same
    bytes (a review server's)."""
    ok = accepted or set()
    factors = [Factor(str(f.get("name")), float(f.get("penalty") or 0), float(f.get("value") or 0),
                      str(f.get("note") or "")) for f in d.manifest.get("confidence_factors") or []
               if isinstance(f, dict)]
    cut = sorted({int(sp.get("step")) for sp in d.provenance.get("steps") or []
                  if isinstance(sp.get("fields"), dict) and (sp["fields"].get("output") or {}).get("excerpt")})
    reading = [f"{w.get('code')}: {w.get('message')}" + _where(w)
               for w in d.manifest.get("warnings") or [] if isinstance(w, dict)]
    return Needs(judgements(d, ok), findings(d, seen), factors, model_values(d, ok), cut, reading)


__all__ = ["JUDGEMENTS", "Factor", "Judgement", "ModelValue", "Needs", "Seen", "judgements", "needs"]
