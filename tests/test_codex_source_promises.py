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

import pytest
import zstandard

from forsy.errors import InputError
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from forsy.sources.codex import source as source_module
from forsy.sources.codex.source import day_folders
from forsy.sources.lines import Limits

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
        "kept": write(home / ".codex" / "backup" / f"rollout-2026-05-01T09-00-00-{PID[:-1]}e.jsonl",
                      meta(PID[:-1] + "e")),  # a copy in Codex's folder, not in its sessions
        # the 2025 format's header without instructions: its rollout- name decides
        "bare": write(home / ".codex" / "sessions" / "rollout-2025-08-12T09-30-00-5f0b3c1e.jsonl",
                      b'{"id":"5f0b3c1e","timestamp":"2025-08-12T09:30:00.000Z"}\n{"record_type":"state"}\n'),
    }


def test_discover_in_a_home_or_codex_folder_looks_in_its_sessions_only(tmp_path: Path) -> None:
    f = home_tree(tmp_path)
    (tmp_path / ".codex" / "sessions" / "2026" / "05" / "12" / "rollout-folder.jsonl").mkdir()
    want = sorted([f["parent"], f["orphan"], f["zst"], f["legacy"], f["bare"]])
    assert SRC.discover(tmp_path) == want
    assert SRC.discover(tmp_path / ".codex") == want
    assert SRC.discover(tmp_path / ".codex" / "sessions") == want
    assert SRC.discover(tmp_path / ".codex" / "sessions" / "2026" / "05" / "12") == sorted([f["parent"], f["orphan"]])
    # a folder of another name is searched whole, its `sessions` folder like any other
    renamed = tmp_path / ".codex"
    moved = renamed.rename(tmp_path / "codex-home")
    got = SRC.discover(tmp_path)
    kept = moved / f["kept"].relative_to(renamed)
    assert got == sorted([moved / p.relative_to(renamed) for p in want] + [f["outside"], kept])
    assert SRC.discover(moved) == sorted([moved / p.relative_to(renamed) for p in want] + [kept])


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
EID = "019e2a10-9999-7000-8000-00000000ffff"
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
            said("user", ENV, 4), said("user", "look", 4),
            call("spawn_agent", "call_g", '{"message":"dig"}', 7),
            output("call_g", json.dumps({"agent_id": GID, "nickname": "Bo"}), 8),
            line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 10,
                                                                                     "output_tokens": 2}}}, at(11)),
            said("assistant", "child done", 12)])),
        "grandchild": write(day / f"rollout-2026-05-12T09-00-09-{GID}.jsonl", b"".join([
            line("session_meta", {"id": GID, "timestamp": at(9), "source": sub_of(CID)}, at(9)),
            line("turn_context", {"cwd": "/w", "model": "gpt-5.5"}, at(9)),
            said("user", "dig", 9), line("event_msg", {"type": "error", "message": "retrying"}, at(9)),
            said("assistant", "dug", 10)])),
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
        # the same time as the parent's last record: the parent's first, then the child's
        ("note", "agent", "look", at(4), (PID, "call_spawn", "collab_agent_spawn_end")),  # the parent's words
        ("tool_call", sc, "call_g", at(7), (PID, "call_spawn", "collab_agent_spawn_end")),  # the child's own first
        ("tool_result", sc, "call_g", at(8), None),
        ("note", sc, "dig", at(9), (CID, "call_g", "spawn_agent_output")),  # the child wrote it, not a person
        ("note", "system", "retrying", at(9), None),  # neither the first event nor the thread's own
        ("agent_text", sg, "dug", at(10), (CID, "call_g", "spawn_agent_output")),
        ("agent_text", sc, "child done", at(12), None),
        ("agent_text", "agent", "done", at(20), None),
        ("agent_text", sd, "on my own", at(31), (PID, None, None)),  # first and own: linked once, no call
    ]
    assert isinstance(s.events[3].info, NoteInfo) and s.events[3].info.subtype == "subagent_input"
    assert s.meta.models == ["gpt-5.5", "gpt-5.5-mini"]  # each once, the parent's first
    [env_ev] = [ev.id for ev in s.evidence.values() if (ev.source, ev.line) == (rel[1], 3)]
    assert s.events[3].refs[0].ev != env_ev
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


def test_a_subagent_written_in_the_next_days_folder_is_read_with_its_parent(tmp_path: Path) -> None:
    """Codex names each thread's file by the time the thread began (sessions/YYYY/MM/DD): a
    subagent spawned after midnight is in the next day's folder. Its parent's reading looks
    there too (the next day's folder only, across a month's and a year's end), and discover
    leaves it to its parent; one two days on, or whose parent is not in the tree searched, is
    read on its own, never left out."""
    sessions = tmp_path / "sessions"
    f = family(sessions / "2026" / "05" / "12")
    late = sessions / "2026" / "05" / "13" / f["second"].name
    late.parent.mkdir(parents=True)
    f["second"].rename(late)
    assert SRC.discover(sessions) == [f["parent"]]
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [x.path for x in s.files] == [str(p.relative_to(tmp_path)) for p in
                                         (f["parent"], f["child"], f["grandchild"], late)]
    assert ("agent_text", f"subagent:{DID}", "on my own") in [(e.kind, e.actor, e.text) for e in s.events]
    assert SRC.discover(sessions / "2026" / "05" / "13") == [late]  # its parent is not searched: alone
    [alone] = SRC.read(late, ReadContext(root=tmp_path))
    assert (alone.session_id, alone.meta.extra["parent_thread_id"]) == (DID, PID)
    assert [(e.kind, e.actor, e.text) for e in alone.events] == [("agent_text", f"subagent:{DID}", "on my own")]
    later = sessions / "2026" / "05" / "14" / late.name  # two days on: not looked for
    later.parent.mkdir(parents=True)
    late.rename(later)
    assert SRC.discover(sessions) == [f["parent"], later]
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert later.name not in {Path(x.path).name for x in s.files}


def test_a_next_days_folder_that_may_not_be_listed_is_named_and_the_thread_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next day's folder exists but the user may not list it (mode 000, as a user who is not
    root meets it): the parent and the subagents of its own folder are read all the same, and the
    folder is named once, with the parent's file, as where subagents may be that are not here. It
    was the whole session's failure, an internal error naming the other folder."""
    import os

    sessions = tmp_path / "sessions"
    f = family(sessions / "2026" / "05" / "12")
    locked = sessions / "2026" / "05" / "13"
    f["second"].rename(write(locked / f["second"].name, b""))
    real_listdir = os.listdir

    def listdir(path: os.PathLike[str] | str = ".") -> list[str]:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    read = (f["parent"], f["child"], f["grandchild"])
    assert [x.path for x in s.files] == [str(p.relative_to(tmp_path)) for p in read]
    [w] = [w for w in s.warnings if w.code == "subagent_folder_unreadable"]
    assert (w.file, w.line) == (str(f["parent"].relative_to(tmp_path)), None)
    assert w.message == f"folder 2026/05/13/ could not be listed for the subagents of thread {PID}: Permission denied"


def test_a_rollout_beside_it_that_may_not_be_read_is_named_as_maybe_a_subagents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child's rollout the user may not read: its first line, which says whose subagent it is,
    cannot be read, so the parent cannot tell; it is named once with the parent's file (its work
    was left out without a word), and the rest of the family is read."""
    import os

    f = family(tmp_path / "sessions" / "2026" / "05" / "12")
    real_open = os.open

    def locked_open(path: os.PathLike[str] | str, flags: int, mode: int = 0o777) -> int:
        if Path(path) == f["child"]:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", locked_open)
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert f["child"].name not in {Path(x.path).name for x in s.files}
    assert f["second"].name in {Path(x.path).name for x in s.files}
    [w] = [w for w in s.warnings if w.code == "rollout_unreadable"]
    assert w.file == str(f["parent"].relative_to(tmp_path))
    assert w.message == (f"{f['child'].name}, beside it, could not be read (permission denied): a subagent's "
                         "thread there would not be here")


@pytest.mark.parametrize(("day", "next_day"), [(("2026", "05", "31"), ("2026", "06", "01")),
                                               (("2025", "12", "31"), ("2026", "01", "01")),
                                               (("2028", "02", "28"), ("2028", "02", "29"))])
def test_the_next_days_folder_across_a_months_and_a_years_end(tmp_path: Path, day: tuple[str, str, str],
                                                               next_day: tuple[str, str, str]) -> None:
    here, there = tmp_path.joinpath(*day), tmp_path.joinpath(*next_day)
    here.mkdir(parents=True)
    assert day_folders(here) == [here]  # the next day's folder does not exist
    there.mkdir(parents=True)
    assert day_folders(here) == [here, there]
    for odd in ("x/05/12", "2026/5/12", "2026/05/1", "2026/13/01", "2026/02/30"):
        folder = tmp_path / "odd" / odd
        folder.mkdir(parents=True)
        assert day_folders(folder) == [folder], odd


def test_codex_folder_gives_its_archived_sessions_too(tmp_path: Path) -> None:
    """`codex` archives a thread by moving its file to $CODEX_HOME/archived_sessions/ (flat)."""
    f = home_tree(tmp_path)
    archived = write(tmp_path / ".codex" / "archived_sessions" / f"rollout-2026-04-01T08-00-00-{DID}.jsonl",
                     meta(DID))
    write(tmp_path / ".codex" / "archived_sessions" / "notes.txt", b"not a rollout")
    want = sorted([f["parent"], f["orphan"], f["zst"], f["legacy"], f["bare"], archived])
    assert SRC.discover(tmp_path) == want
    assert SRC.discover(tmp_path / ".codex") == want
    (tmp_path / ".codex" / "sessions").rename(tmp_path / "old-sessions")  # only the archive left
    assert SRC.discover(tmp_path / ".codex") == [archived]


def test_a_subagent_that_never_spoke_and_a_loop_of_parents_are_read_once(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    parent = write(day / f"rollout-2026-05-12T09-00-00-{PID}.jsonl", meta(PID))
    write(day / f"rollout-2026-05-12T09-00-05-{CID}.jsonl",
          line("session_meta", {"id": CID, "source": sub_of(PID)}, at(5)) + said("user", "look", 5))  # fmt: skip
    # a thread naming itself as its parent (no writer does it) is not its own subagent
    write(day / f"rollout-2026-05-12T09-00-09-{GID}.jsonl",
          line("session_meta", {"id": GID, "source": sub_of(GID)}, at(9)) + said("assistant", "me", 9))  # fmt: skip
    [s] = SRC.read(parent, ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text, (e.link.parent_thread_id, e.link.parent_call_id) if e.link else None)
            for e in s.events] == [("note", "agent", "look", (PID, None))]  # fmt: skip
    assert [f.path.rsplit("-", 1)[1] for f in s.files] == ["00000000aaaa.jsonl", "00000000bbbb.jsonl"]
    [s] = SRC.read(day / f"rollout-2026-05-12T09-00-09-{GID}.jsonl", ReadContext(root=tmp_path))
    assert [(e.actor, e.text) for e in s.events] == [(f"subagent:{GID}", "me")]  # once
    assert len(s.files) == 1


def test_only_rollout_files_beside_a_parent_are_its_subagents(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    f["second"].rename(f["second"].with_name(f["second"].name + ".bak"))  # a copy kept aside
    write(day / "claude.jsonl", b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}\n')
    write(day / "list.jsonl", b"[1, 2]\n")
    write(day / "empty.jsonl", b"")
    write(day / "meta-null.jsonl", b'{"timestamp":"t","type":"session_meta","payload":null}\n')
    (day / "folder.jsonl").mkdir()
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [x.path.rsplit("-", 1)[1] for x in s.files] == ["00000000aaaa.jsonl", "00000000bbbb.jsonl",
                                                           "00000000cccc.jsonl"]  # fmt: skip
    assert [x["id"] for x in s.meta.extra["subagents"]] == [CID, GID] and s.warnings == []


def test_a_subagent_whose_header_is_longer_than_a_read_is_still_found(tmp_path: Path) -> None:
    """The session_meta of codex-rs holds the whole system prompt (`base_instructions`): a
    first line can be longer than the 64 KiB read at once."""
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    text = "You are Codex. " * 6000  # 90,000 bytes
    long_meta = line("session_meta", {"id": DID, "timestamp": at(30), "source": sub_of(PID),
                                      "base_instructions": {"text": text}}, at(30))  # fmt: skip
    assert len(long_meta) > 65536 * 1.3
    write(f["second"], long_meta + said("assistant", "on my own", 31))
    assert SRC.discover(day) == [f["parent"]]
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [x["id"] for x in s.meta.extra["subagents"]] == [CID, GID, DID]
    assert s.events[-1].text == "on my own" and s.events[-1].actor == f"subagent:{DID}"


def test_a_subagent_naming_its_parent_beside_its_source(tmp_path: Path) -> None:
    """Newer codex-rs writes `parent_thread_id` in the session_meta itself; the thread's
    builder takes it when the source's thread_spawn names none, and so does the search."""
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    source = {"subagent": {"thread_spawn": {"depth": 1}}}
    write(f["second"], line("session_meta", {"id": DID, "parent_thread_id": PID, "source": source}, at(30))
          + said("assistant", "on my own", 31))  # fmt: skip
    write(day / f"rollout-2026-05-12T09-00-40-{DID[:-1]}e.jsonl",
          line("session_meta", {"id": DID[:-1] + "e", "parent_thread_id": PID, "source": "cli"}, at(40))
          + said("assistant", "top level", 41))  # fmt: skip
    assert SRC.discover(day) == [f["parent"]]
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [(x["id"], x["parent_thread_id"]) for x in s.meta.extra["subagents"]] == [
        (CID, PID), (GID, CID), (DID, PID), (DID[:-1] + "e", PID)]
    assert [e.text for e in s.events[-2:]] == ["on my own", "top level"]


def test_a_long_bare_header_is_sniffed_by_its_opening(tmp_path: Path) -> None:
    """The 2025 format's first line is {"id", "timestamp", "instructions", "git"}: the
    user's instructions can make it longer than the head a sniff sees."""
    head = b'{"id":"5f0b3c1e-2d4a-4b6c-9e8f-0a1b2c3d4e5f","timestamp":"2025-08-12T09:30:00.000Z","instructions":"'
    whole = head + b"Use pytest. " * 7000 + b'"}\n{"record_type":"state"}\n'
    other = Path("notes.jsonl")
    assert SRC.sniff(other, whole[:65536])
    assert not SRC.sniff(other, b'{"id":"x","instructions":"' + b"y" * 400)  # no time near the start
    assert not SRC.sniff(other, b'{"id":"x","timestamp":"t","cwd":"' + b"y" * 400)  # no instructions
    assert not SRC.sniff(other, b'{"id":"' + b"x" * 200 + b'","timestamp":"t","instructions":"' + b"y" * 400)
    assert SRC.sniff(other, head[:-1] + b'null}')  # a whole line with no newline after it
    assert SRC.sniff(Path("rollout-x.jsonl"), b'{"id":"x","timestamp":"t"}')  # its name decides, no newline
    # "timestamp": within the first 200 bytes, to its last byte
    assert SRC.sniff(other, b'{"id":"' + b"x" * 179 + b'","timestamp":"t","instructions":"' + b"y" * 400)
    assert not SRC.sniff(other, b'{"id":"' + b"x" * 180 + b'","timestamp":"t","instructions":"' + b"y" * 400)
    p = write(tmp_path / "sessions" / "rollout-2025-08-12T09-30-00-5f0b3c1e.jsonl", whole)
    assert SRC.discover(tmp_path) == [p]


# ------------------------------------------------------------------ files that cannot be read


def fork_pair(folder: Path) -> tuple[Path, Path]:
    copy = [line("session_meta", {"id": PID, "timestamp": at(0)}, at(0)), said("user", "first", 1)]
    parent = write(folder / f"rollout-2026-05-12T09-00-00-{PID}.jsonl",
                   b"".join([*copy, said("assistant", "x" * 400, 2)]))  # fmt: skip
    fork = write(folder / f"rollout-2026-05-12T10-00-00-{FID}.jsonl", b"".join(
        [meta(FID, forked_from_id=PID), *copy, said("user", "mine", 11)]))  # fmt: skip
    return parent, fork


FID = "019e2a10-8888-7000-8000-00000000eeee"


def test_a_forks_parent_too_big_to_read_leaves_the_fork_read_whole(tmp_path: Path) -> None:
    parent, fork = fork_pair(tmp_path / "sessions" / "2026" / "05" / "12")
    cap = Limits(max_file_bytes=fork.stat().st_size)
    [s] = SRC.read(fork, ReadContext(root=tmp_path, limits=cap))
    assert [(e.kind, e.text) for e in s.events] == [("user", "first"), ("user", "mine")]
    src = str(fork.relative_to(tmp_path))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("fork_parent_unreadable", f"{parent.name} (thread {PID}) could not be read to compare with: "
         f"is {parent.stat().st_size} bytes, more than the {cap.max_file_bytes}-byte limit for a file read whole "
         "(raise it with FORSY_MAX_FILE_BYTES)", src, None),
        ("fork_prefix_unresolved", f"forked from {PID}, whose rollout was not found: the copied history that "
         "starts here cannot be told apart from this thread's own records, so nothing was skipped", src, 2),
        ("extra_session_meta", "another session_meta inside the thread; skipped (reported once)", src, 2)]
    [s] = SRC.read(fork, ReadContext(root=tmp_path))  # under the limit: the copy is set aside
    assert [(e.kind, e.text) for e in s.events] == [("user", "mine")] and s.warnings == []
    assert s.meta.extra["fork"]["rule"] == "parent_file"


def test_a_forks_parent_is_looked_for_under_the_read_root_too(tmp_path: Path) -> None:
    parent, fork = fork_pair(tmp_path / "elsewhere")
    moved = tmp_path / "forks" / fork.name
    moved.parent.mkdir()
    fork.rename(moved)
    [s] = SRC.read(moved, ReadContext(root=tmp_path))
    assert s.meta.extra["fork"] == {"parent_id": PID, "rule": "parent_file", "copied": 2,
                                    "parent_file": f"../elsewhere/{parent.name}"}  # fmt: skip
    [s] = SRC.read(moved, ReadContext(root=moved.parent))
    assert s.meta.extra["fork"] == {"parent_id": PID, "rule": "unresolved", "copied": 0}


def test_a_subagent_too_big_to_read_leaves_its_parent_read_and_says_so(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    write(f["second"], f["second"].read_bytes() + said("assistant", "y" * 5000, 32))
    last = write(day / f"rollout-2026-05-12T09-00-40-{EID}.jsonl",
                 line("session_meta", {"id": EID, "source": sub_of(PID)}, at(40)) + said("assistant", "last", 41))
    cap = Limits(max_file_bytes=4000)
    assert max(p.stat().st_size for k, p in f.items() if k != "second") < 4000 < f["second"].stat().st_size
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path, limits=cap))
    assert [x["id"] for x in s.meta.extra["subagents"]] == [CID, GID, EID]  # the ones after it too
    assert s.files[-1].path == str(last.relative_to(tmp_path))
    src = str(f["second"].relative_to(tmp_path))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("subagent_unreadable", f"subagent thread {DID} could not be read, its events are not here: "
         f"is {f['second'].stat().st_size} bytes, more than the 4000-byte limit for a file read whole "
         "(raise it with FORSY_MAX_FILE_BYTES)", src, None)]


def test_the_typescript_clis_document_is_read_under_the_limits_and_named_from_the_root(tmp_path: Path) -> None:
    doc = write(tmp_path / "sessions" / "rollout-2025-04-18-3e1b.json", json.dumps(
        {"session": {"timestamp": "2025-04-18T10:00:00.000Z", "id": "3e1b", "instructions": ""},
         "items": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]},
        indent=2).encode())  # fmt: skip
    [s] = SRC.read(doc, ReadContext(root=tmp_path))
    assert [x.path for x in s.files] == ["sessions/rollout-2025-04-18-3e1b.json"]
    assert [(e.kind, e.text) for e in s.events] == [("user", "hi")]
    with pytest.raises(InputError):
        SRC.read(doc, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=100)))


def test_a_read_error_on_a_subagents_file_is_said_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    real = source_module.load_file

    def failing(path: Path, *args: Any) -> Any:
        if path == f["grandchild"]:
            raise OSError(5, "Input/output error")
        return real(path, *args)

    monkeypatch.setattr(source_module, "load_file", failing)
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [x["id"] for x in s.meta.extra["subagents"]] == [CID, DID]
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("subagent_unreadable", f"subagent thread {GID} could not be read, its events are not here: "
         "Input/output error", str(f["grandchild"].relative_to(tmp_path)))]


def test_a_forked_subagent_recorded_by_its_spawn_event_keeps_that_rule(tmp_path: Path) -> None:
    """A subagent spawned with the parent's history (fork_context) is a fork too: Codex writes
    the spawn call's output into it. When the parent also wrote collab_agent_spawn_end, that
    event is the link's rule."""
    parent = [meta(PID), said("user", "go", 1), line("event_msg", {"type": "user_message", "message": "go"}, at(1)),
              call("spawn_agent", "call_fs", '{"message":"look","fork_context":true}', 2),
              line("event_msg", {"type": "collab_agent_spawn_end", "call_id": "call_fs", "new_thread_id": CID}, at(3)),
              output("call_fs", "{}", 3)]  # fmt: skip
    write(tmp_path / f"rollout-a-{PID}.jsonl", b"".join(parent))
    write(tmp_path / f"rollout-b-{CID}.jsonl", b"".join([
        line("session_meta", {"id": CID, "forked_from_id": PID, "source": sub_of(PID)}, at(2)), *parent[:4],
        output("call_fs", "You are the forked agent.", 2), said("user", "look", 2), said("assistant", "seen", 4)]))
    [s] = SRC.read(tmp_path / f"rollout-a-{PID}.jsonl", ReadContext(root=tmp_path))
    [info] = s.meta.extra["subagents"]
    assert (info["parent_call_id"], info["link_rule"]) == ("call_fs", "collab_agent_spawn_end")
    assert [(e.kind, e.text, (e.link.parent_call_id, e.link.link_rule) if e.link else None)
            for e in s.events if e.actor != "user" and e.kind in ("note", "agent_text")] == [
        ("note", "You are the forked agent.", ("call_fs", "collab_agent_spawn_end")),
        ("note", "look", None), ("agent_text", "seen", ("call_fs", "collab_agent_spawn_end"))]


def test_a_header_line_past_8_mib_is_not_looked_into(tmp_path: Path) -> None:
    """A rollout's first line is read to its end up to 8 MiB (source.HEAD_LIMIT), then no
    further: a subagent whose header is longer is not known as one, and is read on its own."""
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    huge = line("session_meta", {"id": DID, "source": sub_of(PID), "base_instructions": {"text": "z" * (8 << 20)}})
    assert (8 << 20) < len(huge) < (8 << 20) + 65536
    write(f["second"], huge + said("assistant", "on my own", 31))
    assert SRC.discover(day) == [f["parent"], f["second"]]


def test_a_subagents_record_without_a_time_keeps_its_place_in_its_thread(tmp_path: Path) -> None:
    """A damaged line without its timestamp: its event sorts at the time before it in its
    thread, or at the thread's first time when it comes first, never before the spawn."""
    day = tmp_path / "sessions" / "2026" / "05" / "12"
    f = family(day)
    untimed = json.dumps({"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                              "content": [{"type": "output_text", "text": "?"}]}})
    write(f["second"], line("session_meta", {"id": DID, "source": sub_of(PID)}, at(30)) + untimed.encode() + b"\n"
          + said("assistant", "on my own", 31) + untimed.encode() + b"\n")  # fmt: skip
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [(e.text, e.ts) for e in s.events[-4:]] == [("done", at(20)), ("?", None), ("on my own", at(31)),
                                                       ("?", None)]  # fmt: skip
    # a thread with no time at all is read whole, in its own order
    write(f["second"], line("session_meta", {"id": DID, "source": sub_of(PID)}, at(30)).replace(at(30).encode(), b"")
          + untimed.encode() + b"\n" + untimed.encode().replace(b'"?"', b'"!"') + b"\n")  # fmt: skip
    [s] = SRC.read(f["parent"], ReadContext(root=tmp_path))
    assert [e.text for e in s.events if e.actor == f"subagent:{DID}"] == ["?", "!"]
