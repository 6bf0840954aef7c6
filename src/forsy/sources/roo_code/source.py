"""Roo Code and Kilo Code tasks (VS Code globalStorage `rooveterinaryinc.roo-cline/tasks/<task id>/`,
`kilocode.kilo-code/tasks/<task id>/`) → `Session`s, as their agents' work.

Roo Code (RooCodeInc/Roo-Code) forked Cline in late 2024 and Kilo Code (Kilo-Org/kilocode)
forked Roo Code; both keep Cline's file names (src/shared/globalFileNames.ts) but not what
Cline writes in them. What Roo Code writes, read at RooCodeInc/Roo-Code cb83656718 (April 2026)
and the commits named in each module:

* `api_conversation_history.json` (core/task-persistence/apiMessages.ts): what the model saw
  and said, one record per message, read by `_task.py`: calls as XML in the model's text until
  January 2026 (`_xml.py`), native `tool_use` blocks from November 2025; results as Roo Code
  writes them (`_texts.py`); reasoning blocks and items; condense summaries and truncation
  markers; `ts` on each message (epoch ms → ISO, R-time).
* `ui_messages.json` (taskMessages.ts): what the person saw. The first record (`say: "text"`)
  is the task as typed and `say: "user_feedback"` the person's later words: copied from there
  where the API history wraps them. Reasoning the UI shows and the API history lacks (before
  November 2025 Roo Code saved it only there) is read from it, at its time. Token counts are
  summed from `api_req_started` (the API history has none). The rest is marked (`_ledger.py`).
* `history_item.json` (TaskHistoryStore.ts, from February 2026, Roo Code 3.49): the task's
  history entry: its working directory, mode, and its place among subtasks (`parentTaskId`,
  `rootTaskId`, `childIds`). `task_metadata.json`: the files in context (set aside).
* a subtask (`new_task`) is a task folder of its own beside its parent's: read with its parent
  when its history entry names the parent (`_subtasks.py`).

A folder is Roo Code's (not Cline's) only by what is exact: it lies in Roo Code's or Kilo Code's
globalStorage folder, or holds `history_item.json`, or its API history or UI messages hold, at
record level in the first 64 KiB, a field or kind only Roo Code writes (`ROO_API`, `ROO_UI`).
Otherwise it is Cline's, read by the Cline source (a Roo Code task copied out of its folder
before February 2026 with nothing Roo-only near its start is read as Cline's: nothing exact
tells them apart). The agent is "kilo-code" in Kilo Code's folder, else "roo-code". Not
recorded by the writer: the model, the system prompt and the tools offered.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Session, SessionMeta
from .. import ReadContext
from .._records import Record
from .._side import companion
from .._threads import interleave
from ..cline import EDITOR_SERVERS, EDITORS, load_array, load_file
from ..lines import HEAD, discover_sniffed, source_name
from . import _ledger
from ._subtasks import children, read_subtasks
from ._task import Task, ui_reasoning

API = "api_conversation_history.json"
UI = "ui_messages.json"
META = "task_metadata.json"
HISTORY = "history_item.json"
INDEX = "_index.json"  # TaskHistoryStore's cache of every task's history entry, in the tasks folder
# the extension's globalStorage folder (VS Code lowercases the extension id) -> the agent's name
AGENTS: dict[str, str] = {"rooveterinaryinc.roo-cline": "roo-code", "kilocode.kilo-code": "kilo-code"}
# fields only Roo Code writes on an API message or block (apiMessages.ts ApiMessage, Task.ts), as record keys
ROO_API = re.compile(rb'"(?:isSummary|condenseId|condenseParent|truncationId|truncationParent|isTruncationMarker|'
                     rb'encrypted_content)"\s*:|"type"\s*:\s*"thoughtSignature"')
# kinds and fields only Roo Code's UI records have (packages/types/src/message.ts), and its api_req_started text
ROO_UI = re.compile(rb'"say"\s*:\s*"(?:checkpoint_saved|subtask_result|condense_context|condense_context_error|'
                    rb'rooignore_error|codebase_search_result|user_edit_todos|sliding_window_truncation|'
                    rb'api_req_rate_limit_wait|too_many_tools_warning|browser_session_status)"|'
                    rb'"(?:isProtected|contextCondense|contextTruncation|progressStatus|isAnswered|apiProtocol)"\s*:|'
                    rb'"text"\s*:\s*"\{\\"apiProtocol\\"')


def agent_of(folder: Path) -> str | None:
    """The agent whose globalStorage holds this task folder (`<id>/tasks/<task>`), else None."""
    return AGENTS.get(folder.parent.parent.name.lower()) if folder.parent.name == "tasks" else None


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(HEAD)
    except OSError:
        return b""


def is_roo(folder: Path, name: str = "", head: bytes = b"") -> bool:
    """Whether a task folder is Roo Code's or Kilo Code's by what is exact (module docstring);
    `head`: the start of its file `name`, already read."""
    if agent_of(folder) is not None or (folder / HISTORY).is_file():
        return True
    api = head if name == API else _head(folder / API)
    if ROO_API.search(api):
        return True
    ui = head if name == UI else _head(folder / UI)
    return ROO_UI.search(ui) is not None


def parent_of(folder: Path) -> Path | None:
    """The parent task's folder beside this one, when this task's history entry names it."""
    try:
        data = (folder / HISTORY).read_bytes()[:HEAD]
    except OSError:
        return None
    m = re.search(rb'"parentTaskId"\s*:\s*"([^"\\/]+)"', data)
    if m is None:
        return None
    parent = folder.parent / m.group(1).decode("utf-8", "replace")
    return parent if parent != folder and ((parent / API).is_file() or (parent / UI).is_file()) else None


def _extension_roots() -> tuple[str, ...]:
    return tuple(f"{base}/{editor}/User/globalStorage/{ext}/tasks" for ext in AGENTS for editor in EDITORS
                 for base in (".config", "Library/Application Support")) + tuple(
        f"{server}/data/User/globalStorage/{ext}/tasks" for ext in AGENTS for server in EDITOR_SERVERS)


class RooCodeSource:
    name: ClassVar[str] = "roo_code"
    searches_below: ClassVar[bool] = True
    # read with the task beside them, and named by its reading when they may not be (sources.walk)
    companions: ClassVar[frozenset[str]] = frozenset({UI, META, HISTORY})
    # the extensions' storage in VS Code and its forks (Linux, macOS, a remote host's server
    # folder), as Cline's (`ClineSource.default_roots`); a custom storage path
    # (`roo-cline.customStoragePath`) is a setting forsy cannot see: name it to the sweep
    default_roots: ClassVar[tuple[str, ...]] = _extension_roots()

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return []  # neither extension reads a variable for where it keeps its tasks

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        folder = path.parent
        if path.name == API:
            return h.startswith(b"[") and b'"role"' in h[:4096] and is_roo(folder, API, head)
        if path.name == UI:
            return h.startswith(b"[") and b'"ts"' in h[:4096] and (b'"say"' in h or b'"ask"' in h) \
                and is_roo(folder, UI, head)
        if path.name in (META, HISTORY):
            return h.startswith(b"{") and ((folder / API).is_file() or (folder / UI).is_file()) and is_roo(folder)
        return False

    def discover(self, path: Path) -> list[Path]:
        found = discover_sniffed(path, self.sniff, (API, UI), recursive=True)
        # a task is offered once (its API history, else its UI messages); a subtask whose parent
        # is beside it is read with its parent
        return [p for p in found if (p.name == API or not (p.parent / API).is_file()) and parent_of(p.parent) is None]

    def session_of(self, path: Path) -> Path | None:
        """A subtask's files belong to the root task's session it is read with; the history
        index beside the tasks (`_index.json`), to the first task it lists that is there."""
        folder = path.parent
        if path.name == INDEX and folder.name == "tasks" and (agent_of(folder / "x") is not None
                                                               or next(folder.glob(f"*/{HISTORY}"), None)):
            tasks = sorted(p for p in folder.glob(f"*/{API}") if parent_of(p.parent) is None)
            return tasks[0] if tasks else None
        if path.name not in (API, UI, META, HISTORY):
            return None
        top, seen = folder, {folder}
        while (up := parent_of(top)) is not None and up not in seen:
            seen.add(up)
            top = up
        if top == folder:
            return None
        return top / API if (top / API).is_file() else top / UI

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if children(path.parent):  # its subtasks' folders are beside it: files named from the tasks folder
            ctx = dataclasses.replace(ctx, root=path.parent.parent)
        s = read_task(path.parent, ctx)
        read_subtasks(path.parent, s, ctx, read_task)
        return [s]


def read_task(folder: Path, ctx: ReadContext) -> Session:
    """One task folder (without its subtasks)."""
    agent = agent_of(folder) or "roo-code"
    s = Session("roo_code", folder.name, [], {}, [], SessionMeta(agent=agent))
    api, ui = folder / API, folder / UI
    if not api.is_file() and not ui.is_file():
        raise InputError(f"a {agent} task folder without its {API} or {UI}", path=folder)
    main = source_name(api if api.is_file() else ui, ctx.root)
    api_recs = _load(api, s, ctx) if api.is_file() else []
    # beside the API history, the UI messages are a companion: the task is read without them
    ui_recs: list[Record] | None = []  # None: there, but it could not be read (said)
    if ui.is_file():
        ui_recs = companion(s, main, source_name(ui, ctx.root), "no typed prompts and no token counts", _load, ui,
                            s, ctx) if api.is_file() else _load(ui, s, ctx)
    if not api.is_file():
        s.warn("no-api-history", f"{API} is missing: only the UI's reasoning and the person's words are read",
               source_name(api, ctx.root))
    if ui_recs == []:
        s.warn("no-ui-messages", f"{UI} is missing or empty: no typed prompts and no token counts",
               source_name(ui, ctx.root))
    ui_recs = ui_recs or []
    task = Task(s, api_recs, ui_recs)
    task.build()
    extra = ui_reasoning(s, ui_recs, api_recs)
    if extra:
        s.events = interleave([s.events, extra])
    if task.named:  # the subtasks its results name (`_subtasks`)
        s.meta.extra["subtasks_named"] = dict(task.named)
    if (folder / HISTORY).is_file() and (got := _beside(folder / HISTORY, main, s, ctx, "the task's working "
                                                       "folder, mode and place among subtasks are not known")):
        _history(_ledger.read_keys(*got, s, _ledger.HISTORY, _ledger.HISTORY_OTHER), s)
    if (folder / META).is_file() and (got := _beside(folder / META, main, s, ctx, "the files in context are not "
                                                    "listed")):
        _ledger.read_keys(*got, s, _ledger.METADATA, _ledger.METADATA_OTHER)
    _ledger.mark_ui(s, ui_recs, api_recs, bool(s.meta.token_usage))
    return s


def _history(doc: dict[str, object], s: Session) -> None:
    """What the history entry says of the task: where it ran, in which mode, its subtasks."""
    if isinstance(doc.get("workspace"), str) and doc["workspace"]:
        s.meta.cwd = str(doc["workspace"])
    for key, name in (("mode", "mode"), ("apiConfigName", "api_config_name"), ("status", "task_status"),
                      ("parentTaskId", "parent_task_id"), ("rootTaskId", "root_task_id")):
        if isinstance(doc.get(key), str) and doc[key]:
            s.meta.extra[name] = doc[key]
    kids = doc.get("childIds")
    if isinstance(kids, list) and all(isinstance(k, str) for k in kids):
        s.meta.extra["child_task_ids"] = list(kids)


def _beside(path: Path, main: str, s: Session, ctx: ReadContext, missing: str) -> tuple[bytes, str] | None:
    """A file of the task beside its messages, or None when it cannot be read (said)."""
    return companion(s, main, source_name(path, ctx.root), missing, load_file, path, s, ctx, "roo_code")


def _load(path: Path, s: Session, ctx: ReadContext) -> list[Record]:
    return load_array(path, s, ctx, "roo_code")
