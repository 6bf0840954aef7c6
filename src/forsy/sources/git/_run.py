"""Running the `git` command line, and the times its window is given in."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from ...errors import InputError

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
