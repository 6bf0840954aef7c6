"""Running the `git` command line, and the times its window is given in."""

from __future__ import annotations

import os
import re
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from ...errors import InputError

# The -c settings fix what a user's config could change in the bytes of `git show` and `git diff`
# (each set to git's default): the names and prefixes of the files, the hunks' context, the
# order of the files, the diff algorithm, submodules, and signature checks. Keys an older git
# does not know (diff.srcPrefix, 2.45) are ignored by it.
STABLE = (
    "-c", "core.quotepath=true",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.srcPrefix=a/",
    "-c", "diff.dstPrefix=b/",
    "-c", "diff.relative=false",
    "-c", "diff.context=3",
    "-c", "diff.interHunkContext=0",
    "-c", "diff.indentHeuristic=true",
    "-c", "diff.algorithm=myers",
    "-c", "diff.suppressBlankEmpty=false",
    "-c", f"diff.orderFile={os.devnull}",  # no pattern: git's own order
    "-c", "diff.submodule=short",
    "-c", "diff.ignoreSubmodules=none",  # "all" hid a submodule's new commit from the show
    "-c", "log.showSignature=false",
)  # fmt: skip
GIT_SHOW_ARGS = (
    *STABLE, "show", "--no-color", "--no-ext-diff", "--no-textconv", "--format=raw", "--patch", "-M", "--full-index",
)  # fmt: skip
# When the diff cannot be read (a partial clone lacks a blob): the files and blob ids, which
# need only trees (no rename detection: that compares contents) ...
GIT_SHOW_RAW_ARGS = (*STABLE, "show", "--no-color", "--format=raw", "--raw", "--no-renames", "--no-abbrev")
# ... and when even a tree is missing, the commit's header and message alone.
GIT_SHOW_HEADER_ARGS = (*STABLE, "show", "--no-color", "--format=raw", "--no-patch")
# the evidence name's suffix for each form (`git:<repo>@<sha><suffix>`)
SHOW_FORMS: dict[str, tuple[str, ...]] = {"": GIT_SHOW_ARGS, ":raw": GIT_SHOW_RAW_ARGS, ":header": GIT_SHOW_HEADER_ARGS}
GIT_TIMEOUT_S = 120

# Never a network call: in a partial clone git fetches a missing object from the promisor
# remote on its own ("lazy fetch"). GIT_NO_LAZY_FETCH (git >= 2.44) turns that off; older git
# (2.39 here) does not know it, so every transport is also refused (GIT_ALLOW_PROTOCOL names
# none that exists, and it overrides any protocol.*.allow of the user's config).
NO_FETCH_ENV = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "none", "GIT_TERMINAL_PROMPT": "0"}


# --- running git ---------------------------------------------------------------------------


def run_git(repo: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **NO_FETCH_ENV}
    try:
        return subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, env=env,
                              timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise InputError("the git command is not installed", path=repo) from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s", path=repo) from None


def check_repo(repo: Path) -> None:
    """A work tree, or a bare repository (a mirror): both hold the commits."""
    if not repo.is_dir():
        raise InputError("not a git work tree (no such directory)", path=repo)
    r = run_git(repo, "rev-parse", "--is-inside-work-tree", "--is-bare-repository")
    if r.returncode != 0 or b"true" not in r.stdout.split():
        raise InputError("not a git work tree", path=repo)


def show_bytes(repo: Path, sha: str, form: str = "") -> bytes:
    """The exact bytes a commit's evidence hashes (see the package docstring)."""
    r = run_git(repo, *SHOW_FORMS[form], sha)
    if r.returncode != 0:
        raise InputError(f"git show {sha} failed: {r.stderr.decode('utf-8', 'replace').strip()}", path=repo)
    return r.stdout


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


def iso_of(epoch: int, tz: str | None = None) -> str:
    """ISO 8601 of an epoch: UTC with "Z", or in the `+hhmm` offset git recorded."""
    if tz is None:
        return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    sign = -1 if tz[0] == "-" else 1
    off = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
    return datetime.fromtimestamp(epoch, tz=off).isoformat()
