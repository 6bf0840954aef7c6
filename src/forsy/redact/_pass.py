"""The engine's one pass over a text: its findings as hits, and the anchors it reports for the
rules (literals, and the places where a phone, a card number, a pair, a token prefix, a seed
phrase, a postcode or one of the rules' shapes may stand)."""

from __future__ import annotations

from ._anchors import Anchors
from ._base import CREDENTIAL, PRIVATE_KEY, Hit
from ._engine import (
    ANCHOR_RULE,
    NUMBER_ANCHOR_RULE,
    PAIR_ANCHOR_RULE,
    PHONE_ANCHOR_RULE,
    POSTCODE_ANCHOR_RULE,
    PREFIX_ANCHOR_RULE,
    SEED_ANCHOR_RULE,
    SHAPE_ANCHOR_PATTERNS,
    SHAPE_ANCHOR_RULE,
    SecretEngine,
)
from ._native import NATIVE_ANCHORS
from ._views import byte_spans_to_char

# Too short to hold anything the engine matches (its shortest rules need more context)
ENGINE_MIN_LEN = 8
_SHAPE_PREFIX = SHAPE_ANCHOR_RULE + "."


def engine_pass(engine: SecretEngine, text: str, data: bytes) -> tuple[list[Hit], Anchors]:
    """Engine findings in `text` (whose UTF-8, maybe neutralised, is `data`), and the
    anchors for the rules (with the engine's anchor positions when it reports them)."""
    scanned = len(text) >= ENGINE_MIN_LEN
    found = engine.scan(data) if scanned else []
    # a text too short for the engine has no engine anchors: its rules search it themselves
    # (`CVV 737`: with `[]` here, every literal the engine answers for went unsearched)
    reports = engine.reports_anchors and scanned
    anchors = Anchors(text, data, [] if reports else None, native=NATIVE_ANCHORS)
    hits: list[Hit] = []
    if found:
        spans = byte_spans_to_char(text, data, [(f.start, f.end) for f in found])
        tokens: list[int] = []
        phones: list[int] = []
        numbers: list[tuple[int, int]] = []
        pairs: list[tuple[int, int]] = []
        prefixes: list[int] = []
        words: list[tuple[int, int]] = []
        postcodes: list[int] = []
        shapes: dict[str, list[tuple[int, int]]] = {name: [] for name in SHAPE_ANCHOR_PATTERNS}
        for f, (start, end) in zip(found, spans, strict=True):
            if f.rule == PHONE_ANCHOR_RULE:
                phones.append(start)
            elif f.rule == NUMBER_ANCHOR_RULE:
                numbers.append((start, end))
            elif f.rule == PAIR_ANCHOR_RULE:
                pairs.append((start, end))
            elif f.rule == PREFIX_ANCHOR_RULE:
                prefixes.append(start)
            elif f.rule == SEED_ANCHOR_RULE:
                words.append((start, end))
            elif f.rule == POSTCODE_ANCHOR_RULE:
                postcodes.append(start)
            elif f.rule.startswith(_SHAPE_PREFIX):
                shapes.setdefault(f.rule[len(_SHAPE_PREFIX) :], []).append((start, end))
            elif f.rule.startswith(ANCHOR_RULE):
                # every place inside a match: the engine reports matches that do not
                # overlap, so a literal starting inside another's (`-u ` in ` -u x`) is
                # found only there (Anchors keeps the places where a literal really starts)
                tokens.extend(range(start, max(end, start + 1)))
            elif end > start:
                kind = PRIVATE_KEY if "private-key" in f.rule or "private_key" in f.rule else CREDENTIAL
                hits.append(Hit(start, end, kind, "kingfisher:" + f.rule))
        if reports:
            anchors.engine, anchors.phone, anchors.numbers = sorted(set(tokens)), sorted(phones), sorted(numbers)
            anchors.pairs, anchors.prefixes, anchors.words = sorted(pairs), sorted(prefixes), sorted(words)
            anchors.postcodes = sorted(postcodes)
            anchors.shapes = {name: sorted(s) for name, s in shapes.items()}
    elif reports:
        anchors.phone, anchors.numbers, anchors.pairs, anchors.prefixes, anchors.words = [], [], [], [], []
        anchors.postcodes = []
        anchors.shapes = {name: [] for name in SHAPE_ANCHOR_PATTERNS}
    return hits, anchors
