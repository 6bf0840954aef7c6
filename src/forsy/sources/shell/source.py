"""Shell histories as evidence: bash (plain, `#epoch`, "eternal"), zsh, fish and atuin.

One history file is one `Session` (source_kind "shell"). Every command gives:

* one `Evidence` for the command's own bytes as written (`line` = the command's first line,
  offset/length covering all its lines), cited by the event's `refs` with pointer "", so a
  copied command can be compared byte for byte. When the record holds more than the
  command (a bash `#epoch` line, a zsh `: <start>:<elapsed>;` prefix, fish `when:`/`paths:`
  lines, the eternal-history prefix) a second `Evidence` covers the whole record
  (record_type "<type>_record") and `ShellInfo.record_ref` cites it: times, durations and
  paths are read from there. When the text is not simply the UTF-8 of those bytes (zsh
  metafied bytes and continuations, fish escapes, invalid UTF-8), `ShellInfo.decoded` states
  the rule. For atuin, whose rows have no byte place in the file, the source is
  `atuin:<path>#<row id>`, the bytes are the canonical JSON (sorted keys, no spaces, UTF-8;
  `forsy.ids.canonical`) of the row's columns as `SELECT * FROM history WHERE id = ?`
  returns them, and the command is cited with pointer "/command".
* one `shell_command` `Event`: `text` is the exact command (decoded), `ts` the record's own
  time in ISO 8601 UTC when the format has one (None otherwise, never guessed), actor
  `"human:shell"` (or `"agent:shell"` for an atuin row whose author is an agent), `info`
  (a `ShellInfo`) holds only what the record says: exit_code, duration_s, cwd, shell, session, ...

Empty commands (zsh logs `: <t>:0;` for some bare prompts) ran nothing: they are counted in
`quality.extra["empty_commands"]`, not made events. An eternal-history entry logged again
(same pid, history number, time and text: PROMPT_COMMAND on an empty prompt) is kept and
marked `ShellInfo.duplicate_of_line`, counted in `quality.duplicate_records`.

Events keep file order (the eternal history interleaves shells, so it is not time order:
`timeline.merge` orders by time).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from ...errors import InputError
from ...evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile
from ...ids import canonical, make_id
from ...payloads import ShellInfo
from .. import ReadContext
from .._records import Problem, warn_problems
from .._side import unreadable
from .._sqlite import WAL_MISSING, read_only_query, without_wal
from ..lines import inside, read_bytes, sha256, sniff_file, source_name
from . import _formats as fmts
from . import _names

SQLITE_MAGIC = b"SQLite format 3\x00"
HISTORY_NAMES = (".bash_history", ".zsh_history", "fish_history", ".bash_eternal_history",
                 # zsh's HISTFILE as Prezto, zim (.zhistory) and zsh-newuser-install (.histfile) set it
                 ".zhistory", ".histfile")
# atuin's author_kind (history.rs AuthorKind): 1 a person, 2 an agent. A row without one, or with
# a kind atuin does not know (a newer version's), is judged as History::is_agent does: by the
# author name against atuin's own list (KNOWN_AGENTS), unless that name is only the user name the
# author fell back to (a user called "pi" is no agent).
ATUIN_AUTHOR_KINDS = {1: False, 2: True}
ATUIN_KNOWN_AGENTS = frozenset({"claude-code", "codex", "copilot", "opencode", "pi"})
ATUIN_UNKNOWN_USER = "unknown-user"  # the user atuin's CmdOrigin supplies for a host without one
# subpaths where fish and atuin keep their history under a home directory
# lines not read at all
UNPARSABLE = frozenset({"unparsable_line", "orphan_timestamp", "nul-run"})
XDG_HISTORIES = (".local/share/fish/fish_history", ".local/share/atuin/history.db")
# the default HISTFILEs of the ksh family, mksh and BusyBox ash
OTHER_SHELL_NAMES = (".sh_history", ".mksh_history", ".ash_history")


def iso_utc(epoch_s: int, nanos: int = 0) -> str:
    """ISO 8601 UTC ("Z") of an epoch; sub-second part to the microsecond (truncated)."""
    dt = datetime.fromtimestamp(epoch_s, tz=UTC)
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{base}.{nanos // 1000:06d}Z" if nanos else base + "Z"


def rel_source(path: Path, ctx: ReadContext) -> str:
    """The path as evidence names it: relative to the input root, else the file name."""
    return source_name(path, ctx.root)


# suffixes of documents, data and source files: never a shell history, whatever they hold
NOT_HISTORY_SUFFIXES = frozenset(
    ".md .markdown .rst .txt .html .htm .xml .json .jsonl .yaml .yml .toml .ini .cfg .csv .tsv .pdf "
    ".py .js .ts .go .rs .java .c .h .cpp .rb .php .sh .zsh .bash .fish .ps1 .lock .log".split()
)


# bytes no text holds: NUL, the C0 controls but tab, newline, vertical tab, form feed, carriage
# return and escape (a command may hold a terminal escape), and DEL
_CONTROL = bytes([*range(0x09), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
# A history can hold a stray NUL (a disk or editor fault) that its parser reads past, so one NUL
# does not make a file binary; the share of such bytes does. Binary files (programs, images,
# audio, archives, databases, pickles, PDFs) have 3.6% of them and more in their first 4 KB;
# a damaged history far less than 1%.
BINARY_SHARE = 0.01


def _binary(head: bytes) -> bool:
    """A NUL, and more than BINARY_SHARE of the first 4096 bytes NUL or control bytes."""
    sample = head[:4096]
    if b"\x00" not in sample:
        return False
    return len(sample) - len(sample.translate(None, _CONTROL)) > len(sample) * BINARY_SHARE


def _looks_foreign(head: bytes) -> bool:
    """JSON (agent logs) or binary: never a text shell history, whatever the name."""
    s = head.lstrip()
    return s.startswith((b"{", b"[")) or _binary(head)


class ShellHistorySource:
    name: ClassVar[str] = "shell"
    # a history is a whole session: another file beside it is never its part (sources.walk)
    parts_beside: ClassVar[bool] = False
    schemes: ClassVar[tuple[str, ...]] = ("atuin:",)

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        """`atuin:<db>#<row id>`: the canonical JSON of that row of atuin's history table."""
        db_name, _, row_id = name[len("atuin:"):].rpartition("#")
        for root in roots:
            db = inside(root, db_name)
            if db is None or not db.is_file():
                continue
            try:
                rows = _atuin_query(db, "SELECT * FROM history WHERE id = ?", (row_id,))
            except sqlite3.Error:
                continue  # not (or no longer) an atuin database: the row cannot be read back
            if rows:
                return canonical({k: (v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
                                  for k, v in rows[0].items()})
        return None

    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(SQLITE_MAGIC):
            return path.name == "history.db"
        if _looks_foreign(head) or _names.libedit(head):
            return False
        # plain bash has no signature of its own: only its file name tells, unless the name is
        # another program's (python, psql, mysql… keep `~/.<program>_history` files of lines too)
        if _names.other_program_name(path.name):
            return fmts.strong_signature(head)
        if path.name in HISTORY_NAMES or path.name.endswith("_history"):
            return True
        return fmts.strong_signature(head)

    def refuses(self, path: Path, head: bytes) -> str | None:
        """Why a file given as `--history` is not a shell history, or None when it may be one.

        A plain bash history has no signature of its own, so a file of any name is taken
        unless it is plainly something else: JSON or binary, another program's history
        (`another_programs`), or a document or source file by its suffix (a README.md would
        otherwise become "commands")."""
        if self.sniff(path, head):
            return None
        if _looks_foreign(head):
            return "JSON or binary data, not a shell history"
        other = self.another_programs(path, head)
        if other is not None:
            return other
        if path.suffix.lower() in NOT_HISTORY_SUFFIXES:
            return f"a {path.suffix} file, not a shell history"
        return None

    def another_programs(self, path: Path, head: bytes) -> str | None:
        """What a file is when it is plainly another program's history (`_names`: a Python REPL's,
        psql's, a libedit one…), with what forsy reads instead; None otherwise."""
        if self.sniff(path, head):
            return None
        other = _names.other_program(path.name, head)
        return None if other is None else f"{other}: {_names.READS}"

    def discover(self, path: Path) -> list[Path]:
        if not path.is_dir():
            return []
        found = [path / n for n in (*HISTORY_NAMES, "history.db", *XDG_HISTORIES)]
        named = [p for p in found if p.is_file()]
        # the other shells' histories, when their content is text a shell wrote (mksh keeps
        # its own binary format, which forsy does not read)
        named += [p for p in (path / n for n in OTHER_SHELL_NAMES) if sniff_file(p, self.sniff)]
        # a history under another name (HISTFILE is the user's choice) is known by its content:
        # zsh extended, fish, `#epoch` pairs or eternal lines, which nothing else writes
        return named + [p for p in _by_content(path) if p not in named]

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        data = read_bytes(path, ctx.limits)
        src = rel_source(path, ctx)
        if data.startswith(SQLITE_MAGIC):
            return [read_atuin(path, src, data)]
        fmt = fmts.detect(data, path.name)
        parsed = fmts.parse(data, fmt)
        # the parser's word: a zsh history whose first line is plain may hold timed lines further on
        session = _new_session(path, src, data, parsed.fmt)
        for entry in parsed.entries:
            if entry.command.strip():
                _add_entry(session, src, data, entry, parsed.shell)
            else:
                _count_empty(session)
                _set_aside_empty(session, src, data, entry)
        _report(session, src, parsed.problems)
        if data and not data.endswith(b"\n") and parsed.entries:
            # shells end each entry they write with a newline: one without was being written when
            # read (or the file was cut), so its command may be cut short: kept, and said
            session.quality.extra["unterminated_last_line"] = 1
            session.warn("unterminated_last_line", "the history ends without a newline: its last command may be "
                         "cut short (being written when read)", src, parsed.entries[-1].line)
        if not parsed.entries:
            session.warn("empty_history", "no command found", src)
        return [session]


def _by_content(folder: Path) -> list[Path]:
    """The files of `folder` (not below it) whose head only a shell history has."""
    out = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    for p in entries:
        if "hist" not in p.name.lower() or p.suffix.lower() in NOT_HISTORY_SUFFIXES:
            continue
        try:
            if not p.is_file() or p.is_symlink():
                continue
            with p.open("rb") as f:
                head = f.read(4096)
        except OSError:
            continue
        if not _looks_foreign(head) and fmts.strong_signature(head):
            out.append(p)
    return out


def _report(session: Session, src: str, problems: list[Problem]) -> None:
    warn_problems(session, src, problems, UNPARSABLE)


def _count_empty(session: Session) -> None:
    """An empty command (zsh records `: <t>:0;` for a bare Enter) ran nothing: no event."""
    session.quality.extra["empty_commands"] = session.quality.extra.get("empty_commands", 0) + 1


def _set_aside_empty(session: Session, src: str, data: bytes, entry: fmts.Entry) -> None:
    """The ledger accounts for an empty entry too: its bytes, set aside by a named rule."""
    raw = data[entry.offset : entry.end]
    ev = Evidence.make(src, entry.line, entry.offset, raw, sha256(raw), entry.record_type + "_record")
    session.mark(session.add_evidence(ev), "set_aside", "empty commands ran nothing")


def _new_session(path: Path, src: str, data: bytes, fmt: str) -> Session:
    digest = sha256(data)
    return Session(
        source_kind="shell",
        # one id for the file as it grows (its name, not its bytes): each new draft of a history a
        # sweep meets again replaces the one before, as a growing agent log's does
        session_id=make_id("shell", path.name),
        files=[SourceFile(src, str(path), "shell", len(data), digest)],
        evidence={},
        events=[],
        meta=SessionMeta(agent="shell", extra={"format": fmt}),
    )


# How a command's text was decoded from its bytes, when it is not just their UTF-8.
DECODING = {
    "zsh": "zsh: metafied bytes unmetafied (0x83 then c stands for c XOR 0x20); the backslash zsh "
    "writes before each newline of a command dropped; UTF-8",
    "fish": "fish: escapes read left to right (\\\\ is a backslash, \\n a newline); UTF-8",
    "bash": "bash: a line's trailing CR dropped, lines joined with newlines; UTF-8",
}


def _add_entry(session: Session, src: str, data: bytes, entry: fmts.Entry, shell: str) -> None:
    """One command: evidence for its own bytes (and its whole record), one event."""
    cmd_line, a, b = entry.command_span()
    raw = data[a:b]
    ev = Evidence.make(src, cmd_line, a, raw, sha256(raw), entry.record_type)
    session.add_evidence(ev)
    info = entry.info
    info.shell = shell
    if (a, b) != (entry.offset, entry.end):
        # the time, duration or paths come from the rest of the record: cite it too
        rec = data[entry.offset : entry.end]
        rec_ev = Evidence.make(src, entry.line, entry.offset, rec, sha256(rec), entry.record_type + "_record")
        info.record_ref = Ref(session.add_evidence(rec_ev), "")
        # the same entry's whole bytes: read for its time, duration, exit code or paths
        session.mark(info.record_ref.ev, "metadata", "the entry's time, duration and paths")
    if raw.decode("utf-8", "replace") != entry.command:
        info.decoded = DECODING[shell]
    elif "\ufffd" in entry.command and "\ufffd" not in raw.decode("utf-8", "ignore"):
        info.decoded = "invalid UTF-8 replaced by U+FFFD"
    if info.duplicate_of_line is not None:
        # the eternal log repeated an entry (same pid, number, time, text): say so
        session.quality.duplicate_records += 1
    session.quality.records += 1
    ts = _safe_iso(session, src, entry)
    event = Event("shell_command", "human:shell", ts, [Ref(ev.id, "")], text=entry.command, info=info)
    session.events.append(event)


def _safe_iso(session: Session, src: str, entry: fmts.Entry) -> str | None:
    if entry.bad_epoch is not None:  # digits past any number: never turned into one (`fmts.number`)
        session.warn("bad_timestamp", f"epoch {fmts.shown(entry.bad_epoch)} is not a date", src, entry.line)
        return None
    if entry.epoch is None:
        return None
    try:
        return iso_utc(entry.epoch)
    except (OverflowError, OSError, ValueError):
        session.warn("bad_timestamp", f"epoch {entry.epoch} is not a date", src, entry.line)
        return None


# --- atuin ---------------------------------------------------------------------------------
# Modelled on atuin's client database (crates/atuin-client/migrations, up to the 2026
# `author_kind` migration): history(id, timestamp ns, duration ns, exit, command, cwd,
# session, hostname, deleted_at, [author, intent], [shell], [author_kind]). Older databases
# simply lack the bracketed columns.


def read_atuin(path: Path, src: str, data: bytes) -> Session:
    session = _new_session(path, src, data, "atuin")
    wal: list[OSError] = []
    rows = _atuin_rows(path, wal)
    if wal:  # the history is read from the main file alone
        unreadable(session, src, f"{src}-wal", wal[0], WAL_MISSING)
    for row in rows:
        if row.get("deleted_at") is not None:
            # the user deleted this entry in atuin; forsy does not bring it back
            session.quality.extra["deleted_rows"] = session.quality.extra.get("deleted_rows", 0) + 1
            continue
        if str(row.get("command") or "").strip():
            _add_atuin_row(session, src, row)
        else:
            _count_empty(session)
    if not session.events:
        session.warn("empty_history", "no command found in the atuin history table", src)
    return session


def _atuin_rows(path: Path, wal: list[OSError]) -> list[dict[str, Any]]:
    try:
        cols = {r["name"] for r in _atuin_query(path, "PRAGMA table_info(history)", unread_wal=wal)}
        if not {"command", "timestamp"} <= cols:
            raise InputError("SQLite database without an atuin history table", path=path)
        return _atuin_query(path, "SELECT * FROM history ORDER BY timestamp, rowid", unread_wal=wal)
    except sqlite3.Error as e:
        raise InputError(f"cannot read atuin history ({e}){without_wal(wal)}", path=path) from None


def _atuin_query(db: Path, sql: str, args: tuple[str, ...] = (), unread_wal: list[OSError] | None = None) \
        -> list[dict[str, Any]]:
    """The rows of a read-only query: atuin keeps its database in WAL mode, and nothing is written
    beside it (`_sqlite`)."""
    return read_only_query(db, sql, args, what="atuin", unread_wal=unread_wal)


def _add_atuin_row(session: Session, src: str, row: dict[str, Any]) -> None:
    row = {k: (v.decode("utf-8", "replace") if isinstance(v, bytes) else v) for k, v in row.items()}
    raw = canonical(row)
    ev = Evidence.make(f"atuin:{src}#{row.get('id')}", None, 0, raw, sha256(raw), "atuin_history")
    session.add_evidence(ev)
    session.quality.records += 1
    info = _atuin_info(row)
    actor = "agent:shell" if _atuin_is_agent(row) else "human:shell"
    ts_ns = row.get("timestamp")
    ts = iso_utc(ts_ns // 10**9, ts_ns % 10**9) if isinstance(ts_ns, int) else None
    text = str(row.get("command") or "")
    # the row's JSON holds the command exactly: cite it with a pointer
    session.events.append(Event("shell_command", actor, ts, [Ref(ev.id, "/command")], text=text, info=info))


def _atuin_info(row: dict[str, Any]) -> ShellInfo:
    info = ShellInfo(atuin_id=row.get("id"))
    exit_code, duration = row.get("exit"), row.get("duration")
    # atuin stores -1 where it does not know (imported entries, commands still running)
    if isinstance(exit_code, int) and exit_code != -1:
        info.exit_code = exit_code
    if isinstance(duration, int) and duration >= 0:
        info.duration_s = duration / 1e9

    def text(key: str) -> str | None:
        v = row.get(key)
        return None if v in (None, "") else str(v)

    info.cwd, info.session, info.hostname = text("cwd"), text("session"), text("hostname")
    info.shell, info.author, info.intent = text("shell"), text("author"), text("intent")
    info.author_kind = row.get("author_kind")
    return info


def _atuin_is_agent(row: dict[str, Any]) -> bool:
    kind = row.get("author_kind")
    if isinstance(kind, int) and kind in ATUIN_AUTHOR_KINDS:
        return ATUIN_AUTHOR_KINDS[kind]
    author = row.get("author")
    if not isinstance(author, str) or author not in ATUIN_KNOWN_AGENTS:
        return False
    return author != _atuin_default_author(row.get("hostname"))


def _atuin_default_author(hostname: object) -> str:
    """The name atuin's author falls back to: the user half of `hostname` ("host:user"); the host
    when there is no user (a colonless legacy value, or atuin's placeholder user)."""
    origin = hostname if isinstance(hostname, str) else ""
    host, sep, user = origin.partition(":")
    return host if not sep or user == ATUIN_UNKNOWN_USER else user
