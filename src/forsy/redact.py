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
or URL-encoded. Rules read one or more levels of escaping in place; where a value holds
escapes, and on lines with %XX escapes, the text is also scanned in a decoded view that
maps each span found back to the original, where it is masked in its encoded form.

Speed: the rules run where literals occur (found by the engine in its native pass, or
with bytes.find), never as regexes sliding over the whole text. Many short strings
(`redact_many`, `redact_value`) are scanned together, which is ~10x faster than one call
each. One Redactor is safe to share between threads (a lock guards numbering and counts).

Fail closed: a string that cannot be scanned (engine error, unknown object) becomes
`[UNSCANNABLE_TEXT]` and is counted in `report()["unscannable"]`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import secrets
import tempfile
import threading
import urllib.parse
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from forsy.errors import RedactionError
from forsy.redact_rules import (
    CREDENTIAL,
    EMAIL,
    GENERIC_ACCOUNTS,
    NATIVE_ANCHORS_ANY_CASE,
    NATIVE_ANCHORS_CASED,
    PATH_USER,
    PERSON,
    PHONE,
    PHONE_ANCHOR_PATTERN,
    PLACEHOLDER_RE,
    PRIVATE_KEY,
    Anchors,
    Finder,
    Hit,
    WordList,
    accept_value,
    home_path_user,
    json_view_rules,
    name_tier,
    project_rules,
)

__all__ = ["UNSCANNABLE", "EngineHit", "Hit", "KingfisherEngine", "Redactor", "SecretEngine",
           "user_names_from_paths"]

UNSCANNABLE = "[UNSCANNABLE_TEXT]"
ANCHOR_RULE = "custom.forsy-anchor.tokens"
PHONE_ANCHOR_RULE = "custom.forsy-anchor.phone"
_ANCHOR_SETTINGS = {"confidence": "medium", "min_entropy": 0}
# Kingfisher is scanned in chunks this long (chars) that overlap by more than the longest
# secret it matches, so a secret on a chunk border is whole in one of them.
CHUNK = 1 << 20
OVERLAP = 80 << 10
# Too short to hold anything the engine matches (its shortest rules need more context)
ENGINE_MIN_LEN = 8
# Many short strings are scanned as one text (one engine call, one pass of each rule),
# joined by a separator that no rule matches across: a line holding only a control char.
SEPARATOR = "\n\x1e\n"
BATCH_CHARS = 1 << 16
COOKIE_PREFIX = "Cookie: "
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
    """What the redactor needs from a detection engine (injectable for tests).

    `reports_anchors`: the engine also reports where token prefixes occur (rule ANCHOR_RULE),
    so the token rules need not search for them; False makes the rules search themselves.
    """

    @property
    def name(self) -> str: ...

    @property
    def reports_anchors(self) -> bool: ...

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
            with tempfile.TemporaryDirectory(prefix="forsy-rules-") as tmp:
                anchors = _anchor_rules_file(folder if cache else Path(tmp))
                rules = kf.Rules([anchors], confidence="low", cache=cache, cache_dir=folder if cache else None)
            # redact=True: findings carry offsets but not the secret, so no extra copies live on
            self._scanner = kf.Scanner(rules, base64=True, dedup=False, redact=True)
            self._name = f"kingfisher {kf.__version__}"
        except Exception as exc:  # any failure to start means nothing can be scanned
            raise RedactionError(f"secret scanner could not start: {type(exc).__name__}: {exc}") from exc

    @property
    def name(self) -> str:
        return self._name

    @property
    def reports_anchors(self) -> bool:
        return True

    def scan(self, data: bytes) -> list[EngineHit]:
        out = []
        for f in self._scanner.scan(data):
            loc = f.location
            out.append(EngineHit(f.rule_id, loc["start_offset"], loc["end_offset"]))
        return out


def _anchor_rules_file(folder: Path) -> Path:
    """Kingfisher rules reporting where forsy's rare anchor literals occur (NATIVE_ANCHORS).

    Searching ~45 literals with bytes.find costs more than the whole native scan; the
    engine finds them all in its single pass (Hyperscan), and they are rare, so cheap to report.
    """
    def alternation(literals: Iterable[str]) -> str:
        return "|".join(re.sub(r"([.\\/\t])", lambda m: "\\t" if m.group() == "\t" else "\\" + m.group(), lit)
                        for lit in literals)

    # lower/Capitalised/UPPER rather than (?i): the engine scans 1.5x faster
    any_case = [v for lit in NATIVE_ANCHORS_ANY_CASE for v in dict.fromkeys((lit, lit.capitalize(), lit.upper()))]
    rules = [
        {"name": "forsy anchors", "id": ANCHOR_RULE,
         "pattern": f"({alternation([*NATIVE_ANCHORS_CASED, *any_case])})"},
        {"name": "forsy phone anchors", "id": PHONE_ANCHOR_RULE, "pattern": PHONE_ANCHOR_PATTERN},
    ]
    text = "rules:\n" + "".join(
        "  - " + "\n    ".join(f"{k}: {json.dumps(v)}" for k, v in {**r, **_ANCHOR_SETTINGS}.items())
        + "\n" for r in rules)
    path = folder / f"forsy-anchors-{hashlib.sha256(text.encode()).hexdigest()[:16]}.yml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return path


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
        self._json_rules: list[Finder] = list(json_view_rules())
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
        return self.redact_many([text])[0]

    def redact_many(self, texts: Sequence[str]) -> list[str]:
        """`redact` for many strings at once: scanned together, so much faster on short ones."""
        clean = [valid_text(t) for t in texts]
        return [self._apply(t, h) for t, h in zip(clean, self._find_safe(clean), strict=True)]

    def redact_value(self, value: Any) -> Any:
        """A JSON-like value (dict/list/str/number) of the same shape with every string redacted.

        Dict keys are redacted too (unchanged unless they hold a secret). A value under a
        secret-looking key (`"password": …`) is masked whole. Raises RedactionError if two
        keys of one dict become equal once redacted (one would silently overwrite the other).
        """
        strings: list[str] = []
        try:
            _collect(value, strings)
        except RecursionError:
            return self._fail()
        found = iter(zip(strings, self._find_safe(strings), strict=True))
        return self._rebuild(value, found)

    def scan(self, text: str) -> list[Hit]:
        """What `redact` would mask (offsets, kinds, rules; no values, no counting).

        Empty on text that `redact` already produced: use it to assert nothing slipped through.
        """
        return self._find_many([valid_text(text)])[0]

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
    def _find_safe(self, texts: list[str]) -> list[list[Hit] | None]:
        """Hits per text, None for a text that could not be scanned (fail closed)."""
        out: list[list[Hit] | None] = []
        for batch in batches(texts):
            try:
                out += self._find_many(batch)
            except Exception:  # one bad string must not take the batch with it: retry alone
                out += [self._find_one_safe(t) for t in batch]
        return out

    def _find_one_safe(self, text: str) -> list[Hit] | None:
        try:
            return self._find_many([text])[0]
        except Exception:
            return None

    def _find_many(self, texts: list[str]) -> list[list[Hit]]:
        """Scan the texts joined by a separator no rule matches across; split the hits back."""
        if len(texts) == 1:
            per = [self._scan_text(texts[0])]
        else:
            per = distribute(self._scan_text(SEPARATOR.join(texts)), [len(t) for t in texts])
        return [resolve(text, hits) if hits else hits for text, hits in zip(texts, per, strict=True)]

    def _scan_text(self, text: str) -> list[Hit]:
        hits: list[Hit] = []
        for offset, chunk in chunks(text):
            found = self._scan_chunk(chunk)
            hits += [Hit(h.start + offset, h.end + offset, h.kind, h.rule) for h in found] if offset else found
        return hits

    def _scan_chunk(self, chunk: str) -> list[Hit]:
        escaped = "\\" in chunk and JSON_ESCAPE.search(chunk) is not None
        # Same length, so engine offsets stay offsets into the chunk; "\nghp_…" no longer
        # hides where the token starts (the engine wants a word boundary there).
        data = (neutralise_escapes(chunk) if escaped else chunk).encode("utf-8")
        hits, anchors = self._engine_pass(chunk, data)
        hits += [h for rule in self._rules for h in rule(chunk, anchors)]
        # Decoded views: the JSON one only where a secret's value may hold an escape (costly,
        # and raw rules already read escaped quotes and newlines); the URL ones always.
        view = json_view(chunk) if anchors.want_json_view else None
        if view is not None:
            json_anchors = Anchors(view.text)
            found = [h for rule in self._json_rules for h in rule(view.text, json_anchors)]
            hits += self._from_view(view, 0, found)
        urls = url_views(chunk)
        if urls:  # scanned together, as one batch
            texts = [v.text for _, v in urls]
            joined = SEPARATOR.join(texts)
            found, url_anchors = self._engine_pass(joined, joined.encode("utf-8"))
            found += [h for rule in self._rules for h in rule(joined, url_anchors)]
            for (offset, v), part in zip(urls, distribute(found, [len(t) for t in texts]), strict=True):
                hits += self._from_view(v, offset, part)
        return hits

    @staticmethod
    def _from_view(view: View, offset: int, found: list[Hit]) -> list[Hit]:
        """Hits in a decoded view -> hits in the raw text (view starts at `offset` there)."""
        out = []
        for h in found:
            if h.kind in VIEW_KINDS:
                start, end = view.raw_span(h.start, h.end)
                out.append(Hit(offset + start, offset + end, h.kind, h.rule))
        return out

    def _engine_pass(self, text: str, data: bytes) -> tuple[list[Hit], Anchors]:
        """Engine findings in `text` (whose UTF-8, maybe neutralised, is `data`), and the
        anchors for the rules (with the engine's anchor positions when it reports them)."""
        found = self._engine.scan(data) if len(text) >= ENGINE_MIN_LEN else []
        anchors = Anchors(text, data, [] if self._engine.reports_anchors else None)
        hits: list[Hit] = []
        if found:
            spans = byte_spans_to_char(text, data, [(f.start, f.end) for f in found])
            tokens, phones = [], []
            for f, (start, end) in zip(found, spans, strict=True):
                if f.rule == PHONE_ANCHOR_RULE:
                    phones.append(start)
                elif f.rule.startswith(ANCHOR_RULE):
                    tokens.append(start)
                elif end > start:
                    kind = PRIVATE_KEY if "private-key" in f.rule or "private_key" in f.rule else CREDENTIAL
                    hits.append(Hit(start, end, kind, "kingfisher:" + f.rule))
            if self._engine.reports_anchors:
                anchors.engine, anchors.phone = sorted(tokens), sorted(phones)
        elif self._engine.reports_anchors:
            anchors.phone = []
        return hits, anchors

    # ------------------------------------------------------------ masking
    def _apply(self, text: str, hits: list[Hit] | None) -> str:
        if hits is None:
            return self._fail()
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

    def _rebuild(self, value: Any, found: Iterator[tuple[str, list[Hit] | None]]) -> Any:
        """Second walk of redact_value, in the order of _collect, consuming its scan results."""
        if isinstance(value, str):
            return self._apply(*next(found))
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                key = self._apply(*next(found)) if isinstance(k, str) else k
                if key in out:
                    raise RedactionError("two keys of one object are equal once redacted")
                out[key] = self._rebuild_field(k, v, found)
            return out
        if isinstance(value, list | tuple):
            items = [self._rebuild(v, found) for v in value]
            return items if isinstance(value, list) else tuple(items)
        return self._fail()  # unknown object: cannot know what it prints

    def _rebuild_field(self, key: Any, value: Any, found: Iterator[tuple[str, list[Hit] | None]]) -> Any:
        if isinstance(key, str) and is_secret_field(key, value):
            return self._mask_field(str(value))
        if _is_cookie_field(key, value):
            redacted = self._apply(*next(found))
            # the prefix holds nothing to mask, so it is still there
            return redacted[len(COOKIE_PREFIX) :] if redacted.startswith(COOKIE_PREFIX) else self._fail()
        return self._rebuild(value, found)


def _collect(value: Any, out: list[str]) -> None:
    """First walk of redact_value: the strings to scan, in order."""
    if isinstance(value, str):
        out.append(valid_text(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                out.append(valid_text(k))
            if isinstance(k, str) and is_secret_field(k, v):
                continue  # masked whole, never scanned
            if _is_cookie_field(k, v):
                out.append(COOKIE_PREFIX + valid_text(v))  # a header dict: give the cookie rule its context
            else:
                _collect(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _collect(v, out)


def _is_cookie_field(key: Any, value: Any) -> bool:
    return isinstance(key, str) and len(key) in (6, 10) and isinstance(value, str) and key.lower() in (
        "cookie", "set-cookie")


def batches(texts: list[str]) -> Iterator[list[str]]:
    """Consecutive groups of texts of about BATCH_CHARS in all (a longer text goes alone)."""
    batch: list[str] = []
    size = 0
    for t in texts:
        if batch and size + len(t) > BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(t)
        size += len(t) + len(SEPARATOR)
    if batch:
        yield batch


def distribute(hits: list[Hit], lengths: list[int]) -> list[list[Hit]]:
    """Hits in the joined text -> hits per text (a hit across a separator is cut in parts)."""
    per: list[list[Hit]] = [[] for _ in lengths]
    if not hits:
        return per
    starts = list(accumulate((n + len(SEPARATOR) for n in lengths[:-1]), initial=0))
    for h in hits:
        i = max(0, bisect_right(starts, h.start) - 1)
        while i < len(starts) and starts[i] < h.end:
            lo, hi = max(h.start, starts[i]) - starts[i], min(h.end, starts[i] + lengths[i]) - starts[i]
            if hi > lo:
                per[i].append(Hit(lo, hi, h.kind, h.rule))
            i += 1
    return per


# ---------------------------------------------------------------- helpers
def _is_person_name(name: str) -> bool:
    low = " ".join(name.split()).lower()
    return len(low) >= 3 and low not in GENERIC_ACCOUNTS and low not in NON_PERSON_NAMES and not (
        low.endswith(("[bot]", "-bot", " bot")))


def user_names_from_paths(paths: Iterable[str]) -> set[str]:
    """Account names in home paths: "/Users/alice/x", "/home/bob" -> {"alice", "bob"}."""
    names: set[str] = set()
    for path in paths:
        for hit in home_path_user(path, Anchors(path)):
            names.add(path[hit.start : hit.end])
    return names


def is_secret_field(key: str, value: Any) -> bool:
    """A dict entry whose key names a secret and whose value is a literal of it."""
    tier = name_tier(key)
    if not tier:
        return False
    if isinstance(value, str):
        return accept_value(key, tier, value.strip(), quoted=True)
    # a numeric password or PIN is still a password; numeric "token" fields are counts
    return tier == 1 and isinstance(value, int | float) and not isinstance(value, bool)


def valid_text(text: str) -> str:
    """The text with lone surrogates replaced (U+FFFD), so it can be encoded and written."""
    if text.isascii():
        return text
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
    if kind == PHONE:  # "(415) 555-0100" and "415.555.0100" are one number
        return "".join(c for c in value if c.isdigit())
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


# ---------------------------------------------------------------- offsets
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
JSON_ESCAPE = _JSON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/bfnrt]))")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _unescape_one(m: re.Match[str]) -> str:
    if m.group(1) is None:
        return _SIMPLE_ESCAPES[m.group(2)]
    return _unicode(m.group(1))


_UNICODE_RUN = re.compile(r"(?:\\u[0-9a-fA-F]{4})+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SIMPLE_PAIRS = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\/", "/"), ("\\b", "\b"),
                 ("\\f", "\f"))
_PUA = "\ue000"


def json_unescape(text: str) -> str:
    """JSON string escapes decoded (tolerant: text need not be a JSON string).

    Same result as `_JSON_ESCAPE.sub(_unescape_one, text)` (which View's map relies on),
    but with str.replace: escaped backslashes are set aside first, so the later
    replacements cannot see a backslash that was part of one."""
    if "\\" not in text:
        return text
    if _PUA in text:
        return _JSON_ESCAPE.sub(_unescape_one, text)
    out = text.replace("\\\\", _PUA)
    for escape, char in _SIMPLE_PAIRS:
        if escape in out:
            out = out.replace(escape, char)
    if "\\u" in out:
        out = _UNICODE_RUN.sub(_unicode_run, out)
    return out.replace(_PUA, "\\")


def _unicode_run(m: re.Match[str]) -> str:
    """A run of \\uXXXX escapes, one char each (a surrogate half becomes U+FFFD, as in _unicode)."""
    run = m.group()
    if len(run) == 6:  # the usual case ("\\u001b[0m"): one escape
        return _unicode(run[2:])
    decoded = run.encode("ascii").decode("unicode_escape")
    return _SURROGATE.sub("\ufffd", decoded) if _SURROGATE.search(decoded) else decoded


@functools.lru_cache(maxsize=1024)
def _unicode(hex4: str) -> str:
    code = int(hex4, 16)
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)  # a view must stay encodable


class View:
    """A decoded copy of a text that knows where each of its spans came from.

    Decoding only replaces escape sequences, so the map is the sorted list of those
    replacements: (view start, view length, raw start, raw end); between two of them view
    and raw text are equal, shifted. The map is built only when a span must be mapped.
    """

    def __init__(self, kind: str, raw: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str],
                 text: str | None = None) -> None:
        self.kind = kind  # "json" or "url"
        self._raw_text, self._pattern, self._decode = raw, pattern, decode
        self.text = pattern.sub(decode, raw) if text is None else text
        self._map: tuple[array[int], array[int], array[int], array[int]] | None = None

    def _build_map(self) -> tuple[array[int], array[int], array[int], array[int]]:
        v_start, v_len, r_start, r_end = array("q"), array("q"), array("q"), array("q")
        shift = 0
        for m in self._pattern.finditer(self._raw_text):
            rep = self._decode(m)
            v_start.append(m.start() + shift)
            v_len.append(len(rep))
            r_start.append(m.start())
            r_end.append(m.end())
            shift += len(rep) - (m.end() - m.start())
        return v_start, v_len, r_start, r_end

    def _raw(self, v: int, *, end: bool) -> int:
        """Raw index of view index v (a start), or just past the raw char of view index v (an end)."""
        if self._map is None:
            self._map = self._build_map()
        v_start, v_len, r_start, r_end = self._map
        i = bisect_right(v_start, v) - 1
        if i < 0:
            return v + end
        if v < v_start[i] + v_len[i]:  # v is part of a decoded escape: take the whole escape
            return r_end[i] if end else r_start[i]
        return r_end[i] + (v - v_start[i] - v_len[i]) + end

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        return self._raw(start, end=False), self._raw(end - 1, end=True)


def neutralise_escapes(text: str) -> str:
    """Escaped newlines, tabs and quotes as whitespace and plain quotes, same length (for the
    engine, which needs only token boundaries, and whose offsets must stay raw offsets)."""
    for escape, same_length in (("\\n", "\n "), ("\\r", "\r "), ("\\t", "\t "), ('\\"', '" ')):
        if escape in text:
            text = text.replace(escape, same_length)
    return text


def json_view(text: str) -> View | None:
    """The text JSON-unescaped, if it holds JSON escapes."""
    if "\\" in text and _JSON_ESCAPE.search(text):
        return View("json", text, _JSON_ESCAPE, _unescape_one, json_unescape(text))
    return None


def url_views(text: str) -> list[tuple[int, View]]:
    """URL-decoded views of the lines that hold %XX escapes, with their offsets in the text.

    Only those lines: decoding and rescanning all of a text for a few escapes costs more
    than everything else (URL-encoded data has no raw newline, so a secret is on one line)."""
    out: list[tuple[int, View]] = []
    pos = 0
    while "%" in text and (m := _PERCENT.search(text, pos)) is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        out.append((start, View("url", text[start:end], _PERCENT_RUN, _unquote_run)))
        pos = end
    return out


def _unquote_run(m: re.Match[str]) -> str:
    return urllib.parse.unquote(m.group(), errors="replace")


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
