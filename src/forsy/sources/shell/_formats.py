"""Parsers for the text shell history formats, with exact byte positions.

Each parser turns the bytes of one history file into `Entry`s (one per command) and
`Problem`s (lines it could not use). They decide nothing else: building evidence and
events is `shell.py`'s job. Rules follow what the shells themselves do when they read
their files back, not what looks plausible:

* bash: every non-blank line is a command; a `#<epoch>` line (9-11 digits) stamps the
  next command. A file that starts with a stamp was written with HISTTIMEFORMAT set, and bash
  (since 4.4, histfile.c read_history_range) reads such a file back with each line that no
  stamp precedes, blank ones too (5.3), added to the command before it: that is how a
  multi-line command (lithist) is written. Blank lines right after a stamp are skipped.
* bash "eternal history" (`echo $$ $USER "$(history 1)" >> file` in PROMPT_COMMAND):
  `<pid> <user> <histnum> <epoch> <cmd>`; a line that does not start like that continues
  the previous command (bash printed a multi-line command as is).
* zsh extended (`: <start>:<elapsed>;<cmd>`): zsh writes a backslash before every newline
  of a command, so a line ending in `\\` continues on the next one (zsh drops that one
  backslash and keeps the newline). A command ending in backslashes (and spaces) gets one
  space more, which zsh drops when it reads the line (5.9, hist.c readhistline); without
  EXTENDED_HISTORY a command starting with `:` is written after a backslash, also dropped.
  Bytes are "metafied": 0x83 then (byte XOR 0x20).
* fish: `- cmd: <escaped>` / `   when: <epoch>` / `   paths:` + `    - <escaped>`; escapes
  are `\\\\` and `\\n`, read left to right as fish does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...payloads import ShellInfo
from .._records import Problem

BASH_EPOCH = re.compile(rb"#(\d{9,11})")
ETERNAL = re.compile(rb"(\d+) (\S+) +(\d+) +(\d{9,11}) (.*)", re.DOTALL)
ZSH_EXT = re.compile(rb": (\d+):(\d+);(.*)", re.DOTALL)
FISH_CMD = re.compile(rb"- cmd:(?: (.*))?", re.DOTALL)
FISH_WHEN = re.compile(rb"\s+when: *(-?\d+)\s*")
META = 0x83  # zsh's Meta byte
# the shells keep times, durations and history numbers in 64-bit integers (time_t, long, int): a
# longer digit run is damage, which Python would refuse to turn into an int (past 4300 digits)
# or a float (past 308), so it is never converted
_INT64 = 2**63
_INT64_DIGITS = 19
ZSH_END_SPACE = re.compile(rb"\\ +\Z")  # a backslash, then spaces, at the end of a line


@dataclass(slots=True)
class Entry:
    """One command: where its record and the command's own bytes are, and what they say.

    The record is everything the history wrote for the command (a `#epoch` line, a zsh
    `: <t>:<e>;` prefix, fish `when:`/`paths:` lines); the command span is only the bytes
    of the command as written, so a copied command can be checked byte for byte.
    """

    line: int  # 1-based number of the record's first line
    offset: int  # byte offset of the record's first byte
    end: int  # byte offset just past its last byte (line terminator excluded)
    command: str
    record_type: str
    epoch: int | None = None  # seconds since 1970 (UTC), when the format has one
    info: ShellInfo = field(default_factory=ShellInfo)  # what the record says besides the command
    cmd_line: int = 0  # where the command's own bytes start (0: same as the record)
    cmd_offset: int = -1
    cmd_end: int = -1  # -1: the record's end
    bad_epoch: bytes | None = None  # a time's digits too long for any number the shell writes (epoch is None)

    def command_span(self) -> tuple[int, int, int]:
        """(line, offset, end) of the command's own bytes."""
        end = self.end if self.cmd_end < 0 else self.cmd_end
        if self.cmd_offset < 0:
            return self.line, self.offset, end
        return self.cmd_line, self.cmd_offset, end


@dataclass(slots=True)
class Parsed:
    fmt: str
    shell: str
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class _Line:
    n: int
    offset: int
    raw: bytes  # without "\n" (and without a final "\r")


BOM = b"\xef\xbb\xbf"


def all_lines(data: bytes) -> Iterator[_Line]:
    """Every line, blank ones included (zsh continuations may be blank). A BOM the file starts
    with (a Windows editor's save) and the NULs a line ends in (a file pre-allocated, then its
    writer died: `damage` names them) are no part of any command: left out; a line of NULs
    only is no line."""
    pos, n, size = (len(BOM) if data.startswith(BOM) else 0), 0, len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        n += 1
        stop = size if end == -1 else end
        raw = data[pos:stop]
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        kept = raw.rstrip(b"\x00") if raw.endswith(b"\x00") else raw
        if kept or not raw:  # a blank line stays one
            yield _Line(n, pos, kept)
        if end == -1:
            return
        pos = end + 1


def damage(data: bytes) -> list[Problem]:
    """What `all_lines` leaves out, each named with its line: the BOM, runs of NULs."""
    out = []
    if data.startswith(BOM):
        out.append(Problem("bom", "the file starts with a UTF-8 byte order mark; read from the byte after it", 1))
    if b"\x00" not in data:
        return out
    for n, raw in enumerate(data.split(b"\n"), 1):
        body = raw.rstrip(b"\r")
        if body.endswith(b"\x00"):
            kept = body.rstrip(b"\x00")
            nuls = len(body) - len(kept)
            if kept:
                out.append(Problem("nul-bytes", f"the line ends in {nuls} NUL bytes (a file cut while written?); "
                                   "read without them", n))
            else:
                out.append(Problem("nul-run", f"a run of {nuls} NUL bytes (a file cut while written?); skipped", n))
    return out


def number(digits: bytes) -> int | None:
    """The integer a digit run captured from a record stands for (a leading `-` allowed), or
    None when it does not fit in 64 bits: no shell wrote it."""
    sign = -1 if digits.startswith(b"-") else 1
    value = digits.lstrip(b"-").lstrip(b"0")  # leading zeros are no digits of it (nor of int()'s limit)
    if len(value) > _INT64_DIGITS:
        return None
    n = sign * int(value or b"0")
    return n if -_INT64 <= n < _INT64 else None


def shown(digits: bytes) -> str:
    """A digit run as a warning quotes it: whole when short, else its start and its length."""
    return digits.decode() if len(digits) <= 24 else f"{digits[:12].decode()}… ({len(digits)} digits)"


def decode(raw: bytes, problems: list[Problem], line: int) -> str:
    """UTF-8, or UTF-8 with U+FFFD replacements and a warning naming the line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(Problem("invalid_utf8", f"invalid UTF-8 at byte {e.start} of the record", line))
        return raw.decode("utf-8", "replace")


def unmetafy(raw: bytes) -> bytes:
    """zsh's unmetafy(): 0x83 followed by c stands for c XOR 0x20."""
    if META not in raw:
        return raw
    out = bytearray()
    it = iter(raw)
    for c in it:
        if c == META:
            nxt = next(it, None)
            if nxt is not None:
                out.append(nxt ^ 0x20)
        else:
            out.append(c)
    return bytes(out)


# --- format detection -------------------------------------------------------------------


def _first_lines(data: bytes, k: int) -> list[bytes]:
    out = []
    for ln in all_lines(data):
        if ln.raw.strip():
            out.append(ln.raw)
            if len(out) == k:
                break
    return out


def detect(data: bytes, name: str) -> str:
    """The text format of a history file: fish, zsh_extended, eternal, zsh_plain or bash."""
    first = _first_lines(data, 5)
    zsh = "zsh" in name or name.lstrip(".") in ("zhistory", "histfile")  # zsh's HISTFILE names
    if not first:
        return "zsh_plain" if zsh else "bash"
    if "fish" in name or (FISH_CMD.fullmatch(first[0]) and any(FISH_WHEN.fullmatch(x) for x in first[1:3])):
        return "fish"
    if ZSH_EXT.fullmatch(first[0]):
        return "zsh_extended"
    if ETERNAL.fullmatch(first[0]) and (
        "eternal" in name or sum(bool(ETERNAL.fullmatch(x)) for x in first) >= 3
    ):
        return "eternal"
    if zsh:
        return "zsh_plain"
    return "bash"


def strong_signature(head: bytes) -> bool:
    """Content that only a shell history has: zsh extended, fish, `#epoch` pairs, eternal."""
    first = _first_lines(head, 6)
    if not first:
        return False
    if ZSH_EXT.fullmatch(first[0]) and re.match(rb": \d{9,11}:\d+;", first[0]):
        return True
    if FISH_CMD.fullmatch(first[0]) and len(first) > 1 and FISH_WHEN.fullmatch(first[1]):
        return True
    if len(first) >= 4 and all(
        bool(BASH_EPOCH.fullmatch(x)) == (i % 2 == 0) for i, x in enumerate(first[:4])
    ):
        return True
    return len(first) >= 3 and all(ETERNAL.fullmatch(x) for x in first[:3])


def parse(data: bytes, fmt: str) -> Parsed:
    parser = {
        "bash": parse_bash,
        "eternal": parse_eternal,
        "zsh_extended": parse_zsh,
        "zsh_plain": parse_zsh,
        "fish": parse_fish,
    }[fmt]
    out = parser(data, fmt)
    out.problems[:0] = damage(data)
    return out


# --- bash ----------------------------------------------------------------------------------


def parse_bash(data: bytes, fmt: str = "bash") -> Parsed:
    out = Parsed(fmt, "bash")
    stamp: tuple[_Line, int] | None = None  # a `#epoch` line waiting for its command
    lines = list(all_lines(data))
    # bash's own test (has_timestamps): the file's first line is a stamp
    multiline = bool(lines) and BASH_EPOCH.fullmatch(lines[0].raw) is not None
    more: list[_Line] = []  # lines after a command, no stamp before them: its own when multiline
    for ln in lines:
        if not ln.raw.strip():
            if multiline and stamp is None and out.entries:
                more.append(ln)
            continue
        m = BASH_EPOCH.fullmatch(ln.raw)
        if m:
            _end_command(out, more)
            more = []
            if stamp is not None:
                _orphan_stamp(out, stamp[0])
            stamp = (ln, int(m.group(1)))
            continue
        if multiline and stamp is None and out.entries:
            more.append(ln)  # a further line of the command before it
            continue
        _end_command(out, more)
        more = []
        text = decode(ln.raw, out.problems, ln.n)
        end = ln.offset + len(ln.raw)
        if stamp is not None:
            first, epoch = stamp
            out.entries.append(
                Entry(
                    first.n, first.offset, end, text, "bash_epoch", epoch, cmd_line=ln.n, cmd_offset=ln.offset
                )
            )
            stamp = None
        else:
            out.entries.append(Entry(ln.n, ln.offset, end, text, "bash_plain"))
    _end_command(out, more)
    if stamp is not None:
        _orphan_stamp(out, stamp[0])
    return out


def _end_command(out: Parsed, more: list[_Line]) -> None:
    """Add the lines that followed the last command to it, joined with newlines as bash does
    (history.c _hs_append_history_line); its record and its own bytes now end with them."""
    if not more:
        return
    entry = out.entries[-1]
    entry.end = more[-1].offset + len(more[-1].raw)
    entry.command = "\n".join([entry.command, *(decode(x.raw, out.problems, x.n) for x in more)])


def _orphan_stamp(out: Parsed, stamp: _Line) -> None:
    out.problems.append(Problem("orphan_timestamp", "timestamp line with no command after it", stamp.n))


def parse_eternal(data: bytes, fmt: str = "eternal") -> Parsed:
    out = Parsed(fmt, "bash")
    cur: tuple[Entry, list[bytes]] | None = None
    seen: dict[tuple[str | None, str | None, int | None, str], int] = {}

    def flush() -> None:
        if cur is None:
            return
        entry, parts = cur
        entry.command = decode(b"\n".join(parts), out.problems, entry.line)
        # PROMPT_COMMAND logs `history 1` again when nothing new was run (an empty
        # prompt): same pid, history number, time and text. Kept, but marked.
        key = (entry.info.session, entry.info.user, entry.info.histnum, entry.command)
        if key in seen and entry.epoch == out.entries[seen[key]].epoch:
            entry.info.duplicate_of_line = out.entries[seen[key]].line
        else:
            seen[key] = len(out.entries)
        out.entries.append(entry)

    blanks: list[_Line] = []  # blank lines, kept only if the command goes on after them
    for ln in all_lines(data):
        m = ETERNAL.fullmatch(ln.raw)
        if m:
            flush()
            blanks = []
            pid, user, num, epoch, cmd = m.groups()
            histnum = number(num)
            if histnum is None:
                out.problems.append(Problem("bad_histnum", f"history number {shown(num)} is not one bash writes; "
                                            "read without one", ln.n))
            info = ShellInfo(session=pid.decode(), user=user.decode("utf-8", "replace"), histnum=histnum)
            cur = (
                Entry(
                    ln.n,
                    ln.offset,
                    ln.offset + len(ln.raw),
                    "",
                    "bash_eternal",
                    int(epoch),
                    info,
                    ln.n,
                    ln.offset + m.start(5),
                ),  # fmt: skip
                [cmd],
            )
        elif not ln.raw.strip():
            blanks.append(ln)
        elif cur is not None:
            # bash printed a multi-line command as is: this line belongs to the previous one
            cur[1].extend([b.raw for b in blanks] + [ln.raw])
            cur[0].end = ln.offset + len(ln.raw)
            blanks = []
        else:
            out.problems.append(Problem("unparsable_line", "not an eternal-history line", ln.n))
    flush()
    return out


# --- zsh -----------------------------------------------------------------------------------


def parse_zsh(data: bytes, fmt: str = "zsh_extended") -> Parsed:
    """Each line read as zsh reads it (hist.c readhistfile): EXTENDED_HISTORY only decides how
    zsh writes a command, never how it reads one, so a `: <start>:<elapsed>;` line is timed and
    any other is a command with no time, whatever the file's first line is (the option turned on
    or off at some point mixes them). A plain line in a history that holds timed ones is warned
    `zsh_unprefixed_line`, wherever it stands: its command has no time, where the file keeps
    times. The format is `zsh_extended` when any line is timed."""
    out = Parsed(fmt, "zsh")
    lines = list(all_lines(data))
    i = 0
    while i < len(lines):
        ln = lines[i]
        if not ln.raw.strip():
            i += 1
            continue
        j = i
        parts = [ln.raw]
        # zsh: a line ending in a backslash continues (it wrote "\\\n" for each newline)
        while parts[-1].endswith(b"\\") and j + 1 < len(lines):
            parts[-1] = parts[-1][:-1]
            j += 1
            parts.append(lines[j].raw)
        out.entries.append(_zsh_entry(out, ln, lines[j], parts))
        i = j + 1
    if any(e.record_type == "zsh_extended" for e in out.entries):
        out.fmt = "zsh_extended"
        untimed = [Problem("zsh_unprefixed_line", "no ': <epoch>:<elapsed>;' prefix", e.line)
                   for e in out.entries if e.record_type == "zsh_plain"]
        # in line order; on one line, before what decoding its command said (stable sort)
        out.problems = sorted(untimed + out.problems, key=lambda p: p.line or 0)
    return out


def _zsh_entry(out: Parsed, first: _Line, last: _Line, parts: list[bytes]) -> Entry:
    end = last.offset + len(last.raw)
    m = ZSH_EXT.fullmatch(parts[0])
    epoch: int | None = None
    info = ShellInfo()
    bad_epoch = None
    if m:
        epoch = number(m.group(1))
        bad_epoch = m.group(1) if epoch is None else None  # said as any time that is no date is (shell.py)
        elapsed = number(m.group(2))
        if elapsed is None:
            out.problems.append(Problem("bad_duration", f"elapsed time {shown(m.group(2))} is not a duration; "
                                        "read without one", first.n))
        info.duration_s = float(elapsed) if elapsed is not None else None
        parts = [m.group(3), *parts[1:]]
        rtype = "zsh_extended"
    else:  # zsh itself reads such a line as a command with no time of its own
        rtype = "zsh_plain"
    cmd_offset = first.offset + m.start(3) if m else -1
    if not m and parts[0].startswith(b"\\:"):
        # the backslash zsh writes before a command starting with ':' (no EXTENDED_HISTORY)
        parts[0], cmd_offset = parts[0][1:], first.offset + 1
    cmd_end = -1
    if ZSH_END_SPACE.search(parts[-1]):
        # zsh wrote this space after a command ending in backslashes; its reader drops it
        parts[-1], cmd_end = parts[-1][:-1], end - 1
    text = decode(unmetafy(b"\n".join(parts)), out.problems, first.n)
    return Entry(first.n, first.offset, end, text, rtype, epoch, info, first.n, cmd_offset, cmd_end, bad_epoch)


# --- fish ----------------------------------------------------------------------------------


def fish_unescape(s: str) -> str:
    """fish 2.x history escapes, left to right: `\\\\` is a backslash, `\\n` a newline."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "\\n":
            out.append("\\" if s[i + 1] == "\\" else "\n")
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_fish(data: bytes, fmt: str = "fish") -> Parsed:
    out = Parsed(fmt, "fish")
    cur: Entry | None = None
    in_paths = False
    for ln in all_lines(data):
        if not ln.raw.strip():
            continue
        m = FISH_CMD.fullmatch(ln.raw)
        if m:
            start = ln.offset + (m.start(1) if m.group(1) is not None else len(ln.raw))
            end = ln.offset + len(ln.raw)
            cur = Entry(ln.n, ln.offset, end, "", "fish", None, ShellInfo(), ln.n, start, end)
            cur.command = fish_unescape(decode(m.group(1) or b"", out.problems, ln.n))
            out.entries.append(cur)
            in_paths = False
            continue
        if cur is None or not ln.raw[:1].isspace():
            out.problems.append(Problem("unparsable_line", "not part of a fish history record", ln.n))
            cur, in_paths = None, False
            continue
        cur.end = ln.offset + len(ln.raw)
        in_paths = _fish_field(out, cur, ln, in_paths)
    return out


def _fish_field(out: Parsed, cur: Entry, ln: _Line, in_paths: bool) -> bool:
    """Read one indented line of a fish record; returns whether a `paths:` list is open."""
    w = FISH_WHEN.fullmatch(ln.raw)
    stripped = ln.raw.strip()
    if w:
        cur.epoch = number(w.group(1))
        cur.bad_epoch = w.group(1) if cur.epoch is None else None  # said as any time that is no date is (shell.py)
        return False
    if stripped == b"paths:":
        if cur.info.paths is None:
            cur.info.paths = []
        return True
    if in_paths and stripped.startswith(b"- "):
        if cur.info.paths is None:
            cur.info.paths = []
        cur.info.paths.append(fish_unescape(decode(stripped[2:], out.problems, ln.n)))
        return True
    # fish skips keys it does not know; so do we, but say so
    out.problems.append(Problem("unknown_fish_field", f"unknown field {stripped[:40]!r}", ln.n))
    return in_paths
