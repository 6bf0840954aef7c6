"""The review actions: edit a field, approve at a level, reject with a reason, ask for changes.

Each is one `Store.record_review` call, written together with its audit record (who, when,
what, and the sha256 of the draft's trace.json with its edits before and after). Only drafts
from the sweep are reviewed; a reviewed trace is the result, not a new draft.

A decision (approve, reject, needs changes) is refused with `ReviewConflict` when the draft
moved on since the version it was decided on (`expected_version`): approving what one has not
seen is worse than a conflict. An edit (and a confirm or decline, which set one field) is saved
when its field is as it was at the version the form was loaded at: other fields edited since
(another tab, another reviewer on another step) are not its conflict. It is refused
(`ChangedSince`) when its own field was set since, or the draft was decided or replaced since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson

from ..errors import InputError
from ..models import Trace
from ..proposals import Proposal, StepPath, Value, parse_path
from ..store import (
    DraftState,
    NewProposal,
    NewTrace,
    ReviewAction,
    ReviewChange,
    ReviewConflict,
    Store,
    StoredFile,
)
from .overlay import (
    Json,
    current_value,
    effective,
    effective_sha256,
    human_proposal,
    parse_value,
    proposal_json,
    reviewed_folder,
    trace_bytes,
)
from .redacted import TypedMasker
from .since import Change, changes_since, same_field
from .source import LoadedTrace, from_store

if TYPE_CHECKING:
    from ..validation import Finding

OPEN = ("pending", "needs_changes")  # a draft in these states can still be edited, approved or rejected
# An edit sets its field on the draft as it is when saved: another reviewer's action between
# reading the draft and saving is not the reviewer's conflict to resolve, so the edit is read
# and saved again (each edit keeps the value it replaced, so an edit of the same field by two
# reviewers without versions leaves both in the history; with a version, the field is checked
# again against it each time). Approvals and the other status actions decide on the draft as
# read: they are never retried.
UNPINNED_TRIES = 20


class Lasting(ReviewConflict):
    """A conflict that reading the draft again does not resolve (it was replaced, or the
    edit's field changed since its form was loaded): refused at once, never tried again."""


class ChangedSince(Lasting):
    """An edit refused because of `change`, an action since the version its form was loaded
    at: an edit of the same field (`field` is the edit's path), or a decision (`field` None)."""

    def __init__(self, message: str, *, field: str | None, change: Change) -> None:
        super().__init__(message)
        self.field, self.change = field, change


@dataclass(frozen=True)
class Done:
    state: DraftState
    reviewed_trace_id: str | None = None


def _open_draft(store: Store, trace_id: str, expected_version: int | None, *,
                closing: bool = False) -> tuple[LoadedTrace, int]:
    """The draft, open for a review action; `closing`: a rejection, which a draft a later one
    replaced may still take (nothing is published or lost by it)."""
    d = from_store(store, trace_id)
    state = d.state
    assert state is not None
    if state.review_of is not None:
        raise InputError(f"trace {trace_id} is the result of a review (of draft {state.review_of}), not a draft")
    if state.status not in OPEN:
        extra = f"; it was reviewed as {state.reviewed_as}" if state.reviewed_as else ""
        # someone decided it: a conflict with that decision (exit 9), as when the decision lands
        # while this action is being saved, not input forsy cannot use
        raise Lasting(f"trace {trace_id} is {state.status}{extra}: only pending drafts and drafts needing "
                      "changes are reviewed")
    later = store.trace(d.replaced_by) if d.replaced_by and not closing else None
    if later is not None:  # an edit would be lost with it, an approval publish what the log no longer says
        raise Lasting(f"draft {trace_id} was replaced by {later.trace_id} ({later.steps} steps), traced again "
                      "when its log changed: review that one (what was done on this draft is not carried over; "
                      "the new draft lists it)")
    return d, state.version if expected_version is None else expected_version


def _detail(**kw: object) -> str:
    return orjson.dumps({k: v for k, v in kw.items() if v is not None}).decode()


def edit(store: Store, trace_id: str, path: str, text: str, *, reviewer: str, at: str,
         expected_version: int | None = None) -> Done:
    """Set one field of a draft (a human proposal; the draft's stored files are not touched)."""
    def once(d: LoadedTrace, version: int) -> Done:
        value = parse_value(path, text)
        masker = TypedMasker.of(store, d) if isinstance(value, str) else None
        if masker is not None and isinstance(value, str):
            value = masker.mask(value)  # a pasted token is never stored, nor published
        return _record_edit(store, d, version, path, value, reviewer=reviewer, at=at, masker=masker)
    return _field_action(store, trace_id, path, expected_version, once)


def _field_action(store: Store, trace_id: str, path: str, expected_version: int | None,
                  once: Callable[[LoadedTrace, int], Done]) -> Done:
    """`once(draft, version)` on the draft as it is now, when `path` is as it was at
    `expected_version` (`edit_version`); read and tried again while another action comes
    first between reading the draft and saving."""
    def attempt() -> Done:
        d, _ = _open_draft(store, trace_id, None)
        return once(d, edit_version(store, d, path, expected_version))
    for _ in range(UNPINNED_TRIES - 1):
        try:
            return attempt()
        except Lasting:
            raise
        except ReviewConflict:
            continue  # another action came first: read the draft again
    return attempt()


def edit_version(store: Store, d: LoadedTrace, path: str, expected_version: int | None) -> int:
    """The version an edit of `path` on draft `d` is saved at: the draft's own, when no action
    since `expected_version` (the version its form was loaded at; None: any) set the same
    field or decided the draft. Else `ChangedSince` names the action; a history the audit log
    does not account for is a plain conflict (read again; as before, when in doubt)."""
    assert d.state is not None
    now = d.state.version
    if expected_version is None or expected_version == now:
        return now
    changes = changes_since(store, d.trace_id, expected_version, now)
    if changes is None:
        raise ReviewConflict(f"trace {d.trace_id} changed since it was read (version {expected_version}, now "
                             f"{now}): another review action came first; nothing was written, look again")
    for c in changes:
        if c.action != "edit" or c.path is None:
            what = {"approve": "approved", "reject": "rejected", "needs_changes": "marked as needing changes"}
            raise ChangedSince(f"trace {d.trace_id} changed since it was read (version {expected_version}, now "
                               f"{now}): {c.actor} {what.get(c.action, c.action)} it at {c.at}; nothing was "
                               "written, look again", field=None, change=c)
        if same_field(c.path, path):
            raise ChangedSince(f"{path} changed since it was read (version {expected_version}, now {now}): "
                               f"{c.actor} set it at {c.at}; nothing was written, look again", field=path,
                               change=c)
    return now


def confirm(store: Store, trace_id: str, path: str, *, reviewer: str, at: str,
            expected_version: int | None = None) -> Done:
    """Keep a value as it is, as the reviewer's decision (a model's proposal accepted, a rule's
    judgement confirmed): an edit to the same value, whose provenance names the reviewer and
    what the value was (origin, rule)."""
    _a_field(path)

    def once(d: LoadedTrace, version: int) -> Done:
        value = current_value(d.trace, path)
        if value is None:
            raise InputError(f"{path} is null: nothing to confirm; give it a value")
        as_text = str(value).lower() if isinstance(value, bool) else str(value)
        return _record_edit(store, d, version, path, parse_value(path, as_text), reviewer=reviewer, at=at)
    return _field_action(store, trace_id, path, expected_version, once)


def decline(store: Store, trace_id: str, path: str, *, reviewer: str, at: str,
            expected_version: int | None = None) -> Done:
    """Decline a value a model proposed: the field is null again, as before the model pass.
    Only model values are declined this way (other fields are corrected by an edit)."""
    _a_field(path)

    def once(d: LoadedTrace, version: int) -> Done:
        if not model_proposed(d, path):
            raise InputError(f"{path} was not proposed by a model; correct it with an edit")
        return _record_edit(store, d, version, path, None, reviewer=reviewer, at=at)
    return _field_action(store, trace_id, path, expected_version, once)


def _a_field(path: str) -> None:
    """A path that names no field of the trace is the caller's mistake, said as one (it was a
    ValueError: an internal error to whoever called)."""
    try:
        parse_path(path)
    except ValueError:
        raise InputError(f"{path!r} names no field of the trace (a step field is /steps/N/<field>)") from None


def model_proposed(d: LoadedTrace, path: str) -> bool:
    where = parse_path(path)
    if isinstance(where, StepPath):
        fp = (d.step_provenance(where.step).get("fields") or {}).get(where.field) or {}
    else:
        fp = (d.provenance.get("trace_fields") or {}).get(where) or {}
    return isinstance(fp, dict) and fp.get("origin") == "model"


def _record_edit(store: Store, d: LoadedTrace, version: int, path: str, value: Value | None, *, reviewer: str,
                 at: str, masker: TypedMasker | None = None) -> Done:
    trace_id = d.trace_id
    old = current_value(d.trace, path)
    p = human_proposal(d.trace, path, value, reviewer, at)
    before = effective_sha256(d.files, d.proposals)
    try:
        after_doc = trace_bytes(_applied(d, p))
    except ValueError as e:
        raise InputError(f"{path}: the edited trace would not be valid: {e}") from None
    broken = _breaks(d, p, reviewer=reviewer, at=at)
    if broken:  # saved, it would stand between the draft and every approval
        raise InputError(f"{path}: the edit would break the format's rules ({'; '.join(broken[:3])}); "
                         "nothing was saved")
    value_json, replaced_json = proposal_json(p)
    change = ReviewChange(
        trace_id, version, "edit", reviewer, at,
        proposal=NewProposal(path, value_json, "human", reviewer, replaced_json),
        detail_json=_detail(path=path, value=value, replaced=old, fingerprints=masker.new or None if masker else None),
        before_sha256=before, after_sha256=hashlib.sha256(after_doc).hexdigest())
    return Done(store.record_review(change))


def _breaks(d: LoadedTrace, p: Proposal, *, reviewer: str, at: str) -> list[str]:
    """The rules `forsy validate` would find broken in the approved trace once `p` is applied,
    that it does not find broken without it (what the draft holds already is not the edit's)."""
    from ..validation import validate_files

    def errors(proposals: list[Proposal]) -> list[Finding]:
        files = reviewed_folder(d.files, proposals, level="human_reviewed", reviewer=reviewer, at=at).files
        return validate_files(files).errors

    before = {(f.rule, f.step, f.field, f.message) for f in errors(d.proposals)}
    return [f"{f.rule} {f.message}" for f in errors([*d.proposals, p])
            if (f.rule, f.step, f.field, f.message) not in before]


def _applied(d: LoadedTrace, p: Proposal) -> Json:
    trace, _ = effective(d.files, [*d.proposals, p])
    return trace


def _texts(t: Trace) -> list[tuple[str, str]]:
    """What full-text search finds the reviewed trace by (as the sweep's `search_texts`)."""
    out = [("task", t.task)]
    for s in t.steps:
        if s.input is not None and (s.action == "user_message" or s.tool is not None):
            out.append(("prompt" if s.action == "user_message" else "tool_input", s.input))
    return out


def approve(store: Store, trace_id: str, level: str, *, reviewer: str, at: str,
            expected_version: int | None = None) -> Done:
    """Approve a draft at `level`: the reviewed trace (draft + edits) is checked with
    `forsy validate` and stored as an approved trace pointing back at the draft."""
    d, version = _open_draft(store, trace_id, expected_version)
    assert d.row is not None
    rv = reviewed_folder(d.files, d.proposals, level=level, reviewer=reviewer, at=at)
    _validate(rv.files)
    row = d.row
    a_trace = rv.trace
    new = NewTrace(
        trace_id=rv.trace_id, source_kind=row.source_kind, session_id=row.session_id, unit_path=row.unit_path,
        agent=row.agent, project=row.project, started_at=row.started_at, ended_at=row.ended_at,
        confidence=row.confidence, steps=row.steps, turns=row.turns, task=a_trace.task,
        files=[StoredFile(n, b) for n, b in sorted(rv.files.items())], texts=_texts(a_trace), prior_trace_id=trace_id)
    change = ReviewChange(
        trace_id, version, "approve", reviewer, at, status="approved", reviewed=new, validation_level=level,
        detail_json=_detail(level=level, reviewed_trace_id=rv.trace_id, edits=len(d.proposals)),
        before_sha256=effective_sha256(d.files, d.proposals),
        after_sha256=hashlib.sha256(rv.files["trace.json"]).hexdigest())
    return Done(store.record_review(change), rv.trace_id)


def _validate(files: dict[str, bytes]) -> None:
    from ..validation import validate_files

    report = validate_files(files)
    if report.errors:
        shown = "; ".join(f"{f.rule} {f.message}" for f in report.errors[:3])
        more = f" (and {len(report.errors) - 3} more)" if len(report.errors) > 3 else ""
        raise InputError(f"the reviewed trace does not pass forsy validate: {shown}{more}; nothing was approved")


def _status(store: Store, trace_id: str, action: ReviewAction, status: str, note: str, *, reviewer: str, at: str,
            expected_version: int | None, read_log: bool = True) -> Done:
    d, version = _open_draft(store, trace_id, expected_version, closing=action == "reject")
    if action == "reject" and not note.strip():
        raise InputError("a rejection needs a reason (--reason)")
    masker = TypedMasker.of(store, d, with_log=read_log and bool(note.strip()))
    note = masker.mask(note) if note.strip() else note  # kept in the audit log, shown to others
    digest = effective_sha256(d.files, d.proposals)
    change = ReviewChange(trace_id, version, action, reviewer, at, status=status,  # type: ignore[arg-type]
                          detail_json=_detail(note=note.strip() or None, status_before=d.state and d.state.status,
                                              fingerprints=masker.new or None),
                          before_sha256=digest, after_sha256=digest)
    return Done(store.record_review(change))


def reject(store: Store, trace_id: str, reason: str, *, reviewer: str, at: str,
           expected_version: int | None = None, read_log: bool = True) -> Done:
    """Reject a draft with a reason. `read_log`: mask the reason with the draft's redactor, rebuilt
    from its log (False: one reason for many drafts, which would retrace each; a reason is never
    published, and values typed before keep their placeholders all the same)."""
    return _status(store, trace_id, "reject", "rejected", reason, reviewer=reviewer, at=at,
                   expected_version=expected_version, read_log=read_log)


def needs_changes(store: Store, trace_id: str, note: str, *, reviewer: str, at: str,
                  expected_version: int | None = None) -> Done:
    return _status(store, trace_id, "needs_changes", "needs_changes", note, reviewer=reviewer, at=at,
                   expected_version=expected_version)
