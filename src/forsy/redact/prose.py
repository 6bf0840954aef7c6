"""Secrets in prose: "admin password X", "the root pw is X", "password for the db is X",
"my api token X", "use X as the password". The position is weak, so the value must look like
a password (`password_like`) or, after a word for a token, like a machine-made one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, after_escape, looks_random
from ._values import code_like, mixed_case_literal, mixed_literal, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

_PROSE_WORDS = ("password", "passwd", "passphrase", "passcode", "pwd", "pw", "token", "secret", "api key", "apikey",
                "private key", "pass", "recovery code", "backup code", "totp seed", "otp seed", "mfa seed")
# searched as the assignment rule's keywords (one search each, shared), "pw", and the labels of
# one-time codes (an account's recovery codes, an authenticator's seed), rare in logs
_PROSE_ANCHORS = ("pass", "pw", "secret", "token", "key", "recovery code", "backup code", "otp seed", "mfa seed")
# words after which only a machine-made value is one ("the recovery code 3 of 10" stays)
_PROSE_TOKEN_WORDS = frozenset({"token", "secret", "api key", "apikey", "private key", "recovery code", "backup code",
                                "totp seed", "otp seed", "mfa seed"})
# words that may stand between the secret word and its value ("password for the db is now X")
_FILLER = frozenset({"for", "of", "on", "the", "a", "an", "my", "our", "your", "this", "that", "new", "old", "is",
                     "was", "are", "now", "will", "be", "set", "to", "changed", "db", "database", "user", "admin",
                     "root", "account", "server", "here", "it's", "=", ":", "-", "->", "=>", "is:", "still"})
# "user bob pass X", "login bob, pass X": a user named just before makes "pass" a label
_USER_BEFORE = re.compile(r"(?:\buser(?:name)?|\blogin)[ \t]+[^\s,;]{1,64}[,;]?[ \t]+\Z", re.IGNORECASE)
_PROSE_WORD = re.compile(r"[^\s\"'`\\<>]{1,256}")
# what ends a sentence after a value and is not the value's: not `!`, which ends many a password
# a person made (`Summer2024!`), and is masked with it when it ends the sentence instead
_TRAILING = ".,;:?)"


def prose_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """"admin password X", "the root pw is X", "password for the db is X", "my api token X":
    X when it looks like a password (a token-like value after token/secret/api key)."""
    done = -1
    for i in anchors.find(_PROSE_ANCHORS, ignore_case=True):
        if text[i : i + 3].lower() == "key":  # "api key", "apikey", "private key"
            lead = text[max(0, i - 8) : i].lower()
            i -= 8 if lead == "private " else 4 if lead.endswith("api ") else 3 if lead.endswith("api") else 0
        if text[i : i + 8].lower() == "otp seed" and text[i - 1 : i].lower() == "t":
            i -= 1  # "totp seed": found as "otp seed"
        if i < done or (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_-.$") and not after_escape(text, i)):
            continue
        head = text[i : i + 13].lower()
        word = next((w for w in _PROSE_WORDS if head.startswith(w)), None)
        if word is None:
            continue
        end = i + len(word)
        if end < len(text) and (text[end].isalnum() or text[end] in "_-.("):
            continue  # "tokens", "token_count", "secretName": not the word alone
        if word == "pass" and text[end : end + 1] != ":" and not _USER_BEFORE.search(text, max(0, i - 80), i):
            continue  # "pass" is a verb; "user: admin pass: X" is a label, and so is "user bob pass X"
        before = _value_before(text, i, word)
        if before is not None:  # "use X as the password"
            done = before.end
            yield before
            continue
        label = end < len(text) and text[end] in ":="
        if label:
            end += 1  # "password: X", "token=X" (assignments are read first; this is prose)
        named, start, clause, near = 0, end, False, True
        for _ in range(7):
            while end < len(text) and text[end] in " \t":
                end += 1
            if label and named == 0:  # "Here's the token:" and the value on the next line
                end += 1 if text.startswith("\n", end) else 2 if text.startswith("\\n", end) else 0
                label = False
            quoted = _quoted_at(text, end) if text[end - 1] in " \t:=" else None  # `"password",` ends a string
            if quoted is not None:  # "password 'X'", "set the password to \"X\""
                vs, ve = quoted
                value = text[vs:ve]
                ok = _token_like(value) if word in _PROSE_TOKEN_WORDS else password_like(value) or mixed_literal(value)
                if ok and not code_like(value) and not pathish(value):  # "passphrase for key '/root/.ssh/id_rsa'"
                    done = ve
                    yield Hit(vs, ve, CREDENTIAL, "prose-secret")
                break
            m = _PROSE_WORD.match(text, end)
            if m is None or (end > 0 and text[end - 1] not in " \tn\n"):
                break  # prose puts a blank before the value (`password:O,` is code)
            token = m.group()
            low = token.lower().rstrip(":")
            if low in _FILLER:
                near = near and low in _VERBS
                end = m.end()
                continue
            value = token.rstrip(_TRAILING)
            if value.startswith("-"):
                break  # a flag (`secret generic api --from-literal=k=X`): a command, not prose
            if named < 2 and token.isalpha() and token.islower():
                named += 1  # "for deploy", "the staging db": up to two plain words, then the value
                near = False
                end = m.end()
                continue
            if _prose_value(word, value, typed=near):
                done = end + len(value)
                yield Hit(end, done, CREDENTIAL, "prose-secret")
            else:
                clause = True  # not right here: maybe after the clause's verb
            break
        else:
            clause = True  # words all along: the value may come after them
        if clause and (later := _clause_value(text, start, word)) is not None:
            done = later.end
            yield later


def _prose_value(word: str, value: str, *, typed: bool = False) -> bool:
    """`typed`: the value stands right after the word or its verb ("password X", "the password
    is X", "password: X"), where a password a person typed is one too (`typed_password`)."""
    if word in _PROSE_TOKEN_WORDS:
        ok = _token_like(value)
    else:
        ok = password_like(value) or mixed_case_literal(value) or (typed and typed_password(value))
    return ok and not pathish(value) and not code_like(value) and _TIME.match(value) is None


# what may stand between a word for a password and the password itself, for `typed_password`
_VERBS = frozenset({"is", "was", "are", "now", "still", "to", "=", ":", "-", "->", "=>", "is:"})
_TYPED = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
_WORD_AND_YEAR = re.compile(r"[A-Z][a-z]{2,15}\d{2,6}[!@#$%&*?.]?")


def typed_password(value: str) -> bool:
    """A password as people make them: lower-case letters and digits, maybe joined by `-` or
    `_` (`hunter2butlonger9`, `qwerty123456`, `tangerine-velvet-88`), long enough (10-64) not
    to be a hash's or a version's name (`sha256`, `argon2id`, `utf8mb4`), with 3+ letters and
    2+ digits (not a number, not a word); or a capitalised word and a number (`Winter2025`,
    `Summer2024!`, `Password123`)."""
    if _WORD_AND_YEAR.fullmatch(value) is not None:
        return True
    return (10 <= len(value) <= 64 and _TYPED.fullmatch(value) is not None and sum(c.isdigit() for c in value) >= 2
            and sum(c.isalpha() for c in value) >= 3)


_TIME = re.compile(r"\d{4}-\d\d-\d\d|\d{1,2}:\d\d(?::\d\d)?(?:\D|$)")  # "rotated at: 2024-05-01T10:22Z"


# The value after the clause's verb or colon, further on: "The password for user bob has been
# set to X.", "A temporary password is generated for root@localhost: X" (mysqld's first start);
# or in parentheses: "the API key you gave me (X) is invalid"; the verb's `now` or `still` is no
# value ("the password for the db is now X")
_INTRODUCER = re.compile(r"(?:(?:[ \t](?:is|was|are|to|as)(?:[ \t]+(?:now|still))?|:)[ \t]+|[ \t]\()"
                         r"(?P<v>[^\s\"'`\\<>]{1,256})", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\n|\\n")
_CLAUSE = 160  # characters of one clause read after the word


def _clause_value(text: str, pos: int, word: str) -> Hit | None:
    stop = _CLAUSE_END.search(text, pos, pos + _CLAUSE)
    end = stop.start() if stop is not None else min(len(text), pos + _CLAUSE)
    for m in _INTRODUCER.finditer(text, pos, end + 1):
        value = m["v"].rstrip(_TRAILING)
        if _prose_value(word, value, typed=True):  # right after its verb ("has been set to X")
            return Hit(m.start("v"), m.start("v") + len(value), CREDENTIAL, "prose-secret")
    return None


_AS_THE = re.compile(r"(?P<q>['\"]?)(?P<v>[^\s'\"]{6,256})(?P=q)[ \t]+as[ \t]+"
                     r"(?:the[ \t]+|my[ \t]+|your[ \t]+|a[ \t]+)?$", re.IGNORECASE)


def _token_like(value: str) -> bool:
    """A token in prose: random, with a digit (`OpenAI-compatible` is random enough, but words)."""
    return looks_random(value, 16) and any(c.isdigit() for c in value) and not _JOINED_WORDS.fullmatch(value)


_JOINED_WORDS = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)+")


def _value_before(text: str, i: int, word: str) -> Hit | None:
    """"use X as the password", "X as my api token": X, when it looks like one."""
    m = _AS_THE.search(text, max(0, i - 300), i)
    if m is None:
        return None
    value = m["v"]
    ok = _token_like(value) if word in _PROSE_TOKEN_WORDS else password_like(value)
    return Hit(m.start("v"), m.end("v"), CREDENTIAL, "prose-secret") if ok and not code_like(value) else None


def _quoted_at(text: str, pos: int) -> tuple[int, int] | None:
    """The inside of a quoted word at pos (one line, no blank), or None."""
    if pos >= len(text) or text[pos] not in "'\"`":
        return None
    close = text.find(text[pos], pos + 1, pos + 258)
    if close < 0 or any(c in " \t\n\\" for c in text[pos + 1 : close]):
        return None
    return pos + 1, close


_DOTTED_NAME = re.compile(r"[\w-]+(?:\.[\w-]+){2,}")  # a host, a package, a version


def pathish(value: str) -> bool:
    """A path, a URL, a dotted name (a host, a package, a version) or a call: not a secret."""
    return value.startswith(("/", "~/", "./", "http")) or "/" in value or _DOTTED_NAME.fullmatch(value) is not None or (
        "=" in value and "(" in value)


# ---------------------------------------------------------------- a passphrase is words
# "passphrase: correct horse battery staple", "the seed phrase is …", `PASSPHRASE="four plain
# words"`: after a word for a phrase and what introduces its value, a run of 3 to 24 plain words
# up to the clause's end is one secret (the rules above take one word, and leave the rest in
# clear). A run with a function word in it is prose about the phrase: "the passphrase is
# stored in the vault", "no passphrase is set for this key".
PHRASE_ANCHORS = ("phrase", "mnemonic")
_PHRASE = re.compile(
    r"(?:pass[ _-]?|seed[ _-]|recovery[ _-]|secret[ _-]|backup[ _-]|mnemonic[ _-])?(?:phrase|mnemonic)"
    r"(?P<intro>[ \t]+(?:is|was|will[ \t]+be|has[ \t]+been[ \t]+set[ \t]+to|set[ \t]+to))?"
    r"[ \t]*(?P<label>[:=]?)[ \t]*(?P<q>[\"']?)"
    r"(?P<v>[A-Za-z]{2,12}(?:[ -][A-Za-z]{2,12}){2,23})(?![\w-])",
    re.IGNORECASE)
_PROSE_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "is", "are", "was", "be", "been", "in", "on", "at", "to", "of", "for", "from", "by", "with",
    "and", "or", "not", "no", "it", "its", "this", "that", "these", "those", "you", "your", "we", "our", "my",
    "i", "as", "if", "then", "when", "will", "can", "should", "must", "may", "do", "does", "has", "have",
    "set", "stored", "saved", "required", "needed", "used", "using", "use", "see", "enter", "empty", "none",
    "protected", "encrypted", "prompt", "prompted", "asked", "given", "provided", "missing", "wrong", "incorrect",
})


def phrase_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The words of a passphrase or a seed phrase after its label, whole."""
    done = -1
    for i in anchors.find(PHRASE_ANCHORS, ignore_case=True):
        start = max(done, i - 9)  # the label may begin up to "recovery " before the anchor
        m = _PHRASE.search(text, start, i + 200)
        if m is None or m.start() > i or (m.start() > 0 and text[m.start() - 1].isalnum()):
            continue
        if not (m["label"] or m["q"] or m["intro"]):
            continue  # "passphrase protected keys": nothing says that a value follows
        value = m["v"]
        words = value.lower().replace("-", " ").split()
        if any(w in _PROSE_FUNCTION_WORDS for w in words):
            continue
        done = m.end("v")
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "phrase-secret")


# ---------------------------------------------------------------- a user and a secret said together
# "creds: bob / X", "the credentials are bob / X", "login: bob / X", "Login with admin / X",
# "user admin / pass X", "username: bob, pw: X": a person writes the pair in one breath, with a
# slash or a second label between. The secret must look like one on its own (`admin/admin` is a
# default being named; a word is a guess).
PAIR_ANCHORS = ("cred", "login")
_PAIR = re.compile(
    r"(?:creds?|credentials?|logins?)(?:[ \t]+(?:is|are|were|was|with|as|for\b[^:\n]{0,40}?))?[ \t]*[:=]?[ \t]+"
    r"(?P<user>[\w.@+-]{1,64})[ \t]*(?:/|[ \t]:[ \t]|,)[ \t]*(?P<v>[^\s\"'`\\<>]{6,128})", re.IGNORECASE)
_USER_THEN_PASS = re.compile(
    r"\b(?:user(?:name)?|login)[ \t]*[:=]?[ \t]+[\w.@+-]{1,64}[ \t]*[/,;|]?[ \t]*$", re.IGNORECASE)
_AFTER_PASS = re.compile(r"(?:pass(?:word)?|pwd?)[ \t]*[:=]?[ \t]+(?P<v>[^\s\"'`\\<>]{6,128})", re.IGNORECASE)


def pair_in_prose(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The secret of a user and a secret written together in prose."""
    for i in anchors.find(PAIR_ANCHORS, ignore_case=True):
        if i > 0 and text[i - 1].isalnum():
            continue
        m = _PAIR.match(text, i, i + 300)
        if m is not None and (hit := _pair_value(text, m.start("v"), m["v"])) is not None:
            yield hit
    for i in anchors.find(("pass", "pw"), ignore_case=True):  # "user admin / pass X"
        if (i > 0 and text[i - 1].isalnum()) or _USER_THEN_PASS.search(text, max(0, i - 80), i) is None:
            continue
        m = _AFTER_PASS.match(text, i, i + 200)
        if m is not None and (hit := _pair_value(text, m.start("v"), m["v"])) is not None:
            yield hit


def _pair_value(text: str, start: int, value: str) -> Hit | None:
    value = value.rstrip(_TRAILING)
    ok = (password_like(value, 6) or mixed_literal(value)) and not code_like(value) and not pathish(value)
    return Hit(start, start + len(value), CREDENTIAL, "pair-in-prose") if ok else None
