"""Session files anywhere under a directory the user names, not only where an agent puts them.

Each source's own `discover(dir)` knows its agent's layout (Claude Code's projects folder
and session directories, Codex's dated folders, Cline's task folders…), but only from the
folder it is given. A folder of collected logs (an archive, a repository's fixtures, a
download of several agents' logs) holds them deeper, and before this walk `forsy retrace
DIR` read the sessions at the top and left the rest without a word.

The walk asks every source's `discover` at the named folder, and the sources that do not
search below it themselves (`searches_below`) again at each subfolder, down to `MAX_DEPTH`.
Asking the sources (rather than sniffing every file) keeps their rules about which files
are sessions and which are parts of one (a Claude session's `subagents/`, Gemini's
`logs.json`, Cline's `ui_messages.json`); a file found twice is read once. A session's
folder (`<stem>/` next to a found `<stem>.jsonl`) is not entered, and files beside a found
session are taken as its agent's (metadata, parts), not reported, unless another source sniffs
them as its own, or their source keeps no parts beside its sessions (`parts_beside` False: a
shell history beside another is a session too); then they are read. One that bears the name that
agent gives its logs (`log_names`: Goose's `sessions.db`) and that no source reads (a damaged
store) is said, as a log no source reads. What the walk skips, it says:

* folders whose name starts with a dot, and `VENDOR` folders (dependencies, caches, VCS
  data); a home folder is searched only where the agents keep their logs;
* files that look like logs (`LOG_SUFFIXES`, or a name a source declares: `log_name`) in a
  folder where no source's layout found a session: read by the first source that sniffs them
  as its own (as `forsy retrace FILE` would) unless they are a part of a session (in a
  session's own `<id>/` folder, above a session that source found, or one its source
  declares with `session_of`), else counted in `Discovery.unrecognised` for the caller to
  report;
* copies of a log left beside it (`copy_of_log`: a backup, a half-written temporary file):
  not read, since they hold the same work again or a part of it; named when a source sniffs
  them as its own, so that `forsy retrace` can be given one by name;
* a log kept compressed (`session.jsonl.gz`, `.bz2`, `.xz`, `.zip`, `.7z`): not read, named with
  what its first bytes say (its compression and the command that gives the log back);
* trace folders forsy wrote (`-o` inside the tree), named once as forsy's output;
* folders deeper than `MAX_DEPTH`, and the rest of the tree once `MAX_DIRS` folders were
  listed: `Discovery.not_searched` names them (the first of each), for the caller to report.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ForsyError, InputError
from ..folders import forsy_manifest
from .lines import sniffs
from .listing import NOT_READ, collecting_unlisted

if TYPE_CHECKING:
    from . import Source

MAX_DEPTH = 16
MAX_DIRS = 20_000
VENDOR = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "dist", "build", "target"})
# suffixes of files a user may expect forsy to read; anything else is not mentioned
LOG_SUFFIXES = (".jsonl", ".json", ".cast", ".zst", "_history", ".history")
# A log's name with more after it: a copy left beside the log by its agent (Gemini CLI keeps a
# chat it could not reload as `<file>.unreadable-<ms>` and writes `<file>.tmp-<pid>` before
# renaming it into place) or by a person (`.bak`, `.orig`, `.1`, `~`). A name ending in `.md` is
# a document (Aider's `.aider.chat.history.md` is a log of its own), not a copy.
_COPY = re.compile(r"(?:\.jsonl|\.json|\.cast|_history|\.history)(?!.*\.md$)[.~]")
NOT_READ_LOG = NOT_READ  # how the reason for a file left unread starts (a copy, a compressed log, a locked one)
COPY_NOT_READ = (f"{NOT_READ_LOG}a copy left beside a log (a backup or a temporary file), holding its work again "
                 "or a part of it; name it to retrace it")
# a log kept compressed (`session.jsonl.gz`): named, with how to give forsy the log inside
_PACKED_LOG = re.compile(r"(?:\.jsonl|\.json|\.cast|_history|\.history)\.(?:gz|bz2|xz|zip|7z)$")


def log_name(name: str, sources: list[Source]) -> bool:
    """A file name a log may have: a log suffix, or a name a source says is its log's with no
    suffix to tell it (`log_names`: OpenHands' app server writes events with no extension)."""
    return name.endswith(LOG_SUFFIXES) or _declared(name, sources)


def _declared(name: str, sources: list[Source]) -> bool:
    """A name one of `sources` declares as its logs' (`log_names`), not only a log's suffix."""
    return any((pattern := getattr(src, "log_names", None)) is not None and pattern.match(name) for src in sources)


def _packed(path: Path) -> str:
    """What a compressed log's first bytes say it is (`base.describe_head`: its compression and
    the command that gives the log back)."""
    from .base import describe_head, read_head

    try:
        return describe_head(read_head(path))
    except (ForsyError, OSError) as e:
        return f"a compressed log that could not be opened ({e})"


def packed_log(name: str) -> bool:
    """Whether a file's name is a log's name with a compression suffix (see `_PACKED_LOG`)."""
    return _PACKED_LOG.search(name) is not None


def copy_of_log(name: str) -> bool:
    """Whether a file's name is a log's name with more after it (see `_COPY`)."""
    return not name.endswith(LOG_SUFFIXES) and _COPY.search(name) is not None


@dataclass
class Discovery:
    found: list[tuple[Source, Path]] = field(default_factory=list)
    unrecognised: list[Path] = field(default_factory=list)  # log-like files no source reads
    not_searched: list[tuple[Path, str]] = field(default_factory=list)  # (folder, why)


def _is_home(d: Path) -> bool:
    try:
        return d.resolve() == Path.home().resolve()
    except (OSError, RuntimeError):
        return False


def discover_tree(root: Path, available: list[Source]) -> Discovery:
    """Every session file under `root` by the sources' own rules, searched level by level."""
    out = Discovery()
    candidates: list[Path] = []
    copies: list[Path] = []  # copy_of_log: named when a source sniffs them
    seen: set[Path] = set()
    listed = 0
    deep_said = False  # the depth limit is reported once, with the first folder it left out

    beside: dict[str, set[str]] = {}  # folder -> the sources that found a session file in it
    session_dirs: set[str] = set()  # `<dir>/<stem>/` next to a found `<dir>/<stem>.<ext>`: its parts too
    shallow = [s for s in available if not getattr(s, "searches_below", False)]
    layout_failed: list[int] = []  # places in `not_searched` of a source's layout that failed
    unreadable: list[Path] = []  # the folders that could not be listed (by a layout or by the walk), each once
    layout_dirs: list[Path] = []  # folders below a searched one where a source's layout failed
    layouts_entered: set[Path] = set()
    unread_files: list[tuple[Path, str]] = []  # files that may not be read: sessions, for all the walk knows

    def not_listed(folder: Path, why: str) -> None:
        """A folder that could not be listed, named once whoever met it."""
        if folder not in unreadable:
            unreadable.append(folder)
            out.not_searched.append((folder, f"not searched: {why}"))

    def structural(d: Path, asked: list[Source]) -> list[tuple[Source, Path]]:
        hits: list[tuple[Source, Path]] = []
        for src in asked:
            try:
                with collecting_unlisted() as missed:
                    offered = src.discover(d)
            except (OSError, ForsyError) as err:
                # one folder it could not read (left by `sudo`, say) must not hide the rest: say
                # so, and ask this source again in each subfolder, where the walk names the
                # folder that cannot be read
                why = err.message if isinstance(err, ForsyError) else (err.strerror or str(err))
                layout_failed.append(len(out.not_searched))
                out.not_searched.append((d, f"not searched as {src.name}'s layout: {why}; its folders are "
                                            "searched one by one"))
                if src not in shallow:
                    shallow.append(src)
                # the folder the layout failed in, when below `d` (`.claude/projects`, which
                # the walk, skipping hidden folders, would not enter): searched one by one too
                at = Path(err.path) if isinstance(err, ForsyError) and err.path else None
                if at is not None and at != d and at.is_relative_to(d) and at not in layouts_entered:
                    layouts_entered.add(at)
                    layout_dirs.append(at)
                continue
            for folder, why in missed:  # below its layout, what it could not list: said with what it found
                if why.startswith(NOT_READ_LOG):  # a file it could not read (`listing.unread`): said below
                    unread_files.append((folder, why))
                else:
                    not_listed(folder, why)
            for f in offered:
                key = Path(os.path.abspath(f))
                if key in seen or not _is_its(src, f, available):
                    continue
                seen.add(key)
                hits.append((src, f))
                beside.setdefault(str(key.parent), set()).add(src.name)
                session_dirs.add(str(key.parent / key.name.split(".")[0]))
        return hits

    out.found.extend(structural(root, available))  # a source that `searches_below` is asked here only
    # a stack: depth first, in name order; a home folder is not walked, only the agents' own
    # folders are searched (their discover knows them, or a failed layout names one above)
    todo: list[tuple[Path, int]] = [] if _is_home(root) else [(root, 0)]
    while todo or layout_dirs:
        if layout_dirs:  # entered next, as the walk would a subfolder
            at = layout_dirs.pop()
            todo.append((at, len(at.relative_to(root).parts)))
        d, depth = todo.pop()
        listed += 1
        if listed > MAX_DIRS:
            out.not_searched.append((d, f"not searched: forsy stops looking after {MAX_DIRS:,} folders "
                                        "(name a narrower folder)"))
            break
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as err:
            if depth == 0:
                raise InputError("permission denied" if isinstance(err, PermissionError)
                                 else (err.strerror or str(err)), path=d) from None
            not_listed(d, err.strerror or str(err))
            continue
        if depth > 0:  # after the listing: a folder that cannot be listed is said once, above
            out.found.extend(structural(d, shallow))
        subs: list[tuple[Path, int]] = []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name.startswith(".") or e.name in VENDOR:
                        continue
                    if depth + 1 > MAX_DEPTH:
                        if not deep_said:
                            deep_said = True
                            out.not_searched.append((Path(e.path), f"not searched: deeper than {MAX_DEPTH} "
                                                                   "folders below the named one (name it directly)"))
                        continue
                    if _forsy_output(Path(e.path)):
                        out.not_searched.append((Path(e.path), FORSY_OUTPUT))
                    elif os.path.abspath(e.path) not in session_dirs:
                        subs.append((Path(e.path), depth + 1))
                elif e.is_symlink() and e.is_dir(follow_symlinks=True):
                    if not e.name.startswith("."):
                        out.not_searched.append((Path(e.path), "not searched: a link to a folder (not followed, "
                                                               "so no folder is read twice; name it directly)"))
                elif log_name(e.name, available):
                    # a FIFO or a broken link is never a found session's part: reported even beside one
                    if e.is_symlink() and not os.path.exists(e.path):
                        out.not_searched.append((Path(e.path), "not read: a link to nothing"))
                    elif not e.is_file(follow_symlinks=True):
                        out.not_searched.append((Path(e.path), "not read: not a regular file"))
                    else:  # beside a session found: a part of it, unless its source has none (below)
                        candidates.append(Path(e.path))
                elif packed_log(e.name) and e.is_file(follow_symlinks=False):
                    out.not_searched.append((Path(e.path), f"{NOT_READ_LOG}{_packed(Path(e.path))}"))
                elif copy_of_log(e.name) and e.is_file(follow_symlinks=False):
                    copies.append(Path(e.path))
            except OSError as err:
                out.not_searched.append((Path(e.path), f"not searched: {err.strerror or err}"))
        todo.extend(reversed(subs))
    _drop_named(out, layout_failed, unreadable)
    # A log-like file that is no session found, in a folder holding none: read by the first
    # source that sniffs it as its own, as `forsy retrace FILE` would (a source's layout rules
    # did not offer it, but skipping it would lose it without a word), unless it is a part of
    # a session (`_a_part`); reported when no source sniffs it.
    found_in: dict[str, set[str]] = {}  # source -> the folders holding a session it found, and theirs
    for src, f in out.found:
        found_in.setdefault(src.name, set()).update(str(d) for d in Path(os.path.abspath(f)).parents)
    for p in candidates:
        if Path(os.path.abspath(p)) in seen:
            continue
        sniffers = _sniffed_by(p, available)
        here = beside.get(os.path.abspath(p.parent))
        # the sources that sniff it, and those that found a session beside it (a Cline session's
        # compacted view looks like an OpenAI chat: Cline says whose part it is)
        asked = (sniffers or available) + [s for s in available if s.name in (here or ()) and s not in (sniffers or [])]
        owner = session_of(p, asked)
        if owner is not None and Path(os.path.abspath(owner)) in seen:
            continue  # a part of a session found, by its source's rule (OpenHands' event cache, state files)
        if sniffers is None:  # its head may not be read: a session of its own as likely as a part, said
            unread_files.append((p, f"{NOT_READ_LOG}{_unread_why(p)}"))
            continue
        # beside a session found, a file is its agent's (settings, caches: not reported) or, when
        # the source that found the session sniffs it, the session's part (Cline's task files,
        # Aider's input history), unless that source keeps nothing beside its sessions
        # (`parts_beside` False: a shell history is whole, whatever lies beside it)
        with_parts = [s for s in sniffers or [] if getattr(s, "parts_beside", True)]
        if here is not None and not sniffers and _declared(p.name, [s for s in available if s.name in here]):
            out.unrecognised.append(p)  # named as that agent names its logs (a damaged store): said, not taken
            continue
        if here is not None and (not sniffers or any(s.name in here for s in with_parts)):
            continue
        if not sniffers:
            out.unrecognised.append(p)
        elif not _a_part(Path(os.path.abspath(p)), [found_in.get(s.name, set()) for s in with_parts]):
            seen.add(Path(os.path.abspath(p)))
            out.found.append((sniffers[0], p))
    _say_unread(out, unread_files, seen, available, beside)
    out.not_searched += [(p, COPY_NOT_READ) for p in copies
                         if Path(os.path.abspath(p)) not in seen and _sniffed_by(p, available)]
    return out


def _drop_named(out: Discovery, layout_failed: list[int], unreadable: list[Path]) -> None:
    """A source's layout that failed in a folder because the walk met, at or below it, a folder
    it could not list: that folder is named by the walk, and the layout's failure said again
    (once per source) would count one folder as several skipped. Kept when the walk named none
    (the unreadable folder is one it does not enter, such as a hidden one)."""
    drop = {i for i in layout_failed
            if any(u == out.not_searched[i][0] or u.is_relative_to(out.not_searched[i][0]) for u in unreadable)}
    out.not_searched[:] = [e for i, e in enumerate(out.not_searched) if i not in drop]


def _say_unread(out: Discovery, files: list[tuple[Path, str]], seen: set[Path], available: list[Source],
                beside: dict[str, set[str]]) -> None:
    """The files that may not be read, each named once, but those read all the same (found:
    their reading fails, naming them) and those a session found reads as its part (a source's
    `session_of`, or a name among the `companions` of the source that found a session beside
    it): its reader names them with that session."""
    said = {Path(os.path.abspath(p)) for p, _ in out.not_searched}
    for p, why in files:
        key = Path(os.path.abspath(p))
        if key in seen or key in said or _companion(key, available, beside):
            continue
        owner = session_of(p, available)
        if owner is not None and Path(os.path.abspath(owner)) in seen:
            continue
        said.add(key)
        out.not_searched.append((p, why))


def _companion(p: Path, available: list[Source], beside: dict[str, set[str]]) -> bool:
    """Whether a source that found a session in the folder of `p` reads a file of its name with
    it (`companions`)."""
    here = beside.get(str(p.parent), set())
    return any(p.name in getattr(src, "companions", ()) for src in available if src.name in here)


def _unread_why(p: Path) -> str:
    """Why the head of `p` could not be read."""
    from .base import read_head

    try:
        read_head(p)
    except InputError as e:
        return e.message
    except OSError as e:
        return e.strerror or str(e)
    return "its head could not be read"


def session_of(p: Path, sources: list[Source]) -> Path | None:
    """The session file a source says `p` is a part of (its optional `session_of`: read with
    that session, or its state), or None. A part of a session found is neither read alone
    nor reported; one whose session was not found is, as any other file."""
    for src in sources:
        owner = getattr(src, "session_of", None)
        try:
            found = owner(p) if owner is not None else None
        except OSError:
            continue
        if found is not None:
            return Path(found)
    return None


def _a_part(p: Path, found_in: list[set[str]]) -> bool:
    """A file its sniffing source takes for a part of a session: it lies in a folder where (or
    below which) that source found a session (Gemini's `logs.json` above its `chats/`), or in
    a session's own folder (`<id>/` beside `<id>.jsonl`, up to SESSION_FOLDER_DEPTH folders
    up: Claude Code's subagents and tool results), also when that folder is the root searched."""
    if any(str(p.parent) in folders for folders in found_in):
        return True
    for d in list(p.parents)[:SESSION_FOLDER_DEPTH]:
        try:
            if d.parent != d and (d.parent / (d.name + ".jsonl")).is_file():
                return True
        except OSError:
            continue
    return False


SESSION_FOLDER_DEPTH = 3  # `<id>/subagents/agent-x.jsonl`, `<id>/subagents/<agent>/…`


FORSY_OUTPUT = "not searched: a trace folder forsy wrote (its output, not a log)"


def _forsy_output(d: Path) -> bool:
    """A trace folder forsy wrote (`-o` inside the tree it read): trace.json beside a manifest.json
    that names forsy as its generator. Its files are forsy's output, never a log to read."""

    manifest = d / "manifest.json"
    try:
        if not (manifest.is_file() and (d / "trace.json").is_file()) or manifest.stat().st_size > 16 << 20:
            return False
    except OSError:
        return False
    return forsy_manifest(d) is not None


def _is_its(src: Source, f: Path, available: list[Source]) -> bool:
    """Is a file `src.discover` offered really `src`'s? Some sources take every `*.jsonl` of
    a folder that has their layout; in a folder of another agent's logs (a Codex day folder
    holds a session and its subagents' rollouts) that would read one file twice, once as
    the wrong kind. A file another source sniffs as its own is left to that source (found
    by its discover, or a part of a session it found). One that nobody sniffs stays
    `src`'s: reading it says what is wrong with it (a damaged session fails loudly)."""
    if _part_of_another(src, f, available):
        return False
    got = _sniffed_by(f, available)
    return got is None or src in got or not got  # unreadable: reading it reports why


def _part_of_another(src: Source, f: Path, available: list[Source]) -> bool:
    """Whether another source says `f` is a part of one of its sessions (its `session_of`): a
    file of one agent's session (Cline's compacted view, `<id>.compaction.json`) may look like
    another format's whole log (a chat with `messages`), and is read with its session."""
    for other in available:
        owner = getattr(other, "session_of", None) if other is not src else None
        try:
            if owner is not None and owner(f) is not None:
                return True
        except OSError:
            continue
    return False


def _sniffed_by(p: Path, available: list[Source]) -> list[Source] | None:
    """The sources that sniff `p` as their own; None when its head cannot be read."""
    from . import read_head

    try:
        head = read_head(p)
    except (OSError, InputError):
        return None
    return [src for src in available if sniffs(src.sniff, p, head)]
