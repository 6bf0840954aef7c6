"""Aider's `.aider.chat.history.md` cut into what wrote each line, with exact byte ranges.

Aider appends to the file (aider/io.py, `append_chat_history`) in four ways, and the file
holds nothing else:

* a session header: `\\n# aider chat started at YYYY-MM-DD HH:MM:SS\\n\\n` (local time);
* what the user sent (`user_input`): every line prefixed `#### ` and ended with two spaces
  (a markdown line break), the whole preceded by a blank line;
* aider's own output (`tool_output`, `tool_error`, `tool_warning`, confirmations): a message
  is `> ` + its text + two spaces. A message of several lines written in one call has only
  its first line prefixed (`> `) and only its last line ended with two spaces; the lines
  between are raw (a repo map, a command's output);
* the model's reply (`ai_output`): `\\n` + the reply stripped + `\\n\\n`, so always between
  blank lines.

So every line aider writes for the user or itself ends with two spaces, and a reply starts
after a blank line. The rules below follow from that, and are what forsy claims (docs):

* a `#### ` line ending with two spaces is the user's; consecutive ones are one input;
* a `> ` line ending with two spaces is one aider message; a `> ` line that does not is the
  first line of a several-line message that ends at the first line ending with two spaces.
  Right after another aider line such a message may hold blank lines; after a blank line it
  must end before the next blank line, else the line is the reply's own markdown quote;
* a line that is none of these right after an aider message (no blank line between) is the
  rest of that message (a padded multi-line subject, `glued_end`);
* everything else between blank-line-separated aider writes is the model's reply, blank
  lines inside it included. Blank lines between writes are separators (counted, not records);
* a last line with no line break was cut mid-write: a `#### ` or `> ` line is then the user's
  or aider's though its two spaces were lost (`Chat.cut`, warned).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER = re.compile(r"# aider chat started at (\S.*?)\s*\Z")
BREAK = "  "  # the markdown line break aider ends its lines with


@dataclass(slots=True)
class Line:
    no: int  # 1-based
    start: int  # byte offset of its first byte
    end: int  # byte offset just past its last byte (without \r\n)
    text: str


@dataclass(slots=True)
class Item:
    """One write: "header", "user" (one input, its lines), "output" (one aider message, its
    lines) or "text" (the model's reply, blank lines at both ends trimmed)."""

    kind: str
    lines: list[Line]


@dataclass
class Chat:
    items: list[Item] = field(default_factory=list)
    blank_lines: int = 0  # separators between writes
    unterminated: list[int] = field(default_factory=list)  # lines of messages cut by a header / the end
    cut: int | None = None  # the last line, when it has no line break: aider's last write was cut
    not_utf8: list[int] = field(default_factory=list)  # lines not UTF-8: U+FFFD where bytes could not be read


def split_lines(data: bytes, not_utf8: list[int] | None = None) -> list[Line]:
    """The file's lines; `not_utf8` gets the numbers of those that are not UTF-8 (aider writes
    the chat in its `--encoding`), whose undecodable bytes are shown as U+FFFD."""
    out: list[Line] = []
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()  # the newline ending the last line starts no line
    pos = 0
    for n, part in enumerate(parts, 1):
        text = part[:-1] if part.endswith(b"\r") else part
        start = pos
        if pos == 0 and text.startswith(BOM):  # a Windows editor's mark: the first line's text starts after it
            text, start = text[len(BOM):], len(BOM)
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError:
            decoded = text.decode("utf-8", "replace")
            if not_utf8 is not None:
                not_utf8.append(n)
        out.append(Line(n, start, start + len(text), decoded))
        pos += len(part) + 1
    return out


BOM = b"\xef\xbb\xbf"


def is_blank(t: str) -> bool:
    return not t.strip()


def is_user(t: str) -> bool:
    return t.startswith("#### ") and t.endswith(BREAK)  # "####" + three spaces: an empty line of an input


def is_quote(t: str) -> bool:
    return t == ">" or t.startswith("> ")


def is_header(t: str) -> bool:
    return HEADER.match(t) is not None


class _Parser:
    def __init__(self, lines: list[Line], cut: bool) -> None:
        self.lines = lines
        self.chat = Chat()
        # aider ends every write with a line break (append_chat_history), so a last line without
        # one is a write cut short (a crash, a full disk, a copy taken mid-write): the marker it
        # starts with says what it was, its two-space line break may be lost with the rest
        if cut and lines and not is_blank(lines[-1].text):  # blank remnants are counted blank lines
            self.chat.cut = lines[-1].no

    def _cut(self, i: int) -> bool:
        return self.chat.cut is not None and i == len(self.lines) - 1

    def user(self, i: int) -> bool:
        t = self.lines[i].text
        return is_user(t) or (self._cut(i) and t.startswith("#### "))

    def message_end(self, i: int, after_aider: bool) -> int | None:
        """The last line of the aider message starting at line index `i` (module docstring)."""
        t = self.lines[i].text
        if t.endswith(BREAK) or t == ">" or (self._cut(i) and not after_aider):
            return i  # (a cut line right after aider's: "unterminated" below, as any unended message)
        stop = len(self.lines)  # where the search ended: the next session's header or the end
        for j in range(i + 1, len(self.lines)):
            u = self.lines[j].text
            if is_header(u):
                stop = j
                break
            if is_blank(u) and not after_aider:
                return None
            if u.endswith(BREAK):
                return j
        if not after_aider:
            return None
        # cut by the next session's header or the end of the file: up to its last non-blank line
        end = next((k for k in range(stop - 1, i, -1) if not is_blank(self.lines[k].text)), i)
        self.chat.unterminated.append(self.lines[i].no)
        return end

    def glued_end(self, i: int) -> int | None:
        """A line right after an aider message (no blank line: a reply never starts so) is the
        rest of that message when the message's last line came early: a confirmation's subject
        of several lines is padded to one width, so its first line already ends with spaces.
        The rest ends at the first line ending with two spaces, before any blank line."""
        for j in range(i, len(self.lines)):
            u = self.lines[j].text
            if is_blank(u) or is_header(u) or self.user(j) or is_quote(u):
                return None
            if u.endswith(BREAK):
                return j
        return None

    def starts_write(self, k: int) -> bool:
        """Whether line `k`, after a blank line, starts an aider write (ends a reply)."""
        t = self.lines[k].text
        return is_header(t) or self.user(k) or (is_quote(t) and self.message_end(k, False) is not None)

    def run(self) -> Chat:
        # Every loop here runs over a finite range, so the parse ends on any input: a write's
        # lines are skipped by `nxt` (where the next write starts), never by moving an index back.
        lines, chat, n = self.lines, self.chat, len(self.lines)
        after_aider, nxt = False, 0
        for i, line in enumerate(lines):
            if i < nxt:
                continue  # a line of the write read last
            t = line.text
            if is_blank(t):
                chat.blank_lines += 1
                after_aider = False
            elif is_header(t):
                chat.items.append(Item("header", [line]))
                after_aider = False
            elif self.user(i):
                nxt = next((j for j in range(i, n) if not self.user(j)), n)
                chat.items.append(Item("user", lines[i:nxt]))
                after_aider = True
            elif after_aider and chat.items[-1].kind == "output" and not is_quote(t) \
                    and (end := self.glued_end(i)) is not None:
                chat.items[-1].lines.extend(lines[i : end + 1])  # the rest of a padded message
                nxt = end + 1
            elif is_quote(t) and (end := self.message_end(i, after_aider)) is not None:
                chat.items.append(Item("output", lines[i : end + 1]))
                after_aider, nxt = True, end + 1
            else:
                nxt = self._text(i)
                after_aider = False
        return chat

    def _text(self, i: int) -> int:
        """A reply from line `i`: up to the last non-blank line before an aider write. Returns
        the index of that write's first line (the number of lines at the end of the file)."""
        lines, n = self.lines, len(self.lines)
        last, stop = i, n
        for j in range(i, n):
            if is_blank(lines[j].text):
                continue
            if j > last + 1 and self.starts_write(j):
                stop = j
                break
            if j == last + 1 and (is_header(lines[j].text) or self.user(j)):
                stop = j
                break  # an aider write glued to the reply (never written so; a damaged file)
            last = j
        self.chat.items.append(Item("text", lines[i : last + 1]))
        self.chat.blank_lines += stop - last - 1
        return stop


def parse(data: bytes) -> Chat:
    not_utf8: list[int] = []
    chat = _Parser(split_lines(data, not_utf8), bool(data) and not data.endswith(b"\n")).run()
    chat.not_utf8 = not_utf8
    return chat
