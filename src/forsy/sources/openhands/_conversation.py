"""An SDK conversation's files beside its events: its state, and its subagents' conversations.

What the SDK writes (openhands-sdk/openhands/sdk/conversation/state.py, persistence_const.py;
openhands-tools/openhands/tools/task/manager.py, delegate/impl.py):

* `<conversation>/base_state.json`: the conversation's state, rewritten as it changes
  (`_save_base_state`, one JSON object): `execution_status` (idle, running, paused,
  waiting_for_confirmation, finished, error, stuck, deleting), `agent.llm.model`, the HEAD of
  the events' tree (`leaf_event_id`, `head_is_empty`: `_v1.Head`), ...; a conversation stopped
  as stuck or paused leaves no event saying so, one navigated back (navigate_to) with nothing
  appended since no event either;
* a subagent the `task` or `delegate` tool runs is a conversation of its own, persisted under its
  parent's `subagents/<conversation id>/` (events and state, its own subagents under it); the
  parent sends it its task as a message, the call's `prompt` (task) or `tasks[<agent id>]`
  (delegate), with a `sender` only when the parent's visualizer has a name. A `task`
  subagent's folder is deleted when it closes.

Reading a conversation reads its state and its subagents' conversations. Evidence names a file
below the events folder (the read's root) by the conversation: `openhands-conversation:<its
folder>/<path below it>`, read back for `forsy verify` from a root that is its events folder,
the conversation's folder or the folder holding it (`read_back`), never from outside it.

The state is read after the conversation's events, before the reader finishes: its HEAD ends
the active branch (`_v1.off_branch`). Its `execution_status` is kept in agent_config;
`finished`, `stuck` and `error` are how the SDK says the run ended (T-termination/declared:
task_complete, agent_blocked, error_unrecoverable); the model, when no event named one. A subagent's events get actor
`subagent:<conversation id>` and are interleaved with the others by time; its task is its
parent's note, and its first event and first own event are linked to the call of its parent,
one of whose arguments is the task exactly, when exactly one call's is (`identical-prompt`);
else it is placed by time with no link, and said.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import InputError
from ...evidence import Ref, Session
from ...payloads import NoteInfo
from .. import ReadContext
from .._side import companion, entries, one_object, read_side
from .._threads import IDENTICAL_PROMPT, add_subagent, fold, interleave, link_by_task, read_thread
from ..lines import inside, name_text
from ._events_dir import SUBAGENTS, event_files
from ._v1 import Head

SCHEME = "openhands-conversation:"
STATE = "base_state.json"
# state.py ConversationExecutionStatus: the SDK's word for how a run ended, where it is one
ENDINGS = {"finished": "task_complete", "stuck": "agent_blocked", "error": "error_unrecoverable"}

ReadFolder = Callable[[Path, ReadContext, Callable[[Path], str]], Session]


def namer(top: Path) -> Callable[[Path], str]:
    """Evidence names for the files of the conversation `top` outside its events folder."""
    return lambda p: f"{SCHEME}{top.name}/{p.relative_to(top).as_posix()}"


def read_back(name: str, roots: Sequence[Path]) -> bytes | None:
    """A file named by `namer`, under one of `roots`: a conversation's events folder, the
    conversation's folder, or the folder holding it; never a file outside the conversation."""
    convo_id, _, rel = name.removeprefix(SCHEME).partition("/")
    if not convo_id or not (rel == STATE or rel.startswith(SUBAGENTS + "/")):
        return None
    for root in roots:
        base = root.resolve()
        for convo in (base.parent if base.name == "events" else None, base, base / convo_id):
            if convo is not None and convo.name == convo_id and (p := inside(convo, rel)) is not None \
                    and p.is_file():
                return p.read_bytes()
    return None


def read_conversation(convo: Path, s: Session, ctx: ReadContext, read_folder: ReadFolder) -> None:
    """Add to the conversation `s` (read from `convo`/events, with its state: `read_state`) its
    subagents'."""
    threads = _subagents(convo, s, ctx, read_folder, namer(convo))
    if threads:
        s.events = interleave([s.events, *(t.events for _, _, t in threads)])


def read_state(convo: Path, s: Session, ctx: ReadContext, name: Callable[[Path], str]) -> Head | None:
    """The state of the conversation `convo` read into `s`, and the HEAD it saved (None when there
    is no state to read)."""
    path = convo / STATE
    if not path.is_file():
        return None
    src = name(path)
    try:
        data = read_side(path, src, "openhands", s, ctx.limits)
    except InputError as e:
        s.warn("state-unreadable", f"the conversation's state could not be read: {e.message}", src)
        return None
    state, ev = one_object(data, src, "base_state", s)
    if state is None:
        s.warn("unparsable", "the conversation's state is not one JSON object; not read", src, 1)
        return None
    s.mark(ev.id, "metadata", "the conversation's state (how its run stands, its model, its HEAD)", "base_state")
    status = state.get("execution_status")
    if isinstance(status, str):
        s.meta.extra["execution_status"] = status
        if status in ENDINGS and s.meta.ending is None:
            s.meta.ending, s.meta.ending_ref = ENDINGS[status], Ref(ev.id, "/execution_status")
    agent = state.get("agent")
    llm = agent.get("llm") if isinstance(agent, dict) else None
    model = llm.get("model") if isinstance(llm, dict) else None
    if isinstance(model, str) and model and not s.meta.models:
        s.meta.models.append(model)
    leaf = state.get("leaf_event_id")
    return Head(leaf if isinstance(leaf, str) else None, state.get("head_is_empty") is True, status == "running", src)


def _subagents(top: Path, s: Session, ctx: ReadContext, read_folder: ReadFolder,
               name: Callable[[Path], str]) -> list[tuple[str, str, Session]]:
    """(its id, its parent's actor, its session) of each subagent conversation under `top`,
    each after its parent (its parent's events relabelled first: the call that ran it is found
    by its parent's actor); each relabelled and linked."""
    out: list[tuple[str, str, Session]] = []
    todo: list[tuple[Path, str, Session]] = [(top, "agent", s)]
    main = s.files[0].path if s.files else None
    while todo:
        convo, parent_actor, parent = todo.pop(0)
        folder = convo / SUBAGENTS
        # a folder that may not be listed is named (relative to the conversation), its subagents not here
        subs = companion(s, main, f"{folder.relative_to(top).as_posix()}/", "its subagents' work is not here",
                         entries, folder)
        for sub in (p for p in subs or [] if p.is_dir() and not p.is_symlink()):
            files = companion(s, main, f"{sub.relative_to(top).as_posix()}/", "a subagent's work is not here",
                              event_files, sub / "events", strict=True)
            if not files:
                continue
            thread = read_thread(s, "conversation", name(sub), read_folder, files[0], ctx, name)
            if thread is None:
                continue
            thread.meta.ending = None  # a subagent's end is not the conversation's
            fold(thread, s)
            agent = name_text(sub.name)  # its actor's name: text
            _adopt(agent, thread, parent_actor, parent, s)
            out.append((agent, parent_actor, thread))
            todo.append((sub, f"subagent:{agent}", thread))
    return out


def _adopt(agent: str, thread: Session, parent_actor: str, parent: Session, s: Session) -> None:
    actor = f"subagent:{agent}"
    for e in thread.events:
        # no person types into a subagent's conversation: a message from its `user` side is its
        # parent's, though the SDK names the sender only when the parent's visualizer has a name
        # (task/manager.py, delegate/impl.py: `getattr(parent._visualizer, "_name", None)`)
        if e.kind == "user":
            e.kind, e.actor, e.info = "note", "agent", NoteInfo(subtype="subagent_input")
    given = [e for e in thread.events if isinstance(e.info, NoteInfo) and e.info.subtype == "subagent_input"]
    tasks = {id(e) for e in given}
    for e in thread.events:
        if e.actor == "agent":
            e.actor = parent_actor if id(e) in tasks else actor
    for e in given:  # read alone, its first task is the trace's; here, a note of its parent's
        for ref in e.refs:
            s.mark(ref.ev, "set_aside", "the task the parent agent gave this subagent", "MessageEvent")
    call = link_by_task(agent, thread.events, given[0].text if given else None, parent.events, parent_actor,
                        parent.session_id, s, thread.files[0].path if thread.files else None)
    add_subagent(s.meta, thread.meta.models, {
        "id": agent, "actor": actor, "file": thread.files[0].path if thread.files else None,
        "parent_thread_id": parent.session_id if call else None, "parent_call_id": call,
        "link_rule": IDENTICAL_PROMPT if call else None, "models": list(thread.meta.models),
        "execution_status": thread.meta.extra.get("execution_status"),
        "token_usage": dict(thread.meta.token_usage)})
