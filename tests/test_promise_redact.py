"""The redaction pipeline's promises (redact/_redactor.py, redact/_merge.py), on a scripted
engine so each expectation is exact: one placeholder per secret value however it is written,
every hit masked and counted, a text that cannot be scanned is replaced (fail closed) and only
that text, joined scans split back to the right strings, overlapping hits merged to the most
sensitive kind. The real engine's rules are tested in test_redact.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from forsy.errors import RedactionError
from forsy.redact import EngineHit, Redactor
from forsy.redact import _redactor as R
from forsy.redact._base import CREDENTIAL, EMAIL, PATH_USER, PERSON, PHONE, PLACEHOLDER, PRIVATE_KEY, Hit
from forsy.redact._merge import narrowest, resolve

SECRET = b"SECRETTOKEN123"


class Scripted:
    """Finds SECRET (rule `fake.token`) and `KEYDATA` (rule `fake.private-key`); records each scan."""

    name = "scripted"
    reports_anchors = False

    def __init__(self, fail_on: bytes | None = None) -> None:
        self.scans: list[bytes] = []
        self.fail_on = fail_on

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        self.scans.append(data)
        if self.fail_on is not None and self.fail_on in data:
            raise RuntimeError("engine crashed")
        out = []
        for needle, rule in ((SECRET, "fake.token"), (b"KEYDATA", "fake.private-key")):
            i = data.find(needle)
            while i >= 0:
                out.append(EngineHit(rule, i, i + len(needle)))
                i = data.find(needle, i + 1)
        if b"EMPTYHIT" in data:
            i = data.find(b"EMPTYHIT")
            out.append(EngineHit("fake.empty", i, i))
        return out


def _red(**kw: object) -> tuple[Redactor, Scripted]:
    engine = Scripted(kw.pop("fail_on", None))  # type: ignore[arg-type]
    return Redactor(engine=engine, **kw), engine  # type: ignore[arg-type]


# ------------------------------------------------------------------ masking and counting
def test_one_secret_one_placeholder_and_every_hit_counted() -> None:
    red, _ = _red()
    out = red.redact("a SECRETTOKEN123 b SECRETTOKEN123 c")
    assert out == "a [CREDENTIAL_1] b [CREDENTIAL_1] c"
    assert red.redact("again SECRETTOKEN123") == "again [CREDENTIAL_1]"
    assert red.report() == {"enabled": True, "engine": "scripted + forsy rules", "by_kind": {"CREDENTIAL": 3},
                            "by_rule": {"kingfisher:fake.token": 3}, "unscannable": 0, "placeholders": 0}


def test_a_private_key_rule_gives_a_private_key_placeholder() -> None:
    red, _ = _red()
    assert red.redact("key KEYDATA end") == "key [PRIVATE_KEY_1] end"


def test_numbers_count_per_kind() -> None:
    red, _ = _red()
    assert red.redact("KEYDATA SECRETTOKEN123 bob@acmecorp.io") == "[PRIVATE_KEY_1] [CREDENTIAL_1] [EMAIL_1]"
    assert red.redact("ann@acmecorp.io SECRETTOKEN1234") == "[EMAIL_2] [CREDENTIAL_1]4"


def test_an_empty_engine_hit_masks_nothing() -> None:
    red, _ = _red()
    assert red.redact("xx EMPTYHIT yy") == "xx EMPTYHIT yy"


def test_a_secret_written_url_encoded_is_the_same_placeholder() -> None:
    red, _ = _red()
    assert red.redact("plain SECRETTOKEN123") == "plain [CREDENTIAL_1]"
    assert red.redact("https://x.io/?q=SECRET%54OKEN123&a=1") == "https://x.io/?q=[CREDENTIAL_1]&a=1"


def test_texts_shorter_than_eight_chars_are_not_sent_to_the_engine() -> None:
    red, engine = _red()
    red.redact("1234567")
    assert engine.scans == []
    red.redact("12345678")
    assert engine.scans == [b"12345678"]


def test_redact_takes_text_only() -> None:
    red, _ = _red()
    with pytest.raises(TypeError, match="redact\\(\\) takes str, not bytes"):
        red.redact(b"x")  # type: ignore[arg-type]


def test_redact_many_scans_once_and_splits_back() -> None:
    red, engine = _red()
    texts = ["first SECRETTOKEN123", "none here", "KEYDATA"]
    assert red.redact_many(texts) == ["first [CREDENTIAL_1]", "none here", "[PRIVATE_KEY_1]"]
    assert engine.scans == [R.SEPARATOR.join(texts).encode()]


def test_an_unscannable_text_is_replaced_and_only_that_one() -> None:
    red, engine = _red(fail_on=b"BOOM")
    out = red.redact_many(["ok SECRETTOKEN123", "BOOM goes it", "fine text"])
    assert out == ["ok [CREDENTIAL_1]", "[UNSCANNABLE_TEXT]", "fine text"]
    assert red.report()["unscannable"] == 1
    assert len(engine.scans) == 4  # the batch, then each text alone


def test_an_engine_that_fails_on_everything_fails_closed() -> None:
    red, _ = _red(fail_on=b"")
    assert red.redact("SECRETTOKEN123 and more") == "[UNSCANNABLE_TEXT]"
    assert red.report()["unscannable"] == 1


def test_the_log_owners_names_are_masked() -> None:
    red, _ = _red(user_names={"alice", "root"}, extra_person_names={"Bob  Smith", "github", "Al"})
    assert red.redact("alice met bob smith; root and github stay; Al too") == \
        "[PATH_USER_1] met [PERSON_1]; root and github stay; Al too"


# ------------------------------------------------------------------ JSON-like values
def test_redact_value_keeps_the_shape_and_masks_every_string() -> None:
    red, _ = _red()
    value = {"a": ["SECRETTOKEN123", 1, 2.5, True, None], "t": ("KEYDATA",), "SECRETTOKEN123": "key"}
    assert red.redact_value(value) == {"a": ["[CREDENTIAL_1]", 1, 2.5, True, None], "t": ("[PRIVATE_KEY_1]",),
                                       "[CREDENTIAL_1]": "key"}


def test_a_secret_named_field_is_masked_whole_and_never_scanned() -> None:
    red, engine = _red()
    out = red.redact_value({"password": "hunter2 is long", "pin": 1234, "token_count": 5, "flag": True})
    assert out == {"password": "[CREDENTIAL_1]", "pin": 1234, "token_count": 5, "flag": True}
    assert all(b"hunter2" not in s for s in engine.scans)
    assert red.report()["by_rule"] == {"secret-field": 1}


def test_a_numeric_password_is_still_a_password() -> None:
    red, _ = _red()
    assert red.redact_value({"password": 123456}) == {"password": "[CREDENTIAL_1]"}
    assert red.redact_value({"password": True}) == {"password": True}


def test_a_cookie_header_is_scanned_with_its_name() -> None:
    red, _ = _red()
    out = red.redact_value({"Cookie": "id=SECRETTOKEN123", "cookies": "SECRETTOKEN123"})
    assert out == {"Cookie": "id=[CREDENTIAL_1]", "cookies": "[CREDENTIAL_1]"}


def test_two_keys_equal_once_redacted_are_an_error() -> None:
    red, _ = _red()
    with pytest.raises(RedactionError, match="two keys of one object are equal once redacted"):
        red.redact_value({"[CREDENTIAL_1]": 1, "SECRETTOKEN123": 2})


def test_an_unknown_object_or_a_too_deep_value_fails_closed() -> None:
    red, _ = _red()
    assert red.redact_value({"a": {1, 2}}) == {"a": "[UNSCANNABLE_TEXT]"}
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert red.redact_value(deep) == "[UNSCANNABLE_TEXT]"
    assert red.report()["unscannable"] == 2


def test_non_string_keys_are_kept() -> None:
    red, _ = _red()
    assert red.redact_value({1: "SECRETTOKEN123"}) == {1: "[CREDENTIAL_1]"}


# ------------------------------------------------------------------ batching, splitting, chunking
def test_batches_hold_about_batch_chars() -> None:
    sep = len(R.SEPARATOR)
    fits = ["a" * (R.BATCH_CHARS - sep - 10), "b" * 10, "c"]
    assert [len(b) for b in R.batches(fits)] == [2, 1]
    over = ["a" * (R.BATCH_CHARS - sep - 10), "b" * 11]
    assert [len(b) for b in R.batches(over)] == [1, 1]
    assert list(R.batches([])) == []
    assert [len(b) for b in R.batches(["x" * (R.BATCH_CHARS * 2), "y"])] == [1, 1]


def test_distribute_splits_hits_back_to_their_texts() -> None:
    # "abc" + SEP(3) + "defg": text 1 starts at 6
    lengths = [3, 4]
    hits = [Hit(1, 8, CREDENTIAL, "r"), Hit(3, 6, EMAIL, "sep"), Hit(6, 10, PHONE, "p")]
    assert R.distribute(hits, lengths) == [
        [Hit(1, 3, CREDENTIAL, "r")],
        [Hit(0, 2, CREDENTIAL, "r"), Hit(0, 4, PHONE, "p")],
    ]
    assert R.distribute([], lengths) == [[], []]
    assert R.distribute([Hit(0, 2, EMAIL, "e")], [5]) == [[Hit(0, 2, EMAIL, "e")]]


def test_chunks_overlap_and_cut_after_a_newline() -> None:
    n = R.CHUNK
    assert list(R.chunks("short")) == [(0, "short")]
    text = "x" * (n - 100) + "\n" + "y" * 200
    parts = list(R.chunks(text))
    cut = n - 99
    assert [(o, len(t)) for o, t in parts] == [(0, cut), (cut - R.OVERLAP, len(text) - (cut - R.OVERLAP))]
    flat = "z" * (n + 10)
    assert [(o, len(t)) for o, t in R.chunks(flat)] == [(0, n), (n - R.OVERLAP, 10 + R.OVERLAP)]
    exact = "w" * n
    assert [(o, len(t)) for o, t in R.chunks(exact)] == [(0, n)]


def test_a_secret_past_the_first_chunk_is_found_at_its_offset() -> None:
    red, _ = _red()
    text = "x" * R.CHUNK + " SECRETTOKEN123"
    assert red.redact(text) == "x" * R.CHUNK + " [CREDENTIAL_1]"


# ------------------------------------------------------------------ helpers
@pytest.mark.parametrize(("kind", "a", "b"), [
    (EMAIL, "Bob@Example.org", "bob@example.org"),
    (PERSON, "Bob   Smith", "bob smith"),
    (PHONE, "(415) 555-0100", "415.555.0100"),
    (CREDENTIAL, "ab\\u0063d", "abcd"),
    (CREDENTIAL, "ab%63d", "abcd"),
])
def test_one_value_however_written_normalises_to_one(kind: str, a: str, b: str) -> None:
    assert R.normalise(kind, a) == R.normalise(kind, b)


def test_normalise_keeps_case_of_credentials() -> None:
    assert R.normalise(CREDENTIAL, "AbC") == "AbC"
    assert R.normalise(PATH_USER, "Ab C") == "Ab C"


def test_valid_text_replaces_lone_surrogates_only() -> None:
    assert R.valid_text("plain") == "plain"
    assert R.valid_text("café") == "café"
    assert R.valid_text("a\ud800b") == "a\ufffdb"
    assert R.valid_text("\ud83d\ude00") == "\U0001f600"


@pytest.mark.parametrize(("key", "value", "secret"), [
    ("password", "hunter2 is long", True), ("password", 1234, True), ("password", 1.5, True),
    ("password", True, False), ("name", "hunter2", False), ("token_count", 5, False),
])
def test_secret_fields(key: str, value: object, secret: bool) -> None:
    assert R.is_secret_field(key, value) is secret


@pytest.mark.parametrize(("name", "person"), [
    ("Alice Smith", True), ("  Alice   Smith ", True), ("Al", False), ("Ali", True), ("github", False),
    ("Claude", False), ("dependabot[bot]", False), ("ci-bot", False), ("build bot", False), ("root", False),
])
def test_person_names(name: str, person: bool) -> None:
    assert R._is_person_name(name) is person


def test_user_names_come_from_home_paths() -> None:
    assert R.user_names_from_paths(["/Users/alice/x", "/home/bob", "/tmp/carol"]) == {"alice", "bob"}


# ------------------------------------------------------------------ merging overlapping hits
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


def test_placeholders_in_the_text_are_counted_not_masked() -> None:
    red, _ = _red()
    assert red._apply("ab your_password", [Hit(3, 16, PLACEHOLDER, "p")]) == "ab your_password"
    assert red.report()["placeholders"] == 1
    assert red.report()["by_kind"] == {}


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
