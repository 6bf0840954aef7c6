"""The promises of `forsy.review.evidence`: a step's records are read back from the log at their
byte offsets, checked against their sha256, shown only masked (a record that cannot be masked is
not shown, and the view says why), with the place of each copied value marked; a log that is not
here, cannot be read or changed says so; a copied value is checked against the log. A log and
its provenance are written here by hand; the redactor is a stand-in that marks what it masked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from forsy.review import evidence as evm
from forsy.review.evidence import EvidenceReader, Span
from forsy.review.source import LoadedTrace

LINE1 = '{"type":"user","message":{"content":"Fix café \\"it\\" SECRET"}}\n'
LINE2 = '{"type":"assistant","tool":"Bash","input":{"command":"ls"},"n":3,"ok":true,"empty":""}\n'
LINE3 = "plain text line\n"


class Masker:
    """Masks the word SECRET (a stand-in for the trace's redactor)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def redact(self, text: str) -> str:
        self.seen.append(text)
        return text.replace("SECRET", "[CREDENTIAL_1]")


def sha(b: bytes | str) -> str:
    return hashlib.sha256(b.encode() if isinstance(b, str) else b).hexdigest()


def info(off: int, line: str, n: int, **kw: Any) -> dict[str, Any]:
    return {"source": "s.jsonl", "line": n, "byte_offset": off, "byte_length": len(line.encode()),
            "sha256": sha(line), "record_type": "rec", **kw}


def build(tmp_path: Path, *, write: bool = True, digest: str | None = None) -> LoadedTrace:
    log = (LINE1 + LINE2 + LINE3).encode()
    if write:
        (tmp_path / "s.jsonl").write_bytes(log)
    o2, o3 = len(LINE1.encode()), len((LINE1 + LINE2).encode())
    evidence = {"ev1": info(0, LINE1, 1), "ev2": info(o2, LINE2, 2), "ev3": info(o3, LINE3.rstrip("\n"), 3),
                "evbad": {**info(0, LINE1, 1), "sha256": "0" * 64}, "evlost": "not an object"}
    steps = [{"step": 1, "input": 'Fix café "it" [CREDENTIAL_1]', "tool": "Bash", "operation": "execute",
              "output": "other"},
             {"step": 2, "input": "plain text line"}]
    prov = {"sources": {"s.jsonl": digest or sha(log)}, "evidence": evidence, "steps": [
        {"step": 1, "evidence": ["ev2", "ev1"], "fields": {
            "input": {"origin": "copied", "evidence": [{"id": "ev1", "pointer": "/message/content"}]},
            "tool": {"origin": "copied", "evidence": [{"id": "ev2", "pointer": "/tool"}]},
            "operation": {"origin": "derived", "rule": "R-op", "evidence": [{"id": "ev2", "pointer": "/input"}]},
            "output": {"origin": "copied", "evidence": [{"id": "ev2", "pointer": "/n"}]},
            "success": {"origin": "copied", "evidence": [{"id": "ev2", "pointer": "/ok"}]},
            "turn": {"origin": "copied", "evidence": [{"id": "ev2", "pointer": "/missing"}]},
            "model": {"origin": "copied", "evidence": [{"id": "evbad", "pointer": "/type"}]},
            "empty": {"origin": "copied", "evidence": [{"id": "ev2", "pointer": "/empty"}]}}},
        {"step": 2, "evidence": ["ev3", "evlost", "nowhere"], "fields": {
            "input": {"origin": "copied", "evidence": [{"id": "ev3", "pointer": ""}]}}},
    ]}
    return LoadedTrace("forsy_e", {}, {"steps": steps}, prov, {}, [tmp_path])


def test_records_are_read_at_their_offsets_masked_with_their_copied_values_marked(tmp_path: Path) -> None:
    m = Masker()
    r = EvidenceReader(build(tmp_path), redactor=m)  # type: ignore[arg-type]
    ev = r.step(1)
    assert ev.log_note == ""
    assert [x.id for x in ev.records] == ["ev2", "ev1", "evbad"]  # the step's own first, then the cited, once each
    rec2, rec1, bad = ev.records
    masked1 = LINE1.replace("SECRET", "[CREDENTIAL_1]")
    assert (rec1.text, rec1.note, rec1.source, rec1.line, rec1.byte_offset) == (masked1, "", "s.jsonl", 1, 0)
    assert (rec1.byte_length, rec1.sha256, rec1.record_type) == (len(LINE1.encode()), sha(LINE1), "rec")
    assert rec1.fields == ("input",)
    # the value sits at the JSON text of the content, inside the quotes (both escapings tried)
    i = masked1.index("Fix café")
    assert rec1.spans == (Span("input", i, i + len('Fix café \\"it\\" [CREDENTIAL_1]')),)
    assert rec2.text == LINE2 and rec2.fields == ("tool", "operation", "output", "success", "turn", "empty")
    j, k, o = LINE2.index('Bash"'), LINE2.index('3,"ok"'), LINE2.index('true,"empty"')
    # the pointer "" and values that are no scalars or empty are not marked; nor a pointer that does not resolve
    assert rec2.spans == (Span("tool", j, j + 4), Span("output", k, k + 1), Span("success", o, o + 4))
    assert (bad.text, bad.note) == (None, "the bytes at this place no longer match their sha256")
    assert m.seen[:2] == [LINE2, LINE1]  # what is shown passed through the redactor


def test_copied_values_are_checked_against_the_log(tmp_path: Path) -> None:
    r = EvidenceReader(build(tmp_path), redactor=Masker())  # type: ignore[arg-type]
    v = r.step(1).verdicts
    assert v["tool"] == "matches the log"
    assert v["input"] == "matches the log"  # the trace's placeholder stands for the log's word
    assert v["output"] == "differs: step 1 output: value differs from the log at ev2"
    assert v["success"] == v["empty"] == "not checked (nothing to compare)"  # null in the trace
    assert v["turn"] == "differs: step 1 turn: pointer /missing does not resolve"
    assert v["model"] == "differs: step 1 model: bytes at s.jsonl:1 do not match their sha256"
    assert "operation" not in v  # derived: says how it was made instead
    assert r.step(2).verdicts == {"input": "matches the log"}


def test_a_step_with_no_provenance_has_no_records(tmp_path: Path) -> None:
    r = EvidenceReader(build(tmp_path), redactor=Masker())  # type: ignore[arg-type]
    ev = r.step(9)
    assert (ev.records, ev.verdicts, ev.log_note) == ([], {}, "")
    ev = r.step(2)
    assert [x.id for x in ev.records] == ["ev3"] and ev.records[0].spans == ()  # not JSON: nothing marked


def test_raw_shows_the_bytes_as_they_are(tmp_path: Path) -> None:
    r = EvidenceReader(build(tmp_path), raw=True)
    assert r.step(1).records[1].text == LINE1


def test_a_record_that_cannot_be_masked_is_not_shown(tmp_path: Path) -> None:
    d = build(tmp_path)  # no manifest source, no stored path: the log cannot be read again to mask
    r = EvidenceReader(d)
    ev = r.step(1)
    assert [x.text for x in ev.records] == [None, None, None]
    why = "not shown: it could not be redacted (the log is not on this machine)"
    assert [x.note for x in ev.records[:2]] == [why, why]
    assert "SECRET" not in json.dumps(ev.verdicts)
    assert ev.verdicts["output"] == "differs: (not shown: it could not be redacted)"


def test_a_log_not_here_unreadable_or_changed_says_so(tmp_path: Path) -> None:
    d = build(tmp_path, write=False)
    ev = EvidenceReader(d, redactor=Masker()).step(1)  # type: ignore[arg-type]
    note = "the log s.jsonl is not on this machine (it stays where it was swept)"
    assert ev.log_note == note and [x.note for x in ev.records] == [note] * 3
    assert ev.verdicts["tool"] == "not checked: " + note
    d.roots = []
    ev = EvidenceReader(d, redactor=Masker()).step(1)  # type: ignore[arg-type]
    assert ev.log_note == "the log s.jsonl is not on this machine (give --logs to read it)"
    d = build(tmp_path, digest="f" * 64)
    ev = EvidenceReader(d, redactor=Masker()).step(1)  # type: ignore[arg-type]
    assert ev.log_note == "the log s.jsonl changed since the trace was made (sha256 differs)"
    assert all(x.text is None for x in ev.records)
    d = build(tmp_path)
    d.provenance["sources"] = {}  # no hash recorded: read as it is
    assert EvidenceReader(d, redactor=Masker()).step(1).log_note == ""  # type: ignore[arg-type]
    (tmp_path / "s.jsonl").unlink()
    (tmp_path / "s.jsonl").mkdir()  # there, but no file to read
    d = build(tmp_path, write=False)
    assert "not on this machine" in EvidenceReader(d, redactor=Masker()).step(1).log_note  # type: ignore[arg-type]


def test_an_unreadable_log_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = build(tmp_path)
    r = EvidenceReader(d, redactor=Masker())  # type: ignore[arg-type]

    def refuse(name: str) -> bytes | None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(r.src, "bytes_of", refuse)
    assert r.source_note("s.jsonl") == "the log s.jsonl cannot be read: Permission denied"
    r2 = EvidenceReader(d, redactor=Masker())  # type: ignore[arg-type]
    monkeypatch.setattr(r2.src, "bytes_of", lambda name: (_ for _ in ()).throw(OSError("odd")))
    assert r2.source_note("s.jsonl") == "the log s.jsonl cannot be read: odd"


def test_each_source_is_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = EvidenceReader(build(tmp_path), redactor=Masker())  # type: ignore[arg-type]
    asked: list[str] = []
    real = r.src.bytes_of

    def count(name: str) -> bytes | None:
        asked.append(name)
        return real(name)

    monkeypatch.setattr(r.src, "bytes_of", count)
    r.source_note("s.jsonl")
    r.source_note("s.jsonl")
    assert asked == ["s.jsonl"]


def test_the_masking_redactor_is_made_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def make(d: LoadedTrace) -> Masker:
        made.append(d.trace_id)
        return Masker()

    monkeypatch.setattr(evm, "cached_redactor", make)
    r = EvidenceReader(build(tmp_path))
    assert r.step(1).records[1].text == LINE1.replace("SECRET", "[CREDENTIAL_1]")
    r.step(2)
    assert made == ["forsy_e"]


def test_spans_of_values_written_with_escapes(tmp_path: Path) -> None:
    text = '{"a":"caf\\u00e9","b":"x","c":1.5,"d":["x"],"e":"na\u00efve"}'  # a written escaped, e as it is
    got = evm._spans(text, [("a", "/a"), ("d", "/d"), ("c", "/c"), ("e", "/e"), ("z", "/zz"), ("w", "/d/5")])
    ia, ic, ie = text.index("caf\\u00e9"), text.index("1.5"), text.index("na\u00efve")
    assert got == [Span("a", ia, ia + 9), Span("c", ic, ic + 3), Span("e", ie, ie + 5)]  # in text order
    assert evm._spans("not json", [("a", "/a")]) == []


def test_a_span_marks_the_value_at_its_pointer_not_the_same_text_elsewhere() -> None:
    # "ls" is first another field's value, then a key; 1 is first inside 12 and 1.5, then a string
    text = '{"type":"ls","ls":{"n":12,"f":1.5,"s":"1"},"cmd":"ls","m":1,"t":true,"u":[true]}'
    got = evm._spans(text, [("w", "/nothing"), ("input", "/cmd"), ("x", "/m"), ("y", "/u/0"), ("z", "/ls/s")])
    i = text.index('"cmd":"ls"') + 7
    m, u, s = text.index('"m":1') + 4, text.index("[true]") + 1, text.index('"s":"1"') + 5
    assert got == [Span("z", s, s + 1), Span("input", i, i + 2), Span("x", m, m + 1), Span("y", u, u + 4)]


def test_a_span_is_looked_for_in_the_first_32_places_only() -> None:
    def record(decoys: int) -> str:
        return "{" + "".join(f'"d{k}":"ls",' for k in range(decoys)) + '"cmd":"ls"}'

    found = record(31)  # the value's place is the 32nd "ls"
    assert evm._spans(found, [("input", "/cmd")]) == [Span("input", len(found) - 4, len(found) - 2)]
    assert evm._spans(record(32), [("input", "/cmd")]) == []  # not found there: nothing marked, never a wrong place


def test_a_record_after_an_unknown_one_is_shown_and_a_step_may_list_none_of_its_own(tmp_path: Path) -> None:
    d = build(tmp_path)
    d.provenance["steps"][1]["evidence"] = ["nowhere", "evlost", "ev1", "ev3"]  # unknown ids skipped, not the end
    del d.provenance["steps"][0]["evidence"]  # then only what its fields cite, in their order
    r = EvidenceReader(d, redactor=Masker())  # type: ignore[arg-type]
    own, ev3 = r.step(2).records
    # ev1 is the step's own record that none of its fields cites
    assert (own.id, own.fields, own.spans, ev3.id, ev3.fields) == ("ev1", (), (), "ev3", ("input",))
    assert [x.id for x in r.step(1).records] == ["ev1", "ev2", "evbad"]
