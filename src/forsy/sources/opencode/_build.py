"""One OpenCode session (a thread: the main session or a subagent's) read into events, message
by message in id order, each message's parts in id order (the order the writer lists them in:
Storage.list sorts the names, MessageV2.parts sorts by id). The source's docstring says what
each part becomes; `_tools` reads the tool parts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...evidence import Event, Ref, Session
from ...payloads import MessageInfo, NoteInfo
from .. import ReadContext
from .._records import Record
from .._side import unreadable, why
from . import _layout, _rules
from ._emit import Emitter, Time, get
from ._files import load
from ._tools import ToolReader

# the messages and parts OpenCode writes in the user's place (session/prompt.ts `shell`: the
# person's `!command` is this synthetic text, then an assistant message running it with bash)
SHELL_MARK = "The following tool was executed by the user"
ABORTED = "MessageAbortedError"  # message-v2.ts AbortedError: the person stopped the turn
# title the writer gives a session until the title agent names it (session/index.ts)
DEFAULT_TITLE = re.compile(r"^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
TOKENS = (("input", ("input",)), ("output", ("output",)), ("reasoning", ("reasoning",)),
          ("cache_read", ("cache", "read")), ("cache_write", ("cache", "write")))
# part types only an assistant message holds: a message whose file is lost is the assistant's
ASSISTANT_PARTS = frozenset({"step-start", "step-finish", "tool", "reasoning", "patch", "snapshot", "retry"})


@dataclass
class Thread:
    """One session read: its events, the subagent sessions its task calls name (`state.metadata
    .sessionId` → the call's id) and its task calls (their prompts tie a subagent to its call
    when no id does)."""

    session: Session
    actor: str
    spawned: dict[str, str] = field(default_factory=dict)
    tasks: list[Event] = field(default_factory=list)


class Builder(Emitter):
    """The events of one session's messages. `actor`: "agent", or "subagent:<id>" for a
    subagent's session, whose user words are the task its `parent` actor gave it."""

    def __init__(self, s: Session, storage: Path, actor: str, parent: str | None, ctx: ReadContext) -> None:
        super().__init__(s, actor)
        self.storage, self.parent, self.ctx = storage, parent, ctx
        self.shell_run = False  # the message before was OpenCode's mark of the person's `!command`
        self.tools = ToolReader(self)
        self.unknown_parts: set[str] = set()

    def message(self, path: Path) -> None:
        """A message of the JSON storage: its file and its parts' files."""
        name = _layout.evidence_name(self.storage, path)
        lim = self.ctx.limits
        rec = load(path, name, _role, self.s, lim, "a message's file")
        try:
            files: list[Path] | None = _layout.parts(self.storage, path.stem)
        except OSError as e:  # named once, with the session's file: the folder that may not be listed
            where = _layout.blocked(self.storage / "part" / path.stem, self.storage)
            if where == self.storage / "part":  # no message's words nor calls: nothing of the session is left
                raise InputError(f"its messages' parts (part/) could not be read: {why(e)}",
                                 path=self.s.files[0].abs_path if self.s.files else None) from None
            unreadable(self.s, self.s.files[0].path if self.s.files else None,
                       f"{where.relative_to(self.storage).as_posix()}/", e, "what the message said is not here")
            files = None
        parts = [r for p in files or []
                 if (r := load(p, _layout.evidence_name(self.storage, p), _type, self.s, lim, "a part's file"))]
        # parts that could not be listed were said: not "no parts"
        self.records(rec, parts, path.stem, name, files is None or bool(files), f"part/{path.stem}/")

    def records(self, rec: Record | None, parts: list[Record], mid: str, name: str, any_parts: bool,
                where: str) -> None:
        """A message read from either storage (its record, None when unreadable, and its parts'
        records); `any_parts`: the storage held parts for it, `where` is where it keeps them."""
        role = get(rec.data, "role") if rec is not None else None
        # a turn that failed before the model said anything (its error on the message) has none
        if not any_parts and not (role == "assistant" and rec is not None and isinstance(rec.data.get("error"), dict)):
            self.s.warn("no-parts", f"message {mid} has no parts (OpenCode keeps them in {where}): "
                        "what it said is not in the log", name, None)
            self.count("messages_without_parts")
        if role == "user":
            self._user(rec, parts)
        elif role == "assistant" or (rec is None and any(get(p.data, "type") in ASSISTANT_PARTS for p in parts)):
            self._assistant(rec, parts, mid)
        else:
            why = "whose file could not be read" if rec is None else f"of role {role!r}, which forsy does not know"
            if rec is not None:
                self.s.quality.unknown_records += 1
                self.s.warn("unknown-record", f"a message {why}; its parts are set aside", name, None)
            for p in parts:
                self.mark(p, "set_aside", _rules.UNREAD_MESSAGE)

    def _user(self, rec: Record | None, parts: list[Record]) -> None:
        t = self.time(rec, "time", "created")
        self.mark(rec, "metadata", _rules.MESSAGE)
        system = get(rec.data, "system") if rec is not None else None
        if isinstance(system, str) and system.strip() and self.s.meta.system_prompt is None and rec is not None:
            self.s.meta.system_prompt, self.s.meta.system_prompt_ref = system, Ref(rec.ev.id, "/system")
        texts = [p for p in parts if get(p.data, "type") == "text"]
        self.shell_run = len(texts) == 1 and get(texts[0].data, "synthetic") is True and \
            get(texts[0].data, "text") == SHELL_MARK
        files = sum(1 for p in parts if get(p.data, "type") == "file")
        said = False
        for p in parts:
            d, typ = p.data, get(p.data, "type")
            text = d.get("text")
            if typ == "text" and not isinstance(text, str):
                self._field_type(p, "text")
            elif typ == "text" and d.get("synthetic") is True:
                # OpenCode's own words sent with the prompt: a file's text read for an @mention, the
                # reminder after a compaction, the mark of a `!command` (session/prompt.ts)
                self.ev("note", p, "/text", t, actor="system", text=text,
                        info=NoteInfo(subtype="shell_mark" if self.shell_run else "opencode_context"))
                self.mark(p, "set_aside", _rules.SYNTHETIC)
            elif typ == "text" and d.get("ignored") is True:
                self.mark(p, "set_aside", _rules.IGNORED)
            elif typ == "text" and self.parent is not None:
                self.ev("note", p, "/text", t, actor=self.parent, text=text, info=NoteInfo(subtype="subagent_input"))
                self.mark(p, "set_aside", _rules.SUBAGENT_TASK)
            elif typ == "text":
                info = MessageInfo(attachments_omitted=files) if files and not said else None
                self.ev("user", p, "/text", t, actor="user", text=text, info=info)
                said = True
            elif typ == "file":
                self.mark(p, "set_aside", _rules.ATTACHMENT)
            elif typ == "agent":
                self.mark(p, "set_aside", _rules.AGENT)
            elif typ == "subtask":
                prompt = d.get("prompt")
                if isinstance(prompt, str):
                    self.ev("note", p, "/prompt", t, actor="system", text=prompt, info=NoteInfo(subtype="subtask"))
                self.mark(p, "set_aside", _rules.SUBTASK)
            elif typ == "compaction":
                self.mark(p, "set_aside", _rules.COMPACTION_ASKED)
            else:
                self._other(p, typ)

    def _assistant(self, rec: Record | None, parts: list[Record], mid: str) -> None:
        d = rec.data if rec is not None else {}
        t = self.time(rec, "time", "created")
        self.mark(rec, "metadata", _rules.MESSAGE)
        if self.shell_run:  # the person's `!command`, run by OpenCode in an assistant message
            self.shell_run = False
            self._shell(parts, t)
            return
        self._facts(rec, d)
        summary = d.get("summary") is True  # the compaction agent's summary of the work before
        step, usage = 0, False
        for p in parts:
            typ = get(p.data, "type")
            if typ == "step-start":
                step += 1
                self.mark(p, "set_aside", _rules.STEP)
            elif typ == "step-finish":
                usage = self._usage(p.data.get("tokens")) or usage
                self.mark(p, "metadata", _rules.USAGE)
            elif typ == "text":
                self._text(p, summary, t)
            elif typ == "reasoning":
                self._reasoning(p, summary, t)
            elif typ == "tool":
                self.tools.part(p, f"{mid}#{step}", t)
            elif typ in ("patch", "snapshot"):
                self.mark(p, "set_aside", _rules.SNAPSHOT)
            elif typ == "retry":
                self._retry(p)
            elif typ == "file":
                self.mark(p, "set_aside", _rules.ATTACHMENT)
            else:
                self._other(p, typ)
        if not usage:
            self._usage(d.get("tokens"))  # no step's usage: the message's (the last step's)
        self._error(rec, d)

    def _facts(self, rec: Record | None, d: dict[str, Any]) -> None:
        meta = self.s.meta
        model = d.get("modelID")
        if isinstance(model, str) and model and model not in meta.models:
            meta.models.append(model)
        provider = d.get("providerID")
        if isinstance(provider, str) and provider:
            providers = meta.extra.setdefault("providers", [])
            if provider not in providers:
                providers.append(provider)
        agent = d.get("agent") if isinstance(d.get("agent"), str) else d.get("mode")
        if isinstance(agent, str) and agent:
            agents = meta.extra.setdefault("agents", [])
            if agent not in agents:
                agents.append(agent)
        cwd = get(d, "path", "cwd")
        if isinstance(cwd, str) and cwd and meta.cwd is None:
            meta.cwd = cwd
        cost = d.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost:
            meta.extra["cost"] = round(meta.extra.get("cost", 0) + cost, 9)
        # the first versions kept the system prompt on each assistant message, as a list of its
        # pieces; one piece is copied (several would be a joined value no record holds)
        system = d.get("system")
        if isinstance(system, list) and len(system) == 1 and isinstance(system[0], str) and system[0].strip() \
                and meta.system_prompt is None and rec is not None:
            meta.system_prompt, meta.system_prompt_ref = system[0], Ref(rec.ev.id, "/system/0")

    def _usage(self, tokens: Any) -> bool:
        if not isinstance(tokens, dict):
            return False
        use = self.s.meta.token_usage
        for key, path in TOKENS:
            v = get(tokens, *path)
            if isinstance(v, int) and not isinstance(v, bool):
                use[key] = use.get(key, 0) + v
        return True

    def _text(self, p: Record, summary: bool, t: Time) -> None:
        text = p.data.get("text")
        if not isinstance(text, str):
            self._field_type(p, "text")
        elif not text.strip():
            self.mark(p, "set_aside", _rules.EMPTY)
        elif summary:
            self.ev("compaction", p, "/text", self.first(self.time(p, "time", "start"), t), actor="system",
                    text=text, info=NoteInfo(subtype="opencode_summary"))
            self.s.quality.compactions += 1
        elif p.data.get("synthetic") is True:
            self.ev("note", p, "/text", self.first(self.time(p, "time", "start"), t), actor="system", text=text,
                    info=NoteInfo(subtype="opencode_context"))
            self.mark(p, "set_aside", _rules.SYNTHETIC)
        else:
            self.ev("agent_text", p, "/text", self.first(self.time(p, "time", "start"), t), text=text)

    def _reasoning(self, p: Record, summary: bool, t: Time) -> None:
        text = p.data.get("text")
        if not isinstance(text, str):
            self._field_type(p, "text")
        elif not text.strip():
            if isinstance(p.data.get("metadata"), dict) and p.data["metadata"]:
                self.s.quality.encrypted_reasoning += 1  # the provider kept it (encrypted) in the metadata
                self.mark(p, "set_aside", _rules.ENCRYPTED)
            else:
                self.mark(p, "set_aside", _rules.EMPTY)
        elif summary:
            self.mark(p, "set_aside", _rules.SUMMARY_REASONING)
        else:
            self.ev("reasoning", p, "/text", self.first(self.time(p, "time", "start"), t), text=text)

    def _retry(self, p: Record) -> None:
        message = get(p.data, "error", "data", "message")
        if isinstance(message, str):
            self.ev("note", p, "/error/data/message", self.time(p, "time", "created"), actor="system", text=message,
                    info=NoteInfo(subtype="api_retry"))
        self.count("api_retries")
        self.mark(p, "set_aside", _rules.RETRY)

    def _error(self, rec: Record | None, d: dict[str, Any]) -> None:
        """The turn's error (message-v2.ts `Assistant.error`, a NamedError's `{name, data}`): the
        person's stop an interrupt, any other an API error."""
        err = d.get("error")
        if rec is None or not isinstance(err, dict):
            return
        name, message = err.get("name"), get(err, "data", "message")
        ptr, text = ("/error/data/message", message) if isinstance(message, str) and message.strip() else \
            ("/error/name", name) if isinstance(name, str) else ("", None)
        if text is None:
            return
        t = self.first(self.time(rec, "time", "completed"), self.time(rec, "time", "created"))
        if name == ABORTED:
            self.ev("interrupt", rec, ptr, t, actor="user", text=text, info=NoteInfo(subtype="aborted", reason=name))
        else:
            self.ev("agent_text", rec, ptr, t, text=text, info=MessageInfo(api_error=True, synthetic=True))
            self.count("api_errors")

    def _shell(self, parts: list[Record], t: Time) -> None:
        """The person's `!command`: a user message (R-user/bash-input), its output a note."""
        for p in parts:
            d, typ = p.data, get(p.data, "type")
            cmd, out = get(d, "state", "input", "command"), get(d, "state", "output")
            if typ == "tool" and isinstance(cmd, str):
                self.ev("user", p, "/state/input/command", self.first(self.time(p, "state", "time", "start"), t),
                        actor="user", text="!" + cmd, info=MessageInfo(rule="bash-input"))
                if isinstance(out, str):
                    self.ev("note", p, "/state/output", self.first(self.time(p, "state", "time", "end"), t),
                            actor="system", text=out, info=NoteInfo(subtype="bash_output"))
                self.mark(p, "set_aside", _rules.SHELL)
            elif typ in ("step-start", "step-finish"):
                self.mark(p, "set_aside", _rules.STEP)
            else:
                self.mark(p, "set_aside", _rules.SHELL)

    def _field_type(self, p: Record, key: str) -> None:
        self.s.warn("field-type", f"a {get(p.data, 'type')} part's {key} is not text; read as absent", p.ev.source,
                    None)
        self.mark(p, "set_aside", _rules.EMPTY)

    def _other(self, p: Record, typ: Any) -> None:
        label = typ if isinstance(typ, str) else f"({type(typ).__name__})"
        self.s.quality.unknown_records += 1
        if label not in self.unknown_parts:
            self.unknown_parts.add(label)
            self.s.warn("unknown-record", f"a part of type {label!r}, which forsy does not know; skipped", p.ev.source,
                        None)


def _role(d: dict[str, Any]) -> str:
    role = d.get("role")
    return role if isinstance(role, str) else "message"


def _type(d: dict[str, Any]) -> str:
    typ = d.get("type")
    return typ if isinstance(typ, str) else "part"
