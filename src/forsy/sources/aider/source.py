"""Aider's chat history (`.aider.chat.history.md`) and input history (`.aider.input.history`)
→ `Session`s.

Aider writes both files into the root of the git repository it runs in (or the folder it
was started from), and appends every run to them: each `# aider chat started at …` header
starts a session, so one file gives many sessions. A session's id is its start time and the
line of its header (`20250715-113837-L2`), so it is the same on every machine and re-read.

How the markdown is cut into writes is in `_md`, how a reply is cut into reasoning, text and
edits in `_reply`, what each write becomes in `_build`, how typed lines merge in `_input`
(except the `/run X` entries aider itself adds to the input history for the commands of a
reply it runs: set aside, `_aider_runs`).
Every line is accounted for: each write is a record (a byte range, `_evidence`) that a step
cites or the ledger marks (metadata, set aside, duplicate), and the blank lines between
writes are counted in `quality.extra["blank_lines"]`. Lines before the first header (a file
cut at its start) are read as a session of their own, with a warning; a last line with no line
break (a file cut at its end, `_md`) is warned too.

What the format does not record, so the trace leaves it empty: the time of anything but a
session's start and the typed lines (the markdown has no timestamps; times are local, with
no zone); the edits themselves (forsy reconstructs each edit call from the reply's SEARCH/
REPLACE, udiff or whole-file block, and takes aider's `Applied edit to` line as its result;
both are counted: `edits_reconstructed`, `untimed_events`); the output of shell commands
aider ran for a reply (only `Running …` is written) and their exit status; the system prompt,
the repo map and the files in the chat.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Session, SessionMeta, SourceFile
from ...payloads import ResultInfo
from .. import ReadContext
from .._side import unreadable
from ..lines import read_bytes, sha256, sniff_file, sniffed, source_name
from ..listing import walk
from ._build import Builder
from ._evidence import Cutter
from ._input import (
    TIME,
    Entry,
    answer_note,
    entries_by_session,
    is_answer,
    merge,
    parse_time,
    read_entries,
    take,
    user_event,
)
from ._md import HEADER, Item, parse

CHAT = ".aider.chat.history.md"
INPUT = ".aider.input.history"
_HEADER = re.compile(rb"(?m)^# aider chat started at \d{4}-\d\d-\d\d")


class AiderSource:
    name: ClassVar[str] = "aider"
    # Aider writes into each project's repository, not under the home folder: the sweep finds
    # its files under the folders it is given (`discover`), none by default.
    default_roots: ClassVar[tuple[str, ...]] = ()
    searches_below: ClassVar[bool] = True  # `discover` walks the folders below the one given
    # read with the chat history beside it, and named by its reading when it may not be (sources.walk)
    companions: ClassVar[frozenset[str]] = frozenset({INPUT})

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.removeprefix(b"\xef\xbb\xbf")
        if path.name.endswith(INPUT):
            first = next((ln for ln in h.splitlines() if ln.strip()), b"")
            return TIME.match(first.decode("utf-8", "replace")) is not None or first.startswith(b"+")
        return _HEADER.search(h) is not None

    def discover(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        chats = sniffed(_below(path, CHAT), self.sniff)
        inputs = sniffed(_below(path, INPUT), self.sniff)
        # an input history beside a chat history is read with it
        return chats + [p for p in inputs if p.parent / CHAT not in chats]

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), self.name, len(data), sha256(data))
        if path.name.endswith(INPUT):
            return _read_input(data, name, file)
        return _read_chat(path, data, name, file, ctx)


SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv"})


def _below(root: Path, name: str) -> list[Path]:
    """Files called `name` in `root` and the folders below it, except hidden ones (`.git`,
    `.venv`: aider writes its files at a repository's root, never inside them) and
    dependency folders; links to folders are not followed."""
    out: list[Path] = []
    for dirpath, dirs, files in walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        if name in files:
            out.append(Path(dirpath) / name)
    return out


def _session(sid: str, file: SourceFile) -> Session:
    return Session("aider", sid, [file], {}, [], SessionMeta(agent="aider"))


def _sid(item: Item | None, line: int) -> str:
    m = HEADER.match(item.lines[0].text) if item is not None else None
    digits = re.sub(r"\D", "", m.group(1))[:14] if m else ""
    when = f"{digits[:8]}-{digits[8:]}-" if len(digits) == 14 else ""
    return f"{when}L{line}"


def _warn_not_utf8(sessions: list[Session], spans: list[tuple[int, int]], lines: list[int], name: str) -> None:
    """Lines that are not UTF-8 (aider writes its chat in the encoding `--encoding` names): one
    warning a session, with how many and the first, since their text shows U+FFFD for the bytes
    forsy could not read, a character the log does not hold."""
    by: dict[int, list[int]] = {}
    for line in lines:
        by.setdefault(id(_owner(sessions, spans, line)), []).append(line)
    for s in sessions:
        mine = by.get(id(s))
        if mine:
            s.warn("not-utf8", f"{len(mine)} line(s) are not UTF-8 (first at line {mine[0]}): the bytes that could "
                   "not be read are shown as U+FFFD, which the log does not hold. aider writes the chat in the "
                   "encoding of its --encoding option; convert the file to UTF-8 (e.g. iconv -f cp1252 -t utf-8 "
                   "FILE > NEW, naming that encoding) and retrace it", name, mine[0])


def _read_chat(path: Path, data: bytes, name: str, file: SourceFile, ctx: ReadContext) -> list[Session]:
    chat = parse(data)
    cut = Cutter(data, name)
    sessions: list[Session] = []
    spans: list[tuple[int, int]] = []  # first line, lines in writes
    items = chat.items
    s: Session | None = None
    b: Builder | None = None
    builders: list[Builder] = []
    i = 0
    while i < len(items):
        it = items[i]
        if it.kind == "header" or s is None:
            s = _session(_sid(it if it.kind == "header" else None, it.lines[0].no if it.kind == "header" else 1), file)
            b = Builder(s, cut)
            builders.append(b)
            sessions.append(s)
            spans.append((it.lines[0].no, 0))
            if it.kind != "header":
                s.warn("no-session-header", "lines before the first `# aider chat started at` header (the file was "
                       "cut at its start?): read as a session of their own", name, it.lines[0].no)
        assert b is not None
        j = i + 1
        while j < len(items) and items[j].kind == "output":
            j += 1
        after = items[i + 1 : j]
        if it.kind == "header":
            b.header(it)
            b.outputs(b.messages(after))
        elif it.kind == "user":
            b.user(it, after)
        elif it.kind == "text":
            b.reply(it, after)
        else:
            b.outputs(b.messages(items[i:j]))
        spans[-1] = (spans[-1][0], spans[-1][1] + sum(len(x.lines) for x in items[i:j]))
        i = j
    if not sessions:
        sessions.append(_session("L1", file))
        spans.append((1, 0))  # its lines, all blank, are its own
        sessions[0].warn("no-sessions", "no `# aider chat started at` header and no writes: an empty chat history",
                         name, None)
    _count_blank(sessions, spans, data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1))
    for s, b in zip(sessions, builders, strict=False):
        b.finish()  # a /run waiting for the input of its instructions at the session's end
        s.quality.extra["blank_lines"] += b.blank_lines
    for line in chat.unterminated:
        owner = _owner(sessions, spans, line)
        owner.warn("unterminated-message", "an aider message of several lines has no closing line break before the "
                   "next session or the end (the file was cut?)", name, line)
    _warn_not_utf8(sessions, spans, chat.not_utf8, name)
    if chat.cut is not None:
        _owner(sessions, spans, chat.cut).warn(
            "cut-write", "the file does not end with a line break, as every aider write does: its last write was cut "
            "(aider stopped mid-write, or the file was copied while written)", name, chat.cut)
    _merge_input(path, sessions, ctx)
    for s in sessions:
        s.quality.records = len(s.evidence)
        s.quality.extra["untimed_events"] = sum(1 for e in s.events if e.ts is None)
    return sessions


def _owner(sessions: list[Session], spans: list[tuple[int, int]], line: int) -> Session:
    k = max((i for i, (first, _) in enumerate(spans) if first <= line), default=0)
    return sessions[k]


def _count_blank(sessions: list[Session], spans: list[tuple[int, int]], total: int) -> None:
    """Blank lines of each session: the lines of its span that no write holds. Those before
    the first write of the file go to the first session."""
    for k, (s, (first, used)) in enumerate(zip(sessions, spans, strict=True)):
        start = 1 if k == 0 else first
        end = spans[k + 1][0] - 1 if k + 1 < len(spans) else total
        s.quality.extra["blank_lines"] = max(0, end - start + 1 - used)


def _merge_input(path: Path, sessions: list[Session], ctx: ReadContext) -> None:
    cand = path.parent / INPUT
    if not cand.is_file():
        return
    name = source_name(cand, ctx.root)
    try:
        data = read_bytes(cand, ctx.limits)
    except InputError as e:  # named as evidence names it: the message never holds a path of this machine
        unreadable(sessions[0], name, name, e, "the times of what was typed, and what the chat lacks of it, are "
                   "not here", "input-history-unreadable")
        return
    file = SourceFile(name, str(cand.resolve()), "aider", len(data), sha256(data))
    scratch = _session("scratch", file)
    entries = read_entries(data, Cutter(data, name), scratch)
    starts = [parse_time(s.meta.started_at) for s in sessions]
    per, before = entries_by_session(entries, starts)
    for s, got in zip(sessions, per, strict=True):
        if got:
            s.files.append(file)
            merge(s, _aider_runs(s, got))
    if before:
        extra = _input_session(f"input-before-L{before[0].line}", file, before, scratch)
        extra.warn("typed-before-chat", "typed entries older than every session of the chat history beside it: "
                   "read as a session of typed lines only", name, before[0].line)
        sessions.insert(0, extra)
    target = next((s for s in sessions if file in s.files), sessions[0])
    target.warnings.extend(scratch.warnings)
    for ev in scratch.evidence.values():  # records that are in no entry (unknown lines)
        if ev.record_type == "unknown_line":
            target.add_evidence(ev)
            if file not in target.files:
                target.files.append(file)
    target.quality.unknown_records += scratch.quality.unknown_records
    blank = scratch.quality.extra.get("blank_lines", 0)
    if blank:
        target.quality.extra["input_blank_lines"] = blank


def _aider_runs(s: Session, entries: list[Entry]) -> list[Entry]:
    """The entries left for `merge`: aider adds `/run <command>` to the input history for each
    command of a reply's suggestion it runs (base_coder.handle_shell_commands), which the user
    never typed. Such entries are set aside: the k-th `/run X` entry of the session is aider's
    when the k-th `/run X` of the chat, in order, is a command of a suggestion aider ran (a
    `shell` call not refused) rather than a typed `/run X` prompt."""
    refused = {e.call_id for e in s.events if e.kind == "tool_result" and isinstance(e.info, ResultInfo)
               and e.info.rejected}
    order: dict[str, list[bool]] = {}  # each `/run X` of the chat in order: True where aider ran it
    for e in s.events:
        text = e.text or ""
        if e.kind == "user" and text.startswith("/run "):
            order.setdefault(text.strip(), []).append(False)
        elif e.kind == "tool_call" and e.tool == "shell" and e.call_id not in refused:
            for c in str(e.args).split("\n"):
                if c.strip() and not c.strip().startswith("#"):
                    order.setdefault(f"/run {c.strip()}", []).append(True)
    seen: dict[str, int] = {}
    out: list[Entry] = []
    for entry in entries:
        key = entry.text.strip()
        k = seen[key] = seen.get(key, 0) + 1
        if k > len(order.get(key, [])) or not order[key][k - 1]:
            out.append(entry)
            continue
        take(s, entry)
        for ev in entry.lines:
            s.mark(ev.id, "set_aside", "a command of the reply aider ran: aider writes it to the input history")
        s.quality.extra["aider_run_entries"] = s.quality.extra.get("aider_run_entries", 0) + 1
    return out


def _input_session(sid: str, file: SourceFile, entries: list[Entry], scratch: Session) -> Session:
    s = _session(sid, file)
    for e in entries:
        take(s, e)
        if e.lines and is_answer(e.text):
            s.events.append(answer_note(s, e))
        elif e.lines:
            s.events.append(user_event(e))
    s.quality.records = len(s.evidence)
    return s


def _read_input(data: bytes, name: str, file: SourceFile) -> list[Session]:
    """An input history read alone: one session of what was typed, each entry at its time."""
    scratch = _session("input-history", file)
    entries = read_entries(data, Cutter(data, name), scratch)
    s = _input_session("input-history", file, entries, scratch)
    s.warnings = scratch.warnings
    for ev in scratch.evidence.values():
        s.add_evidence(ev)
    s.quality.unknown_records = scratch.quality.unknown_records
    s.quality.extra.update(scratch.quality.extra)
    s.quality.records = len(s.evidence)
    return [s]
