"""People a project names as its authors: in a package manifest's author list, and in an
AUTHORS (CONTRIBUTORS, MAINTAINERS, CREDITS) file.

A manifest's `authors`, `author`, `maintainers`, `maintainer` or `contributors` holds people:
pyproject's `authors = [{name = "…", email = "…"}]`, package.json's `"author": "Name <…>"` and
`"contributors": [{"name": …}]`, Cargo's and a gemspec's `authors = ["…"]`, setup.py's
`author="…"`, setup.cfg's `author = …`. Each name in it (a string's words before its `<address>`
or `(url)`, or a `name` member) is masked when it reads as a person's (namefields.reads_as_name:
capitalised words, not a company's or a team's: `Google LLC`, `The Foo Authors` stay).

An AUTHORS file shown whole (`cat AUTHORS`, `==> CONTRIBUTORS.md <==`, a `# Authors` heading) lists
a person a line: each line that reads as a name is masked, its address or handle after it left
to the other rules, until a line that is neither a name, a comment nor blank.

Both are found by the engine (a shape of their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import PERSON, Hit
from .namefields import reads_as_name

if TYPE_CHECKING:
    from ._anchors import Anchors

_FIELDS = ("authors", "author", "maintainers", "maintainer", "contributors")
_FILES = ("AUTHORS", "CONTRIBUTORS", "MAINTAINERS", "CREDITS")
_FIELD_SHAPE = ("(?:" + "|".join(f"[{w[0].upper()}{w[0]}]{w[1:]}|{w.upper()}" for w in _FIELDS)
                + r")\\{0,3}[\"']?[ \t]{0,4}[:=]")
_FILE_SHAPE = "(?:" + "|".join(_FILES) + r")(?:\.(?:md|txt|rst))?[ \t]*(?:<==)?[ \t]*(?:\r?\n|\\r?\\n)"
_HEADING_SHAPE = r"#{1,3} (?:Authors|Contributors|Maintainers|Credits|AUTHORS|CONTRIBUTORS)[ \t]*(?:\r?\n|\\r?\\n)"
MANIFEST_SHAPES = {"author-field": _FIELD_SHAPE, "author-file": f"(?:{_FILE_SHAPE}|{_HEADING_SHAPE})"}
_FIELD_RX = re.compile(_FIELD_SHAPE)
_FILE_RX = re.compile(MANIFEST_SHAPES["author-file"])

# a string: its text up to the closing quote (as many backslashes before it as before the opening one)
_STRING = re.compile(r"(?P<q>\\{0,3}[\"'])(?P<s>[^\"'\\\n]{1,200})(?P=q)")
# a `name` member of an inline table or an object (`name = "…"`, `"name": "…"`)
_NAME_MEMBER = re.compile(r"(?<![\w-])\\{0,3}[\"']?name\\{0,3}[\"']?[ \t]*[:=][ \t]*")
# a person string's name: the words before its address or web address (`Jane Doe <jane@x> (https://…)`)
_HEAD = re.compile(r"[ \t]*(?P<n>[^<>()\[\]\n]{1,80}?)[ \t]*(?:$|[<(\[])")
_BARE = re.compile(r"[ \t]*(?P<v>[^\W\d_][^\n\r\\\"'#;{}\[\]=]{1,120}?)[ \t]*(?=$|\r?\n|\\[nrt]|,)")
_ITEMS = 32  # names read in one list


def author_names(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The people of a manifest's author list and of an AUTHORS file (see the module)."""
    for start, end in anchors.shaped("author-field", _FIELD_RX):
        if start > 0 and text[start - 1].isalnum() and not text.startswith(("\\n", "\\t"), start - 2):
            continue  # inside a word (`coauthors`; `spec.authors`, `pkg_author` are keys)
        if text[end - 1] == "=" and text[end : end + 1] == "=":
            continue  # compared, not given
        yield from _field_names(text, end)
    for _start, end in anchors.shaped("author-file", _FILE_RX):
        yield from _file_names(text, end)


def _field_names(text: str, pos: int) -> Iterator[Hit]:
    """Each name in the value at `pos`: a list or table of strings and `name` members, one
    string, or a bare value to the line's end."""
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    opener = text[pos : pos + 1]
    if opener in ("[", "{"):
        stop = _closing(text, pos)
        for k, m in enumerate(_STRING.finditer(text, pos, stop)):
            if k >= _ITEMS * 3:
                break
            before = text[max(pos, m.start() - 40) : m.start()]
            member = _NAME_MEMBER.search(before)
            key_like = re.search(r"[\w-]\\{0,3}[\"']?[ \t]*[:=][ \t]*\Z", before)
            if key_like is not None and (member is None or member.end() != len(before)):
                continue  # another member's value (`email = "…"`, `"url": "…"`)
            if text[m.end() : m.end() + 8].lstrip(" \t\\\"'").startswith((":", "=")):
                continue  # a key, not a value
            hit = _person_string(m.start("s"), m["s"])
            if hit is not None:
                yield hit
        return
    one = _STRING.match(text, pos)
    if one is not None:
        hit = _person_string(one.start("s"), one["s"])
    elif (b := _BARE.match(text, pos)) is not None:
        hit = _person_string(b.start("v"), b["v"])
    else:
        hit = None
    if hit is not None:
        yield hit


def _person_string(at: int, s: str) -> Hit | None:
    head = _HEAD.match(s)
    if head is None:
        return None
    name = head["n"].strip().rstrip(",")
    if not reads_as_name(name):
        return None
    start = at + s.index(name)
    return Hit(start, start + len(name), PERSON, "author-name")


def _closing(text: str, pos: int) -> int:
    """Where the list or table opened at `pos` closes (brackets in strings are rare in author
    lists: a line count bounds the read)."""
    depth, limit = 0, min(len(text), pos + 4000)
    for i in range(pos, limit):
        c = text[i]
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i
    return limit


_LINE_END = re.compile(r"\r?\n|\\r?\\n")
# a line's lead: a tool's line number (`   3→`, `3\t`), a list's bullet
_LEAD = re.compile(r"[ \t]*(?:\d{1,6}(?:→|\t))?[ \t]*(?:[-*•+][ \t]+)?")
# what may follow a name on its line: an address, a handle, a web address, a note in brackets
_AFTER = re.compile(r"[ \t]*(?:$|[<(\[]|\{|@|https?://|- |– |: )")
_COMMENT = re.compile(r"[ \t]*(?:#|//|;|=+|-{3,}|\*{3,}|$)")
_LINES = 500


def _file_names(text: str, pos: int) -> Iterator[Hit]:
    """Each name line of an AUTHORS file shown from `pos`."""
    names = 0
    for _ in range(_LINES):
        eol = _LINE_END.search(text, pos)
        stop = eol.start() if eol is not None else len(text)
        line = text[pos:stop]
        lead = _LEAD.match(line)
        body_at = lead.end() if lead is not None else 0
        body = line[body_at:]
        head = re.match(r"[^<>()\[\]{}@\n]{1,80}?(?=[ \t]*(?:$|[<(\[{@]|https?://| - | – |: ))", body)
        name = head.group().strip() if head is not None else ""
        if name and reads_as_name(name) and _AFTER.match(body, len(head.group()) if head else 0):
            start = pos + body_at + body.index(name)
            names += 1
            yield Hit(start, start + len(name), PERSON, "authors-file")
        elif _COMMENT.match(line) is None and (names or not line.rstrip().endswith(":")):
            return  # the file ended, or prose stands where its first name would: no list of people
        if eol is None:
            return
        pos = eol.end()
