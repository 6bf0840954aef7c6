"""What a terminal showed, as plain lines: escapes removed, carriage-return overwrites applied.

A recording's output is the bytes a program wrote to the terminal. `Screen` turns them into
the text a person read, one line model (not a full screen emulator), by these rules:

* escape sequences write nothing: CSI (`ESC [` ... final byte), OSC (`ESC ]` ... BEL or
  `ESC \\`; window titles), DCS/SOS/PM/APC (`ESC P|X|^|_` ... `ESC \\`), the title GNU
  screen and tmux take (`ESC k` title `ESC \\`, which shells send there), and the two-byte
  ones (`ESC (B`, `ESC =`, `ESC 7`...). A sequence cut between two events is carried over;
* on the current line, `\\r` moves the cursor to column 0 and later text overwrites (progress
  bars), backspace moves it one left, CSI `K` erases (to the end, to the start, all), CSI
  `C`/`D`/`G` move the cursor, CSI `P` deletes and CSI `@` inserts characters;
* `\\n` ends the line: it is kept with its trailing blanks removed (an overwrite that cleared
  a progress bar with spaces leaves nothing);
* other control characters (BEL, SI/SO, NUL, ...) write nothing; a tab is kept as a tab.

Screen-addressed redraws (CSI `H`, `J`, full-screen programs) are beyond a line model: they
write nothing, and the text such a program drew is read in the order it was written.

Cost is linear in the data: lines are lists of characters edited in place, joined once.
"""

from __future__ import annotations

import re

ESC = "\x1b"
# one complete escape sequence at the start of a string; group "csi" holds CSI params+final
_SEQ = re.compile(
    r"\x1b(?:"
    r"\[(?P<csi>[0-?]*[ -/]*[@-~])"  # CSI
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC, ended by BEL or ST
    r"|[PX^_k][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC; GNU screen's and tmux's title (ESC k); ended by ST
    r"|[ -/]+[0-~]"  # nF: ESC ( B and the like
    r"|(?![\[\]PX^_k])[0-~]"  # Fp/Fe/Fs: ESC 7, ESC =, ESC M ... (not the openers above, cut short)
    r")",
    re.DOTALL,
)
# how many characters an unfinished sequence may hold before it is given up as text
MAX_PENDING = 4096
_CONTROLS = {chr(c) for c in range(32)} - {"\t", "\n", "\r", "\b"} | {"\x7f"}
_LINE_EDITS = frozenset("KCDGP@")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class Screen:
    """Text written to a terminal → completed lines plus the line in progress."""

    def __init__(self) -> None:
        self.lines: list[str] = []  # completed lines, not yet taken
        self.line: list[str] = []  # the current line, one character per cell
        self.col = 0
        self.pending = ""  # an escape sequence cut at the end of the last write

    # --- reading ---------------------------------------------------------------------------
    def current(self) -> str:
        """The line in progress, as displayed (trailing blanks removed)."""
        return "".join(self.line).rstrip()

    def take(self) -> list[str]:
        """The completed lines since the last take."""
        out, self.lines = self.lines, []
        return out

    # --- writing ---------------------------------------------------------------------------
    def write(self, data: str) -> None:
        if self.pending:
            data, self.pending = self.pending + data, ""
        i, n = 0, len(data)
        while i < n:
            j = data.find(ESC, i)
            self._text(data[i : n if j < 0 else j])
            if j < 0:
                return
            m = _SEQ.match(data, j)
            if m is None:
                if n - j < MAX_PENDING and _may_continue(data[j:]):
                    self.pending = data[j:]  # the rest arrives with the next write
                    return
                i = j + 1  # a lone ESC: dropped
                continue
            if m.group("csi") is not None:
                self._csi(m.group("csi"))
            i = m.end()

    def _text(self, s: str) -> None:
        pos = 0
        for m in _CONTROL.finditer(s):
            if m.start() > pos:
                self._put(s[pos : m.start()])
            ch = m.group()
            if ch == "\n":
                self.lines.append("".join(self.line).rstrip())
                self.line, self.col = [], 0
            elif ch == "\r":
                self.col = 0
            elif ch == "\b":
                self.col = max(0, self.col - 1)
            elif ch == "\t":
                self._put(ch)
            pos = m.end()  # other control characters write nothing
        if pos < len(s):
            self._put(s[pos:])

    def _put(self, run: str) -> None:
        """Printable text at the cursor, overwriting what is there (one slice, not per character)."""
        line, col = self.line, self.col
        if col > len(line):
            line.extend(" " * (col - len(line)))
        line[col : col + len(run)] = run
        self.col = col + len(run)

    def _csi(self, body: str) -> None:
        final, params = body[-1], body[:-1]
        if final not in _LINE_EDITS:
            return  # colours (SGR, most of them), screen addressing: nothing on the line changes
        if params.startswith(("?", ">", "<", "=")):
            return  # private modes (bracketed paste, cursor visibility): nothing drawn
        nums = [int(x) if x.isdigit() else 0 for x in params.split(";")] if params else []
        n = nums[0] if nums else 0
        if final == "K":
            if n == 0:
                del self.line[self.col :]
            elif n == 1:
                self.line[: self.col] = [" "] * min(self.col, len(self.line))
            else:
                self.line = []
        elif final == "C":
            self.col += max(n, 1)
        elif final == "D":
            self.col = max(0, self.col - max(n, 1))
        elif final == "G":
            self.col = max(0, max(n, 1) - 1)
        elif final == "P":
            del self.line[self.col : self.col + max(n, 1)]
        elif final == "@" and self.col <= len(self.line):
            self.line[self.col : self.col] = [" "] * max(n, 1)


def _may_continue(tail: str) -> bool:
    """Whether `tail` (starting with ESC) is the beginning of a sequence not yet complete."""
    if len(tail) == 1:
        return True
    kind = tail[1]
    if kind == "[":
        return re.fullmatch(r"\x1b\[[0-?]*[ -/]*", tail) is not None
    if kind in "]PX^_k":
        return not tail.endswith("\x07")
    return re.fullmatch(r"\x1b[ -/]*", tail) is not None


def render(data: str) -> str:
    """The text `data` shows on a fresh line: completed lines and the last one, joined by newlines."""
    s = Screen()
    s.write(data)
    return "\n".join([*s.take(), s.current()])


def typed_text(keys: str) -> str:
    """The line a person typed, from the keys sent: backspace/DEL remove the character before,
    Ctrl-U clears the line, escape sequences (arrows) and other control keys are dropped;
    newlines inside are kept (a multi-line command)."""
    out: list[str] = []
    for ch in _SEQ.sub("", keys) if ESC in keys else keys:
        if ch in "\x7f\b":
            if out and out[-1] != "\n":
                out.pop()
        elif ch == "\x15":
            while out and out[-1] != "\n":
                out.pop()
        elif ch in "\n\t" or (ch not in _CONTROLS and ch != "\r"):
            out.append(ch)
    return "".join(out)
