"""The review queue: read a draft, check it against its evidence, correct it, confirm it.

    d = source.load("forsy_…", store_url)                 # a stored draft (or a trace folder)
    actions.edit(store, tid, "/steps/3/reasoning", "…", reviewer=who, at=now, expected_version=v)
    actions.approve(store, tid, "human_reviewed", reviewer=who, at=now)   # -> the reviewed trace's id
    export.export_approved(store, Path("dataset"))

Edits are proposals of origin `human` laid over the stored draft (`overlay`), never changes to
it; an approval stores a new trace (new id, `prior_trace_id` = the draft, the level chosen,
the reviewer in the provenance of every edited field). Every action is in the store's audit
log. The CLI (`forsy review …`, `forsy show`, `forsy render`) and the web app (`forsy.web`)
are thin layers over these modules.
"""

from __future__ import annotations

from .actions import Done, approve, edit, needs_changes, reject
from .evidence import EvidenceReader
from .export import Exported, export_approved
from .identity import reviewer
from .overlay import REVIEW_LEVELS, STEP_EDITABLE, TRACE_EDITABLE, apply_to_trace, field_path, reviewed_folder
from .source import LoadedTrace, load

__all__ = ["REVIEW_LEVELS", "STEP_EDITABLE", "TRACE_EDITABLE", "Done", "EvidenceReader", "Exported",
           "LoadedTrace", "apply_to_trace", "approve", "edit", "export_approved", "field_path", "load",
           "needs_changes", "reject", "reviewed_folder", "reviewer"]
