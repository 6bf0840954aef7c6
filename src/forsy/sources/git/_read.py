"""read_git: the commits of a repository in a window, on every branch."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from ...errors import InputError
from ...evidence import Event, Evidence, Ref, Session, SessionMeta, SourceFile
from ...ids import make_id
from ...payloads import CommitInfo, FileChange
from .. import ReadContext
from ..lines import sha256
from ._diff import parse_diff, unquote
from ._refs import LOG_REFS, branches, containing, has_commit, log_times, missing_objects, patch_ids
from ._run import check_repo, iso_of, parse_when, run_git, show_bytes

RAW_PERSON = re.compile(r"^(.*) <(.*)> (-?\d+) ([+-]\d{4})$")
RAW_DIFF = re.compile(r"^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*\t(.*)$")


# --- read_git ------------------------------------------------------------------------------


def read_git(
    repo: Path, *, since: str | None, until: str | None, ctx: ReadContext, rev: str | None = None
) -> Session:
    """Commits whose author or committer date is in [since, until], reachable from `rev`, or
    (by default) from any branch, remote-tracking branch, HEAD or reflog entry."""
    repo = Path(repo)
    check_repo(repo)
    lo, hi = parse_when(since, "since"), parse_when(until, "until")
    name = repo.resolve().name
    session = Session("git", "", [], {}, [], SessionMeta(agent="git"))  # its id, once its commits are read
    session.meta.git_branch = _branch(repo)
    session.meta.cwd = str(repo)  # where the timeline asks about commits a log names (GitLookup)
    shas = _shas_in_window(repo, rev, lo, hi)
    refs = branches(repo) if rev is None else []
    held = containing(repo, refs, set(shas)) if refs else {}
    digests: list[str] = []
    full: list[bytes] = []
    for sha in shas:
        source, raw, missing = _show(repo, name, sha)
        digests.append(sha256(raw))
        # each commit is a source of its own: the bytes of its `git show`, like a file's
        session.files.append(SourceFile(source, str(repo), "git", len(raw), digests[-1]))
        info = _add_commit(session, source, raw)
        info.branches = held.get(sha, []) if rev is None else None  # one revision read: branches not asked
        info.missing = missing
        if missing:
            _warn_missing(session, source, sha, missing)
        else:
            full.append(raw)
    ids = patch_ids(repo, b"".join(full)) if full else {}
    for e in session.events:
        if isinstance(e.info, CommitInfo) and e.info.sha:
            e.info.patch_id = ids.get(e.info.sha)
    session.session_id = make_id("git", name, since, until, digests)
    if not shas:
        on = rev if rev is not None else "any branch or reflog"
        session.warn("git_no_commits", f"no commit in the window [{since}, {until}] on {on}", f"git:{name}")
    return session


def _show(repo: Path, name: str, sha: str) -> tuple[str, bytes, list[str]]:
    """(evidence name, bytes, what is missing): the whole `git show`; when a partial clone
    lacks an object, the raw form (files and blob ids), or the header alone."""
    try:
        return f"git:{name}@{sha}", show_bytes(repo, sha), []
    except InputError as full_error:
        if not has_commit(repo, sha):
            raise
        why = str(full_error)
    try:
        raw = show_bytes(repo, sha, ":raw")
    except InputError:
        return f"git:{name}@{sha}:header", show_bytes(repo, sha, ":header"), [f"the trees of commit {sha} ({why})"]
    blobs: list[tuple[str, str]] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        if m := RAW_DIFF.match(line):
            blobs += [(b, unquote(m.group(4))) for b in (m.group(1), m.group(2)) if set(b) != {"0"}]
    gone = missing_objects(repo, [b for b, _ in blobs])
    missing = [f"blob {b} ({path})" for b, path in blobs if b in gone] or [f"part of the diff ({why})"]
    return f"git:{name}@{sha}:raw", raw, missing


def _warn_missing(session: Session, source: str, sha: str, missing: list[str]) -> None:
    session.warn("git_missing_object", f"commit {sha}: the repository lacks {', '.join(missing)} (a partial "
                 "clone; not fetched): kept with its metadata and file list, without its diff", source)
    q = session.quality
    # its own confidence factor (assemble.score: commits_without_diff), not a truncated output:
    # no tool output was cut, the change itself is unknown
    q.extra["commits_without_diff"] = q.extra.get("commits_without_diff", 0) + 1


def _branch(repo: Path) -> str | None:
    r = run_git(repo, "symbolic-ref", "--short", "-q", "HEAD")
    out = r.stdout.decode("utf-8", "replace").strip()
    return out or None


def _shas_in_window(repo: Path, rev: str | None, lo: datetime | None, hi: datetime | None) -> list[str]:
    if rev is not None and not has_commit(repo, rev):
        raise InputError(f"no such revision {rev!r}", path=repo)
    revs: tuple[str, ...] = (rev,) if rev is not None else LOG_REFS
    if rev is None and not has_commit(repo, "HEAD"):
        if not branches(repo):
            return []  # a repository with no commit yet
        # HEAD names a branch with no commit yet (`checkout --orphan`, a mirror whose HEAD names a
        # branch it lacks): git log would refuse it, and the other branches hold the commits
        revs = tuple(r for r in LOG_REFS if r != "HEAD")
    out: list[str] = []
    for sha, at, ct in log_times(repo, revs):
        times = [datetime.fromtimestamp(t, tz=UTC) for t in (at, ct)]
        if any((lo is None or t >= lo) and (hi is None or t <= hi) for t in times):
            out.append(sha)
    out.reverse()  # git log is newest first; the timeline wants oldest first
    return out


def _add_commit(session: Session, source: str, raw: bytes) -> CommitInfo:
    text = raw.decode("utf-8", "replace")
    if "\ufffd" in text and "\ufffd" not in raw.decode("utf-8", "ignore"):
        session.warn("invalid_utf8", "commit output is not valid UTF-8; replaced", source)
    head, msg, diff = _split_raw_show(text)
    ev = Evidence.make(source, None, 0, raw, sha256(raw), "git_commit")
    session.add_evidence(ev)
    session.quality.records += 1
    info, ts = _raw_info(head)
    info.files = _raw_files(diff) if source.endswith(":raw") else parse_diff(diff)
    if len(info.parents) > 1:
        info.merge = True
        session.quality.extra["merge_commits"] = session.quality.extra.get("merge_commits", 0) + 1
    session.events.append(Event("commit", "human:git", ts, [Ref(ev.id, "")], text=msg, info=info))
    return info


def _raw_files(diff: str) -> list[FileChange]:
    """The files of a `--raw` diff (no hunks: their text is what could not be read)."""
    out: list[FileChange] = []
    for line in diff.splitlines():
        if m := RAW_DIFF.match(line):
            out.append({"path": unquote(m.group(4)), "status": m.group(3), "diff": "", "hunks": []})
    return out


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
                info.author_name, info.author_email, info.author_date = name, mail, iso_of(epoch, tz)
            else:
                info.committer_name, info.committer_email, info.committer_date = name, mail, iso_of(epoch, tz)
                ts = iso_of(epoch)
    return info, ts
