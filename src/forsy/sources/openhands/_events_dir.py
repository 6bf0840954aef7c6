"""A conversation OpenHands persisted one file per event.

The SDK's `EventLog` (openhands-sdk/openhands/sdk/conversation/event_store.py, names in
persistence_const.py) writes each event as `<persistence dir>/<conversation id>/events/
event-<index, 5+ digits>-<event id>.json`, beside `base_state.json`. The app before the SDK
(V0: openhands/events/stream.py, storage/locations.py) wrote `~/.openhands/sessions/<sid>/
events/<id>.json`, one `event_to_dict` each, and every full page of 25 events again as
`event_cache/<start>-<end>.json` (a copy, to read faster), beside `metadata.json`. The app
server on the SDK (openhands/app_server/event/filesystem_event_service.py) writes each event
as `<persistence dir, ~/.openhands>/v1/events/<conversation id>/<YYYYMMDDHHMMSS>_<kind>_<id
hex>`, with no extension (`model_dump(mode='json')`, indented): that conversation folder is
one session, its events ordered by their own `timestamp` (the names keep seconds only), then
by name.

The events folder is one session: every event file is one record (its exact bytes), read
in index order by the event rules (`_v1.py` for the SDK's, `_build.py` for V0's); its id is
the conversation folder's name. A folder walk offers the first event file of each events
folder, and the others, and the cache pages beside it, are its parts; so is a subagent's
conversation under it (`subagents/<id>/`, read with it: `_conversation`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ...evidence import Evidence, Session, SessionMeta
from .. import ReadContext
from .._records import Record
from .._side import entries, parsed_object, read_side, unreadable
from ..lines import sha256, source_name

if TYPE_CHECKING:
    from collections.abc import Callable

EVENT_NAME = re.compile(r"^event-(\d{5,})-[0-9a-fA-F\-]{8,}\.json$")  # the SDK's
V0_NAME = re.compile(r"^(\d+)\.json$")  # the app's before the SDK: the event's id
CACHE_PAGE = re.compile(r"^\d+-\d+\.json$")
APP_NAME = re.compile(r"^\d{14}_[A-Za-z]+_[0-9a-f]{32}$")  # the app server's (no extension)
APP_GLOB = "[0-9]" * 14 + "_*_*"  # the same names, loosely, as a glob (what a folder listing asks)


def is_event_file(path: Path) -> bool:
    return path.parent.name == "events" and (EVENT_NAME.match(path.name) or V0_NAME.match(path.name)) is not None


def is_app_event_file(path: Path) -> bool:
    """An event the app server kept: `.../events/<conversation id>/<time>_<kind>_<id hex>`."""
    return APP_NAME.match(path.name) is not None and path.parent.parent.name == "events"


def is_v0_event_file(path: Path) -> bool:
    return path.parent.name == "events" and V0_NAME.match(path.name) is not None


def is_cache_page(path: Path) -> bool:
    """A V0 page of 25 events written again beside the events folder (`event_cache/`)."""
    return (path.parent.name == "event_cache" and CACHE_PAGE.match(path.name) is not None
            and (path.parent.parent / "events").is_dir())


# the conversation's state beside its events folder: the SDK's (conversation/state.py) and V0's
# (storage/locations.py: metadata, init data, the LLM registry, an experiment's config)
STATE_FILES = frozenset({"base_state.json", "metadata.json", "init.json", "llm_registry.json", "exp_config.json"})


def is_state_file(path: Path) -> bool:
    """A state file of a conversation folder (`STATE_FILES`, beside its events folder): the
    conversation's state, not an event. Any other file there is a file of its own."""
    return (path.name in STATE_FILES and (path.parent / "events").is_dir()
            and first_event_file(path.parent / "events") is not None)


def session_of(path: Path) -> Path | None:
    """The first event file of the conversation `path` belongs to (an event file of any of the
    three layouts, a cache page, a state file), or None."""
    if is_app_event_file(path):
        return first_event_file(path.parent, app=True)
    folder = (path.parent if is_event_file(path) else path.parent.parent / "events" if is_cache_page(path)
              else path.parent / "events" if is_state_file(path) else None)
    if folder is None:
        return None
    return first_event_file(top_conversation(folder.parent) / "events")  # a subagent's: read with its parent


SUBAGENTS = "subagents"  # the SDK's task and delegate tools: `<parent conversation>/subagents/<id>/`


def top_conversation(convo: Path) -> Path:
    """The conversation `convo` is read with: the one whose subagents' folder holds it (the
    SDK's task/manager.py and delegate/impl.py persist a subagent's conversation under its
    parent's `subagents/`), up to one that is none's; `convo` itself when it is none's."""
    while convo.parent.name == SUBAGENTS and first_event_file(convo.parent.parent / "events") is not None:
        convo = convo.parent.parent
    return convo


def app_event_files(folder: Path) -> list[Path]:
    """The event files of an app server conversation folder, in name order."""
    return sorted(p for p in folder.iterdir() if APP_NAME.match(p.name))


def first_event_file(folder: Path, *, app: bool = False) -> Path | None:
    """The first event file of an events folder (`app`: of an app server's conversation
    folder), or None. Asked of each of a folder's files (the walk, the sweep's plan: which
    session is this file a part of?), it lists the folder once while the folder is unchanged:
    listing it for each of a conversation's thousands of files took minutes."""
    try:
        stamp = folder.stat().st_mtime_ns  # a file added or removed changes it
    except OSError:
        return None
    return _first(str(folder), app, stamp)


@functools.lru_cache(maxsize=256)
def _first(folder: str, app: bool, stamp: int) -> Path | None:
    files = app_event_files(Path(folder)) if app else event_files(Path(folder))
    return files[0] if files else None


def event_files(folder: Path, *, strict: bool = False) -> list[Path]:
    """The event files of an events folder, in the order they were numbered (the SDK's file
    names, else V0's event ids). `strict`: OSError when the folder may not be listed (a glob
    finds nothing there, and says nothing: a conversation read must say it)."""
    found = [(int(m.group(1)), p) for p in (entries(folder, "*.json") if strict else folder.glob("*.json"))
             if (m := EVENT_NAME.match(p.name) or V0_NAME.match(p.name))]
    return [p for _, p in sorted(found, key=lambda t: (t[0], t[1].name))]


def first_of_each(files: list[Path]) -> list[Path]:
    """One file per events folder (its first): the others are read with it."""
    seen: set[Path] = set()
    out: list[Path] = []
    for p in files:
        if is_cache_page(p):
            continue  # a copy of events the events folder holds
        if is_app_event_file(p):
            if p.parent not in seen:
                seen.add(p.parent)
                out.append(p if (first := first_event_file(p.parent, app=True)) is None else first)
        elif not is_event_file(p):
            out.append(p)
        elif (events := top_conversation(p.parent.parent) / "events") not in seen:
            seen.add(events)
            out.append(p if (first := first_event_file(events)) is None else first)
    return out


def read(path: Path, ctx: ReadContext, builder: Callable[[Session], Any],
         name_of: Callable[[Path], str] | None = None,
         state: Callable[[Path, Session], Any] | None = None) -> Session:
    """The whole conversation of the events folder `path` is in; `builder` makes the SDK
    event reader for the session (its `event(rec, data, "")` and `finish(head)`); `name_of` names
    its files as evidence (by default, relative to the read's root); `state` reads the
    conversation's state beside its events, after them (as its files are listed) and before the
    reader finishes: the HEAD it returns ends the active branch."""
    app = is_app_event_file(path)
    convo = path.parent if app else path.parent.parent
    files = app_event_files(path.parent) if app else event_files(path.parent)
    s = Session("openhands", convo.name, [], {}, [], SessionMeta(agent="openhands"))
    b = builder(s)
    records: list[tuple[str, Record, dict[str, Any]]] = []
    main = name_of(path) if name_of is not None else source_name(path, ctx.root)
    unread: list[InputError] = []
    for p in files:
        name = name_of(p) if name_of is not None else source_name(p, ctx.root)
        # each event file is one record: one that may not be read costs its event, not the conversation
        try:
            data = read_side(p, name, "openhands", s, ctx.limits)
        except InputError as e:
            unread.append(e)
            unreadable(s, main, name, e, "the event it holds is not here")
            continue
        value = parsed_object(data, s)
        if value is None:
            s.warn("unparsable", "an event file that is not one JSON object; skipped", name, 1)
            continue
        kind = value.get("kind") if isinstance(value.get("kind"), str) else None
        ev = Evidence.make(name, 1, 0, data, sha256(data), kind)
        s.add_evidence(ev)
        ts = value.get("timestamp")
        records.append((ts if app and isinstance(ts, str) else "", Record(ev, value), value))
    if unread and len(unread) == len(files):  # nothing of the conversation could be read
        raise InputError(f"none of its {len(files)} event files could be read ({unread[0].message})", path=path)
    # the app's names keep seconds only: within one, events are in their own time's order
    for _, rec, value in sorted(records, key=lambda t: t[0]) if app else records:
        b.event(rec, value, "")
    b.finish(state(convo, s) if state is not None else None)
    return s
