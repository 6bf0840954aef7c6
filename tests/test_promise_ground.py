"""A model's value says no more than its quotes (llm/_ground.py): each term rule, shown
accepting what the quotes hold and refusing, by name, the first term they do not."""

from __future__ import annotations

import pytest

from forsy.llm._ground import (
    APPROVAL,
    BLOCKED,
    CLARIFY,
    CONSTRAINT,
    CORRECTION,
    FAILURE,
    STOPPED,
    TEST_PASS,
    TIMEOUT,
    USER_DONE,
    _is_identifier,
    _stem,
    fold,
    ungrounded,
)


@pytest.mark.parametrize(("value", "quotes", "expected"), [
    # words: present, inflected, or absent
    ("The tests failed", ["3 tests failed"], None),
    ("test fails", ["the test failed"], None),  # -s ~ -ed
    ("it is testing", ["tested it"], None),  # -ing ~ -ed
    ("quickly fixed", ["quick fix"], None),  # -ly, -ed
    ("boxes", ["the box"], None),  # -es
    ("The build broke", ["the build failed"], ("ungrounded_word", "broke")),
    ("deleted the cache", ["cleared the cache"], ("ungrounded_word", "deleted")),
    ("not fixed", ["fixed"], ("ungrounded_word", "not")),  # a negation is meaning
    ("no change", ["change"], ("ungrounded_word", "no")),  # "no" counts though it is short
    ("an ox", ["cow"], None),  # words under three letters are not checked
    ("the user said which one", ["yes"], None),  # frame and function words are free...
    ("the user said which one yes", ["no"], ("ungrounded_word", "yes")),  # ...everything else must be quoted
    ("running", ["run"], ("ungrounded_word", "running")),  # a suffix is dropped, no more (runn ≠ run)
    # identifiers and paths: verbatim, case folded
    ("Edited calc.py", ["edited calc.py"], None),
    ("Edited calc.py", ["edited calc"], ("ungrounded_identifier", "calc.py")),
    ("ran test_add", ["RAN TEST_ADD"], None),
    ("ran test_sub", ["ran test_add"], ("ungrounded_identifier", "test_sub")),
    ("read /home/x", ["read /home/x/y"], None),
    ("read /home/z", ["read /home/x"], ("ungrounded_identifier", "home/z")),  # a token starts at a letter
    ("getUser failed", ["getuser failed"], None),
    ("getUser failed", ["get user failed"], ("ungrounded_identifier", "getUser")),
    ("a-b", ["a b"], ("ungrounded_identifier", "a-b")),
    ("host:port", ["host port"], ("ungrounded_identifier", "host:port")),
    ("me@x", ["me x"], ("ungrounded_identifier", "me@x")),
    ("k=v", ["k v"], ("ungrounded_identifier", "k=v")),
    # numbers: whole numbers of a quote
    ("took 3 seconds", ["took 3 seconds"], None),
    ("took 3 seconds", ["took 0.123 seconds"], ("ungrounded_number", "3")),
    ("took 12 seconds", ["took 123 seconds"], ("ungrounded_number", "12")),
    ("0.12", ["score 0.123"], ("ungrounded_number", "0.12")),
    ("0.12", ["score 0.12."], None),
    ("50%", ["coverage 50%"], None),
    ("5 passed", ["15 passed"], ("ungrounded_number", "5")),
    ("v2 ok", ["version 2 ok"], ("ungrounded_identifier", "v2")),
    ("item 7b", ["item 7"], ("ungrounded_identifier", "7b")),
    # typography and Unicode are normalised on both sides
    ("the user’s fix – done", ["the user's fix - done"], None),
    ("ﬁle", ["file"], None),  # NFKC ligature
    ("...", ["x"], None),  # punctuation alone holds no term
    ("", [], None),
    ("3 dragons", ["3 files"], ("ungrounded_word", "dragons")),  # a grounded number excuses nothing after it
    ("calc.py dragons", ["calc.py"], ("ungrounded_word", "dragons")),  # nor does a grounded identifier
])
def test_a_value_is_grounded_term_by_term(value: str, quotes: list[str], expected: tuple[str, str] | None) -> None:
    assert ungrounded(value, quotes) == expected


def test_all_quotes_together_ground_a_value() -> None:
    assert ungrounded("cache cleared twice", ["the cache", "was cleared", "twice"]) is None
    assert ungrounded("cache cleared twice", ["the cache", "was cleared"]) == ("ungrounded_word", "twice")


def test_an_identifier_of_capitals_is_checked_verbatim() -> None:
    assert ungrounded("X-X", ["x x"]) == ("ungrounded_identifier", "X-X")
    assert ungrounded("X-X", ["x-x"]) is None


def test_a_digit_that_is_not_ascii_is_a_number_too() -> None:
    """Ethiopic digit one (U+1369): a digit to str.isdigit, not to `\\d`, unchanged by NFKC."""
    assert ungrounded("step \u1369", ["step"]) == ("ungrounded_number", "\u1369")
    assert ungrounded("step \u1369", ["step \u1369"]) is None


@pytest.mark.parametrize("value", ["ab+zzzz", "the+zzzz", "\u1369+zzzz"])
def test_every_word_of_a_joined_token_is_checked(value: str) -> None:
    """`+` joins words into one token that is no identifier: a short, a function word or a
    digit first does not excuse the words after it."""
    assert ungrounded(value, ["ab the \u1369"]) == ("ungrounded_word", "zzzz")


def test_quotes_are_words_not_substrings() -> None:
    assert ungrounded("cat", ["concatenate"]) == ("ungrounded_word", "cat")


@pytest.mark.parametrize(("word", "stem"), [
    ("running", "runn"), ("boxes", "box"), ("failed", "fail"), ("quickly", "quick"), ("tests", "test"),
    ("saved", "sav"), ("sing", "sing"), ("bed", "bed"), ("is", "is"), ("uses", "use"), ("bled", "ble"),
])
def test_stems_drop_one_suffix_from_words_long_enough(word: str, stem: str) -> None:
    assert _stem(word) == stem


@pytest.mark.parametrize(("tok", "ident"), [
    ("calc.py", True), ("a_b", True), ("x/y", True), ("a\\b", True), ("me@x", True), ("k=v", True), ("v2", True),
    ("a-b", True), ("a:b", True), ("getUser", True), ("word", False), ("Word", False), ("word.", False),
    ("-word", False), ("WORD", False), (":word:", False), ("Xylophone", False), ("X-X", True),
])
def test_identifiers_are_tokens_with_digits_separators_or_inner_capitals(tok: str, ident: bool) -> None:
    assert _is_identifier(tok) is ident


def test_fold_normalises_case_quotes_dashes_and_ellipses() -> None:
    assert fold("“Ça” — ‘x’ – y…") == "\"ça\" - 'x' - y..."


@pytest.mark.parametrize(("pattern", "yes", "no"), [
    (CORRECTION, ["No, use tabs", "that's wrong", "revert it", "fix this", "do not"], ["sure thing", "know"]),
    (APPROVAL, ["LGTM", "looks good", "okay", "thank you", "works now", "approve"], ["broken", "book"]),
    (CLARIFY, ["which one?", "I mean the other", "to clarify"], ["do it"]),
    (CONSTRAINT, ["always use tabs", "make sure", "avoid that", "keep it"], ["go on"]),
    (TEST_PASS, ["12 passed", "all 3 tests passed", "tests pass", "build succeeded", "0 failed",
                 "exit code 0"], ["12 failed", "passed out"]),
    (FAILURE, ["FAILED", "error", "Traceback", "could not", "can't", "not fixed", "still failing", "blocked"],
     ["fine"]),
    (USER_DONE, ["thanks", "that works", "all good", "done"], ["do more"]),
    (STOPPED, ["stop", "never mind", "nevermind", "forget it", "interrupted", "rejected"], ["continue"]),
    (BLOCKED, ["permission denied", "cannot", "need access", "not allowed"], ["allowed"]),
    (TIMEOUT, ["timeout", "time out", "took too long", "deadline"], ["timely"]),
])
def test_kind_patterns_recognise_their_quotes(pattern: object, yes: list[str], no: list[str]) -> None:
    import re
    assert isinstance(pattern, re.Pattern)
    assert [t for t in yes if not pattern.search(t)] == []
    assert [t for t in no if pattern.search(t)] == []


def test_timed_out_is_a_timeout() -> None:
    """`time[d ]?out` allowed one character between "time" and "out", so the commonest wording,
    "timed out" (two), was not a timeout quote: a model's termination_reason "timeout" citing
    "Command timed out after 120s" was refused as enum_unsupported."""
    assert TIMEOUT.search("Command timed out after 120s")
    assert TIMEOUT.search("the request timedout")


def test_an_xunit_ok_summary_is_a_passing_run() -> None:
    """`ok \\(\\d+ tests?\\)` inside `\\b(...)\\b` could never match: no word boundary follows ")"
    at the end of a line or before a space. JUnit/PHPUnit print "OK (4 tests)" or "OK (4 tests, 9 assertions)"."""
    assert TEST_PASS.search("OK (4 tests)")
    assert TEST_PASS.search("OK (12 tests, 30 assertions)")
    assert not TEST_PASS.search("OK (no tests)")
