"""The Redactor: one consistent placeholder mapping; batching many strings into one scan;
hits found in the raw text and in its decoded views, merged, then masked (see __init__.py)."""

from __future__ import annotations

import hashlib
import secrets
import threading
import urllib.parse
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .._aside import aside
from ..errors import RedactionError
from ..jsontext import valid_text
from ._anchors import Anchors
from ._base import (
    BANK_ACCOUNT,
    BIRTH_DATE,
    CREDENTIAL,
    EMAIL,
    ID_NUMBER,
    MASKED_KINDS,
    PATH_USER,
    PAYMENT_CARD,
    PERSON,
    PHONE,
    PLACEHOLDER,
    PRIVATE_KEY,
    Finder,
    Hit,
)
from ._engine import ANCHOR_RULE, SecretEngine, shared_engine
from ._fields import collect, field_prefix, is_secret_field, value_key
from ._known import SPREAD_KINDS, KnownSecrets, learnt_values, said_password_key, said_values
from ._merge import resolve
from ._native import CASED_ANCHORS
from ._pass import ENGINE_MIN_LEN, engine_pass
from ._split import SEPARATOR, batches, chunks, distribute
from ._views import (
    JSON_ESCAPE,
    View,
    ansi_views,
    byte_spans_to_char,
    json_unescape,
    json_view,
    letter_views,
    neutralise_escapes,
    url_views,
)
from .encoded import base64_views
from .personal import GENERIC_ACCOUNTS, WordList, birth_date_field, home_path_user, is_person_account
from .printed import printed_values
from .rules import json_view_rules, project_rules

UNSCANNABLE = "[UNSCANNABLE_TEXT]"
# texts of this many characters in one `redact_values` are scanned in two processes
ASIDE_CHARS = 4_000_000
# Decoded views report these kinds only: names and paths are handled in the raw text
VIEW_KINDS = frozenset({PRIVATE_KEY, CREDENTIAL, EMAIL, PHONE})
NON_PERSON_NAMES = frozenset({"github", "claude", "unknown", "your name", "anonymous", "actions-user"})


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
        # the log owner's names, masked everywhere (not a name the log already anonymised)
        users = sorted({u for u in user_names if is_person_account(u)})
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
        self._stand_ins = 0
        self._lock = threading.Lock()
        # values masked as secrets so far: masked wherever else they stand (see _known.py)
        self._known = KnownSecrets()
        # strings redact_values returned since the redactor last learnt a secret: its outputs
        # are fixed points (scanning one again finds nothing), so `rescan` need not scan them
        self._outputs: set[str] = set()

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
            collect(value, strings)
        except RecursionError:
            return self._fail()
        found = iter(zip(strings, self._find_safe(strings), strict=True))
        return self._rebuild(value, found)

    def redact_values(self, values: Sequence[Any]) -> list[Any]:
        """`[redact_value(v) for v in values]`, as if `learn(values)` had come first, with each
        string scanned once: every secret found anywhere in them is masked everywhere in them.
        Placeholders are numbered in the order of `values`."""
        strings: list[str] = []
        fields: list[tuple[str, str]] = []
        spans: list[tuple[int, int] | None] = []
        for v in values:
            start, named = len(strings), len(fields)
            try:
                collect(v, strings, fields)
            except RecursionError:
                del strings[start:], fields[named:]
                spans.append(None)
                continue
            spans.append((start, len(strings)))
        batched = list(batches(strings))
        scanned = list(zip(batched, self._scan_batches(batched), strict=True))
        with self._lock:
            self._learnt(self._known.add(field_secrets(fields)))
        found = [h for batch, hits in scanned for h in self._with_known_safe(batch, hits)]
        out: list[Any] = []
        for v, span in zip(values, spans, strict=True):
            if span is None:
                out.append(self._fail())
            else:
                part = zip(strings[span[0] : span[1]], found[span[0] : span[1]], strict=True)
                out.append(self._rebuild(v, part, record=True))
        return out

    def rescan(self, value: Any) -> Any | None:
        """A last check of a JSON-like value about to be written: None if nothing in it needs
        masking, else `redact_value(value)`. Strings `redact_values` returned (since the
        redactor last learnt a secret) are not scanned again; the record of them is emptied."""
        strings: list[str] = []
        fields: list[tuple[str, str]] = []
        try:
            collect(value, strings, fields)
        except RecursionError:
            return self.redact_value(value)
        with self._lock:
            done, self._outputs = self._outputs, set()
        todo = list(dict.fromkeys(s for s in strings if s not in done))
        if fields or any(hits is None or any(h.kind != PLACEHOLDER for h in hits) for hits in self._find_safe(todo)):
            return self.redact_value(value)
        return None

    def learn(self, value: Any) -> None:
        """Read a session's strings (str, or a JSON-like value) before redacting it: a value
        found as a secret anywhere in them is then masked everywhere, before and after.
        Nothing is numbered or counted: the output is the same as without learning, but for
        those values."""
        strings: list[str] = []
        fields: list[tuple[str, str]] = []
        try:
            collect(value, strings, fields)
        except RecursionError:
            return
        self._find_safe(strings)  # the scan learns what it finds
        with self._lock:
            self._learnt(self._known.add(field_secrets(fields)))

    def know_printed(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Commands and their outputs read together (a call and its result): a secret a command
        printed by name (`echo $DB_PASSWORD`, redact/printed.py) is then masked wherever it
        stands, though no rule sees it in the output alone."""
        found = printed_values(pairs)
        if found:
            with self._lock:
                self._learnt(self._known.add((CREDENTIAL, normalise(CREDENTIAL, v), False) for v in found))

    def scan(self, text: str) -> list[Hit]:
        """What `redact` would mask (offsets, kinds, rules; no values, no counting).

        Empty on text that `redact` already produced: use it to assert nothing slipped through.
        """
        return [h for h in self._find_many([valid_text(text)])[0] if h.kind != PLACEHOLDER]

    def issued(self) -> frozenset[str]:
        """Every placeholder this redactor has put in place of a value so far (what a copy
        holding one is no longer an exact copy of: provenance's `redacted`)."""
        with self._lock:
            out = set(self._placeholders.values())
            if self._unscannable:
                out.add(UNSCANNABLE)
            return frozenset(out)

    def report(self) -> dict[str, Any]:
        """Counts of what was masked, by kind and by rule. Never values, never the mapping."""
        with self._lock:
            return {
                "enabled": True,
                "engine": f"{self._engine.name} + forsy rules",
                "by_kind": dict(sorted(self._by_kind.items())),
                "by_rule": dict(sorted(self._by_rule.items())),
                "unscannable": self._unscannable,
                # documentation placeholders seen where a secret goes (`your_password`): kept
                "placeholders": self._stand_ins,
            }

    # ------------------------------------------------------------ detection
    def _find_safe(self, texts: list[str]) -> list[list[Hit] | None]:
        """Hits per text, None for a text that could not be scanned (fail closed): each batch
        scanned, then looked up for every value known so far (learnt from it too)."""
        out: list[list[Hit] | None] = []
        for batch in batches(texts):
            out += self._with_known_safe(batch, self._find_base_safe(batch))
        return out

    def _find_many(self, texts: list[str]) -> list[list[Hit]]:
        """Scan the texts joined by a separator no rule matches across; split the hits back.
        The secrets found are learnt, and every value known so far is found too."""
        return self._with_known(texts, self._find_base(texts))

    def _find_base(self, texts: list[str]) -> list[list[Hit]]:
        """What the rules and the engine find in the texts; the secrets among it are learnt."""
        out = self._base(texts)
        self._learn(texts, out)
        return out

    def _base(self, texts: list[str]) -> list[list[Hit]]:
        """What the rules and the engine find in the texts (reading nothing learnt so far)."""
        joined = texts[0] if len(texts) == 1 else SEPARATOR.join(texts)
        found = self._scan_text(joined)
        per = [found] if len(texts) == 1 else distribute(found, [len(t) for t in texts])
        return [resolve(text, hits) if hits else hits for text, hits in zip(texts, per, strict=True)]

    def _learn(self, texts: list[str], out: list[list[Hit]]) -> None:
        # the value as written and as decoded: `Winter2001%Deploy` is also a valid URL escape
        # and each secret the rules found where their hits were merged into a wider one; and
        # whether it stands after a word for a password (_known.said_password)
        learnt = [(h.kind, v, said) for t, hits in zip(texts, out, strict=True) for h in hits if h.kind in SPREAD_KINDS
                  for s, e in dict.fromkeys(((h.start, h.end), *h.parts))
                  for v, said in said_values(t, s, e, normalise(h.kind, t[s:e]))]
        if learnt:
            with self._lock:
                self._learnt(self._known.add(learnt))

    def _scan_batches(self, batched: list[list[str]]) -> list[list[list[Hit] | None]]:
        """`_find_base_safe` of each batch, learnt from in their order. Scanning reads nothing
        learnt, so when the texts are large the later half of them is scanned in a forked
        child on the other core (forsy._aside) while this process scans the first half."""
        sizes = [sum(len(t) for t in b) for b in batched]
        half, cut = sum(sizes) / 2, 0
        while cut < len(sizes) and half > 0:
            half -= sizes[cut]
            cut += 1
        big = sum(sizes) >= ASIDE_CHARS and cut < len(batched)  # and a second half to scan
        with aside(lambda: [self._base_safe(b) for b in batched[cut:]], worth_it=big) as later:
            scanned = [self._base_safe(b) for b in batched[:cut]] + later()
        for batch, (hits, together) in zip(batched, scanned, strict=True):
            self._learn_scanned(batch, hits, together)
        return [hits for hits, _ in scanned]

    def _learn_scanned(self, texts: list[str], hits: list[list[Hit] | None], together: bool) -> None:
        if together:
            self._learn(texts, [h or [] for h in hits])
        else:  # scanned one text at a time: learnt from one at a time, as they were scanned
            for text, h in zip(texts, hits, strict=True):
                if h is not None:
                    self._learn([text], [h])

    def _base_safe(self, texts: list[str]) -> tuple[list[list[Hit] | None], bool]:
        """`_base`, and whether the batch was scanned together; a batch that fails is scanned
        one text at a time (one bad string must not take the batch with it), None for a text
        that cannot be scanned."""
        try:
            return list(self._base(texts)), True
        except Exception:
            return [self._base_alone(t) for t in texts], False

    def _base_alone(self, text: str) -> list[Hit] | None:
        try:
            return self._base([text])[0]
        except Exception:
            return None

    def _with_known(self, texts: list[str], out: list[list[Hit]]) -> list[list[Hit]]:
        """`out` (hits per text) with every place a value known so far stands."""
        with self._lock:
            known = self._known if self._known else None
        if known is None:
            return out
        joined = texts[0] if len(texts) == 1 else SEPARATOR.join(texts)
        extra = list(known(joined))
        if not extra:
            return out
        more = [extra] if len(texts) == 1 else distribute(extra, [len(t) for t in texts])
        return [resolve(t, h + e) if e else h for t, h, e in zip(texts, out, more, strict=True)]

    def _find_base_safe(self, texts: list[str]) -> list[list[Hit] | None]:
        hits, together = self._base_safe(texts)
        self._learn_scanned(texts, hits, together)
        return hits

    def _with_known_safe(self, texts: list[str], hits: list[list[Hit] | None]) -> list[list[Hit] | None]:
        whole = [h for h in hits if h is not None]
        if len(whole) == len(hits):
            try:
                return list(self._with_known(texts, whole))
            except Exception:
                pass
        return [None if h is None else self._known_alone(t, h) for t, h in zip(texts, hits, strict=True)]

    def _known_alone(self, text: str, hits: list[Hit]) -> list[Hit] | None:
        try:
            return self._with_known([text], [hits])[0]
        except Exception:
            return None

    def _learnt(self, new: bool) -> None:
        """Caller holds the lock. A secret learnt now may stand in an output returned before."""
        if new:
            self._outputs.clear()

    def _scan_text(self, text: str) -> list[Hit]:
        hits: list[Hit] = []
        for offset, chunk in chunks(text):
            found = self._scan_chunk(chunk)
            hits += [Hit(h.start + offset, h.end + offset, h.kind, h.rule,
                         tuple((a + offset, b + offset) for a, b in h.parts)) for h in found] if offset else found
        return hits

    def _scan_chunk(self, chunk: str) -> list[Hit]:
        escaped = "\\" in chunk and JSON_ESCAPE.search(chunk) is not None
        # Same length, so engine offsets stay offsets into the chunk; "\nghp_…" no longer
        # hides where the token starts (the engine wants a word boundary there).
        data = (neutralise_escapes(chunk) if escaped else chunk).encode("utf-8")
        hits, anchors = engine_pass(self._engine, chunk, data)
        hits += [h for rule in self._rules for h in rule(chunk, anchors)]
        # Decoded views: the JSON one only where a secret's value may hold an escape (costly,
        # and raw rules already read escaped quotes and newlines); the URL ones always.
        view = json_view(chunk) if anchors.want_json_view else None
        if view is not None:
            json_anchors = self._view_anchors(view.text)
            found = [h for rule in self._json_rules for h in rule(view.text, json_anchors)]
            hits += self._from_view(view, 0, found, MASKED_KINDS)  # the json rules' kinds, whatever they are
        # Where letters are escaped (`"\u0070assword"`, or `"\u5bc6\u7801"` for 密码 as Python's
        # json.dumps writes it), a rule's own words are hidden: those lines are scanned decoded,
        # by every rule, as the lines with %XX escapes are
        hits += self._scan_views(letter_views(chunk), MASKED_KINDS)
        hits += self._scan_views(ansi_views(chunk), MASKED_KINDS)  # a coloured `password: X`
        # a config or key encoded in base64 (encoded.py): masked whole where a secret is in it
        encoded = self._scan_views(base64_views(chunk, anchors), (CREDENTIAL, PRIVATE_KEY))
        hits += [Hit(h.start, h.end, h.kind, "encoded-secret") for h in encoded]
        return hits + self._scan_views(url_views(chunk), VIEW_KINDS)

    def _scan_views(self, views: list[tuple[int, View]], kinds: Iterable[str]) -> list[Hit]:
        """Hits of decoded views (scanned together, as one batch) in the raw text."""
        if not views:
            return []
        texts = [v.text for _, v in views]
        joined = SEPARATOR.join(texts)
        found, joined_anchors = engine_pass(self._engine, joined, joined.encode("utf-8"))
        found += [h for rule in self._rules for h in rule(joined, joined_anchors)]
        hits: list[Hit] = []
        for (offset, v), part in zip(views, distribute(found, [len(t) for t in texts]), strict=True):
            hits += self._from_view(v, offset, part, kinds)
        return hits

    def _view_anchors(self, text: str) -> Anchors:
        """Anchors of a JSON-decoded view. Its rules ask for ~120 cased literals (the CLI
        commands, token prefixes): a bytes.find pass for each cost more than the rest of the
        view's scan, so the engine reports them in its one pass. The any-case literals are
        still searched here, mixed case included, as before (the engine only knows three
        spellings of each); the engine's findings in the view are not used (as before)."""
        if not self._engine.reports_anchors or len(text) < ENGINE_MIN_LEN:
            return Anchors(text)
        data = text.encode("utf-8")
        found = [(f.start, f.end) for f in self._engine.scan(data) if f.rule.startswith(ANCHOR_RULE)]
        # The engine reports matches that do not overlap: a literal starting inside another
        # one's match ("zip " in "unzip ") is not reported. Every place inside a match is a
        # candidate too (Anchors keeps those where a literal really starts), so the view's
        # anchors are exactly what one bytes.find per literal finds.
        spans = byte_spans_to_char(text, data, found) if found else []
        starts = sorted({i for start, end in spans for i in range(start, max(end, start + 1))})
        return Anchors(text, data, starts, native=CASED_ANCHORS, cased_only=True)

    @staticmethod
    def _from_view(view: View, offset: int, found: list[Hit], kinds: Iterable[str] = VIEW_KINDS) -> list[Hit]:
        """Hits in a decoded view -> hits in the raw text (view starts at `offset` there)."""
        out = []
        for h in found:
            if h.kind in kinds:
                start, end = view.raw_span(h.start, h.end)
                out.append(Hit(offset + start, offset + end, h.kind, h.rule))
        return out

    # ------------------------------------------------------------ masking
    def _apply(self, text: str, hits: list[Hit] | None, record: bool = False) -> str:
        """`text` with its hits masked; `record`: remember the result for `rescan`."""
        if hits is None:
            return self._fail()
        if not hits:
            if record:
                with self._lock:
                    self._outputs.add(text)
            return text
        out: list[str] = []
        pos = 0
        with self._lock:
            for h in hits:
                if h.kind == PLACEHOLDER:  # a documentation placeholder: counted, kept
                    self._stand_ins += 1
                    continue
                out.append(text[pos : h.start])
                out.append(self._placeholder(h.kind, text[h.start : h.end]))
                self._by_kind[h.kind] += 1
                self._by_rule[h.rule] += 1
                pos = h.end
            out.append(text[pos:])
            result = "".join(out)
            if record:
                self._outputs.add(result)
        return result

    def _placeholder(self, kind: str, value: str) -> str:
        """Caller holds the lock. Same (kind, normalised value) -> same placeholder."""
        key = hashlib.blake2b(f"{kind}\0{normalise(kind, value)}".encode("utf-8", "surrogatepass"),
                              key=self._salt, digest_size=16).digest()
        placeholder = self._placeholders.get(key)
        if placeholder is None:
            self._numbers[kind] += 1
            placeholder = self._placeholders[key] = f"[{kind}_{self._numbers[kind]}]"
        return placeholder

    def _mask_field(self, value: str, kind: str = CREDENTIAL, rule: str = "secret-field") -> str:
        """A field masked whole. A secret's value is learnt (masked wherever else it stands); a
        date of birth's is not: the same date elsewhere may be anyone's, or no one's."""
        with self._lock:
            if kind == CREDENTIAL:
                self._learnt(self._known.add(field_secrets([("", value)])))
            self._by_kind[kind] += 1
            self._by_rule[rule] += 1
            return self._placeholder(kind, value)

    def _fail(self) -> str:
        with self._lock:
            self._unscannable += 1
        return UNSCANNABLE

    def _rebuild(self, value: Any, found: Iterator[tuple[str, list[Hit] | None]], record: bool = False,
                 under: str | None = None) -> Any:
        """Second walk of redact_value, in the order of `collect`, consuming its scan results."""
        if isinstance(value, str):
            return self._apply(*next(found), record)
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            pair = value_key(value, under)
            for k, v in value.items():
                key = self._apply(*next(found), record) if isinstance(k, str) else k
                if key in out:
                    raise RedactionError("two keys of one object are equal once redacted")
                out[key] = self._mask_field(v) if k == pair else self._rebuild_field(k, v, found, record)
            return out
        if isinstance(value, list | tuple):
            items = [self._rebuild(v, found, record) for v in value]
            return items if isinstance(value, list) else tuple(items)
        return self._fail()  # unknown object: cannot know what it prints

    def _rebuild_field(self, key: Any, value: Any, found: Iterator[tuple[str, list[Hit] | None]],
                       record: bool) -> Any:
        if isinstance(key, str) and is_secret_field(key, value):
            return self._mask_field(str(value))
        if isinstance(key, str) and birth_date_field(key, value):
            return self._mask_field(value, BIRTH_DATE, "birth-date-field")
        prefix = field_prefix(key, value)
        if prefix is not None:  # scanned after its name (`collect`)
            text, hits = next(found)
            if hits is None:
                return self._fail()  # unscannable: replaced whole, counted once
            redacted = self._apply(text, hits)  # not recorded: the prefix is cut below
            # the prefix holds nothing to mask, so it is still there
            return redacted[len(prefix) :] if redacted.startswith(prefix) else self._fail()
        return self._rebuild(value, found, record, key if isinstance(key, str) else None)


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


def field_secrets(fields: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str, bool]]:
    """What the values of fields masked whole teach (`{"auth": "bob:X"}`, a header's `Bearer X`,
    a quoted value), as a masked span does; (key, value) pairs, the key naming a password or not."""
    for key, value in fields:
        said = said_password_key(key)
        for v in learnt_values(value, normalise(CREDENTIAL, value)):
            yield CREDENTIAL, v, said


def normalise(kind: str, value: str) -> str:
    """One secret written raw, JSON-escaped or URL-encoded is still one value."""
    if kind in (EMAIL, PERSON):
        return " ".join(value.split()).casefold()
    if kind == PHONE:  # "(415) 555-0100" and "415.555.0100" are one number
        return "".join(c for c in value if c.isdigit())
    if kind in (PAYMENT_CARD, BANK_ACCOUNT, ID_NUMBER):  # grouped or run together: one number
        return "".join(c for c in value if c.isalnum()).upper()
    if "\\" in value:
        value = json_unescape(value)
    if "%" in value:
        value = urllib.parse.unquote(value)
    return value
