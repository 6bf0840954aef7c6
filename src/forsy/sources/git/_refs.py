"""Which commits a repository holds: every branch, remote-tracking branch and reflog; which
branches contain each; a commit's `git patch-id`; a short sha resolved. No network, ever
(`run_git` refuses every transport)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ._run import STABLE, run_git

# commits the window is read from: every local and remote-tracking branch, HEAD (a detached
# HEAD too) and every reflog entry (an amended or rebased-away commit lives on only there)
LOG_REFS = ("--branches", "--remotes", "HEAD", "--reflog")


@dataclass(frozen=True, slots=True)
class Branch:
    name: str  # short: "main", "origin/main"
    ref: str  # full: "refs/heads/main"


def branches(repo: Path) -> list[Branch]:
    """Local and remote-tracking branches (not the symbolic `origin/HEAD`), and a detached HEAD."""
    fmt = "--format=%(refname)%00%(refname:short)%00%(symref)"
    r = run_git(repo, "for-each-ref", fmt, "refs/heads", "refs/remotes")
    out: list[Branch] = []
    # a ref name is bytes (a branch made on a Latin-1 system is no UTF-8): `ref` keeps them
    # (surrogateescape: passed back to git as they were), `name` is readable. Only `\n` ends a
    # line: a name may hold U+0085 or U+2028, which `splitlines` would also split at
    for line in r.stdout.decode("utf-8", "surrogateescape").split("\n"):
        full, short, symref = (line.split("\0") + ["", "", ""])[:3]
        if full and not symref:
            out.append(Branch(short.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), full))
    if run_git(repo, "symbolic-ref", "-q", "HEAD").returncode != 0 and has_commit(repo, "HEAD"):
        out.append(Branch("HEAD", "HEAD"))  # detached: its commits are on no branch but HEAD
    return out


def has_commit(repo: Path, rev: str) -> bool:
    return run_git(repo, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}").returncode == 0


def log_times(repo: Path, revs: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """(sha, author time, committer time) of every commit reachable from `revs`, newest first."""
    # STABLE: log.showSignature would print gpg's lines among the commits
    r = run_git(repo, *STABLE, "log", "--date-order", "--format=%H %at %ct", *revs, "--")
    if r.returncode != 0:
        raise InputError(f"git log failed: {r.stderr.decode('utf-8', 'replace').strip()}", path=repo)
    out: list[tuple[str, int, int]] = []
    for line in r.stdout.decode("ascii", "replace").splitlines():
        sha, at, ct = line.split()
        out.append((sha, int(at), int(ct)))
    return out


def containing(repo: Path, refs: list[Branch], shas: set[str]) -> dict[str, list[str]]:
    """For each of `shas`, the branches whose history holds it (one `rev-list` per branch)."""
    out: dict[str, list[str]] = {s: [] for s in shas}
    for b in refs:
        r = run_git(repo, "rev-list", b.ref, "--")
        if r.returncode != 0:  # never a commit said to be on fewer branches than hold it
            raise InputError(f"git rev-list {b.name} failed: {r.stderr.decode('utf-8', 'replace').strip()}",
                             path=repo)
        for line in r.stdout.decode("ascii", "replace").split():
            if line in out:
                out[line].append(b.name)
    return {s: sorted(names) for s, names in out.items()}


def patch_ids(repo: Path, shows: bytes) -> dict[str, str]:
    """`git patch-id --stable` of commits from their `git show` bytes: commit sha -> patch id.
    A commit with no diff (a clean merge, an empty commit) has none."""
    r = run_git(repo, "patch-id", "--stable", stdin=shows)
    out: dict[str, str] = {}
    for line in r.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2:
            out[parts[1]] = parts[0]
    return out


def missing_objects(repo: Path, ids: list[str]) -> set[str]:
    """Which of these object ids the repository does not hold (a partial clone's blobs). One
    `cat-file -e` each: `--batch-check` stops at the first object a promisor remote should have."""
    return {i for i in dict.fromkeys(ids) if run_git(repo, "cat-file", "-e", i).returncode != 0}


class GitLookup:
    """Questions the timeline asks the repository about a commit the log names."""

    def __init__(self, repo: Path) -> None:
        self.repo = Path(repo)

    def resolve(self, prefix: str) -> str | None:
        """The full sha of a commit named by a (short) sha; None if absent or ambiguous."""
        r = run_git(self.repo, "rev-parse", "--verify", "-q", f"{prefix}^{{commit}}")
        return r.stdout.decode("ascii", "replace").strip() or None if r.returncode == 0 else None

    def is_ancestor(self, a: str, b: str) -> bool:
        return run_git(self.repo, "merge-base", "--is-ancestor", a, b).returncode == 0

    def range_patch_id(self, onto: str, tip: str) -> tuple[str, list[str]] | None:
        """The patch id of everything `tip` adds since it left `onto` (their merge base), and
        those commits, oldest first: what a squash of that branch onto `onto` would hold."""
        mb = run_git(self.repo, "merge-base", onto, tip)
        base = mb.stdout.decode("ascii", "replace").strip()
        if mb.returncode != 0 or not base:
            return None
        revs = run_git(self.repo, "rev-list", "--reverse", "--no-merges", f"{base}..{tip}", "--")
        commits = revs.stdout.decode("ascii", "replace").split()
        # the diff as `git show` writes a commit's (the same -c settings), so that a squash's patch
        # id is comparable whatever the user's config (diff.noprefix, core.quotepath=false, ...)
        diff = run_git(self.repo, *STABLE, "diff", "--no-color", "--no-ext-diff", "--full-index", base, tip, "--")
        if revs.returncode != 0 or diff.returncode != 0 or not commits:
            return None
        ids = patch_ids(self.repo, diff.stdout)
        return (next(iter(ids.values())), commits) if ids else None
