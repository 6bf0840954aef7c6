"""Values of an SQL `INSERT` read as the record they are: each value is given the name of its
column, as a record's field is given its key (`INSERT INTO users (email, ssn, password)
VALUES ('a@x.io', '123-45-6789', 'hunter2!')` as `{"ssn": "123-45-6789", "password": …}`), and
masked by the same rules (`_fields.is_secret_field`, `personal.birth_date_field`, the label
rules after `personal.field_label`). A value stands far from its name here, so no other rule
sees the two together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._anchors import Anchors
from ._base import BIRTH_DATE, CREDENTIAL, Hit
from ._fields import is_secret_field
from .national import national_id
from .personal import birth_date_field, field_label, government_id, labelled_phone

if TYPE_CHECKING:
    from ._base import Finder

# rare in logs: the engine reports them (_native.py); `insert` alone is in every `list.insert`
INSERT_ANCHORS = tuple(v for phrase in ("insert into", "insert or", "insert ignore", "replace into")
                       for v in (phrase, phrase.capitalize(), phrase.upper()))
_HEAD = re.compile(r"(?:insert|replace)\s+(?:(?:or\s+\w+|ignore)\s+)?into\s+[\w.\"`\[\]\\]{1,128}\s*\(",
                   re.IGNORECASE)
_COLUMN = re.compile(r"\s*\\?[\"`\[]?(?P<name>[\w$]{1,64})\\?[\"`\]]?\s*")
_VALUES = re.compile(r"\s*\)\s*values\s*\(", re.IGNORECASE)
_BARE = re.compile(r"[^\s,()']{1,256}")
_NEXT_ROW = re.compile(r"\s*,\s*\(")
MAX_COLUMNS, MAX_ROWS = 64, 1000
_LABEL_RULES: tuple[Finder, ...] = (government_id, national_id, labelled_phone)


def sql_values(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Each value of an INSERT whose column names a secret, a date of birth, a phone or a
    government number, masked as that field's value would be."""
    done = -1
    for i in anchors.find(INSERT_ANCHORS):
        m = _HEAD.match(text, i) if i >= done else None
        if m is None:
            continue
        columns, pos = _columns(text, m.end())
        if not columns:
            if "\\" in text[m.end() : m.end() + 8]:  # names escaped more than once: read unescaped
                anchors.want_json_view = True
            continue
        v = _VALUES.match(text, pos)
        if v is None:
            continue
        pos = v.end()
        for _ in range(MAX_ROWS):
            row, pos = _row(text, pos)
            for name, (s, e) in zip(columns, row, strict=False):
                yield from field_hits(text, name, s, e, "sql-value")
            nxt = _NEXT_ROW.match(text, pos + 1) if text[pos : pos + 1] == ")" else None
            if nxt is None:
                break
            pos = nxt.end()
        done = pos


def _columns(text: str, pos: int) -> tuple[list[str], int]:
    names: list[str] = []
    for _ in range(MAX_COLUMNS):
        c = _COLUMN.match(text, pos)
        if c is None:
            return [], pos
        names.append(c["name"])
        pos = c.end()
        if text[pos : pos + 1] != ",":
            return names, pos
        pos += 1
    return [], pos


def _row(text: str, pos: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of a row's values (a quoted one without its quotes), and where the row ends (at
    its `)`, or where it could not be read)."""
    spans: list[tuple[int, int]] = []
    for _ in range(MAX_COLUMNS):
        while text[pos : pos + 1].isspace():
            pos += 1
        if text[pos : pos + 1] in ("N", "n", "E", "e") and text.startswith("'", pos + 1):
            pos += 1  # N'…' (national), E'…' (escapes): the string is the value
        if text.startswith("'", pos):
            end = pos + 1
            while True:  # '' is a quote inside the string, as is \' (MySQL)
                end = text.find("'", end)
                if end < 0 or end - pos > 4096:
                    return spans, pos
                if text.startswith("''", end):
                    end += 2
                elif text[end - 1] == "\\" and text[end - 2 : end - 1] != "\\":
                    end += 1
                else:
                    break
            spans.append((pos + 1, end))
            pos = end + 1
        else:
            bare = _BARE.match(text, pos)
            if bare is None or "(" in text[bare.end() : bare.end() + 1]:
                return spans, pos  # a call (`NOW()`): its arguments are not the row's values
            spans.append((bare.start(), bare.end()))
            pos = bare.end()
        while text[pos : pos + 1].isspace():
            pos += 1
        if text[pos : pos + 1] != ",":
            return spans, pos
        pos += 1
    return spans, pos


def field_hits(text: str, name: str, s: int, e: int, rule: str) -> Iterator[Hit]:
    """The value at `text[s:e]` masked as a record's field named `name` would be (also the rule
    of a printed table's cells: tables.py)."""
    value = text[s:e]
    if not value or value.upper() == "NULL" or value == "\\N":  # `\N`: pg_dump's NULL
        return
    if is_secret_field(name, value):
        yield Hit(s, e, CREDENTIAL, rule)
    elif birth_date_field(name, value):
        yield Hit(s, e, BIRTH_DATE, rule)
    elif (label := field_label(name)) is not None:
        prefix = f"{label}: "
        read = prefix + value
        for finder in _LABEL_RULES:  # the value as written after its column's name
            for h in finder(read, Anchors(read)):
                if h.start >= len(prefix):
                    yield Hit(s + h.start - len(prefix), s + h.end - len(prefix), h.kind, rule)
