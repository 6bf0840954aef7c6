"""The opening of a JSON object cut short: a Claude Code record longer than the head a sniff is
given (a first prompt of many KB) is no JSON to a parser, but its members before the cut are
written whole, and they say what the record is."""

from __future__ import annotations

import re
from typing import Any

import orjson

# one token: a string closed, a string the cut fell inside (running on to the end, maybe on a
# lone backslash), a number, a literal, or a structural character
_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|("(?:[^"\\]|\\.)*\\?\Z)'
                    rb'|(-?\d[\d.eE+-]*)|(true|false|null)|([{}\[\]:,]))')
_LITERALS = {b"true": True, b"false": False, b"null": None}


class Cut:
    """A value the cut fell inside (a string not closed, a number that may go on): the member is
    there, its value is not known, and it is of no kind a rule takes."""

    def __repr__(self) -> str:
        return "CUT"


CUT = Cut()


def opening(line: bytes) -> dict[str, Any] | None:
    """The object `line` opens, holding the members read before the cut (nested objects and
    arrays as far as they go); a value the cut fell inside is `CUT`, a key whose value had not
    begun is left out. Reading stops at the first byte no JSON has there (the cut, or damage),
    keeping what came before. None when `line` opens no object."""
    root: dict[str, Any] | None = None
    stack: list[dict[str, Any] | list[Any]] = []
    key: str | None = None  # the innermost object's key whose value comes next
    want_key = False
    pos, end = 0, len(line)
    while stack or root is None:
        m = _TOKEN.match(line, pos)
        if m is None:
            return root
        pos = m.end()
        closed, cut, number, literal, mark = m.groups()
        top = stack[-1] if stack else None
        if mark in (b",", b":"):
            want_key = mark == b"," and isinstance(top, dict)
            continue
        if mark in (b"}", b"]"):
            if top is None:
                return root
            stack.pop()
            want_key = False
            continue
        if want_key:  # a member's key: a whole string, else the members end here
            if closed is None or not isinstance(k := _loads(closed), str):
                return root
            key, want_key = k, False
            continue
        value: Any
        if mark is not None:
            value = {} if mark == b"{" else []
        elif closed is not None:
            value = _loads(closed)
            if value is CUT:  # bytes no JSON string holds: damage, not a cut
                return root
        elif number is not None:
            value = CUT if pos == end else _loads(number)
            if value is CUT and pos != end:
                return root
        elif literal is not None:
            value = _LITERALS[literal]
        else:  # a string the cut fell inside
            value = CUT
        if root is None:
            if not isinstance(value, dict):
                return None
            root = value
        elif isinstance(top, dict):
            if key is None:
                return root
            top[key], key = value, None
        elif isinstance(top, list):
            top.append(value)
        if isinstance(value, dict | list):
            stack.append(value)
            want_key = isinstance(value, dict)
    return root


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return CUT
