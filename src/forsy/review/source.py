"""A trace to read or review, from a trace folder or the store, with the reviewer's edits applied.

Its evidence is read back from the logs by `review.evidence`; the raw logs stay on the machine
that swept them (the store remembers the session file's path; a folder needs `--logs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..errors import InputError
from ..proposals import Proposal
from ..store import DraftState, Store, TraceRow, swept_on
from .lineage import decision, earlier_work, replacement
from .overlay import Json, effective, stored_proposal


@dataclass
class LoadedTrace:
    trace_id: str
    files: dict[str, bytes]
    trace: Json  # with the reviewer's edits applied
    provenance: Json
    manifest: Json
    roots: list[Path]  # where the logs are looked for (empty: nowhere)
    row: TraceRow | None = None  # set when read from the store
    state: DraftState | None = None
    proposals: list[Proposal] = field(default_factory=list)
    replaced_by: str | None = None  # a stored draft: the later draft of its session that replaced it
    earlier_work: list[tuple[str, str]] = field(default_factory=list)  # its session's earlier drafts: what people did
    decided: str | None = None  # a rejected draft's, or one sent back: that decision, with its reason or note
    swept_on: str | None = None  # the sweeper (host) that stored the draft, when the store says (PostgreSQL)
    _by_step: dict[object, Json] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def steps(self) -> list[Json]:
        steps = self.trace.get("steps")
        return steps if isinstance(steps, list) else []

    def step_provenance(self, n: int) -> Json:
        """The provenance of step `n` (the first entry naming it), or an empty one. Looked up in
        an index built once: a whole-trace page asks for every step (a scan each was quadratic:
        minutes for a trace of thousands of steps)."""
        if self._by_step is None:
            self._by_step = {}
            for sp in self.provenance.get("steps") or []:
                key = sp.get("step") if isinstance(sp, dict) else None
                if isinstance(key, int | float | str):  # what == could match; a list cannot be a key
                    self._by_step.setdefault(key, sp)
        return self._by_step.get(n) or {"step": n, "evidence": [], "fields": {}}


_HOME = re.compile(r"^(?:[A-Za-z]:)?[/\\](?:home|Users)[/\\][^/\\]+(?=[/\\])")


def from_home(path: str) -> str:
    """A path as a page shows it: from the home folder (`~/.claude/…`), never naming the account."""
    return _HOME.sub("~", path, count=1)


def _json(files: dict[str, bytes], name: str) -> Json:
    try:
        doc = orjson.loads(files[name])
    except (KeyError, orjson.JSONDecodeError):
        return {}
    return doc if isinstance(doc, dict) else {}


TRACE_FILES = ("trace.json", "provenance.json", "manifest.json")


def from_folder(path: Path, logs: list[Path] | None = None) -> LoadedTrace:
    if not path.is_dir() and path.name not in TRACE_FILES:
        raise InputError("not a trace folder nor a trace's trace.json", path=path)
    folder = path if path.is_dir() else path.parent
    files: dict[str, bytes] = {}
    for name in TRACE_FILES:
        p = folder / name
        if p.is_file():
            files[name] = p.read_bytes()
    if "trace.json" not in files:
        raise InputError("no trace.json here: give a trace folder or a stored trace id", path=folder)
    try:
        trace = orjson.loads(files["trace.json"])
    except orjson.JSONDecodeError as e:
        raise InputError(f"trace.json is not JSON: {e}", path=folder) from None
    if not isinstance(trace, dict):
        raise InputError("trace.json is not a JSON object", path=folder)
    roots = [r.parent if r.is_file() else r for r in (logs or [])]
    return LoadedTrace(str(trace.get("trace_id")), files, trace, _json(files, "provenance.json"),
                       _json(files, "manifest.json"), roots)


def from_store(store: Store, trace_id: str, logs: list[Path] | None = None) -> LoadedTrace:
    row = store.trace(trace_id)
    if row is None:
        raise InputError(f"no trace {trace_id} in the store {store.url}")
    files = {f.name: f.data for f in store.trace_files(trace_id)}
    proposals = [stored_proposal(p.path, p.value_json, p.origin, p.actor, p.created_at, p.replaced_json)
                 for p in store.proposals(trace_id)]
    trace, prov = effective(files, proposals)
    roots = [r.parent if r.is_file() else r for r in (logs or [])] or [Path(row.unit_path).parent]
    state = store.draft_state(trace_id)
    later = replacement(store, trace_id) if state is not None and state.review_of is None else None
    decided = decision(store, trace_id) if state is not None and state.status in ("rejected", "needs_changes") \
        else None
    # a review's trace is stored by the reviewer's machine: the logs are where its draft was swept
    host = swept_on(store, (state.review_of or trace_id) if state is not None else trace_id)
    return LoadedTrace(trace_id, files, trace, prov, _json(files, "manifest.json"), roots, row, state, proposals,
                       later.trace_id if later is not None else None, earlier_work(store, trace_id), decided, host)


def load(ref: str, store_url: str | None, logs: list[Path] | None = None) -> LoadedTrace:
    """A trace folder (or its trace.json) when `ref` is a path, else a trace id in the store."""
    p = Path(ref)
    if p.exists():
        return from_folder(p, logs)
    if "/" in ref or ref.endswith(".json"):
        raise InputError("no such file or directory", path=p)
    from ..store import open_store

    st = open_store(store_url, create=False)
    try:
        return from_store(st, ref, logs)
    finally:
        st.close()
