"""mini-swe-agent trajectories (`<instance>.traj.json`, `last_mini_run.traj.json`) → `Session`s.

The writer is mini-swe-agent's own: `save_traj` in 1.x (`trajectory_format`
"mini-swe-agent-1") and `DefaultAgent.serialize` in 2.x ("mini-swe-agent-1.1"). Both write one
JSON document, `{"info": {...}, "messages": [...], "trajectory_format": ...}`: the messages the
model saw, in order. Each message is one evidence record (its exact bytes and the line it starts
on, `sources.json_doc`), and so is `info`; every value is cited by its JSON pointer inside its
record. A file cut short (mini rewrites it after every step) keeps the messages before the cut,
and says how many bytes were lost.

* `info`: `mini_version` is the agent's version, `config.model.model_name` its model,
  `config.environment.cwd` its working folder (when not empty), and `exit_status`,
  `config.agent_type`, `config.environment_type` and a container's `config.environment.image`
  are kept in `agent_config` as written; an `exit_status` of Submitted or TimeExceeded is the
  trace's termination (task_complete, timeout: T-termination/declared);
  `config.agent.action_regex` (1.x) says how the agent found the command in an answer, and
  `config.agent.timeout_template` what it wrote when a command timed out;
* the first `system` message is the system prompt (ledger: metadata); the first `user` message
  is the task; a note (below) is set aside in the ledger;
* an `assistant` message: its text is the agent's words; its commands are tool calls (`bash`):
  in 2.x each `tool_calls` entry (arguments as written), else each `extra.actions[].command`;
  in 1.x, which keeps no actions, the one block the agent's `action_regex` finds in the text
  (the agent ran a command only when it found exactly one), cited as that slice of the text;
* what came back: a `tool` message (2.x, by `tool_call_id`), or the next `user` message after
  an answer that held a command (1.x; 2.x text-based: `extra.returncode`). Its exit code is
  `extra.returncode` (2.x), else the `<returncode>N</returncode>` the default observation
  template writes at the start (R-call/mini-returncode); a 1.x message that starts as the
  config's timeout template does is a timed-out command (an error). With a `multimodal_regex`
  2.x writes the content as parts, the text cut around each image: the text parts joined as
  they were cut (each cited), the images counted (`images`);
* the command that submitted (2.x): the environment raises Submitted before it records the
  output, so what answers it is the `exit` message (exit status Submitted, the submission its
  content) right after its answer; the interactive agent first writes a placeholder `tool`
  message for it ("action was not executed", returncode -1), which is set aside
  (R-call/mini-submitted);
* the person's words in an interactive run (`mini`): the text after the lead-in its harness
  writes ("The user added a new task: ", "Interrupted by user: ", the rejection's "Command(s)
  not executed. The user rejected your command(s) with the following message: ", 2.x human
  mode's "User command: ") is a user message, cited as that slice (a rejection also answers
  the command: rejected, never run; with a tool-call model the placeholder `tool` messages
  written for the rejected commands are their rejected results; 2.x's "Commands not executed.
  Switching to human mode" (`UserRejection`, no words) rejects them too); every other `user`
  message after the task is the agent harness's (a format error, a limit, a submission) and a
  note, never the person's;
* an `exit` message (2.x) is a note with the run's exit status;
* an answer 2.x could not parse is kept in no assistant message: the model's words are read
  from the format error's `extra.model_response` (text-based models) or its raw
  `extra.response` (`choices[0].message.content`); the commands it held never ran;
* timestamps (`timestamp` in 1.x messages, `extra.timestamp` in 2.x) are epoch seconds,
  written as ISO 8601 UTC (derived, R-time).

A 2.x Responses-API model (`litellm_response`, `openrouter_response`, `portkey_response`)
writes the response object in place of the assistant message and a `function_call_output` item
in place of the `tool` message; they are read as those (`_responses` says how). Any other
message with no role is not read: counted and warned about.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Event, Evidence, Ref, Session
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .. import ReadContext
from .._records import Record
from ..chat import load_doc, new_session, unreadable
from ..json_doc import read_object_array
from ..lines import discover_sniffed, sha256
from . import _responses
from ._responses import TEXT_PARTS

KIND = "mini_swe_agent"
TOOL = "bash"
RETURNCODE_RULE = "R-call/mini-returncode"
TIMEOUT_RULE = "R-call/mini-timeout"
SUBMITTED_RULE = "R-call/mini-submitted"
# what 2.x's tool-call models write for each command of an answer that has no output to show
# (actions_toolcall.py pads the outputs: rejected, interrupted, or the one that submitted)
NOT_RUN = "action was not executed"
PLACEHOLDER = "a placeholder result for the command that submitted (R-call/mini-submitted)"
DEFAULT_ACTION_REGEX = r"```bash\s*\n(.*?)\n```"  # 1.x AgentConfig's default
# info.exit_status → termination_reason: Submitted (the agent printed the submit marker and its
# command exited 0) and TimeExceeded (the wall-time limit); the others (a step or cost limit, a
# format error limit, an exception's class name, an interrupted run) are left to the trace's rules
_ENDINGS = {"Submitted": "task_complete", "TimeExceeded": "timeout"}
_OPENS = re.compile(rb'\{\s*"info"\s*:\s*\{')
_MARKS = (b'"mini_version"', b'"trajectory_format": "mini-swe-agent', b'"agent_type": "minisweagent.')
_RETURNCODE = re.compile(r"\s*<returncode>(-?\d{1,9})</returncode>")
# how an interactive run (`mini`) starts the message that carries the person's words, and
# whether it rejected the command the agent proposed (1.x and 2.x InteractiveAgent)
_PERSON: tuple[tuple[str, bool], ...] = (
    ("The user added a new task: ", False),
    ("Interrupted by user: ", False),
    ("User command: \n", False),  # 2.x human mode: the command the person typed
    ("Command not executed. The user rejected your command with the following message: ", True),
    ("Commands not executed. The user rejected your commands with the following message: ", True),
)


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _iso(v: Any) -> str | None:
    """Epoch seconds as ISO 8601 UTC; None for anything else or a time out of range."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 < v < 10**11:
        return None
    return datetime.fromtimestamp(v, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _texts(content: Any, ptr: str) -> tuple[str | None, list[str], int] | None:
    """(text, where each piece of it is, images) of a message's content; None for parts other
    than text (`text`, or the Responses API's `input_text` / `output_text`) and images. 2.x
    with a `multimodal_regex` writes the content as parts
    (openai_multimodal.py): the one string cut around each tag, an `image_url` part in the
    place of an image's tag, another kind's tag dropped. The text parts, joined with nothing
    between them, are the string as written without its tags."""
    if content is None or isinstance(content, str):
        return content, [ptr], 0
    if not isinstance(content, list) or not content:
        return None
    texts: list[str] = []
    ptrs: list[str] = []
    images = 0
    for k, c in enumerate(content):
        kind = _dict(c).get("type")
        if kind in TEXT_PARTS and isinstance(c.get("text"), str):
            texts.append(c["text"])
            ptrs.append(f"{ptr}/{k}/text")
        elif kind == "image_url":
            images += 1
        else:
            return None
    return ("".join(texts) if texts else None), ptrs or [ptr], images


def _prefix(template: Any) -> str | None:
    """The fixed text a template starts with (before its first Jinja tag), if long enough to tell."""
    if not isinstance(template, str):
        return None
    head = re.split(r"\{[{%#]", template, maxsplit=1)[0]
    return head if len(head) >= 12 else None


class MiniSweAgentSource:
    name: ClassVar[str] = KIND
    # the `mini` command saves `last_mini_run.traj.json` in the agent's config folder
    # (platformdirs' user_config_dir, under the home folder; MSWEA_GLOBAL_CONFIG_DIR moves it)
    default_roots: ClassVar[tuple[str, ...]] = (".config/mini-swe-agent", "Library/Application Support/mini-swe-agent")

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """MSWEA_GLOBAL_CONFIG_DIR replaces its config folder when set (minisweagent/__init__.py)."""
        top = env.get("MSWEA_GLOBAL_CONFIG_DIR", "")
        return [Path(top).expanduser()] if top else []

    def sniff(self, path: Path, head: bytes) -> bool:
        # the writer's json.dumps(indent=2) of {"info": {...}, ...}; info names the agent's version
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return _OPENS.match(s) is not None and any(k in s for k in _MARKS)

    def discover(self, path: Path) -> list[Path]:
        # a batch run writes <output>/<instance>/<instance>.traj.json
        return discover_sniffed(path, self.sniff, ("*.json", "*/*.traj.json"), named=lambda p: p.suffix == ".json")

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        doc = load_doc(path, ctx, KIND)
        stem = path.name.removesuffix(".json").removesuffix(".traj")
        s = new_session(KIND, stem or path.stem, doc, "mini-swe-agent")
        jd = read_object_array(doc.data, doc.source, "messages")
        if jd is None or not jd.has_array:
            # not an object with a messages list: the file fails, saying why and where
            s.quality.unparsable_records = 1
            why, line = unreadable(doc.data, "not a mini-swe-agent trajectory (no messages list)", orjson_only=False)
            s.warn("unparsable", f"{why}; nothing read", doc.source, line)
            return [s]
        for code, msg, line in jd.problems:  # a damaged message, a file cut short: what was lost
            s.warn(code, msg, doc.source, line)
        info_ev = None
        if "info" in jd.spans and isinstance(jd.header.get("info"), dict):
            line, offset, raw = jd.spans["info"]
            info_ev = s.add_evidence(Evidence.make(doc.source, line, offset, raw, sha256(raw), "info"))
            s.mark(info_ev, "metadata", "the run's version, configuration and exit status")
        s.quality.records = jd.elements + (info_ev is not None)
        s.quality.unparsable_records = jd.elements - len(jd.records)
        _Reader(s, doc.source, info_ev, _dict(jd.header.get("info"))).read(jd.records)
        return [s]


class _Reader:
    def __init__(self, s: Session, src: str, info_ev: str | None, info: dict[str, Any]) -> None:
        self.s, self.src = s, src
        self.ev, self.line = "", 0  # the message being read: its evidence id and line
        info_line = s.evidence[info_ev].line if info_ev is not None else None
        config = _dict(info.get("config"))
        agent, model = _dict(config.get("agent")), _dict(config.get("model"))
        if _str(info.get("mini_version")):
            s.meta.agent_version = info["mini_version"]
        if _str(model.get("model_name")):
            s.meta.models.append(model["model_name"])
        env = _dict(config.get("environment"))
        if _str(env.get("cwd")):  # "" means the folder mini was started in, which the file does not say
            s.meta.cwd = env["cwd"]
        # what a reader of the trace wants to know about the run, as written (agent_config)
        # the agent's own word for how the run ended, where it is unambiguous (T-termination/declared)
        ending = _ENDINGS.get(info["exit_status"]) if isinstance(info.get("exit_status"), str) else None
        if ending is not None and info_ev is not None:
            s.meta.ending, s.meta.ending_ref = ending, Ref(info_ev, "/exit_status")
        for key, v in (("exit_status", info.get("exit_status")), ("agent_type", config.get("agent_type")),
                       ("environment_type", config.get("environment_type")), ("environment_image", env.get("image"))):
            if _str(v):
                s.meta.extra[key] = v
        self.action_re = self._action_regex(agent.get("action_regex"), info_line)
        self.timeout = _prefix(agent.get("timeout_template"))
        self.seen_system = self.seen_task = False
        self.pending: Event | None = None  # a call whose answer is the next user message (1.x, text-based)
        # the calls of the last answer and the calls that have a result: a submission's exit
        # message answers the one with none (R-call/mini-submitted)
        self.batch: list[Event] = []
        self.answered: set[str] = set()
        # the placeholder results (NOT_RUN) of the last answer's calls, with their records: the
        # message after them says what they stand for (a rejection, a submission)
        self.unrun: list[tuple[Event, str]] = []

    def _action_regex(self, v: Any, line: int | None) -> re.Pattern[str] | None:
        try:
            return re.compile(v if isinstance(v, str) else DEFAULT_ACTION_REGEX, re.DOTALL)
        except re.error:
            self.s.warn("bad-action-regex", "info.config.agent.action_regex does not compile: commands in answers "
                        "without extra.actions are not read", self.src, line)
            return None

    def read(self, records: list[Record]) -> None:
        for rec in records:
            self.ev, self.line = self.s.add_evidence(rec.ev), rec.ev.line or 0
            before = len(self.s.events)
            self.message(rec.data, "")
            for e in self.s.events[before:]:
                if e.kind == "note":  # the segmenter makes no step of a note: the ledger says why
                    sub = e.info.subtype if isinstance(e.info, NoteInfo) else None
                    self.s.mark(self.ev, "set_aside", "notes are not steps", sub)

    def _skip(self, code: str, why: str) -> None:
        self.s.quality.unknown_records += 1
        self.s.warn(code, why, self.src, self.line)

    def _ts(self, m: dict[str, Any], p: str) -> tuple[str | None, Ref | None]:
        """The message's time and where it is: `timestamp` (1.x), else `extra.timestamp` (2.x)."""
        for v, ptr in ((m.get("timestamp"), f"{p}/timestamp"),
                       (_dict(m.get("extra")).get("timestamp"), f"{p}/extra/timestamp")):
            iso = _iso(v)
            if iso is not None:
                return iso, Ref(self.ev, ptr)
        return None, None

    def message(self, m: dict[str, Any], p: str) -> None:
        # a Responses-API model's command output: the chat form's `tool` message in another shape
        output = _responses.is_output(m)
        role = "tool" if output else m.get("role")
        unrun, batch = self.unrun, self.batch  # the last answer's: only its own results come between
        if role != "tool":
            self.unrun, self.batch = [], []
        if _responses.is_response(m):  # a Responses-API model's answer: the response object
            ts, ts_from = self._ts(m, p)
            self._assistant(m, p, None, "", ts, ts_from)
            return
        if not isinstance(m, dict) or not isinstance(role, str):
            kind = _str(m.get("type")) or _str(m.get("object"))
            what = f"a {kind!r} item (OpenAI Responses API), which forsy does not read" if kind else \
                "not a chat message (no role)"
            self._skip("not-a-message", f"the message is {what}; skipped")
            return
        key = "output" if output else "content"
        got = _texts(m.get(key), f"{p}/{key}")
        text, ptrs, images = got if got is not None else (None, [], 0)
        # parts (images, text cut around them) are read where the trace can say so: in a command's
        # output and in the task; elsewhere (a system prompt, the person's words, a note) the
        # message stays unread and warned, as any content of other parts is
        answers = role == "tool" or (role == "user" and (not self.seen_task or self._answers(m)))
        if got is None or ((len(ptrs) > 1 or images > 0) and not answers):
            self._skip("content-parts", "the message's content holds parts other than one text; skipped")
            return
        tptr = ptrs[0]
        ts, ts_from = self._ts(m, p)
        extra = _dict(m.get("extra"))
        if role == "system":
            self._system(text, tptr, ts, ts_from)
        elif role == "assistant":
            self._assistant(m, p, text, tptr, ts, ts_from)
        elif role == "tool":
            cid = _str(m.get("call_id" if output else "tool_call_id"))
            self._answer(cid, m, p, text, ptrs, ts, ts_from, images, tool=True)
        elif role == "user" and not self.seen_task:
            self.seen_task = True
            self._images(images)
            self._ev("user", "user", ts, ts_from, ptrs, text, info=MessageInfo(images=images) if images else None)
        elif role == "user":
            self._user_later(m, p, text or "", ptrs, images, ts, ts_from, unrun)
        elif role == "exit":
            status = _str(extra.get("exit_status")) or text
            if extra.get("exit_status") == "Submitted":
                self._submitted(p, text, tptr, ts, ts_from, unrun, batch)
            self._ev("note", "system", ts, ts_from, tptr, text, info=NoteInfo(subtype="exit", reason=status))
        else:
            self._skip("unknown-role", f"the message has role {role!r}; skipped")

    def _answers(self, m: dict[str, Any]) -> bool:
        """Whether a later user message is what came back from the pending command."""
        return self.pending is not None and _dict(m.get("extra")).get("interrupt_type") is None

    def _images(self, n: int) -> None:
        if n:  # the trace holds no image: the manifest counts them
            self.s.quality.extra["images"] = self.s.quality.extra.get("images", 0) + n

    def _make(self, kind: Any, actor: str, ts: str | None, ts_from: Ref | None, ptr: str | list[str],
              text: str | None, **kw: Any) -> Event:
        refs = [Ref(self.ev, x) for x in ([ptr] if isinstance(ptr, str) else ptr)]
        return Event(kind, actor, ts, refs, text=text, ts_from=ts_from, **kw)

    def _ev(self, kind: Any, actor: str, ts: str | None, ts_from: Ref | None, ptr: str | list[str],
            text: str | None, **kw: Any) -> Event:
        e = self._make(kind, actor, ts, ts_from, ptr, text, **kw)
        self.s.events.append(e)
        return e

    def _system(self, text: str | None, ptr: str, ts: str | None, ts_from: Ref | None) -> None:
        if not self.seen_system and not self.seen_task and text is not None:
            self.seen_system = True
            self.s.meta.system_prompt, self.s.meta.system_prompt_ref = text, Ref(self.ev, ptr)
            self.s.mark(self.ev, "metadata", "the system prompt")
            return
        self._ev("note", "system", ts, ts_from, ptr, text)
        self.s.warn("system-message", "a system message is kept as a note (the system prompt is the first one, "
                    "before the task)", self.src, self.line)

    def _assistant(self, m: dict[str, Any], p: str, text: str | None, tptr: str, ts: str | None,
                   ts_from: Ref | None) -> None:
        self.pending = None  # two answers in a row: the first one's command got none (the assembler counts it)
        before = len(self.s.events)
        if text:
            self._ev("agent_text", "agent", ts, ts_from, tptr, text)
        calls, actions = m.get("tool_calls"), _dict(m.get("extra")).get("actions")
        if _responses.is_response(m):
            _responses.response(self, m, p, ts, ts_from)  # its calls are its function_call items
        elif isinstance(calls, list) and calls:
            for k, c in enumerate(calls):
                self._tool_call(c, f"{p}/tool_calls/{k}", p, ts, ts_from)
        elif isinstance(actions, list) and actions:
            for k, a in enumerate(actions):
                cmd = _dict(a).get("command")
                if not isinstance(cmd, str):
                    self._skip("bad-action", f"extra.actions[{k}] has no command text; skipped")
                    continue
                cid = _str(_dict(a).get("tool_call_id")) or f"{self.ev}:{p}/extra/actions/{k}"
                self.pending = self._ev("tool_call", "agent", ts, ts_from, f"{p}/extra/actions/{k}/command", None,
                                        call_id=cid, tool=TOOL, args=cmd, group=f"{self.ev}{p}")
        elif text is not None and self.action_re is not None:
            found = list(self.action_re.finditer(text))
            if len(found) == 1 and found[0].groups():
                a, z = found[0].span(1)
                raw = text[a:z]
                a += len(raw) - len(raw.lstrip())
                z -= len(raw) - len(raw.rstrip())
                self.pending = self._ev("tool_call", "agent", ts, ts_from, tptr, None, call_id=f"{self.ev}:command",
                                        tool=TOOL, args=text[a:z], group=f"{self.ev}{p}",
                                        info=CallInfo(span=(a, z)))
        if len(self.s.events) == before:
            self.s.mark(self.ev, "set_aside", "an answer with no words and no command")
        self.batch = [e for e in self.s.events[before:] if e.kind == "tool_call"]

    def _tool_call(self, c: Any, cp: str, p: str, ts: str | None, ts_from: Ref | None) -> None:
        fn = _dict(c).get("function")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            self._skip("bad-tool-call", f"tool_calls[{cp.rsplit('/', 1)[1]}] has no function name; skipped")
            return
        args = _responses.parse_args(self, fn.get("arguments"), f"tool_calls[{cp.rsplit('/', 1)[1]}]")
        cid = _str(_dict(c).get("id")) or f"{self.ev}:{cp}"
        self._ev("tool_call", "agent", ts, ts_from, f"{cp}/function/arguments", None, call_id=cid, tool=fn["name"],
                 args=args, group=f"{self.ev}{p}", name_ref=Ref(self.ev, f"{cp}/function/name"))

    def _answer(self, cid: str | None, m: dict[str, Any], p: str, text: str | None, ptrs: list[str],
                ts: str | None, ts_from: Ref | None, images: int = 0, tool: bool = False) -> None:
        extra = _dict(m.get("extra"))
        tptr = ptrs[0]
        code, code_from, rule = None, None, None
        rc = extra.get("returncode")
        if isinstance(rc, int) and not isinstance(rc, bool):
            code, code_from = rc, Ref(self.ev, f"{p}/extra/returncode")
        elif text is not None and (hit := _RETURNCODE.match(text)):
            code, code_from, rule = int(hit.group(1)), Ref(self.ev, tptr), RETURNCODE_RULE
        timed_out = code is None and text is not None and self.timeout is not None and text.startswith(self.timeout)
        error = True if timed_out else (code != 0) if code is not None else None
        fail_rule = TIMEOUT_RULE if timed_out else rule if error else None
        e = self._ev("tool_result", "agent", ts, ts_from, ptrs, text, call_id=cid, tool=TOOL, is_error=error,
                     info=ResultInfo(exit_code=code, exit_code_from=code_from, failure_rule=fail_rule, images=images))
        self._images(images)
        if cid is not None:
            self.answered.add(cid)
        if tool and rc == -1 and extra.get("exception_info") == NOT_RUN:
            self.unrun.append((e, self.ev))  # the message after it says why it did not run (or did)

    def _user_later(self, m: dict[str, Any], p: str, text: str, ptrs: list[str], images: int, ts: str | None,
                    ts_from: Ref | None, unrun: list[tuple[Event, str]]) -> None:
        itype = _str(_dict(m.get("extra")).get("interrupt_type"))
        call, self.pending = self.pending, None
        ptr = ptrs[0]
        words = _person(text) if len(ptrs) == 1 and not images else None
        if (words is not None and words[1]) or itype == "UserRejection":
            self._rejected(call, unrun, ptr, text, ts, ts_from)
        if words is not None:
            a = words[0]
            self._ev("user", "user", ts, ts_from, ptr, text[a:],
                     info=MessageInfo(span=(a, len(text)), wrapped="mini-swe-agent", context=text[:a]))
            return
        if call is not None and itype is None:  # what came back from the command
            self._answer(call.call_id, m, p, text, ptrs, ts, ts_from, images)
            return
        if itype == "FormatError":
            self._refused_answer(m, p, ts, ts_from)
        subtype = "format_error" if itype == "FormatError" else "harness"
        self._ev("note", "system", ts, ts_from, ptr, text, info=NoteInfo(subtype=subtype, reason=itype))

    def _rejected(self, call: Event | None, unrun: list[tuple[Event, str]], ptr: str, text: str, ts: str | None,
                  ts_from: Ref | None) -> None:
        """The person rejected the commands: none ran. A tool-call model's placeholder results
        for them are their results, rejected by this message; else this message answers the
        pending command (text-based models write no placeholder)."""
        if unrun:
            for e, _rec in unrun:
                e.is_error, e.info = True, ResultInfo(rejected=True, outcome_refs=[Ref(self.ev, ptr)])
        elif call is not None:
            self._ev("tool_result", "agent", ts, ts_from, ptr, text, call_id=call.call_id, tool=TOOL,
                     is_error=True, info=ResultInfo(rejected=True))
            if call.call_id is not None:
                self.answered.add(call.call_id)

    def _submitted(self, p: str, text: str | None, ptr: str, ts: str | None, ts_from: Ref | None,
                   unrun: list[tuple[Event, str]], batch: list[Event]) -> None:
        """R-call/mini-submitted: the environment raises Submitted, before it records the
        output, only for a command that exited 0 and printed the submit marker first; the exit
        message (the submission) is what answers it. The interactive agent writes a placeholder
        for it and for each command after it (which never ran): the first placeholder is its.
        The default agent and text-based models write none: the answer's one command without a
        result is it (of several, which one the trajectory does not say)."""
        def result(call_id: str | None) -> Event:
            return self._make("tool_result", "agent", ts, ts_from, ptr, text, call_id=call_id, tool=TOOL,
                              is_error=False, info=ResultInfo(failure_rule=SUBMITTED_RULE,
                                                              outcome_refs=[Ref(self.ev, f"{p}/extra/exit_status")]))
        if unrun:
            first, rec = unrun[0]
            at = next(k for k in range(len(self.s.events) - 1, -1, -1) if self.s.events[k] is first)
            self.s.events[at] = result(first.call_id)  # in its place: what it stood for
            self.s.mark(rec, "set_aside", PLACEHOLDER)
            return
        left = [c for c in batch if c.call_id not in self.answered]
        if len(left) == 1:
            self.s.events.append(result(left[0].call_id))
            self.answered.add(left[0].call_id or "")
            if self.pending is left[0]:
                self.pending = None
        elif left:
            self.s.warn("submitted-by-which", f"the run was submitted by one of the {len(left)} commands of the "
                        "answer before it, which the trajectory does not say: none is given the submission as its "
                        "result", self.src, self.line)

    def _refused_answer(self, m: dict[str, Any], p: str, ts: str | None, ts_from: Ref | None) -> None:
        """2.x keeps no assistant message for an answer it could not parse: the model's words are
        in the format error's `extra` (`model_response`, else the raw `response`'s message)."""
        extra = _dict(m.get("extra"))
        if _responses.refused(self, extra, p, ts, ts_from):  # a Responses-API model's response object
            return
        if isinstance(extra.get("model_response"), str):
            words, ptr = extra["model_response"], f"{p}/extra/model_response"
        else:
            choices = _dict(extra.get("response")).get("choices")
            first = choices[0] if isinstance(choices, list) and choices else None
            words = _dict(_dict(first).get("message")).get("content")
            ptr = f"{p}/extra/response/choices/0/message/content"
        if isinstance(words, str) and words:
            self._ev("agent_text", "agent", ts, ts_from, ptr, words)


def _person(text: str) -> tuple[int, bool] | None:
    """(where the person's words start, whether they rejected the command) when the harness
    wrapped a person's words."""
    for lead, rejected in _PERSON:
        if text.startswith(lead):
            return len(lead), rejected
    return None
