"""What makes a large retrace fast, checked without a clock (bench/README.md has the numbers).

* The cyclic garbage collector is paused while one file is read, traced and written (every
  full collection walks all live objects: a third of the CPU of a 100 MB session), and it is
  back on afterwards, also when the file failed.
* A JSON-decoded view's anchors come from the engine's one pass, not from one bytes.find
  per literal, and they are exactly what those searches find (overlapping literals too).
"""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._native import NATIVE_ANCHORS_CASED
from forsy.run import RetraceOptions, retrace_one
from forsy.sources.claude_code import ClaudeCodeSource

SAMPLE = Path(__file__).resolve().parents[1] / "sample_logs" / "claude" / "demo-session.jsonl"


def test_gc_paused_while_a_file_is_traced_and_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    read = ClaudeCodeSource.read

    def spying_read(self: ClaudeCodeSource, path: Path, ctx: object) -> object:
        seen.append(gc.isenabled())
        return read(self, path, ctx)  # type: ignore[arg-type]

    monkeypatch.setattr(ClaudeCodeSource, "read", spying_read)
    assert gc.isenabled()
    out = retrace_one(SAMPLE, RetraceOptions(redact=False), source=ClaudeCodeSource())
    assert out[0].status == "traced"
    assert seen == [False]
    assert gc.isenabled()


def test_gc_back_on_after_a_file_that_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_read(self: ClaudeCodeSource, path: Path, ctx: object) -> object:
        assert not gc.isenabled()
        raise RuntimeError("boom")

    monkeypatch.setattr(ClaudeCodeSource, "read", failing_read)
    out = retrace_one(SAMPLE, RetraceOptions(redact=False), source=ClaudeCodeSource())
    assert out[0].status == "failed"
    assert gc.isenabled()


def test_gc_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        retrace_one(SAMPLE, RetraceOptions(redact=False), source=ClaudeCodeSource())
        assert not gc.isenabled()
    finally:
        gc.enable()


def _overlapping_text(seed: int) -> str:
    """Literals, their prefixes and suffixes glued together: many occurrences overlap
    ("zip " inside "unzip "), where the engine reports only one match."""
    lits = sorted(NATIVE_ANCHORS_CASED)
    chars = sorted(set("".join(lits))) + ["é", "\U0001f600", "\n"]
    rng = random.Random(seed)
    parts: list[str] = []
    for _ in range(2000):
        lit = rng.choice(lits)
        cut = rng.randrange(len(lit))
        parts.append(lit if rng.random() < 0.5 else (lit[cut:] if rng.random() < 0.5 else lit[:cut]))
        if rng.random() < 0.3:
            parts.append("".join(rng.choice(chars) for _ in range(rng.randrange(4))))
    return "".join(parts)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_view_anchors_are_exactly_the_searched_ones(seed: int) -> None:
    red = Redactor()
    text = _overlapping_text(seed)
    for t in (text, text.upper(), "x" + text):
        fast, searched = red._view_anchors(t), Anchors(t)
        for lit in sorted(NATIVE_ANCHORS_CASED):
            assert fast.find((lit,)) == searched.find((lit,)), lit


def test_view_anchors_do_not_search_each_cased_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[str] = []
    search = Anchors._search

    def counting(self: Anchors, lit: str, ignore_case: bool) -> list[int]:
        searched.append(lit)
        return search(self, lit, ignore_case)

    monkeypatch.setattr(Anchors, "_search", counting)
    red = Redactor()
    # a secret-looking name whose value holds an escape: the JSON view is built and scanned
    text = 'run \\"mysql -u root -p\\\\"x\\" then password=\\"a\\\\nb\\" ' * 50
    red.redact(text)
    cased = set(NATIVE_ANCHORS_CASED)
    assert searched, "the rules searched nothing: the test no longer reaches the view"
    assert not cased & set(searched)


def test_the_long_number_precheck_answers_as_the_regex_does() -> None:
    """sources._records: the digit-run precheck only skips the regex where it cannot match
    (fixed seed; lines with runs of 18, 19 and 25 digits in numbers and in strings)."""
    import random

    from forsy.sources._records import _LONG_DIGITS, _long_number

    rng = random.Random(20261124)
    pieces = [b'{"a": ', b", ", b"[", b'"x', b'"', b"-", b" ", b"\x00", b"1" * 18, b"2" * 19, b"3" * 25, b"7"]
    lines = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(5000)]
    lines += [b'{"n": 1234567890123456789}', b'{"s": "1234567890123456789"}', b'{"n": 123456789012345678}']
    assert [_long_number(x) for x in lines] == [_LONG_DIGITS.search(x) is not None for x in lines]
    assert sum(_long_number(x) for x in lines) > 100  # both answers occur


def test_gc_paused_while_a_trace_is_validated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`forsy retrace` validates each folder it wrote (and `forsy validate` any folder): the
    parse of a large trace.json is paused-collector work too."""
    import forsy.validation.check as validate  # where validate_path calls it

    seen: list[bool] = []
    real = validate.validate_trace

    def spying(*a: object, **kw: object) -> object:
        seen.append(gc.isenabled())
        return real(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(validate, "validate_trace", spying)
    from forsy.run import retrace

    retrace([SAMPLE], RetraceOptions(redact=False, out=tmp_path / "t"))
    assert validate.validate_path(tmp_path / "t").errors == []
    assert seen == [False] and gc.isenabled()
