"""Claude Code records → normalized events (one record at a time).

The rules that tell typed words from injected text live here, each named so the segmenter
and provenance can cite them:

* `typed`: a user record whose text is plain words → a `user` event, copied verbatim;
* `slash-command`: a `<command-name>/x</command-name><command-args>a</command-args>` wrapper
  → a `user` event "/x a" (derived: the user typed exactly that at the prompt);
* `bash-input`: `<bash-input>cmd</bash-input>` (the user ran `!cmd`) → a `user` event "!cmd";
* everything else a person did not type — `isMeta` lines, caveats, `<system-reminder>`,
  `<local-command-stdout>`, `<task-notification>`, command expansions, another sender's words
  (`_senders`), a prompt Claude Code wrote itself (`promptSource` "system": a /goal check-in, a
  notice that background agents were stopped) — is a `note`;
* `hook`: what a hook gave the agent — a Stop hook's feedback (`Stop hook feedback: …`, an
  isMeta line), context a hook added (`<user-prompt-submit-hook>`, `<system-reminder>` +
  `PostToolUse:Edit hook additional context: …`) — is a `note` of actor `system:hook`
  naming the hook event and the actor it intervened with (the segmenter makes it a step);
* `[Request interrupted by user…]` → an `interrupt` event; in print/SDK mode before 2.1.236, which
  wrote one on SIGTERM too, a note warned `interrupt-unattributed` (no one at a prompt stopped it);
* a person's turn of images or files and no words → a `user` event stating each block it holds
  (`_attachments`), never a caption;
* `isCompactSummary` and old "This session is being continued…" summaries → `compaction`.
* a result whose `toolUseResult.userModified` is true (Edit, MultiEdit): the person changed the
  proposed edit before accepting it → `ResultInfo.user_modified` (R-call/user-modified).
* a rejection is read from the result's words, unless its record's `toolDenialKind` names
  another denier (`_denials`: R-call/claude-denied).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import orjson

from ...evidence import Event, Ref, pointer
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .._records import Record
from ._attachments import attachment_indexes, attachments_event
from ._denials import read_denial
from ._hook_texts import HOOK_KINDS, hook_texts
from ._refusals import FAILED_CALLS, api_error_event
from ._rich import rich_of, slim_rich
from ._senders import claude_code_prompt, forked_copy, other_sender, queued_by_person, sender_tag, unattended_interrupt
from ._server import server_result

# session.warn: (code, message, file, line)
Warn = Callable[[str, str, str | None, int | None], None]

COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
BASH_INPUT = re.compile(r"^\s*<bash-input>(.*?)</bash-input>\s*$", re.S)
INTERRUPT_PREFIX = "[Request interrupted by user"
CONTINUED_PREFIX = "This session is being continued from a previous conversation"
# Wrappers Claude Code puts around text nobody typed at the prompt.
INJECTED_PREFIXES = (
    "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "<system-reminder>",
    "<task-notification>", "<bash-stdout>", "<bash-stderr>", "<user-memory-input>", "Caveat: ",
    "<command-message>", "<user-prompt-submit-hook>", "<session-start-hook>", "<ide_", "<post-tool-use-hook>",
)  # fmt: skip

# Hook events whose output reaches the model during the work (SessionStart context stays a note).
HOOK_EVENTS = "PreToolUse|PostToolUse|UserPromptSubmit|Stop|SubagentStop"
# `<Event>[:<matcher>] hook <what>`: how Claude Code introduces a hook's output to the model.
HOOK_TEXT = re.compile(rf"(?P<wrap><system-reminder>\s*)?(?P<event>{HOOK_EVENTS})(?::\S*)? hook "
                       r"(?:feedback|additional context|blocking error|error)\b")
HOOK_TAGS = {"<user-prompt-submit-hook>": "UserPromptSubmit", "<post-tool-use-hook>": "PostToolUse"}
HOOK_ACTOR = "system:hook"


def hook_event(text: str, meta: bool) -> str | None:
    """The hook event whose output `text` is, or None. An unwrapped `X hook feedback:` line counts
    only on an isMeta record: a person may type those words."""
    s = text.lstrip()
    for tag, event in HOOK_TAGS.items():
        if s.startswith(tag):
            return event
    m = HOOK_TEXT.match(s)
    if m is None or not (meta or m.group("wrap")):
        return None
    return m.group("event")


def mcp_name(name: str) -> str:
    """`mcp__server__tool` → `mcp:server.tool` (the spec's MCP naming); others unchanged."""
    if name.startswith("mcp__"):
        parts = name.split("__")
        if len(parts) >= 3 and parts[1]:
            return f"mcp:{parts[1]}.{'__'.join(parts[2:])}"
    return name


def content_text(content: Any) -> tuple[str, bool]:
    """The text a model saw for tool_result content; (text, excerpt?).

    Strings are exact. Lists join their text blocks, and the names of the tools a tool search
    found (`tool_reference` blocks), with newlines; images are replaced by a stated marker, so
    the value is an excerpt.
    """
    if content is None:
        return "", False
    if isinstance(content, str):
        return content, False
    if isinstance(content, list):
        parts: list[str] = []
        excerpt = False
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                parts.append(b["text"])
            elif isinstance(b, dict) and b.get("type") == "tool_reference" and isinstance(b.get("tool_name"), str):
                parts.append(b["tool_name"])  # a tool ToolSearch found (the API's ToolReferenceBlock): its name
            elif isinstance(b, dict) and b.get("type") == "image":
                src: dict[str, Any] = b["source"] if isinstance(b.get("source"), dict) else {}
                parts.append(f"[image omitted by forsy: {src.get('media_type', 'unknown type')}]")
                excerpt = True
            else:
                excerpt = True
                parts.append("[non-text block omitted by forsy]")
        return "\n".join(parts), excerpt
    return str(content), True


def classify_user_text(text: str) -> tuple[str, str | None]:
    """(kind, derived_text): kind is typed, slash-command, bash-input, interrupt, compaction or note."""
    stripped = text.lstrip()
    if stripped.startswith(INTERRUPT_PREFIX):
        return "interrupt", None
    if stripped.startswith(CONTINUED_PREFIX):
        return "compaction", None
    m = COMMAND_NAME.search(text)
    if m and stripped.startswith("<command-"):
        args_m = COMMAND_ARGS.search(text)
        args = args_m.group(1).strip() if args_m else ""
        name = m.group(1).strip()
        return "slash-command", (f"{name} {args}" if args else name)
    bm = BASH_INPUT.match(text)
    if bm:
        return "bash-input", "!" + bm.group(1)
    if stripped.startswith(INJECTED_PREFIXES) or not stripped or sender_tag(stripped) is not None:
        return "note", None
    if stripped == "Warmup":
        return "note", None
    return "typed", None


def kind_of(v: Any) -> str:
    """A JSON value's kind, as a warning names it."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "a list" if isinstance(v, list) else "an object"


# Top-level fields later rules read, with the one kind each may have (null = absent). A field
# of another kind is warned about with file and line and read as absent, so no later rule
# meets a list where it expects a string (hashing it, comparing it, slicing it).
_STR_FIELDS = ("uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "cwd", "version", "gitBranch",
               "agentId", "subtype", "summary", "leafUuid", "parentToolUseID", "toolDenialKind", "promptSource",
               "entrypoint")
_BOOL_FIELDS = ("isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage")
_MESSAGE_TYPES = ("user", "assistant")


def check_record(rec: Record, warn: Warn) -> Record | None:
    """The record with every field of the wrong kind read as absent (each one warned about),
    or None when its `type` is not a string (nothing can tell what the record is)."""
    d = rec.data
    src, line = rec.ev.source, rec.ev.line
    t = d.get("type")
    if t is not None and not isinstance(t, str):
        warn("field-type", f"record type is {kind_of(t)}, not a string; record skipped", src, line)
        return None
    bad = [k for k in _STR_FIELDS if d.get(k) is not None and not isinstance(d[k], str)]
    bad += [k for k in _BOOL_FIELDS if d.get(k) is not None and not isinstance(d[k], bool)]
    for k in bad:
        want = "true/false" if k in _BOOL_FIELDS else "a string"
        warn("field-type", f"{k} is {kind_of(d[k])}, not {want}; read as absent", src, line)
    data = d.get("data")
    if t == "progress" and not (isinstance(data, dict) and isinstance(data.get("type"), str)):
        what = f"data.type that is {kind_of(data.get('type'))}" if isinstance(data, dict) else \
            f"data that is {kind_of(data)}"
        warn("field-type", f"progress record with {what}; its data was not read", src, line)
        if data is not None:
            bad.append("data")
    msg = d.get("message")
    fixed_msg: dict[str, Any] | None = None
    if t in _MESSAGE_TYPES:
        if not isinstance(msg, dict):
            what = "has no message" if msg is None else f"has a message that is {kind_of(msg)}, not an object"
            warn("field-type", f"{t} record {what}; nothing read from it", src, line)
            bad.append("message")
        else:
            fixed_msg = _check_message(msg, rec, t, warn)
    if not bad and fixed_msg is msg:
        return rec
    kept = {k: v for k, v in d.items() if k not in bad}
    if fixed_msg is not None:
        kept["message"] = fixed_msg
    return Record(rec.ev, kept, rec.prefix)


def _check_message(msg: dict[str, Any], rec: Record, t: str, warn: Warn) -> dict[str, Any]:
    src, line = rec.ev.source, rec.ev.line
    bad = [k for k in ("id", "model") if msg.get(k) is not None and not isinstance(msg[k], str)]
    for k in bad:
        warn("field-type", f"message.{k} is {kind_of(msg[k])}, not a string; read as absent", src, line)
    if msg.get("usage") is not None and not isinstance(msg["usage"], dict):
        warn("field-type", f"message.usage is {kind_of(msg['usage'])}, not an object; read as absent", src, line)
        bad.append("usage")
    c = msg.get("content")
    if not isinstance(c, str | list):
        what = "no content" if c is None else f"content that is {kind_of(c)}, not text or a list of blocks"
        warn("field-type", f"{t} message has {what}; nothing read from it", src, line)
        bad.append("content")
    return {k: v for k, v in msg.items() if k not in bad} if bad else msg


class EventBuilder:
    """Turns one record into events, for one actor ("agent" or "subagent:<id>").

    Records must have passed `check_record`; what is checked here is the content blocks,
    each warned about (file, line) when it cannot be read, so nothing vanishes silently.
    """

    def __init__(self, actor: str, abandoned: set[str], warn: Warn):
        self.actor = actor
        self.abandoned = abandoned
        self.warn = warn
        # uuids of records Claude Code withdrew when the model refused (`_refusals.withdrawn`)
        self.withdrawn: set[str] = set()
        self.call_lines: dict[str, int | None] = {}  # tool_use id → line of its first call
        self.fired: set[str] = set()  # uuids of `scheduled_task_fire` records read so far
        # where a record holds its result's structured copy (the print-mode stream: /tool_use_result)
        self.rich_pointer = "/toolUseResult"
        self.denial_kinds: set[str] = set()  # unknown `toolDenialKind`s already warned about

    def _skip(self, rec: Record, what: str) -> None:
        self.warn("unread-content", f"{what}; not read", rec.ev.source, rec.ev.line)

    def from_record(self, rec: Record) -> list[Event]:
        d = rec.data
        t = d.get("type")
        if forked_copy(d) is not None:
            return []  # the parent session's work, copied into this fork (set aside when loaded)
        if t == "assistant":
            evs = self._assistant(rec)
        elif t == "user":
            evs = self._user(rec)
        elif t == "system":
            evs = self._system(rec)
        elif t == "attachment":
            evs = self._hook_context(rec) or self._queued(rec)
        else:
            return []
        if isinstance(d.get("timestamp"), str):
            for e in evs:
                e.ts_ref = Ref(rec.ev.id, "/timestamp")
        for e in evs:
            if e.kind == "tool_call" and e.refs and e.refs[0].pointer.endswith("/input") and not (
                    isinstance(e.info, CallInfo) and e.info.raw_name is not None):
                e.name_ref = Ref(e.refs[0].ev, e.refs[0].pointer[: -len("/input")] + "/name")
        return evs

    def _flag(self, rec: Record) -> bool:
        # a record Claude Code withdrew is not flagged: it is no branch the person rewound away
        # from (the trace would say so); its words are the refused call's error step (`_assistant`)
        return str(rec.data.get("uuid")) in self.abandoned

    def _call_id(self, rec: Record, b: dict[str, Any], key: str, i: int) -> str | None:
        cid = b.get(key)
        if isinstance(cid, str):
            return cid
        self.warn("field-type", f"message.content[{i}].{key} is {kind_of(cid)}, not a string; the "
                  f"{'call' if key == 'id' else 'result'} is kept unlinked", rec.ev.source, rec.ev.line)
        return None

    def _new_call(self, rec: Record, cid: str | None) -> None:
        if cid is None:
            return
        if cid in self.call_lines:
            first = self.call_lines[cid]
            self.warn("duplicate-call-id", f"tool_use id {cid!r} was already used at line {first}; both calls are "
                      "kept, a result can be linked to only one of them", rec.ev.source, rec.ev.line)
        else:
            self.call_lines[cid] = rec.ev.line

    def _assistant(self, rec: Record) -> list[Event]:
        d = rec.data
        msg: dict[str, Any] = d["message"] if isinstance(d.get("message"), dict) else {}
        blocks = msg.get("content")
        ts = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
        group = msg.get("id") if isinstance(msg.get("id"), str) else str(d.get("uuid"))
        ab = self._flag(rec)
        out: list[Event] = []
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
            base = ("message", "content")
            refs_for = [Ref(rec.ev.id, pointer(*base))]
        else:
            refs_for = []
        if not isinstance(blocks, list):
            return out
        for i, b in enumerate(blocks):
            if not isinstance(b, dict):
                self._skip(rec, f"message.content[{i}] is {kind_of(b)}, not a content block")
                continue
            ref = refs_for[0] if refs_for else None
            bt = b.get("type")
            if bt == "text" and isinstance(b.get("text"), str):
                r = ref or Ref(rec.ev.id, pointer("message", "content", i, "text"))
                e = Event("agent_text", self.actor, ts, [r], text=b["text"], group=group, abandoned=ab)
                if d.get("isApiErrorMessage") or msg.get("model") == "<synthetic>":
                    e.info = MessageInfo(synthetic=True, api_error=bool(d.get("isApiErrorMessage")))
                elif msg.get("stop_reason") == "refusal" or str(d.get("uuid")) in self.withdrawn:
                    e.info = MessageInfo(api_error=True)  # a refused answer's words: the failed call's, no answer
                out.append(e)
            elif bt == "thinking":
                if isinstance(b.get("thinking"), str) and b["thinking"].strip():
                    r = Ref(rec.ev.id, pointer("message", "content", i, "thinking"))
                    out.append(Event("reasoning", self.actor, ts, [r], text=b["thinking"], group=group,
                                     abandoned=ab))
                else:
                    if b.get("thinking") is not None and not isinstance(b["thinking"], str):
                        self._skip(rec, f"message.content[{i}].thinking is {kind_of(b['thinking'])}, not text")
                    out.append(Event("note", self.actor, ts, [Ref(rec.ev.id, pointer("message", "content", i))],
                                     group=group, abandoned=ab, info=NoteInfo(subtype="encrypted_reasoning")))
            elif bt == "redacted_thinking":
                out.append(Event("note", self.actor, ts, [Ref(rec.ev.id, pointer("message", "content", i))],
                                 group=group, abandoned=ab, info=NoteInfo(subtype="encrypted_reasoning")))
            elif bt in ("tool_use", "server_tool_use") and isinstance(b.get("name"), str):
                cid = self._call_id(rec, b, "id", i)
                self._new_call(rec, cid)
                r = Ref(rec.ev.id, pointer("message", "content", i, "input"))
                e = Event("tool_call", self.actor, ts, [r], call_id=cid, tool=mcp_name(b["name"]),
                          args=b.get("input"), group=group, abandoned=ab)
                if e.tool != b["name"] or bt == "server_tool_use":
                    e.info = CallInfo(raw_name=b["name"] if e.tool != b["name"] else None,
                                      server_side=bt == "server_tool_use")
                out.append(e)
            elif isinstance(bt, str) and bt.endswith("_tool_result") and b.get("tool_use_id") is not None:
                # server-side tool results (web search, the advisor) arrive inside the assistant message
                if b.get("is_error") is not None and not isinstance(b["is_error"], bool):
                    self.warn("field-type", f"message.content[{i}].is_error is {kind_of(b['is_error'])}, not "
                              "true/false; read as not known", rec.ev.source, rec.ev.line)
                out.extend(server_result(rec, b, i, ts, ab, self._call_id(rec, b, "tool_use_id", i), self.actor))
            else:
                self._skip(rec, _odd_block(b, i))
        return out

    def _user(self, rec: Record) -> list[Event]:
        d = rec.data
        msg: dict[str, Any] = d["message"] if isinstance(d.get("message"), dict) else {}
        content = msg.get("content")
        ts = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
        ab = self._flag(rec)
        if d.get("isCompactSummary"):
            text, _ = _plain_text(content)
            ptr = pointer("message", "content") if isinstance(content, str) else pointer(
                "message", "content", 0, "text")
            return [Event("compaction", "system", ts, [Ref(rec.ev.id, ptr)], text=text, abandoned=ab)]
        if isinstance(content, str):
            return self._user_text(rec, content, pointer("message", "content"), ts, ab)
        if not isinstance(content, list):
            return []
        if (at := attachment_indexes(content)) and self._persons_turn(d):
            return [attachments_event(rec.ev.id, content, ("message", "content"), at, ts, ab)]
        out: list[Event] = []
        texts: list[tuple[int, str]] = []
        images = 0  # images and documents sent with the words (an empty text block is none)
        for i, b in enumerate(content):
            if not isinstance(b, dict):
                self._skip(rec, f"message.content[{i}] is {kind_of(b)}, not a content block")
                continue
            if b.get("type") == "tool_result":
                out.append(self._tool_result(rec, b, i, ts, ab))
            elif b.get("type") == "text" and isinstance(b.get("text"), str):
                if b["text"]:
                    texts.append((i, b["text"]))
            elif b.get("type") in ("image", "document"):
                images += 1
            else:
                self._skip(rec, _odd_block(b, i))
        for i, t in texts:
            out.extend(self._user_text(rec, t, pointer("message", "content", i, "text"), ts, ab))
        if images and any(e.kind == "user" for e in out):
            for e in out:
                if e.kind == "user":
                    if not isinstance(e.info, MessageInfo):
                        e.info = MessageInfo()
                    e.info.attachments_omitted = images
        return out

    def _persons_turn(self, d: dict[str, Any]) -> bool:
        """Whether a record of no words is the person's turn, by the rules `_user_text` reads words by."""
        return (self.actor == "agent" and not d.get("isMeta") and not other_sender(d) and not claude_code_prompt(d)
                and d.get("parentUuid") not in self.fired)

    def _user_text(self, rec: Record, text: str, ptr: str, ts: str | None, ab: bool) -> list[Event]:
        d = rec.data
        ref = [Ref(rec.ev.id, ptr)]
        hook = hook_event(text, bool(d.get("isMeta")))
        if hook is not None:
            return [Event("note", HOOK_ACTOR, ts, ref, text=text, abandoned=ab,
                          info=NoteInfo(subtype="hook", hook=hook, hook_target=self.actor))]
        if d.get("isMeta"):
            return [Event("note", "system", ts, ref, text=text, abandoned=ab, info=NoteInfo(subtype="meta"))]
        if self.actor != "agent":
            # inside a subagent transcript the "user" is the parent agent or the harness
            kind, _ = classify_user_text(text)
            sub = "interrupt" if kind == "interrupt" else "subagent_prompt"
            return [Event("note", self.actor, ts, ref, text=text, abandoned=ab, info=NoteInfo(subtype=sub))]
        sender = other_sender(d)
        # another sender's origin, Claude Code's own prompt, or the prompt a scheduled task (/loop, CronCreate) fired
        sent = (f"origin:{sender}" if sender else "prompt-source:system" if claude_code_prompt(d)
                else "scheduled-prompt" if d.get("parentUuid") in self.fired else None)
        if sent is not None:
            return [Event("note", "system", ts, ref, text=text, abandoned=ab, info=NoteInfo(subtype=sent))]
        kind, derived = classify_user_text(text)
        if kind == "typed":
            return [Event("user", "user", ts, ref, text=text, abandoned=ab)]
        if kind in ("slash-command", "bash-input"):
            return [Event("user", "user", ts, ref, text=derived, abandoned=ab, info=MessageInfo(rule=kind))]
        if kind == "interrupt" and (entry := unattended_interrupt(d)) is not None:
            self.warn("interrupt-unattributed", f"an interrupted turn in print/SDK mode (entrypoint {entry}, "
                      f"Claude Code {d.get('version')}): before 2.1.236 Claude Code wrote one on SIGTERM as on the "
                      "driving program's interrupt, no one at a prompt: a note, not the user's interrupt",
                      rec.ev.source, rec.ev.line)
            return [Event("note", "system", ts, ref, text=text, abandoned=ab, info=NoteInfo(subtype="interrupt"))]
        if kind == "interrupt":
            return [Event("interrupt", "user", ts, ref, text=text, abandoned=ab)]
        if kind == "compaction":
            return [Event("compaction", "system", ts, ref, text=text, abandoned=ab)]
        return [Event("note", "system", ts, ref, text=text, abandoned=ab,
                      info=NoteInfo(subtype=sender_tag(text) or "injected"))]

    def _hook_context(self, rec: Record) -> list[Event]:
        """What a hook gave the model, written (newer versions) as an attachment (`_hook_texts`: the
        context it added, the reason it blocked, a prompt or session hook's output, a background
        hook's response). The hook's note, one per text, as the `<system-reminder>` line that
        carried it before is (R-hook for the events in HOOK_EVENTS; a SessionStart hook's stays a note)."""
        att = rec.data.get("attachment")
        if not isinstance(att, dict) or att.get("type") not in HOOK_KINDS:
            return []
        ts = rec.data.get("timestamp") if isinstance(rec.data.get("timestamp"), str) else None
        items = hook_texts(att)
        event = att.get("hookEvent")
        during = isinstance(event, str) and event in HOOK_EVENTS.split("|")
        out = []
        for ptr, text in items:
            if not isinstance(text, str):
                self._skip(rec, f"{ptr} is {kind_of(text)}, not text")
            elif during:
                out.append(Event("note", HOOK_ACTOR, ts, [Ref(rec.ev.id, ptr)], text=text, abandoned=self._flag(rec),
                                 info=NoteInfo(subtype="hook", hook=str(event), hook_target=self.actor)))
            else:
                out.append(Event("note", "system", ts, [Ref(rec.ev.id, ptr)], text=text, abandoned=self._flag(rec),
                                 info=NoteInfo(subtype="injected")))
        return out

    def _queued(self, rec: Record) -> list[Event]:
        """A prompt typed while the agent worked: Claude Code writes it as an attachment of type
        `queued_command` (no user line). Typed by the person (`commandMode` "prompt", `origin.kind`
        "human", not isMeta: `queued_by_person`) it is read as a typed message is, in the main
        thread (a subagent's: a note of actor `user`); any other queued command is a note."""
        att = rec.data.get("attachment")
        if not isinstance(att, dict) or att.get("type") != "queued_command":
            return []  # other attachments carry no words (set aside by type)
        ts = rec.data.get("timestamp") if isinstance(rec.data.get("timestamp"), str) else None
        ab = self._flag(rec)
        prompt = att.get("prompt")
        texts: list[tuple[str, str]] = []
        images = 0
        if isinstance(prompt, str):
            texts.append((pointer("attachment", "prompt"), prompt))
        elif isinstance(prompt, list):
            for i, b in enumerate(prompt):
                if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                    if b["text"]:
                        texts.append((pointer("attachment", "prompt", i, "text"), b["text"]))
                elif isinstance(b, dict) and b.get("type") in ("image", "document"):
                    images += 1
                else:
                    self._skip(rec, f"attachment.prompt[{i}] is {kind_of(b)}, not a text, image or document block")
        else:
            self.warn("field-type", f"queued_command attachment whose prompt is {kind_of(prompt)}, not text or a "
                      "list of blocks; not read", rec.ev.source, rec.ev.line)
            return []
        person = queued_by_person(rec.data)
        if isinstance(prompt, list) and (at := attachment_indexes(prompt)) and person and self.actor == "agent":
            return [attachments_event(rec.ev.id, prompt, ("attachment", "prompt"), at, ts, ab)]
        if not person or self.actor != "agent":
            actor = "user" if person else "system"
            return [Event("note", actor, ts, [Ref(rec.ev.id, ptr)], text=t, abandoned=ab,
                          info=NoteInfo(subtype="queued_command")) for ptr, t in texts]
        out = [e for ptr, t in texts for e in self._user_text(rec, t, ptr, ts, ab)]
        for e in out:
            if images and e.kind == "user":
                if not isinstance(e.info, MessageInfo):
                    e.info = MessageInfo()
                e.info.attachments_omitted = images
        return out

    def _tool_result(self, rec: Record, b: dict[str, Any], i: int, ts: str | None, ab: bool) -> Event:
        content = b.get("content")
        if content is None or isinstance(content, str | list):
            text, excerpt = content_text(content)
        else:
            self.warn("field-type", f"message.content[{i}].content is {kind_of(content)}, not text or a list of "
                      "blocks; kept as its JSON text", rec.ev.source, rec.ev.line)
            text, excerpt = json_text(content), False
        is_error = b.get("is_error")
        if is_error is not None and not isinstance(is_error, bool):
            self.warn("field-type", f"message.content[{i}].is_error is {kind_of(is_error)}, not true/false; "
                      "read as not known", rec.ev.source, rec.ev.line)
        whole, rich = rec.data.get("toolUseResult"), rich_of(rec.data)
        if is_error is None and isinstance(rich, str) and rich.startswith("Error:"):
            is_error = True  # the writer's toolUseResult of a failed call is its text behind "Error: "
        e = Event("tool_result", self.actor, ts, [Ref(rec.ev.id, pointer("message", "content", i, "content"))],
                  text=text, call_id=self._call_id(rec, b, "tool_use_id", i),
                  is_error=bool(is_error) if is_error is None or isinstance(is_error, bool) else None,
                  excerpt=excerpt, abandoned=ab)
        info = ResultInfo()
        if whole is not None:
            info.rich = slim_rich(whole)
            info.rich_ref = Ref(rec.ev.id, self.rich_pointer)
        if isinstance(rich, dict) and rich.get("userModified") is True:
            # Edit/MultiEdit ran on the input the person changed in the diff view (the call's input
            # is the model's proposal); the result, its patch, is of what was written
            info.user_modified = Ref(rec.ev.id, self.rich_pointer + "/userModified")
        if isinstance(rich, str) and rich.startswith("User rejected"):
            info.rejected = True
        elif isinstance(text, str) and text.startswith("The user doesn't want to proceed with this tool use"):
            info.rejected = True
        e.info = info
        read_denial(rec, e, info, self.denial_kinds, self.warn)  # the record's kind decides who denied
        return e

    def _system(self, rec: Record) -> list[Event]:
        d = rec.data
        ts = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
        sub = d.get("subtype")
        content: str = d["content"] if isinstance(d.get("content"), str) else ""
        if d.get("content") is not None and not isinstance(d["content"], str):
            self._skip(rec, f"system content is {kind_of(d['content'])}, not text")
        ref = [Ref(rec.ev.id, pointer("content"))]
        ab = self._flag(rec)
        if sub == "local_command" and self.actor == "agent":
            kind, derived = classify_user_text(content)
            if kind == "slash-command":
                return [Event("user", "user", ts, ref, text=derived, abandoned=ab, info=MessageInfo(rule=kind))]
            return [Event("note", "system", ts, ref, text=content, abandoned=ab,
                          info=NoteInfo(subtype="local_command"))]
        if sub == "scheduled_task_fire" and isinstance(d.get("uuid"), str):
            self.fired.add(d["uuid"])  # its child is the prompt the timer sent (set aside itself)
        if sub == "compact_boundary":
            return [Event("note", "system", ts, [Ref(rec.ev.id, "")], abandoned=ab,
                          info=NoteInfo(subtype="compact_boundary", compact=d.get("compactMetadata")))]
        if sub in FAILED_CALLS:  # an API error, or a model's refusal (retried on a fallback model or not)
            return [api_error_event(rec, self.actor, ts, ab)]
        return []


def _plain_text(content: Any) -> tuple[str, bool]:
    if isinstance(content, str):
        return content, False
    return content_text(content)


def json_text(value: Any) -> str:
    """A parsed value as compact JSON text. orjson refuses integers beyond 64 bits and deep
    nesting; the stdlib writes both exactly (records are at most MAX_DEPTH deep)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _odd_block(b: dict[str, Any], i: int) -> str:
    """Why a content block was not read, for its warning."""
    bt = b.get("type")
    if not isinstance(bt, str):
        return f"message.content[{i}] has a type that is {kind_of(bt)}"
    for key in ("text", "name", "tool_use_id"):
        if key in b and not isinstance(b[key], str):
            return f"message.content[{i}] ({bt}) has a {key} that is {kind_of(b[key])}, not a string"
    return f"message.content[{i}] is a {bt!r} block, a kind forsy does not read"
