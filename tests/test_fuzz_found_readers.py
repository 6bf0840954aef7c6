"""What the fuzzer found in the readers of whole-JSON documents, recordings and shell histories,
each pinned by a small hand-made file: a top-level member of a chat or trajectory, an asciicast
header member or a call's arguments nested past MAX_DEPTH (or past what the parser takes) ended in
a RecursionError; a shell history's number with hundreds or thousands of digits in an
OverflowError or ValueError; one NUL byte in a history's first 4 KB had it refused as binary.
Each is now read as the formats' other damage is: the part is left out, named with file and line,
and the rest read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.evidence import ReadingWarning, Session
from forsy.payloads import ShellInfo
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink
from forsy.sources import ReadContext, detect
from forsy.sources._records import MAX_DEPTH, Problem, iter_jsonl
from forsy.sources.asciinema import AsciinemaSource
from forsy.sources.asciinema._cast import parse
from forsy.sources.json_doc import read_object_array
from forsy.sources.mini_swe_agent import MiniSweAgentSource
from forsy.sources.shell import ShellHistorySource
from forsy.sources.shell._formats import number

# past MAX_DEPTH but within what the parser takes; past what the parser takes (Python's
# recursion limit, 1000)
DEPTHS = [MAX_DEPTH + 1, 500, 5000]


def nest(n: int, leaf: str = '"x"') -> str:
    """A value of `n` objects, one inside the other."""
    return '{"a":' * n + leaf + "}" * n


def _retrace(tmp_path: Path, log: Path) -> Session:
    [out] = retrace_one(log, RetraceOptions(redact=False), sink=FolderSink(tmp_path / "out", parent=False), keep=True)
    assert out.status == "written", out.message
    assert out.session is not None
    return out.session


def _warned(s: Session, code: str) -> list[tuple[str, str | None, int | None]]:
    return [(w.message, w.file, w.line) for w in s.warnings if w.code == code]


# --- A: too deep ---------------------------------------------------------------------------


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_member_nested_past_the_limit_is_left_out_and_the_members_after_it_read(depth: int) -> None:
    data = ('{\n "a": 1,\n "deep": ' + nest(depth) + ',\n "messages": [{"type": "user"}],\n "kept": '
            + nest(MAX_DEPTH) + "\n}").encode()
    doc = read_object_array(data, "c.json", "messages")
    assert doc is not None
    assert doc.problems == [("too-deep", f"member 'deep' nests values more than {MAX_DEPTH} levels deep; not read", 3)]
    assert list(doc.header) == ["a", "kept"] and list(doc.spans) == ["a", "kept"] and doc.deep == ["deep"]
    assert [r.data for r in doc.records] == [{"type": "user"}] and [r.ev.line for r in doc.records] == [4]


def test_an_element_past_what_the_parser_takes_is_skipped_and_the_next_one_read() -> None:
    data = ('{"messages": [' + nest(5000) + ',\n{"type": "user"}]}').encode()
    doc = read_object_array(data, "c.json", "messages")
    assert doc is not None and doc.elements == 2
    assert doc.problems == [("too-deep", f"element nests values more than {MAX_DEPTH} levels deep; skipped", 1)]
    assert [(r.data, r.ev.line) for r in doc.records] == [({"type": "user"}, 2)]


def test_a_jsonl_line_the_stdlib_parses_and_too_deep_is_said_too_deep_not_unparsable() -> None:
    # invalid UTF-8 sends the line to the stdlib parser, whose value was scrubbed recursively
    line = ('{"t": "\xff", "d": ' + nest(600) + "}").encode("latin-1")
    warnings: list[ReadingWarning] = []
    recs = list(iter_jsonl(line + b'\n{"ok": 1}\n', "s.jsonl", warnings, {}))
    assert [r.data for r in recs] == [{"ok": 1}]
    assert [(w.code, w.line) for w in warnings] == [("too-deep", 1)]


def _gemini_chat(start: str) -> str:
    return "\n".join([
        "{",
        ' "sessionId": "5e5a1e2b-0000-4000-8000-000000000001",',
        ' "projectHash": "' + "ab" * 32 + '",',
        ' "startTime": ' + start + ",",
        ' "lastUpdated": "2025-09-01T10:00:09.000Z",',
        ' "messages": [',
        '  {"id": "m1", "timestamp": "2025-09-01T10:00:00.000Z", "type": "user", "content": "list the files"},',
        '  {"id": "m2", "timestamp": "2025-09-01T10:00:05.000Z", "type": "gemini", "content": "There are none.",'
        ' "model": "gemini-2.5-pro"}',
        " ]",
        "}",
    ])


@pytest.mark.parametrize("depth", [500, 5000])
def test_a_gemini_chat_whose_start_time_nests_too_deep_is_read_without_it(tmp_path: Path, depth: int) -> None:
    log = tmp_path / "session-2025-09-01T10-00-5e5a1e2b.json"
    log.write_text(_gemini_chat(nest(depth)))
    s = _retrace(tmp_path, log)
    assert _warned(s, "too-deep") == [
        (f"member 'startTime' nests values more than {MAX_DEPTH} levels deep; not read", log.name, 4)]
    assert [(e.kind, e.text) for e in s.events] == [("user", "list the files"), ("agent_text", "There are none.")]


def _trajectory(info: str, arguments: str = '{"command": "ls"}') -> str:
    call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": arguments}}
    msgs = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Fix the typo in README."},
            {"role": "assistant", "content": "Looking.", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "README.md"}]
    return '{\n  "info": ' + info + ',\n  "messages": ' + json.dumps(msgs, indent=2) + ',\n  "trajectory_format": ' \
        '"mini-swe-agent-1.1"\n}'


INFO = json.dumps({"mini_version": "2.4.6", "exit_status": "Submitted", "config": {"model": {"model_name": "m"}}})


def test_a_mini_swe_agent_trajectory_whose_info_nests_too_deep_is_read_without_it(tmp_path: Path) -> None:
    log = tmp_path / "run.traj.json"
    log.write_text(_trajectory(nest(500)))
    s = _retrace(tmp_path, log)
    assert _warned(s, "too-deep") == [
        (f"member 'info' nests values more than {MAX_DEPTH} levels deep; not read", log.name, 2)]
    assert [e.kind for e in s.events] == ["user", "agent_text", "tool_call", "tool_result"]


@pytest.mark.parametrize("depth", [300, 1000])  # 1000: within what orjson parses, past what json.dumps writes
def test_call_arguments_that_nest_too_deep_stay_the_text_they_were_written_as(tmp_path: Path, depth: int) -> None:
    args = '{"command": ' + nest(depth) + "}"
    log = tmp_path / "run.traj.json"
    log.write_text(_trajectory(INFO, args))
    [s] = MiniSweAgentSource().read(log, ReadContext(root=tmp_path))
    [call] = [e for e in s.events if e.kind == "tool_call"]
    assert call.args == args
    [(message, file, line)] = _warned(s, "too-deep-value")
    assert message == f"tool_calls[0] arguments nest values more than {MAX_DEPTH} levels deep; kept as text"
    assert (file, line) == (log.name, s.evidence[call.refs[0].ev].line)


CAST_HEADER = '{"version": 2, "width": 80, "height": 24, "timestamp": 1743158864, "x": DEEP, "command": "ls"}'


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_cast_header_member_nested_too_deep_is_left_out_and_the_recording_read(depth: int) -> None:
    data = (CAST_HEADER.replace("DEEP", nest(depth)) + '\n[0.5, "o", "$ "]\n[1.0, "o", "done"]\n').encode()
    assert AsciinemaSource().sniff(Path("demo.cast"), data)
    cast = parse(data, "demo.cast")
    assert cast is not None
    assert cast.header == {"version": 2, "width": 80, "height": 24, "timestamp": 1743158864, "command": "ls"}
    assert cast.problems == [Problem("too-deep-value", f"header member 'x' nests values more than {MAX_DEPTH} "
                                     "levels deep; not read", 1)]
    assert [(e.t, e.data) for e in cast.events] == [(0.5, "$ "), (1.0, "done")]
    assert cast.header_ev.byte_length == len(data.split(b"\n")[0])  # the header's bytes are still its evidence


def test_a_cast_whose_header_nests_too_deep_is_retraced(tmp_path: Path) -> None:
    log = tmp_path / "demo.cast"
    log.write_text(CAST_HEADER.replace("DEEP", nest(500)) + '\n[0.5, "o", "a.txt\\r\\n"]\n')  # a recording of `ls`
    s = _retrace(tmp_path, log)
    assert _warned(s, "too-deep-value") == [
        (f"header member 'x' nests values more than {MAX_DEPTH} levels deep; not read", log.name, 1)]
    assert [e.kind for e in s.events] == ["tool_call", "tool_result"]  # the command the header names, run


# --- B: digit runs past any number a shell writes --------------------------------------------


def _read_history(path: Path) -> Session:
    [s] = ShellHistorySource().read(path, ReadContext(root=path.parent))
    return s


def test_a_zsh_elapsed_time_of_hundreds_of_digits_is_said_and_the_command_kept(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1538163995:0;cd\n: 1538163996:" + b"1" * 310 + b";cd dotfiles\n")
    s = _read_history(p)
    assert [(e.text, e.ts) for e in s.events] == [("cd", "2018-09-28T19:46:35Z"),
                                                  ("cd dotfiles", "2018-09-28T19:46:36Z")]  # its time kept
    assert isinstance(s.events[1].info, ShellInfo) and s.events[1].info.duration_s is None
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_duration", "elapsed time 111111111111… (310 digits) is not a duration; read without one", p.name, 2)]


@pytest.mark.parametrize(("name", "data", "line"), [
    (".zsh_history", b": 1538163995:0;cd\n: " + b"1" * 4301 + b":0;ls\n", 2),
    ("fish_history", b"- cmd: cd\n  when: 1538163995\n- cmd: ls\n  when: " + b"1" * 4301 + b"\n", 3),
])
def test_an_epoch_of_thousands_of_digits_is_no_date_and_the_command_kept(tmp_path: Path, name: str, data: bytes,
                                                                         line: int) -> None:
    p = tmp_path / name
    p.write_bytes(data)
    s = _read_history(p)
    assert [(e.text, e.ts) for e in s.events] == [("cd", "2018-09-28T19:46:35Z"), ("ls", None)]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_timestamp", "epoch 111111111111… (4301 digits) is not a date", p.name, line)]


def test_an_eternal_history_number_of_thousands_of_digits_is_said_and_the_command_kept(tmp_path: Path) -> None:
    p = tmp_path / ".bash_eternal_history"
    p.write_bytes(b"22840 kevyin  2000  1356658000 exit\n22840 kevyin  " + b"9" * 4301 + b"  1356658001 ls\n")
    s = _read_history(p)
    assert [(e.text, e.ts) for e in s.events] == [("exit", "2012-12-28T01:26:40Z"), ("ls", "2012-12-28T01:26:41Z")]
    assert [e.info.histnum for e in s.events if isinstance(e.info, ShellInfo)] == [2000, None]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_histnum", "history number 999999999999… (4301 digits) is not one bash writes; read without one",
         p.name, 2)]


def test_a_digit_run_is_a_number_up_to_64_bits() -> None:
    assert number(b"9223372036854775807") == 2**63 - 1 and number(b"-9223372036854775808") == -(2**63)
    assert number(b"9223372036854775808") is None and number(b"1" * 20) is None and number(b"1" * 5000) is None
    assert number(b"0" * 5000 + b"42") == 42  # leading zeros are no digits of the value


# --- C: a NUL in a history is not binary data -------------------------------------------------

ZSH = (b": 1538163804:0;cd dotfiles\n: 1538163851:0;git add .\n: 1538163868:0;git commit -m \"fix install\"\n"
       b": 1538163877:0;git config --global user.email \"me@users.noreply.github.com\"\n: 1538163884:0;gps\n"
       b": 1538163900:0;gst\n: 1538163995:0;cd\n: 1538163996:0;cd dotfiles\n: 1538164001:0;gst\n")


def test_a_history_with_a_nul_in_its_first_bytes_is_read(tmp_path: Path) -> None:
    at = ZSH.index(b"github.co") + len(b"github.co")
    p = tmp_path / ".zsh_history"
    p.write_bytes(ZSH[:at] + b"\x00" + ZSH[at:])
    assert at < 4096 and ShellHistorySource().sniff(p, p.read_bytes())
    assert detect(p).name == "shell"
    s = _retrace(tmp_path, p)
    assert len(s.events) == 9 and "github.co\x00m" in str(s.events[3].text)


@pytest.mark.parametrize("head", [
    bytes(range(256)) * 16,  # all byte values, as compressed or machine data has them
    b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"\x03\x00>\x00\x01\x00\x00\x00" + bytes(range(64, 128)) * 8,
    b"SQLite format 3\x00" + b"\x10\x00\x01\x01\x00@  \x00\x00\x00\x02" + b"\x00" * 200 + b"CREATE TABLE t(x)\n",
    (b"ls -la\n" * 7 + b"\x00") * 40,  # a NUL in every 57 bytes: 1.75%
])
def test_a_binary_file_is_still_refused(head: bytes) -> None:
    src = ShellHistorySource()
    assert not src.sniff(Path(".bash_history"), head)
    assert src.refuses(Path("cmds"), head) == "JSON or binary data, not a shell history"


def test_a_few_nuls_in_a_long_history_do_not_make_it_binary() -> None:
    head = (b"ls -la\n" * 50 + b"\x00") * 8  # a NUL in every 351 bytes
    assert ShellHistorySource().sniff(Path(".bash_history"), head)
    assert ShellHistorySource().refuses(Path("cmds"), head) is None


# -- one damaged element of a whole-JSON array costs that element, not the rest of the file -----
def test_a_damaged_element_of_an_object_array_is_skipped_and_the_rest_read() -> None:
    # a raw carriage return inside a string (no JSON parser takes it), then two good elements
    data = b'{"messages": [{"role": "user", "content": "a\rb"},\n {"role": "user", "content": "c"},\n' \
           b' {"role": "user", "content": "d"}]}'
    doc = read_object_array(data, "chat.json", "messages")
    assert doc is not None and [r.data["content"] for r in doc.records] == ["c", "d"]
    assert doc.problems == [("unparsable-element", "element is not JSON; skipped (bytes 14-48 of the file lost)", 1)]
    assert data[14:48] == b'{"role": "user", "content": "a\rb"}'


def test_a_damaged_element_of_a_record_array_is_skipped_and_the_rest_read() -> None:
    from forsy.sources._records import iter_json_array

    data = b'[{"type": "user", "uuid": "1", "x": "a\x00b"},\n{"type": "user", "uuid": "2"}]\n'
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    recs = list(iter_json_array(data, "s.json", warnings, counters))
    assert [r.data["uuid"] for r in recs] == ["2"] and recs[0].ev.line == 2
    assert [(w.code, w.message, w.line) for w in warnings] == [
        ("unparsable-element", "array element is not JSON; skipped (bytes 1-42 of the file lost)", 1)]
    assert data[1:42] == b'{"type": "user", "uuid": "1", "x": "a\x00b"}' and counters == {"unparsable": 1, "records": 1}


def test_an_element_whose_end_cannot_be_told_still_stops_the_reading() -> None:
    data = b'{"messages": [{"role": "user", "content": "a\rb" {"role": "user", "content": "c"}]}'
    doc = read_object_array(data, "chat.json", "messages")
    assert doc is not None and doc.records == []
    assert [p[0] for p in doc.problems] == ["unparsable-element"] and "stopped reading" in doc.problems[0][1]
