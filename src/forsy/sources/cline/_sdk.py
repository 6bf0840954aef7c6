"""Cline's SDK sessions: `<session id>.messages.json` (the VS Code extension since its SDK
migration, and the `cline` CLI), under `~/.cline/data/sessions/<session id>/`.

The writer is the SDK's session store (sdk/packages/core/src/services/session-data.ts,
`buildMessagesFilePayload`): one JSON object `{version, updated_at, agent, sessionId,
taskType?, origin, messages, system_prompt?}`, written whole again as the conversation grows.
It is the canonical transcript: the compacted view the model got after a compaction is kept
apart, in `<session id>.compaction.json` (`SessionCompactionState`: `_compaction`; a
compaction summary written into the transcript itself is read here). Each message is a
`MessageWithMetadata` (sdk/packages/shared/src/llms/messages.ts): `role` user or assistant,
`content` a string or blocks, `id`, `ts` (epoch ms), `modelInfo`, `metrics`, `metadata`.
Each message is one `Evidence` (its exact bytes); each other top-level member is one too.

* assistant: `text` → the agent's text, `thinking` → reasoning, `tool_use` → a call (exact
  `name` and `input`; the calls of one message are one group); `redacted_thinking` and
  generated `media` are counted; `modelInfo.id` → models, `metrics` → token usage; each of
  `metadata.modelToolActivities` (a tool run during the model call by the provider, or by the
  model SDK, not by the runtime) → a call (`server_side` when the provider ran it) and, when
  it has `output` or `isError`, its result (`isError` fails it), read before the blocks (in
  no parallel group: the provider ran them in its own loop);
* user: `tool_result` → the result of the call it names (`is_error` fails it); text the
  person typed, cut out of its `<user_input mode="…">` wrapper when it has one (C-span, the
  wrapper named); a message whose `metadata.kind` is `compaction` / `compaction_summary` is
  a compaction; one whose `metadata.displayRole` is system / status / error, or whose kind
  is one of the runtime's own (`user-run-messages.ts`), is a system note, as are the
  continuation prompts (`[TASK RESUMPTION]`, the act-mode approval) and attached files;
* `system_prompt` → the system prompt; `sessionId`, `agent`, `origin` → the session's facts;
* the manifest beside it (`<session id>.json`): `cwd` → the working directory; `status`,
  `exit_code` → agent_config;
* a subagent's or teammate's transcript (header `agent`): its user words are the task the agent
  that runs it gave, never a person's; read with its root session (`_subagents`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile, pointer
from ...jsontext import json_text
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .. import ReadContext
from .._records import Record
from .._side import one_object, read_side
from ..chat import provider_content
from ..json_doc import read_object_array
from ..lines import sha256, source_name
from ._harness import INJECTED, RESULT, harness_kind

SUFFIX = ".messages.json"
# user-run-messages.ts SYNTHETIC_USER_MESSAGE_KINDS: user-role messages the runtime writes
SYNTHETIC = frozenset({"auto_compaction", "compaction_budget_emergency", "completion_reminder",
                       "loop_detection_notice", "manual_compaction", "mistake_stop_notice", "recovery_notice"})
COMPACTION = frozenset({"compaction", "compaction_summary"})
# prompts the runtime sends in the user's place (sdk-user-message-mapping.ts isSyntheticUserPrompt,
# team-session-coordinator.ts), whether wrapped in <user_input> or not: (how they start, the note's subtype)
RUNTIME_TEXTS = (("[TASK RESUMPTION]", "continuation"),
                 ("The user approved switching to act mode. Continue with the approved plan now.", "continuation"),
                 ("<hook_context", "hook_context"), ("System-delivered teammate async run updates:", "team_updates"),
                 ("<file_content", "files_attached"))
# ai-sdk-format.ts EMPTY_CONTENT_TEXT: what agent-message-codec.ts puts in a message with no blocks,
# persisted with it when the conversation is written back: neither the model's nor the person's
EMPTY = "ERROR: EMPTY CONTENT"
NOTICE, NOTICE_END = "<mode_notice>", "</mode_notice>"  # format.ts formatModeSwitchNotice
USER_INPUT = re.compile(r"<user_input\b[^>]*>(.*?)</user_input>", re.S)  # format.ts formatUserInputBlock
TOKENS = (("inputTokens", "input"), ("outputTokens", "output"), ("cacheReadTokens", "cache_read"),
          ("cacheWriteTokens", "cache_write"))
HEADER_WHY = "the session file's header (session id, agent, origin, update time)"
DELEGATED = frozenset({"subagent", "teammate"})  # session-data.ts MessagesFileContext.agent: not the lead


# A task begun before the SDK and resumed in it is seeded from its old API history
# (apps/vscode/src/sdk/legacy-task-handling.ts legacyApiHistoryToSdkMessages): the user turns
# keep the blocks Cline wrote then (the task in <task>, the environment details, results as
# `[tool] Result:` text, its notices), and a warning may follow them
LEGACY_WARNING = "Warning: this is a legacy conversation, which means tool names may have changed."
TASK = re.compile(r"\s*<task>\n(.*)\n</task>\s*", re.S)


def _legacy_kind(body: str) -> str | None:
    """The kind of a block of the old API history Cline wrote in the user's place, if it is one."""
    if body.startswith(INJECTED):
        return "injected_context"
    if body.startswith(LEGACY_WARNING):
        return "legacy_resume_warning"
    if RESULT.match(body):
        return "legacy_result_text"
    return harness_kind(body)


def is_sdk_messages(path: Path, head: bytes) -> bool:
    h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return (path.name.endswith(SUFFIX) and h.startswith(b"{") and b'"messages"' in h
            and b'"sessionId"' in h[:4096])


def iso_ms(ms: Any) -> str | None:
    """An epoch-milliseconds time (Cline writes `ts` so) as ISO 8601, or None when it is none."""
    if not isinstance(ms, int) or isinstance(ms, bool) or not 0 < ms < 10**14:
        return None
    # whole seconds, then the ms as they are: `ms / 1000` is a float that loses a ms near 10**14
    t = datetime.fromtimestamp(ms // 1000, tz=UTC).replace(microsecond=ms % 1000 * 1000)
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_sdk(path: Path, data: bytes, name: str, ctx: ReadContext | None = None) -> Session:
    doc = read_object_array(data, name, "messages")
    sid = doc.header.get("sessionId") if doc is not None else None
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    s = Session("cline", sid if isinstance(sid, str) and sid else stem,
                [SourceFile(name, str(path.resolve()), "cline", len(data), sha256(data))], {}, [],
                SessionMeta(agent="cline"))
    s.quality.extra["sdk_session"] = 1
    if doc is None:
        s.quality.unparsable_records += 1
        s.warn("unparsable", "an SDK session file that is not a JSON object; not read", name, 1)
        return s
    for code, msg, line in doc.problems:
        s.warn(code, msg, name, line)
    s.quality.records = doc.elements + len(doc.spans)
    s.quality.unparsable_records = doc.elements - len(doc.records)
    _header(s, doc.header, doc.spans, name)
    b = _Builder(s)
    for j, rec in enumerate(doc.records):
        s.add_evidence(rec.ev)
        b.message(j, rec)
    _manifest(path.with_name(path.name[: -len(SUFFIX)] + ".json") if path.name.endswith(SUFFIX) else None, s, ctx)
    return s


def _manifest(path: Path | None, s: Session, ctx: ReadContext | None) -> None:
    """The session's manifest beside its messages (`<session id>.json`, SessionManifestSchema in
    session-manifest.ts): one record; `cwd` is the session's working directory, `status` and
    `exit_code` how the session ended (kept in agent_config)."""
    if path is None or not path.is_file():
        return
    name = source_name(path, ctx.root if ctx else None)
    try:
        data = read_side(path, name, "cline", s, ctx.limits if ctx else None)
    except InputError as e:
        s.warn("manifest-unreadable", f"{path.name}: {e.message}", name)
        return
    doc, ev = one_object(data, name, "manifest", s)
    if doc is None:
        s.warn("unparsable", "the session's manifest is not a JSON object; not read", name, 1)
        return
    if isinstance(doc.get("cwd"), str) and doc["cwd"]:
        s.meta.cwd = doc["cwd"]
    for key in ("status", "exit_code", "source", "workspace_root"):
        if doc.get(key) is not None:
            s.meta.extra[f"sdk_{key}"] = doc[key]
    s.mark(ev.id, "metadata", "the session's manifest (cwd, status, exit code; agent_config.sdk_*)", "manifest")


def _header(s: Session, header: dict[str, Any], spans: dict[str, tuple[int, int, bytes]], name: str) -> None:
    for key, (line, off, raw) in spans.items():
        ev = Evidence.make(name, line, off, raw, sha256(raw), key)
        s.add_evidence(ev)
        if key == "system_prompt" and isinstance(header.get(key), str):
            s.meta.system_prompt, s.meta.system_prompt_ref = header[key], Ref(ev.id, "")
        s.mark(ev.id, "metadata", HEADER_WHY, key)
    for key in ("agent", "taskType"):
        if isinstance(header.get(key), str):
            s.meta.extra[f"sdk_{key}"] = header[key]
    origin = header.get("origin")
    if isinstance(origin, dict):
        s.meta.extra["sdk_origin"] = origin


class _Builder:
    def __init__(self, s: Session) -> None:
        self.s = s
        self.calls: dict[str, Event] = {}
        # a subagent's or teammate's transcript (`agent` in its header): its user words are its task
        self.delegated = s.meta.extra.get("sdk_agent") in DELEGATED

    def _ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = iso_ms(rec.data.get("ts"))
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, ptr)],
                   ts_from=Ref(rec.ev.id, "/ts") if ts else None, **fields)  # epoch ms → ISO: derived (R-time)
        self.s.events.append(ev)
        return ev

    def _count(self, key: str) -> None:
        self.s.quality.extra[key] = self.s.quality.extra.get(key, 0) + 1

    def _blocks(self, rec: Record) -> list[tuple[str, dict[str, Any]]]:
        c = rec.data.get("content")
        if isinstance(c, str):
            return [("/content", {"type": "text", "text": c, "_whole": True})]
        out = []
        for i, blk in enumerate(c if isinstance(c, list) else []):
            if isinstance(blk, dict):
                out.append((f"/content/{i}", blk))
            else:
                self.s.warn("field-type", f"content[{i}] is not a block; skipped", rec.ev.source, rec.ev.line)
        if not isinstance(c, str | list):
            self.s.warn("field-type", "a message whose content is neither text nor blocks; skipped", rec.ev.source,
                        rec.ev.line)
        return out

    def message(self, j: int, rec: Record) -> None:
        role = rec.data.get("role")
        before = len(self.s.events)
        if role == "assistant":
            self._assistant(j, rec)
        elif role == "user":
            self._user(rec)
        else:
            self.s.quality.unknown_records += 1
            self.s.warn("unknown-record", f"a message of role {role!r}; skipped", rec.ev.source, rec.ev.line)
            return
        if len(self.s.events) == before and rec.ev.id not in self.s.ledger:
            self.s.mark(rec.ev.id, "set_aside", "a message with no text, call or result (an image, a file, "
                        "redacted reasoning)", str(role))

    def _assistant(self, j: int, rec: Record) -> None:
        s, d = self.s, rec.data
        info = d.get("modelInfo")
        model = info.get("id") if isinstance(info, dict) else None
        if isinstance(model, str) and model not in s.meta.models:
            s.meta.models.append(model)
        metrics = d.get("metrics")
        for src, dst in TOKENS:
            v = metrics.get(src) if isinstance(metrics, dict) else None
            if isinstance(v, int) and not isinstance(v, bool):
                s.meta.token_usage[dst] = s.meta.token_usage.get(dst, 0) + v
        self._activities(rec)
        for ptr, blk in self._blocks(rec):
            bt, p = blk.get("type"), "" if blk.get("_whole") else ptr
            if bt == "text" and blk.get("text") == EMPTY:
                self._placeholder(rec, p + ("/text" if p else "/content"))
            elif bt == "text" and isinstance(blk.get("text"), str) and blk["text"].strip():
                self._ev("agent_text", rec, p + ("/text" if p else "/content"), text=blk["text"])
            elif bt == "thinking" and isinstance(blk.get("thinking"), str) and blk["thinking"].strip():
                self._ev("reasoning", rec, ptr + "/thinking", text=blk["thinking"])
            elif bt == "tool_use":
                name = blk.get("name") if isinstance(blk.get("name"), str) else None
                cid = blk["id"] if isinstance(blk.get("id"), str) else f"{rec.ev.id}{ptr}"
                self.calls[cid] = self._ev("tool_call", rec, ptr + "/input", call_id=cid, tool=name,
                                           args=blk.get("input"), group=f"M{j}",
                                           name_ref=Ref(rec.ev.id, ptr + "/name") if name else None)
            elif bt in ("redacted_thinking", "media"):
                self._count(f"sdk_{bt}")

    def _activities(self, rec: Record) -> None:
        """Tools that ran during the model call, outside Cline's runtime: the provider's (a hosted
        web search; a provider that is itself an agent, like Claude Code, runs its own tools) or
        the model SDK's. Their calls and results never enter `content` (the runtime would replay
        them as calls awaiting results); they are kept in `metadata.modelToolActivities`
        (agent-runtime.ts, AgentModelToolActivity in shared/src/agent.ts). Each is a call of the
        agent's, then a result when it has `output` or `isError`, read before the message's own
        blocks: as display-messages.ts reads and shows them."""
        meta = rec.data.get("metadata")
        acts = meta.get("modelToolActivities") if isinstance(meta, dict) else None
        if acts is None:
            return
        if not isinstance(acts, list):
            self.s.warn("field-type", "metadata.modelToolActivities is not a list; not read", rec.ev.source,
                        rec.ev.line)
            return
        for k, a in enumerate(acts):
            at = pointer("metadata", "modelToolActivities", k)
            if not isinstance(a, dict):
                self.s.warn("field-type", f"metadata.modelToolActivities[{k}] is not an object; skipped",
                            rec.ev.source, rec.ev.line)
                continue
            name = a["toolName"] if isinstance(a.get("toolName"), str) and a["toolName"] else None
            cid = a["toolCallId"] if isinstance(a.get("toolCallId"), str) and a["toolCallId"] else f"{rec.ev.id}{at}"
            # no parallel group: they ran in the provider's (or the model SDK's) own loop within the
            # one model call, and the log does not say that any two ran together
            self.calls[cid] = self._ev("tool_call", rec, at + "/input" if "input" in a else at, call_id=cid,
                                       tool=name, args=a.get("input"),
                                       name_ref=Ref(rec.ev.id, at + "/toolName") if name else None,
                                       info=CallInfo(server_side=a.get("execution") == "provider"))
            if "output" not in a and "isError" not in a:
                continue  # the call alone: its result never came back
            refs, texts = provider_content(rec.ev.id, at + "/output", a.get("output"))
            res = self._ev("tool_result", rec, at + ("/output" if "output" in a else "/isError"),
                           text="\n".join(texts) if texts else None, call_id=cid, tool=name,
                           is_error=a.get("isError") is True, info=ResultInfo())
            res.refs = refs or res.refs

    def _placeholder(self, rec: Record, ptr: str) -> None:
        self._ev("note", rec, ptr, actor="system", text=EMPTY, info=NoteInfo(subtype="empty_content"))
        self.s.mark(rec.ev.id, "set_aside", "the SDK's placeholder for a message with no content", "empty_content")

    def _user(self, rec: Record) -> None:
        raw = rec.data.get("metadata")
        meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
        kind = meta.get("kind") if isinstance(meta.get("kind"), str) else None
        role = meta.get("displayRole") if isinstance(meta.get("displayRole"), str) else None
        for ptr, blk in self._blocks(rec):
            p = "/content" if blk.get("_whole") else ptr + "/text"
            bt, text = blk.get("type"), blk.get("text")
            if bt == "tool_result":
                self._result(rec, ptr, blk)
            elif bt == "text" and text == EMPTY:
                self._placeholder(rec, p)
            elif bt in ("image", "file"):
                self._count(f"sdk_user_{bt}s")
            elif bt != "text" or not isinstance(text, str) or not text.strip():
                continue
            elif kind in COMPACTION:
                self._ev("compaction", rec, p, actor="system", text=text, info=NoteInfo(subtype=kind))
                self.s.quality.compactions += 1
            elif kind in SYNTHETIC or (role or "").lower() in ("system", "status", "error"):
                self._ev("note", rec, p, actor="system", text=text, info=NoteInfo(subtype=kind or role))
                self.s.mark(rec.ev.id, "set_aside", "a message the Cline runtime wrote in the user's place", kind)
            else:
                self._words(rec, p, text)

    def _words(self, rec: Record, p: str, text: str) -> None:
        """A user text block: the person's words, or text the runtime wrote in their place."""
        m = USER_INPUT.search(text)
        a, z = (m.start(1), m.end(1)) if m else (0, len(text))
        while text.startswith(NOTICE, a) and (end := text.find(NOTICE_END, a)) >= 0:
            a = end + len(NOTICE_END)  # a mode switch's notice the runtime prepends: not typed
            a += len(text[a:z]) - len(text[a:z].lstrip())
        words = text[a:z]
        body = words.lstrip()
        sub = next((k for start, k in RUNTIME_TEXTS if body.startswith(start)), None) or _legacy_kind(body)
        if m is None and (task := TASK.fullmatch(text)) is not None:
            a, z = task.span(1)  # the first prompt of a task migrated from the old API history
            words = text[a:z]
        if sub is not None:
            self._ev("note", rec, p, actor="system", text=text, info=NoteInfo(subtype=sub))
            self.s.mark(rec.ev.id, "set_aside", "text Cline wrote in the user's place", sub)
        elif not words.strip():
            self.s.mark(rec.ev.id, "set_aside", "a user message with no words (a mode notice alone)", "user")
        elif self.delegated:  # no person writes to a subagent or a teammate: the agent that runs it does
            self._ev("note", rec, p, actor="agent", text=words,
                     info=NoteInfo(subtype="subagent_input", span=None if (a, z) == (0, len(text)) else (a, z)))
            self.s.mark(rec.ev.id, "set_aside", "the task the agent that runs this one gave it", "user")
        elif (a, z) == (0, len(text)):
            self._ev("user", rec, p, actor="user", text=text)
        else:
            wrapped = "user_input" if m else "task" if text.lstrip().startswith("<task>") else "mode_notice"
            self._ev("user", rec, p, actor="user", text=words, info=MessageInfo(span=(a, z), wrapped=wrapped))

    def _result(self, rec: Record, ptr: str, blk: dict[str, Any]) -> None:
        cid = blk.get("tool_use_id") if isinstance(blk.get("tool_use_id"), str) else None
        c = blk.get("content")
        refs, texts = [], []
        if isinstance(c, str):
            refs, texts = [Ref(rec.ev.id, ptr + "/content")], [c]
        failed = blk.get("is_error") is True
        for k, part in enumerate(c if isinstance(c, list) else []):
            at = pointer(*ptr.strip("/").split("/"), "content", k)
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                refs.append(Ref(rec.ev.id, at + "/text"))
                texts.append(part["text"])
            elif isinstance(part, dict) and part.get("type") in ("image", "file"):
                self._count(f"sdk_result_{part['type']}s")
            elif isinstance(part, dict) and "type" not in part and isinstance(part.get("success"), bool):
                # a ToolOperationResult {query, result, error?, success} (types.ts): persisted as it is
                # (persisted-tool-result-content.ts); one per command, file or edit the call asked for
                for key in ("result", "error"):
                    if part.get(key) is not None:
                        refs.append(Ref(rec.ev.id, f"{at}/{key}"))
                        texts.append(json_text(part[key]))
                failed = failed or part["success"] is False
            elif part is not None:  # another structured output (a provider's search result): as written
                refs.append(Ref(rec.ev.id, at))
                texts.append(json_text(part))
        call = self.calls.get(cid) if cid else None
        name = blk.get("name") if isinstance(blk.get("name"), str) else (call.tool if call else None)
        ts = iso_ms(rec.data.get("ts"))
        ev = Event("tool_result", "agent", ts, refs or [Ref(rec.ev.id, ptr)], text="\n".join(texts) if texts else None,
                   call_id=cid, tool=name, is_error=failed,
                   ts_from=Ref(rec.ev.id, "/ts") if ts else None, info=ResultInfo(orphan=call is None))
        self.s.events.append(ev)
        if call is None:
            self.s.warn("orphan-result", f"a tool_result for {cid!r}, a call this file does not hold", rec.ev.source,
                        rec.ev.line)

