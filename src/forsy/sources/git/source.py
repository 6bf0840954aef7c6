"""The registered git source: git is read through `--git REPO` (`read_git`), never detected
from a file; registered, it reads its own evidence back for `forsy verify`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Session
from .. import ReadContext
from ..lines import inside
from ._read import read_git
from ._run import SHOW_FORMS, show_bytes


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
        """`git:<repo>@<sha>[:raw|:header]`: re-run the documented `git show` (of that form) in a
        repository under the roots (the root itself, or its folder named `<repo>`)."""
        repo_name, _, rest = name[len("git:") :].rpartition("@")
        sha, colon, form = rest.partition(":")
        if colon + form not in SHOW_FORMS:
            return None
        for root in roots:
            named = inside(root, repo_name)
            for cand in (root, *([named] if named is not None else [])):
                if (cand.resolve().name == repo_name or cand == root) and cand.is_dir():
                    try:
                        return show_bytes(cand, sha, colon + form)
                    except InputError:
                        continue
        return None
