"""Check a trace's copied values against the exact bytes of the logs it came from.

For every step field whose provenance says `copied` from one evidence record, re-read the
bytes at (source, byte offset, length), check their sha256, parse them, follow the JSON
pointer and compare with the value in trace.json. Values with redaction placeholders match
when every unredacted piece appears in order. Joined values (several records) must contain
each piece. This is what "anyone can check a copied value against the log" means in code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import sources
from .errors import InputError
from .evidence import resolve_pointer
from .jsontext import valid_value
from .sources.lines import inside
from .sources.walk import VENDOR

PLACEHOLDER = re.compile(r"\[[A-Z][A-Z0-9_]*\]")


@dataclass
class VerifyReport:
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    skipped: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _matches(value: str, source: str) -> bool:
    if value == source:
        return True
    if PLACEHOLDER.search(value):
        pieces = [p for p in PLACEHOLDER.split(value) if p]
        pos = 0
        for p in pieces:
            i = source.find(p, pos)
            if i < 0:
                return False
            pos = i + len(p)
        return True
    return False


def _as_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()


def _content_text(v: Any) -> str:
    """Tool-result content as text: strings as they are, text blocks (and the names of the tools
    a tool search found, `tool_reference` blocks) joined by newlines."""
    if isinstance(v, list):
        return "\n".join(t for b in v if isinstance(b, dict) and isinstance(t := _block_text(b), str))
    return _as_text(v)


def _block_text(b: dict[str, Any]) -> Any:
    if isinstance(b.get("text"), str):
        return b["text"]
    return b.get("tool_name") if b.get("type") == "tool_reference" else None


_UNDECODED = "\ufffd"  # what a file name's bytes that are not UTF-8 became in a trace's JSON
_PLACE_OR_UNDECODED = re.compile(f"{PLACEHOLDER.pattern}|{_UNDECODED}+")


WALK_LIMIT = 200_000  # files looked at below the roots for logs named from their own folder


class Sources:
    """The source logs under the given roots, read once each: plain files by name (inside the
    roots only), scheme names (git:, atuin:) by the source that owns them."""

    def __init__(self, roots: list[Path], sources: dict[str, str]):
        self.roots = roots
        self.sources = sources
        self.cache: dict[str, bytes] = {}
        self._index: dict[str, list[Path]] | None = None  # file name -> its paths below the roots

    def bytes_of(self, name: str) -> bytes | None:
        if name not in self.cache:
            # a name with a source's scheme (git:, atuin:) is read back by that source
            data = sources.read_back(name, self.roots) if sources.has_scheme(name) else self._file(name)
            if data is None:
                return None
            self.cache[name] = data
        return self.cache[name]

    def _file(self, name: str) -> bytes | None:
        for root in self.roots:
            p = inside(root, name)
            if p is not None and p.is_file():
                return p.read_bytes()
        if (PLACEHOLDER.search(name) or _UNDECODED in name) and name in self.sources:
            return self._redacted_name(name)
        return self._below(name)

    def _below(self, name: str) -> bytes | None:
        """A log whose name is relative to its own folder (a session file's evidence is named
        from the folder it is in), under a root given as a folder above it, as `forsy retrace
        DIR` was given: the file below a root whose path ends with the name and whose sha256 is
        the one recorded. Nothing is guessed: a file that does not hash right is not used."""
        digest = self.sources.get(name)
        if digest is None or name.startswith("/") or ".." in name.split("/"):
            return None
        for full in self._named(name.rsplit("/", 1)[-1]):
            if full.as_posix().endswith("/" + name) and full.is_file() and not full.is_symlink():
                data = full.read_bytes()
                if hashlib.sha256(data).hexdigest() == digest:
                    return data
        return None

    def _named(self, last: str) -> list[Path]:
        """The files below the roots called `last`; the roots are walked once, whatever the
        number of names looked for (a session with fifty subagent files)."""
        if self._index is None:
            self._index, seen = {}, 0
            for root in self.roots:
                for dirpath, dirs, files in os.walk(root.resolve()):  # links to folders are not followed
                    dirs[:] = [d for d in dirs if d not in VENDOR and d != ".git"]
                    seen += len(files)
                    if seen > WALK_LIMIT:  # a home folder given: say "not found" soon, not after minutes
                        return self._index.get(last, [])
                    for f in files:
                        self._index.setdefault(f, []).append(Path(dirpath) / f)
        return self._index.get(last, [])

    def _redacted_name(self, name: str) -> bytes | None:
        """A source whose name was redacted (a secret or a person's name in it), or held bytes
        that are not UTF-8 (written as U+FFFD in the trace): the file under the roots whose path
        fits the name around those parts and whose sha256 is the one recorded. Nothing is
        guessed: a file that does not hash right is not used."""
        pattern = re.compile(".+?".join(re.escape(p) for p in _PLACE_OR_UNDECODED.split(name)) + r"\Z")
        for root in self.roots:
            base = root.resolve()
            for dirpath, _dirs, files in os.walk(base):
                for f in files:
                    full = Path(dirpath) / f
                    rel = full.relative_to(base).as_posix()
                    if (pattern.match(rel) or pattern.match(f)) and full.is_file() and not full.is_symlink():
                        data = full.read_bytes()
                        if hashlib.sha256(data).hexdigest() == self.sources[name]:
                            return data
        return None


def verify_folder(folder: str | Path, source_roots: Sequence[str | Path]) -> VerifyReport:
    """Check every copied field of `folder`'s trace against the logs found under `source_roots`
    (folders, or the log files themselves)."""
    folder = Path(folder)
    roots = [Path(r).expanduser() for r in source_roots]
    try:
        trace = json.loads((folder / "trace.json").read_text("utf-8"))
        prov = json.loads((folder / "provenance.json").read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read trace folder: {e}", path=folder) from None
    # a log file given instead of its folder: evidence names are relative to the file's folder
    roots = [r.parent if r.is_file() else r for r in roots]
    src = Sources(roots, prov.get("sources", {}))
    rep = VerifyReport()
    for name, digest in prov.get("sources", {}).items():
        data = src.bytes_of(name)
        if data is None:
            rep.problems.append(f"source {name} not found under {', '.join(map(str, roots))}")
        elif hashlib.sha256(data).hexdigest() != digest:
            rep.problems.append(f"source {name} changed since the trace was made (sha256 differs)")
    if rep.problems:
        return rep
    evidence = prov.get("evidence", {})
    steps = trace.get("steps", [])
    for sp in prov.get("steps", []):
        n = sp.get("step")
        # step numbers count from 1; indexing with 0 or -1 would check another step in its place
        if not (isinstance(n, int) and 1 <= n <= len(steps)):
            rep.problems.append(f"provenance step {n} is not in the trace")
            continue
        step = steps[n - 1]
        for fname, fp in sp.get("fields", {}).items():
            if fp.get("origin") != "copied":
                continue
            check_field(rep, src, evidence, n, fname, step.get(fname), fp)
    for fname, fp in (prov.get("trace_fields") or {}).items():  # the task, the final output, a header's time...
        if isinstance(fp, dict) and fp.get("origin") == "copied":
            check_field(rep, src, evidence, 0, fname, trace.get(fname), fp)
    return rep


def _record(src: Sources, info: dict[str, Any]) -> tuple[Any, str | None, str]:
    """The record parsed (JSON when it parses, else its text), why it could not be read, and
    its text as written."""
    data = src.bytes_of(info["source"])
    if data is None:
        return None, f"source {info['source']} missing", ""
    raw = data[info["byte_offset"]: info["byte_offset"] + info["byte_length"]]
    if hashlib.sha256(raw).hexdigest() != info["sha256"]:
        return None, f"bytes at {info['source']}:{info['line']} do not match their sha256", ""
    text = raw.decode("utf-8", "replace")
    body = raw.removeprefix(b"\xef\xbb\xbf")  # a record the file starts with may carry its BOM
    try:
        return orjson.loads(body), None, text
    except orjson.JSONDecodeError:
        try:  # bytes that are not UTF-8, lone surrogates: read as the readers read them (U+FFFD)
            return valid_value(json.loads(body.decode("utf-8", "replace"))), None, text
        except ValueError:
            return text, None, text


def check_field(rep: VerifyReport, src: Sources, evidence: dict[str, Any], step: int, fname: str,
                 value: Any, fp: dict[str, Any]) -> None:
    """One copied value against its evidence; `step` 0: a field of the trace itself."""
    where = f"step {step} {fname}" if step else f"the trace's {fname}"
    refs = fp.get("evidence") or []
    pieces: list[str] = []
    raws: list[str] = []  # whole records as text (a text line that happens to parse as JSON: `[1, 2]`, `1e3`)
    for ref in refs:
        info = evidence.get(ref["id"])
        if info is None:
            rep.problems.append(f"{where}: evidence {ref['id']} not in provenance")
            return
        rec, err, as_written = _record(src, info)
        if err:
            rep.problems.append(f"{where}: {err}")
            return
        rule = fp.get("rule") or ""
        try:
            v = resolve_pointer(rec, ref.get("pointer", "")) if not isinstance(rec, str) else rec
            if rule == "C-json-string" and isinstance(v, str):
                v = resolve_pointer(json.loads(v), str((fp.get("params") or {}).get("pointer", "")))
        except (KeyError, IndexError, ValueError):
            rep.problems.append(f"{where}: pointer {ref.get('pointer')} does not resolve")
            return
        pieces.append(_content_text(v) if fname == "output" else _as_text(v))
        if not ref.get("pointer"):
            raws.append(as_written)
    if not pieces or value is None:
        rep.skipped += 1
        return
    # both sides as the readers write text: a lone surrogate (a byte that was not UTF-8, kept
    # by an older writer as a surrogate escape) is U+FFFD
    text = _as_text(valid_value(value))
    rep.checked += 1
    if fp.get("excerpt"):
        return  # an excerpt states its omissions; the pieces are checked by the reader
    span = "C-span" in str(fp.get("rule") or "").split("+")
    as_json = fname == "input" or "R-call/json" in str(fp.get("rule") or "").split("+")  # arguments as JSON text
    ok = _agrees(text, pieces, span) or (as_json and len(pieces) == 1 and _json_equal(text, pieces[0]))
    if not ok and len(raws) == len(pieces):  # every piece a whole record: compare with its text as written
        ok = _agrees(text, raws, span)
    if not ok:
        rep.problems.append(f"{where}: value differs from the log at {refs[0]['id']}")


def _agrees(text: str, pieces: list[str], span: bool) -> bool:
    """A copied value against what its evidence says: a slice of the one cited string
    (`C-span`; a redacted slice matches by its placeholders), the one cited value, or each
    of several pieces inside the value."""
    if span and len(pieces) > 1:
        return _joined_slices(text, pieces)
    if span:
        return text in pieces[0] or _matches(text, pieces[0])
    if len(pieces) == 1:
        return _matches(text, pieces[0])
    if all(_matches(p, text) or p in text for p in pieces if p.strip()):
        return True
    # a joined value that redaction masked: its placeholders stand for parts of the pieces,
    # so compare it with the pieces joined as the value was (texts by a blank line,
    # segment.py; the lines of one prompt by a newline, as aider's input history holds them)
    return bool(PLACEHOLDER.search(text)) and (
        _matches(text, "\n\n".join(p for p in pieces if p)) or _matches(text, "\n".join(pieces)))


def _joined_slices(text: str, pieces: list[str]) -> bool:
    """A value joined by blank lines from a slice of each piece in turn (`...+C-span`: the
    model's prose around the calls it wrote in its text): some cut of the value at blank lines
    puts each part in its piece (a redacted part matches by its placeholders)."""
    seen: set[tuple[int, int]] = set()

    def fits(k: int, at: int) -> bool:  # pieces[k:] can hold text[at:]
        if (k, at) in seen:
            return False
        seen.add((k, at))
        if k == len(pieces) - 1:
            return text[at:] in pieces[k] or _matches(text[at:], pieces[k])
        cut = text.find("\n\n", at)
        while cut >= 0:
            part = text[at:cut]
            if (part in pieces[k] or _matches(part, pieces[k])) and fits(k + 1, cut + 2):
                return True
            cut = text.find("\n\n", cut + 1)
        return False

    return fits(0, 0)


def _json_equal(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return False
