"""Assemble: the segmenter's drafts (and accepted proposals) into a Trace, its Provenance and its
Manifest, as one pure function.

    a = assemble(session, drafts, release_tier="research_preview", redaction=report)
    a.trace, a.provenance, a.manifest, a.files

`build` assembles; `score` gives the confidence and its factors; `ledger` accounts for every
record read; `artifacts` holds files the work wrote.
"""

from __future__ import annotations

from .build import Assembled, assemble, termination

__all__ = ["Assembled", "assemble", "termination"]
