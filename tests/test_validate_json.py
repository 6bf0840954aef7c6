"""`forsy validate` reads a file with orjson only when that value is provably what Python's
`json` would return with nothing to report: the layout forsy writes, byte for byte. Files in
that very layout that hide what orjson passes over (a repeated key, NaN, a huge integer,
deep nesting) still get the reference reading and its findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from forsy.validation import validate_path
from forsy.validation._base import Sink
from forsy.validation._json import as_written, load_json

FORSY_LAYOUT = {"task": "Fix the bug — ünïcode", "n": 3, "x": 0.1, "big": 2**63 - 1, "steps": [{"a": None}, []],
                "e": {}, "esc": "tab\t\"q\" \\ \u0001 \u2028 😀"}


def _layout(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"


def _findings(tmp_path: Path, data: bytes) -> tuple[dict[str, Any] | None, list[str]]:
    p = tmp_path / "trace.json"
    p.write_bytes(data)
    sink = Sink()
    value = load_json(p, sink, ("F001", "F002", "F003"))
    return value, [f.rule for f in sink.findings]


def test_forsy_layout_is_read_fast_and_as_json_reads_it(tmp_path: Path) -> None:
    data = _layout(FORSY_LAYOUT)
    assert as_written(data) == FORSY_LAYOUT
    value, rules = _findings(tmp_path, data)
    assert value == json.loads(data) == FORSY_LAYOUT and rules == []


CASES = {
    b'{\n  "task": "a",\n  "task": "b"\n}\n': ["F004"],  # a repeated key, in forsy's layout
    b'{\n  "n": NaN\n}\n': ["F002"],
    b'{\n  "n": Infinity\n}\n': ["F002"],
    b'{\n  "n": 123456789012345678901234567890\n}\n': [],  # beyond 64 bits: json reads it exactly
    b'{\n  "n": 1E400\n}\n': [],
    b'{\n  "n": -0\n}\n': [],
    b'{\n  "n": 1.50\n}\n': [],
    b'\xef\xbb\xbf{\n  "n": 1\n}\n': ["F002"],  # a BOM
    b'{\n  "n": "\\ud800"\n}\n': [],  # a lone surrogate
    b'{\n  "n": "\xff"\n}\n': ["F001"],  # not UTF-8
    b'{"n": 1}': [],  # another layout
    b'[\n  1\n]\n': ["F003"],
}


@pytest.mark.parametrize("data", list(CASES))
def test_anything_else_gets_the_reference_reading(tmp_path: Path, data: bytes) -> None:
    assert not isinstance(as_written(data), dict)
    value, rules = _findings(tmp_path, data)
    assert rules == CASES[data]
    if not rules or rules == ["F004"]:
        assert value == json.loads(data)  # the last of repeated keys, as json keeps it
        assert str(value) == str(json.loads(data))


def _nested_in_layout(depth: int) -> bytes:
    """{"steps": [[...[1]...]]} nested `depth` lists deep, in forsy's layout (orjson writes
    no more than 255 levels, so it is written by hand)."""
    opening = "".join("[\n" + "  " * (k + 2) for k in range(depth))
    closing = "".join("\n" + "  " * k + "]" for k in range(depth, 0, -1))
    return ('{\n  "steps": ' + opening + "1" + closing + "\n}\n").encode()


def test_deep_nesting_in_forsy_layout_is_judged_by_json(tmp_path: Path) -> None:
    """orjson reads up to 1024 levels, Python's json fails near 1000: a deep document in
    forsy's layout must get json's verdict (F002), not orjson's."""
    data = _nested_in_layout(1000)
    assert orjson.loads(data)  # orjson alone would accept it
    assert as_written(data) is None
    _value, rules = _findings(tmp_path, data)
    assert rules == ["F002"]
    shallow = _nested_in_layout(150)
    assert shallow == _layout(json.loads(shallow))
    assert as_written(shallow) == json.loads(shallow)


def test_a_repeated_key_in_a_written_folder_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "trace.json").write_bytes(b'{\n  "task": "a",\n  "task": "b"\n}\n')
    assert "F004" in [f.rule for f in validate_path(folder).findings]


def _whole(value: Any, data: bytes) -> bool:
    """The definition `as_written` checks part by part: the whole document written out."""
    out = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return len(data) == len(out) + 1 and data.endswith(b"\n") and data.startswith(out)


def _documents() -> list[Any]:
    from forsy.run import RetraceOptions, retrace_one

    log = Path(__file__).resolve().parent.parent / "sample_logs" / "claude" / "demo-session.jsonl"
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    real = [json.loads(m.model_dump_json()) for m in (a.trace, a.provenance, a.manifest)]
    return [FORSY_LAYOUT, {}, [], {"a": []}, {"a": [[]]}, {"a": [{}]}, {"a": {"b": []}}, {"a": [1], "b": [2, [3]]},
            {"steps": [{"x": [1, {"y": []}]}, "s", 2, None]}, {"": [""]}, 5, "x", *real]


def test_the_part_by_part_comparison_is_the_whole_documents() -> None:
    """Each document in forsy's layout and hundreds of changes of it (a byte changed, removed or
    added anywhere, a repeated key): `as_written` says "as written" exactly when the whole
    document written out is the file."""
    import random

    rnd = random.Random(7)
    compared = 0
    for value in _documents():
        data = _layout(value)
        variants = [data, data[:-1], data + b"\n", b" " + data, data.replace(b"\n  ", b"\n ", 1),
                    data.replace(b"\n    ", b"\n     ", 1), data.replace(b",\n", b" ,\n", 1),
                    data.replace(b'{\n  "', b'{\n  "a": 1,\n  "', 1)]
        for _ in range(60):
            i = rnd.randrange(len(data))
            variants += [data[:i] + data[i + 1:], data[:i] + bytes([rnd.choice(b' \n,:[]{}"0a')]) + data[i:],
                         data[:i] + bytes([rnd.choice(b' \n,:[]{}"0a')]) + data[i + 1:]]
        for d in variants:
            try:
                v = orjson.loads(d)
            except orjson.JSONDecodeError:
                continue
            compared += 1
            assert (as_written(d) is not None) == _whole(v, d), d
    assert compared > 500
