"""`forsy verify` refuses what does not match the log: each check of verification.py is
shown failing on a hand-made trace folder whose expected report is written out here, so a
verify that stopped checking (a hash, a value, a span, a source) fails a test by name.

The folders are built by hand (trace.json + provenance.json over a two-line log) rather than
by a retrace, so the expected problems are known exactly and no other module is involved.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from forsy.errors import InputError
from forsy.sources import base as sources
from forsy.verification import Sources, VerifyReport, _as_text, _content_text, _matches, check_field, verify_folder

LINE1 = {"type": "user", "message": {"content": "List the files please"}}
LINE2 = {"type": "tool",
         "content": [{"type": "text", "text": "a.py"}, {"type": "image"}, {"type": "text", "text": "b.py"}],
         "args": "{\"cmd\": \"ls -la\", \"n\": 2}"}


@pytest.fixture(autouse=True)
def _registry_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """verify asks the source registry, per source name, whether the name has a scheme; each ask
    scans every installed package's entry points (~0.5 s here). Same answers, read once per test,
    so a mutation run (which runs these tests per mutant) stays fast."""
    monkeypatch.setattr(sources, "registry", functools.cache(sources.registry))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _log(tmp: Path, *records: Any, name: str = "s.jsonl") -> tuple[Path, dict[str, Any]]:
    """Write the log; return it and its evidence table: e1, e2, ... one per line."""
    lines = [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]
    data = b"".join(line + b"\n" for line in lines)
    path = tmp / "logs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    evidence, off = {}, 0
    for i, line in enumerate(lines, 1):
        evidence[f"e{i}"] = {"source": name, "line": i, "byte_offset": off, "byte_length": len(line),
                             "sha256": _sha(line)}
        off += len(line) + 1
    return path, evidence


def _folder(tmp: Path, log: Path, evidence: dict[str, Any], steps: list[dict[str, Any]],
            fields: list[dict[str, Any]], sources: dict[str, str] | None = None) -> Path:
    out = tmp / "trace"
    out.mkdir(exist_ok=True)
    (out / "trace.json").write_text(json.dumps({"steps": steps}))
    prov = {"sources": sources if sources is not None else {log.name: _sha(log.read_bytes())},
            "evidence": evidence,
            "steps": [{"step": i, "fields": f} for i, f in enumerate(fields, 1)]}
    (out / "provenance.json").write_text(json.dumps(prov))
    return out


def _copied(eid: str, pointer: str, **extra: Any) -> dict[str, Any]:
    return {"origin": "copied", "evidence": [{"id": eid, "pointer": pointer}], **extra}


def _one(tmp: Path, value: Any, field: dict[str, Any], fname: str = "input", *records: Any) -> VerifyReport:
    log, ev = _log(tmp, *(records or (LINE1, LINE2)))
    return verify_folder(_folder(tmp, log, ev, [{fname: value}], [{fname: field}]), [log.parent])


# ------------------------------------------------------------------------- whole folders
def test_verify_accepts_a_value_copied_exactly(tmp_path: Path) -> None:
    rep = _one(tmp_path, "List the files please", _copied("e1", "/message/content"))
    assert (rep.ok, rep.checked, rep.skipped, rep.problems) == (True, 1, 0, [])


def test_verify_reports_a_changed_value(tmp_path: Path) -> None:
    rep = _one(tmp_path, "List the files, please", _copied("e1", "/message/content"))
    assert rep.problems == ["step 1 input: value differs from the log at e1"]
    assert (rep.ok, rep.checked) == (False, 1)


def test_verify_reports_a_changed_byte_in_the_log(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, LINE2)
    folder = _folder(tmp_path, log, ev, [{"input": "List the files please"}],
                     [{"input": _copied("e1", "/message/content")}])
    log.write_bytes(log.read_bytes().replace(b"List", b"Lost"))
    rep = verify_folder(folder, [log.parent])
    assert rep.problems == ["source s.jsonl changed since the trace was made (sha256 differs)"]
    assert rep.checked == 0  # nothing is compared against a log that is not the one recorded


def test_verify_reports_a_missing_source(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [{"input": "x"}], [{"input": _copied("e1", "/message/content")}])
    log.unlink()
    rep = verify_folder(folder, [log.parent])
    assert rep.problems == [f"source s.jsonl not found under {log.parent}"]


def test_verify_reports_every_missing_source_naming_all_roots(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [], [], sources={"a.jsonl": "0" * 64, "b.jsonl": "1" * 64})
    other = tmp_path / "other"
    other.mkdir()
    rep = verify_folder(folder, [log.parent, other])
    assert rep.problems == [f"source a.jsonl not found under {log.parent}, {other}",
                            f"source b.jsonl not found under {log.parent}, {other}"]


def test_verify_reports_a_moved_span(tmp_path: Path) -> None:
    """Evidence pointing one byte off: the bytes read no longer hash to the recorded sha256."""
    log, ev = _log(tmp_path, LINE1, LINE2)
    ev["e1"]["byte_offset"] += 1
    rep = verify_folder(_folder(tmp_path, log, ev, [{"input": "List the files please"}],
                                [{"input": _copied("e1", "/message/content")}]), [log.parent])
    assert rep.problems == ["step 1 input: bytes at s.jsonl:1 do not match their sha256"]


def test_verify_reports_a_span_one_byte_short(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, LINE2)
    ev["e2"]["byte_length"] -= 1
    rep = verify_folder(_folder(tmp_path, log, ev, [{"input": "ls"}], [{"input": _copied("e2", "/args")}]),
                        [log.parent])
    assert rep.problems == ["step 1 input: bytes at s.jsonl:2 do not match their sha256"]


def test_verify_reads_the_second_record_at_its_offset(tmp_path: Path) -> None:
    rep = _one(tmp_path, "{\"cmd\": \"ls -la\", \"n\": 2}", _copied("e2", "/args"))
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_follows_the_step_number_to_its_step(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, LINE2)
    steps = [{"input": "List the files please"}, {"input": "{\"cmd\": \"ls -la\", \"n\": 2}"}]
    fields = [{"input": _copied("e1", "/message/content")}, {"input": _copied("e2", "/args")}]
    rep = verify_folder(_folder(tmp_path, log, ev, steps, fields), [log.parent])
    assert (rep.problems, rep.checked) == ([], 2)
    steps.reverse()
    rep = verify_folder(_folder(tmp_path, log, ev, steps, fields), [log.parent])
    assert rep.problems == ["step 1 input: value differs from the log at e1",
                            "step 2 input: value differs from the log at e2"]


def test_verify_reports_a_provenance_step_outside_the_trace(tmp_path: Path) -> None:
    """Step numbers count from 1: 0, -1 and one past the end name no step. Each is reported
    (not an IndexError, not the last step checked in its place) and the steps that do exist
    are still checked."""
    log, ev = _log(tmp_path, LINE1, LINE2)
    steps = [{"input": "List the files please"}, {"input": "{\"cmd\": \"ls -la\", \"n\": 2}"}]
    folder = _folder(tmp_path, log, ev, steps, [])
    field = {"input": _copied("e2", "/args")}
    prov = json.loads((folder / "provenance.json").read_text())
    prov["steps"] = [{"step": n, "fields": field} for n in (0, 3, -1, 2)]
    (folder / "provenance.json").write_text(json.dumps(prov))
    rep = verify_folder(folder, [log.parent])
    assert rep.problems == ["provenance step 0 is not in the trace",
                            "provenance step 3 is not in the trace",
                            "provenance step -1 is not in the trace"]
    assert rep.checked == 1  # step 2, the one that exists


def test_verify_reports_provenance_steps_of_a_trace_without_steps(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [], [{"input": _copied("e1", "/message/content")}])
    (folder / "trace.json").write_text("{}")
    rep = verify_folder(folder, [log.parent])
    assert (rep.problems, rep.checked) == (["provenance step 1 is not in the trace"], 0)


def test_verify_checks_only_copied_fields(tmp_path: Path) -> None:
    derived = {"origin": "derived", "evidence": [{"id": "e1", "pointer": "/message/content"}]}
    rep = _one(tmp_path, "anything at all", derived)
    assert (rep.problems, rep.checked, rep.skipped) == ([], 0, 0)


def test_verify_checks_the_copied_fields_after_a_derived_one(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, LINE2)
    derived = {"origin": "derived", "evidence": [{"id": "e1", "pointer": "/message/content"}]}
    fields = [{"operation": derived, "input": _copied("e1", "/message/content")}]
    rep = verify_folder(_folder(tmp_path, log, ev, [{"operation": "x", "input": "changed"}], fields), [log.parent])
    assert rep.problems == ["step 1 input: value differs from the log at e1"]


def test_verify_accepts_the_log_file_itself_as_root(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [{"input": "List the files please"}],
                     [{"input": _copied("e1", "/message/content")}])
    rep = verify_folder(folder, [log])
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_of_a_folder_without_a_trace_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read trace folder"):
        verify_folder(tmp_path, [tmp_path])
    (tmp_path / "trace.json").write_text("{}")
    (tmp_path / "provenance.json").write_text("not json")
    with pytest.raises(InputError, match="cannot read trace folder"):
        verify_folder(tmp_path, [tmp_path])


def test_verify_names_the_folder_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        verify_folder(tmp_path, [tmp_path])
    assert e.value.path == str(tmp_path)


def test_verify_without_a_sources_table_reports_the_source_missing(tmp_path: Path) -> None:
    """A redacted-looking source name is looked up in provenance's sources table; with no table it is missing."""
    log, ev = _log(tmp_path, LINE1)
    for e in ev.values():
        e["source"] = "s-[SECRET_1].jsonl"
    folder = _folder(tmp_path, log, ev, [{"input": "x"}], [{"input": _copied("e1", "/message/content")}])
    prov = json.loads((folder / "provenance.json").read_text())
    del prov["sources"]
    (folder / "provenance.json").write_text(json.dumps(prov))
    rep = verify_folder(folder, [log.parent])
    assert rep.problems == ["step 1 input: source s-[SECRET_1].jsonl missing"]


def test_verify_without_an_evidence_table_reports_each_reference(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [{"input": "x"}], [{"input": _copied("e1", "/message/content")}])
    prov = json.loads((folder / "provenance.json").read_text())
    del prov["evidence"]
    (folder / "provenance.json").write_text(json.dumps(prov))
    assert verify_folder(folder, [log.parent]).problems == ["step 1 input: evidence e1 not in provenance"]


def test_verify_of_a_step_without_fields_checks_nothing(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1)
    folder = _folder(tmp_path, log, ev, [{"input": "x"}], [{}])
    prov = json.loads((folder / "provenance.json").read_text())
    del prov["steps"][0]["fields"]
    (folder / "provenance.json").write_text(json.dumps(prov))
    rep = verify_folder(folder, [log.parent])
    assert (rep.problems, rep.checked, rep.skipped) == ([], 0, 0)


def test_verify_counts_every_skipped_field(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, LINE2)
    field = _copied("e1", "/message/content")
    folder = _folder(tmp_path, log, ev, [{"input": None, "output": None}], [{"input": field, "output": field}])
    assert verify_folder(folder, [log.parent]).skipped == 2


def test_verify_with_no_provenance_sections_checks_nothing(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_text("{}")
    (tmp_path / "provenance.json").write_text("{}")
    rep = verify_folder(tmp_path, [tmp_path])
    assert (rep.ok, rep.checked, rep.skipped) == (True, 0, 0)


# ------------------------------------------------------------------------- one field
def test_verify_reports_evidence_missing_from_provenance(tmp_path: Path) -> None:
    rep = _one(tmp_path, "x", _copied("e9", "/message/content"))
    assert rep.problems == ["step 1 input: evidence e9 not in provenance"]


def test_verify_reports_a_pointer_that_does_not_resolve(tmp_path: Path) -> None:
    rep = _one(tmp_path, "x", _copied("e1", "/message/nope"))
    assert rep.problems == ["step 1 input: pointer /message/nope does not resolve"]
    rep = _one(tmp_path, "x", _copied("e2", "/content/7"))
    assert rep.problems == ["step 1 input: pointer /content/7 does not resolve"]
    rep = _one(tmp_path, "x", _copied("e2", "/content/x"))
    assert rep.problems == ["step 1 input: pointer /content/x does not resolve"]


def test_verify_skips_a_null_value_and_a_field_without_evidence(tmp_path: Path) -> None:
    rep = _one(tmp_path, None, _copied("e1", "/message/content"))
    assert (rep.problems, rep.checked, rep.skipped) == ([], 0, 1)
    rep = _one(tmp_path, "x", {"origin": "copied", "evidence": []})
    assert (rep.problems, rep.checked, rep.skipped) == ([], 0, 1)
    rep = _one(tmp_path, "x", {"origin": "copied"})
    assert (rep.problems, rep.checked, rep.skipped) == ([], 0, 1)


def test_verify_output_joins_text_blocks_with_newlines(tmp_path: Path) -> None:
    rep = _one(tmp_path, "a.py\nb.py", _copied("e2", "/content"), "output")
    assert (rep.problems, rep.checked) == ([], 1)
    rep = _one(tmp_path, "a.pyb.py", _copied("e2", "/content"), "output")
    assert rep.problems == ["step 1 output: value differs from the log at e2"]


def test_verify_input_compares_json_by_value(tmp_path: Path) -> None:
    """An input re-serialised ({"cmd":"ls -la","n":2}) is the same JSON value as the log's."""
    rep = _one(tmp_path, {"n": 2, "cmd": "ls -la"}, _copied("e2", "/args"))
    assert (rep.problems, rep.checked) == ([], 1)
    rep = _one(tmp_path, {"n": 3, "cmd": "ls -la"}, _copied("e2", "/args"))
    assert rep.problems == ["step 1 input: value differs from the log at e2"]


def test_verify_json_equality_is_for_inputs_only(tmp_path: Path) -> None:
    rep = _one(tmp_path, {"n": 2, "cmd": "ls -la"}, _copied("e2", "/args"), "reasoning")
    assert rep.problems == ["step 1 reasoning: value differs from the log at e2"]


def test_verify_c_json_string_follows_the_inner_pointer(tmp_path: Path) -> None:
    field = _copied("e2", "/args", rule="C-json-string", params={"pointer": "/cmd"})
    assert _one(tmp_path, "ls -la", field).problems == []
    assert _one(tmp_path, "ls -l", field).problems == ["step 1 input: value differs from the log at e2"]
    bad = _copied("e2", "/args", rule="C-json-string", params={"pointer": "/nope"})
    assert _one(tmp_path, "ls -la", bad).problems == ["step 1 input: pointer /args does not resolve"]


def test_verify_c_json_string_without_inner_pointer_is_the_whole_json(tmp_path: Path) -> None:
    field = _copied("e2", "/args", rule="C-json-string", params={})
    assert _one(tmp_path, {"cmd": "ls -la", "n": 2}, field).problems == []
    assert _one(tmp_path, {"cmd": "ls", "n": 2}, field).problems == ["step 1 input: value differs from the log at e2"]


def test_verify_joins_text_blocks_for_outputs_only(tmp_path: Path) -> None:
    """An input copied from a list is that list as JSON, not its text blocks joined."""
    blocks = LINE2["content"]
    assert _one(tmp_path, blocks, _copied("e2", "/content")).problems == []
    assert _one(tmp_path, "a.py\nb.py", _copied("e2", "/content")).problems == [
        "step 1 input: value differs from the log at e2"]


def test_verify_c_span_accepts_a_substring_only(tmp_path: Path) -> None:
    span = _copied("e1", "/message/content", rule="C-span")
    assert _one(tmp_path, "the files", span).problems == []
    assert _one(tmp_path, "the file please", span).problems == [
        "step 1 input: value differs from the log at e1"]


def test_verify_does_not_compare_an_excerpt(tmp_path: Path) -> None:
    rep = _one(tmp_path, "…files…", _copied("e1", "/message/content", excerpt=True))
    assert (rep.problems, rep.checked) == ([], 1)


# a value joined from two records (the message's text, then the call's arguments as JSON)
JOINED = {"origin": "copied", "evidence": [{"id": "e1", "pointer": "/message/content"},
                                          {"id": "e2", "pointer": "/args"}]}


def test_verify_joined_values_must_contain_every_piece(tmp_path: Path) -> None:
    joined = "List the files please\n\n{\"cmd\": \"ls -la\", \"n\": 2}"
    assert _one(tmp_path, joined, JOINED).problems == []
    assert _one(tmp_path, "List the files please", JOINED).problems == [
        "step 1 input: value differs from the log at e1"]


def test_verify_joined_values_ignore_blank_pieces(tmp_path: Path) -> None:
    two = {"origin": "copied", "evidence": [{"id": "e1", "pointer": "/message/content"},
                                             {"id": "e2", "pointer": "/blank"}]}
    rep = _one(tmp_path, "List the files please", two, "input", LINE1, {"blank": "  "})
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_joined_pieces_may_hold_bracketed_words(tmp_path: Path) -> None:
    two = {"origin": "copied", "evidence": [{"id": "e1", "pointer": "/t"}, {"id": "e2", "pointer": "/t"}]}
    rep = _one(tmp_path, "see [NOTE] here\n\nand more", two, "output", {"t": "see [NOTE] here"}, {"t": "and more"})
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_accepts_a_joined_value_with_a_redacted_piece(tmp_path: Path) -> None:
    rep = _one(tmp_path, "List the [PERSON_1] please\n\n{\"cmd\": \"ls -la\", \"n\": 2}", JOINED)
    assert rep.problems == []


def test_verify_reports_a_redacted_joined_value_whose_other_text_differs(tmp_path: Path) -> None:
    """A placeholder in a joined value excuses only the part it stands for."""
    rep = _one(tmp_path, "List the [PERSON_1] please\n\n{\"cmd\": \"rm -rf\", \"n\": 2}", JOINED)
    assert rep.problems == ["step 1 input: value differs from the log at e1"]


def test_verify_c_span_accepts_a_redacted_slice(tmp_path: Path) -> None:
    """A span whose secret was masked is no longer a substring; it matches by its placeholders."""
    span = _copied("e1", "/message/content", rule="C-span")
    assert _one(tmp_path, "the [PATH_1] please", span).problems == []
    assert _one(tmp_path, "the [PATH_1] now", span).problems == [
        "step 1 input: value differs from the log at e1"]


def test_verify_compares_a_whole_text_record_with_its_text_as_written(tmp_path: Path) -> None:
    """A history line that happens to parse as JSON (`1e3`, `[1,  2]`): its JSON reading differs
    from the line, so the value is also compared with the record's bytes as written."""
    whole = {"origin": "copied", "evidence": [{"id": "e1", "pointer": ""}]}
    assert _one(tmp_path, "1e3", whole, "input", b"1e3").problems == []
    assert _one(tmp_path, "[1,  2]", whole, "input", b"[1,  2]").problems == []
    assert _one(tmp_path, "1e4", whole, "input", b"1e3").problems == ["step 1 input: value differs from the log at e1"]
    inner = {"origin": "copied", "evidence": [{"id": "e1", "pointer": "/0"}]}
    assert _one(tmp_path, "1", inner, "input", b"[1,  2]").problems == []
    assert _one(tmp_path, "[1,  2]", inner, "input", b"[1,  2]").problems == [
        "step 1 input: value differs from the log at e1"]  # a pointer inside: never the whole line


def test_verify_compares_a_whole_text_record_as_written_in_any_field(tmp_path: Path) -> None:
    """Not only inputs (which also compare as JSON): an output `1e3` reads as 1000.0 and a list
    holds no text blocks, so only the line as written agrees; a span is a slice of that line."""
    whole = {"origin": "copied", "evidence": [{"id": "e1", "pointer": ""}]}
    assert _one(tmp_path, "1e3", whole, "output", b"1e3").problems == []
    assert _one(tmp_path, "[1,  2]", whole, "output", b"[1,  2]").problems == []
    assert _one(tmp_path, "[1,  3]", whole, "output", b"[1,  2]").problems == [
        "step 1 output: value differs from the log at e1"]
    span = {**whole, "rule": "C-span"}
    assert _one(tmp_path, "[1, ", span, "input", b"[1,  2]").problems == []  # "[1,2]" parsed holds no "[1, "


def test_verify_reads_a_record_that_is_not_json_as_text(tmp_path: Path) -> None:
    rep = _one(tmp_path, "echo hi", _copied("e1", ""), "input", b"echo hi")
    assert (rep.problems, rep.checked) == ([], 1)
    rep = _one(tmp_path, "echo ho", _copied("e1", ""), "input", b"echo hi")
    assert rep.problems == ["step 1 input: value differs from the log at e1"]


def test_verify_reads_json_with_a_lone_surrogate_escape(tmp_path: Path) -> None:
    """orjson refuses a lone surrogate; the json fallback reads it, so the value is compared."""
    rep = _one(tmp_path, "a\ud800b", _copied("e1", "/t"), "input", b'{"t": "a\\ud800b"}')
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_reads_invalid_utf8_inside_json_as_surrogate_escapes(tmp_path: Path) -> None:
    """A JSON record with a byte that is not UTF-8 is still JSON: the pointer resolves and the
    byte reads as U+FFFD, as the readers copy it; a trace holding it as a surrogate escape
    matches too (both sides are compared as written text)."""
    rep = _one(tmp_path, "caf\udcff", _copied("e1", "/t"), "input", b'{"t": "caf\xff"}')
    assert (rep.problems, rep.checked) == ([], 1)
    (tmp_path / "fffd").mkdir()
    rep = _one(tmp_path / "fffd", "caf\ufffd", _copied("e1", "/t"), "input", b'{"t": "caf\xff"}')
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_compares_a_text_record_whole_whatever_its_pointer(tmp_path: Path) -> None:
    rep = _one(tmp_path, "echo hi", _copied("e1", "/cmd"), "input", b"echo hi")
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_reads_a_reference_without_pointer_as_the_whole_record(tmp_path: Path) -> None:
    field = {"origin": "copied", "evidence": [{"id": "e1"}]}
    rep = _one(tmp_path, LINE1, field)
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_reads_undecodable_bytes_as_replacement_text(tmp_path: Path) -> None:
    rep = _one(tmp_path, "caf\ufffd", _copied("e1", ""), "input", b"caf\xff")
    assert (rep.problems, rep.checked) == ([], 1)


def test_verify_reports_evidence_whose_source_is_gone(tmp_path: Path) -> None:
    src = Sources([tmp_path], {})
    rep = VerifyReport()
    evidence = {"e1": {"source": "gone.jsonl", "line": 1, "byte_offset": 0, "byte_length": 2, "sha256": "x"}}
    check_field(rep, src, evidence, 3, "output", "v", _copied("e1", ""))
    assert rep.problems == ["step 3 output: source gone.jsonl missing"]


def test_verify_matches_redacted_values_piece_by_piece(tmp_path: Path) -> None:
    field = _copied("e1", "/message/content")
    assert _one(tmp_path, "List [PERSON_1] please", field).problems == []
    assert _one(tmp_path, "please [PERSON_1] List", field).problems == [
        "step 1 input: value differs from the log at e1"]


# ------------------------------------------------------------------------- helpers
@pytest.mark.parametrize(("value", "source", "expected"), [
    ("abc", "abc", True),
    ("abc", "abd", False),
    ("a[EMAIL]b", "a x@y.z b", True),
    ("b[EMAIL]a", "a x@y.z b", False),
    ("ab[SECRET_1]b", "ab", False),  # the second piece must come after the first, not overlap it
    ("[SECRET_1]", "anything", True),
    ("[A9_B]x", "yx", True),
    ("[a]x", "yx", False),  # lower case is not a placeholder
    ("[9A]x", "yx", False),  # a placeholder starts with a letter
    ("[]x", "yx", False),
    ("x[A][B]y", "x..y", True),
    ("x[A]y[B]z", "xzy", False),
    ("a[X]b", "a..b..a", True),  # the first occurrence of a piece counts, not the last
])
def test_redacted_value_matches_its_source(value: str, source: str, expected: bool) -> None:
    assert _matches(value, source) is expected


def test_as_text_keeps_strings_and_serialises_the_rest_compactly() -> None:
    assert _as_text("a\"b") == "a\"b"
    assert _as_text({"a": [1, None]}) == '{"a":[1,null]}'
    assert _as_text({1: "x"}) == '{"1":"x"}'


def test_content_text_joins_only_text_blocks() -> None:
    assert _content_text([{"text": "a"}, "b", {"text": 3}, {"x": "y"}, {"text": "c"}]) == "a\nc"
    assert _content_text("plain") == "plain"
    assert _content_text({"text": "a"}) == '{"text":"a"}'


def test_sources_reads_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(b"one\n")
    src = Sources([tmp_path], {})
    assert src.bytes_of("a.jsonl") == b"one\n"
    (tmp_path / "a.jsonl").write_bytes(b"two\n")
    assert src.bytes_of("a.jsonl") == b"one\n"  # what the checks saw stays one version
    assert src.bytes_of("b.jsonl") is None
    assert "b.jsonl" not in src.cache


def test_sources_never_leave_their_roots(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_bytes(b"s")
    root = tmp_path / "root"
    root.mkdir()
    assert Sources([root], {}).bytes_of("../secret.txt") is None
    assert Sources([root], {}).bytes_of(".") is None  # the root itself is not a file


def test_sources_search_every_root_in_order(tmp_path: Path) -> None:
    for sub in ("r1", "r2"):
        (tmp_path / sub).mkdir()
    (tmp_path / "r2" / "a.log").write_bytes(b"second")
    assert Sources([tmp_path / "r1", tmp_path / "r2"], {}).bytes_of("a.log") == b"second"
    (tmp_path / "r1" / "a.log").write_bytes(b"first")
    assert Sources([tmp_path / "r1", tmp_path / "r2"], {}).bytes_of("a.log") == b"first"


def test_sources_read_a_scheme_name_back_through_its_source(tmp_path: Path) -> None:
    """`atuin:<db>#<row>` is no file name: the shell source reads that row of the database
    under the roots (the row as JSON), and an unknown row or database is missing."""
    con = sqlite3.connect(tmp_path / "history.db")
    con.execute("CREATE TABLE history (id TEXT, command TEXT, exit INTEGER)")
    con.execute("INSERT INTO history VALUES ('r1', 'ls -la', 0), ('r2', 'make', 2)")
    con.commit()
    con.close()
    src = Sources([tmp_path / "elsewhere", tmp_path], {})
    data = src.bytes_of("atuin:history.db#r2")
    assert data is not None and json.loads(data) == {"id": "r2", "command": "make", "exit": 2}
    assert src.bytes_of("atuin:history.db#r9") is None
    assert src.bytes_of("atuin:other.db#r1") is None


def test_a_redacted_source_name_is_found_by_its_hash_only(tmp_path: Path) -> None:
    (tmp_path / "proj-alice").mkdir()
    (tmp_path / "proj-bob").mkdir()
    (tmp_path / "proj-alice" / "s.jsonl").write_bytes(b"alice's log")
    (tmp_path / "proj-bob" / "s.jsonl").write_bytes(b"bob's log")
    name = "proj-[PERSON_1]/s.jsonl"
    assert Sources([tmp_path], {name: _sha(b"bob's log")}).bytes_of(name) == b"bob's log"
    assert Sources([tmp_path], {name: _sha(b"alice's log")}).bytes_of(name) == b"alice's log"
    assert Sources([tmp_path], {name: _sha(b"nobody's")}).bytes_of(name) is None
    # a placeholder name that provenance does not list is not searched for
    assert Sources([tmp_path], {}).bytes_of(name) is None


def test_a_redacted_source_name_must_fit_the_whole_path(tmp_path: Path) -> None:
    (tmp_path / "proj-alice").mkdir()
    (tmp_path / "proj-alice" / "s.jsonl.bak").write_bytes(b"log")
    name = "proj-[PERSON_1]/s.jsonl"
    assert Sources([tmp_path], {name: _sha(b"log")}).bytes_of(name) is None


def test_a_redacted_file_name_alone_is_found(tmp_path: Path) -> None:
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "s-sk_live_1.jsonl").write_bytes(b"log")
    name = "s-[SECRET_1].jsonl"
    assert Sources([tmp_path], {name: _sha(b"log")}).bytes_of(name) == b"log"


def test_a_redacted_source_name_never_follows_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"log")
    root = tmp_path / "root"
    root.mkdir()
    (root / "s-x.jsonl").symlink_to(outside)
    name = "s-[SECRET_1].jsonl"
    assert Sources([root], {name: _sha(b"log")}).bytes_of(name) is None


def test_a_redacted_source_name_is_verified_end_to_end(tmp_path: Path) -> None:
    log, ev = _log(tmp_path, LINE1, name="s-sk_live_1.jsonl")
    name = "s-[SECRET_1].jsonl"
    for e in ev.values():
        e["source"] = name
    folder = _folder(tmp_path, log, ev, [{"input": "List the files please"}],
                     [{"input": _copied("e1", "/message/content")}], sources={name: _sha(log.read_bytes())})
    rep = verify_folder(folder, [log.parent])
    assert (rep.problems, rep.checked) == ([], 1)
