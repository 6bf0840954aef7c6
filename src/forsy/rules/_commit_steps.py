"""What a commit says on its step: the branches holding it, the bytes of the log that named it,
and the amend that redid it (the segmenter's `_on_commit` and its last pass use these).

* R-commit/branches: the state change names the branches whose history holds the commit, as
  git reported them when the repository was read (`CommitInfo.branches`); "on no branch"
  when only a reflog holds it (amended or rebased away); nothing when branches were not
  asked (a patch file, one revision read).
* R-commit/named: a commit the log names (G-named-*) cites the result that named it: the
  evidence id, the pointer of the result's text and [start, end) of the name in it, both in
  the rule's parameters and in the provenance `matches` entry (`named_by`).
* R-commit/amend: the call whose `git commit --amend` replaced a named commit (the timeline's
  `named_commits[].amended_by`) redoes the step of the call that made it: `retry_of` (the
  spec's "retries, corrects, or redoes"), with that step added to `caused_by`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..evidence import Event, Ref
from ..models import FieldProvenance
from ..payloads import CommitInfo, Match

if TYPE_CHECKING:  # segment imports this module: the draft type only, for mypy
    from .draft import Draft

Params = dict[str, str | int | float]
Derive = Callable[..., FieldProvenance]  # segment.derived(rule, refs, **params)


BRANCHES_SHOWN = 10  # a repository with hundreds of remote branches: the rest are counted, not listed


def on_branches(branches: list[str] | None) -> str | None:
    """", on branches a, b" (R-commit/branches); None when the branches were not asked."""
    if branches is None:
        return None
    if not branches:
        return ", on no branch (only a reflog holds it)"
    names = ", ".join(branches[:BRANCHES_SHOWN])
    if len(branches) > BRANCHES_SHOWN:
        names += f" and {len(branches) - BRANCHES_SHOWN} more"
    return f", on branch{'es' if len(branches) > 1 else ''} {names}"


@dataclass(frozen=True, slots=True)
class Said:
    """A value for the step, the rule (ids joined by '+') and parameters it is derived by, and its evidence."""

    text: str
    rule: str
    params: Params
    refs: list[Ref]


def recorded(info: CommitInfo, e: Event) -> Said:
    """The state change of a commit's own step (no call made it, as far as the log says)."""
    where = on_branches(info.branches)
    if info.sha is None:  # a plain diff: what changed is known, no commit is named
        text = f"A change to {_files_said(info)} was read from a patch; it names no commit."
        return Said(text, "R-commit", {}, e.refs)
    text = f"Commit {info.sha[:12]} was recorded in the repository{where or ''}."
    return Said(text, "R-commit" + ("+R-commit/branches" if where else ""), {}, e.refs)


def _files_said(info: CommitInfo) -> str:
    files = [str(f.get("path")) for f in info.files]
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return f"{len(files)} file(s) ({shown})" if files else "no file named"


def _named(match: Match | None) -> tuple[str, str, tuple[int, int]] | None:
    if match is None or match.evidence is None or match.pointer is None or match.span is None:
        return None
    return match.evidence, match.pointer, match.span


def matched(info: CommitInfo, e: Event, step: int) -> tuple[Said, dict[str, Any]]:
    """The state change of the step of the call the commit was matched to, and the provenance
    `matches` entry (with `named_by` when the log named the commit)."""
    match = info.match
    sha = str(info.sha)
    files = [str(f.get("path")) for f in info.files]
    where = on_branches(info.branches)
    text = (f"Commit {sha[:12]} records this change ({len(files)} file(s): {', '.join(files[:5])}){where or ''}."
            if info.sha is not None else f"A patch naming no commit records this change ({_files_said(info)}).")
    params: Params = {"match": str(match.rule if match else None), "score": _num(match.score if match else None)}
    refs = list(e.refs[:1])
    evidence = [r.ev for r in e.refs[:1]]
    entry: dict[str, Any] = {"kind": "commit", "step": step, "sha": info.sha, "rule": match.rule if match else None,
                             "score": match.score if match else None, "evidence": evidence, "uncertain": False,
                             "files": files, "branches": info.branches}
    rule = "R-commit/match"
    named = _named(match)
    if named is not None and match is not None:
        ev, pointer, (start, end) = named
        rule = "R-commit/named"
        params.update(named_in=ev, pointer=pointer, span_start=start, span_end=end)
        refs.append(Ref(ev, pointer))
        evidence.append(ev)
        entry["named_by"] = {"evidence": ev, "pointer": pointer, "span": [start, end]}
        if match.inner_pointer is not None:
            entry["named_by"]["inner_pointer"] = match.inner_pointer
    return Said(text, rule + ("+R-commit/branches" if where else ""), params, refs), entry


def _num(v: object) -> str | int | float:
    return v if isinstance(v, int | float) and not isinstance(v, bool) else str(v)


# --- amends -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Amend:
    """The call that amended (`by`) and the call that made the amended commit (`made`)."""

    made: str
    by: str
    amended: str  # the sha as the log wrote it
    amended_as: str
    refs: list[Ref]  # the two results that named the commits


def amends(timeline: object) -> list[Amend]:
    """The amends of the timeline's `named_commits` (records written by forsy.rules.commits)."""
    records = timeline.get("named_commits") if isinstance(timeline, dict) else None
    if not isinstance(records, list):
        return []
    recs = [r for r in records if isinstance(r, dict)]
    out: list[Amend] = []
    for r in recs:
        made, by, named, new = r.get("call_id"), r.get("amended_by"), r.get("named"), r.get("amended_as")
        if not (isinstance(made, str) and isinstance(by, str) and isinstance(named, str) and isinstance(new, str)):
            continue
        amending = next((x for x in recs if x.get("call_id") == by and x.get("named") == new), None)
        refs = [Ref(str(x["evidence"]), str(x.get("pointer") or "")) for x in (r, amending)
                if x is not None and isinstance(x.get("evidence"), str)]
        out.append(Amend(made, by, named, new, refs))
    return out


def link_amends(drafts: list[Draft], calls: dict[str, int], timeline: object, derived: Derive) -> None:
    """R-commit/amend on the drafts: the amending call's step redoes the step that made the
    amended commit. A retry R-retry already found stands (one `retry_of` per step); a link
    that would point forward (the log's calls out of order) is not made."""
    for a in amends(timeline):
        made, by = calls.get(a.made), calls.get(a.by)
        if made is None or by is None or made >= by or drafts[by].values.get("retry_of") is not None:
            continue
        d, n = drafts[by], made + 1
        before = list(d.values.get("caused_by") or [])
        cb = sorted(set(before) | {n})
        prov = derived("R-commit/amend", a.refs, amended_step=n, amended=a.amended, amended_as=a.amended_as)
        d.set("retry_of", n, prov)
        if cb != before:
            d.set("caused_by", cb, prov)
            d.set("causal_type", "dependency_on_multiple_prior_steps" if len(cb) > 1 else "other", prov)
        d.set("causal_note", f"Redoes step {n}: amends the commit {a.amended} it made (now {a.amended_as}, "
              f"git commit --amend); caused by step(s) {', '.join(map(str, cb))}.", prov)
