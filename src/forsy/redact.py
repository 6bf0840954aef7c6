"""Mask secrets and personal data in agent-log text, before anything is stored or sent.

    redactor = Redactor(user_names={"alice"}, extra_person_names={"Alice Smith"})
    safe = redactor.redact(text)              # str -> str
    safe_record = redactor.redact_value(rec)  # JSON-like value -> same shape, every string redacted
    redactor.report()                         # counts only: never values, never the mapping

Detection = the kingfisher engine (offline, in-process; its validation and revocation
parts, which call providers over the network, are never used) + forsy's own rules
(redact_rules.py) for what the engine misses in logs: generic `password = …`
assignments, auth headers, cookies, passwords in URLs, personal data.

Every hit is replaced by a typed placeholder, `[CREDENTIAL_1]`, `[EMAIL_2]`, `[PATH_USER]`…
The same value always gets the same placeholder for the life of one Redactor; numbers are
given in order of first appearance, so the same input gives byte-identical output. The
value -> placeholder mapping lives only in memory, keyed by a salted hash.

Escaped text: agent logs keep secrets JSON-escaped (tool arguments are JSON in a string)
or URL-encoded. The text is also scanned in decoded views, which map each span found
back to the original text, where it is masked in its encoded form. Values under secret
keys of JSON held in the string are located in the original in their escaped forms.

Fail closed: a string that cannot be scanned (engine error, a secret value that cannot
be located in the original) becomes `[UNSCANNABLE_TEXT]`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
import urllib.parse
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from forsy.errors import RedactionError
from forsy.redact_rules import (
    CREDENTIAL,
    EMAIL,
    GENERIC_ACCOUNTS,
    PATH_USER,
    PERSON,
    PHONE,
    PLACEHOLDER_RE,
    PRIVATE_KEY,
    Finder,
    Hit,
    WordList,
    accept_value,
    home_path_user,
    name_tier,
    project_rules,
)

__all__ = ["UNSCANNABLE", "EngineHit", "Hit", "KingfisherEngine", "Redactor", "SecretEngine",
           "user_names_from_paths"]

UNSCANNABLE = "[UNSCANNABLE_TEXT]"
# Kingfisher is scanned in chunks this long (chars) that overlap by more than the longest
# secret it matches, so a secret on a chunk border is whole in one of them.
CHUNK = 1 << 20
OVERLAP = 1 << 14
# Too short to hold anything the engine matches (its shortest rules need more context)
ENGINE_MIN_LEN = 8
# When spans of different kinds overlap, the merged span takes the most sensitive kind
KIND_RANK = {PRIVATE_KEY: 0, CREDENTIAL: 1, EMAIL: 2, PHONE: 3, PERSON: 4, PATH_USER: 5}
# Decoded views report these kinds only: names and paths are handled in the raw text
VIEW_KINDS = frozenset({PRIVATE_KEY, CREDENTIAL, EMAIL, PHONE})
NON_PERSON_NAMES = frozenset({"github", "claude", "unknown", "your name", "anonymous", "actions-user"})


# ---------------------------------------------------------------- engine
class EngineHit(NamedTuple):
    """One engine finding: rule id and byte offsets into the scanned UTF-8 data."""

    rule: str
    start: int
    end: int


class SecretEngine(Protocol):
    """What the redactor needs from a detection engine (injectable for tests)."""

    @property
    def name(self) -> str: ...

    def scan(self, data: bytes) -> Sequence[EngineHit]: ...


def default_cache_dir() -> Path:
    """Where kingfisher keeps its compiled rules: forsy's own user cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "forsy" / "kingfisher-rules"


class KingfisherEngine:
    """The kingfisher scanner over in-memory bytes. Offline: only Rules and Scanner are used.

    Building the rules takes ~4 s the first time and ~0.4 s once cached in `cache_dir`;
    use `shared_engine()` to build it once per process.
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        try:
            import kingfisher_sdk as kf

            folder = cache_dir or default_cache_dir()
            cache = _private_dir(folder)
            rules = kf.Rules(confidence="low", cache=cache, cache_dir=folder if cache else None)
            # redact=True: findings carry offsets but not the secret, so no extra copies live on
            self._scanner = kf.Scanner(rules, base64=True, dedup=False, redact=True)
            self._name = f"kingfisher {kf.__version__}"
        except Exception as exc:  # any failure to start means nothing can be scanned
            raise RedactionError(f"secret scanner could not start: {type(exc).__name__}") from exc

    @property
    def name(self) -> str:
        return self._name

    def scan(self, data: bytes) -> list[EngineHit]:
        out = []
        for f in self._scanner.scan(data):
            loc = f.location
            out.append(EngineHit(f.rule_id, loc["start_offset"], loc["end_offset"]))
        return out


def _private_dir(folder: Path) -> bool:
    """Create the cache folder (owner-only); False if that is impossible (then no cache)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder.is_dir() and os.access(folder, os.W_OK)
    except OSError:
        return False


_ENGINES: dict[Path | None, KingfisherEngine] = {}
_ENGINES_LOCK = threading.Lock()


def shared_engine(cache_dir: Path | None = None) -> KingfisherEngine:
    """One kingfisher engine per cache folder per process (rules are costly to build)."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(cache_dir)
        if engine is None:
            engine = _ENGINES[cache_dir] = KingfisherEngine(cache_dir)
        return engine


class _Unlocatable(Exception):
    """A value found in a decoded view could not be found in the original text."""


# ---------------------------------------------------------------- the redactor
class Redactor:
    """Masks secrets and personal data; one instance = one consistent placeholder mapping.

    Thread-safe (placeholder numbering and counts are guarded by a lock), but numbering
    follows the order calls arrive in: for byte-identical output, redact in a fixed order.
    """

    def __init__(self, *, user_names: Iterable[str] = (), extra_person_names: Iterable[str] = (),
                 cache_dir: Path | None = None, engine: SecretEngine | None = None) -> None:
        self._engine: SecretEngine = engine if engine is not None else shared_engine(cache_dir)
        self._rules: list[Finder] = list(project_rules())
        users = sorted({u for u in user_names if len(u) >= 3 and u.lower() not in GENERIC_ACCOUNTS})
        if users:
            self._rules.append(WordList(users, PATH_USER, "user-name", ignore_case=False))
        persons = sorted({" ".join(p.split()) for p in extra_person_names if _is_person_name(p)})
        if persons:
            self._rules.append(WordList(persons, PERSON, "person-name", ignore_case=True))
        self._salt = secrets.token_bytes(16)
        self._placeholders: dict[bytes, str] = {}
        self._numbers: Counter[str] = Counter()
        self._by_kind: Counter[str] = Counter()
        self._by_rule: Counter[str] = Counter()
        self._unscannable = 0
        self._lock = threading.Lock()

    # ------------------------------------------------------------ public API
    def redact(self, text: str) -> str:
        """Text with every secret and personal datum replaced by its placeholder."""
        if not isinstance(text, str):
            raise TypeError(f"redact() takes str, not {type(text).__name__}")
        if not text:
            return text
        clean = valid_text(text)
        try:
            hits = self._find(clean)
        except Exception:  # fail closed: an unscanned string is never passed on
            return self._fail()
        return self._apply(clean, hits)

    def redact_value(self, value: Any) -> Any:
        """A JSON-like value (dict/list/str/number) of the same shape with every string redacted.

        Dict keys are redacted too (unchanged unless they hold a secret). A value under a
        secret-looking key (`"password": …`) is masked whole. Raises RedactionError if two
        keys of one dict become equal once redacted (one would silently overwrite the other).
        """
        if isinstance(value, str):
            return self.redact(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, dict):
            return self._redact_dict(value)
        if isinstance(value, list):
            return [self.redact_value(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.redact_value(v) for v in value)
        return self._fail()  # unknown object: cannot know what it prints

    def scan(self, text: str) -> list[Hit]:
        """What `redact` would mask (offsets, kinds, rules; no values, no counting).

        Empty on text that `redact` already produced: use it to assert nothing slipped through.
        """
        return self._find(valid_text(text)) if text else []

    def report(self) -> dict[str, Any]:
        """Counts of what was masked, by kind and by rule. Never values, never the mapping."""
        with self._lock:
            return {
                "enabled": True,
                "engine": f"{self._engine.name} + forsy rules",
                "by_kind": dict(sorted(self._by_kind.items())),
                "by_rule": dict(sorted(self._by_rule.items())),
                "unscannable": self._unscannable,
            }

    # ------------------------------------------------------------ detection
    def _find(self, text: str) -> list[Hit]:
        lowered = text.lower()
        hits = [h for rule in self._rules for h in rule(text, lowered)]
        hits += self._engine_hits(text)
        for view in decoded_views(text):
            decoded = view.text
            found = [h for rule in self._rules for h in rule(decoded, decoded.lower())]
            for h in found + self._engine_hits(decoded):
                if h.kind in VIEW_KINDS:
                    start, end = view.raw_span(h.start, h.end)
                    hits.append(Hit(start, end, h.kind, h.rule))
        for value in json_field_secrets(text):
            hits += locate(text, value, CREDENTIAL, "secret-field")
        return resolve(text, hits)

    def _engine_hits(self, text: str) -> list[Hit]:
        if len(text) < ENGINE_MIN_LEN:
            return []
        hits = []
        for offset, chunk in chunks(text):
            data = chunk.encode("utf-8")
            found = self._engine.scan(data)
            if not found:
                continue
            spans = byte_spans_to_char(chunk, data, [(f.start, f.end) for f in found])
            for f, (start, end) in zip(found, spans, strict=True):
                kind = PRIVATE_KEY if "private-key" in f.rule or "private_key" in f.rule else CREDENTIAL
                if end > start:
                    hits.append(Hit(offset + start, offset + end, kind, "kingfisher:" + f.rule))
        return hits

    # ------------------------------------------------------------ masking
    def _apply(self, text: str, hits: list[Hit]) -> str:
        if not hits:
            return text
        out: list[str] = []
        pos = 0
        with self._lock:
            for h in hits:
                out.append(text[pos : h.start])
                out.append(self._placeholder(h.kind, text[h.start : h.end]))
                self._by_kind[h.kind] += 1
                self._by_rule[h.rule] += 1
                pos = h.end
        out.append(text[pos:])
        return "".join(out)

    def _placeholder(self, kind: str, value: str) -> str:
        """Caller holds the lock. Same (kind, normalised value) -> same placeholder."""
        if kind == PATH_USER:
            return "[PATH_USER]"
        key = hashlib.blake2b(f"{kind}\0{normalise(kind, value)}".encode("utf-8", "surrogatepass"),
                              key=self._salt, digest_size=16).digest()
        placeholder = self._placeholders.get(key)
        if placeholder is None:
            self._numbers[kind] += 1
            placeholder = self._placeholders[key] = f"[{kind}_{self._numbers[kind]}]"
        return placeholder

    def _mask_field(self, value: str) -> str:
        with self._lock:
            self._by_kind[CREDENTIAL] += 1
            self._by_rule["secret-field"] += 1
            return self._placeholder(CREDENTIAL, value)

    def _fail(self) -> str:
        with self._lock:
            self._unscannable += 1
        return UNSCANNABLE

    def _redact_dict(self, value: dict[Any, Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key = self.redact(k) if isinstance(k, str) else k
            if key in out:
                raise RedactionError("two keys of one object are equal once redacted")
            out[key] = self._redact_field(k, v)
        return out

    def _redact_field(self, key: Any, value: Any) -> Any:
        if isinstance(key, str) and is_secret_field(key, value):
            return self._mask_field(str(value))
        if isinstance(key, str) and isinstance(value, str) and key.lower() in ("cookie", "set-cookie"):
            # a header dict: give the cookie rule its header context
            prefix = "Cookie: "
            redacted = self.redact(prefix + value)
            if redacted.startswith(prefix):
                return redacted[len(prefix) :]
        return self.redact_value(value)


# ---------------------------------------------------------------- helpers
def _is_person_name(name: str) -> bool:
    low = " ".join(name.split()).lower()
    return len(low) >= 3 and low not in GENERIC_ACCOUNTS and low not in NON_PERSON_NAMES and not (
        low.endswith(("[bot]", "-bot", " bot")))


def user_names_from_paths(paths: Iterable[str]) -> set[str]:
    """Account names in home paths: "/Users/alice/x", "/home/bob" -> {"alice", "bob"}."""
    names: set[str] = set()
    for path in paths:
        for hit in home_path_user(path, path.lower()):
            names.add(path[hit.start : hit.end])
    return names


def is_secret_field(key: str, value: Any) -> bool:
    """A dict entry whose key names a secret and whose value is a literal of it."""
    tier = name_tier(key)
    if not tier:
        return False
    if isinstance(value, str):
        return accept_value(key, tier, value.strip(), quoted=True, spaced=False)
    # a numeric password or PIN is still a password; numeric "token" fields are counts
    return tier == 1 and isinstance(value, int | float) and not isinstance(value, bool)


def json_field_secrets(text: str) -> list[str]:
    """Values under secret-looking keys of JSON held in the string (in decoded form)."""
    head = text.lstrip()[:1]
    if head not in ("{", "[") or len(text) < 8:
        return []
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return []
    out: list[str] = []
    _collect_fields(obj, out, 0)
    return out


def _collect_fields(obj: Any, out: list[str], depth: int) -> None:
    if depth > 100:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and is_secret_field(k, v):
                out.append(v.strip() if isinstance(v, str) else str(v))
            else:
                _collect_fields(v, out, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            _collect_fields(v, out, depth + 1)
    elif isinstance(obj, str):
        out.extend(json_field_secrets(obj))


def valid_text(text: str) -> str:
    """The text with lone surrogates replaced (U+FFFD), so it can be encoded and written."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # UTF-16 round trip: joins valid surrogate pairs, replaces lone ones
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def normalise(kind: str, value: str) -> str:
    """One secret written raw, JSON-escaped or URL-encoded is still one value."""
    if kind in (EMAIL, PERSON):
        return " ".join(value.split()).casefold()
    if "\\" in value:
        value = json_unescape(value)
    if "%" in value:
        value = urllib.parse.unquote(value)
    return value


def chunks(text: str) -> Iterator[tuple[int, str]]:
    """Overlapping chunks (offset, text) for the engine, cut after a newline where possible."""
    n = len(text)
    if n <= CHUNK:
        yield 0, text
        return
    start = 0
    while True:
        end = min(n, start + CHUNK)
        if end < n:
            nl = text.rfind("\n", end - OVERLAP, end)
            if nl > start:
                end = nl + 1
        yield start, text[start:end]
        if end >= n:
            return
        start = end - OVERLAP


def byte_spans_to_char(chunk: str, data: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte offsets into `data` (UTF-8 of `chunk`) -> str indices, widened to whole chars."""
    if len(data) == len(chunk):  # ASCII: bytes and chars line up
        return spans
    n = len(data)
    wanted: set[int] = set()
    snapped = []
    for start, end in spans:
        start, end = max(0, min(start, n)), max(0, min(end, n))
        while 0 < start < n and data[start] & 0xC0 == 0x80:
            start -= 1
        while 0 < end < n and data[end] & 0xC0 == 0x80:
            end += 1
        snapped.append((start, end))
        wanted.update((start, end))
    index: dict[int, int] = {}
    prev_b = prev_c = 0
    for b in sorted(wanted):
        prev_c += len(data[prev_b:b].decode("utf-8", "replace"))
        prev_b = b
        index[b] = prev_c
    return [(index[s], index[e]) for s, e in snapped]


# ---------------------------------------------------------------- decoded views
_JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _unescape_one(m: re.Match[str]) -> str:
    if m.group(1) is None:
        return _SIMPLE_ESCAPES[m.group(2)]
    code = int(m.group(1), 16)
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)  # a view must stay encodable


def json_unescape(text: str) -> str:
    """JSON string escapes decoded (tolerant: text need not be a JSON string)."""
    return _JSON_ESCAPE.sub(_unescape_one, text)


class View:
    """A decoded copy of a text that knows where each of its spans came from.

    Decoding only replaces escape sequences, so the map is a sorted list of those
    replacements: (view start, view length, raw start, raw end). Between two of them
    view and raw text are equal, shifted.
    """

    def __init__(self, raw: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str]) -> None:
        parts: list[str] = []
        self.v_start, self.v_len, self.r_start, self.r_end = array("q"), array("q"), array("q"), array("q")
        pos = shift = 0
        for m in pattern.finditer(raw):
            rep = decode(m)
            parts += (raw[pos : m.start()], rep)
            self.v_start.append(m.start() + shift)
            self.v_len.append(len(rep))
            self.r_start.append(m.start())
            self.r_end.append(m.end())
            shift += len(rep) - (m.end() - m.start())
            pos = m.end()
        parts.append(raw[pos:])
        self.text = "".join(parts)

    def _raw(self, v: int, *, end: bool) -> int:
        """Raw index of view index v (a start), or just past the raw char of view index v (an end)."""
        i = bisect_right(self.v_start, v) - 1
        if i < 0:
            return v + end
        inside = v < self.v_start[i] + self.v_len[i]
        if inside:  # v is part of a decoded escape: take the whole escape
            return self.r_end[i] if end else self.r_start[i]
        return self.r_end[i] + (v - self.v_start[i] - self.v_len[i]) + end

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        return self._raw(start, end=False), self._raw(end - 1, end=True)


def decoded_views(text: str) -> list[View]:
    """The text as JSON-unescaped and as URL-decoded, when it holds such escapes."""
    views = []
    if "\\" in text and _JSON_ESCAPE.search(text):
        views.append(View(text, _JSON_ESCAPE, _unescape_one))
    if "%" in text and _PERCENT.search(text):
        views.append(View(text, _PERCENT_RUN, _unquote_run))
    return views


def _unquote_run(m: re.Match[str]) -> str:
    return urllib.parse.unquote(m.group(), errors="replace")


def encoded_forms(value: str) -> set[str]:
    """How a decoded value can be written in the original text."""
    once = json.dumps(value)[1:-1]
    quoted = urllib.parse.quote(value, safe="")
    forms = {value, once, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(once)[1:-1],
             once.replace("/", "\\/"), quoted, urllib.parse.quote(value, safe="/:"),
             urllib.parse.quote_plus(value), _PERCENT.sub(lambda m: m.group().lower(), quoted)}
    forms.discard("")
    return forms


def _bounded(text: str, start: int, end: int) -> bool:
    """A short value stands alone here (not inside a longer word), escapes count as breaks."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    left = not before.isalnum() or text[max(0, start - 2)] == "\\" or bool(
        _PERCENT.fullmatch(text[max(0, start - 3) : start]))
    return left and not after.isalnum()


def locate(text: str, value: str, kind: str, rule: str) -> list[Hit]:
    """Every place `value` (found in a decoded view) stands in `text`, in any encoded form."""
    out: list[Hit] = []
    for form in encoded_forms(value):
        i = text.find(form)
        while i >= 0:
            j = i + len(form)
            if len(form) >= 12 or _bounded(text, i, j):
                out.append(Hit(i, j, kind, rule))
            i = text.find(form, j)
    if not out:  # odd escaping: mask the long alphanumeric pieces of it
        for piece in set(re.findall(r"[A-Za-z0-9]{8,}", value)):
            i = text.find(piece)
            while i >= 0:
                out.append(Hit(i, i + len(piece), kind, rule))
                i = text.find(piece, i + len(piece))
    if not out:
        raise _Unlocatable()
    return out


# ---------------------------------------------------------------- merging
def resolve(text: str, hits: list[Hit]) -> list[Hit]:
    """Sorted, non-overlapping spans; hits that are only existing placeholders dropped."""
    if not hits:
        return []
    if "[" in text:
        placeholders = [m.span() for m in PLACEHOLDER_RE.finditer(text)]
        if placeholders:
            hits = [h for h in (_around_placeholders(text, h, placeholders) for h in hits) if h is not None]
    hits.sort(key=lambda h: (h.start, -h.end, KIND_RANK[h.kind]))
    merged: list[Hit] = []
    for h in hits:
        if merged and h.start < merged[-1].end:
            last = merged[-1]
            kind = min(last.kind, h.kind, key=KIND_RANK.__getitem__)
            rule = last.rule if kind == last.kind else h.rule
            merged[-1] = Hit(last.start, max(last.end, h.end), kind, rule)
        else:
            merged.append(h)
    return merged


def _around_placeholders(text: str, hit: Hit, placeholders: list[tuple[int, int]]) -> Hit | None:
    """Idempotence: a hit that is (mostly) a placeholder already is no hit; one that cuts
    into a placeholder is widened to hold it whole."""
    starts = [s for s, _ in placeholders]
    i = max(0, bisect_right(starts, hit.start) - 1)
    start, end = hit.start, hit.end
    residue = 0
    pos = start
    while i < len(placeholders) and placeholders[i][0] < end:
        s, e = placeholders[i]
        if e > start:
            residue += sum(c.isalnum() for c in text[pos:s]) if s > pos else 0
            pos = max(pos, e)
            start, end = min(start, s), max(end, e)
        i += 1
    if pos == hit.start:  # touches no placeholder
        return hit
    residue += sum(c.isalnum() for c in text[pos:end])
    return Hit(start, end, hit.kind, hit.rule) if residue >= 4 else None
