"""The first Codex CLI's rollouts: `~/.codex/sessions/rollout-<date>-<uuid>.json`.

The TypeScript CLI (codex-cli/src/utils/storage/save-rollout.ts) saved each session as one
pretty-printed JSON object, rewritten as the session went on:

    {"session": {"timestamp", "id", "instructions"}, "items": [ResponseItem, ...]}

`items` are the Responses API items the CLI kept (messages with input_text/output_text
parts, function_call `shell` with JSON-string arguments, function_call_output whose output
is `{"output", "metadata": {"exit_code", "duration_seconds"}}`, reasoning). They are read as
the bare records of the early Rust format are: the `session` member is the header (its exact
bytes one record, like the bare format's first line), each item one record at its exact
bytes inside the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...evidence import Evidence, Session, SourceFile
from ..json_doc import read_object_array
from ..lines import Limits, read_bytes, sha256
from ._read import LoadedFile, Rec

# JSON.stringify writes the members in the order the CLI built them: `session` first
HEAD = re.compile(rb'^\s*\{\s*"session"\s*:\s*\{')


def is_legacy(head: bytes) -> bool:
    return HEAD.match(head.removeprefix(b"\xef\xbb\xbf")) is not None


def load_json_rollout(path: Path, source: str, session: Session, limits: Limits) -> LoadedFile:
    data = read_bytes(path, limits)
    sf = SourceFile(source, str(path.resolve()), "codex", len(data), sha256(data))
    doc = read_object_array(data, source, "items")
    recs: list[Rec] = []
    if doc is None:
        session.quality.unparsable_records += 1
        session.warn("unparsable", "not a JSON object with a session and an items list; nothing read", source, 1)
        return LoadedFile(path, source, recs, sf, False)
    for code, msg, line in doc.problems:
        session.warn(code, msg, source, line)
    head = doc.header.get("session")
    if isinstance(head, dict) and "session" in doc.spans:
        line, offset, raw = doc.spans["session"]
        ev = session.add_evidence(Evidence.make(source, line, offset, raw, sha256(raw), "bare_header"))
        ts = head.get("timestamp") if isinstance(head.get("timestamp"), str) else None
        recs.append(Rec(0, line, ev, "bare_header", None, ts, head, ()))
    for r in doc.records:
        session.add_evidence(r.ev)
        t = r.data.get("type")
        recs.append(Rec(len(recs), r.ev.line or 0, r.ev.id, "response_item", t if isinstance(t, str) else None, None,
                        r.data, ()))
    session.quality.records += doc.elements + (1 if recs and recs[0].kind == "bare_header" else 0)
    session.quality.unparsable_records += doc.elements - len(doc.records)
    for name in sorted(set(doc.header) - {"session", "items"}):
        session.warn("unknown_member", f"top-level member {name!r} is not one the CLI wrote; not read", source,
                     doc.spans[name][0] if name in doc.spans else None)
    return LoadedFile(path, source, recs, sf, False)
