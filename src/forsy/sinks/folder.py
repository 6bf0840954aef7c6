"""The Forsy trace folder: trace.json, manifest.json, provenance.json, artifacts/, README.md.

Written atomically: the folder is assembled beside its destination and swapped into place
(`renameat2(RENAME_EXCHANGE)` on Linux, two renames elsewhere), so a crash or SIGKILL
mid-run leaves the previous folder or the new one, never a half-written one. Output is
byte-identical for the same input: no wall-clock time, fixed key order, fixed formatting.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path, PurePath
from typing import Any

import orjson

from .._aside import aside
from .._atomic import fsync_all
from ..assemble import Assembled
from ..errors import OutputError
from ..evidence import Session
from ..folders import forsy_manifest as forsy_manifest
from ..markdown import inline
from ..models import Provenance, Trace


def card_title(a: Assembled) -> str:
    """The card's title: `dataset_summary.title` (assemble cuts the task at a word boundary)."""
    return a.trace.dataset_summary.title


def _yaml_str(text: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one)."""
    return orjson.dumps(text).decode()


def front_matter(a: Assembled) -> list[str]:
    """Hugging Face dataset-card metadata (YAML between `---` lines). The licence of a log is
    not known to forsy: `license: other` with `license_name: unknown`, and the card says so."""
    t = a.trace
    tags = ["forsy", "agent-trace", *t.dataset_summary.tags]
    out = ["---", "license: other", "license_name: unknown", f"pretty_name: {_yaml_str(card_title(a))}", "tags:"]
    out += [f"- {_yaml_str(tag)}" for tag in dict.fromkeys(tags)]
    out += ["task_categories:", "- text-generation", "size_categories:", "- n<1K", "---", ""]
    return out


def readme(a: Assembled) -> str:
    t, m = a.trace, a.manifest
    ds = t.dataset_summary
    lines = [
        *front_matter(a),
        f"# {inline(card_title(a))}",  # log text: shown as written, never as markup
        "",
        inline(ds.description),
        "",
        "| | |",
        "|---|---|",
        f"| trace id | `{t.trace_id}` |",
        f"| format | {t.schema_version} |",
        f"| trace mode | {t.trace_mode} |",
        f"| validation level | {t.validation_level} |",
        f"| release tier | {ds.release_tier} |",
        f"| steps / turns | {t.summary.total_steps} / {t.summary.total_turns} |",
        f"| agent confidence | {t.summary.agent_confidence} (factors in manifest.json) |",
        f"| started / ended | {t.started_at or 'unknown'} / {t.ended_at or 'unknown'} |",
        f"| generator | forsy {m.generator.get('version')} ({m.generator.get('segmenter')}) |",
        "",
        "## Files",
        "",
        "- `trace.json`: the trace (forsy-trace-v0.1).",
        "- `manifest.json`: sources (with sha256), counts, warnings, redaction counts, confidence factors.",
        "- `provenance.json`: for every step and non-null field, whether it was copied from the log or "
        "derived by a named rule, with evidence ids (file, line, byte range, sha256).",
    ]
    if a.files:
        lines.append("- `artifacts/`: full tool outputs the agent saw only a preview of.")
    redaction = m.redaction or {}
    lines += ["", "## Known limits", ""]
    if redaction.get("enabled"):
        kinds = ", ".join(f"{k}: {v}" for k, v in sorted((redaction.get("by_kind") or {}).items())) or "none found"
        lines.append(f"- Secrets and personal data were masked with typed placeholders ({kinds}).")
    else:
        lines.append("- NOT REDACTED: this trace may contain secrets and personal data. Do not publish it.")
    lines.append("- Goal achievement was not assessed; fields no rule supports are null.")
    if m.warnings:
        lines.append(f"- {len(m.warnings)} reading warning(s); see manifest.json.")
    lines += ["", "Licence: unknown. The content's licence is that of the source log, which forsy cannot know "
              "(hence `license: other`, `license_name: unknown` above); this card makes no further claim.", ""]
    return "\n".join(lines)


def _producers(a: Assembled) -> list[tuple[str, Callable[[], Iterator[bytes]]]]:
    """Every file of the folder but the manifest, each produced only when it is written and in
    parts (trace.json and provenance.json a step at a time: no whole large document in memory)."""
    out: list[tuple[str, Callable[[], Iterator[bytes]]]] = [
        ("trace.json", lambda: model_json(a.trace)),
        ("provenance.json", lambda: model_json(a.provenance)),
        ("README.md", lambda: iter([readme(a).encode("utf-8")])),
    ]
    for rel, text in sorted(a.files.items()):
        out.append((rel, lambda text=text: iter([text.encode("utf-8", "surrogatepass")])))  # type: ignore[misc]
    return out


_STEPS = b'\n  "steps": ['  # a top-level key: JSON text holds no raw newline, so no value has this


def model_json(m: Trace | Provenance) -> Iterator[bytes]:
    """`m` as pydantic writes it with a 2-space indent and a final newline, in parts: the
    document with `steps: []` cut open, each step written alone and indented into its place
    (indenting is adding spaces after each newline), then the rest. tests/test_sink_chunks.py
    holds the joined parts to the whole document."""
    ser = m.__pydantic_serializer__
    steps: list[Any] = m.steps
    if not steps:
        yield ser.to_json(m, indent=2) + b"\n"
        return
    head = ser.to_json(m.model_copy(update={"steps": []}), indent=2)
    cut = head.index(_STEPS + b"]") + len(_STEPS)
    yield head[:cut]
    step_ser = steps[0].__pydantic_serializer__
    for i, step in enumerate(steps):
        yield (b",\n    " if i else b"\n    ") + _step_json(step_ser, step).replace(b"\n", b"\n    ")
    yield b"\n  " + head[cut:] + b"\n"


# A string pydantic writes keeps its UTF-8 copy for as long as the string lives (CPython caches
# it in the object when asked for it) unless it is ASCII: a large log's tool outputs are mostly
# not (box drawing, accents), and their copies were 21 MB of a 100 MB session's peak, held
# until the trace was dropped. A step's long non-ASCII texts are therefore written here, by the
# stdlib's JSON string encoder (the same escapes as pydantic's: tests/test_sink_chunks.py), into
# a place the step is written with a stand-in for each.
_LONG = 1024  # characters: shorter texts cost less than the detour
_STAND_IN = f"forsy-text-{os.urandom(8).hex()}-"


def _step_json(ser: Any, step: Any) -> bytes:
    texts = {k: v for k, v in step.__dict__.items() if type(v) is str and len(v) >= _LONG and not v.isascii()}
    if not texts:
        return bytes(ser.to_json(step, indent=2))
    out = bytes(ser.to_json(step.model_copy(update={k: _STAND_IN + k for k in texts}), indent=2))
    for k, v in texts.items():
        out = out.replace(f'"{_STAND_IN}{k}"'.encode(), encode_basestring(v).encode("utf-8"), 1)
    return out


def render(a: Assembled) -> dict[str, bytes]:
    """Every file of the folder, as bytes, manifest last (it lists the others' hashes)."""
    files = {name: b"".join(make()) for name, make in _producers(a)}
    a.manifest.files = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    files["manifest.json"] = a.manifest.model_dump_json(indent=2).encode() + b"\n"
    return files


@dataclass(frozen=True)
class Rendered:
    """A trace folder's files rendered where the trace was assembled (a worker process), with
    what a FolderSink needs to name and place them: the sink's process writes bytes, and
    neither unpickles the models nor renders them again (`FolderSink.write_rendered`)."""

    trace_id: str
    started_at: str | None
    source_kind: str
    session_id: str | None
    sources: tuple[str, ...]
    files: dict[str, bytes]  # every file, manifest.json last

    @classmethod
    def of(cls, a: Assembled) -> Rendered:
        files = render(a)
        m = a.manifest
        return cls(a.trace.trace_id, a.trace.started_at, m.source_kind, m.session_id,
                   tuple(s.path for s in m.sources), files)


def _write(path: Path, parts: Iterable[bytes]) -> str:
    """Write `parts` to `path` and return the sha256 of what was written; not yet flushed to
    disk: the folder's files are flushed together (fsync_all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    with open(path, "wb") as f:
        for data in parts:
            h.update(data)
            f.write(data)
    return h.hexdigest()


_NAME_PART = re.compile(r"[^A-Za-z0-9._-]+")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _name_part(text: str, limit: int = 32) -> str:
    return _NAME_PART.sub("-", text).strip("-.")[:limit].strip("-.")


def trace_name(session: Session, started_at: str | None = None, id_len: int = 8) -> str:
    """A trace folder's name, for a person to find it: agent, project, date, short session
    id (`id_len` characters of it), and the file's name when it is not the session id (a
    resumed or forked session's files share one id, and each is its own trace)."""
    parts = [_name_part(session.meta.agent or session.source_kind)]
    if session.meta.cwd:
        parts.append(_name_part(PurePath(session.meta.cwd.replace("\\", "/")).name))
    if started_at and _DATE.match(started_at):
        parts.append(_name_part(started_at[:10]))
    parts.append(_name_part(session.session_id, id_len))
    if session.files:
        stem = PurePath(session.files[0].path).name.split(".jsonl")[0]
        if session.session_id not in stem and stem not in session.session_id:
            parts.append(_name_part(stem))
    return "-".join(p for p in parts if p) or "trace"


class FolderSink:
    """One trace folder per session: `out` itself (`parent=False`, one session given) or
    `out/<trace_name>` (a directory or several sessions). Two traces never share a folder:
    when the short name is taken (another trace of this run, or another trace's folder on
    disk), the name grows (the whole session id, then the trace id) instead of replacing
    anything; a folder of another trace is never replaced (`check_destination`)."""

    def __init__(self, out: Path, *, parent: bool) -> None:
        self.out = out
        self.parent = parent
        self._written: dict[Path, str] = {}

    def several(self) -> None:
        """More than one trace is coming from what was given as one session: `out` becomes
        their parent (before anything was written into it as a trace folder)."""
        if not self._written:
            self.parent = True

    def candidates(self, a: Assembled, session: Session) -> list[Path]:
        return self._candidates(a.trace.trace_id, a.trace.started_at, session)

    def _candidates(self, tid: str, started_at: str | None, session: Session) -> list[Path]:
        if not self.parent:
            return [self.out]
        short = trace_name(session, started_at)
        longer = trace_name(session, started_at, id_len=64)  # the whole session id
        return list(dict.fromkeys([self.out / short, self.out / longer,
                                   self.out / f"{longer}-{tid.removeprefix('forsy_')[:12]}"]))

    def write(self, a: Assembled, session: Session) -> str:
        m = a.manifest
        return self._place(a.trace.trace_id, a.trace.started_at, session,
                           (m.source_kind, m.session_id, [s.path for s in m.sources]),
                           lambda dest: write_folder(a, dest))

    def write_rendered(self, r: Rendered, session: Session) -> str:
        """`write` for a trace rendered elsewhere (a worker process): the same folder, named
        and placed the same way, byte for byte."""
        return self._place(r.trace_id, r.started_at, session, (r.source_kind, r.session_id, list(r.sources)),
                           lambda dest: write_rendered_folder(r, dest))

    def _place(self, tid: str, started_at: str | None, session: Session, source: _Source,
               write: Callable[[Path], Path]) -> str:
        cands = self._candidates(tid, started_at, session)
        for i, dest in enumerate(cands):
            last = i == len(cands) - 1
            if self._written.get(dest, tid) != tid:
                if last:
                    raise OutputError(f"another trace of this run ({self._written[dest]}) was written to this "
                                      "folder; refusing to replace it", path=dest)
                continue
            if not last and self.parent and self._holds_another_trace(dest, source):
                continue
            folder = write(dest)
            self._written[dest] = tid
            return str(folder)
        raise AssertionError("unreachable: the last candidate either raises or is written")

    @staticmethod
    def _holds_another_trace(dest: Path, source: _Source) -> bool:
        owned = owned_trace_folder(Path(os.path.realpath(dest))) if dest.exists() else None
        return owned is not None and not owned.same_source(*source)


def write_folder(a: Assembled, dest: Path) -> Path:
    """Write `a` as a trace folder at `dest`, atomically.

    `dest` may be absent, an empty folder, or a trace folder forsy wrote for the same trace
    source (checked by `owned_trace_folder`); anything else is refused, never replaced. A
    symlink is followed: the folder is written where it points and the link stays.
    """
    def files(tmp: Path) -> list[str]:
        producers = dict(_producers(a))
        provenance = producers.pop("provenance.json")
        # a large trace's provenance.json is rendered and written by a child on the other core
        # (forsy._aside) while this process writes the rest; whatever the child cannot do is
        # done here, so the files are the same either way
        with aside(lambda: _write(tmp / "provenance.json", provenance()),
                   worth_it=len(a.provenance.steps) >= ASIDE_STEPS) as provenance_hash:
            hashes = {name: _write(tmp / name, make()) for name, make in producers.items()}
            hashes["provenance.json"] = provenance_hash()
        a.manifest.files = dict(sorted(hashes.items()))
        _write(tmp / "manifest.json", [a.manifest.model_dump_json(indent=2).encode() + b"\n"])
        return [*hashes, "manifest.json"]

    m = a.manifest
    return _write_atomically(dest, (m.source_kind, m.session_id, [s.path for s in m.sources]), files)


def write_rendered_folder(r: Rendered, dest: Path) -> Path:
    """`write_folder` for files rendered elsewhere (`Rendered`): the same checks and bytes."""
    def files(tmp: Path) -> list[str]:
        for name, data in r.files.items():
            _write(tmp / name, [data])
        return list(r.files)

    return _write_atomically(dest, (r.source_kind, r.session_id, list(r.sources)), files)


ASIDE_STEPS = 2000  # steps from which rendering provenance.json takes longer than forking a child for it
_Source = tuple[str, str | None, list[str]]  # what check_destination compares: kind, session id, files


def _write_atomically(dest: Path, source: _Source, files: Callable[[Path], list[str]]) -> Path:
    """The folder `files(tmp)` writes into a work folder beside `dest`, flushed, then swapped
    into place; `source` is what a folder already there must hold to be replaced."""
    dest = Path(os.path.realpath(dest))
    try:
        check_destination(dest, *source)  # before any folder is made on the way to it
        dest.parent.mkdir(parents=True, exist_ok=True)
        _clean_stale(dest)
    except OSError as e:
        raise OutputError(f"cannot write the trace folder: {e.strerror or e}", path=dest) from None
    tmp = dest.parent / f".{dest.name}.forsy-tmp-{os.getpid()}"
    try:
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
        written = files(tmp)
        fsync_all([tmp / name for name in written])  # on disk before the folder is in place
        _swap_into_place(tmp, dest)
    except OSError as e:
        # our work folder only (the destination is never in it): nothing half-written stays
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"cannot write the trace folder: {e.strerror or e}", path=dest) from None
    return dest


@dataclass(frozen=True)
class OwnedFolder:
    """A trace folder forsy wrote: what its manifest says it holds and came from."""

    source_kind: str
    session_id: str | None
    sources: tuple[str, ...]

    def same_source(self, source_kind: str, session_id: str | None, sources: list[str]) -> bool:
        """The same trace source: kind, session id and first source file (its other files, such as
        subagents, may come and go as the session grows)."""
        return (self.source_kind, self.session_id, self.sources[:1]) == (source_kind, session_id, tuple(sources[:1]))


def owned_trace_folder(folder: Path) -> OwnedFolder | None:
    """The folder's identity when it is exactly a trace folder forsy wrote, else None.

    Exactly: its manifest names forsy as generator and lists every other file with its
    sha256; the folder holds those files, unchanged, and nothing else (no extra file, no
    link, no edited file). Anything less is someone else's work and must not be replaced.
    """
    manifest = forsy_manifest(folder)
    files = manifest.get("files") if manifest is not None else None
    if manifest is None or not isinstance(files, dict) or not files:
        return None
    try:
        present: set[str] = set()
        for root, dirs, names in os.walk(folder):
            for d in dirs:
                if os.path.islink(os.path.join(root, d)):
                    return None
            for n in names:
                full = os.path.join(root, n)
                if os.path.islink(full):
                    return None
                present.add(os.path.relpath(full, folder).replace(os.sep, "/"))
        if present != set(files) | {"manifest.json"}:
            return None
        for rel, digest in files.items():
            if _file_sha256(folder / rel) != digest:
                return None
        sources = tuple(s.get("path") for s in manifest.get("sources") or [] if isinstance(s, dict))
    except (OSError, ValueError, AttributeError):
        return None
    return OwnedFolder(str(manifest.get("source_kind")), manifest.get("session_id"), sources)  # type: ignore[arg-type]


def _names(entries: list[str]) -> str:
    return ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")


def _forsy_files(folder: Path) -> list[str] | None:
    """The files a manifest.json forsy wrote lists in `folder` (None: no such manifest there)."""
    manifest = forsy_manifest(folder)
    files = manifest.get("files") if manifest is not None else None
    return [str(k) for k in files] if isinstance(files, dict) else None


def _is_trace_folder(folder: Path) -> bool:
    """A trace folder forsy wrote: its trace.json beside a manifest.json forsy wrote."""
    try:
        return (folder / "trace.json").is_file() and _forsy_files(folder) is not None
    except OSError:
        return False


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_destination(dest: Path, source_kind: str, session_id: str | None, sources: list[str]) -> None:
    """Refuse any destination whose replacement would destroy something forsy did not write
    for this very trace source, or that lies inside a trace folder (OutputError naming what is there)."""
    for up in dest.parents:
        if (up / "trace.json").is_file() and _forsy_files(up) is not None:
            raise OutputError(f"is inside the trace folder {up}, which forsy wrote: writing there would change "
                              "that trace; give -o a folder outside it", path=dest)
    if not dest.exists():
        return
    if not dest.is_dir():
        raise OutputError("destination exists and is not a folder; refusing to replace it", path=dest)
    if not any(dest.iterdir()):
        return
    owned = owned_trace_folder(dest)
    if owned is None:
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in dest.iterdir())
        listed = _forsy_files(dest)
        if listed is not None:  # forsy's manifest, and the folder changed since: say how
            tops = {name.split("/")[0] for name in listed} | {"manifest.json"}
            added = [e for e in entries if e.rstrip("/") not in tops]
            how = f"with files added since ({_names(added)})" if added else "changed since"
            raise OutputError(f"destination is a trace folder forsy wrote, {how}; refusing to replace it", path=dest)
        traces = [e for e in entries if e.endswith("/") and _is_trace_folder(dest / e.rstrip("/"))]
        others = [e for e in entries if e not in traces]
        if traces and not others:  # a parent of traces (`forsy retrace DIR -o dest`): one goes inside it
            mine = [t for t in traces if (o := owned_trace_folder(dest / t.rstrip("/"))) is not None
                    and o.same_source(source_kind, session_id, sources)]
            where = (f"this session's is {dest / mine[0].rstrip('/')}: give -o that folder to write it again"
                     if mine else f"give -o a new one inside it (-o {dest / 'NAME'})")
            raise OutputError(f"destination holds the trace folders of {len(traces)} session(s) ({_names(traces)}); "
                              f"refusing to replace it. For one session, -o names its own trace folder: {where}",
                              path=dest)
        what = (f"files forsy did not write ({_names(others)})" if not traces else
                f"files forsy did not write ({_names(others)}) and the trace folders of {len(traces)} "
                f"session(s) ({_names(traces)})")
        raise OutputError(f"destination holds {what}; refusing to replace it. "
                          "Give -o a new or empty folder, or a trace folder forsy wrote for this session",
                          path=dest)
    if not owned.same_source(source_kind, session_id, sources):
        raise OutputError(f"destination holds another trace (session {owned.session_id} from "
                          f"{', '.join(owned.sources[:1]) or 'unknown'}); refusing to replace it", path=dest)


_RENAME_EXCHANGE = 2


def _clean_stale(dest: Path) -> None:
    """Tidy what a killed run left beside `dest` (its process is gone): a work folder is
    removed; the previous folder moved aside by the two-rename swap (`.forsy-old-`) goes
    back to `dest` when the run died before the new folder took its place, and is removed
    only when `dest` holds the new one."""
    for p in sorted(dest.parent.glob(f".{dest.name}.forsy-*-*")):
        pid = p.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # still running: another forsy is writing there
        except ProcessLookupError:
            if ".forsy-old-" in p.name and not os.path.lexists(dest):
                os.rename(p, dest)
            else:
                shutil.rmtree(p, ignore_errors=True)
        except PermissionError:
            continue


def _swap_into_place(tmp: Path, dest: Path) -> None:
    if not dest.exists():
        os.rename(tmp, dest)
        return
    if _exchange(tmp, dest):
        # tmp now holds the previous folder: checked before writing, checked again here in case
        # something was put into it meanwhile (then it goes back, untouched, and we refuse)
        if any(tmp.iterdir()) and owned_trace_folder(tmp) is None:
            _exchange(tmp, dest)
            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError("destination changed while the trace was written; refusing to replace it", path=dest)
        shutil.rmtree(tmp, ignore_errors=True)  # the new folder is in place: tidying can fail harmlessly
        return
    # no renameat2 (not Linux, or an old kernel): two renames, and the previous folder goes
    # back whenever the second fails (or, after a kill, at the next write: _clean_stale)
    old = dest.parent / f".{dest.name}.forsy-old-{os.getpid()}"
    os.rename(dest, old)
    try:
        os.rename(tmp, dest)
    except OSError:
        os.rename(old, dest)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False when unsupported."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(rc == 0)
