"""An export, end to end: the formats found by name (`formats`, `load`: the `forsy.exporters`
entry points), the traces loaded (a folder, a store's selection), converted, refused when
lossy under `strict`, written with the loss report beside them; an output path that exists is
replaced only when the loss report beside it says forsy's export wrote it (`_ours`)."""


from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TypeVar

import orjson
from pydantic import BaseModel

from .._atomic import replace_file
from ..errors import InputError, OutputError
from ..models import Manifest, Provenance, Trace
from ._core import (
    Bundle,
    Cover,
    ExportContext,
    Exporter,
    ExportOptions,
    ExportRefused,
    LossReport,
    OutFile,
    loss_report,
)

EXPORTERS = "forsy.exporters"  # the entry-point group: forsy's own formats are declared there too


@functools.cache
def formats() -> dict[str, str]:
    """Every export format, by name: the `forsy.exporters` entry points (forsy's own are declared
    in its pyproject.toml, a plugin's in its own), read once per process."""
    return {ep.name: ep.value for ep in entry_points(group=EXPORTERS)}
APPROVED_LEVELS = frozenset({"human_reviewed", "expert_reviewed", "client_validated"})


def load(name: str) -> Exporter:
    try:
        target = formats()[name]
    except KeyError:
        raise InputError(f"unknown export format {name!r}; known: {', '.join(sorted(formats()))}") from None
    mod, _, cls = target.partition(":")
    exporter: Exporter = getattr(importlib.import_module(mod), cls)()
    return exporter


def load_folder(folder: Path) -> Bundle:
    """A trace folder (trace.json, and manifest.json / provenance.json when present); an
    InputError naming the file that cannot be read or is not what its name says."""
    folder = Path(folder)
    trace_file = folder / "trace.json" if folder.is_dir() else folder
    base = trace_file.parent
    man, prov = base / "manifest.json", base / "provenance.json"
    return Bundle(_parsed(Trace, trace_file), _parsed(Manifest, man) if man.is_file() else None,
                  _parsed(Provenance, prov) if prov.is_file() else None, str(base))


M = TypeVar("M", bound=BaseModel)


def _parsed(model: type[M], path: Path, data: bytes | None = None) -> M:
    try:
        return model.model_validate_json(path.read_bytes() if data is None else data)
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None
    except ValueError as e:
        what = {Trace: "a Forsy trace", Manifest: "a Forsy manifest", Provenance: "Forsy provenance"}[model]
        raise InputError(f"not {what} ({str(e).splitlines()[0]})", path=path) from None


def load_store(url: str | None, query: object, skipped: list[tuple[str, str]] | None = None) -> list[Bundle]:
    """The traces of a store that `query` (a store.TraceQuery) selects. A trace whose files
    cannot be read is an InputError, or, when `skipped` is given, left out and added to it
    (where, why): one bad trace does not stop the others."""
    from ..store import TraceQuery, every_trace, open_store

    if not isinstance(query, TraceQuery):
        raise TypeError("query must be a TraceQuery")
    st = open_store(url, create=False)
    try:
        out = []
        for row in every_trace(st, query):
            try:
                files = {f.name: f.data for f in st.trace_files(row.trace_id)}
                if "trace.json" not in files:
                    raise InputError(f"trace {row.trace_id} lacks trace.json in the store {st.url}")
                man, prov = files.get("manifest.json"), files.get("provenance.json")
                at = Path(f"store:{row.trace_id}")
                bundle = Bundle(_parsed(Trace, at / "trace.json", files["trace.json"]),
                                _parsed(Manifest, at / "manifest.json", man) if man else None,
                                _parsed(Provenance, at / "provenance.json", prov) if prov else None,
                                f"store:{row.trace_id}", row.status)
            except InputError as e:
                if skipped is None:
                    raise
                skipped.append((f"store:{row.trace_id}", e.message))
                continue
            state = st.draft_state(row.trace_id)
            bundle.reviewed = state is not None and state.review_of is not None
            out.append(bundle)
        return out
    finally:
        st.close()


def approved(b: Bundle) -> bool:
    """A trace a person confirmed: from a store, the trace an approval made (never the draft it
    was made from, whose status says approved too, nor a status set without a review); from a
    folder, a validation_level of human_reviewed or better. Both need that level."""
    confirmed = b.trace.validation_level in APPROVED_LEVELS
    return confirmed and b.reviewed and b.status == "approved" if b.status is not None else confirmed


@dataclass
class ExportResult:
    format: str
    paths: list[Path]  # what was written, loss report last
    report: LossReport
    traces: int
    duplicates: int = 0  # traces given again (the same trace id): exported once


def _target(out: Path, f: OutFile, folder: bool) -> Path:
    if folder:
        return out / f.name
    if f.name == "":
        return out
    return out.with_name(out.name.removesuffix(out.suffix) + f.name)  # x.json + ".dataset.json"


def report_path(out: Path, folder: bool) -> Path:
    return out / "loss.json" if folder else out.with_name(out.name + ".loss.json")


def _ours(report: Path) -> bool:
    try:
        return bool(orjson.loads(report.read_bytes()).get("generator") == "forsy export")
    except (OSError, ValueError, AttributeError):
        return False


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, data)


def export(bundles: Sequence[Bundle], fmt: str, out: Path, *, strict: bool = False,
           options: ExportOptions | None = None, skipped: Sequence[tuple[str, str]] = ()) -> ExportResult:
    """Convert `bundles` to `fmt` and write them at `out` with the loss report beside them;
    `skipped`: the traces given that could not be read (where, why), named in the report."""
    options = options or ExportOptions()
    exporter = load(fmt)
    if options.approved_only:
        bundles = [b for b in bundles if approved(b)]
    if not bundles:
        raise InputError("no trace to export" + (" (none approved)" if options.approved_only else ""))
    given = len(bundles)
    firsts: dict[str, Bundle] = {}
    for b in bundles:  # the first of each trace id, in the order given
        firsts.setdefault(b.trace.trace_id, b)
    bundles = list(firsts.values())
    ctx = ExportContext()
    files = exporter.convert(bundles, ctx, options)
    report = loss_report(exporter.name, exporter.coverage, bundles, ctx)
    report.skipped = list(skipped)
    if strict and report.lossy:
        raise ExportRefused(f"--strict: the {fmt} export would lose values of {', '.join(report.lost_fields())}",
                            path=out)
    folder = exporter.directory or any(f.name and not f.name.startswith(".") for f in files)
    rpath = report_path(out, folder)
    targets = [_target(out, f, folder) for f in files]
    if not _ours(rpath):
        taken = [p for p in [*targets, rpath] if p.exists() or p.is_symlink()]
        if folder and out.exists() and not out.is_dir():
            taken.append(out)
        if taken:
            raise OutputError("exists and was not written by forsy export; not overwritten", path=taken[0])
    try:
        for f, p in zip(files, targets, strict=True):
            _write(p, f.data)
        _write(rpath, orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2) + b"\n")
    except OSError as e:
        raise OutputError(e.strerror or str(e), path=out) from None
    return ExportResult(fmt, [*targets, rpath], report, len(bundles), given - len(bundles))


def coverage_of(fmt: str) -> dict[str, Cover]:
    return dict(load(fmt).coverage)
