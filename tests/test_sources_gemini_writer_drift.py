"""Gemini CLI chats as the newest writer writes them (google-gemini/gemini-cli at commit
5411f113cafae26161b4969b0237b8e1e024e2c2, 2026-08-21): lines built by hand from
packages/core/src/services/chatRecordingService.ts (`updateMessagesFromHistory`, `recordSyntheticMessage`),
packages/core/src/core/geminiChat.ts (the binary-injection acknowledgement, the interrupted-response
placeholder, `addHistory`), packages/core/src/context/chatCompressionService.ts (the summary turn and
its "Got it." reply) and packages/cli/src/ui/hooks/useGeminiStream.ts (a skill the client activates
itself). Expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _gemini_view import ev, events, ledger, read, write_lines
from forsy.payloads import MessageInfo
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource
from forsy.sources.gemini._jsonl import CHECKPOINT_WHY, COPY_WHY, HEADER_WHY

T = "2026-08-01T00:00:0{}Z".format
HEAD = {"sessionId": "s-w", "projectHash": "h", "startTime": T(0), "lastUpdated": T(0)}
PLACEHOLDER = "[The previous response was interrupted before it completed.]"


def test_turns_only_a_checkpoint_holds_are_the_clis_not_the_persons_nor_the_models(tmp_path: Path) -> None:
    """After /compress the new chat's first checkpoint holds turns the CLI built: the session
    context, the summary (a user turn), "Got it." (a model turn), copies of the turns kept (new
    ids); a response cut off after a tool response leaves a placeholder model turn. None was typed
    or generated."""
    p = write_lines(tmp_path / "session-w.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "fix the bug"}]},
        {"$set": {"messages": [
            {"id": "k0", "timestamp": T(2), "type": "user", "content": [{"text": "<session_context>\nOS linux"}]},
            {"id": "k1", "timestamp": T(2), "type": "user", "content": [{"text": "<state_snapshot>done A"}]},
            {"id": "k2", "timestamp": T(2), "type": "gemini",
             "content": [{"text": "Got it. Thanks for the additional context!"}]},
            {"id": "k3", "timestamp": T(3), "type": "gemini", "content": [{"text": PLACEHOLDER}]},
            {"id": "k4", "timestamp": T(3), "type": "user", "content": [{"text": "fix the bug"}]},
            {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "fix the bug"}]}],
            "lastUpdated": T(3)}},
    ])
    s = read(p)
    at = "/$set/messages/"
    assert events(s) == [
        ev("user", "user", T(1), [(2, "/content/0/text")], text="fix the bug", ts_ref=(2, "/timestamp")),
        ev("note", "system", T(2), [(3, at + "0/content/0/text")], text="<session_context>\nOS linux",
           ts_ref=(3, at + "0/timestamp"), info=_note("session_context")),
        ev("compaction", "system", T(2), [(3, at + "1/content/0/text")], text="<state_snapshot>done A",
           ts_ref=(3, at + "1/timestamp"), info=_note("checkpoint_turn")),
        ev("note", "system", T(2), [(3, at + "2/content/0/text")], text="Got it. Thanks for the additional context!",
           ts_ref=(3, at + "2/timestamp"), info=_note("checkpoint_model_turn")),
        ev("note", "system", T(3), [(3, at + "3/content/0/text")], text=PLACEHOLDER,
           ts_ref=(3, at + "3/timestamp"), info=_note("checkpoint_model_turn")),
        ev("compaction", "system", T(3), [(3, at + "4/content/0/text")], text="fix the bug",
           ts_ref=(3, at + "4/timestamp"), info=_note("checkpoint_turn")),
    ]
    assert s.quality.compactions == 1  # one checkpoint: the kept turn is a copy under a new id
    assert s.quality.extra == {"checkpoint_messages": 5}
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header"), 3: ("metadata", CHECKPOINT_WHY, "$set")}


def test_the_clis_binary_acknowledgement_is_not_the_models_reasoning(tmp_path: Path) -> None:
    """geminiChat.ts records, after a tool response carrying binary data, a model turn of its own:
    a thought part with the synthetic thought signature. A thought part the model sent stays reasoning."""
    p = write_lines(tmp_path / "session-b.jsonl", [
        HEAD,
        {"id": "g1", "timestamp": T(1), "type": "gemini", "content": [
            {"text": "Binary content received. Proceeding with analysis.", "thought": True,
             "thoughtSignature": "skip_thought_signature_validator"}]},
        {"id": "g2", "timestamp": T(2), "type": "gemini", "content": [
            {"text": "look at the image", "thought": True, "thoughtSignature": "c2lnbg=="}]},
    ])
    s = read(p)
    assert events(s) == [
        ev("note", "system", T(1), [(2, "/content/0/text")], text="Binary content received. Proceeding with analysis.",
           ts_ref=(2, "/timestamp"), info=_note("cli_synthetic_thought")),
        ev("reasoning", "agent", T(2), [(3, "/content/0/text")], text="look at the image", ts_ref=(3, "/timestamp")),
    ]


def test_a_skill_the_client_activates_itself_is_a_call_with_its_result(tmp_path: Path) -> None:
    """useGeminiStream adds a client-initiated activate_skill to the history as a model turn with a
    functionCall part and a user turn with its functionResponse (addHistory → recordSyntheticMessage):
    no toolCalls record holds either. An unrelated response stays a duplicate of its call's record."""
    p = write_lines(tmp_path / "session-k.jsonl", [
        HEAD,
        {"id": "m1", "timestamp": T(1), "type": "gemini", "content": [
            {"functionCall": {"name": "activate_skill", "args": {"name": "pdf"}}}]},
        {"id": "m2", "timestamp": T(2), "type": "user", "content": [
            {"functionResponse": {"id": "x", "name": "activate_skill", "response": {"output": "skill on"}}}]},
        {"id": "m3", "timestamp": T(3), "type": "user", "content": [
            {"functionResponse": {"id": "y", "name": "read_file", "response": {"output": "text"}}}]},
    ])
    s = read(p)
    assert events(s) == [
        ev("tool_call", "agent", T(1), [(2, "/content/0/functionCall/args")], ts_ref=(2, "/timestamp"),
           call_id=_id(s, 2) + ":part0", tool="activate_skill", args={"name": "pdf"}, group="m1",
           name_ref=(2, "/content/0/functionCall/name")),
        ev("tool_result", "agent", T(2), [(3, "/content/0/functionResponse/response/output")],
           ts_ref=(3, "/timestamp"), call_id=_id(s, 2) + ":part0", tool="activate_skill", text="skill on",
           is_error=False, info=_result()),
    ]
    assert ledger(s)[4][0] == "duplicate" and 3 not in ledger(s)


def _id(s: object, line: int) -> str:
    return next(k for k, e in s.evidence.items() if e.line == line)  # type: ignore[attr-defined]


def _result() -> object:
    from forsy.payloads import ResultInfo
    return ResultInfo()


def _note(subtype: str) -> object:
    from forsy.payloads import NoteInfo
    return NoteInfo(subtype=subtype)


def test_a_header_rebuilt_from_a_loaded_record_holds_no_unknown_fields(tmp_path: Path) -> None:
    """rewriteConversationFile writes the header from what loadConversationRecord returned, its
    counts included (messageCount, userMessageCount, firstUserMessage, hasResumableContent,
    memoryScratchpadIsStale): fields of the writer, not drift."""
    p = write_lines(tmp_path / "session-r.jsonl", [
        {**HEAD, "messageCount": 1, "userMessageCount": 1, "firstUserMessage": "hi", "hasResumableContent": True,
         "memoryScratchpadIsStale": False},
        {"id": "u1", "timestamp": T(1), "type": "user", "content": "hi"},
    ])
    s = read(p)
    assert s.warnings == [] and s.quality.extra == {}
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header")}


def test_user_turns_the_cli_writes_itself_are_notes_not_prompts(tmp_path: Path) -> None:
    """addHistory records as type user what the CLI tells the model: the IDE context (client.ts),
    the workspace directories after /dir add (environmentContext.ts), a manual exit from Plan Mode
    (approvalModeUtils.ts), the output of a `!` shell command (useExecutionLifecycle.ts). A prompt
    that merely mentions such words later on stays a prompt."""
    texts = [("Here is the user's editor context as a JSON object. This is for your information only.\n```json",
              "ide_context"),
             ("Here is a summary of changes in the user's editor context, in JSON format.", "ide_context"),
             ("- **Workspace Directories:**\n  - /w\n- **Directory Structure:**", "directory_context"),
             ("User has manually exited Plan Mode. Switching to Default mode.", "plan_mode_exit"),
             ("I ran the following shell command:\n```sh\nls\n```\n\nThis produced the following result:",
              "shell_mode_command")]
    p = write_lines(tmp_path / "session-c.jsonl", [
        HEAD, *({"id": f"m{i}", "timestamp": T(1), "type": "user", "content": [{"text": t}]}
                for i, (t, _) in enumerate(texts)),
        {"id": "p", "timestamp": T(2), "type": "user", "content": "so I ran the following shell command: ls"}])
    s = read(p)
    assert events(s) == [
        *(ev("note", "system", T(1), [(i + 2, "/content/0/text")], text=t, ts_ref=(i + 2, "/timestamp"),
             info=_note(k)) for i, (t, k) in enumerate(texts)),
        ev("user", "user", T(2), [(7, "/content")], text="so I ran the following shell command: ls",
           ts_ref=(7, "/timestamp")),
    ]
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header"),
                         **{i + 2: ("set_aside", f"a user turn the CLI wrote ({k}), not typed", "user")
                            for i, (_, k) in enumerate(texts)}}


def test_a_command_the_person_ran_with_a_bang_is_their_step_and_its_log_entry_confirms_it(tmp_path: Path) -> None:
    """useExecutionLifecycle writes `!cmd` as a user turn holding the command and its output
    (newer versions escape backslashes and backticks in both); logger.logMessage logs the command
    alone. The person's action is the user step `!cmd` (R-user/bash-input), the whole turn a note."""
    turn = ("I ran the following shell command:\n```sh\nrm -rf build && make \\`x\\`\n```\n\n"
            "This produced the following result:\n```\nCommand exited with code 2.\nmake: *** [all] Error 2\n```")
    p = write_lines(tmp_path / "chats" / "session-b.jsonl", [
        HEAD, {"id": "u0", "timestamp": T(1), "type": "user", "content": [{"text": turn}]},
        {"id": "u1", "timestamp": T(2), "type": "user", "content": [{"text": "why did that fail?"}]}])
    (tmp_path / "logs.json").write_text(json.dumps([
        {"sessionId": "s-w", "messageId": 0, "type": "user", "message": "rm -rf build && make \\`x\\`",
         "timestamp": T(1)},
        {"sessionId": "s-w", "messageId": 1, "type": "user", "message": "why did that fail?", "timestamp": T(2)}]))
    [s] = GeminiSource().read(p, ReadContext(root=tmp_path))
    users = [(e.text, e.info.rule if isinstance(e.info, MessageInfo) else None) for e in s.events if e.kind == "user"]
    assert users == [("!rm -rf build && make \\`x\\`", "bash-input"), ("why did that fail?", None)]
    assert [e.text for e in s.events if e.kind == "note"] == [turn]  # the output, kept with the turn
    assert s.quality.extra["logs_json_confirmed"] == 2 and "logs_json_added" not in s.quality.extra


def test_a_result_synced_from_the_history_keeps_only_its_own_calls_parts(tmp_path: Path) -> None:
    """updateMessagesFromHistory sets each call's `result` to the whole user turn that answered the
    message's calls (every sibling's functionResponse, each with the `id` of its call); a later
    write of the message (recordToolCalls) carries that. A call's result is its own parts only."""
    turn = [{"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a.txt"}}},
            {"text": "extra for c1"},
            {"functionResponse": {"id": "c2", "name": "cat", "response": {"output": "hello"}}}]
    p = write_lines(tmp_path / "session-s.jsonl", [
        HEAD,
        {"id": "g1", "timestamp": T(1), "type": "gemini", "content": "", "toolCalls": [
            {"id": "c1", "name": "ls", "args": {}, "status": "success", "timestamp": T(2), "result": turn},
            {"id": "c2", "name": "cat", "args": {}, "status": "success", "timestamp": T(3), "result": turn}]},
    ])
    s = read(p)
    assert [(e.call_id, e.text, [r.pointer for r in e.refs]) for e in s.events if e.kind == "tool_result"] == [
        ("c1", "a.txt\nextra for c1", ["/toolCalls/0/result/0/functionResponse/response/output",
                                       "/toolCalls/0/result/1/text"]),
        ("c2", "hello", ["/toolCalls/1/result/2/functionResponse/response/output"]),
    ]


def _restore_chat(tmp_path: Path, name: str, head: list[Any]) -> Any:
    return read(write_lines(tmp_path / name, [
        HEAD, *head,
        {"id": "u1b", "timestamp": T(5), "type": "user", "content": [{"text": "fix the bug"}]},
        {"$set": {"lastUpdated": T(5)}},
        {"id": "g1b", "timestamp": T(5), "type": "gemini", "content": [{"text": "done"}]},
        {"$set": {"lastUpdated": T(5)}},
        {"$set": {"messages": [{"id": "u1b", "timestamp": T(5), "type": "user", "content": [{"text": "fix the bug"}]},
                               {"id": "g1b", "timestamp": T(5), "type": "gemini", "content": [{"text": "done"}]}],
                  "lastUpdated": T(5)}},
    ]))


def test_turns_written_again_when_the_history_is_replaced_are_copies(tmp_path: Path) -> None:
    """/restore (restoreCommand.ts) and a truncating compression (client.ts, CONTENT_TRUNCATED) call
    setHistory with plain turns: each is recorded again under a new id (geminiChat.setHistory →
    recordSyntheticMessage), then a checkpoint of exactly those is written. They copy turns the
    chat already holds: duplicates, not new prompts. The same lines with no history before them
    (a chat that starts so) are read."""
    s = _restore_chat(tmp_path, "session-r.jsonl", [
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "fix the bug"}]},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "done"}])
    assert [(e.kind, e.text, s.evidence[e.refs[0].ev].line) for e in s.events] == [
        ("user", "fix the bug", 2), ("agent_text", "done", 3)]
    assert ledger(s)[4] == ("duplicate", COPY_WHY, "message") and ledger(s)[6] == ledger(s)[4]
    assert s.quality.extra["history_copies"] == 2
    fresh = _restore_chat(tmp_path, "session-f.jsonl", [])
    assert [(e.kind, e.text) for e in fresh.events] == [("user", "fix the bug"), ("agent_text", "done")]
    assert "history_copies" not in fresh.quality.extra


def test_a_rollback_checkpoint_copies_nothing(tmp_path: Path) -> None:
    """A stream that failed rolls the history back (geminiChat.ts: agentHistory.rollback, then
    updateMessagesFromHistory): the checkpoint holds the older turns, the prompt sent last is not in it."""
    s = read(write_lines(tmp_path / "session-b.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": "one"},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "ok"},
        {"id": "u2", "timestamp": T(3), "type": "user", "content": "two"},
        {"$set": {"messages": [{"id": "u1", "type": "user", "content": "one"},
                               {"id": "g1", "type": "gemini", "content": "ok"}]}},
    ]))
    assert [e.text for e in s.events] == ["one", "ok", "two"] and "history_copies" not in s.quality.extra


def test_a_function_call_part_of_another_tool_is_no_call(tmp_path: Path) -> None:
    """Only activate_skill is added by the client as a functionCall part (useGeminiStream); a model
    turn copied into the chat from a history holds its calls as parts too: not read as calls."""
    s = read(write_lines(tmp_path / "session-p.jsonl", [
        HEAD, {"id": "m1", "timestamp": T(1), "type": "gemini", "content": [
            {"functionCall": {"name": "run_shell_command", "args": {"command": "ls"}}}]}]))
    assert s.events == []
    assert ledger(s)[2] == ("set_aside", "a model turn holding its calls as content parts (a turn copied from a "
                            "history), the calls not read", "gemini:functionCall")


def test_the_working_directory_is_the_project_root_the_marker_beside_chats_names(tmp_path: Path) -> None:
    """projectRegistry.ts writes `~/.gemini/tmp/<slug>/.project_root` (the project's root) since the
    project folders are named by the project; the chat's `projectHash` is sha256 of that root
    (getProjectHash). The root is the working directory only when the two agree."""
    import hashlib

    root = "/home/u/my proj"
    for folder, marker, project_hash, cwd in (
            ("a", root + "\n", hashlib.sha256(root.encode()).hexdigest(), root),
            ("b", "/home/u/other", hashlib.sha256(root.encode()).hexdigest(), None),  # another project's
            ("c", None, hashlib.sha256(root.encode()).hexdigest(), None)):  # the older layout: no marker
        if marker is not None:
            (tmp_path / folder).mkdir()
            (tmp_path / folder / ".project_root").write_text(marker, "utf-8")
        p = write_lines(tmp_path / folder / "chats" / "session-p.jsonl", [
            {**HEAD, "projectHash": project_hash}, {"id": "u", "timestamp": T(1), "type": "user", "content": "hi"}])
        assert read(p).meta.cwd == cwd, folder


def test_a_turn_the_cli_sends_under_the_persons_earlier_words_is_its_note(tmp_path: Path) -> None:
    """client.ts sends loop-recovery feedback, "Please continue." and an AfterAgent hook's reason
    as turns with the first turn's displayContent (the chat records it): the CLI's words, not a
    second prompt. The same words typed again (the same content) stay the person's."""
    loop = ("System: Potential loop detected. Details: Repetitive patterns identified. Please take a step back "
            "and confirm you're making forward progress.")
    shown = [{"text": "fix the failing build"}]
    p = write_lines(tmp_path / "session-r.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "fix the failing build\n--- ctx"}],
         "displayContent": shown},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "trying"},
        {"id": "u2", "timestamp": T(3), "type": "user", "content": [{"text": loop}], "displayContent": shown},
        {"id": "u3", "timestamp": T(4), "type": "user", "content": [{"text": "Please continue."}],
         "displayContent": shown},
        {"id": "u4", "timestamp": T(5), "type": "user", "content": [{"text": "fix the failing build\n--- ctx"}],
         "displayContent": shown},  # typed again
    ])
    s = read(p)
    assert [(e.kind, e.text) for e in s.events] == [
        ("user", "fix the failing build"), ("agent_text", "trying"), ("note", loop), ("note", "Please continue."),
        ("user", "fix the failing build")]
    assert [e.info.subtype for e in s.events if e.kind == "note"] == ["cli_resent", "cli_resent"]  # type: ignore[union-attr]
    assert ledger(s)[4][0] == ledger(s)[5][0] == "set_aside"
    # the feedback sent after a tool turn carries that turn's responses as displayContent: no words
    # of the person's, and the feedback is still the CLI's
    responses = [{"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a"}}}]
    p2 = write_lines(tmp_path / "session-r2.jsonl", [
        HEAD, {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": loop}],
               "displayContent": responses}])
    assert [(e.kind, e.text) for e in read(p2).events] == [("note", loop)]


def test_a_session_imported_with_session_file_sets_the_copied_history_aside(tmp_path: Path) -> None:
    """`gemini --session-file X` (gemini.tsx) writes a new chat: the header, an info message
    "Imported session from X" at the import's time, the old session's messages with their own
    earlier times, then this session's. The copies are that session's work: set aside, said."""
    import_at = "2026-08-20T11:00:00.000Z"
    p = write_lines(tmp_path / "chats" / "session-1755687600000-77777777.jsonl", [
        {**HEAD, "startTime": import_at, "lastUpdated": import_at},
        {"id": "import-1755687600000", "type": "info", "content": "Imported session from ci.json",
         "timestamp": import_at},
        {"id": "u5", "timestamp": "2026-08-01T09:31:00.000Z", "type": "user", "content": [{"text": "run pytest"}]},
        {"id": "g5", "timestamp": "2026-08-01T09:31:20.000Z", "type": "gemini", "content": "1 test fails."},
        {"id": "n1", "timestamp": "2026-08-20T11:01:00.000Z", "type": "user", "content": [{"text": "fix test_x"}]},
        {"id": "n2", "timestamp": "2026-08-20T11:01:30.000Z", "type": "gemini", "content": "Fixed."},
    ])
    s = read(p)
    assert [(e.kind, e.text) for e in s.events if e.kind != "note"] == [("user", "fix test_x"),
                                                                        ("agent_text", "Fixed.")]
    assert ledger(s)[3][0] == ledger(s)[4][0] == "set_aside"
    assert s.meta.extra["imported_from"] == "ci.json"
    assert [w.code for w in s.warnings] == ["imported-session"]
    # an info message saying so anywhere else, or a first info of other words, sets nothing aside
    p2 = write_lines(tmp_path / "b" / "chats" / "session-b.jsonl", [
        HEAD, {"id": "i", "type": "info", "content": "Request cancelled.", "timestamp": T(5)},
        {"id": "u", "timestamp": T(1), "type": "user", "content": [{"text": "hi"}]}])
    assert [e.text for e in read(p2).events if e.kind == "user"] == ["hi"]
