"""`StoreSink`: the sink of a run or a sweep that keeps each trace as a pending draft in a store."""

from __future__ import annotations

import re
from dataclasses import replace

import orjson

from ..assemble import Assembled
from ..evidence import Session
from ..sinks.folder import render
from . import Store
from .models import NewTrace, StoredFile


class StoreSink:
    """Writes each trace (all its folder files, compressed) as a pending draft and returns
    its trace id. A trace already stored (same id: same sources, same bytes) is not stored
    twice. A new trace of a session already in the store links the previous draft
    (`prior_trace_id`, a column of the store: trace.json itself is left as forsy wrote it): the
    newest draft of the same session whichever sweeper made it, never the trace an approval made
    (`Store.prior_draft_id` says what is the same session).

    `already` holds the ids of the traces it found stored already (a copy of a session file
    under another name reads to the same trace), so the sweep can say why no draft was written;
    `behind` (new trace id, the stored draft) each copy of a session lagging behind a draft of it
    read from another file (`add_draft`), not queued.

    `files_read` collects the local path of every file the sessions were read from (a Claude
    session's subagent files too), so the sweep can watch them all.
    """

    def __init__(self, store: Store, *, now: str, unit_path: str | None = None, run_id: int | None = None) -> None:
        self.store = store
        self.now = now
        self.unit_path = unit_path
        self.run_id = run_id
        self.files_read: set[str] = set()
        self.written = 0
        self.already: list[str] = []
        self.behind: list[tuple[str, str]] = []

    def write(self, assembled: Assembled, session: Session) -> str:
        self.files_read.update(f.abs_path for f in session.files)
        unit = self.unit_path or (session.files[0].abs_path if session.files else session.session_id)
        t = assembled.trace
        files = render(assembled)
        new = NewTrace(
            trace_id=t.trace_id, source_kind=session.source_kind, session_id=session.session_id, unit_path=unit,
            agent=session.meta.agent or None,
            project=project_name(session.meta.cwd) if session.meta.cwd else None,
            started_at=t.started_at, ended_at=t.ended_at, confidence=t.summary.agent_confidence,
            steps=t.summary.total_steps, turns=t.summary.total_turns, task=t.task,
            files=[StoredFile(name, data) for name, data in sorted(files.items())],
            texts=search_texts(assembled), run_id=self.run_id, model_values=model_values(assembled))
        added = add_draft(self.store, new, self.now)
        if added is True:
            self.written += 1
            from .queue_rules import dismiss_matching

            dismiss_matching(self.store, now=self.now, trace_ids=[t.trace_id])  # the queue's rules, remembered
        elif added is False:
            self.already.append(t.trace_id)
        else:
            self.behind.append((t.trace_id, added))
        return t.trace_id


def add_draft(store: Store, new: NewTrace, now: str) -> bool | str:
    """Store `new` as a pending draft linked to the draft it replaces (`Store.prior_draft_id`),
    the lookup and the insert in one transaction: on PostgreSQL another sweeper drafting the
    same session at the same time waits for this one and links it. False when already stored.

    Copies of one session read from other files (a folder still syncing, a backup, another
    machine's older copy, one made without a subagent's file: `Store.copies`) whose steps are all
    among another's, in order, are one session, one of them lagging (`_begins`):
    - `new` lagging behind a stored draft is not stored (that draft holds all its steps); the
      stored draft's id is returned. Queued, it looked like the session's newest draft (its link
      pointed at an older one), and a reviewer could publish the older state beside the fuller.
    - `new` ahead of a stored copy, with no draft of its own file before it, replaces that copy's
      draft (its prior), which leaves the queue as any replaced draft does."""
    with store.transaction():
        # the new trace's steps are parsed only when there is a copy to compare (a large session's
        # trace.json, parsed for every draft, would cost its time and its memory at the peak)
        fuller = store.copies(new, fuller=True)
        prior = store.prior_draft_id(new)
        behind = store.copies(new, fuller=False) if prior is None else []
        if fuller or behind:
            mine = _steps([f.data for f in new.files if f.name == "trace.json"])
            for f in fuller:
                if _begins(mine, _stored_steps(store, f)):
                    return f
            prior = next((c for c in behind if _begins(_stored_steps(store, c), mine)), None)
        return store.add_trace(replace(new, prior_trace_id=prior), now)


def _begins(short: list[tuple[object, ...]] | None, long: list[tuple[object, ...]] | None) -> bool:
    """Whether the steps `short` (fewer) are all among the steps `long`, in their order: each
    step's actor, action, tool, input and start the same, and its output, but for the last of
    `short`, whose output a copy cut mid-call may not hold yet. In order, not only first: a copy
    made without a subagent's file lacks that subagent's steps in its middle."""
    if short is None or long is None or not short or len(short) >= len(long):
        return False
    it, last = iter(long), len(short) - 1
    for i, a in enumerate(short):
        if not any(a[:-1] == b[:-1] and (i == last or a[-1] == b[-1]) for b in it):
            return False
    return True


_STEP_KEYS = ("actor", "action", "tool", "input", "started_at", "output")


def _stored_steps(store: Store, trace_id: str) -> list[tuple[object, ...]] | None:
    return _steps([f.data for f in store.trace_files(trace_id) if f.name == "trace.json"])


def _steps(data: list[bytes]) -> list[tuple[object, ...]] | None:
    """The steps of a trace.json, each as the values `_begins` compares (None: no steps list)."""
    if len(data) != 1:
        return None
    steps = orjson.loads(data[0]).get("steps")
    if not isinstance(steps, list):
        return None
    return [tuple(s.get(k) for k in _STEP_KEYS) if isinstance(s, dict) else (s,) for s in steps]


_HOME = re.compile(r"^(?:[A-Za-z]:)?(?:/.*)?/(?:home|Users)/[^/]+(?P<rest>/.*)?$")
_PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*_\d+\]")


def project_name(cwd: str) -> str:
    """The project a session worked in, as a person reads it: its folder from the home folder
    (`~/work/api`, so two folders named `api` stay apart), else its whole path; a part the
    redactor masked (the home user's name in a folder's name) is `…`, never a placeholder."""
    path = cwd.replace("\\", "/").rstrip("/") or "/"
    m = _HOME.match(path)
    name = "~" + (m.group("rest") or "") if m else path
    return _PLACEHOLDER.sub("…", name)


def model_values(a: Assembled) -> int:
    """How many of the trace's values a model proposed (each awaits a reviewer's decision)."""
    fields = [*a.provenance.trace_fields.values(), *(f for sp in a.provenance.steps for f in sp.fields.values())]
    return sum(1 for f in fields if f.origin == "model")


def search_texts(a: Assembled) -> list[tuple[str, str]]:
    """What full-text search looks in: the task, the user's prompts and the tool inputs."""
    out = [("task", a.trace.task)]
    for s in a.trace.steps:
        if s.input is None:
            continue
        if s.action == "user_message":
            out.append(("prompt", s.input))
        elif s.tool is not None:
            out.append(("tool_input", s.input))
    return out
