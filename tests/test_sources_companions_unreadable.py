"""A file or folder read with a session (a companion: a subagent's transcript or folder, a task's
metadata, a message's parts, the project's logs, a database's write-ahead log) that the user may
not read (mode 000, as a user who is not root meets it, or a file `sudo` left): the session is
read from what can be read, and the companion is named once, with the session file it belongs to,
by its name relative to where the logs are (never a path of this machine: warnings are written
in the trace's manifest) and the reason. A session nothing is left of fails, naming what could
not be read. Before, readers dropped such a companion's work without a word, or failed the whole
session over it.

The tests run as root, whom mode 000 does not stop: the refusal the reader's open or listing
would meet is patched in (`_deny`)."""

from __future__ import annotations

import builtins
import io
import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forsy.errors import InputError
from forsy.evidence import Session
from forsy.sources import ReadContext, _sqlite, available
from forsy.sources._side import UNREADABLE
from forsy.sources.aider import AiderSource
from forsy.sources.cline import ClineSource
from forsy.sources.gemini import GeminiSource
from forsy.sources.goose import GooseSource
from forsy.sources.opencode import OpenCodeSource
from forsy.sources.openhands import OpenHandsSource
from forsy.sources.qwen_code import QwenCodeSource
from forsy.sources.roo_code import RooCodeSource
from forsy.sources.shell import ShellHistorySource
from forsy.sources.walk import discover_tree

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
DENIED = "Permission denied"  # the system's words, as a listing or Python's open give them
API, UI, META, HISTORY = "api_conversation_history.json", "ui_messages.json", "task_metadata.json", "history_item.json"


def _deny(mp: pytest.MonkeyPatch, *paths: Path) -> None:
    """Each of `paths` as mode 000 leaves it for a user who is not root: a file may not be
    opened; a folder may not be listed, nor anything in it looked at."""
    folders = {p for p in paths if p.is_dir()}
    files = set(paths) - folders

    def refused(p: object, locked: set[Path]) -> bool:
        if not isinstance(p, (str, bytes, os.PathLike)):
            return False
        q = Path(os.fsdecode(p))
        return q in locked or any(q != d and q.is_relative_to(d) for d in folders)

    def wrap(fn: Callable[..., Any], locked: set[Path]) -> Callable[..., Any]:
        def checked(p: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if refused(p, locked):
                raise PermissionError(13, DENIED, os.fsdecode(p))
            return fn(p, *args, **kwargs)
        return checked

    mp.setattr(os, "open", wrap(os.open, files))
    for name, locked in (("listdir", folders), ("scandir", folders), ("stat", set()), ("lstat", set())):
        mp.setattr(os, name, wrap(getattr(os, name), locked))
    opened = wrap(io.open, files)
    mp.setattr(io, "open", opened)
    mp.setattr(builtins, "open", opened)


def _said(s: Session, code: str = UNREADABLE) -> list[tuple[str, str | None]]:
    return [(w.message, w.file) for w in s.warnings if w.code == code]


def _json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), "utf-8")
    return path


def _lines(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


# --- Roo Code and Cline: a task's files beside its API history ------------------------------

ROO = SAMPLES / "roo_code" / "019d8a3e-5f10-7c2a-9b41-3e6f0d2c7a18"


@pytest.mark.parametrize(("name", "missing"), [
    (UI, "no typed prompts and no token counts"),
    (HISTORY, "the task's working folder, mode and place among subtasks are not known"),
    (META, "the files in context are not listed")])
def test_a_roo_code_task_is_read_without_a_file_beside_its_api_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, missing: str) -> None:
    """It failed the task: "permission denied"."""
    task = shutil.copytree(ROO, tmp_path / ROO.name)
    _deny(monkeypatch, task / name)
    [s] = RooCodeSource().read(task / API, ReadContext(root=task))
    assert _said(s) == [(f"{name} could not be read (permission denied): {missing}", API)]
    assert [w.code for w in s.warnings] == [UNREADABLE]  # not also "missing or empty"
    assert s.events and name not in [f.path for f in s.files]


def _roo_task(folder: Path, api: list[Any], history: dict[str, Any]) -> Path:
    _json(folder / UI, [{"ts": 1776000000000, "type": "say", "say": "text", "text": api[0]["content"]}])
    _json(folder / HISTORY, history)
    return _json(folder / API, api)


def test_a_roo_code_subtask_whose_history_entry_may_not_be_read_is_named_by_its_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its history entry is what says it is a subtask: the parent was read without it, in silence."""
    child = "c0ffee00-0000-4000-8000-000000000002"
    parent = _roo_task(tmp_path / "p", [
        {"role": "user", "content": "Audit the API", "ts": 1776000000000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "new_task",
                                           "input": {"mode": "ask", "message": "List the endpoints"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": f"Subtask {child} completed.\n\nResult:\nThree."}]}],
        {"id": "p", "childIds": [child]})
    _roo_task(tmp_path / child, [{"role": "user", "content": "List the endpoints", "ts": 1776000002000},
                                 {"role": "assistant", "content": "Three."}], {"id": child, "parentTaskId": "p"})
    _deny(monkeypatch, tmp_path / child / HISTORY)
    [s] = RooCodeSource().read(parent, ReadContext(root=parent.parent))
    assert _said(s) == [(f"{child}/ could not be read ({DENIED}): a subtask's work is not here", API)]


def _cline_task(folder: Path) -> Path:
    _json(folder / UI, [{"ts": 1760000000000, "type": "say", "say": "text", "text": "Say hi."}])
    _json(folder / META, {"files_in_context": []})
    return _json(folder / API, [{"role": "user", "content": [{"type": "text", "text": "<task>\nSay hi.\n</task>"}]},
                                {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}])


@pytest.mark.parametrize(("name", "missing"), [(UI, "no times and no typed prompts"),
                                               (META, "no Cline version and no files in context")])
def test_a_cline_task_is_read_without_a_file_beside_its_api_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, missing: str) -> None:
    api = _cline_task(tmp_path / "task")
    _deny(monkeypatch, api.parent / name)
    [s] = ClineSource().read(api, ReadContext(root=api.parent))
    assert _said(s) == [(f"{name} could not be read (permission denied): {missing}", API)]
    assert [w.code for w in s.warnings] == [UNREADABLE] and [e.text for e in s.events if e.kind == "agent_text"] == [
        "Hi."]


# --- Qwen Code and Gemini CLI: the folder of a session's subagents -----------------------------

QWEN = SAMPLES / "qwen_code" / "projects" / "-home-dev-projects-tally"
QSID = "cbc168ae-5208-4146-8136-4eb0b87f512e"


def test_a_qwen_code_subagents_folder_that_may_not_be_listed_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A glob passed over it as if it were empty: the subagent's work was left out unsaid."""
    project = shutil.copytree(QWEN, tmp_path / QWEN.name)
    chat = project / "chats" / f"{QSID}.jsonl"
    _deny(monkeypatch, project / "subagents" / QSID)
    [s] = QwenCodeSource().read(chat, ReadContext(root=chat.parent))
    assert _said(s) == [(f"subagents/{QSID}/ could not be read ({DENIED}): its subagents' work is not here",
                         chat.name)]
    assert not [e for e in s.events if e.actor.startswith("subagent:")]


def test_a_qwen_code_subagents_sidecar_that_may_not_be_read_is_named_with_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = shutil.copytree(QWEN, tmp_path / QWEN.name)
    chat = project / "chats" / f"{QSID}.jsonl"
    [meta] = (project / "subagents" / QSID).glob("*.meta.json")
    _deny(monkeypatch, meta)
    [s] = QwenCodeSource().read(chat, ReadContext(root=chat.parent))
    transcript = meta.name.removesuffix(".meta.json") + ".jsonl"
    assert _said(s) == [(f"subagents/{QSID}/{meta.name} could not be read ({DENIED}): the call that launched the "
                         "subagent is found by its task alone", f"qwen-project:subagents/{QSID}/{transcript}")]
    assert [e for e in s.events if e.actor.startswith("subagent:")]  # its transcript is read


GSID = "5b959dae-0c4f-4d39-9c55-2f0e6a1d7e10"
GT = "2026-05-04T10:{:02d}:00.000Z".format


def _gemini(project: Path) -> Path:
    """A main chat and the chat of the subagent it ran, in `<project>/chats/`."""
    head = {"projectHash": "h", "startTime": GT(0), "lastUpdated": GT(0)}
    call = {"id": "inv-1", "name": "codebase_investigator", "args": {"objective": "callers"}, "status": "success",
            "timestamp": GT(9), "agentId": "ag-1", "result": [{"functionResponse": {
                "id": "inv-1", "name": "codebase_investigator", "response": {"output": "cli.py"}}}]}
    _lines(project / "chats" / GSID / "ag-1.jsonl", [
        {**head, "sessionId": "ag-1", "kind": "subagent"},
        {"id": "s1", "timestamp": GT(3), "type": "user", "content": [{"text": "List the callers."}]},
        {"id": "s2", "timestamp": GT(4), "type": "gemini", "content": "cli.py", "model": "gemini-2.5-pro"}])
    return _lines(project / "chats" / f"session-2026-05-04T10-00-{GSID[:8]}.jsonl", [
        {**head, "sessionId": GSID},
        {"id": "m1", "timestamp": GT(1), "type": "user", "content": [{"text": "Find the callers."}]},
        {"id": "m2", "timestamp": GT(2), "type": "gemini", "content": "", "model": "gemini-2.5-pro",
         "toolCalls": [call]}])


def test_a_gemini_subagents_folder_or_chat_that_may_not_be_read_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its folder's glob found nothing, its chat's header read as no subagent's: left out unsaid."""
    main = _gemini(tmp_path / "p")
    folder = main.parent / GSID
    with monkeypatch.context() as mp:
        _deny(mp, folder)
        [s] = GeminiSource().read(main, ReadContext(root=main.parent))
        assert _said(s) == [(f"{GSID}/ could not be read ({DENIED}): its subagents' work is not here", main.name)]
    _deny(monkeypatch, folder / "ag-1.jsonl")
    [s] = GeminiSource().read(main, ReadContext(root=main.parent))
    assert _said(s, "subagent_unreadable") == [
        ("a subagent's chat could not be read, its events are not here: permission denied", f"{GSID}/ag-1.jsonl")]
    assert not [e for e in s.events if e.actor == "subagent:ag-1"]


def test_the_gemini_projects_files_beside_chats_that_may_not_be_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's root marker is named (it was passed over); logs.json is named, not by the
    path of this machine it was named by; a saved output whose folder may not be searched leaves
    the cut output, said (it failed the chat)."""
    project = tmp_path / "p"
    written = f"/home/u/.gemini/tmp/p/tool-outputs/session-{GSID}/run_1.txt"
    call = {"id": "run_1", "name": "run_shell_command", "args": {"command": "make"}, "status": "error",
            "timestamp": GT(3), "result": [{"functionResponse": {"id": "run_1", "name": "run_shell_command",
                                                                  "response": {"output": "For full output see: "
                                                                               f"{written}\nError 2"}}}]}
    main = _lines(project / "chats" / "session-1.jsonl", [
        {"sessionId": GSID, "projectHash": "h", "startTime": GT(0), "lastUpdated": GT(0)},
        {"id": "u", "timestamp": GT(1), "type": "user", "content": [{"text": "build it"}]},
        {"id": "g", "timestamp": GT(2), "type": "gemini", "content": "", "toolCalls": [call]}])
    (project / ".project_root").write_text("/home/u/p")
    _json(project / "logs.json", [{"sessionId": GSID, "type": "user", "message": "build it", "timestamp": GT(1)}])
    outputs = project / "tool-outputs" / f"session-{GSID}"
    _json(outputs / "run_1.txt", "whole")
    _deny(monkeypatch, project / ".project_root", project / "logs.json", outputs)
    [s] = GeminiSource().read(main, ReadContext(root=main.parent))
    assert _said(s) == [(f".project_root could not be read ({DENIED}): the session's working folder is not known",
                         main.name)]
    assert _said(s, "logs-json-unreadable") == [(  # named as its evidence would be: beside chats/
        "gemini-project:logs.json could not be read (permission denied): the prompts it holds that the chat lacks "
        "are not here", "gemini-project:logs.json")]
    [(message, _)] = _said(s, "saved-output-unreadable")
    assert message.endswith(": permission denied") and str(tmp_path) not in message
    assert s.quality.truncated_outputs == 1


# --- OpenHands: a conversation kept one file per event, its subagents under it ----------------

OT = "2026-03-02T10:00:{:02d}.000000".format


def _conversation(folder: Path, *texts: str) -> Path:
    for i, text in enumerate(texts):
        uid = f"00000000-0000-4000-8000-{i + 1:012d}"
        _json(folder / "events" / f"event-{i:05d}-{uid}.json", {
            "kind": "MessageEvent", "id": uid, "timestamp": OT(i), "source": "user" if i == 0 else "agent",
            "llm_message": {"role": "user" if i == 0 else "assistant", "content": [{"type": "text", "text": text}]},
            "activated_skills": [], "extended_content": [], "sender": None})
    return sorted((folder / "events").iterdir())[0]


def test_an_openhands_event_or_subagents_folder_that_may_not_be_read_costs_only_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One event file that may not be read failed the conversation; a subagents folder that may
    not be listed failed it too, and a subagent's events folder was passed over unsaid."""
    top = tmp_path / "c0"
    first = _conversation(top, "Find the callers.", "Looking.", "Two callers.")
    _conversation(top / "subagents" / "s1", "List the callers.", "cli.py")
    second = sorted(first.parent.iterdir())[1]
    src, ctx = OpenHandsSource(), ReadContext(root=first.parent)
    with monkeypatch.context() as mp:
        _deny(mp, second)
        [s] = src.read(first, ctx)
        assert _said(s) == [(f"{second.name} could not be read (permission denied): the event it holds is not here",
                             first.name)]
        assert "Looking." not in [e.text for e in s.events] and "Two callers." in [e.text for e in s.events]
    subs = top / "subagents"
    for locked, name, missing in ((subs, "subagents/", "its subagents' work is not here"),
                                  (subs / "s1" / "events", "subagents/s1/", "a subagent's work is not here")):
        with monkeypatch.context() as mp:
            _deny(mp, locked)
            [s] = src.read(first, ctx)
            assert _said(s) == [(f"{name} could not be read ({DENIED}): {missing}", first.name)]
    _deny(monkeypatch, *first.parent.iterdir())  # nothing of it left: the conversation fails, saying why
    with pytest.raises(InputError, match=r"none of its 3 event files could be read \(permission denied\)"):
        src.read(first, ctx)


# --- OpenCode's JSON storage: a session's messages, their parts, its subagents' sessions -----

OPENCODE = SAMPLES / "opencode" / "storage"
OSID, OCHILD = "ses_44444497fffehk8XqobPyXxsCL", "ses_44442d667ffebnoPTtWUeCHdyS"


def _opencode(tmp_path: Path) -> tuple[Path, Path]:
    storage = shutil.copytree(OPENCODE, tmp_path / "storage")
    [main] = storage.glob(f"session/*/{OSID}.json")
    return storage, main


def test_opencode_messages_or_parts_that_may_not_be_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Their folders read as empty: "no messages", "no parts", a trace of less or "no work"; now
    the one folder is named with the session, or the session fails naming the folder."""
    storage, main = _opencode(tmp_path)
    src, ctx = OpenCodeSource(), ReadContext(root=main.parent)
    with monkeypatch.context() as mp:  # the session's messages: nothing of it is left
        _deny(mp, storage / "message" / OSID)
        with pytest.raises(InputError, match=rf"its messages \(message/{OSID}/\) could not be read: {DENIED}"):
            src.read(main, ctx)
    mid = sorted((storage / "message" / OSID).iterdir())[0].stem
    with monkeypatch.context() as mp:  # one message's parts
        _deny(mp, storage / "part" / mid)
        [s] = src.read(main, ctx)
        assert _said(s) == [(f"part/{mid}/ could not be read ({DENIED}): what the message said is not here",
                             main.name)]
        assert "no-parts" not in [w.code for w in s.warnings]
    _deny(monkeypatch, storage / "part")  # every message's: no words nor calls are left
    with pytest.raises(InputError, match=rf"its messages' parts \(part/\) could not be read: {DENIED}"):
        src.read(main, ctx)


def test_an_opencode_subagents_session_file_that_may_not_be_read_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its parent is what its file says: it was among no session's children, and left out unsaid;
    the task call that ran it names it."""
    _, main = _opencode(tmp_path)
    _deny(monkeypatch, main.parent / f"{OCHILD}.json")
    [s] = OpenCodeSource().read(main, ReadContext(root=main.parent))
    assert _said(s, "subagent_unreadable") == [
        ("a subagent's session could not be read, its events are not here: permission denied", f"{OCHILD}.json")]
    assert not [e for e in s.events if e.actor == f"subagent:{OCHILD}"]


# --- a database's write-ahead log; Aider's input history ------------------------------------

def _wal_denied(mp: pytest.MonkeyPatch, db: Path) -> None:
    """SQLite cannot open the database where it lies (a read-only folder: its `-shm`), so forsy
    reads a copy, and the `-wal` beside it may not be read."""
    real = _sqlite._query_file

    def query(path: Path, sql: str, args: tuple[str, ...]) -> list[dict[str, Any]]:
        if path == db:
            raise sqlite3.OperationalError("unable to open database file")
        return real(path, sql, args)

    wal = db.with_name(db.name + "-wal")
    wal.write_bytes(b"")
    mp.setattr(_sqlite, "_query_file", query)
    _deny(mp, wal)


def test_a_write_ahead_log_that_may_not_be_read_leaves_the_databases_own_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It failed the database (atuin's history, Goose's sessions) over a PermissionError."""
    from test_goose import _db  # Goose's schema, as session_manager.rs makes it

    goose = _db(tmp_path / "g")
    atuin = tmp_path / "a" / "history.db"
    atuin.parent.mkdir()
    con = sqlite3.connect(atuin)
    con.execute("CREATE TABLE history (id TEXT PRIMARY KEY, timestamp INTEGER, duration INTEGER, exit INTEGER, "
                "command TEXT, cwd TEXT, session TEXT, hostname TEXT, deleted_at INTEGER)")
    con.execute("INSERT INTO history VALUES ('r1', 1760000000000000000, 1000, 0, 'make', '/p', 's', 'h', NULL)")
    con.commit()
    con.close()
    missing = "the rows written since its last checkpoint are not here"
    for src, db in ((GooseSource(), goose), (ShellHistorySource(), atuin)):
        with monkeypatch.context() as mp:
            _wal_denied(mp, db)
            [s] = src.read(db, ReadContext(root=db.parent))
            assert _said(s) == [(f"{db.name}-wal could not be read ({DENIED}): {missing}", db.name)]
            assert s.events


def test_aiders_input_history_that_may_not_be_read_is_named_not_by_a_path_of_this_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = tmp_path / ".aider.chat.history.md"
    chat.write_text("\n# aider chat started at 2026-03-01 09:00:00\n\n#### hi  \n")
    (tmp_path / ".aider.input.history").write_text("\n# 2026-03-01 09:00:05\n+hi\n")
    _deny(monkeypatch, tmp_path / ".aider.input.history")
    [s] = AiderSource().read(chat, ReadContext(root=tmp_path))
    assert _said(s, "input-history-unreadable") == [(
        ".aider.input.history could not be read (permission denied): the times of what was typed, and what the "
        "chat lacks of it, are not here", ".aider.input.history")]


# --- the folder walk: a session file that may not be read is no file of no format ------------

def test_the_walk_names_a_session_file_that_may_not_be_read_and_leaves_companions_to_their_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside another session, a chat that may not be read was taken for a part of it, unsaid;
    alone, it was "not a log format forsy reads". A task's file its reader names is not named
    again; the other sessions are found all the same."""
    root = tmp_path / "logs"
    chat = {"projectHash": "h", "startTime": GT(0), "lastUpdated": GT(0), "messages": [
        {"id": "u", "timestamp": GT(1), "type": "user", "content": "hi"}]}
    _json(root / "gemini" / "session-a.json", {"sessionId": "a", **chat})
    locked = _json(root / "gemini" / "session-b.json", {"sessionId": "b", **chat})
    alone = _json(root / "alone" / "session-c.json", {"sessionId": "c", **chat})
    api = _cline_task(root / "task")
    _deny(monkeypatch, locked, alone, api.parent / UI)
    found = discover_tree(root, available())
    assert sorted(p.relative_to(root).as_posix() for _, p in found.found) == ["gemini/session-a.json",
                                                                               f"task/{API}"]
    assert sorted((p.relative_to(root).as_posix(), why) for p, why in found.not_searched) == [
        ("alone/session-c.json", "not read: permission denied"),
        ("gemini/session-b.json", "not read: permission denied")]
    assert not found.unrecognised


def test_a_home_folders_layouts_name_what_they_may_not_read_and_find_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home folder is not walked: only the agents' layouts are searched. A project folder, a
    session's folder or a session file there that may not be read made a layout fail as a whole
    (every other session of that agent left out) or pass over it unsaid."""
    home = tmp_path / "home"
    projects = home / ".qwen" / "projects"
    shutil.copytree(QWEN, projects / QWEN.name)
    (projects / "-home-dev-locked" / "chats").mkdir(parents=True)
    state = shutil.copytree(SAMPLES / "copilot_cli" / "session-state", home / ".copilot" / "session-state")
    (state / "0badc0de-0000-4000-8000-000000000000").mkdir()
    goose = shutil.copytree(SAMPLES / "goose" / "sessions", home / ".local" / "share" / "goose" / "sessions")
    [first, second] = sorted(goose.glob("*.jsonl"))
    storage = shutil.copytree(OPENCODE, home / ".local" / "share" / "opencode" / "storage")
    (storage / "session" / "0locked").mkdir()
    monkeypatch.setenv("HOME", str(home))
    _deny(monkeypatch, projects / "-home-dev-locked", state / "0badc0de-0000-4000-8000-000000000000", second,
          storage / "session" / "0locked")
    found = discover_tree(home, available())
    got = sorted((src.name, p.relative_to(home).as_posix()) for src, p in found.found)
    assert ("qwen_code", f".qwen/projects/{QWEN.name}/chats/{QSID}.jsonl") in got
    assert ("goose", first.relative_to(home).as_posix()) in got
    assert [n for n, _ in got].count("copilot_cli") == 2 and [n for n, _ in got].count("opencode") == 1
    assert sorted((p.relative_to(home).as_posix(), why) for p, why in found.not_searched) == [
        (".copilot/session-state/0badc0de-0000-4000-8000-000000000000", f"not searched: {DENIED}"),
        (second.relative_to(home).as_posix(), "not read: permission denied"),
        (".local/share/opencode/storage/session/0locked", f"not searched: {DENIED}"),
        (".qwen/projects/-home-dev-locked", f"not searched: {DENIED}")]
