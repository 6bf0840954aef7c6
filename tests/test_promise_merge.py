"""Merging overlapping redaction hits (redact/_merge.py): overlapping hits become one, of the most
sensitive kind; a hit on a placeholder already in the text is no hit, one cutting into it is
widened to hold it; an exact rule's secret wins over a wider engine span around it; a
documentation placeholder (`your_password`) is reported only where nothing is masked. Hand-built
hits, so each expectation is exact. Split from test_promise_redact.py, which tests the
redactor around it."""

from __future__ import annotations

from forsy.redact._base import CREDENTIAL, EMAIL, PATH_USER, PERSON, PHONE, PLACEHOLDER, PRIVATE_KEY, Hit
from forsy.redact._merge import narrowest, resolve


def test_overlapping_hits_merge_to_the_most_sensitive_kind() -> None:
    text = "x" * 30
    assert resolve(text, [Hit(5, 15, EMAIL, "e"), Hit(0, 10, CREDENTIAL, "c")]) == [Hit(0, 15, CREDENTIAL, "c")]
    assert resolve(text, [Hit(0, 10, EMAIL, "e"), Hit(5, 15, CREDENTIAL, "c")]) == [Hit(0, 15, CREDENTIAL, "c")]
    assert resolve(text, [Hit(0, 10, PRIVATE_KEY, "k"), Hit(2, 4, CREDENTIAL, "c")]) == [Hit(0, 10, PRIVATE_KEY, "k")]
    assert resolve(text, [Hit(0, 5, PATH_USER, "u"), Hit(0, 5, PERSON, "p")]) == [Hit(0, 5, PERSON, "p")]

def test_adjacent_hits_stay_apart_and_come_out_sorted() -> None:
    text = "x" * 30
    assert resolve(text, [Hit(5, 9, EMAIL, "b"), Hit(0, 5, PHONE, "a")]) == [Hit(0, 5, PHONE, "a"),
                                                                              Hit(5, 9, EMAIL, "b")]
    assert resolve(text, []) == []

def test_a_hit_on_an_existing_placeholder_is_no_hit() -> None:
    text = "key [CREDENTIAL_1] end"
    assert resolve(text, [Hit(4, 18, CREDENTIAL, "c")]) == []
    assert resolve(text, [Hit(3, 19, CREDENTIAL, "c")]) == []  # the spaces around are not a secret

def test_a_hit_cutting_into_a_placeholder_is_widened_to_hold_it() -> None:
    text = "abcd[CREDENTIAL_1]efgh"
    assert resolve(text, [Hit(0, 8, CREDENTIAL, "c")]) == [Hit(0, 18, CREDENTIAL, "c")]
    assert resolve(text, [Hit(10, 22, CREDENTIAL, "c")]) == [Hit(4, 22, CREDENTIAL, "c")]
    assert resolve("abc[EMAIL_1]", [Hit(0, 8, CREDENTIAL, "c")]) == []  # 3 characters left: not a secret

def test_the_exact_secret_wins_over_a_wider_engine_span() -> None:
    text = "postgres://u:pw123456@db/x"
    engine = Hit(0, 26, CREDENTIAL, "kingfisher:postgres")
    exact = Hit(13, 21, CREDENTIAL, "url-password")
    assert narrowest(text, [engine, exact]) == [exact]
    assert resolve(text, [engine, exact]) == [exact]
    other = Hit(0, 26, CREDENTIAL, "uri")  # not an engine span: kept
    assert narrowest(text, [other, exact]) == [other, exact]

def test_a_documentation_placeholder_is_reported_only_where_nothing_is_masked() -> None:
    text = "postgres://u:your_password@db and KEY"
    engine = Hit(0, 29, CREDENTIAL, "kingfisher:postgres")
    stand_in = Hit(13, 26, PLACEHOLDER, "url-password")
    assert resolve(text, [engine, stand_in]) == [stand_in]  # the engine span over it is dropped
    masked = Hit(10, 20, CREDENTIAL, "other")
    assert resolve(text, [masked, stand_in]) == [masked]
    far = Hit(34, 37, CREDENTIAL, "k")
    assert resolve(text, [far, stand_in]) == [stand_in, far]

def test_of_two_hits_of_one_kind_from_one_start_the_longer_names_the_rule() -> None:
    assert resolve("x" * 20, [Hit(0, 5, CREDENTIAL, "short"), Hit(0, 10, CREDENTIAL, "long")]) == [
        Hit(0, 10, CREDENTIAL, "long")]

def test_an_engine_span_no_wider_than_the_exact_one_stays() -> None:
    text = "postgres://u:pw123456@db/x"
    same = [Hit(13, 21, CREDENTIAL, "kingfisher:pw"), Hit(13, 21, CREDENTIAL, "url-password")]
    assert narrowest(text, same) == same
    alone = [Hit(0, 26, CREDENTIAL, "kingfisher:postgres")]
    assert narrowest(text, alone) == alone  # a URI with no documentation placeholder in it stays

def test_several_exact_spans_and_stand_ins_are_all_looked_at() -> None:
    text = "a://" + "".join(f"u:pw{i}23456@h " for i in range(10))
    engine = Hit(0, len(text), CREDENTIAL, "kingfisher:wide")
    exact = [Hit(6 + 15 * i, 14 + 15 * i, CREDENTIAL, "url-password") for i in range(10)]
    assert narrowest(text, [engine, *reversed(exact)]) == list(reversed(exact))
    stand = [Hit(6 + 15 * i, 14 + 15 * i, PLACEHOLDER, "url-password") for i in (3, 1)]
    assert resolve(text, stand) == sorted(stand, key=lambda h: h.start)

def test_a_stand_in_right_after_a_masked_span_is_still_reported() -> None:
    text = "postgres://u:your_password@db and KEY"
    masked = Hit(9, 13, CREDENTIAL, "other")
    stand_in = Hit(13, 26, PLACEHOLDER, "url-password")
    assert resolve(text, [masked, stand_in]) == [masked, stand_in]

def test_a_placeholder_just_after_a_hit_does_not_widen_it() -> None:
    assert resolve("abcdefgh[CREDENTIAL_1]", [Hit(0, 8, CREDENTIAL, "c")]) == [Hit(0, 8, CREDENTIAL, "c")]

def test_a_hit_over_two_placeholders_holds_both() -> None:
    text = "[CREDENTIAL_1] x [CREDENTIAL_2] abcdef"
    assert resolve(text, [Hit(0, 38, CREDENTIAL, "c")]) == [Hit(0, 38, CREDENTIAL, "c")]
    assert resolve(text, [Hit(5, 36, CREDENTIAL, "c")]) == [Hit(0, 36, CREDENTIAL, "c")]

def test_of_two_stand_ins_from_one_start_the_longer_names_the_rule() -> None:
    text = "postgres://u:your_password@db and KEY"
    long, short = Hit(13, 26, PLACEHOLDER, "url-password"), Hit(13, 20, PLACEHOLDER, "shell-default")
    assert resolve(text, [short, long]) == [long]

def test_a_stand_in_right_before_a_masked_span_is_still_reported() -> None:
    text = "postgres://u:your_password@db and KEY"
    stand_in, masked = Hit(13, 26, PLACEHOLDER, "url-password"), Hit(26, 29, CREDENTIAL, "other")
    assert resolve(text, [masked, stand_in]) == [stand_in, masked]

def test_only_an_exact_rules_credential_makes_an_engine_span_give_way() -> None:
    text = "postgres://u:pw123456@db/x and more"
    engine = Hit(0, 26, CREDENTIAL, "kingfisher:postgres")
    other = Hit(13, 21, CREDENTIAL, "assignment")  # a credential of another rule is no exact secret
    assert narrowest(text, [engine, other]) == [engine, other]

def test_only_a_uri_placeholder_makes_an_engine_span_over_a_uri_give_way() -> None:
    text = "postgres://u:your_password@db and KEY"
    engine = Hit(0, 29, CREDENTIAL, "kingfisher:postgres")
    for other in (Hit(13, 26, CREDENTIAL, "shell-default"), Hit(13, 26, PLACEHOLDER, "assignment")):
        assert narrowest(text, [engine, other]) == [engine, other]

def test_an_exact_span_is_inside_an_engine_span_only_when_wholly_inside() -> None:
    text = "x" * 40
    engine = Hit(0, 20, CREDENTIAL, "kingfisher:wide")
    # neither is inside (one starts before, both end after): the engine span stays
    outside = [Hit(2, 30, CREDENTIAL, "url-password"), Hit(10, 24, CREDENTIAL, "url-password")]
    assert narrowest(text, [engine, *outside]) == [engine, *outside]
    # one outside, then one inside: every exact span is looked at
    mixed = [Hit(2, 30, CREDENTIAL, "url-password"), Hit(5, 12, CREDENTIAL, "url-password")]
    assert narrowest(text, [engine, *mixed]) == mixed
    # starting where the engine span starts is inside
    same_start = Hit(0, 8, CREDENTIAL, "curl-user")
    assert narrowest(text, [engine, same_start]) == [same_start]

def test_a_placeholder_just_before_a_hit_does_not_widen_it() -> None:
    text = "[CREDENTIAL_1]abcdefgh[EMAIL_1]xx"
    assert resolve(text, [Hit(14, 25, CREDENTIAL, "c")]) == [Hit(14, 31, CREDENTIAL, "c")]

def test_the_text_between_placeholders_adds_up() -> None:
    # 3 + 2 alphanumerics around two placeholders: 5 >= 4, a secret
    assert resolve("abc[EMAIL_1]de[EMAIL_2]", [Hit(0, 23, CREDENTIAL, "c")]) == [Hit(0, 23, CREDENTIAL, "c")]
    # a hit from a placeholder's first char with 3 more: not a secret
    assert resolve("[CREDENTIAL_1]abc", [Hit(0, 17, CREDENTIAL, "c")]) == []
    # three placeholders, one letter between each: 2, not a secret (none of them is skipped)
    text = "[EMAIL_1]a[EMAIL_2]b[EMAIL_3]"
    assert resolve(text, [Hit(0, len(text), CREDENTIAL, "c")]) == []

