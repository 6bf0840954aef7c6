"""OpenHands trajectories and evaluation outputs → `Session`s.

The software-agent SDK (OpenHands V1) writes events of its own (`kind`, action and
observation objects): they are read by `_v1.py`, wherever they are (an output.jsonl's
`history`, a saved array, or the SDK's one-file-per-event conversation: `_events_dir.py`).
The older event stream is read here. Two shapes hold it:

* a trajectory (`~/.openhands/sessions/<id>/...` exported, or saved with
  `save_trajectory_path`): one JSON array of events. Each event is one `Evidence` (its exact
  bytes inside the file). An event is an action (`action`, `args`, `source`, `id`,
  `timestamp`, `tool_call_metadata`) or an observation (`observation`, `content`, `cause` =
  the id of the action it answers, `extras`);
* an evaluation or resolver `output.jsonl`: one instance per line (`instruction`,
  `history`, `metrics`, ...); each line is one `Evidence` and one session, its events cited
  at `/history/<i>`. Older outputs write events without `id`, `cause`, `source` or
  `timestamp`: an observation then answers the oldest action still waiting whose type it
  names (`run` answers `run`), else the oldest waiting one; the pairing rule is counted in
  `quality.extra["paired_by_order"]`.

What each event gives:

* `message` from the user → `user` (the words from `args.content`); from the agent →
  `agent_text`. `system` → the session's system prompt. `finish` → `agent_text` (its
  `final_thought`, else its `thought`, else `message`). `think` → `reasoning`.
* any other action (run, run_ipython, edit, read, write, browse, ...) → its `thought` as
  `reasoning`, then a `tool_call`: the tool is the action type, the arguments the action's
  exact `args`; the model and token counts come from `tool_call_metadata` / `llm_metrics`.
* its observation → `tool_result` with `content`; an `error` observation (ErrorObservation),
  `success: false` or a non-zero exit code (`extras.metadata.exit_code`, else
  `extras.exit_code`, else `exit_code`) is an error; exit code -1 (no exit status yet: the
  command runs on) leaves success unknown. So is an `mcp` observation (MCPObservation) whose
  content, the MCP CallToolResult as JSON text, says `"isError": true` (a timeout or an
  McpError is written so too; the content is cited), and a `browse` observation
  (BrowserOutputObservation) whose `extras.error` is true (cited: the page text does not say
  it as a flag); R-call/error-flag.
* an `error` observation that answers no action, and `agent_state_changed` to `error` (the
  controller stopped on an error; its `extras.reason`) → an error step of the agent
  (`agent_text`, api_error), counted in `quality.extra["agent_errors"]`.
* `recall` actions and observations (workspace context OpenHands injects) → `note`s;
  `change_agent_state`, other `agent_state_changed` and `null` observations are bookkeeping and
  are counted in `quality.extra["state_events"]`, not made events.

Every event of a trajectory that no step cites is marked in the manifest's ledger with why it
was read: state bookkeeping, `null` placeholders, `recall` context, messages with no words,
observations that answer nothing (`Session.mark`). An output.jsonl line is one record: its
steps cite it.

Not recorded by the format: the working directory (only as `extras.metadata.working_dir`
of shell observations, not per session) and, in older outputs, any time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from ...evidence import ReadingWarning, Session, SessionMeta, SourceFile, pointer
from .. import ReadContext
from .._records import Record, iter_json_array, iter_jsonl
from ..lines import discover_sniffed, read_bytes, sha256, source_name
from . import _conversation, _events_dir, _v1
from ._build import Builder


class OpenHandsSource:
    name: ClassVar[str] = "openhands"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)
    # under the home folder: the V0 sessions, and the conversations the SDK persists (its examples'
    # ~/.openhands/conversations/<id>/events/)
    default_roots: ClassVar[tuple[str, ...]] = (".openhands/sessions", ".openhands/conversations",
                                                ".openhands/v1/events")
    # names of its logs that no suffix tells (sources.walk.log_name): the app server's event files
    log_names: ClassVar[re.Pattern[str]] = _events_dir.APP_NAME

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """The app server's events under OH_PERSISTENCE_DIR when set (app_server/config.py)."""
        top = env.get("OH_PERSISTENCE_DIR", "")
        return [Path(top).expanduser() / "v1" / "events"] if top else []

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if h.startswith(b"["):
            # the SDK writes `kind` last (a computed field), after a first event that is a system
            # prompt of tens of KiB: its opening fields say what it is, or `kind` in the whole head
            first = h[1:].lstrip()
            if first.startswith(b"{") and b'"source"' in first and (
                    _v1.SNIFF.search(first) or _v1.OPENS_SYSTEM_PROMPT.match(first)):
                return True  # the SDK's events: `kind` names an event class
            return first.startswith(b"{") and (b'"action"' in first or b'"observation"' in first) and (
                b'"args"' in first or b'"extras"' in first) and (b'"source"' in first or b'"cause"' in first
                                                                  or b'"thought"' in first)
        if h.startswith(b"{") and _events_dir.is_app_event_file(path):
            return b'"id"' in h[:4096] and b'"source"' in h[:4096]  # the app server's event (indented)
        if h.startswith(b"{") and _events_dir.is_v0_event_file(path):
            # one V0 event of a session the app kept (sessions/<sid>/events/<id>.json)
            return b'"action"' in h[:4096] or b'"observation"' in h[:4096]
        if h.startswith(b"{") and _events_dir.is_event_file(path):
            # one event of a persisted conversation (named event-<index>-<id>.json in events/): its
            # `id` and `source` open it; `kind` comes last, past a long system prompt
            return b'"id"' in h[:4096] and b'"source"' in h[:4096]
        if h.startswith(b"{"):
            line = h.split(b"\n", 1)[0]
            return b'"history"' in line[:65536] and b'"instruction"' in line[:65536] or (
                b'"instruction"' in h[:4096] and b'"history": [' in h)
        return False

    def session_of(self, path: Path) -> Path | None:
        """The file offered for the conversation `path` is a part of (its first event file):
        for another event file, a V0 cache page (`event_cache/`), or a state file beside the
        events (`base_state.json`, V0's `metadata.json`, `init.json`...); None otherwise."""
        return _events_dir.session_of(path)

    def discover(self, path: Path) -> list[Path]:
        # any *.jsonl: benchmark outputs are named output.jsonl, output.critic_attempt_1.jsonl, or renamed
        return _events_dir.first_of_each(discover_sniffed(path, self.sniff, ("*.json", "*.jsonl", _events_dir.APP_GLOB),
                                                          recursive=True))

    # an SDK conversation's files beside its events folder (the read's root): `_conversation`
    schemes: ClassVar[tuple[str, ...]] = (_conversation.SCHEME,)

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        return _conversation.read_back(name, roots)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if _events_dir.is_event_file(path) and _events_dir.EVENT_NAME.match(path.name):
            convo = path.parent.parent  # the SDK's: its state and subagents beside it
            named = _conversation.namer(convo)
            s = _events_dir.read(path, ctx, Builder, state=lambda c, s: _conversation.read_state(c, s, ctx, named))
            _conversation.read_conversation(convo, s, ctx, _read_folder)
            return [s]
        if _events_dir.is_event_file(path) or _events_dir.is_app_event_file(path):
            return [_events_dir.read(path, ctx, Builder)]
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), self.name, len(data), sha256(data))
        warnings: list[ReadingWarning] = []
        counters: dict[str, int] = {}
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            s = _session(path.stem, file)
            recs = list(iter_json_array(data, name, warnings, counters))
            b = Builder(s)
            for rec in recs:
                s.add_evidence(rec.ev)
                b.event(rec, rec.data, "")
            b.finish()
            s.quality.records = counters.get("records", 0)
            s.quality.unparsable_records = counters.get("unparsable", 0)
            s.warnings[:0] = warnings
            return [s]
        out = []
        for rec in iter_jsonl(data, name, warnings, counters, lambda d: "history" in d):
            out.append(_instance(rec, file, path))
        if not out:
            out.append(_session(path.stem, file))
        out[0].warnings[:0] = warnings
        out[0].quality.unparsable_records += counters.get("unparsable", 0)
        return out


def _read_folder(first: Path, ctx: ReadContext, name_of: Callable[[Path], str]) -> Session:
    """A subagent's conversation, with its state (its own HEAD)."""
    return _events_dir.read(first, ctx, Builder, name_of,
                            state=lambda c, s: _conversation.read_state(c, s, ctx, name_of))


def _session(sid: str, file: SourceFile) -> Session:
    return Session("openhands", sid, [file], {}, [], SessionMeta(agent="openhands"))


def _instance(rec: Record, file: SourceFile, path: Path) -> Session:
    d = rec.data
    sid = d.get("instance_id")
    issue = d.get("issue")
    if not isinstance(sid, str | int) and isinstance(issue, dict):
        sid = f"{issue.get('owner')}/{issue.get('repo')}#{issue.get('number')}"
    s = _session(str(sid) if isinstance(sid, str | int) else f"{path.stem}:L{rec.ev.line}", file)
    s.add_evidence(rec.ev)
    s.quality.records = 1
    hist = d.get("history")
    b = Builder(s)
    if not isinstance(hist, list):
        s.warn("no-history", "the instance has no history list", rec.ev.source, rec.ev.line)
        return s
    for i, e in enumerate(hist):
        if isinstance(e, dict):
            b.event(rec, e, pointer("history", i))
        elif isinstance(e, list) and len(e) == 2 and all(isinstance(x, dict) for x in e):
            # the oldest outputs write (action, observation) pairs
            b.event(rec, e[0], pointer("history", i, 0))
            b.event(rec, e[1], pointer("history", i, 1))
        else:
            s.warn("not-an-object", f"history[{i}] is not an event; skipped", rec.ev.source, rec.ev.line)
    b.finish()
    return s
