"""The pages of a refused action: an edit refused (what was typed shown back, masked, in the
field's own form with the reason beside it) or in conflict (what changed, and by whom), in the
words of the form it came from: a field by its label on the page, a step by its number and
title, never a proposal path."""

from __future__ import annotations

from starlette.responses import Response

from ..errors import ForsyError, RedactionError
from ..review.actions import OPEN, ChangedSince
from ..review.labels import field_label
from ..review.lineage import decided_in_full, last_decision
from ..review.overlay import current_value, value_hint
from ..review.redacted import TypedMasker
from ..review.since import Change, changes_since
from ..review.source import LoadedTrace, from_store
from ..review.view import value_text
from ..store import ReviewConflict, Store
from .guard import Settings, render_page

_DECIDED = {"approve": "approved it", "reject": "rejected it", "needs_changes": "marked it as needing changes"}


def decision(st: Store, tid: str) -> str | None:
    """The last decision on draft `tid`, said whole: what, by whom, when, and the reason or the
    note (stored masked) or the level it was published at; None when none was made."""
    last = last_decision(st, tid)
    return decided_in_full(last) if last is not None else None


def closed(d: LoadedTrace) -> bool:
    """Whether draft `d` takes no more edits: decided (approved, rejected), the result of a
    review, or replaced by a later draft of its session."""
    return d.state is None or d.state.review_of is not None or d.state.status not in OPEN or bool(d.replaced_by)


def closed_words(st: Store, d: LoadedTrace) -> str:
    """Why draft `d` takes nothing more, for the page of an action refused for it: who decided
    what and when (a page loaded before that still offered the action)."""
    if d.state is not None and d.state.review_of is None and d.state.status not in OPEN:
        said = decision(st, d.trace_id)
        if said is not None:
            return (f"Nothing was written: after this page was loaded, the draft was {said}. "
                    f"{'An' if d.state.status[0] in 'aeiou' else 'A'} {d.state.status} draft takes no more edits "
                    "or decisions.")
    return ""


def refused_edit(s: Settings, st: Store, tid: str, e: ForsyError, *, path: str, step: int | None, field: str,
                 typed: str, version: int, back: str) -> Response:
    """The page of an edit refused with `e`: the reason, the value typed (masked as a saved
    edit's would be), and, unless it is a conflict, the field's form again to correct it and
    save from there (a conflict is saved again only after the reviewer has seen what changed)."""
    conflict = isinstance(e, ReviewConflict)
    d = from_store(st, tid)  # as it is now: after a conflict, with the other's edit
    label = field_label(d, path) if field else ""
    # a refusal's own words may quote what was typed: masked with it; a conflict's are made of
    # what the store holds (names of reviewers, labels), shown as every page shows them
    shown, detail = shown_back(st, d, typed, _named(e.message, path, label))
    if conflict:
        detail = _conflict_words(e, label) + ("" if shown is not None else f" ({detail})")
    now = None
    if isinstance(e, ChangedSince) and e.field is not None:
        value = current_value(d.trace, path)
        now = value_text(value) or ""  # spelled as the trace's JSON spells it (`true`, `{"a": 1}`)
    shut = closed(d)  # decided since, or replaced: saved again it would be refused again, so not offered
    decided = closed_words(st, d) if shut else ""
    retry = None if conflict or shown is None or shut else dict(action=f"/t/{tid}/edit", version=version,
                                                                step=step or "", hint=value_hint(step, field))
    if decided:
        return render_page(s, "error.html", 409, title="Decided", heading="Not saved: the draft was decided",
                           detail=decided, back=back, typed=shown, masked=shown != typed, field=field, label=label,
                           retry=None, now=None)
    return render_page(s, "error.html", 409 if conflict else 400, title="Conflict" if conflict else "Refused",
                       heading="Conflict: someone acted first" if conflict else "Refused", detail=detail, back=back,
                       typed=shown, masked=shown != typed, field=field, label=label, retry=retry, now=now)


def closed_page(s: Settings, st: Store, tid: str) -> Response | None:
    """The page of a confirm, decline or decision on a draft decided since its page was loaded:
    who decided what and when (None when the draft is not decided: the refusal is another)."""
    words = closed_words(st, from_store(st, tid))
    if not words:
        return None
    return render_page(s, "error.html", 409, title="Decided", heading="Not done: the draft was decided",
                       detail=words, back=f"/t/{tid}", typed=None)


def conflict_page(s: Settings, st: Store, tid: str, e: ReviewConflict, version: int, path: str = "") -> Response:
    """The page of a confirm, decline or decision refused as a conflict: why, and what was done
    to the draft since the page was loaded (a decision is made on the draft as seen)."""
    d = from_store(st, tid)
    words = _conflict_words(e, field_label(d, path) if path else "")
    assert d.state is not None
    since = changes_since(st, tid, version, d.state.version)
    return render_page(s, "error.html", 409, title="Conflict", heading="Conflict: someone acted first",
                       detail=words, back=f"/t/{tid}", typed=None,
                       changes=[said(d, c) for c in since or []] if not isinstance(e, ChangedSince) else [])


def said(d: LoadedTrace, c: Change) -> str:
    """One action since the page was loaded, in a reviewer's words."""
    if c.action == "edit" and c.path is not None:
        return f"{c.actor} set {field_label(d, c.path)} at {c.at}"
    return f"{c.actor} {_DECIDED.get(c.action, c.action)} at {c.at}"


def _conflict_words(e: ForsyError, label: str) -> str:
    if isinstance(e, ChangedSince):
        c = e.change
        if e.field is not None:
            return (f"{label} changed since it was read: {c.actor} set it at {c.at}, after this page was loaded. "
                    "Nothing was written: what it holds now and what you typed are below.")
        return (f"This draft changed since it was read: {c.actor} {_DECIDED.get(c.action, c.action)} at {c.at}, "
                "after this page was loaded. Nothing was written; look at it again.")
    return e.message


def _named(message: str, path: str, label: str) -> str:
    """A refusal's words with the field named as the page names it (the review's own words
    name the path a terminal user typed)."""
    return message.replace(path, f"“{label}”") if label and not path.startswith("/steps/") else message


def shown_back(st: Store, d: LoadedTrace, typed: str, why: str) -> tuple[str | None, str]:
    """What the page refusing an edit shows: the value typed and the reason (which may quote
    it), masked as a saved edit is (a value the draft holds by its placeholder, a new one
    numbered after the draft's own), so a pasted token never appears on a page. When it
    cannot be scanned, neither is shown."""
    try:
        masker = TypedMasker.of(st, d)
        return masker.mask(typed), masker.mask(why)
    except RedactionError:  # fail closed: what cannot be masked is not shown
        return None, "the edit was not saved; what you typed is not shown (it could not be scanned for secrets)"


__all__ = ["closed", "closed_page", "conflict_page", "decision", "refused_edit", "said", "shown_back"]
