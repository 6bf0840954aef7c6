"""Events of the OpenHands software-agent SDK (OpenHands V1) → forsy events.

The SDK (`openhands-sdk/openhands/sdk/event/`) serialises each event as a pydantic model
with a `kind` naming its class, `id`, `timestamp` and `source`; benchmark `output.jsonl`
lines hold them in `history`, and a conversation saved as a JSON array holds them alone.
What each kind gives (read from the SDK's models):

* `SystemPromptEvent`: `system_prompt.text` → the system prompt; `tools[*].name` → the tools
  offered (`title` in older versions); `dynamic_context` a system note;
* `MessageEvent`: `llm_message.content[*].text`; from `source: "user"` a `user` event per
  text (with a `sender`, a parent agent's task to a subagent: a `subagent_input` note of
  actor agent), from the agent its text; `activated_skills` → the skills, `extended_content`
  (what the SDK added for the model) system notes, as an observation's;
* `ActionEvent`: `thought[*].text` and the model's reasoning (`reasoning_content`, else
  `thinking_blocks`, else `responses_reasoning_item`; encrypted parts counted) → reasoning; a call whose tool is
  `tool_name`, whose arguments are the `action` object exactly as the SDK parsed it (its
  `kind`, e.g. `ExecuteBashAction`, `TerminalAction`, `FileEditorAction`, is part of it),
  and whose id is `tool_call_id`. A `FinishAction`'s `message` is the agent's answer, a
  `ThinkAction`'s `thought` its reasoning (no call). An action the SDK could not parse
  (`action: null`) is a call with the model's raw `tool_call.arguments`;
* `ObservationEvent`: the result of the call with its `tool_call_id`: `observation.content
  [*].text` joined (when it holds none, the fields a tool keeps its words in: `OWN_TEXT`);
  failed when `observation.is_error` is true or its exit code (`exit_code`, else
  `metadata.exit_code`) is neither 0 nor -1 (-1: still running after the soft timeout, not
  a failure) — rule R-call/exit-code;
* `UserRejectObservation`: the call was rejected (`rejection_reason`), a failed result; by
  the person (`rejection_source: "user"`) it is their rejection (R-error/rejected);
  `AgentErrorEvent`: the SDK's error for the call (`error`), a failed result;
* `ACPToolCallEvent` (a call an ACP server ran, written again as it goes): a call, and its
  result once its status is final (`_acp`);
* `Condensation`, `CondensationSummaryEvent` → a compaction; `CondensationRequest` (asking
  for one) set aside;
  `ConversationStateUpdateEvent`, `PauseEvent`, `InterruptEvent`, `TokenEvent`,
  `StreamingDeltaEvent`, `LLMCompletionLogEvent`, `HookExecutionEvent` → bookkeeping (set
  aside, counted in `quality.extra["state_events"]`);
* `ConversationErrorEvent` (the run loop stopped on an error), `ServerErrorEvent` (the agent
  server's): an error step of the agent, its words `detail` (`quality.extra["agent_errors"]`);
* any other kind: counted in `quality.extra["v1_unknown_kinds"]` and warned (drift).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from ...evidence import Event, Evidence, LedgerHeading, Ref, Session, pointer
from ...jsontext import json_text
from ...payloads import MessageInfo, NoteInfo, ResultInfo
from .._records import Record


class Builder(Protocol):
    """What these events need of the builder of a session (`_build.Builder`, which hands them here)."""

    s: Session
    waiting: list[tuple[str, str, Evidence]]  # (call id, action type, the call's record), oldest first
    answered: set[str]
    seen_agent: bool
    finished: set[str]
    messages: int  # MessageEvents read so far
    acp_calls: dict[str, tuple[int, Event]]  # ACP call id → (messages then, its call event)

    def ev(self, kind: Any, rec: Record, base: str, key: str, e: dict[str, Any], **fields: Any) -> Event: ...

    def mark(self, rec: Record, base: str, e: dict[str, Any], heading: LedgerHeading, why: str) -> None: ...

# event/user_action.py: the person paused the run, or interrupted it mid-step (its calls in
# flight each get a synthetic AgentErrorEvent first: local_conversation.py)
USER_STOPS = frozenset({"PauseEvent", "InterruptEvent"})
STATE_KINDS = frozenset({
    "ConversationStateUpdateEvent", "TokenEvent", "StreamingDeltaEvent",
    "LLMCompletionLogEvent", "HookExecutionEvent",
})  # fmt: skip
ACP_CALL = "ACPToolCallEvent"
ACP_DONE = frozenset({"completed", "failed"})  # ACP's final tool call statuses (pending, in_progress before)
COMPACTION_KINDS = frozenset({"Condensation", "CondensationSummaryEvent"})
# event/condenser.py: the agent's request for a condensation; the Condensation that answers it is
# the compaction (read as one, it counted every compaction twice, once without a summary)
CONDENSATION_REQUEST = "CondensationRequest"
# conversation_error.py (the run loop stopped), agent_server/models.py ServerErrorEvent: `code`, `detail`
ERROR_KINDS = frozenset({"ConversationErrorEvent", "ServerErrorEvent"})
# actions whose words are the agent's own (not a tool it ran)
FINISH, THINK = "FinishAction", "ThinkAction"
STILL_RUNNING = -1  # TerminalObservation: the command hit the soft timeout and runs on
# observations that keep their words in fields of their own, `content` left empty (their
# `to_llm_content` renders the fields for the model): openhands-tools tom_consult/definition.py
OWN_TEXT = {"ConsultTomObservation": ("suggestions", "reasoning"), "SleeptimeComputeObservation": ("message",)}
# the first event of a saved SDK conversation names one of the SDK's event classes
SNIFF = re.compile(rb'"kind"\s*:\s*"(?:SystemPromptEvent|MessageEvent|ActionEvent|ObservationEvent|'
                   rb'ConversationStateUpdateEvent)"')
# the SDK's first event as it writes it: {"id", "timestamp", "source", "system_prompt", ...,
# "kind": "SystemPromptEvent"} (model_dump field order; `kind` is computed, so last)
OPENS_SYSTEM_PROMPT = re.compile(rb'\{\s*"id"\s*:\s*"[^"]*"\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"source"\s*:\s*'
                                 rb'"agent"\s*,\s*"system_prompt"\s*:')


def is_v1(e: dict[str, Any]) -> bool:
    """An SDK event: a `kind` naming its class; the older event stream has none."""
    return isinstance(e.get("kind"), str) or isinstance(e.get("action"), dict) or isinstance(e.get("observation"), dict)


def _texts(obj: Any, key: str) -> list[tuple[int, str]]:
    items = obj.get(key) if isinstance(obj, dict) else None
    return [(i, b["text"]) for i, b in enumerate(items if isinstance(items, list) else [])
            if isinstance(b, dict) and isinstance(b.get("text"), str) and b["text"].strip()]


def event(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    kind = e["kind"] if isinstance(e.get("kind"), str) else None
    if kind == "SystemPromptEvent":
        _system(b, rec, e, base)
    elif kind == "MessageEvent":
        b.messages += 1
        _message(b, rec, e, base)
    elif kind == "ActionEvent":
        _action(b, rec, e, base)
    elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
        _observation(b, rec, e, base, str(kind))
    elif kind in COMPACTION_KINDS:
        got = e.get("summary")
        text = got if isinstance(got, str) and got.strip() else None
        b.ev("compaction", rec, base, "/summary" if text else "", e, actor="system", text=text)
        b.s.quality.compactions += 1
        b.mark(rec, base, e, "set_aside", "a condensation of the history (a compaction, not a step)")
    elif kind == CONDENSATION_REQUEST:
        b.mark(rec, base, e, "set_aside", "a request to condense the history (the Condensation after it is the "
                                          "compaction)")
    elif kind == ACP_CALL:
        _acp(b, rec, e, base)
    elif kind in ERROR_KINDS:  # the run loop (or the agent server) stopped on an error: the agent's error step
        got = e.get("detail")
        text = got if isinstance(got, str) and got.strip() else None
        b.ev("agent_text", rec, base, "/detail" if text else "", e, text=text, info=MessageInfo(api_error=True))
        q = b.s.quality.extra
        q["agent_errors"] = q.get("agent_errors", 0) + 1
    elif kind in USER_STOPS:
        b.ev("interrupt", rec, base, "", e, actor="user", info=NoteInfo(subtype=kind))
    elif kind in STATE_KINDS:
        q = b.s.quality.extra
        q["state_events"] = q.get("state_events", 0) + 1
        b.mark(rec, base, e, "set_aside", f"{kind}: SDK bookkeeping (counted as state_events), not work")
    else:
        q = b.s.quality.extra
        q["v1_unknown_kinds"] = q.get("v1_unknown_kinds", 0) + 1
        b.s.quality.unknown_records += 1
        b.s.warn("unknown-record", f"event kind {kind!r} at {base or '/'} is not one forsy knows; skipped",
                 rec.ev.source, rec.ev.line)


def _system(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    sp = e.get("system_prompt")
    text = sp.get("text") if isinstance(sp, dict) else None
    if isinstance(text, str) and b.s.meta.system_prompt is None:
        b.s.meta.system_prompt = text
        b.s.meta.system_prompt_ref = Ref(rec.ev.id, base + "/system_prompt/text")
    tools = e.get("tools")
    names = [t.get("name") or t.get("title") for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if names and not b.s.meta.tools:
        b.s.meta.tools = [n for n in names if isinstance(n, str)]
    dynamic = e.get("dynamic_context")
    more = dynamic.get("text") if isinstance(dynamic, dict) else None
    if isinstance(more, str) and more.strip():  # event/llm_convertible/system.py: the model gets it after the prompt
        b.ev("note", rec, base, "/dynamic_context/text", e, actor="system", text=more,
             info=NoteInfo(subtype="dynamic_context"))
    if not isinstance(text, str):
        b.mark(rec, base, e, "set_aside", "a system prompt event with no text")


# texts the SDK itself sends from the user's side (source "user"), how they start: the critic's
# follow-up (critic/base.py), the content-filter nudge (agent/agent.py), the /goal runner's
# follow-up and resume prompts (conversation/goal/prompts.py); never typed by a person
SDK_USER_TEXTS = ("The task appears incomplete (iteration ", "Your previous response was blocked by the ",
                  "The goal is NOT yet complete (audit iteration ", "Resuming a goal that was paused or interrupted. ")
# a malformed call's FunctionCallValidationError, sent back as the user's message (agent.py;
# its texts: llm/mixins/fn_call_converter.py)
CALL_ERROR = re.compile(r"(?:Parameter '[^'\n]{1,200}' is (?:not allowed for function '|expected to be )"
                        r"|Missing required parameters for function '|Function '[^'\n]{1,200}' not found in available "
                        r"tools: )")


def _message(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    msg = e.get("llm_message")
    texts = _texts(msg, "content")
    source = e.get("source")
    role = msg.get("role") if isinstance(msg, dict) else None
    user = source == "user" or (source is None and role == "user")
    # a message a parent agent sent this (sub)agent's conversation (send_message(..., sender=):
    # tools/task/manager.py, tools/delegate/impl.py): the task it was given, not a person's words
    sender = e.get("sender") if user and isinstance(e.get("sender"), str) else None
    for i, text in texts:
        ptr = pointer("llm_message", "content", i, "text")
        if sender is not None:
            b.ev("note", rec, base, ptr, e, actor="agent", text=text,
                 info=NoteInfo(subtype="subagent_input", raw={"sender": sender}))
        elif user and (text.startswith(SDK_USER_TEXTS) or CALL_ERROR.match(text)):
            b.ev("note", rec, base, ptr, e, actor="system", text=text, info=NoteInfo(subtype="sdk_followup"))
        elif user:
            b.ev("user", rec, base, ptr, e, actor="user", text=text)
        elif source == "agent":
            b.seen_agent = True
            b.ev("agent_text", rec, base, ptr, e, text=text)
        else:  # the environment's message (a hook, a resume notice): not the user's words
            b.ev("note", rec, base, ptr, e, actor="system", text=text)
    if isinstance(msg, dict) and not user:
        _reasoning(b, rec, e, msg, base, ("llm_message",))
    _extended(b, rec, e, base)
    skills = e.get("activated_skills")
    for name in skills if isinstance(skills, list) else []:
        if isinstance(name, str) and name not in b.s.meta.skills:
            b.s.meta.skills.append(name)
    if not texts:
        b.mark(rec, base, e, "set_aside", "a message with no words")


def _extended(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    """`extended_content`: text the SDK appends to a message or a tool's result before the
    model sees it (a skill's content, a hook's additional context, path-scoped rules): a
    note of the system, never the person's or the tool's words."""
    for i, text in _texts(e, "extended_content"):
        b.ev("note", rec, base, pointer("extended_content", i, "text"), e, actor="system", text=text,
             info=NoteInfo(subtype="extended_content"))


ROOT_PARENT = "__root__"  # event/types.py ROOT_PARENT_ID: a root made after navigate_to(None)
# not tree nodes (conversation/state.py append_event, _resolve_active_leaf)
NOT_NODES = frozenset({"ConversationStateUpdateEvent", "ConversationErrorEvent"})


@dataclass(frozen=True)
class Head:
    """The HEAD of the conversation's tree as base_state.json saved it (conversation/state.py):
    `leaf_event_id`, the parent of the next event, moved to each event appended and by
    navigate_to (impl/local_conversation.py), which appends nothing: the events past it stay on
    disk, off the branch the agent's next context is made of; `head_is_empty`, navigate_to(None):
    no branch is active. `running`: the state says `execution_status` "running", the state of a
    run whose process stopped mid-step, saved before the step's events (agent_server/
    event_service.py: "the leaf can lag the on-disk events"). `source`: the state file's name."""

    leaf: str | None
    empty: bool
    running: bool
    source: str


def _path(tree: list[tuple[Any, Any, Any, str]], index: dict[str, int], leaf: int | None) -> set[int] | None:
    """The places of the events from `leaf` to the root (conversation/event_store.py path_to_root:
    each event's parent is its `parent_id`, `__root__` none, or, for an event written before the
    tree, the event before it); None when a parent is not in the log."""
    on: set[int] = set()
    cur = leaf
    while cur is not None and cur not in on:
        on.add(cur)
        parent = tree[cur][1]
        if parent == ROOT_PARENT:
            cur = None
        elif isinstance(parent, str):
            if parent not in index:
                return None
            cur = index[parent]
        else:
            cur = cur - 1 if cur > 0 else None
    return on


def off_branch(tree: list[tuple[Any, Any, Any, str]], head: Head | None = None) -> tuple[set[str], str | None]:
    """The records of the events the conversation's active branch does not go through, and what
    is to be said of the state's HEAD where it is not followed (else None). The branch ends at
    the state's `leaf_event_id` (state.py _resolve_active_leaf: a leaf that is set is the HEAD);
    with none (no state, a conversation written before the tree), at the last event that is a
    tree node (the same's fallback). `head_is_empty` with no leaf: every event is off the branch.
    Not followed: a leaf that names no event of the log, and a leaf behind the log's last event
    in a state saved "running" (a run that stopped before saving its HEAD, not a navigate_to:
    the events past it are the run's own). Empty when a parent does not resolve (nothing is
    guessed)."""
    index = {eid: i for i, (eid, _, _, _) in enumerate(tree) if isinstance(eid, str)}
    nodes = {i for i, (_, _, kind, _) in enumerate(tree) if not (isinstance(kind, str) and kind in NOT_NODES)}
    if head is not None and head.empty and head.leaf is None:
        return {tree[i][3] for i in nodes}, None
    last = max(nodes, default=None)
    leaf, said = last, None
    if head is not None and head.leaf is not None:
        if head.leaf not in index:
            said = (f"the state's leaf_event_id {head.leaf!r} names no event of the log: the active branch is "
                    "told from the last event")
        elif head.running and index[head.leaf] != last and index[head.leaf] in (_path(tree, index, last) or ()):
            said = (f"the state, saved while running, has its leaf_event_id {head.leaf!r} behind the log's last "
                    "event: a run that stopped before saving its HEAD; the events past it are read on the branch")
        else:
            leaf = index[head.leaf]
    on = _path(tree, index, leaf)
    return ({tree[i][3] for i in nodes - on} if on is not None else set()), said


def _reasoning(b: Builder, rec: Record, e: dict[str, Any], holder: dict[str, Any], base: str,
               at: tuple[str, ...]) -> None:
    """The model's reasoning as the SDK keeps it (llm/message.py), read from one place so that
    it is not told twice: `reasoning_content` (litellm's text), else Anthropic's
    `thinking_blocks` (`thinking`), else OpenAI Responses' `responses_reasoning_item`
    (`summary`, then `content`). Reasoning the provider encrypted (a `redacted_thinking`
    block, `encrypted_content`) is counted, not read."""
    rc = holder.get("reasoning_content")
    blocks = [(i, x) for i, x in enumerate(holder.get("thinking_blocks") or []) if isinstance(x, dict)]
    item = holder.get("responses_reasoning_item")
    item = item if isinstance(item, dict) else {}
    found: list[tuple[str, str]] = []
    if isinstance(rc, str) and rc.strip():
        found = [(pointer(*at, "reasoning_content"), rc)]
    elif texts := [(pointer(*at, "thinking_blocks", i, "thinking"), x["thinking"]) for i, x in blocks
                   if x.get("type") == "thinking" and isinstance(x.get("thinking"), str) and x["thinking"].strip()]:
        found = texts
    else:
        found = [(pointer(*at, "responses_reasoning_item", key, i), t) for key in ("summary", "content")
                 for i, t in enumerate(item.get(key) or []) if isinstance(t, str) and t.strip()]
    for ptr, text in found:
        b.ev("reasoning", rec, base, ptr, e, text=text)
    b.s.quality.encrypted_reasoning += sum(1 for _, x in blocks if x.get("type") == "redacted_thinking") + (
        1 if isinstance(item.get("encrypted_content"), str) and item["encrypted_content"] else 0)


def _action(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    b.seen_agent = True
    for i, text in _texts(e, "thought"):
        b.ev("reasoning", rec, base, pointer("thought", i, "text"), e, text=text)
    _reasoning(b, rec, e, e, base, ())
    action = e.get("action")
    akind = action.get("kind") if isinstance(action, dict) else None
    if akind == FINISH and isinstance(action, dict) and isinstance(action.get("message"), str):
        b.ev("agent_text", rec, base, "/action/message", e, text=action["message"])
        b.finished.add(str(e.get("tool_call_id")))
        return
    if akind == THINK and isinstance(action, dict) and isinstance(action.get("thought"), str):
        b.ev("reasoning", rec, base, "/action/thought", e, text=action["thought"])
        b.finished.add(str(e.get("tool_call_id")))
        return
    tool = e.get("tool_name")
    tc = e.get("tool_call")
    tcid = e.get("tool_call_id")
    call_id = tcid if isinstance(tcid, str) else str(e.get("id") or f"{rec.ev.id}{base}")
    if isinstance(action, dict):
        args: Any = action
        ptr = "/action"
    else:  # the SDK could not build the action: the model's arguments as sent
        args = tc.get("arguments") if isinstance(tc, dict) else None
        ptr = "/tool_call/arguments" if args is not None else ""
    b.ev("tool_call", rec, base, ptr, e, call_id=call_id, tool=tool if isinstance(tool, str) else None,
         args=args, name_ref=Ref(rec.ev.id, base + "/tool_name") if isinstance(tool, str) else None)
    b.waiting.append((call_id, str(tool), rec.ev))


def _acp(b: Builder, rec: Record, e: dict[str, Any], base: str) -> None:
    """A tool call an ACP server ran (Claude Code, Codex, Gemini behind the SDK's ACP agent;
    event/acp_tool_call.py), written whole when it starts and again as it goes, under one
    `tool_call_id`: the first write is the call (`tool_kind`, `raw_input`; the arguments of a
    later write when the first had none yet: acp_agent.py merges them in as they stream), the
    write with a final status its result (`raw_output`, else the texts of `content`: text
    blocks, ACP's `content`-wrapped ones, a `diff`'s new text; failed when `is_error` or
    `status: "failed"`), the writes between repeat it. ACP servers count their ids afresh each
    session, so an id met again after a message is a new call (resume_transcript.py)."""
    tcid = e.get("tool_call_id")
    if not isinstance(tcid, str):
        b.mark(rec, base, e, "set_aside", "an ACP tool call with no tool_call_id (nothing to pair)")
        return
    known = b.acp_calls.get(tcid)
    if known is not None and known[0] != b.messages and tcid in b.answered:
        b.answered.discard(tcid)  # the same id in another session of the server: another call
        known = None
    if known is None:
        b.seen_agent = True
        kind = e.get("tool_kind")
        tool = kind if isinstance(kind, str) else None
        call = b.ev("tool_call", rec, base, "/raw_input" if "raw_input" in e else "", e, call_id=tcid, tool=tool,
                    args=e.get("raw_input"), name_ref=Ref(rec.ev.id, base + "/tool_kind") if tool else None)
        b.acp_calls[tcid] = (b.messages, call)
        b.waiting.append((tcid, str(tool), rec.ev))
    elif not known[1].args and e.get("raw_input"):  # the arguments streamed in after the first write
        known[1].args, known[1].refs = e["raw_input"], [Ref(rec.ev.id, base + "/raw_input")]
    if e.get("status") in ACP_DONE and tcid not in b.answered:
        b.waiting = [w for w in b.waiting if w[0] != tcid]
        b.answered.add(tcid)
        out = e.get("raw_output")
        found = _acp_texts(e) if out is None else []
        ptrs = ["/raw_output"] if out is not None else [p for p, _ in found]
        text = json_text(out) if out is not None else "\n".join(t for _, t in found)
        failed = e.get("is_error") is True or e.get("status") == "failed"
        ts = e.get("timestamp") if isinstance(e.get("timestamp"), str) else None
        b.s.events.append(Event("tool_result", "agent", ts, [Ref(rec.ev.id, base + p) for p in ptrs or [""]],
                                ts_ref=Ref(rec.ev.id, base + "/timestamp") if ts else None, call_id=tcid,
                                text=text, is_error=failed))
    elif known is not None:
        b.mark(rec, base, e, "duplicate", "an ACP tool call written again as it runs (its first write is the call)")


def _acp_texts(e: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, text) of an ACP call's `content` (ToolCallContent: a text block, a `content`
    block wrapping one, a `diff` whose new text is given; acp_agent.py _serialize_tool_content)."""
    out = []
    items = e.get("content")
    for i, blk in enumerate(items if isinstance(items, list) else []):
        if not isinstance(blk, dict):
            continue
        inner = blk.get("content") if blk.get("type") == "content" else None
        for ptr, holder, key in ((pointer("content", i, "text"), blk, "text"),
                                 (pointer("content", i, "content", "text"), inner, "text"),
                                 (pointer("content", i, "new_text"), blk if blk.get("type") == "diff" else None,
                                  "new_text")):
            text = holder.get(key) if isinstance(holder, dict) else None
            if isinstance(text, str) and text.strip():
                out.append((ptr, text))
    return out


def _exit_code(obs: dict[str, Any]) -> int | None:
    code = obs.get("exit_code")
    meta = obs.get("metadata")
    if not isinstance(code, int) and isinstance(meta, dict):
        code = meta.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _observation(b: Builder, rec: Record, e: dict[str, Any], base: str, kind: str) -> None:
    tcid = e.get("tool_call_id")
    call_id = tcid if isinstance(tcid, str) else None
    if call_id is not None and call_id in b.finished:
        b.mark(rec, base, e, "duplicate", "the SDK's acknowledgement of a finish or think action (its words "
               "are the step)")
        return
    if call_id is None or call_id not in {w[0] for w in b.waiting}:
        q = b.s.quality.extra
        q["unpaired_observations"] = q.get("unpaired_observations", 0) + 1
        b.s.warn("unpaired-observation", f"{kind} at {base or '/'} answers no waiting action "
                 f"(tool_call_id {tcid!r}); kept out of the trace", rec.ev.source, rec.ev.line)
        b.mark(rec, base, e, "set_aside", "an observation that answers no waiting action (warned: "
               "unpaired-observation)")
        return
    b.waiting = [w for w in b.waiting if w[0] != call_id]
    b.answered.add(call_id)
    if kind == "UserRejectObservation":
        reason = e.get("rejection_reason")
        # the person's No in confirmation mode is their feedback; a PreToolUse hook's block is not
        by_user = e.get("rejection_source", "user") == "user"
        b.ev("tool_result", rec, base, "/rejection_reason", e, call_id=call_id,
             text=reason if isinstance(reason, str) else "", is_error=True, info=ResultInfo(rejected=by_user))
        if by_user:
            b.s.quality.extra["rejected_calls"] = b.s.quality.extra.get("rejected_calls", 0) + 1
        return
    if kind == "AgentErrorEvent":
        err = e.get("error")
        b.ev("tool_result", rec, base, "/error", e, call_id=call_id, text=err if isinstance(err, str) else "",
             is_error=True)
        return
    obs = e.get("observation")
    obs = obs if isinstance(obs, dict) else {}
    parts = [(pointer("observation", "content", i, "text"), t) for i, t in _texts(obs, "content")]
    if not parts:  # Tom's answer, the sleeptime indexing's message (OWN_TEXT)
        parts = [(pointer("observation", k), obs[k]) for k in OWN_TEXT.get(str(obs.get("kind")), ())
                 if isinstance(obs.get(k), str) and obs[k].strip()]
    code = _exit_code(obs)
    failed: bool | None = None
    if obs.get("is_error") is True or (code is not None and code not in (0, STILL_RUNNING)):
        failed = True
    elif obs.get("is_error") is False:
        failed = False
    refs = [Ref(rec.ev.id, base + ptr) for ptr, _ in parts]
    ts = e.get("timestamp") if isinstance(e.get("timestamp"), str) else None
    ev = Event("tool_result", "agent", ts, refs or [Ref(rec.ev.id, base + "/observation")],
               ts_ref=Ref(rec.ev.id, base + "/timestamp") if ts else None, call_id=call_id,
               text="\n".join(t for _, t in parts), is_error=failed)
    b.s.events.append(ev)
    _extended(b, rec, e, base)
