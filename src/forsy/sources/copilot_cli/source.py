"""GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`) → `Session`s.

Copilot CLI (`copilot`, npm `@github/copilot`) is closed source; its bundled JavaScript is on
the npm registry. Read there (packages 0.0.340, 0.0.343, 0.0.372, 0.0.380, 0.0.400, 1.0.10,
1.0.60: the session store and writer, `emitInternal`, the `SessionEvent` zod schemas and
the `schemas/session-events.schema.json` shipped from 0.0.37x) and in the changelog of
github/copilot-cli (changelog.md at 9532bda). Three forms are still on disk:

* up to 0.0.341: `~/.copilot/history-session-state/session_<id>_<ms>.json`, one JSON document
  (`_legacy`);
* 0.0.342-0.0.37x: `~/.copilot/session-state/<id>.jsonl`, the event log (later versions still
  resume it, 1.0.x ignore it);
* from 0.0.380: `~/.copilot/session-state/<id>/events.jsonl` with `workspace.yaml` (id, cwd,
  repository, branch, name, summary, times), `checkpoints/` and `plan.md` beside it.

The folder is `$COPILOT_HOME` (1.0.x), else `$XDG_STATE_HOME/.copilot` (0.0.38x-0.0.4xx read
it), else `~/.copilot`. Each line of the log is one event, one `Evidence`:
`{type, data, id, timestamp, parentId[, ephemeral][, agentId]}`, appended as emitted; ephemeral
events (deltas, usage, progress) are not written (0.0.343 wrote `assistant.usage`). What each
type gives (`_events`):

* `session.start` / `session.resume`: the facts (`sessionId`, `copilotVersion`, `selectedModel`,
  `startTime`, `context.cwd` / `branch` / `repository`); `session.model_change` a note (and a
  model); `session.error`, `.info`, `.warning`, `.handoff`, `.task_complete`,
  `system.notification`, a failed `hook.end` or `subagent.failed`, `skill.invoked`: notes;
* `user.message`: the person's words (`content`; `transformedContent` is what the model got);
  from the CLI (`source` system, a skill's, the autopilot's continuation) a note; no words but
  `attachments` (an image with no caption): the person's turn, its text stating each attachment;
* `assistant.reasoning` and `assistant.message`'s `reasoningText`: reasoning (once);
  `content`: the agent's words; each `toolRequests[i]` a call (id, name, arguments; the calls
  of a message one group), but `report_intent`'s, a note of the intent it showed (`_intent`);
  `serverTools`: the calls the provider ran itself (a hosted web search), read before the
  words, those of its shapes forsy knows, the rest counted and warned (`_server_tools`);
  `assistant.usage`: tokens and model;
* `tool.execution_complete`: the call's result (`result.content`, else `error.message`),
  failed when `success` is false; `error.code` denied/rejected (or the person's No in
  `permission.completed`) is a refusal. A shell call succeeds whenever the command ran:
  its last line's exit code decides (R-call/copilot-exit-code). `tool.user_requested` (a `!`
  command) is the person's call; `tool.execution_start` is a call only when no message asked;
* `abort`: an interrupt; `session.compaction_complete`: a compaction (its summary);
  `session.truncation`: a note (messages dropped, counted); `session.import_legacy`: the legacy
  session's messages (`_legacy`);
* a subagent's events (`agentId`, else `data.parentToolCallId`: the id of the `task` call that
  runs it) are `subagent:<call id>`'s, linked to that call; `subagent.selected` (a custom agent
  picked by the person) a note;
* the rest (turns, permissions, hooks' start, MCP and UI state) are metadata; any other type is
  a counted `unknown-record` warning.

Not read: `workspace.yaml` (its facts repeat the log's, but the title), checkpoints, plan.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Quality, Ref, Session, SessionMeta, SourceFile
from .. import ReadContext
from .._records import iter_jsonl
from ..lines import head_values, read_bytes, sha256, sniff_file, sniffed, source_name
from ..listing import matching
from ._events import Transcript
from ._legacy import read_legacy

KIND = "copilot_cli"
EVENTS = "events.jsonl"
LEGACY_KEYS = ("sessionId", "startTime", "chatMessages", "timeline")


def copilot_record(d: Any) -> bool:
    """Whether a JSONL record is a Copilot CLI session event: its five keys, a dotted type."""
    if not isinstance(d, dict) or not isinstance(d.get("data"), dict) or "parentId" not in d:
        return False
    t = d.get("type")
    return (isinstance(t, str) and (t == "abort" or "." in t) and isinstance(d.get("id"), str)
            and isinstance(d.get("timestamp"), str))


def _is_record(d: dict[str, Any]) -> bool:
    return isinstance(d.get("type"), str) and isinstance(d.get("id"), str) and "parentId" in d


def _legacy_doc(head: bytes) -> bool:
    """A history-session document: an object starting with its sessionId, startTime and chatMessages."""
    s = head[:4096]
    return all(f'"{k}"'.encode() in s for k in LEGACY_KEYS[:3])


class CopilotCliSource:
    name: ClassVar[str] = KIND
    default_roots: ClassVar[tuple[str, ...]] = (".copilot/session-state", ".copilot/history-session-state")

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """COPILOT_HOME (1.0.x), XDG_STATE_HOME/.copilot (0.0.38x-0.0.4xx) hold the sessions."""
        out = []
        top = env.get("COPILOT_HOME", "").strip()
        if top:
            out += [Path(top) / "session-state", Path(top) / "history-session-state"]
        xdg = env.get("XDG_STATE_HOME", "").strip()
        if xdg:
            out.append(Path(xdg) / ".copilot" / "session-state")
        return out

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not s.startswith(b"{"):
            return False
        if path.suffix == ".json" and path.name.startswith("session_"):
            return _legacy_doc(s)
        first = next(head_values(s, 20), None)
        return first is not None and copilot_record(first)

    def discover(self, path: Path) -> list[Path]:
        """Session logs under a log, a session folder, `session-state/` (or the legacy
        `history-session-state/`), Copilot's folder or a home folder."""
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        if (path / EVENTS).is_file():
            return sniffed([path / EVENTS], self.sniff)
        tops = [p for p in (path / ".copilot", path) if p.is_dir()]
        found: list[Path] = []
        for top in tops:
            for state in (top / "session-state", top / "history-session-state"):
                if state.is_dir():
                    found += self._in_state(state)
        if not found:  # the folder is a session-state folder, or a folder of collected files
            found = self._in_state(path)
        return found

    def _in_state(self, state: Path) -> list[Path]:
        # a session's folder that may not be listed is said (`listing`), where a glob passed over it
        out = sniffed(matching(state, f"*/{EVENTS}"), self.sniff)
        out += sniffed(matching(state, "*.jsonl"), self.sniff)
        out += sniffed(matching(state, "session_*.json"), self.sniff)
        return out

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), KIND, len(data), sha256(data))
        fallback = path.parent.name if path.name == EVENTS else path.stem
        if path.suffix == ".json":
            stem = path.stem.removeprefix("session_")
            return [read_legacy(data, name, file, stem.rsplit("_", 1)[0] if "_" in stem else stem, Transcript)]
        s = Session(KIND, fallback, [file], {}, [], SessionMeta(agent="copilot-cli"), Quality())
        counters: dict[str, int] = {}
        recs = list(iter_jsonl(data, name, s.warnings, counters, _is_record))
        del data
        s.quality.records = counters.get("records", 0)
        s.quality.unparsable_records = counters.get("unparsable", 0)
        for rec in recs:
            s.add_evidence(rec.ev)
        start = next((r for r in recs if r.data.get("type") == "session.start"), None)
        body = start.data.get("data") if start is not None else None
        sid = body.get("sessionId") if isinstance(body, dict) else None
        if isinstance(sid, str) and sid:
            s.session_id = sid
        t = Transcript(s)
        for rec in recs:
            t.record(rec)
        for call_id, tool in t.calls.items():
            if call_id not in t.answered and call_id not in t.intents:  # an intent is a note: no result owed
                s.quality.missing_results += 1
                call = next((e for e in s.events if e.kind == "tool_call" and e.call_id == call_id), None)
                s.warn_at("no-result", f"tool call {call_id} ({tool}) has no result in the log", call, name)
        first = next((r for r in recs if isinstance(r.data.get("timestamp"), str)), None)
        if s.meta.started_at is None and first is not None:
            s.meta.started_at, s.meta.started_at_ref = first.data["timestamp"], Ref(first.ev.id, "/timestamp")
        return [s]
