"""`forsy export`: traces to the formats other tools read, with a loss report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from ..errors import ExitCode, InputError
from ._output import path_arg, safe, say

if TYPE_CHECKING:
    from ..export import Bundle


def export_cmd(
    traces: Annotated[list[Path] | None, typer.Argument(help="Trace folders (or trace.json files) to export.",
                                                        show_default=False, parser=path_arg)] = None,
    to: Annotated[str, typer.Option("--to", help="Format: invariant, opentraces, atif, openai, hf or otlp.")] = "",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="The file (or folder, for hf and for "
                                                "several invariant/atif traces) to write.", parser=path_arg)] = None,
    from_store: Annotated[str | None, typer.Option("--from-store", help="Export the store's traces matching this "
                                                   "full-text query ('*' for all).")] = None,
    store: Annotated[str | None, typer.Option("--store", help="Store URL (default: FORSY_STORE, the config file, "
                                              "else the data folder).")] = None,
    status: Annotated[str | None, typer.Option("--status", help="With --from-store: the drafts of this status "
                                               "(pending, needs_changes, rejected: drafts no person approved, "
                                               "exported only when asked so). Default: the approved traces.")]
    = None,
    approved_only: Annotated[bool, typer.Option("--approved-only", help="Only traces a review approved (always so "
                                                "with --from-store unless --status says otherwise).")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse an export that would lose values (see the loss "
                                         "report).")] = False,
    dataset: Annotated[str | None, typer.Option("--dataset", help="invariant: the dataset name of the upload JSON.")]
    = None,
    all_versions: Annotated[bool, typer.Option("--all-versions", help="With --from-store: also the approvals of "
                                               "a session's older drafts when a later one was approved too "
                                               "(by default a session is exported once, as last approved).")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the loss report as JSON.")] = False,
) -> None:
    """Export traces to a format other tools read; writes a loss report beside the output.
    A trace that cannot be read is left out and named (exit 7); with --strict, nothing is written."""
    from ..export import ExportOptions, export, formats, load_folder, load_store

    if to not in formats():
        raise InputError(f"--to must be one of {', '.join(sorted(formats()))}" + (f" (got {to!r})" if to else ""))
    if output is None:
        raise InputError("-o PATH is required")
    if bool(traces) == bool(from_store):
        raise InputError("give trace folders or --from-store QUERY (one of the two)")
    skipped: list[tuple[str, str]] = []  # traces that could not be read: (where, why)
    if from_store:
        from ..store import DRAFT_STATUSES, TraceQuery
        from ._output import store_url

        if status is not None and status not in DRAFT_STATUSES:
            raise InputError(f"--status must be one of {', '.join(DRAFT_STATUSES)}")
        text = None if from_store.strip() in ("*", "") else from_store
        # A store holds drafts no person has confirmed: what leaves it is what a review approved
        # (the traces reviews made; nothing else is even loaded), unless --status names drafts
        unreviewed = status not in (None, "approved") and not approved_only
        # drafts: as the queue shows them, never one a later draft of its session replaced (an
        # older state of a log that grew or was rewritten: the same work, exported once)
        query = TraceQuery(text=text, status=status, latest_only=True) if unreviewed \
            else TraceQuery(text=text, reviewed=True)
        bundles = load_store(store_url(store), query, skipped)
        if not unreviewed and not all_versions:  # a session that grew and was approved again: its last approval
            bundles, older = _last_approvals(store_url(store), bundles)
            if older:
                say(f"forsy: {older} approval(s) of older drafts left out: a later draft of the same session was "
                    "approved too (--all-versions exports them)", err=True)
        if not bundles and not skipped and not unreviewed:
            raise InputError("no approved trace to export: a store's drafts leave it once a person approves them "
                             "(forsy review); --status pending exports drafts no person has approved")
        if unreviewed and bundles:
            say(f"forsy: warning: {len(bundles)} draft(s) no person has approved (--status {status}) are exported",
                err=True)
    else:
        bundles = []
        for p in traces or []:
            try:
                bundles.append(load_folder(p))
            except InputError as e:
                skipped.append((str(e.path or p), e.message))
    if skipped and (strict or not bundles):
        where, why = skipped[0]
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        raise InputError(f"{why}{more}" + ("; --strict: nothing exported" if strict and bundles else ""),
                         path=Path(where))
    res = export(bundles, to, output, strict=strict, options=ExportOptions(approved_only=approved_only,
                                                                            dataset=dataset), skipped=skipped)
    for where, why in skipped:  # an error each, printed under --quiet too
        typer.echo(f"forsy: skipped: {safe(where)}: {safe(why)}", err=True)
    if as_json:
        sys.stdout.write(orjson.dumps(res.report.as_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
        if skipped:
            raise typer.Exit(ExitCode.PARTIAL)
        return
    lost = res.report.lost_fields()
    twice = f" ({res.duplicates} given twice: exported once)" if res.duplicates else ""
    say(f"{res.paths[0]}: {res.traces} trace(s) as {to}{twice}; " + (f"lost: {', '.join(lost)}" if lost
                                                                       else "nothing lost"))
    say(f"loss report: {res.paths[-1]}")
    if skipped:
        raise typer.Exit(ExitCode.PARTIAL)


def _last_approvals(url: str, bundles: list[Bundle]) -> tuple[list[Bundle], int]:
    """`bundles` (approvals) without those of drafts a later approved draft of their session replaced."""
    from ..review.lineage import superseded_approvals
    from ..store import open_store

    st = open_store(url, create=False)
    try:
        older = superseded_approvals(st)
    finally:
        st.close()
    kept = [b for b in bundles if b.trace.trace_id not in older]
    return kept, len(bundles) - len(kept)


__all__ = ["export_cmd"]
