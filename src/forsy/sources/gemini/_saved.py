"""Large tool outputs Gemini CLI saved beside its chats, read back.

An output over the limit is cut for the model (fileUtils.ts formatTruncatedToolOutput: "Output
too large. Showing first … For full output see: <file>"; from 2026 context/toolDistillationService.ts
and context/truncation.ts: the cut text, then "\n\nFull output saved to: <file>"), and an old one
is masked to make room (toolOutputMaskingService.ts: "Full output available at: <file>"); the
whole output is in `<project>/tool-outputs/session-<id>/<tool>_<call>.txt`
(saveTruncatedToolOutput; the distiller's `session-` folder is named by its prompt id). The file is
looked for beside the chats only, by the written path's last two parts (it was written where
the CLI ran): a path a log names elsewhere is never opened.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import InputError
from ...evidence import Evidence, Ref, Session, SourceFile
from ...payloads import Persisted, ResultInfo
from .. import ReadContext
from ..lines import read_bytes, sha256, source_name
from ._logs import PROJECT_LOGS

# the writers' words before the file's path (module docstring), the path to the end of its line
SAVED = re.compile(r"(?:For full output see|Full output available at|Full output saved to): ([^\r\n]+?)[ \t]*$",
                   re.M)
FOLDER = "tool-outputs"


def attach_saved(session: Session, path: Path, ctx: ReadContext) -> None:
    """Each cut output's whole text, when its file is beside the chats; else the output is
    counted as truncated (`truncated_outputs`) and its file named (`persisted_path`)."""
    chats = next((p for p in (path.parent, path.parent.parent) if p.name == "chats"), None)
    for e in session.events:
        if e.kind != "tool_result" or not e.text or not isinstance(e.info, ResultInfo):
            continue
        m = SAVED.search(e.text)
        if m is None:
            continue
        e.info.persisted_path = m.group(1)
        f = _saved_file(m.group(1), chats.parent / FOLDER) if chats is not None else None
        if f is None or chats is None:  # (a chat out of Gemini's layout: nothing is beside it)
            session.quality.truncated_outputs += 1
            e.info.persisted_missing = True
            continue
        rel = _name(f, chats, ctx.root)
        try:
            data = read_bytes(f, ctx.limits)
        except InputError as err:  # too large, unreadable: the cut output stands, said
            session.quality.truncated_outputs += 1
            e.info.persisted_missing = True
            session.warn("saved-output-unreadable", f"{rel}: {err.message}", rel, None)
            continue
        ev = Evidence.make(rel, None, 0, data, sha256(data), "tool-output-file")
        session.add_evidence(ev)
        session.mark(ev.id, "metadata", "a call's whole output the CLI saved beside its chats (copied into the "
                     "trace's artifacts)")
        session.files.append(SourceFile(rel, str(f), "gemini", len(data), sha256(data)))
        e.info.persisted = Persisted(ref=Ref(ev.id, ""), text=data.decode("utf-8", "replace"), source=rel,
                                     by="Gemini CLI", folder=f.parent.relative_to(chats.parent).as_posix())


def _name(f: Path, chats: Path, root: Path | None) -> str:
    """The file as evidence names it: relative to the input root when under it; else, the
    input being a `chats/` folder (or a chat in one), under the project folder beside it, as
    `forsy verify` finds it again (`GeminiSource.read_back`)."""
    inside_root = root is not None and f.resolve().is_relative_to(root.resolve())
    return source_name(f, root) if inside_root else PROJECT_LOGS + f.relative_to(chats.parent).as_posix()


def _saved_file(written: str, outputs: Path) -> Path | None:
    parts = [p for p in re.split(r"[\\/]", written) if p]
    if not parts or parts[-1] in (".", ".."):
        return None
    name = parts[-1]
    where = [outputs / parts[-2] / name] if len(parts) >= 2 and parts[-2].startswith("session-") else []
    for f in (*where, outputs / name):
        try:
            if f.is_file():
                return f
        except OSError:  # in a folder that may not be searched: its reading says so (`attach_saved`)
            return f
    return None
