"""What every export format shares: the traces it is given, its declared field coverage, and
the loss report written beside its output.

A format declares, for every Forsy field (`FIELDS`), what becomes of it: `kept` (the format
carries the value as it is), `transformed` (carried in another shape; `how` says which) or
`dropped` (the format has no place for it). `back` says whether forsy's importer of that
format reads the value back (the round-trip tests check exactly those fields).

The loss report counts, over the traces exported, the values each field held and how many of
them the output does not carry: every value of a dropped field, and the values a transformed
field could not carry in a given case (the converter counts those through `ExportContext.drop`).
An export is lossy when any value is lost; `--strict` refuses a lossy export before writing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Protocol

from ..errors import ForsyError
from ..models import STEP_FIELDS, TOP_LEVEL_FIELDS, Manifest, Provenance, Trace

Fate = Literal["kept", "transformed", "dropped"]

# every field a format must declare: the trace's top-level fields, each step field, and the two
# files beside trace.json
FIELDS: tuple[str, ...] = (
    *(f for f in TOP_LEVEL_FIELDS if f != "steps"),
    *(f"steps.{f}" for f in STEP_FIELDS),
    "manifest",
    "provenance",
)


@dataclass(frozen=True, slots=True)
class Cover:
    fate: Fate
    how: str = ""  # for transformed: the shape it takes; for dropped: why, when worth saying
    back: bool = False  # the importer of the format reads it back (checked by round trips)


def coverage(kept: Mapping[str, str] | None = None, transformed: Mapping[str, str] | None = None,
             back: Iterable[str] = (), dropped: Mapping[str, str] | None = None) -> dict[str, Cover]:
    """A full declaration: the fields named in `kept`/`transformed` (with where/how), every other
    field dropped (with a reason from `dropped` when given)."""
    kept, transformed, dropped = dict(kept or {}), dict(transformed or {}), dict(dropped or {})
    unknown = (set(kept) | set(transformed) | set(dropped) | set(back)) - set(FIELDS)
    if unknown:
        raise ValueError(f"not Forsy fields: {sorted(unknown)}")
    backs = set(back)
    out: dict[str, Cover] = {}
    for f in FIELDS:
        if f in kept:
            out[f] = Cover("kept", kept[f], f in backs)
        elif f in transformed:
            out[f] = Cover("transformed", transformed[f], f in backs)
        else:
            out[f] = Cover("dropped", dropped.get(f, ""))
    return out


@dataclass
class Bundle:
    """One trace to export: trace.json, and manifest/provenance when the folder has them."""

    trace: Trace
    manifest: Manifest | None
    provenance: Provenance | None
    where: str  # the folder, or store:<trace id>
    status: str | None = None  # the store's draft status (approved, pending, ...), when from a store
    reviewed: bool = False  # from a store: the trace a review made (not the draft it was made from)


@dataclass
class ExportOptions:
    approved_only: bool = False  # openai: only traces a review approved
    dataset: str | None = None  # invariant: the dataset name of the upload JSON


@dataclass
class ExportContext:
    """Collects the values a converter could not carry, by field."""

    dropped: Counter[str] = field(default_factory=Counter)

    def drop(self, name: str, n: int = 1) -> None:
        if name not in FIELDS:
            raise ValueError(f"not a Forsy field: {name}")
        self.dropped[name] += n


@dataclass(frozen=True)
class OutFile:
    name: str  # relative to the output folder, or "" for the output file itself
    data: bytes


class Exporter(Protocol):
    name: ClassVar[str]
    directory: ClassVar[bool]  # -o names a folder (else a file)
    coverage: ClassVar[Mapping[str, Cover]]

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]: ...


class ExportRefused(ForsyError):
    """--strict and the export would lose values."""


@dataclass
class FieldLoss:
    field: str
    fate: Fate
    how: str
    values: int  # non-null values over the traces exported
    lost: int  # of those, how many the output does not carry

    def as_dict(self) -> dict[str, object]:
        return {"field": self.field, "fate": self.fate, "how": self.how, "values": self.values, "lost": self.lost}


@dataclass
class LossReport:
    format: str
    traces: list[str]
    fields: list[FieldLoss]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # traces given that could not be read: where, why

    @property
    def lossy(self) -> bool:
        return any(f.lost for f in self.fields)

    def lost_fields(self) -> list[str]:
        return [f"{f.field} ({f.lost} of {f.values})" for f in self.fields if f.lost]

    def as_dict(self) -> dict[str, object]:
        return {
            "generator": "forsy export",
            "format": self.format,
            "traces": self.traces,
            "lossy": self.lossy,
            "fields": [f.as_dict() for f in self.fields],
            "skipped": [{"path": where, "reason": why} for where, why in self.skipped],
        }


def _has(v: object) -> bool:
    return v is not None and v != [] and v != {}


def values_of(bundles: Sequence[Bundle]) -> Counter[str]:
    """How many non-null values each field holds over `bundles` (a step field: over all steps)."""
    n: Counter[str] = Counter()
    for b in bundles:
        t = b.trace
        for f in TOP_LEVEL_FIELDS:
            if f != "steps" and _has(getattr(t, f)):
                n[f] += 1
        for s in t.steps:
            for f in STEP_FIELDS:
                if _has(getattr(s, f)):
                    n[f"steps.{f}"] += 1
        n["manifest"] += b.manifest is not None
        n["provenance"] += b.provenance is not None
    return n


def loss_report(name: str, cov: Mapping[str, Cover], bundles: Sequence[Bundle], ctx: ExportContext) -> LossReport:
    values = values_of(bundles)
    out = []
    for f in FIELDS:
        c = cov[f]
        lost = values[f] if c.fate == "dropped" else min(values[f], ctx.dropped[f])
        out.append(FieldLoss(f, c.fate, c.how, values[f], lost))
    return LossReport(name, [b.trace.trace_id for b in bundles], out)
