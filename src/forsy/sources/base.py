"""What a source is (`Source`, `ReadsBack`, the `ReadContext` every reader is given) and the
registry that finds one: the built-in sources and the `forsy.sources` entry points, loaded
by name (`load`), all of them (`available`), or the one that reads a file (`detect`)."""


from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from ..errors import InputError, UnsupportedFormat
from .lines import HEAD as HEAD_BYTES
from .lines import Limits, open_regular, refuse_utf16, sniffs

if TYPE_CHECKING:
    from ..evidence import Session


BUILTIN: dict[str, str] = {
    "claude_code": "forsy.sources.claude_code:ClaudeCodeSource",
    "codex": "forsy.sources.codex:CodexSource",
    "shell": "forsy.sources.shell:ShellHistorySource",
    "git": "forsy.sources.git:GitSource",
    "gemini": "forsy.sources.gemini:GeminiSource",
    "qwen_code": "forsy.sources.qwen_code:QwenCodeSource",
    "openhands": "forsy.sources.openhands:OpenHandsSource",
    # before Cline's: a Roo Code or Kilo Code task folder has Cline's file names (roo_code's sniff
    # takes only the folders it can tell apart; the rest are Cline's)
    "roo_code": "forsy.sources.roo_code:RooCodeSource",
    "cline": "forsy.sources.cline:ClineSource",
    "aider": "forsy.sources.aider:AiderSource",
    "asciinema": "forsy.sources.asciinema:AsciinemaSource",
    "invariant": "forsy.sources.invariant:InvariantSource",
    "mini_swe_agent": "forsy.sources.mini_swe_agent:MiniSweAgentSource",
    "opencode": "forsy.sources.opencode:OpenCodeSource",
    "copilot_cli": "forsy.sources.copilot_cli:CopilotCliSource",
    "goose": "forsy.sources.goose:GooseSource",
    "openai_chat": "forsy.sources.openai_chat:OpenAIChatSource",
    "atif": "forsy.sources.atif:AtifSource",
    "forsy_v1": "forsy.sources.forsy_v1:ForsyV1Source",
}


@dataclass
class ReadContext:
    """Options every source may use."""

    root: Path | None = None  # evidence paths are made relative to this
    debug: bool = False
    extra: dict[str, object] = field(default_factory=dict)
    # how much one input may cost (file size, zstd expansion): `lines` module docstring
    limits: Limits = field(default_factory=Limits.from_env)


class Source(Protocol):
    """A reader of one agent's logs. Optional, read with getattr where used: `searches_below`
    (its discover looks below the folder it is given: sources.walk), `default_roots` and
    `env_roots` (HasRoots: where its agent writes), `log_names` (a pattern of its logs' names
    that no suffix tells), `session_of(path)` (the session file a part of a session belongs
    to: sources.walk.session_of), `parts_beside` (False: no file beside its sessions is a part of
    one, so the walk reads what it sniffs there: sources.walk), `companions` (names of files
    beside its session file that its reader reads with it, and names when they may not be read:
    the walk does not name them again)."""

    name: ClassVar[str]

    def sniff(self, path: Path, head: bytes) -> bool: ...

    def discover(self, path: Path) -> list[Path]: ...

    def read(self, path: Path, ctx: ReadContext) -> list[Session]: ...


class HasRoots(Protocol):
    """A source that knows where its agent writes on this machine (`forsy sweep` with no
    roots): folders under the home folder, and the folders its agent's own variables name
    (as the agent resolves them; a variable set but blank is unset)."""

    default_roots: ClassVar[tuple[str, ...]]  # relative to the home folder

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]: ...


class ReadsBack(Protocol):
    """A source whose evidence names are not plain file paths (`git:<repo>@<sha>`,
    `atuin:<db>#<row>`) reads its own evidence back for `forsy verify`."""

    schemes: ClassVar[tuple[str, ...]]  # evidence-name prefixes this source owns

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None: ...


def read_back(name: str, roots: Sequence[Path]) -> bytes | None:
    """The bytes of evidence `name` re-read by the source that owns its scheme; None when no
    source owns it or the source cannot find it under `roots`. Plain file names are the
    caller's (verify reads them itself)."""
    for src in available():
        schemes: tuple[str, ...] = getattr(src, "schemes", ())
        if any(name.startswith(s) for s in schemes):
            return cast("ReadsBack", src).read_back(name, roots)
    return None


def has_scheme(name: str) -> bool:
    return any(name.startswith(s) for src in available() for s in getattr(src, "schemes", ()))


def registry() -> dict[str, str]:
    reg = dict(BUILTIN)
    for name, value in _plugins():
        reg.setdefault(name, value)
    return reg


@functools.cache
def _plugins() -> tuple[tuple[str, str], ...]:
    """The `forsy.sources` entry points, read once per process: the scan walks every installed
    package's metadata (~0.1–0.5 s), and reading asks the registry once per file."""
    return tuple((ep.name, ep.value) for ep in entry_points(group="forsy.sources"))


def load(name: str) -> Source:
    # a built-in is found without the plugins' scan (a plugin cannot take a built-in's name)
    target = BUILTIN.get(name) or registry().get(name)
    if target is None:
        raise InputError(f"unknown source {name!r}; known: {', '.join(sorted(registry()))}")
    mod_name, _, cls_name = target.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        raise InputError(f"source {name!r} is not available ({e})") from None
    cls = getattr(mod, cls_name)
    src: Source = cls()
    return src


def available() -> list[Source]:
    return list(_each_available())


def _each_available() -> Iterator[Source]:
    """The sources of `available()`, in its order, each loaded when it is reached: a file the
    first ones read imports none of the others, nor scans the installed packages for plugins
    (on a session of a few MB, a fifth of the run)."""
    for name in _names():
        try:
            yield load(name)
        except InputError:
            continue


def _names() -> Iterator[str]:
    """The registry's names in its order, the plugins' asked for only when they are reached."""
    yield from BUILTIN
    yield from (name for name in registry() if name not in BUILTIN)


def read_head(path: Path) -> bytes:
    """The first HEAD_BYTES of a regular file (a FIFO or device is an InputError)."""
    with open_regular(path) as f:
        try:
            return f.read(HEAD_BYTES)
        except OSError as e:
            raise InputError(e.strerror or str(e), path=path) from None


def detect(path: Path) -> Source:
    """The source that reads this file, or UnsupportedFormat naming what was seen."""
    head = read_head(path)
    refuse_utf16(path, head)  # no sniff takes it, and "binary data" would not say what to do
    for src in _each_available():
        if sniffs(src.sniff, path, head):
            return src
    for src in available():  # a file a source knows for another program's (a `.python_history`): named
        why = getattr(src, "another_programs", None)
        said = why(path, head) if why is not None else None
        if said:
            raise UnsupportedFormat(said, path=path)
    what = describe_head(head)
    raise UnsupportedFormat(
        f"not a log format forsy reads ({what}); supported: {', '.join(sorted(registry()))}",
        path=path,
    )


# archives and compressed files by their first bytes, with the command that gives the log back
_PACKED: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip", "gunzip -k"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd -d"),
    (b"BZh", "bzip2", "bunzip2 -k"),
    (b"\xfd7zXZ\x00", "xz", "unxz -k"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", "7z", "7z x"),
)


def describe_head(head: bytes) -> str:
    if not head:
        return "empty file"
    for magic, kind, command in _PACKED:
        if head.startswith(magic):
            return f"{kind}-compressed: decompress it first, e.g. {command} FILE"
    if b"\x00" in head[:1024] and not head.lstrip().startswith((b"{", b"[")):
        return "binary data"
    text = head[:200].decode("utf-8", "replace").strip().splitlines()
    first = text[0][:60] if text else ""
    return f"starts with {first!r}"
