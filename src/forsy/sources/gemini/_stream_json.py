"""Gemini CLI's headless output, saved as it came: `gemini -p "…" --output-format stream-json`
(since v0.11, October 2025), the events of one run, one JSON object a line.

What the writer emits (google-gemini/gemini-cli: packages/core/src/output/types.ts and
stream-json-formatter.ts, packages/cli/src/nonInteractiveCli.ts and, from April 2026, the
same events from nonInteractiveCliAgentSession.ts; packages/cli/src/utils/errors.ts). Every
event has `type` and `timestamp` (ISO 8601, when the CLI wrote it):

* `init`: `session_id`, `model` (the model configured, an alias such as `auto-gemini-3` too);
  first, once a run;
* `message`: `role` `user`, `content` the prompt as given (`-p`, stdin), once, before any
  model output; `role` `assistant`, `content` a piece of the model's text as it streamed,
  `delta: true` (every assistant message is a delta: no event repeats the whole text);
* `tool_use`: `tool_name`, `tool_id`, `parameters` (the exact arguments), as the model asks;
  the calls of one model turn are run together once its stream ends;
* `tool_result`: `tool_id`, `status` (`success` / `error`), `output` (what the CLI shows for
  the result, its display, only when that is text: an edit's diff leaves it out; not what
  the model was sent), `error` (`type`, `message`);
* `error`: `severity` (`warning` / `error`), `message`: the CLI's notices ("Loop detected,
  stopping execution", "Maximum session turns exceeded", "Agent execution blocked: …", the
  model's empty or blocked response, a quota error it retries);
* `result`: last, `status` (`success` / `error`), `error` (`type`: the error's class, such as
  `FatalTurnLimitedError`, `FatalCancellationError`; `message`), `stats` (`total_tokens`,
  `input_tokens`, `output_tokens`, `cached`, `input`, `duration_ms` (0 when the run failed),
  `tool_calls`, per-model `models` since March 2026).

Read so: the user message is the person's prompt (the task). The model's deltas with no other
event between them are one text, their contents joined as streamed (nothing between them),
each delta cited: the text before a call is its reasoning, the text a turn ends with the
answer. From v0.13 to v0.25 the CLI sent its own notice that `-p` was deprecated as an
assistant delta before the model spoke: that exact text is the CLI's note, not the model's.
Each `tool_use` is a call with its exact name and parameters, grouped with the calls of its
turn; its `tool_result` (linked by `tool_id`) is its result, failed when `status` is `error`
(the shell tool's words for a failed command count too, `_shell`). An `error` event of
severity `error` is an error step; a warning is a note. The `result` is metadata (usage,
models, `agent_config.run_result`); a failed one declares the ending (T-termination/declared:
a turn limit is `partial_then_stopped`, a cancelled run `user_abandoned`, any other error
`error_unrecoverable`, its message an error step); so do the CLI's two stop notices in a run
whose result is a success (`partial_then_stopped`). Several runs appended to one file are one
session per `session_id`. A line written twice in a row, a call id or a result read again are
duplicates.

What the stream does not hold: the working directory, the CLI's version, the tools offered,
the model's reasoning, what the tools sent the model, the history of a resumed session.

`--output-format json` writes one object instead (`session_id` since December 2025,
`response`, `stats`, `error`, `warnings`): the final text and counts, no prompt, no calls,
no times. A trace made of it would show a run of one answer where the stats count the calls
it hides, so it is refused with a message naming where the work is (`refuse_json_result`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...errors import UnsupportedFormat
from ...evidence import UNPARSABLE_WARNINGS, Event, ReadingWarning, Ref, Session, SessionMeta, SourceFile
from ...payloads import MessageInfo, NoteInfo, ResultInfo
from .._records import Record, iter_jsonl
from ._shell import shell_outcome

# the key each event type always has (types.ts); a chat's records have an `id` instead
EVENT_KEYS = {"init": "session_id", "message": "role", "tool_use": "tool_id", "tool_result": "tool_id",
              "error": "severity", "result": "status"}
# nonInteractiveCli.ts (v0.13.0 to v0.25.x): written as an assistant delta when `-p` was used
DEPRECATED_P = ("The --prompt (-p) flag has been deprecated and will be removed in a future version. Please use a "
                "positional argument for your prompt. See gemini --help for more information.\n")
# nonInteractiveCli.ts: the notices the CLI streams as it stops the run, then ends it as a success
STOP_NOTICES = frozenset({"Loop detected, stopping execution", "Maximum session turns exceeded"})
# utils/errors.ts: the error classes of a failed result that are no error of the work
LIMIT_ERRORS = {"FatalTurnLimitedError": "partial_then_stopped", "FatalCancellationError": "user_abandoned"}
# stats → the chat reader's token names (input counts cached tokens too, as the chat's does)
TOKENS = (("input_tokens", "input"), ("output_tokens", "output"), ("cached", "cached"), ("total_tokens", "total"))
JSON_RESULT_KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})
_JSON_RESULT = re.compile(rb'\A\{\s*"(?:session_id|response|error)"\s*:')
_LONG_RESULT = re.compile(rb'\A\{\r?\n  (?:"session_id": "[0-9a-f-]+",\r?\n  )?"response": "')

DELTAS = "R-text/deltas"  # the rule that joins the model's streamed pieces into one text
DUPLICATE_WHY = "the same event written twice in a row"
DEPRECATED_WHY = "the CLI's notice that -p is deprecated, sent in the model's place"
WARNING_WHY = "a warning the CLI streamed (a hook's block, a retried error), a note"
STOP_WHY = "the CLI's notice that it stopped the run (its ending)"
EMPTY_WHY = "streamed text of the model that holds no words"


def event_kind(d: dict[str, Any]) -> bool:
    """Whether a parsed line is one of the stream's events (its type, that type's key, a time)."""
    t = d.get("type")
    return isinstance(t, str) and t in EVENT_KEYS and EVENT_KEYS[t] in d and isinstance(d.get("timestamp"), str) \
        and "id" not in d


def is_stream(head: bytes) -> bool:
    """Whether a file's first bytes are a headless stream: its first JSON object lines (lines
    of other text before them, which a harness may have mixed in, are passed over) are events
    of the stream, never a chat's header or message records."""
    seen = 0
    for raw in head.split(b"\n")[:64]:
        line = raw.strip().removeprefix(b"\xef\xbb\xbf")
        if not line.startswith(b"{"):
            continue
        try:
            d = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # a line cut by the head's end, or damaged
        if not isinstance(d, dict):
            continue
        if "projectHash" in d or "sessionId" in d or isinstance(d.get("id"), str):
            return False  # a chat of lines
        if event_kind(d):
            return True
        seen += 1
        if seen >= 4:
            return False
    return False


def is_json_result(head: bytes) -> bool:
    """Whether a file is `--output-format json`'s one object (JsonFormatter, two-space indent)."""
    h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not _JSON_RESULT.match(h):
        return False
    try:
        d = orjson.loads(h)
    except orjson.JSONDecodeError:  # longer than the head: its first keys, as JSON.stringify(…, null, 2) wrote them
        return _LONG_RESULT.match(h) is not None
    return isinstance(d, dict) and bool(d) and set(d) <= JSON_RESULT_KEYS and ("stats" in d or "error" in d)


def refuse_json_result(path: Path, head: bytes) -> UnsupportedFormat:
    sid = re.search(rb'"session_id"\s*:\s*"([0-9A-Za-z-]{8})', head)
    chat = f"session-*-{sid[1].decode()}.jsonl" if sid else "session-*.jsonl"
    return UnsupportedFormat(
        "Gemini CLI's --output-format json result: the final response and the run's counts, no prompt, no "
        "tool calls and no times, so no trace is made of it (it would show one answer where its stats count "
        f"the calls it leaves out). The run's work is in its chat, ~/.gemini/tmp/<project>/chats/{chat}, which "
        "forsy reads; or run with --output-format stream-json and retrace that", path=path)


def _str(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) else None


@dataclass
class _Run:
    """One run's session, built event by event."""

    s: Session
    sid: str | None = None
    calls: dict[str, str | None] = field(default_factory=dict)  # tool_id → tool name
    answered: set[str] = field(default_factory=set)
    deltas: list[Record] = field(default_factory=list)  # the model's text streaming now
    group: str | None = None  # the first call of the turn whose calls are being asked for
    said: bool = False  # the model has streamed text in this run
    stop: Ref | None = None  # the CLI's stop notice
    result: Record | None = None
    last_sha: str | None = None

    def warn(self, rec: Record, code: str, message: str) -> None:
        self.s.warn(code, message, rec.ev.source, rec.ev.line)

    def ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = _str(rec.data, "timestamp")
        e = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, ptr)],
                  ts_ref=Ref(rec.ev.id, "/timestamp") if ts else None, **fields)
        self.s.events.append(e)
        return e

    def take(self, rec: Record) -> None:
        d = rec.data
        t = d.get("type")
        delta = t == "message" and d.get("role") == "assistant" and d.get("delta") is True
        if not delta:
            self.flush()
            if rec.ev.sha256 == self.last_sha:
                self.s.mark(rec.ev.id, "duplicate", DUPLICATE_WHY, t if isinstance(t, str) else None)
                return
        self.last_sha = rec.ev.sha256
        if t == "init":
            self._init(rec)
        elif t == "message":
            self._message(rec, delta)
        elif t == "tool_use":
            self._call(rec)
        elif t == "tool_result":
            self._result(rec)
        elif t == "error":
            self._error(rec)
        elif t == "result":
            self._end(rec)
        else:
            self.s.quality.unknown_records += 1
            self.warn(rec, "unknown-record-type", f"event type {t!r} is not one the stream writes; skipped")

    def _init(self, rec: Record) -> None:
        self.s.mark(rec.ev.id, "metadata", "session id and model", "init")
        model = rec.data.get("model")
        if isinstance(model, str) and model and model not in self.s.meta.models:
            self.s.meta.models.append(model)
        elif model is not None and not isinstance(model, str):
            self.warn(rec, "field-type", f"model is {type(model).__name__}, not text; read as absent")

    def _message(self, rec: Record, delta: bool) -> None:
        d = rec.data
        role, content = d.get("role"), d.get("content")
        if not isinstance(content, str):
            self.warn(rec, "field-type", f"the message's content is {type(content).__name__}, not text; skipped")
        elif role == "user":
            self.ev("user", rec, "/content", actor="user", text=content)
            self.stop = None  # a resumed run: the stop notice before was another run's
        elif role == "assistant" and not (self.said or self.deltas) and content == DEPRECATED_P:
            self.ev("note", rec, "/content", actor="system", text=content, info=NoteInfo(subtype="cli_deprecation"))
            self.s.mark(rec.ev.id, "set_aside", DEPRECATED_WHY, "message")
        elif role == "assistant":
            self.deltas.append(rec)
            if not delta:  # a whole message (no writer sends one yet): a text of its own
                self.flush()
        else:
            self.warn(rec, "unknown-role", f"a message of role {role!r}; skipped")

    def flush(self) -> None:
        """The model's text streamed since the last other event: its deltas' contents, joined
        as they came, citing each."""
        recs, self.deltas = self.deltas, []
        if not recs:
            return
        self.said = True
        text = "".join(str(r.data["content"]) for r in recs)
        if not text.strip():
            for r in recs:
                self.s.mark(r.ev.id, "set_aside", EMPTY_WHY, "message")
            return
        joined = len(recs) > 1
        e = self.ev("agent_text", recs[0], "/content", text=text, info=MessageInfo(rule=DELTAS if joined else None))
        e.refs = [Ref(r.ev.id, "/content") for r in recs]
        if joined:
            self.s.quality.extra["joined_deltas"] = self.s.quality.extra.get("joined_deltas", 0) + len(recs)

    def _call(self, rec: Record) -> None:
        d = rec.data
        tid = _str(d, "tool_id")
        if tid is not None and tid in self.calls:
            self.s.mark(rec.ev.id, "duplicate", "a call whose tool_id was read before", "tool_use")
            return
        if tid is None:
            self.warn(rec, "field-type", "the call has no tool_id (text); its result cannot be linked")
        name = _str(d, "tool_name")
        if name is None:
            self.warn(rec, "field-type", f"tool_name is {type(d.get('tool_name')).__name__}, not text")
        call_id = tid or rec.ev.id
        self.calls[call_id] = name
        self.group = self.group or call_id
        self.ev("tool_call", rec, "/parameters" if "parameters" in d else "", call_id=call_id, tool=name,
                args=d.get("parameters"), group=self.group,
                name_ref=Ref(rec.ev.id, "/tool_name") if name is not None else None)

    def _result(self, rec: Record) -> None:
        d = rec.data
        self.group = None  # the turn's calls have run: the next call is another turn's
        tid = _str(d, "tool_id")
        if tid is not None and tid in self.answered:
            self.s.mark(rec.ev.id, "duplicate", "a result of a call answered before", "tool_result")
            return
        info = ResultInfo()
        if tid is None or tid not in self.calls:
            info.orphan = True
            self.warn(rec, "orphan-result", f"a result for tool_id {tid!r}, which no call read here has")
        else:
            self.answered.add(tid)
        status = d.get("status")
        if status not in ("success", "error"):
            self.warn(rec, "field-type", f"the result's status is {status!r}, not success or error")
        refs, texts = [], []
        output, err = d.get("output"), d.get("error")
        message = err.get("message") if isinstance(err, dict) else None
        if isinstance(output, str):
            refs.append(Ref(rec.ev.id, "/output"))
            texts.append(output)
        if isinstance(message, str) and message and message != output:
            refs.append(Ref(rec.ev.id, "/error/message"))
            texts.append(message)
        if output is not None and not isinstance(output, str):
            self.warn(rec, "field-type", f"the result's output is {type(output).__name__}, not text; read as absent")
        name = self.calls.get(tid) if tid is not None else None
        # no text: the tool showed none (an edit's diff is no text); the result is its status alone
        text = "\n".join(texts) if refs else None
        failed = shell_outcome(name, text or "", status == "error", info, display=True)
        e = self.ev("tool_result", rec, "", call_id=tid or rec.ev.id, tool=name, text=text,
                    is_error=failed if status in ("success", "error") else None, info=info)
        e.refs = refs or [Ref(rec.ev.id, "/status" if "status" in d else "")]

    def _error(self, rec: Record) -> None:
        d = rec.data
        message, severity = _str(d, "message"), d.get("severity")
        if message is None:
            self.warn(rec, "field-type", f"the error's message is {type(d.get('message')).__name__}, not text; "
                      "skipped")
        elif message in STOP_NOTICES:
            self.ev("note", rec, "/message", actor="system", text=message, info=NoteInfo(subtype="cli_stopped"))
            self.s.mark(rec.ev.id, "set_aside", STOP_WHY, "error")
            self.stop = Ref(rec.ev.id, "/message")
        elif severity == "error":
            self.ev("agent_text", rec, "/message", text=message, info=MessageInfo(api_error=True))
        else:
            self.ev("note", rec, "/message", actor="system", text=message, info=NoteInfo(subtype="cli_warning"))
            self.s.mark(rec.ev.id, "set_aside", WARNING_WHY, "error")

    def _end(self, rec: Record) -> None:
        d, meta = rec.data, self.s.meta
        self.result = rec
        status = _str(d, "status")
        self.s.mark(rec.ev.id, "metadata", "how the run ended, its usage and models", status)
        stats, err = d.get("stats"), d.get("error")
        stats = stats if isinstance(stats, dict) else {}
        err = err if isinstance(err, dict) else {}
        models = stats.get("models")
        for m in models if isinstance(models, dict) else {}:
            if m not in meta.models:
                meta.models.append(m)
        # a process's totals (uiTelemetry starts at 0 in each): a resumed run's add to the run's before
        for src, k in TOKENS:
            if isinstance(v := stats.get(src), int) and not isinstance(v, bool):
                meta.token_usage[k] = meta.token_usage.get(k, 0) + v
        meta.ending = meta.ending_ref = None  # the last result says how the session ended
        kind = _str(err, "type")
        kind = kind.lstrip("_") if kind else None  # utils/errors.ts getErrorType: a bundler's `_Name` is Name
        ended: dict[str, Any] = {"status": status} if status else {}
        if kind:
            ended["error_type"] = kind
        for key in ("tool_calls", "duration_ms"):
            v = stats.get(key)
            if isinstance(v, int) and not isinstance(v, bool) and (key != "duration_ms" or status == "success"):
                ended[key] = v  # a failed run's duration is written as 0, not measured
        if ended:
            meta.extra["run_result"] = ended
        if status != "error":
            return
        message = _str(err, "message")
        if kind not in LIMIT_ERRORS and message:
            self.ev("agent_text", rec, "/error/message", text=message, info=MessageInfo(api_error=True))
        meta.ending = LIMIT_ERRORS.get(kind or "", "error_unrecoverable")
        meta.ending_ref = Ref(rec.ev.id, "/error/type" if kind else "/status")

    def finish(self) -> None:
        self.flush()
        s = self.s
        for call_id, name in self.calls.items():
            if call_id not in self.answered:
                s.quality.missing_results += 1
                s.warn("no-result", f"tool call {call_id} ({name}) has no tool_result in the stream",
                       s.files[0].path, None)
        if self.result is None:
            s.warn("no-run-result", "the stream has no result event: the run was cut off (or still running) when "
                   "it was saved", s.files[0].path, None)
        if self.stop is not None and s.meta.ending is None:
            s.meta.ending, s.meta.ending_ref = "partial_then_stopped", self.stop


def read_stream(path: Path, data: bytes, name: str, file: SourceFile) -> list[Session]:
    """The runs of a headless stream: one session per `session_id` (runs appended to one file)."""
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    runs: list[_Run] = []
    given = 0

    def give(run: _Run) -> None:  # the problems met before a record belong to the run read then
        nonlocal given
        for w in warnings[given:]:
            run.s.warnings.append(w)
            if w.code in UNPARSABLE_WARNINGS:
                run.s.quality.unparsable_records += 1
                run.s.quality.records += 1
        given = len(warnings)

    for rec in iter_jsonl(data, name, warnings, counters, is_record=event_kind):
        d = rec.data
        sid = _str(d, "session_id") if d.get("type") == "init" else None
        if not runs or (sid and runs[-1].sid and sid != runs[-1].sid):
            if runs:
                give(runs[-1])
                runs[-1].finish()
            runs.append(_Run(Session("gemini", path.stem, [file], {}, [], SessionMeta(agent="gemini-cli"))))
        run = runs[-1]
        give(run)
        if sid and not run.sid:
            run.sid = run.s.session_id = sid
        run.s.add_evidence(rec.ev)
        run.s.quality.records += 1
        run.take(rec)
    if not runs:
        runs.append(_Run(Session("gemini", path.stem, [file], {}, [], SessionMeta(agent="gemini-cli"))))
    give(runs[-1])
    runs[-1].finish()
    if len(runs) > 1:
        runs[0].s.warn("several-runs", f"{len(runs)} runs (session ids) appended to one file: a session each", name,
                       None)
    return [r.s for r in runs]
