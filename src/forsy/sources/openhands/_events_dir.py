"""A conversation the OpenHands SDK persisted: one file per event.

`EventLog` (openhands-sdk/openhands/sdk/conversation/event_store.py, names in
persistence_const.py) writes each event of a conversation as its own JSON file,
`<persistence dir>/<conversation id>/events/event-<index, 5+ digits>-<event id>.json`,
beside `base_state.json` (the agent's configuration and state). The events folder is one
session: every event file is one record (its exact bytes), read in index order by the SDK
event rules (`_v1.py`); its id is the conversation folder's name. A folder walk offers the
first event file of each events folder, and the others are its parts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ...evidence import Evidence, Session, SessionMeta, SourceFile
from .. import ReadContext
from .._records import Record
from ..lines import read_bytes, sha256, source_name

if TYPE_CHECKING:
    from collections.abc import Callable

EVENT_NAME = re.compile(r"^event-(\d{5,})-[0-9a-fA-F\-]{8,}\.json$")


def is_event_file(path: Path) -> bool:
    return EVENT_NAME.match(path.name) is not None and path.parent.name == "events"


def event_files(folder: Path) -> list[Path]:
    """The event files of an events folder, in the order the SDK numbered them."""
    found = [(int(m.group(1)), p) for p in folder.glob("event-*.json") if (m := EVENT_NAME.match(p.name))]
    return [p for _, p in sorted(found, key=lambda t: (t[0], t[1].name))]


def first_of_each(files: list[Path]) -> list[Path]:
    """One file per events folder (its first): the others are read with it."""
    seen: set[Path] = set()
    out: list[Path] = []
    for p in files:
        if not is_event_file(p):
            out.append(p)
        elif p.parent not in seen:
            seen.add(p.parent)
            out.append(event_files(p.parent)[0])
    return out


def read(path: Path, ctx: ReadContext, builder: Callable[[Session], Any]) -> Session:
    """The whole conversation of the events folder `path` is in; `builder` makes the SDK
    event reader for the session (its `event(rec, data, "")` and `finish()`)."""
    convo = path.parent.parent
    files = event_files(path.parent)
    s = Session("openhands", convo.name, [], {}, [], SessionMeta(agent="openhands"))
    b = builder(s)
    for p in files:
        data = read_bytes(p, ctx.limits)
        name = source_name(p, ctx.root)
        s.files.append(SourceFile(name, str(p.resolve()), "openhands", len(data), sha256(data)))
        s.quality.records += 1
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            value = None
        if not isinstance(value, dict):
            s.quality.unparsable_records += 1
            s.warn("unparsable", "an event file that is not one JSON object; skipped", name, 1)
            continue
        kind = value.get("kind") if isinstance(value.get("kind"), str) else None
        ev = Evidence.make(name, 1, 0, data, sha256(data), kind)
        s.add_evidence(ev)
        b.event(Record(ev, value), value, "")
    b.finish()
    return s
