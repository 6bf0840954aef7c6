"""`git format-patch` mboxes and plain unified diffs as commit events."""

from __future__ import annotations

import email.header
import email.utils
import re
from datetime import UTC
from pathlib import Path

from ...evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile
from ...ids import make_id
from ...payloads import CommitInfo
from .. import ReadContext
from ..lines import read_bytes, sha256, source_name
from ._diff import parse_diff

# --- read_patch ----------------------------------------------------------------------------

MBOX_FROM = re.compile(rb"^From ([0-9a-f]{7,64}) Mon Sep 17 00:00:00 2001$", re.MULTILINE)
SUBJECT_PREFIX = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*")


def read_patch(path: Path, ctx: ReadContext) -> Session:
    """A `git format-patch` mbox (one commit event per patch) or a plain unified diff."""
    data = read_bytes(path)
    src = source_name(path, ctx.root)
    digest = sha256(data)
    session = Session(
        "git",
        make_id("patch", path.name, digest),
        [SourceFile(src, str(path), "patch", len(data), digest)],
        {},
        [],
        SessionMeta(agent="git"),
    )
    starts = [m.start() for m in MBOX_FROM.finditer(data)]
    chunks = list(zip(starts, [*starts[1:], len(data)], strict=True)) if starts else [(0, len(data))]
    for a, b in chunks:
        _add_patch(session, src, data, a, b, mbox=bool(starts))
    if not any(isinstance(e.info, CommitInfo) and e.info.files for e in session.events):
        session.warn("patch_without_diff", "no diff found in the file", src)
    return session


def _add_patch(session: Session, src: str, data: bytes, a: int, b: int, *, mbox: bool) -> None:
    raw = data[a:b]
    line = data[:a].count(b"\n") + 1
    ev = Evidence.make(src, line, a, raw, sha256(raw), "format_patch" if mbox else "unified_diff")
    session.add_evidence(ev)
    session.quality.records += 1
    text = raw.decode("utf-8", "replace")
    if "\ufffd" in text:
        session.warn("invalid_utf8", "patch is not valid UTF-8; replaced", src, line)
    info = CommitInfo(patch=True)
    msg: str | None = None
    ts: str | None = None
    diff = text
    if mbox:
        msg, ts, diff = _mbox_fields(text, info)
    info.files = parse_diff(diff)
    session.events.append(Event("commit", "human:git", ts, [Ref(ev.id, "")], text=msg, info=info))


def _mbox_fields(text: str, info: CommitInfo) -> tuple[str, str | None, str]:
    """Headers, message and diff of one format-patch mail."""
    head, _, body = text.partition("\n\n")
    headers = _mail_headers(head)
    info.sha = head.split(" ", 2)[1] if head.startswith("From ") else None
    name, mail = email.utils.parseaddr(headers.get("from", ""))
    info.author_name, info.author_email = name or None, mail or None
    ts = None
    if "date" in headers:
        try:
            dt = email.utils.parsedate_to_datetime(headers["date"])
            info.author_date = dt.isoformat()
            ts = dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (TypeError, ValueError):
            pass
    subject = SUBJECT_PREFIX.sub("", headers.get("subject", ""))
    k = body.find("\n---\n")
    d = body.find("diff --git ")
    cut = k if k != -1 and (d == -1 or k < d) else d
    desc = body[:cut] if cut != -1 else body
    msg = subject + ("\n\n" + desc.strip("\n") if desc.strip() else "")
    if d == -1:
        return msg, ts, ""
    diff = body[d:]
    sig = diff.rfind("\n-- \n")  # format-patch ends each mail with "-- " and git's version
    return msg, ts, diff[: sig + 1] if sig != -1 else diff


def _mail_headers(head: str) -> dict[str, str]:
    out: dict[str, str] = {}
    key = None
    for line in head.split("\n")[1:]:
        if line[:1] in (" ", "\t") and key:
            out[key] += " " + line.strip()  # folded header line
        elif ":" in line:
            k, _, v = line.partition(":")
            key = k.strip().lower()
            out[key] = v.strip()
    return {k: str(email.header.make_header(email.header.decode_header(v))) for k, v in out.items()}
