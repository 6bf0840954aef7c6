"""What a file edit changed, as diff lines a person reads, from the forms agents' edit tools take:
old and new text (Claude Code's Edit and MultiEdit, Gemini's replace, OpenHands' editor), a whole
file (Write, write_file, Cline's write_to_file), an apply_patch text or a unified diff (Codex),
SEARCH/REPLACE blocks (Cline's replace_in_file, Aider's edits, whose input is the block's text),
Aider's whole file in a fence, and the patch a tool recorded of what it wrote (the artifact's
diff: what ran when the person changed the proposal).

Nothing is inferred: the lines are the tool's own text, cut only at `DIFF_LINES` (the caller says
how many there were).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..tools import ToolKind, spec

DIFF_LINES = 400  # lines of one diff shown (the step's page has the whole input)

LineKind = Literal["file", "hunk", "add", "del", "same"]

# the argument naming the file an edit writes, by the names agents' tools give it
PATH_KEYS = ("file_path", "path", "notebook_path", "absolute_path", "absolutePath", "filePath", "target_file")


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str


def as_text(v: Any) -> str:
    return v if isinstance(v, str) else "" if v is None else orjson.dumps(v).decode()


def args_of(text: str) -> dict[str, Any] | None:
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return v if isinstance(v, dict) else None


def pick(args: dict[str, Any], *names: str) -> str | None:
    for n in names:
        v = args.get(n)
        if isinstance(v, str):
            return v
    return None


def _unified(path: str, old: str, new: str) -> list[DiffLine]:
    out = [DiffLine("file", path)]
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3):
        if line.startswith(("---", "+++")):
            continue
        kind: LineKind = "hunk" if line.startswith("@@") else "add" if line.startswith("+") else \
            "del" if line.startswith("-") else "same"
        out.append(DiffLine(kind, line))
    return out


_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")


def patch_lines(text: str) -> list[DiffLine]:
    """An apply_patch text (`*** Begin Patch … *** End Patch`) or a unified diff, line by line."""
    out: list[DiffLine] = []
    for line in text.splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            out.append(DiffLine("file", f"{m.group(2)} ({m.group(1).lower()})"))
        elif line.startswith(("*** Begin Patch", "*** End Patch", "--- ", "+++ ")):
            continue
        elif line.startswith("diff --git "):
            out.append(DiffLine("file", line.removeprefix("diff --git ")))
        elif line.startswith("@@"):
            out.append(DiffLine("hunk", line))
        elif line.startswith("+"):
            out.append(DiffLine("add", line))
        elif line.startswith("-"):
            out.append(DiffLine("del", line))
        else:
            out.append(DiffLine("same", line))
    return out


def _find_patch(args: dict[str, Any] | None, raw: str) -> str | None:
    for v in [*(args or {}).values(), raw]:
        if isinstance(v, str) and ("*** Begin Patch" in v or v.startswith("diff --git ")):
            return v
    return None


# one SEARCH/REPLACE block: Aider's and Cline's first markers (<<<<<<< SEARCH, >>>>>>> REPLACE)
# and Cline's since 3.x (------- SEARCH, +++++++ REPLACE), the old and the new text between
_BLOCK = re.compile(r"^(?:<{7}|-{7}) ?SEARCH[^\n]*\n(?P<old>.*?)^={7}[^\n]*\n(?P<new>.*?)^(?:>{7}|\+{7}) ?REPLACE",
                    re.S | re.M)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _head_path(text: str) -> str | None:
    """The file an Aider edit names: its first line that is not a fence (before the fence, or the
    fence's first line)."""
    for line in text.splitlines():
        if line.strip() and not _FENCE.match(line):
            return line.strip()
    return None


def _blocks(text: str, path: str | None) -> list[DiffLine]:
    found = list(_BLOCK.finditer(text))
    if not found:
        return []
    name = path or _head_path(text[:found[0].start()]) or "(file)"
    out: list[DiffLine] = []
    for m in found:
        lines = _unified(name, m.group("old"), m.group("new"))
        out += lines if not out else lines[1:]  # one file header for the blocks of one call
    return out


def _fenced(text: str) -> tuple[str | None, str] | None:
    """(the path line before it, the text inside) of the first fence of `text`."""
    lines = text.splitlines()
    opened = next((i for i, ln in enumerate(lines) if _FENCE.match(ln)), None)
    if opened is None:
        return None
    mark = _FENCE.match(lines[opened]).group(1)  # type: ignore[union-attr]
    close = next((i for i in range(len(lines) - 1, opened, -1) if lines[i].strip().startswith(mark)), len(lines))
    return _head_path("\n".join(lines[:opened])), "\n".join(lines[opened + 1:close])


def _text_edit(tool: str | None, text: str) -> list[DiffLine]:
    """An edit whose input is text, not arguments: Aider's blocks as it wrote them."""
    blocks = _blocks(text, None)
    if blocks:
        return blocks
    inside = _fenced(text)
    if inside is None:
        return []
    path, body = inside
    if tool == "whole_file":  # the whole file, after its path
        return _unified(path or "(file)", "", body)
    if tool == "udiff":
        lines = patch_lines(body)
        named = next((ln[4:].strip() for ln in body.splitlines() if ln.startswith("+++ ")), None)
        return [DiffLine("file", named or path or "(file)"), *lines] if lines else []
    return []


def edit_diff(tool: str | None, text: str, cap: int | None = DIFF_LINES) -> list[DiffLine]:
    """The change an edit tool's input describes, as diff lines (empty when it is no edit); the
    first `cap` of them (None: every line)."""
    s = spec(tool)
    if s is None or s.kind is not ToolKind.EDIT:
        return []
    return _edit_lines(tool, text)[:cap]


def _edit_lines(tool: str | None, text: str) -> list[DiffLine]:
    args = args_of(text)
    patch = _find_patch(args, text)
    if patch is not None:
        return patch_lines(patch)
    if args is None:
        return _text_edit(tool, text)
    path = pick(args, *PATH_KEYS) or "(file)"
    blocks = _blocks(pick(args, "diff") or "", path)  # Cline's replace_in_file
    if blocks:
        return blocks
    pairs: list[tuple[str, str]] = []
    edits = args.get("edits")
    if isinstance(edits, list):  # MultiEdit
        pairs = [(as_text(e.get("old_string")), as_text(e.get("new_string"))) for e in edits if isinstance(e, dict)]
    old, new = pick(args, "old_string", "old_str", "old"), pick(args, "new_string", "new_str", "new")
    if old is not None or new is not None:
        pairs.append((old or "", new or ""))
    content = pick(args, "content", "file_text", "new_source")
    if not pairs and content is not None:  # a whole file written
        pairs.append(("", content))
    out: list[DiffLine] = []
    for old_text, new_text in pairs:
        lines = _unified(path, old_text, new_text)
        out += lines if not out else lines[1:]  # one file header for the edits of one call
    return out


_SEARCH_REPLACE = re.compile(r"^(?P<path>[^\n]*)\n?```[^\n]*\n<<<<<<< SEARCH\n(?P<old>.*?)^=======\n(?P<new>.*?)"
                             r"^>>>>>>> REPLACE", re.S | re.M)


def answer_diff(text: str) -> list[DiffLine]:
    """The SEARCH/REPLACE blocks an answer holds (Aider writes its edits so), as diff lines."""
    out: list[DiffLine] = []
    for m in _SEARCH_REPLACE.finditer(text):
        out += _unified(m.group("path").strip() or "(file)", m.group("old"), m.group("new"))
    return out[:DIFF_LINES]


_SECTION = re.compile(r"^(?:step (\d+)|commit [0-9a-f]+ \(step (\d+)\)):(?: .*)?$", re.M)


def written_diff(trace: dict[str, Any], step: int) -> list[DiffLine]:
    """What step `step` wrote as the artifacts record it (the patch the tool made of the file it
    wrote: Claude Code's structuredPatch), a file header for each file."""
    out: list[DiffLine] = []
    arts = (trace.get("static_output") or {}).get("artifacts") if isinstance(trace.get("static_output"), dict) else None
    for a in arts if isinstance(arts, list) else []:
        if not isinstance(a, dict) or not isinstance(a.get("diff"), str) or step not in (a.get("related_steps") or []):
            continue
        diff: str = a["diff"]
        heads = list(_SECTION.finditer(diff))
        for k, h in enumerate(heads):
            if int(h.group(1) or h.group(2)) != step or h.group(0).startswith("commit"):
                continue
            end = heads[k + 1].start() if k + 1 < len(heads) else len(diff)
            body = diff[h.end():end].strip("\n")
            if body:
                out += [DiffLine("file", str(a.get("path"))), *patch_lines(body)]
    return out


__all__ = ["DIFF_LINES", "PATH_KEYS", "DiffLine", "LineKind", "answer_diff", "edit_diff", "patch_lines",
           "written_diff"]
