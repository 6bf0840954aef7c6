"""Files, statuses and hunks of a git (or plain unified) diff."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...payloads import FileChange, Hunk

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
CC_HUNK = re.compile(r"^@@@+ -(\d+)(?:,(\d+))? (?:-\d+(?:,\d+)? )*\+(\d+)(?:,(\d+))? @@@+")
# the (old, new) prefixes of a `diff --git` line: a/ b/, or what `diff.mnemonicPrefix` writes: index,
# work tree, commit, object, and the two sides of `--no-index` (either way round, for `-R`)
_MNEMONIC = (("i/", "w/"), ("c/", "w/"), ("c/", "i/"), ("o/", "w/"), ("1/", "2/"))
PREFIXES = (("a/", "b/"), *_MNEMONIC, *((n, o) for o, n in _MNEMONIC))


# --- diff parsing --------------------------------------------------------------------------


@dataclass
class _File:
    git: bool  # started by a `diff --git`/`--cc` line (else a plain `---`/`+++` pair)
    combined: bool = False
    lines: list[str] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    path: str | None = None
    old_path: str | None = None
    status: str = "M"
    binary: bool = False
    prefixes: tuple[str, str] = ("a/", "b/")  # what the `diff --git` line put before each side's path
    named: bool = False  # the `diff --git` line named the file (its prefixes, if any, are known)


def parse_diff(diff: str) -> list[FileChange]:
    """Files of a git (or plain unified) diff: path, status A/M/D/R, diff text, hunks.

    Hunk bodies are consumed by their line counts, so a removed line `-- x` followed by an
    added `++ y` is never taken for a new file's `--- `/`+++ ` header.
    """
    files: list[_File] = []
    cur: _File | None = None
    left = (0, 0)  # old/new lines still to come in the current hunk
    lines = diff.split("\n")
    for i, line in enumerate(lines):
        if cur is not None and not cur.combined and left != (0, 0):
            cur.lines.append(line)
            left = _consume(left, line)
            continue
        if line.startswith(("diff --git ", "diff --cc ", "diff --combined ")):
            cur = _File(git=True, combined=not line.startswith("diff --git "))
            files.append(cur)
        elif (cur is None or not cur.git) and _plain_pair(lines, i):
            cur = _File(git=False)
            files.append(cur)
        if cur is None:
            continue  # text before the first file (a mail's description, a diffstat)
        cur.lines.append(line)
        m = (CC_HUNK if cur.combined else HUNK).match(line)
        if m:
            cur.hunks.append(_hunk(line, m))
            left = (cur.hunks[-1]["old_lines"], cur.hunks[-1]["new_lines"])
        elif not cur.hunks:
            _header_line(cur, line)
    return [_file_dict(f) for f in files]


def _plain_pair(lines: list[str], i: int) -> bool:
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _consume(left: tuple[int, int], line: str) -> tuple[int, int]:
    old, new = left
    tag = line[:1]
    if tag == "-":
        return max(old - 1, 0), new
    if tag == "+":
        return old, max(new - 1, 0)
    if tag == "\\":  # "\ No newline at end of file"
        return left
    return max(old - 1, 0), max(new - 1, 0)  # context (" ", or "" where a tool trimmed it)


def _file_dict(f: _File) -> FileChange:
    while f.lines and f.lines[-1] == "":
        f.lines.pop()
    out: FileChange = {
        "path": f.path,
        "status": f.status,
        "diff": "\n".join(f.lines) + "\n",
        "hunks": f.hunks,
    }
    if f.old_path is not None and f.old_path != f.path:
        out["old_path"] = f.old_path
    if f.binary:
        out["binary"] = True
    if f.combined:
        out["combined"] = True  # a merge's combined diff: starts are the first parent's and the result's
    return out


def _hunk(line: str, m: re.Match[str]) -> Hunk:
    a, b, c, d = m.groups()
    return {
        "header": line,
        "old_start": int(a),
        "old_lines": int(b) if b is not None else 1,
        "new_start": int(c),
        "new_lines": int(d) if d is not None else 1,
    }


def _header_line(f: _File, line: str) -> None:
    """Path and status from one header line (the `diff --git` paths are the fallback)."""
    if line.startswith("diff --git "):
        f.old_path, f.path, f.prefixes = _git_header_paths(line[len("diff --git ") :])
        f.named = f.path is not None
    elif line.startswith(("diff --cc ", "diff --combined ")):
        f.path = f.old_path = unquote(line.split(" ", 2)[2])
    elif line.startswith("new file mode"):
        f.status = "A"
    elif line.startswith("deleted file mode"):
        f.status = "D"
    elif line.startswith("rename from "):
        f.status, f.old_path = "R", unquote(line[len("rename from ") :])
    elif line.startswith("rename to "):
        f.path = unquote(line[len("rename to ") :])
    elif line.startswith("copy from "):
        f.status, f.old_path = "C", unquote(line[len("copy from ") :])
    elif line.startswith("copy to "):
        f.path = unquote(line[len("copy to ") :])
    elif line.startswith(("Binary files ", "GIT binary patch")):
        f.binary = True
    elif line.startswith("--- "):
        _plain_path(f, line[4:], old=True)
    elif line.startswith("+++ "):
        _plain_path(f, line[4:], old=False)


def _plain_path(f: _File, spec: str, *, old: bool) -> None:
    """`--- a/x` / `+++ b/x` (a tab and a date may follow in plain diffs)."""
    p = unquote(spec.split("\t")[0].rstrip())
    if p == "/dev/null":
        f.status = "A" if old else "D"
        return
    # the prefix the `diff --git` line showed; a/ b/ when it named no file (a plain diff, a
    # rename's differing halves); none when it named the file without one (`diff.noprefix`)
    if p[:2] == f.prefixes[0 if old else 1] != "" or (not f.named and p[:2] in ("a/", "b/")):
        p = p[2:]
    if old:
        f.old_path = f.old_path or p
        f.path = f.path or p
    elif f.status != "R":
        f.path = p


def _git_header_paths(rest: str) -> tuple[str | None, str | None, tuple[str, str]]:
    """`a/<old> b/<new>` of a `diff --git` line (or another prefix pair of `PREFIXES`; none with
    `diff.noprefix`), quoted or not, spaces allowed; and the prefixes it had."""
    if rest.startswith('"'):
        old, tail = _take_quoted(rest)
        return _strip_pair(old, unquote(tail.strip()))
    if rest.endswith('"'):
        k = rest.find(' "')
        return _strip_pair(rest[:k], unquote(rest[k + 1 :]))
    # unquoted: both halves are equal except for renames, which also have "rename" lines
    n = (len(rest) - 5) // 2
    pair = (rest[:2], rest[3 + n : 5 + n])
    if pair in PREFIXES and rest[2 + n : 3 + n] == " " and rest[2 : 2 + n] == rest[5 + n :]:
        return rest[2 : 2 + n], rest[5 + n :], pair
    half = len(rest) // 2  # `diff.noprefix`: the path twice
    if len(rest) % 2 and rest[half] == " " and rest[:half] == rest[half + 1 :]:
        return rest[:half], rest[half + 1 :], ("", "")
    return None, None, ("", "")


def _strip_pair(old: str, new: str) -> tuple[str, str, tuple[str, str]]:
    """Both sides without the prefix pair they carry (a rename may change everything after it)."""
    pair = (old[:2], new[:2])
    if pair in PREFIXES:
        return old[2:], new[2:], pair
    return old, new, ("", "")


def _take_quoted(s: str) -> tuple[str, str]:
    i = 1
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == '"':
            return unquote(s[: i + 1]), s[i + 1 :]
        i += 1
    return unquote(s), ""


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote(s: str) -> str:
    """git's C-style quoted path (`"caf\\303\\251"`) back to text."""
    if len(s) < 2 or not (s.startswith('"') and s.endswith('"')):
        return s
    body, out, i = s[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out.append(_C_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")
