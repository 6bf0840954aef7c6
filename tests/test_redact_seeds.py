"""A wallet's recovery phrase (BIP-39) is masked whole wherever and however it is written, with
no label needed; runs of words that are not a phrase stay (redact/seeds.py). The phrases are
made from fixed entropy by the reference implementation (`mnemonic`), so they are real phrases
with valid checksums, the same on every run."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from mnemonic import Mnemonic

from _small_logs import answer, call, result, user, write
from forsy.redact import Redactor
from forsy.run import RetraceOptions, retrace

LENGTHS = {12: 16, 15: 20, 18: 24, 21: 28, 24: 32}  # words: bytes of entropy


def phrase(lang: str, words: int, seed: int = 7) -> str:
    entropy = random.Random(f"{lang}{words}{seed}").randbytes(LENGTHS[words])
    return Mnemonic(lang).to_mnemonic(entropy)


def numbered(p: str, sep: str) -> str:
    return sep.join(f"{n}. {w}" for n, w in enumerate(p.split(), 1))


FORMS = {  # how a phrase is written: (the text, what is left of it once masked)
    "env": (lambda p: f'export MNEMONIC="{p}"', 'export MNEMONIC="[PRIVATE_KEY_1]"'),
    "bare": (lambda p: p, "[PRIVATE_KEY_1]"),
    "prose": (lambda p: f"Here it is: {p}. Keep it safe!", "Here it is: [PRIVATE_KEY_1]. Keep it safe!"),
    "json-array": (lambda p: json.dumps({"m": p.split()}), '{"m": ["[PRIVATE_KEY_1]"]}'),
    "json-in-json": (lambda p: json.dumps({"input": json.dumps({"m": p.split()}, separators=(",", ":"))}),
                     '{"input": "{\\"m\\":[\\"[PRIVATE_KEY_1]\\"]}"}'),
    "numbered": (lambda p: numbered(p, " "), "1. [PRIVATE_KEY_1]"),
    "numbered-lines": (lambda p: numbered(p, "\n"), "1. [PRIVATE_KEY_1]"),
    "lines": (lambda p: p.replace(" ", "\n"), "[PRIVATE_KEY_1]"),
    "escaped-lines": (lambda p: p.replace(" ", "\\n"), "[PRIVATE_KEY_1]"),
    "commas": (lambda p: p.replace(" ", ", "), "[PRIVATE_KEY_1]"),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("words", sorted(LENGTHS))
def test_an_english_phrase_of_each_length_is_masked_whole_in_each_form(form: str, words: int) -> None:
    make, left = FORMS[form]
    assert Redactor().redact(make(phrase("english", words))) == left


@pytest.mark.parametrize("lang", ["czech", "portuguese"])
def test_phrases_of_the_other_lists_in_ascii_letters_are_masked(lang: str) -> None:
    p = phrase(lang, 12)
    assert Redactor().redact(f"mnemonic: {p}") == "mnemonic: [PRIVATE_KEY_1]"


def test_an_italian_phrase_of_words_of_up_to_8_letters_is_masked() -> None:
    words = sorted(w for w in Mnemonic("italian").wordlist if len(w) <= 8)
    p = " ".join(random.Random(3).sample(words, 12))
    assert Redactor().redact(f"seed: {p}") == "seed: [PRIVATE_KEY_1]"


def test_a_phrase_is_masked_in_a_long_text_and_known_everywhere_after() -> None:
    p = phrase("english", 24)
    red = Redactor()
    text = "lorem ipsum dolor sit amet " * 200 + f"\nwallet restored from {p}\n" + "x = 1\n" * 500
    out = red.redact(text)
    assert not any(w in out.split() for w in p.split()[1:-1]) and "[PRIVATE_KEY_1]" in out
    assert red.redact(f"again: {p}") == "again: [PRIVATE_KEY_1]"


@pytest.mark.parametrize("text", [
    " ".join(Mnemonic("english").wordlist[:30]),  # a word list (more than 24 listed words), not a phrase
    " ".join(phrase("english", 12).split()[:11]),  # 11 words: shorter than any phrase
    "the quick brown fox jumps over the lazy dog and then runs away from the angry farmer",
    "serde tokio hyper reqwest clap anyhow thiserror tracing futures bytes regex rand chrono",
    "abandon ability able about above absent absorb abstract absurd abuse access scénario accident",
    "Abandon Ability Able About Above Absent Absorb Abstract Absurd Abuse Access Accident",
])
def test_runs_that_are_not_a_phrase_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_phrase_in_a_tool_call_does_not_reach_the_trace(tmp_path: Path) -> None:
    p = phrase("english", 12, seed=11)
    log = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "restore my wallet"),
        call(1, "a1", "u1", "t1", "Bash", {"command": f"cast wallet import dev --mnemonic '{p}'"}),
        result(2, "r1", "a1", "t1", f"imported: {p}"),
        answer(3, "a2", "r1", "Done."),
    ])
    out = tmp_path / "out"
    run = retrace([log], RetraceOptions(out=out))
    assert [o.status for o in run.outcomes] == ["written"]
    written = "".join(f.read_text("utf-8") for f in out.rglob("*") if f.is_file())
    assert "cast wallet import dev --mnemonic '[PRIVATE_KEY_1]'" in written
    assert " ".join(p.split()[3:9]) not in written


def test_a_phrase_ends_with_its_text_when_texts_are_scanned_together() -> None:
    """redact_values joins a session's texts with a separator Python's `\\s` takes for a space:
    a phrase must not run on into the next text's words (`code drop later` are listed words)."""
    p = phrase("english", 12, seed=5)
    out = Redactor().redact_values([f'm="{p}"', "code drop later", f"again: {p}!"])
    assert out == ['m="[PRIVATE_KEY_1]"', "code drop later", "again: [PRIVATE_KEY_1]!"]
