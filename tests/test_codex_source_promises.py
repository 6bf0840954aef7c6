"""The Codex source's own decisions (`sources/codex/source.py`), one at a time, on hand-built
files and folders laid out as the Rust recorder writes them (`$CODEX_HOME/sessions/YYYY/MM/DD/
rollout-<time>-<uuid>.jsonl`, each line `{"timestamp", "type", "payload"}` with `timestamp`
first, the first line the `session_meta`): which file is sniffed as a rollout and at what byte
of its first line, which files `discover` returns from which folder, and what a parent's reading
says of each subagent it read with it. Expectations worked out by hand from the bytes below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zstandard

from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

SRC = CodexSource()
T = "2026-05-12T09:00:00.000Z"
PID = "019e2a10-0000-7000-8000-00000000aaaa"
CID = "019e2a10-5555-7000-8000-00000000bbbb"
GID = "019e2a10-6666-7000-8000-00000000cccc"


def line(typ: str, payload: dict[str, Any], ts: str = T) -> bytes:
    """One record as codex-rs serialises a RolloutLine: timestamp, then the tagged item."""
    return json.dumps({"timestamp": ts, "type": typ, "payload": payload}, separators=(",", ":")).encode() + b"\n"


def meta(tid: str, **more: Any) -> bytes:
    return line("session_meta", {"id": tid, "timestamp": T, "cwd": "/w", "cli_version": "0.90.0", **more})


def sub_of(parent: str) -> dict[str, Any]:
    return {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------------ sniff


def test_sniff_takes_the_envelope_the_bare_header_and_the_json_document_only() -> None:
    r = Path("rollout-2026-05-12T09-00-00-x.jsonl")
    other = Path("log.jsonl")
    assert SRC.sniff(other, meta(PID))
    assert SRC.sniff(other, b"\xef\xbb\xbf \t\r\n" + meta(PID))  # a BOM and blank lines before it
    assert SRC.sniff(other, meta(PID).rstrip(b"\n") + b"\r\n" + line("event_msg", {"type": "x"}))
    assert SRC.sniff(other, b'{\n  "session": {"id": "x"}, "items": []}')  # the TypeScript CLI's document
    # the envelope of another type, or a session_meta whose payload is no object: not Codex
    assert not SRC.sniff(r, line("response_item", {"type": "message"}))
    assert not SRC.sniff(r, b'{"timestamp":"t","type":"session_meta","payload":null}\n')
    assert not SRC.sniff(r, b'{"timestamp":"t","type":"session_meta","payload":"x"}\n')
    assert not SRC.sniff(r, b'{"timestamp":"t","type":"session_meta"}\n')
    assert not SRC.sniff(r, b'[{"timestamp":"t","type":"session_meta","payload":{}}]\n')  # no object
    assert not SRC.sniff(r, b"")
    assert not SRC.sniff(r, b"\n\n")
    assert not SRC.sniff(r, b'{"timestamp": oops}\n')  # a whole first line that is not JSON


def test_sniff_reads_the_bare_formats_header_by_its_members_or_its_file_name() -> None:
    r = Path("rollout-2025-08-12T09-30-00-x.jsonl")
    other = Path("notes.jsonl")
    header = b'{"id":"x","timestamp":"2025-08-12T09:30:00Z"'
    assert SRC.sniff(other, header + b',"instructions":null}\n{"record_type":"state"}\n')
    assert SRC.sniff(r, header + b"}\n")  # without instructions: the rollout- name decides
    assert not SRC.sniff(other, header + b"}\n")
    assert not SRC.sniff(Path("my-rollout-1.jsonl"), header + b"}\n")
    assert not SRC.sniff(r, b'{"id":"x","type":"message","timestamp":"t","instructions":""}\n')  # typed
    assert not SRC.sniff(r, b'{"timestamp":"t","instructions":""}\n')  # no id
    assert not SRC.sniff(r, b'{"id":"x","instructions":""}\n')  # no time


def test_a_first_line_longer_than_the_head_is_known_by_its_opening_within_200_bytes() -> None:
    other = Path("log.jsonl")
    start = b'{"timestamp":"' + b"2" * 163 + b'",'  # 180 bytes
    marker = b'"type":"session_meta"'  # 20 bytes: it ends at byte 200
    cut = b',"payload":{"base_instructions":{"text":"' + b"x" * 500  # no end: cut by the head
    assert len(start + marker) == 200
    assert SRC.sniff(other, start + marker + cut)
    assert not SRC.sniff(other, b'{"timestamp":"' + b"2" * 164 + b'",' + marker + cut)  # ends at 201
    assert not SRC.sniff(other, b'{"type":"session_meta","timestamp":"t"' + cut)  # not Codex's order
    assert not SRC.sniff(other, b'{"timestamp":"t","type":"response_item"' + cut)


def test_a_zstd_rollouts_head_is_sniffed_decompressed(tmp_path: Path) -> None:
    packed = zstandard.ZstdCompressor().compress(meta(PID) + line("event_msg", {"type": "x"}))
    assert SRC.sniff(tmp_path / "rollout-x.jsonl.zst", packed)
    assert SRC.sniff(tmp_path / "rollout-x.jsonl.zst", packed[:40]) is False  # cut before the line ends


# --------------------------------------------------------------------- discover


def home_tree(home: Path) -> dict[str, Path]:
    """A home folder holding Codex's folder as the CLI lays it out, with lookalikes."""
    day = home / ".codex" / "sessions" / "2026" / "05" / "12"
    return {
        "parent": write(day / f"rollout-2026-05-12T09-00-00-{PID}.jsonl", meta(PID)),
        "child": write(day / f"rollout-2026-05-12T09-00-05-{CID}.jsonl", meta(CID, source=sub_of(PID))),
        # a subagent whose parent is not here is read on its own
        "orphan": write(day / f"rollout-2026-05-12T09-00-09-{GID}.jsonl", meta(GID, source=sub_of("gone"))),
        "zst": write(day.parent / "13" / f"rollout-2026-05-13T08-00-00-{GID[:-1]}d.jsonl.zst",
                     zstandard.ZstdCompressor().compress(meta(GID[:-1] + "d"))),
        "legacy": write(home / ".codex" / "sessions" / "rollout-2025-04-18-3e1b.json",
                        b'{\n  "session": {"timestamp": "2025-04-18T10:00:00Z", "id": "3e1b"},\n  "items": []\n}'),
        # not found: a Codex line in a file not named rollout-*, a rollout- file of another tool,
        # a folder named like a rollout, and Codex's other files
        "unnamed": write(day / "copy.jsonl", meta("copy")),
        "claude": write(day / "rollout-claude.jsonl", b'{"type":"user","sessionId":"s","message":{}}\n'),
        "history": write(home / ".codex" / "history.jsonl", b'{"session_id":"x","ts":1,"text":"hi"}\n'),
        "outside": write(home / "work" / f"rollout-2026-05-12T09-00-00-{PID[:-1]}f.jsonl", meta(PID[:-1] + "f")),
    }


def test_discover_in_a_home_or_codex_folder_looks_in_its_sessions_only(tmp_path: Path) -> None:
    f = home_tree(tmp_path)
    (tmp_path / ".codex" / "sessions" / "2026" / "05" / "12" / "rollout-folder.jsonl").mkdir()
    want = sorted([f["parent"], f["orphan"], f["zst"], f["legacy"]])
    assert SRC.discover(tmp_path) == want
    assert SRC.discover(tmp_path / ".codex") == want
    assert SRC.discover(tmp_path / ".codex" / "sessions") == want
    assert SRC.discover(tmp_path / ".codex" / "sessions" / "2026" / "05" / "12") == sorted([f["parent"], f["orphan"]])
    # a folder of another name is searched whole, its `sessions` folder like any other
    renamed = tmp_path / ".codex"
    moved = renamed.rename(tmp_path / "codex-home")
    got = SRC.discover(tmp_path)
    assert got == sorted([moved / p.relative_to(renamed) for p in want] + [f["outside"]])
    assert SRC.discover(moved) == sorted(moved / p.relative_to(renamed) for p in want)


def test_discover_of_one_file_or_of_nothing(tmp_path: Path) -> None:
    f = home_tree(tmp_path)
    assert SRC.discover(f["child"]) == [f["child"]]  # asked for by name: read alone
    assert SRC.discover(f["unnamed"]) == [f["unnamed"]]  # its content says Codex
    assert SRC.discover(f["zst"]) == [f["zst"]]
    assert SRC.discover(f["claude"]) == []
    assert SRC.discover(f["history"]) == []
    assert SRC.discover(tmp_path / "missing") == []
    assert SRC.discover(tmp_path / "missing.jsonl") == []


# ---------------------------------------------------------- subagents read with their parent

DID = "019e2a10-7777-7000-8000-00000000dddd"
ENV = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"


def at(s: int) -> str:
    return f"2026-05-12T09:00:{s:02d}.000Z"


def said(role: str, text: str, s: int) -> bytes:
    kind = "output_text" if role == "assistant" else "input_text"
    return line("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}, at(s))


def call(name: str, cid: str, args: str, s: int) -> bytes:
    return line("response_item", {"type": "function_call", "name": name, "arguments": args, "call_id": cid}, at(s))


def output(cid: str, out: str, s: int) -> bytes:
    return line("response_item", {"type": "function_call_output", "call_id": cid, "output": out}, at(s))


def family(day: Path) -> dict[str, Path]:
    """A parent that spawns a child (recorded by collab_agent_spawn_end) and a second child
    (recorded by nothing); the child spawns a grandchild (recorded by spawn_agent's output)."""
    return {
        "parent": write(day / f"rollout-2026-05-12T09-00-00-{PID}.jsonl", b"".join([
            meta(PID), line("turn_context", {"cwd": "/w", "model": "gpt-5.5"}, at(1)),
            said("user", "review it", 2), line("event_msg", {"type": "user_message", "message": "review it"}, at(2)),
            call("spawn_agent", "call_spawn", '{"message":"look"}', 3),
            line("event_msg", {"type": "collab_agent_spawn_end", "call_id": "call_spawn", "new_thread_id": CID}, at(4)),
            output("call_spawn", json.dumps({"agent_id": CID}), 4),
            said("assistant", "done", 20)])),
        "child": write(day / f"rollout-2026-05-12T09-00-05-{CID}.jsonl", b"".join([
            line("session_meta", {"id": CID, "timestamp": at(5), "cli_version": "0.91.0", "source": sub_of(PID),
                                  "agent_nickname": "Ada", "agent_role": "explorer"}, at(5)),
            line("turn_context", {"cwd": "/w", "model": "gpt-5.5-mini"}, at(6)),
            said("user", ENV, 6), said("user", "look", 6),
            call("spawn_agent", "call_g", '{"message":"dig"}', 7),
            output("call_g", json.dumps({"agent_id": GID, "nickname": "Bo"}), 8),
            line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 10,
                                                                                     "output_tokens": 2}}}, at(11)),
            said("assistant", "child done", 12)])),
        "grandchild": write(day / f"rollout-2026-05-12T09-00-09-{GID}.jsonl", b"".join([
            line("session_meta", {"id": GID, "timestamp": at(9), "source": sub_of(CID)}, at(9)),
            line("turn_context", {"cwd": "/w", "model": "gpt-5.5"}, at(9)),
            said("user", "dig", 9), said("assistant", "dug", 10)])),
        "second": write(day / f"rollout-2026-05-12T09-00-30-{DID}.jsonl", b"".join([
            line("session_meta", {"id": DID, "timestamp": at(30), "source": sub_of(PID)}, at(30)),
            said("assistant", "on my own", 31)])),
    }


def test_a_parent_reads_its_subagents_and_says_who_spawned_each(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    rel = [str(f[k].relative_to(tmp_path)) for k in ("parent", "child", "grandchild", "second")]
    assert [x.path for x in s.files] == rel
    sc, sg, sd = f"subagent:{CID}", f"subagent:{GID}", f"subagent:{DID}"
    got = [(e.kind, e.actor, e.call_id or e.text, e.ts,
            (e.link.parent_thread_id, e.link.parent_call_id, e.link.link_rule) if e.link else None)
           for e in s.events]
    assert got == [
        ("user", "user", "review it", at(2), None),
        ("tool_call", "agent", "call_spawn", at(3), None),
        ("tool_result", "agent", "call_spawn", at(4), None),
        ("note", "agent", "look", at(6), (PID, "call_spawn", "collab_agent_spawn_end")),  # the parent's words
        ("tool_call", sc, "call_g", at(7), (PID, "call_spawn", "collab_agent_spawn_end")),  # the child's own first
        ("tool_result", sc, "call_g", at(8), None),
        ("note", sc, "dig", at(9), (CID, "call_g", "spawn_agent_output")),  # the child wrote it, not a person
        ("agent_text", sg, "dug", at(10), (CID, "call_g", "spawn_agent_output")),
        ("agent_text", sc, "child done", at(12), None),
        ("agent_text", "agent", "done", at(20), None),
        ("agent_text", sd, "on my own", at(31), (PID, None, None)),  # first and own: linked once, no call
    ]
    assert isinstance(s.events[3].info, NoteInfo) and s.events[3].info.subtype == "subagent_input"
    assert s.meta.models == ["gpt-5.5", "gpt-5.5-mini"]  # each once, the parent's first
    [env_ev] = [ev.id for ev in s.evidence.values() if (ev.source, ev.line) == (rel[1], 3)]
    child_ctx = [{"kind": "environment_context", "role": "user", "text": ENV, "ev": env_ev,
                  "pointer": "/payload/content/0/text"}]
    assert s.meta.extra["subagents"] == [
        {"id": CID, "actor": sc, "file": rel[1], "kind": "thread_spawn", "parent_thread_id": PID,
         "parent_call_id": "call_spawn", "link_rule": "collab_agent_spawn_end", "nickname": "Ada",
         "role": "explorer", "models": ["gpt-5.5-mini"], "token_usage": {"input_tokens": 10, "output_tokens": 2},
         "agent_version": "0.91.0", "context": child_ctx},
        {"id": GID, "actor": sg, "file": rel[2], "kind": "thread_spawn", "parent_thread_id": CID,
         "parent_call_id": "call_g", "link_rule": "spawn_agent_output", "nickname": None, "role": None,
         "models": ["gpt-5.5"], "token_usage": {}, "agent_version": None, "context": []},
        {"id": DID, "actor": sd, "file": rel[3], "kind": "thread_spawn", "parent_thread_id": PID,
         "parent_call_id": None, "link_rule": None, "nickname": None, "role": None,
         "models": [], "token_usage": {}, "agent_version": None, "context": []},
    ]
    assert (s.session_id, s.meta.extra["actor"], s.meta.agent_version) == (PID, "agent", "0.90.0")


def test_a_subagent_written_in_the_next_days_folder_is_not_lost(tmp_path: Path) -> None:
    """Codex names each thread's file by the time the thread began (sessions/YYYY/MM/DD): a
    subagent spawned after midnight is in the next day's folder, where its parent's reading
    does not look. It is then read on its own, never left out as read with its parent."""
    sessions = tmp_path / "sessions"
    f = family(sessions / "2026" / "05" / "12")
    late = sessions / "2026" / "05" / "13" / f["second"].name
    late.parent.mkdir(parents=True)
    f["second"].rename(late)
    assert SRC.discover(sessions) == [f["parent"], late]
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [x.path for x in s.files] == [str(f[k].relative_to(tmp_path)) for k in ("parent", "child", "grandchild")]
    [alone] = SRC.read(late, ReadContext(root=tmp_path))
    assert (alone.session_id, alone.meta.extra["parent_thread_id"]) == (DID, PID)
    assert [(e.kind, e.actor, e.text) for e in alone.events] == [("agent_text", f"subagent:{DID}", "on my own")]


def test_codex_folder_gives_its_archived_sessions_too(tmp_path: Path) -> None:
    """`codex` archives a thread by moving its file to $CODEX_HOME/archived_sessions/ (flat)."""
    f = home_tree(tmp_path)
    archived = write(tmp_path / ".codex" / "archived_sessions" / f"rollout-2026-04-01T08-00-00-{DID}.jsonl",
                     meta(DID))
    write(tmp_path / ".codex" / "archived_sessions" / "notes.txt", b"not a rollout")
    want = sorted([f["parent"], f["orphan"], f["zst"], f["legacy"], archived])
    assert SRC.discover(tmp_path) == want
    assert SRC.discover(tmp_path / ".codex") == want
    (tmp_path / ".codex" / "sessions").rename(tmp_path / "old-sessions")  # only the archive left
    assert SRC.discover(tmp_path / ".codex") == [archived]
