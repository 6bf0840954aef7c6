"""Git commits as evidence, read with the `git` command line (never reimplemented).

`read_git(repo, since=, until=, ctx=)` gives one `Session` (source_kind "git") with one
`commit` event per commit whose author or committer date lies in the window, oldest first:
the commits of every local and remote-tracking branch, of HEAD and of every reflog entry
(`git log --date-order --branches --remotes HEAD --reflog`), not one revision (parents
before children). Each commit's payload is a `CommitInfo` with what only a repository can
say: the branches whose history holds it (`[]`: reachable only from a reflog, an amended or
rebased-away commit; `None` when one revision is read), its `git patch-id --stable`, and
what a partial clone lacks.
Each commit's evidence is the exact stdout of

    git -C <repo> <GIT_SHOW_ARGS...> <sha>

i.e. `git <_run.STABLE> show --no-color --no-ext-diff --no-textconv --format=raw --patch -M
--full-index <sha>`, where `_run.STABLE` sets to git's defaults, with `-c`, every setting of a
user's config that changes those bytes: the names and prefixes of the files (core.quotepath,
diff.noprefix, diff.mnemonicPrefix, diff.srcPrefix/dstPrefix, diff.relative), the hunks
(diff.context, diff.interHunkContext, diff.indentHeuristic, diff.algorithm=myers,
diff.suppressBlankEmpty), the files' order (no diff.orderFile), submodules (diff.submodule,
diff.ignoreSubmodules)
and log.showSignature. `byte_length` is its length and `sha256` its hash, so anyone can re-run
it and compare (the same git version gives the same bytes, whatever the user's config). The evidence source is
`git:<repo dir name>@<sha>`, line None, offset 0; the session lists the same name as one
of its `files` (kind "git", abs_path the repository), with that length and hash.

A partial clone may lack a blob the diff needs. git is never let fetch it (no lazy fetch, no
transport allowed: `_run.NO_FETCH_ENV`); the commit is read as `git show --format=raw --raw
--no-renames --no-abbrev` instead (its files and blob ids; evidence `git:<repo>@<sha>:raw`),
or, if a tree is missing too, as `--no-patch` (`git:<repo>@<sha>:header`); the missing objects
are named in `CommitInfo.missing` and a `git_missing_object` warning, and the retrace goes on.
`GitLookup` answers the timeline's questions about commits a log names (a short sha resolved,
the patch id of a branch squashed onto another).

`GitSource` (`source`) is the registered source: it reads its own evidence back for `forsy
verify`. `read_patch(path, ctx)` reads a `git format-patch` mbox (one or more patches) or a plain
unified diff and gives commit events with what the file holds (file evidence with lines).

The commit's actor is "human:git": whether an agent made it is decided by `timeline.merge`.
"""

from __future__ import annotations

from ._diff import parse_diff
from ._patch import read_patch
from ._read import read_git
from ._refs import GitLookup
from ._run import GIT_SHOW_ARGS, parse_when, show_bytes
from .source import GitSource

__all__ = [
    "GIT_SHOW_ARGS", "GitLookup", "GitSource", "parse_diff", "parse_when", "read_git", "read_patch",
    "show_bytes",
]  # fmt: skip
