"""Git commits as evidence, read with the `git` command line (never reimplemented).

`read_git(repo, since=, until=, ctx=)` gives one `Session` (source_kind "git") with one
`commit` event per commit reachable from HEAD whose author or committer date lies in the
window, oldest first. Each commit's evidence is the exact stdout of

    git -C <repo> <GIT_SHOW_ARGS...> <sha>

i.e. `git -c core.quotepath=true -c diff.noprefix=false -c diff.mnemonicPrefix=false
-c diff.relative=false -c log.showSignature=false show --no-color --no-ext-diff --no-textconv
--format=raw --patch -M --full-index <sha>`: `byte_length` is its length and `sha256` its
hash, so anyone can re-run it and compare (the bytes depend on git's diff algorithm, so
the same git version and repository config give the same bytes). The evidence source is
`git:<repo dir name>@<sha>`, line None, offset 0; the session lists the same name as one
of its `files` (kind "git", abs_path the repository), with that length and hash.

`read_patch(path, ctx)` reads a `git format-patch` mbox (one or more patches) or a plain
unified diff and gives commit events with what the file holds (file evidence with lines).

The commit's actor is "human:git": whether an agent made it is decided by `timeline.merge`.
"""

from __future__ import annotations

import email.header
import email.utils
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import ClassVar

from ..errors import InputError
from ..evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile
from ..ids import make_id
from ..payloads import CommitInfo, FileChange, Hunk
from . import ReadContext
from ._lines import inside, read_bytes, sha256, source_name

GIT_SHOW_ARGS = (
    "-c", "core.quotepath=true",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.relative=false",
    "-c", "log.showSignature=false",
    "show", "--no-color", "--no-ext-diff", "--no-textconv",
    "--format=raw", "--patch", "-M", "--full-index",
)  # fmt: skip
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
CC_HUNK = re.compile(r"^@@@+ -(\d+)(?:,(\d+))? (?:-\d+(?:,\d+)? )*\+(\d+)(?:,(\d+))? @@@+")
RAW_PERSON = re.compile(r"^(.*) <(.*)> (-?\d+) ([+-]\d{4})$")
GIT_TIMEOUT_S = 120


# --- running git ---------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        raise InputError("the git command is not installed", path=repo) from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s", path=repo) from None


def _check_work_tree(repo: Path) -> None:
    if not repo.is_dir():
        raise InputError("not a git work tree (no such directory)", path=repo)
    r = _git(repo, "rev-parse", "--is-inside-work-tree")
    if r.returncode != 0 or r.stdout.strip() != b"true":
        raise InputError("not a git work tree", path=repo)


def show_bytes(repo: Path, sha: str) -> bytes:
    """The exact bytes a commit's evidence hashes (see the module docstring)."""
    r = _git(repo, *GIT_SHOW_ARGS, sha)
    if r.returncode != 0:
        raise InputError(f"git show {sha} failed: {r.stderr.decode('utf-8', 'replace').strip()}", path=repo)
    return r.stdout


# --- dates ---------------------------------------------------------------------------------


class GitSource:
    """Git is read through `--git REPO` (`read_git`), never detected from a file; as a
    registered source it reads its own evidence back for `forsy verify`."""

    name: ClassVar[str] = "git"
    schemes: ClassVar[tuple[str, ...]] = ("git:",)

    def sniff(self, path: Path, head: bytes) -> bool:
        return False

    def discover(self, path: Path) -> list[Path]:
        return []

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        return [read_git(path, since=None, until=None, ctx=ctx)]

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        """`git:<repo>@<sha>`: re-run the documented `git show` in a repository under the roots
        (the root itself, or its folder named `<repo>`)."""
        repo_name, _, sha = name[len("git:"):].rpartition("@")
        for root in roots:
            named = inside(root, repo_name)
            for cand in (root, *([named] if named is not None else [])):
                if (cand / ".git").exists() and (cand.resolve().name == repo_name or cand == root):
                    try:
                        return show_bytes(cand, sha)
                    except InputError:
                        continue
        return None


def parse_when(value: str | None, what: str) -> datetime | None:
    """An ISO 8601 time (or epoch seconds) as an aware datetime; naive means UTC."""
    if value is None or value == "":
        return None
    v = value.strip()
    try:
        dt = datetime.fromtimestamp(float(v), tz=UTC) if re.fullmatch(r"-?\d+(\.\d+)?", v) else None
        dt = dt or datetime.fromisoformat(v)
    except (ValueError, OverflowError, OSError):
        raise InputError(f"{what} is not an ISO 8601 time: {value!r}") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _iso(epoch: int, tz: str | None = None) -> str:
    """ISO 8601 of an epoch: UTC with "Z", or in the `+hhmm` offset git recorded."""
    if tz is None:
        return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    sign = -1 if tz[0] == "-" else 1
    off = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
    return datetime.fromtimestamp(epoch, tz=off).isoformat()


# --- read_git ------------------------------------------------------------------------------


def read_git(
    repo: Path, *, since: str | None, until: str | None, ctx: ReadContext, rev: str = "HEAD"
) -> Session:
    """Commits reachable from `rev` whose author or committer date is in [since, until]."""
    repo = Path(repo)
    _check_work_tree(repo)
    lo, hi = parse_when(since, "since"), parse_when(until, "until")
    name = repo.resolve().name
    session = Session("git", make_id("git", name, since, until), [], {}, [], SessionMeta(agent="git"))
    session.meta.git_branch = _branch(repo)
    shas = _shas_in_window(repo, rev, lo, hi)
    digests: list[str] = []
    for sha in shas:
        raw = show_bytes(repo, sha)
        digests.append(sha256(raw))
        source = f"git:{name}@{sha}"
        # each commit is a source of its own: the bytes of its `git show`, like a file's
        session.files.append(SourceFile(source, str(repo), "git", len(raw), digests[-1]))
        _add_commit(session, source, raw)
    session.session_id = make_id("git", name, since, until, digests)
    if not shas:
        session.warn("git_no_commits", f"no commit in the window [{since}, {until}] on {rev}", f"git:{name}")
    return session


def _branch(repo: Path) -> str | None:
    r = _git(repo, "symbolic-ref", "--short", "-q", "HEAD")
    out = r.stdout.decode("utf-8", "replace").strip()
    return out or None


def _shas_in_window(repo: Path, rev: str, lo: datetime | None, hi: datetime | None) -> list[str]:
    if _git(repo, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}").returncode != 0:
        if rev == "HEAD":
            return []  # a repository with no commit yet
        raise InputError(f"no such revision {rev!r}", path=repo)
    r = _git(repo, "log", "--format=%H %at %ct", rev, "--")
    if r.returncode != 0:
        raise InputError(f"git log failed: {r.stderr.decode('utf-8', 'replace').strip()}", path=repo)
    out: list[str] = []
    for line in r.stdout.decode("ascii", "replace").splitlines():
        sha, at, ct = line.split()
        times = [datetime.fromtimestamp(int(t), tz=UTC) for t in (at, ct)]
        if any((lo is None or t >= lo) and (hi is None or t <= hi) for t in times):
            out.append(sha)
    out.reverse()  # git log is newest first; the timeline wants oldest first
    return out


def _add_commit(session: Session, source: str, raw: bytes) -> None:
    text = raw.decode("utf-8", "replace")
    if "\ufffd" in text and "\ufffd" not in raw.decode("utf-8", "ignore"):
        session.warn("invalid_utf8", "commit output is not valid UTF-8; replaced", source)
    head, msg, diff = _split_raw_show(text)
    ev = Evidence.make(source, None, 0, raw, sha256(raw), "git_commit")
    session.add_evidence(ev)
    session.quality.records += 1
    info, ts = _raw_info(head)
    info.files = parse_diff(diff)
    if len(info.parents) > 1:
        info.merge = True
        session.quality.extra["merge_commits"] = session.quality.extra.get("merge_commits", 0) + 1
    session.events.append(Event("commit", "human:git", ts, [Ref(ev.id, "")], text=msg, info=info))


def _split_raw_show(text: str) -> tuple[list[str], str, str]:
    """`--format=raw` output: header lines, the message (4-space indent removed), the diff."""
    lines = text.split("\n")
    i = 0
    head: list[str] = []
    while i < len(lines) and lines[i] != "":
        head.append(lines[i])
        i += 1
    i += 1
    msg: list[str] = []
    while i < len(lines) and (lines[i].startswith("    ") or lines[i] == ""):
        if lines[i] == "" and (i + 1 >= len(lines) or not lines[i + 1].startswith("    ")):
            break
        msg.append(lines[i][4:])
        i += 1
    rest = "\n".join(lines[i:]).lstrip("\n")
    return head, "\n".join(msg), rest


def _raw_info(head: list[str]) -> tuple[CommitInfo, str | None]:
    """The commit's header fields, and its time (the committer's, in UTC)."""
    info = CommitInfo()
    ts: str | None = None
    for line in head:
        key, _, value = line.partition(" ")
        if key == "commit":
            info.sha = value.split()[0] if value else None
        elif key == "parent":
            info.parents.append(value)
        elif key in ("author", "committer") and (m := RAW_PERSON.match(value)):
            name, mail, epoch, tz = m.group(1), m.group(2), int(m.group(3)), m.group(4)
            if key == "author":
                info.author_name, info.author_email, info.author_date = name, mail, _iso(epoch, tz)
            else:
                info.committer_name, info.committer_email, info.committer_date = name, mail, _iso(epoch, tz)
                ts = _iso(epoch)
    return info, ts


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
        f.old_path, f.path = _git_header_paths(line[len("diff --git ") :])
    elif line.startswith(("diff --cc ", "diff --combined ")):
        f.path = f.old_path = _unquote(line.split(" ", 2)[2])
    elif line.startswith("new file mode"):
        f.status = "A"
    elif line.startswith("deleted file mode"):
        f.status = "D"
    elif line.startswith("rename from "):
        f.status, f.old_path = "R", _unquote(line[len("rename from ") :])
    elif line.startswith("rename to "):
        f.path = _unquote(line[len("rename to ") :])
    elif line.startswith("copy from "):
        f.status, f.old_path = "C", _unquote(line[len("copy from ") :])
    elif line.startswith("copy to "):
        f.path = _unquote(line[len("copy to ") :])
    elif line.startswith(("Binary files ", "GIT binary patch")):
        f.binary = True
    elif line.startswith("--- "):
        _plain_path(f, line[4:], old=True)
    elif line.startswith("+++ "):
        _plain_path(f, line[4:], old=False)


def _plain_path(f: _File, spec: str, *, old: bool) -> None:
    """`--- a/x` / `+++ b/x` (a tab and a date may follow in plain diffs)."""
    p = _unquote(spec.split("\t")[0].rstrip())
    if p == "/dev/null":
        f.status = "A" if old else "D"
        return
    if p[:2] in ("a/", "b/"):
        p = p[2:]
    if old:
        f.old_path = f.old_path or p
        f.path = f.path or p
    elif f.status != "R":
        f.path = p


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """`a/<old> b/<new>` of a `diff --git` line; quoted or not, spaces allowed."""
    if rest.startswith('"'):
        old, tail = _take_quoted(rest)
        new = _unquote(tail.strip())
        return _strip_prefix(old, "a/"), _strip_prefix(new, "b/")
    if rest.endswith('"'):
        k = rest.find(' "')
        return _strip_prefix(rest[:k], "a/"), _strip_prefix(_unquote(rest[k + 1 :]), "b/")
    # unquoted: both halves are equal except for renames, which also have "rename" lines
    n = (len(rest) - 5) // 2
    if rest.startswith("a/") and rest[2 + n : 5 + n] == " b/" and rest[2 : 2 + n] == rest[5 + n :]:
        return rest[2 : 2 + n], rest[5 + n :]
    return None, None


def _strip_prefix(p: str | None, prefix: str) -> str | None:
    return p[len(prefix) :] if p is not None and p.startswith(prefix) else p


def _take_quoted(s: str) -> tuple[str, str]:
    i = 1
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == '"':
            return _unquote(s[: i + 1]), s[i + 1 :]
        i += 1
    return _unquote(s), ""


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(s: str) -> str:
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


# --- read_patch ----------------------------------------------------------------------------

MBOX_FROM = re.compile(rb"^From ([0-9a-f]{7,64}) Mon Sep 17 00:00:00 2001$", re.MULTILINE)
SUBJECT_PREFIX = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*")


def read_patch(path: Path, ctx: ReadContext) -> Session:
    """A `git format-patch` mbox (one commit event per patch) or a plain unified diff."""
    data = read_bytes(path)
    src = source_name(path, ctx.root)
    digest = sha256(data)
    session = Session(
        "git",
        make_id("patch", path.name, digest),
        [SourceFile(src, str(path), "patch", len(data), digest)],
        {},
        [],
        SessionMeta(agent="git"),
    )
    starts = [m.start() for m in MBOX_FROM.finditer(data)]
    chunks = list(zip(starts, [*starts[1:], len(data)], strict=True)) if starts else [(0, len(data))]
    for a, b in chunks:
        _add_patch(session, src, data, a, b, mbox=bool(starts))
    if not any(isinstance(e.info, CommitInfo) and e.info.files for e in session.events):
        session.warn("patch_without_diff", "no diff found in the file", src)
    return session


def _add_patch(session: Session, src: str, data: bytes, a: int, b: int, *, mbox: bool) -> None:
    raw = data[a:b]
    line = data[:a].count(b"\n") + 1
    ev = Evidence.make(src, line, a, raw, sha256(raw), "format_patch" if mbox else "unified_diff")
    session.add_evidence(ev)
    session.quality.records += 1
    text = raw.decode("utf-8", "replace")
    if "\ufffd" in text:
        session.warn("invalid_utf8", "patch is not valid UTF-8; replaced", src, line)
    info = CommitInfo(patch=True)
    msg: str | None = None
    ts: str | None = None
    diff = text
    if mbox:
        msg, ts, diff = _mbox_fields(text, info)
    info.files = parse_diff(diff)
    session.events.append(Event("commit", "human:git", ts, [Ref(ev.id, "")], text=msg, info=info))


def _mbox_fields(text: str, info: CommitInfo) -> tuple[str, str | None, str]:
    """Headers, message and diff of one format-patch mail."""
    head, _, body = text.partition("\n\n")
    headers = _mail_headers(head)
    info.sha = head.split(" ", 2)[1] if head.startswith("From ") else None
    name, mail = email.utils.parseaddr(headers.get("from", ""))
    info.author_name, info.author_email = name or None, mail or None
    ts = None
    if "date" in headers:
        try:
            dt = email.utils.parsedate_to_datetime(headers["date"])
            info.author_date = dt.isoformat()
            ts = dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (TypeError, ValueError):
            pass
    subject = SUBJECT_PREFIX.sub("", headers.get("subject", ""))
    k = body.find("\n---\n")
    d = body.find("diff --git ")
    cut = k if k != -1 and (d == -1 or k < d) else d
    desc = body[:cut] if cut != -1 else body
    msg = subject + ("\n\n" + desc.strip("\n") if desc.strip() else "")
    if d == -1:
        return msg, ts, ""
    diff = body[d:]
    sig = diff.rfind("\n-- \n")  # format-patch ends each mail with "-- " and git's version
    return msg, ts, diff[: sig + 1] if sig != -1 else diff


def _mail_headers(head: str) -> dict[str, str]:
    out: dict[str, str] = {}
    key = None
    for line in head.split("\n")[1:]:
        if line[:1] in (" ", "\t") and key:
            out[key] += " " + line.strip()  # folded header line
        elif ":" in line:
            k, _, v = line.partition(":")
            key = k.strip().lower()
            out[key] = v.strip()
    return {k: str(email.header.make_header(email.header.decode_header(v))) for k, v in out.items()}
