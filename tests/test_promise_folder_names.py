"""Trace folder names (sinks/folder.py): the hand-computed name of a session, the longer names
tried when one is taken (the whole session id, then the trace id), and never two traces in one
folder nor a folder of another trace reused. Split from test_promise_folder.py (the writer)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from forsy.errors import OutputError
from forsy.evidence import Quality, Session, SessionMeta, SourceFile
from forsy.sinks.folder import FolderSink, check_destination, readme, trace_name, write_folder
from test_promise_folder import _registry_read_once, _trace

__all__ = ["_registry_read_once"]  # the autouse fixture, so reading stays one registry scan per test


def _session(sid: str, *, agent: str = "claude-code", cwd: str | None = "/home/dev/My Proj",
             file: str | None = None) -> Session:
    files = [SourceFile(file, file, "claude-code", 0, "")] if file else []
    return Session("claude-code", sid, files, {}, [], SessionMeta(agent=agent, cwd=cwd), Quality())


@pytest.mark.parametrize(("session", "started", "name"), [
    (_session("0123456789abcdef"), "2026-01-02T03:04:05Z", "claude-code-My-Proj-2026-01-02-01234567"),
    (_session("0123456789abcdef"), None, "claude-code-My-Proj-01234567"),
    (_session("0123456789abcdef"), "yesterday", "claude-code-My-Proj-01234567"),
    (_session("ab", cwd="C:\\Users\\dev\\win"), None, "claude-code-win-ab"),
    (_session("ab", agent="", cwd=None), None, "claude-code-ab"),
    (_session("0123456789", file="p/0123456789.jsonl"), None, "claude-code-My-Proj-01234567"),
    (_session("0123456789", file="p/forked-copy.jsonl"), None, "claude-code-My-Proj-01234567-forked-copy"),
    # a file named after the session plus more is the session's: its name adds nothing
    (_session("0123456789", file="p/0123456789-fork.jsonl"), None, "claude-code-My-Proj-01234567"),
    # dots and dashes trimmed at both ends of each part (a hidden folder's name), other letters kept
    (_session("ab", cwd="/home/dev/.dotfiles."), None, "claude-code-dotfiles-ab"),
    (_session("ab", cwd="/home/dev/Xcode-X"), None, "claude-code-Xcode-X-ab"),
    (_session("ab", agent="b" * 31 + "X" + "c" * 8, cwd=None), None, "b" * 31 + "X-ab"),  # cut at 32
    (_session("ab", agent="." * 5 + "a" * 40, cwd=None), None, "a" * 32 + "-ab"),  # trimmed, then cut
    (_session("../..", agent="", cwd="/"), None, "claude-code"),
    (_session("x" * 50, agent="a" * 40, cwd=None), None, "a" * 32 + "-xxxxxxxx"),
])
def test_trace_names(session: Session, started: str | None, name: str) -> None:
    assert trace_name(session, started) == name


def test_trace_name_of_nothing_usable_is_trace() -> None:
    s = Session("", "..", [], {}, [], SessionMeta(agent="", cwd=None), Quality())
    assert trace_name(s) == "trace"


def test_two_sessions_with_one_short_name_get_two_folders(tmp_path: Path) -> None:
    sink = FolderSink(tmp_path / "out", parent=True)
    a1, s1 = _trace(tmp_path, sid="abcdefgh-1111")
    a2, s2 = _trace(tmp_path, sid="abcdefgh-2222")
    w1, w2 = sink.write(a1, s1), sink.write(a2, s2)
    assert Path(w1).name == "claude-code-proj-2026-01-01-abcdefgh"
    assert Path(w2).name == "claude-code-proj-2026-01-01-abcdefgh-2222"
    assert sink.write(a1, s1) == w1  # the same trace again: its own folder


def test_a_taken_name_grows_to_the_whole_session_id_then_the_trace_id(tmp_path: Path) -> None:
    """The three names tried, in order: the short id (8 characters), the whole id (cut at 64
    characters), then that plus the trace id's first 12 hex digits."""
    digits = "0123456789" * 6
    a, s = _trace(tmp_path, sid="abcdefghij" + digits)  # 70 characters
    assert a.trace.trace_id.startswith("forsy_")
    head = "claude-code-proj-2026-01-01-"
    whole = head + "abcdefghij" + digits[:54]
    assert FolderSink(tmp_path / "out", parent=True).candidates(a, s) == [
        tmp_path / "out" / (head + "abcdefgh"), tmp_path / "out" / whole,
        tmp_path / "out" / f"{whole}-{a.trace.trace_id[len('forsy_'):][:12]}"]


def test_the_longer_name_grows_the_session_id_part_not_an_earlier_match(tmp_path: Path) -> None:
    """A session id whose first 8 characters also occur earlier in the name (here in the date)
    grows in its own place: the longer name is built with the whole id, not by replacing the
    first match of the short one."""
    a, s = _trace(tmp_path, sid="2026-01-xyz")
    head = "claude-code-proj-2026-01-01-"
    short, longer, _ = FolderSink(tmp_path / "out", parent=True).candidates(a, s)
    assert (short.name, longer.name) == (head + "2026-01", head + "2026-01-xyz")


def test_a_folder_of_another_trace_on_disk_is_not_reused(tmp_path: Path) -> None:
    a1, s1 = _trace(tmp_path, sid="abcdefgh-1111")
    a2, s2 = _trace(tmp_path, sid="abcdefgh-2222")
    FolderSink(tmp_path / "out", parent=True).write(a1, s1)
    w2 = FolderSink(tmp_path / "out", parent=True).write(a2, s2)  # a later run
    assert Path(w2).name == "claude-code-proj-2026-01-01-abcdefgh-2222"
    assert sorted(os.listdir(tmp_path / "out")) == ["claude-code-proj-2026-01-01-abcdefgh",
                                                    "claude-code-proj-2026-01-01-abcdefgh-2222"]


def test_one_session_given_writes_out_itself_until_several_come(tmp_path: Path) -> None:
    a1, s1 = _trace(tmp_path, sid="s-1")
    sink = FolderSink(tmp_path / "one", parent=False)
    assert sink.write(a1, s1) == str(tmp_path / "one")
    sink.several()  # too late: something was written as the folder itself
    assert sink.parent is False
    fresh = FolderSink(tmp_path / "two", parent=False)
    fresh.several()
    assert fresh.parent is True


def test_a_run_never_writes_two_traces_into_one_folder(tmp_path: Path) -> None:
    a1, s1 = _trace(tmp_path, sid="s-1")
    a2, s2 = _trace(tmp_path, sid="s-2")
    sink = FolderSink(tmp_path / "one", parent=False)
    sink.write(a1, s1)
    with pytest.raises(OutputError, match=r"another trace of this run \(forsy_[0-9a-f]+\) was written to this "
                                          "folder; refusing to replace it") as e:
        sink.write(a2, s2)
    assert e.value.path == str(tmp_path / "one")


def test_another_trace_is_named_by_its_first_source_only(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_bytes(b"{}")
    (tmp_path / "manifest.json").write_text(json.dumps({
        "generator": {"name": "forsy"}, "files": {"trace.json": hashlib.sha256(b"{}").hexdigest()},
        "source_kind": "codex", "session_id": "s9", "sources": [{"path": "r.jsonl"}, {"path": "sub.jsonl"}]}))
    with pytest.raises(OutputError) as e:
        check_destination(tmp_path, "codex", "other", [])
    assert e.value.message == "destination holds another trace (session s9 from r.jsonl); refusing to replace it"


def test_another_trace_without_sources_is_named_as_from_unknown(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_bytes(b"{}")
    (tmp_path / "manifest.json").write_text(json.dumps({
        "generator": {"name": "forsy"}, "files": {"trace.json": hashlib.sha256(b"{}").hexdigest()},
        "source_kind": "codex", "session_id": "s9", "sources": []}))
    with pytest.raises(OutputError) as e:
        check_destination(tmp_path, "codex", "other", [])
    assert e.value.message == "destination holds another trace (session s9 from unknown); refusing to replace it"


# ------------------------------------------------------------------ the dataset card and artifacts
def test_the_card_says_when_a_trace_is_not_redacted(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)  # written with redaction off
    card = readme(a)
    assert "- NOT REDACTED: this trace may contain secrets and personal data. Do not publish it.\n" in card
    assert "masked" not in card


def test_the_card_lists_each_kind_of_masked_value_with_its_count(tmp_path: Path) -> None:
    a, _ = _trace(tmp_path)
    a.manifest.redaction = {"enabled": True, "by_kind": {"email": 2, "credential": 1}}
    assert "- Secrets and personal data were masked with typed placeholders (credential: 1, email: 2).\n" \
        in readme(a)
    a.manifest.redaction = {"enabled": True, "by_kind": None}
    assert "typed placeholders (none found)." in readme(a)


def test_artifacts_are_written_as_given_and_named_in_the_card(tmp_path: Path) -> None:
    """A full tool output the agent saw only a preview of is written beside the trace, byte for
    byte: a lone surrogate (a log's undecodable byte) is kept as it was read (surrogatepass)."""
    a, _ = _trace(tmp_path)
    assert "artifacts/" not in readme(a)
    text = "full output \udc80 end"
    a.files = {"artifacts/step-2-output.txt": text}
    dest = write_folder(a, tmp_path / "t")
    assert (dest / "artifacts" / "step-2-output.txt").read_bytes() == text.encode("utf-8", "surrogatepass")
    assert "- `artifacts/`: full tool outputs the agent saw only a preview of.\n" in (dest / "README.md").read_text()
    manifest = json.loads((dest / "manifest.json").read_text())
    assert manifest["files"]["artifacts/step-2-output.txt"] == hashlib.sha256(
        text.encode("utf-8", "surrogatepass")).hexdigest()
