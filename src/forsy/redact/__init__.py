"""Mask secrets and personal data in agent-log text, before anything is stored or sent.

    redactor = Redactor(user_names={"alice"}, extra_person_names={"Alice Smith"})
    safe = redactor.redact(text)              # str -> str
    safe_record = redactor.redact_value(rec)  # JSON-like value -> same shape, every string redacted
    safe_all = redactor.redact_values(recs)   # a session at once: each string scanned once, secrets learnt
    redactor.report()                         # counts only: never values, never the mapping

Detection = the kingfisher engine (offline, in-process; its validation and revocation
parts, which call providers over the network, are never used) + forsy's own rules (rules.py
and the modules it gathers) for what the engine misses in logs: `password = …` assignments,
auth headers, cookies, passwords in URLs or in other languages, unnamed tokens, personal data.

Every hit is replaced by a typed placeholder (`[CREDENTIAL_1]`, `[EMAIL_2]`…), the same for a value
for the life of one Redactor, numbered in order of first appearance (the same input,
byte-identical output); the value -> placeholder mapping lives only in memory, salted-hashed.

Escaped text: agent logs keep secrets JSON-escaped (tool arguments are JSON in a string)
or URL-encoded. Rules read one or more levels of escaping in place; where a value holds
escapes, and on lines with %XX escapes, the text is also scanned in a decoded view that
maps each span found back to the original, where it is masked in its encoded form.

Speed: the rules run where literals occur (found by the engine in its native pass, or with
bytes.find), never as regexes sliding over the whole text. Short strings are scanned together
(~10x faster than one call each); a large session's texts in two processes where it may fork
(forsy._aside). One Redactor is safe to share between threads (a lock guards its numbering).

Fail closed: a string that cannot be scanned (engine error, unknown object) becomes
`[UNSCANNABLE_TEXT]` and is counted in `report()["unscannable"]`.
"""

from __future__ import annotations

from ._base import (
    ADDRESS,
    BANK_ACCOUNT,
    BIRTH_DATE,
    CREDENTIAL,
    EMAIL,
    ID_NUMBER,
    IP_ADDRESS,
    NUMBERED_PLACEHOLDER_RE,
    PATH_USER,
    PAYMENT_CARD,
    PERSON,
    PHONE,
    PLACEHOLDER_RE,
    PRIVATE_KEY,
    Hit,
)
from ._engine import EngineHit, KingfisherEngine, SecretEngine, rules_state, shared_engine, warm_engine
from ._redactor import UNSCANNABLE, Redactor, user_names_from_paths
from ._split import CHUNK, OVERLAP, chunks

__all__ = [
    "ADDRESS", "BANK_ACCOUNT", "BIRTH_DATE", "CHUNK", "CREDENTIAL", "EMAIL", "ID_NUMBER", "IP_ADDRESS",
    "NUMBERED_PLACEHOLDER_RE", "OVERLAP", "PATH_USER", "PAYMENT_CARD", "PERSON", "PHONE", "PLACEHOLDER_RE",
    "PRIVATE_KEY", "UNSCANNABLE", "EngineHit", "Hit", "KingfisherEngine", "Redactor", "SecretEngine", "chunks",
    "rules_state", "shared_engine", "user_names_from_paths", "warm_engine",
]
