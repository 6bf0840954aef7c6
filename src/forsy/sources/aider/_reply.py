"""A model reply of the chat history cut into reasoning, text and edit blocks.

Aider writes a reply as the model sent it; what it did with the reply (the edits it applied)
it reports after it, in `Applied edit to <path>` lines. Forsy reconstructs the edit calls
from the reply's blocks, by the edit format's own syntax:

* reasoning: a line `<thinking-content-…>` (aider's REASONING_TAG) or `<think>`/`<thinking>`
  up to its closing tag line; the tag lines are blocks of their own (aider's markers);
* SEARCH/REPLACE ("diff" and "diff-fenced" formats): a fenced block (``` or <source>) holding
  a `<<<<<<< SEARCH` line, with the file path on the line before the fence (or, diff-fenced,
  on the first line inside it); a SEARCH … REPLACE run outside any fence counts too;
* udiff: a ```diff fence holding a `+++ <path>` line;
* whole: a fence whose path line (the line before it) names a file aider then reports as
  edited for this reply (`applied`): without that report a fenced code block is just text.

Each block keeps its exact lines; the blank lines between blocks are separators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._md import Line, is_blank

THINK_OPEN = re.compile(r"<(thinking-content-[0-9a-f]+|think|thinking|reasoning)>\s*\Z")
FENCE = re.compile(r"(`{3,}|~{3,})(\S*)\s*\Z|<source>(\S*)\s*\Z")
SEARCH = re.compile(r"<{5,9} SEARCH\s*\Z")
REPLACE = re.compile(r">{5,9} REPLACE\s*\Z")
UDIFF_PATH = re.compile(r"\+\+\+ (?:b/)?(\S.*?)\s*\Z")


@dataclass(slots=True)
class Block:
    kind: str  # "reasoning" | "tag" (a reasoning block's open or close line) | "text" | "edit"
    lines: list[Line]  # exact lines
    path: str | None = None  # edit: the file it names
    form: str | None = None  # edit: "search_replace" | "udiff" | "whole"


def path_of(line: str) -> str | None:
    """The file a path line names: the line stripped of markdown decoration (`**`, backticks,
    a trailing colon), None when it does not look like a single path."""
    p = line.strip().strip("*`#: ").strip()
    if not p or " " in p or len(p) > 300 or p.startswith(("<<<", ">>>", "===")):
        return None
    return p


def _close(open_line: str) -> re.Pattern[str]:
    m = FENCE.match(open_line.strip())
    if m is None or m.group(1) is None:
        return re.compile(r"</source>\s*\Z")
    return re.compile(re.escape(m.group(1)) + r"\s*\Z")


def split(lines: list[Line], applied: set[str]) -> list[Block]:
    out: list[Block] = []
    text: list[Line] = []

    def flush() -> None:
        while text and is_blank(text[-1].text):
            text.pop()
        if text:
            out.append(Block("text", list(text)))
        text.clear()

    i, n = 0, len(lines)
    while i < n:
        t = lines[i].text
        if not text and is_blank(t):
            i += 1
            continue
        m = THINK_OPEN.match(t.strip())
        if m is not None and not text:
            close = f"</{m.group(1)}>"
            j = next((k for k in range(i + 1, n) if lines[k].text.strip() == close), None)
            if j is not None:
                body = _trim(lines[i + 1 : j])
                out.append(Block("tag", [lines[i]]))
                if body:
                    out.append(Block("reasoning", body))
                out.append(Block("tag", [lines[j]]))
                i = j + 1
                continue
        fence = FENCE.match(t.strip())
        if fence is not None:
            end = _fence_end(lines, i)
            if end is not None:
                block = _edit(lines, i, end, text, applied)
                if block is not None:
                    if block.lines[0] is not lines[i]:
                        text.pop()  # the path line belongs to the edit
                    flush()
                    out.append(block)
                    i = end + 1
                    continue
                text.extend(lines[i : end + 1])  # a code block that is not an edit: text
                i = end + 1
                continue
        if SEARCH.match(t.strip()):
            end = next((k for k in range(i + 1, n) if REPLACE.match(lines[k].text.strip())), None)
            if end is not None:
                start = i
                prev = _last_nonblank(text)
                path = path_of(prev.text) if prev is not None and text and text[-1] is prev else None
                if path is not None:
                    text.pop()
                    start = i - 1
                flush()
                out.append(Block("edit", lines[start : end + 1], path, "search_replace"))
                i = end + 1
                continue
        if is_blank(t) and text and not is_blank(text[-1].text) and _starts_block(lines, i + 1):
            flush()
            i += 1
            continue
        text.append(lines[i])
        i += 1
    flush()
    return out


def _starts_block(lines: list[Line], k: int) -> bool:
    """Whether a reasoning block starts at `k` (text before it is its own block)."""
    return k < len(lines) and THINK_OPEN.match(lines[k].text.strip()) is not None


def _trim(lines: list[Line]) -> list[Line]:
    a, b = 0, len(lines)
    while a < b and is_blank(lines[a].text):
        a += 1
    while b > a and is_blank(lines[b - 1].text):
        b -= 1
    return lines[a:b]


def _last_nonblank(text: list[Line]) -> Line | None:
    return text[-1] if text and not is_blank(text[-1].text) else None


def _fence_end(lines: list[Line], i: int) -> int | None:
    close = _close(lines[i].text)
    return next((k for k in range(i + 1, len(lines)) if close.match(lines[k].text.strip())), None)


def _edit(lines: list[Line], i: int, end: int, text: list[Line], applied: set[str]) -> Block | None:
    """The edit block of the fence lines[i..end], or None when the fence is plain text."""
    inner = [ln.text for ln in lines[i + 1 : end]]
    prev = _last_nonblank(text)
    before = path_of(prev.text) if prev is not None else None
    m = FENCE.match(lines[i].text.strip())
    lang = (m.group(2) or m.group(3) or "") if m else ""
    start = i - 1 if before is not None else i
    if any(SEARCH.match(x.strip()) for x in inner):  # a malformed block is an edit aider failed to parse
        path = before
        if path is None and inner:  # diff-fenced: the path is the fence's first line
            path = path_of(inner[0])
        return Block("edit", lines[start : end + 1], path, "search_replace")
    if lang == "diff":
        found = next((UDIFF_PATH.match(x) for x in inner if UDIFF_PATH.match(x)), None)
        if found is not None:
            return Block("edit", lines[i : end + 1], found.group(1), "udiff")
    if before is not None and before in applied:
        return Block("edit", lines[start : end + 1], before, "whole")
    return None
