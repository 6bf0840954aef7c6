"""read_git: the commits of a repository in a window."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from ...errors import InputError
from ...evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile
from ...ids import make_id
from ...payloads import CommitInfo
from .. import ReadContext
from .._lines import sha256
from ._diff import parse_diff
from ._run import _check_work_tree, _git, _iso, parse_when, show_bytes

RAW_PERSON = re.compile(r"^(.*) <(.*)> (-?\d+) ([+-]\d{4})$")

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
