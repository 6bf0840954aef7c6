"""Which heads the OpenHands reader takes as its own, shape by shape, and what an output.jsonl
with no instance at all gives.

The heads are those OpenHands' writers produce (`event_to_dict` of the V0 event stream: an
action `{"id", "timestamp", "source", "message", "action", "args"}` whose `thought` sits in
its `args`, an observation `{..., "observation", "content", "extras", "cause"}`, `id` and
`source` left out when unset; the SDK's events, whose `kind` pydantic writes last; an
evaluation instance with `instruction` and `history`), each reduced to the one key of each
rule it relies on, so that every alternative of the rule is seen alone; and the look-alikes
that lack one of them. The windows (4096 bytes for a persisted event's opening fields and the
instruction, 64 KiB for the SDK's kind and an output line) are pinned at their edge: a key
that ends on the last byte inside is seen, one byte further not.
Worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.sources import ReadContext
from forsy.sources.lines import Limits
from forsy.sources.openhands import OpenHandsSource

SRC = OpenHandsSource()
PLAIN = Path("/logs/trajectory.json")
EVENT = Path("/conv/abc/events/event-00003-0a1b2c3d.json")


def _ending_at(before: str, key: str, after: str, end: int) -> bytes:
    """`before` + padding + `key` + `after`, the padding such that `key` ends at byte `end`."""
    n = end - len(before) - len(key)
    assert n >= 0
    text = before + "x" * n + key + after
    assert text.index(key) + len(key) == end
    return text.encode()


# --- a trajectory: one JSON array of events -------------------------------------------------

@pytest.mark.parametrize("head", [
    # an action with its source (a user's message)
    b'[{"id": 0, "source": "user", "action": "message", "args": {"content": "fix it"}}]',
    # an observation with the action it answers, no source
    b'[{"observation": "run", "content": "a.txt", "extras": {"exit_code": 0}, "cause": 3}]',
    # an action with neither id nor source (unset, left out), its thought in its args
    b'[{"action": "run", "args": {"command": "ls", "thought": "look first"}}]',
    # indented (json.dump(..., indent=2)), after a BOM and blank lines
    b'\xef\xbb\xbf \t\r\n[\n  {\n    "action": "run",\n    "args": {},\n    "source": "agent"\n  }\n]',
])
def test_a_v0_event_array_is_openhands(head: bytes) -> None:
    assert SRC.sniff(PLAIN, head) is True


@pytest.mark.parametrize("head", [
    b'[{"action": "run", "source": "agent", "thought": "x"}]',  # no args nor extras
    b'[{"args": {}, "extras": {}, "source": "agent", "cause": 1}]',  # neither action nor observation
    b'[{"action": "run", "args": {"command": "ls"}, "id": 4}]',  # no source, cause nor thought
    b'["action", {"action": "run", "args": {}, "source": "agent"}]',  # the first element no object
    b'[]',
    b'',
    b'\xef\xbb\xbf \n',
])
def test_an_array_lacking_one_part_is_not(head: bytes) -> None:
    assert SRC.sniff(PLAIN, head) is False


def test_the_sdk_events_saved_as_an_array() -> None:
    assert SRC.sniff(PLAIN, b'[{"kind": "MessageEvent", "source": "user", "llm_message": {}}]') is True
    assert SRC.sniff(PLAIN, b'\xef\xbb\xbf\n[ {"kind": "ActionEvent", "source": "agent"}]') is True
    # its source may come late: only the kind is looked for in the first 4096 bytes
    late = _ending_at('[{"kind": "SystemPromptEvent", "pad": "', '"source"', ': "agent"}]', 9000)
    assert SRC.sniff(PLAIN, late) is True
    assert SRC.sniff(PLAIN, b'[{"kind": "MessageEvent", "llm_message": {}}]') is False  # no source
    assert SRC.sniff(PLAIN, b'[{"kind": "OtherEvent", "source": "user"}]') is False  # no SDK kind
    assert SRC.sniff(PLAIN, b'["source", {"kind": "MessageEvent"}]') is False  # the first no object


def test_the_sdk_kind_is_looked_for_in_the_whole_head() -> None:
    """The SDK writes `kind` last (a pydantic computed field), after the event's own fields: in
    a first event holding a long system prompt it ends far past 4096 bytes."""
    event = _ending_at('{"source": "user", "pad": "', '", "kind": "MessageEvent"', "}]", 60000)
    assert SRC.sniff(PLAIN, b"[  " + event) is True
    assert SRC.sniff(PLAIN, b"[  " + event.replace(b'"MessageEvent"', b'"OtherEvent"')) is False


def test_the_sdk_first_event_as_written_is_known_by_its_opening_fields() -> None:
    """model_dump's order: id, timestamp, source, then the system prompt; `kind` past the head."""
    opening = (b'[{"id": "7f0c", "timestamp": "2026-08-22T10:00:00.000000", "source": "agent", '
               b'"system_prompt": {"type": "text", "text": "' + b"x" * 70000 + b'"}, "kind": "SystemPromptEvent"}]')
    assert SRC.sniff(PLAIN, opening[:65536]) is True
    assert SRC.sniff(PLAIN, opening[:65536].replace(b'"source": "agent"', b'"source": "user"')) is False
    assert SRC.sniff(PLAIN, opening[:65536].replace(b'"system_prompt"', b'"prompt"')) is False


# --- one event of a conversation the SDK persisted (events/event-<n>-<id>.json) ---------------

def test_a_persisted_event_needs_id_and_source_in_its_first_4096_bytes() -> None:
    """Its name and folder say what it is; the SDK's base fields (id, timestamp, source) open it
    and `kind` closes it, past a long system prompt."""
    assert SRC.sniff(EVENT, b'{"id": "e", "timestamp": "t", "source": "agent", "system_prompt": {"text": "') is True
    assert SRC.sniff(EVENT, b'\xef\xbb\xbf\n {"kind": "ActionEvent", "id": "e", "source": "agent"}') is True
    assert SRC.sniff(EVENT, b'{"kind": "MessageEvent", "source": "user"}') is False  # no id
    assert SRC.sniff(EVENT, b'{"id": "e", "kind": "MessageEvent"}') is False  # no source
    for key, other in (('"id"', '"source": "user", '), ('"source"', '"id": "e", ')):
        at_edge = _ending_at("{" + other + '"pad": "', '", ' + key, ': "v"}', 4096)
        assert SRC.sniff(EVENT, at_edge) is True, key
        past = _ending_at("{" + other + '"pad": "', '", ' + key, ': "v"}', 4097)
        assert SRC.sniff(EVENT, past) is False, key
    # an instance in a file named like an event is not read as one
    assert SRC.sniff(EVENT, b'{"instruction": "x", "history": []}') is False
    # nor is text that is no object
    assert SRC.sniff(EVENT, b'"id" "source"') is False
    # the same event outside an events folder is no output.jsonl instance
    outside = Path("/conv/abc/event-00003-0a1b2c3d.json")
    assert SRC.sniff(outside, b'{"id": "e", "source": "user", "kind": "MessageEvent"}') is False


# --- an evaluation or resolver output: one instance per line --------------------------------

OUT = Path("/eval/output.jsonl")


@pytest.mark.parametrize("head", [
    b'{"instance_id": "a-1", "instruction": "fix", "history": [], "metrics": {}}\n',
    # written without blanks (jq -c): `"history":[` is not there, the first line holds both keys
    b'{"instance_id":"a-1","instruction":"fix","history":[]}\n{"instance_id":"a-2"',
    b'{"history":[],"instruction":"fix"}',
    b'{"instruction": "fix", "history": null}\n',  # on one line, any history (read: warned no-history)
    # indented: the first line is `{`, the instruction early, the history list anywhere after
    b'{\n  "instance_id": "a-1",\n  "instruction": "fix",\n  "history": [\n  ]\n}\n',
    b' \r\n{\n "instruction": "fix",\n "pad": "' + b"x" * 70000 + b'",\n "history": [\n',
])
def test_an_instance_is_openhands(head: bytes) -> None:
    assert SRC.sniff(OUT, head) is True


@pytest.mark.parametrize("head", [
    b'{"instance_id": "a-1", "history": []}\n',  # no instruction
    b'{"instance_id": "a-1", "instruction": "fix"}\n',  # no history
    b'{\n "instruction": "fix",\n "history": null\n}\n',  # indented, `"history"` with no list after it
    # compact, the keys only on the second line: the first line decides
    b'{"note":1}\n{"instruction":"fix","history":[]}\n',
    b'"instruction" "history": [',  # no object
])
def test_a_line_lacking_one_part_is_not(head: bytes) -> None:
    assert SRC.sniff(OUT, head) is False


@pytest.mark.parametrize("late", ['"history"', '"instruction"'])
def test_a_compact_line_is_looked_at_over_its_first_64_kib(late: str) -> None:
    early = '"instruction"' if late == '"history"' else '"history"'
    for end, expected in ((65536, True), (65537, False)):
        head = _ending_at("{" + early + ': [], "pad": "', '", ' + late, ":[]}\n", end)
        assert SRC.sniff(OUT, head) is expected, (late, end)


def test_an_indented_instance_names_its_instruction_within_4096_bytes() -> None:
    for end, expected in ((4096, True), (4097, False)):
        head = _ending_at('{\n  "pad": "', '",\n  "instruction"', ': "fix",\n  "history": [\n', end)
        assert SRC.sniff(OUT, head) is expected, end


# --- an output.jsonl with no instance ------------------------------------------------------

def test_an_output_with_no_instance_is_one_empty_session_with_its_warnings(tmp_path: Path) -> None:
    p = tmp_path / "runs" / "output.jsonl"
    p.parent.mkdir()
    p.write_bytes(b'1\n"x"\n')
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.session_id, s.source_kind, s.meta.agent) == ("output", "openhands", "openhands")
    assert (s.files[0].path, s.files[0].abs_path, s.files[0].bytes) == ("runs/output.jsonl", str(p.resolve()), 6)
    assert [(w.code, w.file, w.line) for w in s.warnings] == [
        ("not-an-object", "runs/output.jsonl", 1), ("not-an-object", "runs/output.jsonl", 2)]
    assert (s.quality.records, s.quality.unparsable_records) == (0, 2)
    assert s.events == [] and s.evidence == {}


def test_json_dumps_of_a_v0_trajectory_sniffs(tmp_path: Path) -> None:
    """A whole trajectory written as OpenHands' `save_trajectory` writes it (json.dump, indent 2)."""
    events = [
        {"id": 0, "timestamp": "2026-01-01T10:00:00", "source": "user", "message": "fix it",
         "action": "message", "args": {"content": "fix it", "image_urls": None, "wait_for_response": False}},
        {"id": 1, "timestamp": "2026-01-01T10:00:01", "source": "agent", "message": "Running ls",
         "action": "run", "args": {"command": "ls", "thought": "look"}, "timeout": 120},
        {"id": 2, "timestamp": "2026-01-01T10:00:02", "source": "agent", "message": "exit 0",
         "cause": 1, "observation": "run", "content": "a.txt", "extras": {"metadata": {"exit_code": 0}}},
    ]
    assert SRC.sniff(PLAIN, json.dumps(events, indent=2).encode()) is True


def test_a_spliced_line_keeps_the_instances_that_start_it_and_nothing_else(tmp_path: Path) -> None:
    """Two writes run together on one line: the instance is kept; the object after it has no
    history, is no instance, and is said lost (not read as a session of its own)."""
    first = b'{"instance_id": "a", "instruction": "x", "history": []}'
    junk = b'{"metrics": {}}'
    p = tmp_path / "output.jsonl"
    p.write_bytes(first + junk + b"\n")
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert s.session_id == "a"
    assert [(w.code, w.message, w.line) for w in s.warnings] == [(
        "damaged-line", "line is damaged (spliced, cut or with junk); kept the 1 whole record(s) that start it; "
        f"bytes {len(first)}-{len(first) + len(junk)} lost", 1)]
    (ev,) = s.evidence.values()
    assert (ev.line, ev.byte_offset, ev.byte_length) == (1, 0, len(first))
    assert (s.quality.records, s.quality.unparsable_records) == (1, 0)


def test_the_file_size_limit_given_is_kept(tmp_path: Path) -> None:
    """The limit comes from the context (not the environment's default): a 56-byte output with a
    50-byte limit is refused whole, with its size and the limit."""
    p = tmp_path / "output.jsonl"
    p.write_bytes(b'{"instance_id": "a", "instruction": "x", "history": []}\n')
    with pytest.raises(InputError, match="is 56 bytes, more than the 50-byte limit"):
        SRC.read(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=50)))
    (s,) = SRC.read(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=56)))
    assert s.session_id == "a"


def test_a_conversation_written_as_the_sdk_orders_fields_is_read_from_its_first_event(tmp_path: Path) -> None:
    """The fixture's events rewritten with `kind` last and a 30 KiB system prompt, as EventLog
    writes them: named alone, the first event file gives the whole conversation."""
    src = Path(__file__).parent / "fixtures" / "openhands" / "conversations"
    convo = next(p for p in src.iterdir() if p.is_dir())
    events = tmp_path / convo.name / "events"
    events.mkdir(parents=True)
    for f in sorted((convo / "events").glob("event-*.json")):
        d = json.loads(f.read_bytes())
        if d.get("kind") == "SystemPromptEvent":
            d["system_prompt"]["text"] += " " + "x" * 30000
        kind = d.pop("kind")
        (events / f.name).write_text(json.dumps({**d, "kind": kind}), "utf-8")
    first = sorted(events.glob("event-*.json"))[0]
    assert SRC.sniff(first, first.read_bytes()[:65536]) is True
    [whole] = SRC.read(first, ReadContext(root=tmp_path))
    [as_fixture] = SRC.read(sorted((convo / "events").glob("event-*.json"))[0], ReadContext(root=src))
    assert [(e.kind, e.text) for e in whole.events][1:] == [(e.kind, e.text) for e in as_fixture.events][1:]
    assert len(whole.files) + 1 == len(as_fixture.files) > 2  # the fixture's state too (not copied here)
