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

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Session
from .. import ReadContext
from .._lines import inside
from ._diff import parse_diff
from ._patch import read_patch
from ._read import read_git
from ._run import GIT_SHOW_ARGS, parse_when, show_bytes

__all__ = ["GIT_SHOW_ARGS", "GitSource", "parse_diff", "parse_when", "read_git", "read_patch", "show_bytes"]


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
