"""Tables a tool printed (psql and mysql results, a CSV or TSV file, a Markdown table, a pandas
frame, `docker`-style columns): each cell is given the name of its column, as a record's field
is given its key, and masked by the same rules (`inserts.field_hits`). A cell stands lines
away from its name, so no other rule sees the two together.

A table is found at its header: a line of two or more column names, split by one delimiter
(`|`, a tab, `,`, `;`) or aligned by runs of two or more spaces, one of which names a field a
rule masks (`names_field`: a secret, a phone, a government number, a date of birth). Its rows
are the lines below it: a border line (`----+----`, `|---|`, `+----+`) is skipped; a delimited
row has as many cells as the header; an aligned row has a cell that starts or ends where its
column's name does (left- or right-aligned) for most columns. The first line that is neither
ends the table. Each line is read once.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import Hit, past_escape
from ._fields import names_field
from ._values import NAME_KEYWORDS
from .inserts import field_hits
from .languages import ANCHORS as LANGUAGE_ANCHORS
from .personal import BIRTH_LABELS, ID_LABELS, LOWER_ACRONYMS, PHONE_LABELS

if TYPE_CHECKING:
    from ._anchors import Anchors

_DELIMITERS = ("|", "\t", ",", ";")
# `ssn` in lower case is in every `classname`: as a column's name it stands before a delimiter
# (rare in logs: the engine reports these, _native.py)
TABLE_ANCHORS = (*(f"{a}{d}" for a in LOWER_ACRONYMS for d in (*_DELIMITERS, "\n", "\r")), "FROM stdin;",
                 "from stdin;")
_LABELS = (*PHONE_LABELS, *ID_LABELS, *BIRTH_LABELS, *LANGUAGE_ANCHORS, *TABLE_ANCHORS)
MAX_LINE, MAX_COLUMNS, MAX_ROWS = 4096, 64, 100_000
# a column's name: a few words (`Phone Number`, `api_key`, `"ssn"`), not a sentence
_NAME = re.compile(r"[^\W\d][\w$#.\-/]{0,63}(?: [\w$#.\-/]{1,32}){0,3}")
_WORD_NAME = r"[^\W\d][\w$#.\-/]{0,63}"


def _header_pattern(d: str) -> re.Pattern[str]:
    """A line that may be a header split by `d` (spaces possessive: linear on any line)."""
    if not d:
        return re.compile(rf" *+{_WORD_NAME}(?: ++{_WORD_NAME})+ *+")
    sp = "[ ]" if d == "\t" else "[ \t]"
    cell = rf'{sp}*+(?:{_NAME.pattern}|"{_NAME.pattern}")?{sp}*+'
    if d == "|":  # `| a | b |`: outer pipes, as Markdown and mysql write them
        return re.compile(rf"(?:{sp}*+\|)?{cell}(?:\|{cell})+(?:\|{sp}*+)?")
    return re.compile(rf"{cell}(?:{re.escape(d)}{cell})+")


# one pattern for every delimiter, tried in this order; the group that matched names it
_GROUP_DELIMITER = {"pipe": "|", "tab": "\t", "comma": ",", "semicolon": ";", "aligned": ""}
_ANY_HEADER = re.compile("|".join(f"(?P<{g}>{_header_pattern(d).pattern})" for g, d in _GROUP_DELIMITER.items()))
_BORDER = re.compile(r"[-+|:= \t]*-[-+|:= \t]*")
_COPY = re.compile(r"COPY [\w.\"]{1,128} \((?P<names>[^()\n]{1,2048})\) FROM stdin;", re.IGNORECASE)
# An aligned table's header is read a word a column (`phone_number date_of_birth`: pandas puts
# one space between columns as wide as their names); a row's cell may be words one space apart
_WORD = re.compile(r"\S+")
_ALIGNED = re.compile(r"\S+(?: \S+)*")
# the rest of an escaped header after a name in it: names, delimiters (a tab escaped), the line's end
_ESCAPED_REST = re.compile(r'[\w$#.\-]{0,64}+(?:\\{0,3}")?(?:(?:\\{1,3}t|[,;| ])++(?:\\{0,3}")?[\w$#.\-]{1,64}+'
                           r'(?:\\{0,3}")?)*+\\{1,3}[rn]')
_INDEX_NAME = re.compile(r"[^\W\d]\w{0,63} *\r?\n")


def table_values(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Each cell whose column names a secret, a phone, a government number or a date of birth,
    masked as that field's value would be."""
    found = sorted({*anchors.find(NAME_KEYWORDS, ignore_case=True), *anchors.find(_LABELS)})
    at = 0
    while at < len(found):
        i = found[at]
        nl = text.find("\n", i)
        end = len(text) if nl < 0 else nl  # where the line holding `i` ends
        if end - i > MAX_LINE:
            # no line ends soon enough for a header here (a minified file, a JSON line): skip
            # to where one may, each name on the way only asked whether it ends an escaped header
            far = bisect_left(found, end - MAX_LINE, at)
            if not anchors.want_json_view:
                anchors.want_json_view = any(_escaped_header(text, j) for j in found[at:far])
            at = max(far, at + 1)
            continue
        start = _line_start(text, i)
        if start < 0 or end - start > MAX_LINE:  # a line too long to be a header
            if not anchors.want_json_view and _escaped_header(text, i):
                anchors.want_json_view = True
            at += 1
            continue
        at = bisect_left(found, end, at + 1)  # a line is read once, however many names it holds
        # (a line of exactly MAX_LINE characters before its newline is too long, as a row is: `_line`)
        header = _header(text, start, end) if nl < 0 or end - start < MAX_LINE else None
        if header is None and (one := _one_column(text, start, end)) is not None:
            for row_end, (s, e) in _single_cells(text, end + 1):
                at = bisect_left(found, row_end, at)
                yield from field_hits(text, one, s, e, "table-value")
            continue
        if header is None:
            if not anchors.want_json_view and _escaped_header(text, i):
                anchors.want_json_view = True
            continue
        columns, delimiter, head = header
        if not delimiter and _underlined(text, end + 1):
            continue  # a Markdown heading (`Password policy` over `---------------`), not columns
        named = [(k, name) for k, (name, _) in enumerate(columns) if names_field(name)]
        if not named:
            continue
        rows = _delimited_rows if delimiter else _aligned_rows
        for row_end, cells in rows(text, end + 1, columns, delimiter, head):
            at = bisect_left(found, row_end, at)  # nor are a table's rows read as headers
            for k, name in named:
                s, e = cells[k]
                if s < e:
                    yield from field_hits(text, name, s, e, "table-value")


def _line_start(text: str, i: int) -> int:
    """Where the line holding `i` starts, or where a JSON string opened on it does (`{"out":
    "id,email,…`: a JSON line read decoded); -1 if that is further back than a header's length."""
    lo = max(0, i - MAX_LINE)
    nl = text.rfind("\n", lo, i)
    for mark in ('": "', '":"'):  # `{"out": "id,…` and minified `{"out":"id,…`
        opening = text.rfind(mark, max(nl, lo), i)
        if opening >= 0 and text.find('"', opening + len(mark), i) < 0:
            return opening + len(mark)
    return nl + 1 if nl >= 0 or lo == 0 else -1


def _escaped_header(text: str, i: int) -> bool:
    """The name at `i` is one of a header's in JSON-escaped text (`…,api_key,ssn\\n1,…`): the
    text is read decoded."""
    if _ESCAPED_REST.match(text, i) is None:
        return False
    start = i
    while start > 0 and i - start < 64 and (text[start - 1].isalnum() or text[start - 1] in "_$#.-"):
        start -= 1
    start = past_escape(text, start)  # `\\tpassword`: the `t` is the escape's
    return text[start - 1 : start] in (",", "|", ";", " ", '"') or text.endswith("\\t", 0, start)


def _line(text: str, start: int) -> tuple[int, int] | None:
    """The line at `start` (without its `\\r`), or None past the text or for a line too long."""
    if start > len(text):
        return None
    end = text.find("\n", start, start + MAX_LINE)
    if end < 0:
        if len(text) - start > MAX_LINE:
            return None
        end = len(text)
    return start, end - 1 if end > start and text[end - 1] == "\r" else end


# ---------------------------------------------------------------- the header
Column = tuple[str, tuple[int, int]]  # a column's name and its span in the header line


def _header(text: str, start: int, end: int) -> tuple[list[Column], str, int] | None:
    """The header's columns, delimiter ("" for an aligned table) and start, if the line from
    `start` to `end` (its newline) is one."""
    if end > start and text[end - 1] == "\r":
        end -= 1
    copy = _COPY.fullmatch(text, start, end)
    if copy is not None:  # pg_dump's `COPY t (a, b) FROM stdin;`: its rows are tab-separated
        cells = _split(text, copy.start("names"), copy.end("names"), ",")
        return (_named(text, cells), "\t", start) if cells is not None and _all_names(text, cells) else None
    m = _ANY_HEADER.fullmatch(text, start, end)  # most lines are ruled out by this one call
    if m is None:
        return None
    d = _GROUP_DELIMITER[m.lastgroup or ""]
    cells = _split(text, start, end, d) if d else [(w.start(), w.end()) for w in _WORD.finditer(text, start, end)]
    return (_named(text, cells), d, start) if cells is not None and _all_names(text, cells) else None


def _all_names(text: str, cells: list[tuple[int, int]]) -> bool:
    """Every cell a name; the first may be empty (the index column a frame was written with)."""
    if not 2 <= len(cells) <= MAX_COLUMNS:
        return False
    first = cells[0][0] == cells[0][1] or _NAME.fullmatch(text, *cells[0]) is not None
    return first and all(_NAME.fullmatch(text, s, e) for s, e in cells[1:])


def _named(text: str, cells: list[tuple[int, int]]) -> list[Column]:
    return [(text[s:e], (s, e)) for s, e in cells]


_UNDERLINE = re.compile(r"[ \t]*(?:-{3,}|={3,})[ \t]*\r?")


def _underlined(text: str, pos: int) -> bool:
    """Whether the line at `pos` is one unbroken run of `-` or `=`: under words one space apart,
    a Markdown heading's underline (a table of columns has a gap between its columns' dashes)."""
    line = _line(text, pos)
    return line is not None and _UNDERLINE.fullmatch(text, *line) is not None


# ---------------------------------------------------------------- a table of one column
# `SELECT api_key FROM t`: psql centres the one name over a line of dashes, mysql boxes it; the
# border under the name is what says this is a table, as a second name would
_ONE_NAME = re.compile(rf"[ \t]*(?:\|[ \t]*)?(?P<name>{_WORD_NAME})[ \t]*\|?[ \t]*")
_ROW_COUNT = re.compile(r"\(\d+ rows?\)|\d+ rows? in set")


def _one_column(text: str, start: int, end: int) -> str | None:
    """The name of a one-column table whose header is the line from `start` to `end`."""
    m = _ONE_NAME.fullmatch(text, start, end - 1 if end > start and text[end - 1] == "\r" else end)
    if m is None or not names_field(m["name"]):
        return None
    border = _line(text, end + 1)
    return m["name"] if border is not None and border[0] < border[1] and _BORDER.fullmatch(text, *border) else None


def _single_cells(text: str, pos: int) -> list[tuple[int, tuple[int, int]]]:
    """The cells of a one-column table's rows after its header (`pos`): its border skipped, to
    a row count (`(1 row)`, psql; `1 row in set`, mysql) or a box's closing border. Rows that
    end any other way are not a query's (a Markdown heading's paragraph): none."""
    border = _line(text, pos)
    if border is None:
        return []
    pos = border[1] + 1
    cells: list[tuple[int, tuple[int, int]]] = []
    boxed = "+" in text[border[0]:border[1]]
    for _ in range(MAX_ROWS):
        line = _line(text, pos)
        if line is None or line[0] == line[1]:
            return []
        if _ROW_COUNT.fullmatch(text[line[0]:line[1]].strip()) or (boxed and _BORDER.fullmatch(text, *line)):
            return cells
        s, e = line
        while s < e and text[s] in " \t|":
            s += 1
        while e > s and text[e - 1] in " \t|":
            e -= 1
        cells.append((line[1], (s, e)))
        pos = line[1] + 1
    return []


# ---------------------------------------------------------------- delimited rows
def _split(text: str, start: int, end: int, d: str) -> list[tuple[int, int]] | None:
    """The cells of a delimited line, each trimmed of spaces and of its quotes (a CSV cell
    `"a, b"` with `""` inside); None when a quote is not closed on the line. Outer pipes
    (`| a | b |`, Markdown and mysql) are not cells' edges."""
    if d == "|":
        while start < end and text[start] in " \t":
            start += 1
        while end > start and text[end - 1] in " \t":
            end -= 1
        if text.startswith("|", start):
            start += 1
        if end > start and text[end - 1] == "|":
            end -= 1
    cells: list[tuple[int, int]] = []
    pos = start
    while len(cells) <= MAX_COLUMNS:
        s = pos
        while s < end and text[s] in " \t" and text[s] != d:
            s += 1
        if d in ",;" and text.startswith('"', s):
            close = s + 1
            while True:
                close = text.find('"', close, end)
                if close < 0:
                    return None
                if not text.startswith('""', close):
                    break
                close += 2
            cells.append((s + 1, close))
            nxt = text.find(d, close, end)
            if nxt < 0:
                return cells
            pos = nxt + 1
            continue
        nxt = text.find(d, pos, end)
        e = end if nxt < 0 else nxt
        stop = e
        while stop > s and text[stop - 1] in " \t":
            stop -= 1
        cells.append((s, stop))
        if nxt < 0:
            return cells
        pos = nxt + 1
    return None


def _delimited_rows(text: str, pos: int, columns: list[Column], d: str,
                    _head: int) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    for _ in range(MAX_ROWS):
        line = _line(text, pos)
        if line is None or line[0] == line[1]:
            return
        s, e = line
        if not _BORDER.fullmatch(text, s, e):
            cells = _split(text, s, e, d)
            if cells is None or len(cells) != len(columns):
                return
            yield e, cells
        pos = text.find("\n", e) + 1 if e < len(text) else len(text) + 1
        if pos == 0:
            return


# ---------------------------------------------------------------- aligned rows
def _aligned_rows(text: str, pos: int, columns: list[Column], _d: str,
                  head: int) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """Rows whose cells line up with the header's names, by their first or their last
    character, for more than half of the columns (a cell left empty: an empty span). The
    columns are counted from `head`, where the header starts (a JSON string's opening quote
    before it is not the table's)."""
    spans = [(s - head, e - head) for _, (s, e) in columns]
    index_name = _INDEX_NAME.match(text, pos)
    if index_name is not None:  # pandas' line of the index's name, below the columns' names
        pos = index_name.end()
    for _ in range(MAX_ROWS):
        line = _line(text, pos)
        if line is None or line[0] == line[1]:
            return
        s, e = line
        if _BORDER.fullmatch(text, s, e):  # a border lines up with every column: it is never a row
            pos = text.find("\n", e) + 1 if e < len(text) else len(text) + 1
            if pos == 0:
                return
            continue
        starts: dict[int, tuple[int, int]] = {}
        ends: dict[int, tuple[int, int]] = {}
        for pattern in (_WORD, _ALIGNED):  # a cell of several words wins over its words
            for m in pattern.finditer(text, s, e):
                starts[m.start() - s] = ends[m.end() - s] = m.span()
        row = [starts.get(a) or ends.get(b) or (0, 0) for a, b in spans]
        if sum(span != (0, 0) for span in row) * 2 <= len(columns):
            return
        yield e, row
        pos = text.find("\n", e) + 1 if e < len(text) else len(text) + 1
        if pos == 0:
            return
