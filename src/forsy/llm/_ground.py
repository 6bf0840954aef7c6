"""Is a proposed value what its quotes say? Mechanical grounding rules, one per kind of field.

A citation check (`_evidence`) shows a quote is in the log; these rules show the *value* says
no more than the quotes do. A value that fails one is refused with the rule's reason.

Free text (observation, reasoning, state_change, causal_note, alternatives_considered,
feedback_content, directive, learning, goal_notes, description) is at most a condensation of
its quotes. After normalisation — Unicode NFKC, case folded, typographic quotes and dashes
made plain — every *term* of the value must occur in the cited quotes (all quotes of the
proposal together):

* identifiers, paths and numbers (a token holding a digit, `/`, `\\`, `.`, `_`, `:`, `@`,
  `=`, `-` inside, or an inner capital: `calc.py`, `/home/x`, `0.12`, `test_add`, `getUser`)
  must occur verbatim (case folded) in a quote: `ungrounded_identifier` / `ungrounded_number`;
* every other word of three letters or more must occur as a word of a quote, allowing only
  the inflections -s, -es, -ed, -d, -ing, -ly (`fails` ~ `failed`): `ungrounded_word`;
* exempt: `FUNCTION_WORDS` (articles, pronouns, auxiliaries, prepositions, conjunctions —
  never negations, which are meaning) and `FRAME_WORDS`, the few words a value may use to
  say whose words it restates (`the user said: …`, `candidate lesson: …`).

Negations (`not`, `no`, `never`, `n't`, `without`, …) are ordinary words here: a value may only
negate what a quote negates.

Enumerated fields need a quote of a kind these rules recognise for the value
(`enum_unsupported`, or `goal_unsupported` for goal_achieved): see `KIND_RULES`.
A field that has no meaning for its step is refused whatever it cites (`not_applicable`):
see `Checker` in `_check.py` (state_change and alternatives on a step with no action, a
causal note with nothing before it, a state_change that cites none of the step's own evidence).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

FUNCTION_WORDS = frozenset("""
the and for but nor yet its it's this that these those there their them they then than thus also
are was were been being has have had having does did doing will would shall should can could may might must
into onto from with within upon over under about above below between through during before after
while when where which who whom whose what why how all any both each every some such own same other
his her hers him she you your yours our ours ourselves itself themselves one ones very just only even so too
""".split())
FRAME_WORDS = frozenset("""
user agent assistant said says say asked asks wrote writes answered answer replied reply message messages
result results returned returns output outputs step steps tool call called command candidate lesson
summary session outcome final shown shows showed read reads reported reports quote quoted here
""".split())
_TOKEN = re.compile(r"[\w][\w./\\:@=+#%~-]*[\w%]|[\w]", re.U)
_WORD = re.compile(r"[^\W_]+", re.U)
_INNER_CAP = re.compile(r"[a-z][A-Z]")
_PLAIN = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."})
_SUFFIXES = ("ing", "es", "ed", "ly", "s", "d")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_PLAIN).casefold()


def _stem(word: str) -> str:
    for suf in _SUFFIXES:
        if len(word) > len(suf) + 2 and word.endswith(suf):
            return word[: -len(suf)]
    return word


def _is_identifier(tok: str) -> bool:
    core = tok.strip(".-:")
    return bool(re.search(r"[\d/\\_@=]", core)) or any(c in core for c in ".:-") or bool(_INNER_CAP.search(tok))


def ungrounded(value: str, quotes: Iterable[str]) -> tuple[str, str] | None:
    """(reason, the first term of `value` no quote holds) or None when every term is grounded."""
    raw_quotes = list(quotes)
    q = fold(" ".join(raw_quotes))
    q_words = set(_WORD.findall(q))
    q_stems = {_stem(w) for w in q_words}
    for tok in _TOKEN.findall(unicodedata.normalize("NFKC", value).translate(_PLAIN)):
        low = tok.casefold().strip(".-:")
        if not low:
            continue
        if re.fullmatch(r"[\d.,:%-]+", low):  # a number: as a whole number of a quote ("3" is not in "0.123")
            if not re.search(rf"(?<![\w.]){re.escape(low)}(?![\w]|\.\d)", q):
                return "ungrounded_number", tok
            continue
        if _is_identifier(tok):
            if low not in q:
                return "ungrounded_identifier", tok
            continue
        for w in _WORD.findall(low):
            if w.isdigit():
                if not re.search(rf"(?<![\d.]){re.escape(w)}(?![\d])", q):
                    return "ungrounded_number", w
                continue
            if len(w) < 3 and w not in ("no",):
                continue
            if w in FUNCTION_WORDS or w in FRAME_WORDS:
                continue
            if w not in q_words and _stem(w) not in q_stems:
                return "ungrounded_word", w
    return None


# ---------------------------------------------------------------------- kinds of quote for enumerated values
CORRECTION = re.compile(r"\b(no|not|wrong|instead|incorrect|don'?t|do not|shouldn'?t|should have|undo|revert|"
                        r"that's not|isn'?t|stop|fix (it|this|that)|rather)\b", re.I)
APPROVAL = re.compile(r"\b(yes|ok(ay)?|lgtm|looks good|great|perfect|thanks|thank you|approved?|go ahead|"
                      r"sounds good|works( now)?|correct|nice)\b", re.I)
CLARIFY = re.compile(r"\?|\b(i mean|to clarify|meaning|what i meant|by that|in other words|specifically)\b", re.I)
CONSTRAINT = re.compile(r"\b(must|always|never|only|don'?t|do not|make sure|without|instead|use|avoid|keep)\b", re.I)
# a test run or build that passed, as a tool prints it or the agent's final answer reports it
TEST_PASS = re.compile(r"\b(\d+ passed|all (\d+ )?tests? pass(ed|es)?|tests? pass(ed|es)?|build succeeded|"
                       r"ok \(\d+ tests?\b|0 failed|exit code 0)\b", re.I)
FAILURE = re.compile(r"\b(fail(ed|s|ing|ure)?|errors?|exception|traceback|could not|couldn'?t|cannot|can'?t|"
                     r"unable|not (done|fixed|working|pass\w*)|still (fails?|broken|failing)|blocked)\b", re.I)
USER_DONE = re.compile(r"\b(thanks|thank you|that works|works now|lgtm|looks good|perfect|all good|done)\b", re.I)
STOPPED = re.compile(r"\b(stop|cancel|abort|never ?mind|forget it|leave it|interrupt\w*|rejected)\b", re.I)
BLOCKED = re.compile(r"\b(cannot|can'?t|unable|blocked|permission|not allowed|need (access|you)|denied)\b", re.I)
TIMEOUT = re.compile(r"\b(timed? ?out|took too long|deadline)\b", re.I)

# message_role / feedback_type values with a kind of quote; the others need the user's own words only.
KIND_RULES: dict[str, re.Pattern[str]] = {
    "correction": CORRECTION, "approval": APPROVAL, "clarification": CLARIFY, "new_constraint": CONSTRAINT,
}
# termination_reason values (asked only when the rule says "other") and what their quotes must show.
TERMINATION_RULES: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    "user_confirmed_done": (USER_DONE, frozenset({"user"})),
    "user_abandoned": (STOPPED, frozenset({"user", "interrupt"})),
    "agent_blocked": (BLOCKED, frozenset({"agent_text"})),
    "error_unrecoverable": (FAILURE, frozenset({"tool_result", "api_error", "error"})),
    "timeout": (TIMEOUT, frozenset({"tool_result", "agent_text", "api_error", "error"})),
    "task_complete": (TEST_PASS, frozenset({"tool_result", "agent_text"})),
}
