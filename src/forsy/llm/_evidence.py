"""What the model may cite, and the mechanical checks of each citation.

The model sees excerpts of the evidence texts below and must quote them. A quote passes when,
after whitespace is normalised (runs of whitespace → one space; no other change, so the
matched span maps back to the evidence's exact characters), it is an exact substring of the
cited evidence's text and at least `EXACT_MIN_CHARS` long (or the whole text, when the text
is shorter than that). There is no fuzzy match: edit distance 0. A near copy — one character
changed in a long quote — is a different text and fails (`quote_not_found`); a fuzzy bound
would let "ran the tests again" pass for "ran the tests", and the value checks that follow
(`_ground`) rest on the quote being the log's own words.

Independently of where it was found, a quote (or a value) that looks like an instruction aimed
at the tracer is rejected as `injection_suspect`: log text is data, never instructions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from ..evidence import Session
from ..rules.segment import Draft, json_text

EXACT_MIN_CHARS = 12
MAX_EDIT_DISTANCE = 0  # after whitespace normalisation; stated in the report
TAINT_MIN_SCORE = 90.0  # partial_ratio of an injected payload inside a proposed value

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.U)
# Words that say nothing about the evidence: a value made only of these and its own claims is not grounded.
STOPWORDS = frozenset("""
about above after again against also because been before being below between both could does doing down during
each from further have having here into itself just more most once only other over same should some such than
that their them then there these they this those through under until very were what when where which while who
whom will with would your step steps agent user tool call calls called result results returned previous showed
shows shown read reads said says value values field fields session candidate lesson future
""".split())

# Instructions aimed at whoever reads the log (the tracer, a model), not at the agent's work.
# Deliberately narrow on "you must": users legitimately tell the agent "you must use pnpm".
INJECTION_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.I) for p in (
    r"\b(ignore|disregard|forget|override)\b.{0,20}\b(previous|prior|above|earlier|preceding|all|any|your|these|"
    r"the)\b.{0,20}\b(instructions?|rules|prompts?|directions|guidelines|context)\b",
    # "write that the task succeeded": a verdict dictated to whoever records the session
    r"\b(write|say|claim|declare|pretend|report|state|record|conclude)\s+(down\s+)?that\s+(the\s+)?(task|goal|work|"
    r"job|fix|tests?|it|everything|this|session|agent)\b[^.\n]{0,40}\b(succe\w*|complete\w*|done|pass\w*|achiev\w*|"
    r"true|fixed|work\w*|resolved|fine|correct)",
    r"\byou\s+(must|have\s+to|need\s+to|should|are\s+required\s+to)\s+(now\s+)?(not\s+)?(say|state|report|"
    r"claim|declare|conclude|mark|classify|label|record|ignore)\b",
    r"\b(goal_achieved|termination_reason|feedback_type|message_role|agent_confidence)\b",
    r"\b(system\s+prompt|new\s+instructions|as\s+an\s+ai\b|language\s+model|the\s+tracer|the\s+annotator)",
    r"</?\s*(evidence|step|session|system|instructions?)\b[^>]*>",
))
# A claim of success typed by a person (or planted in a file) is not a result showing success.
SUCCESS_CLAIM = re.compile(
    r"\b(task|goal|job|work|fix|request)\s+(has\s+|was\s+|is\s+)?(been\s+)?(succeeded|successful(ly)?|complete[d]?|"
    r"achieved|accomplished|done|solved)\b", re.I)
# The payload of "write that X" / "say that X": X must not turn up in a proposed value.
PAYLOAD = re.compile(
    r"\b(?:write|say|claim|declare|pretend|report|state)\s+(?:down\s+)?that\s+(.{6,160}?)(?:[.!?\n\"]|$)", re.I)
TAINT_WINDOW = 300  # characters around an injection match searched for a payload


def normalize(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _norm_map(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index in `text` it came from."""
    out: list[str] = []
    idx: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            space = bool(out)
            continue
        if space:
            out.append(" ")
            idx.append(i - 1)
            space = False
        out.append(ch)
        idx.append(i)
    return "".join(out), idx


@dataclass
class Match:
    span: str  # the evidence's own text that the quote matched
    score: float  # 100: only exact matches pass (kept in provenance for readers of older traces)
    pointer: str  # JSON pointer of the event text holding it ("" when it spans several)


@dataclass
class EvidenceIndex:
    """Per evidence id: the (redacted) text forsy read from it, its pieces, and what kind of record it is."""

    texts: dict[str, str] = field(default_factory=dict)
    pieces: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # id → [(pointer, text)]
    kinds: dict[str, set[str]] = field(default_factory=dict)  # id → {"user", "tool_result", "agent_text", ...}
    payloads: list[str] = field(default_factory=list)  # normalised, lower-cased injected payloads

    def find(self, ev_id: str, quote: str) -> Match | None:
        text = self.texts.get(ev_id)
        if text is None:
            return None
        return _find(text, quote, tuple(self.pieces.get(ev_id, ())))

    def tainted(self, value: str) -> bool:
        """Does `value` repeat what an injected instruction in the log asked to be written?"""
        v = normalize(value).lower()
        for p in self.payloads:
            if p in v or (len(p) >= 12 and fuzz.partial_ratio(p, v, score_cutoff=TAINT_MIN_SCORE)):
                return True
        return False


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in STOPWORDS}


def shares_words(value: str, quotes: list[str]) -> bool:
    """Does a proposed text state at least one content word of what it cites? (a floor, not proof)"""
    words = content_words(value)
    return not words or bool(words & content_words(" ".join(quotes)))


def looks_injected(text: str) -> bool:
    return any(p.search(text) for p in INJECTION_PATTERNS)


def build_index(session: Session) -> EvidenceIndex:
    idx = EvidenceIndex()
    for e in session.events:
        parts = []
        if e.text is not None:
            parts.append(e.text)
        if e.args is not None:
            parts.append(json_text(e.args))
        for ref in e.refs:
            idx.kinds.setdefault(ref.ev, set()).add(e.kind)
            for p in parts:
                idx.pieces.setdefault(ref.ev, []).append((ref.pointer, p))
    for ev_id, pieces in idx.pieces.items():
        idx.texts[ev_id] = "\n".join(t for _, t in pieces)
    payloads: set[str] = set()
    # each distinct text once: a terminal recording's command output is the text of every one of
    # its output events (over a thousand ids for one command), and scanning each copy took minutes
    for text in set(idx.texts.values()):
        for pat in INJECTION_PATTERNS:
            for hit in pat.finditer(text):
                window = text[max(0, hit.start() - TAINT_WINDOW): hit.end() + TAINT_WINDOW]
                for m in PAYLOAD.finditer(window):
                    p = normalize(m.group(1)).lower().rstrip(" ,;:")
                    if len(p) >= 6:
                        payloads.add(p)
    idx.payloads = sorted(payloads)
    return idx


def step_evidence(d: Draft, name: str) -> list[str]:
    p = d.prov.get(name)
    return [e.id for e in p.evidence] if p is not None else []


@lru_cache(maxsize=512)
def _normalized(text: str) -> tuple[str, tuple[int, ...]]:
    n, m = _norm_map(text)
    return n, tuple(m)


def _find(text: str, quote: str, pieces: tuple[tuple[str, str], ...]) -> Match | None:
    q = normalize(quote)
    if not q:
        return None
    norm, where = _normalized(text)
    pos = norm.find(q)
    if pos >= 0 and (len(q) >= EXACT_MIN_CHARS or len(q) == len(norm)):
        span = text[where[pos]: where[pos + len(q) - 1] + 1]
        return Match(span, 100.0, _pointer(span, pieces))
    return None


def _pointer(span: str, pieces: tuple[tuple[str, str], ...]) -> str:
    hits = {ptr for ptr, t in pieces if span in t}
    return hits.pop() if len(hits) == 1 else ""
