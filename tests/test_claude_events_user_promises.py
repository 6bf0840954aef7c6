"""A Claude Code user record's text read rule by rule, every field of the event it makes.

Plain words are the person's `user` event, copied verbatim; a slash command's wrapper is the
`user` event "/name args" (rule slash-command), `!cmd` in a bash-input wrapper is "!cmd" (rule
bash-input); an interrupt is an `interrupt` of the user; an old "being continued" summary or an
isCompactSummary line is a `compaction`; a hook's output is a note of `system:hook` naming the
hook and whom it intervened with; isMeta lines, wrappers nobody typed, empty text and the Warmup
probe are notes of `system`. Inside a subagent's thread the "user" is the parent agent: its text
is a note of the subagent. Images and documents sent with words are counted on the words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import marks, session_of, views, warnings
from _small_logs import _rec, answer, call, user
from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources.claude_code._events import classify_user_text

TS0, TS1 = "2026-01-01T10:00:00.000Z", "2026-01-01T10:00:01.000Z"


def _text(tmp_path: Path, text: Any, **fields: Any) -> list[dict[str, Any]]:
    s = session_of(tmp_path, [{**user(0, "u1", None, text), **fields}])
    assert warnings(s) == []
    return views(s)


def _ev(kind: str, actor: str, text: Any, ptr: str = "/message/content", **more: Any) -> dict[str, Any]:
    out = {"kind": kind, "actor": actor, "ts": TS0, "refs": [(1, ptr)], **more, "ts_ref": (1, "/timestamp")}
    if text is not None:
        out["text"] = text
    return out


INJECTED = NoteInfo(subtype="injected")


def test_plain_words_are_the_persons_verbatim(tmp_path: Path) -> None:
    assert _text(tmp_path, "  Fix the <b>bug</b>.\n") == [_ev("user", "user", "  Fix the <b>bug</b>.\n")]


@pytest.mark.parametrize(("text", "derived"), [
    ("<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n"
     "<command-args>pr 5</command-args>", "/review pr 5"),
    ("<command-name>  /clear \n</command-name>\n<command-message>clear</command-message>\n"
     "<command-args></command-args>", "/clear"),
    ("<command-name>/model</command-name><command-args>  opus \n</command-args>", "/model opus"),
    ("  <command-name>/cost</command-name>", "/cost"),
])
def test_a_slash_command_is_the_line_the_person_typed(tmp_path: Path, text: str, derived: str) -> None:
    assert _text(tmp_path, text) == [_ev("user", "user", derived, info=MessageInfo(rule="slash-command"))]


def test_a_command_name_inside_typed_words_is_no_command(tmp_path: Path) -> None:
    text = "Why does <command-name>/x</command-name> fail?"
    assert _text(tmp_path, text) == [_ev("user", "user", text)]


def test_a_command_message_without_a_name_is_injected(tmp_path: Path) -> None:
    text = "<command-message>init is analyzing…</command-message>"
    assert _text(tmp_path, text) == [_ev("note", "system", text, info=INJECTED)]


@pytest.mark.parametrize(("text", "derived"), [
    ("<bash-input>ls -la</bash-input>", "!ls -la"),
    ("\n <bash-input> git status\n</bash-input> \n", "! git status\n"),
])
def test_a_bash_input_is_the_bang_line(tmp_path: Path, text: str, derived: str) -> None:
    assert _text(tmp_path, text) == [_ev("user", "user", derived, info=MessageInfo(rule="bash-input"))]


def test_a_bash_input_followed_by_words_is_typed(tmp_path: Path) -> None:
    text = "<bash-input>ls</bash-input> then fix it"
    assert _text(tmp_path, text) == [_ev("user", "user", text)]


@pytest.mark.parametrize("text", ["[Request interrupted by user]", "  [Request interrupted by user for tool use]"])
def test_an_interrupt_is_the_users(tmp_path: Path, text: str) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, text)])
    assert views(s) == [_ev("interrupt", "user", text)]
    assert marks(s)[1] == ("metadata", "interrupt (termination_reason)", None)


def test_an_old_continuation_summary_is_a_compaction(tmp_path: Path) -> None:
    text = " This session is being continued from a previous conversation that ran out of context. Summary: x"
    assert _text(tmp_path, text) == [_ev("compaction", "system", text)]


def test_a_compact_summary_line_is_a_compaction_of_its_text(tmp_path: Path) -> None:
    assert _text(tmp_path, "Summary: we fixed it.", isCompactSummary=True) == [
        _ev("compaction", "system", "Summary: we fixed it.")]
    assert _text(tmp_path, [{"type": "text", "text": "Sum."}, {"type": "text", "text": "More."}],
                 isCompactSummary=True) == [_ev("compaction", "system", "Sum.\nMore.", "/message/content/0/text")]


@pytest.mark.parametrize("prefix", [
    "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "<system-reminder>",
    "<task-notification>", "<bash-stdout>", "<bash-stderr>", "<user-memory-input>", "Caveat: ",
    "<command-message>", "<session-start-hook>", "<ide_opened_file>",
])
def test_text_nobody_typed_is_an_injected_note(tmp_path: Path, prefix: str) -> None:
    text = f"\n{prefix}something</x>"
    assert _text(tmp_path, text) == [_ev("note", "system", text, info=INJECTED)]


@pytest.mark.parametrize("text", ["", " \n ", "Warmup", "  Warmup"])
def test_empty_text_and_the_warmup_probe_are_injected_notes(tmp_path: Path, text: str) -> None:
    assert _text(tmp_path, text) == [_ev("note", "system", text, info=INJECTED)]


def test_warmup_inside_words_is_typed(tmp_path: Path) -> None:
    assert _text(tmp_path, "Warmup the cache") == [_ev("user", "user", "Warmup the cache")]


def test_an_is_meta_line_is_a_meta_note_whatever_its_words(tmp_path: Path) -> None:
    for text in ("Fix it.", "<command-name>/x</command-name>", "[Request interrupted by user]"):
        assert _text(tmp_path, text, isMeta=True) == [_ev("note", "system", text, info=NoteInfo(subtype="meta"))]


def _hook(name: str, target: str = "agent") -> NoteInfo:
    return NoteInfo(subtype="hook", hook=name, hook_target=target)


@pytest.mark.parametrize(("text", "meta", "hook"), [
    ("<user-prompt-submit-hook>Use tabs.</user-prompt-submit-hook>", False, "UserPromptSubmit"),
    ("  <post-tool-use-hook>lint ok</post-tool-use-hook>", False, "PostToolUse"),
    ("<system-reminder>\nPostToolUse:Edit hook additional context: ran ruff</system-reminder>", False,
     "PostToolUse"),
    ("<system-reminder>PreToolUse:Bash hook blocking error from command: no</system-reminder>", False, "PreToolUse"),
    ("Stop hook feedback:\n- run the tests", True, "Stop"),
    ("SubagentStop hook error: exit 2", True, "SubagentStop"),
    ("UserPromptSubmit hook additional context: x", True, "UserPromptSubmit"),
])
def test_a_hooks_output_is_a_note_of_the_hook(tmp_path: Path, text: str, meta: bool, hook: str) -> None:
    assert _text(tmp_path, text, isMeta=meta) == [_ev("note", "system:hook", text, info=_hook(hook))]


@pytest.mark.parametrize(("text", "meta", "expected"), [
    ("Stop hook feedback: I typed this", False, ("user", "user", None)),
    ("Stop hook feedbacks", True, ("note", "system", NoteInfo(subtype="meta"))),
    ("SessionStart hook additional context: x", True, ("note", "system", NoteInfo(subtype="meta"))),
    ("<system-reminder>SessionStart:startup hook additional context</system-reminder>", False,
     ("note", "system", INJECTED)),
    ("Stop:x hook feedback", True, ("note", "system:hook", _hook("Stop"))),
])
def test_hook_words_that_are_no_hooks_output(tmp_path: Path, text: str, meta: bool, expected: Any) -> None:
    kind, actor, info = expected
    more = {"info": info} if info is not None else {}
    assert _text(tmp_path, text, isMeta=meta) == [_ev(kind, actor, text, **more)]


def test_blocks_tool_results_come_first_then_the_words_with_the_images_counted(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u0", None, "Go."),
        call(1, "a1", "u0", "t1", "Bash", {"command": "ls"}),
        _rec(2, "user", [{"type": "text", "text": "Look:"}, {"type": "image", "source": {}},
                         {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"},
                         {"type": "text", "text": ""}, {"type": "document", "source": {}},
                         {"type": "text", "text": "and this."}], "u2", "a1"),
    ])
    assert [(e.kind, e.text, e.refs[0].pointer, e.info) for e in s.events[2:]] == [
        ("tool_result", "a.py", "/message/content/2/content", s.events[2].info),
        ("user", "Look:", "/message/content/0/text", MessageInfo(attachments_omitted=2)),
        ("user", "and this.", "/message/content/5/text", MessageInfo(attachments_omitted=2))]
    assert warnings(s) == []


def test_an_empty_text_block_is_no_attachment(tmp_path: Path) -> None:
    assert _text(tmp_path, [{"type": "text", "text": ""}, {"type": "text", "text": "Look."}]) == [
        _ev("user", "user", "Look.", "/message/content/1/text")]


def test_images_with_a_slash_command_keep_its_rule(tmp_path: Path) -> None:
    blocks = [{"type": "image", "source": {}}, {"type": "text", "text": "<bash-input>pwd</bash-input>"}]
    assert _text(tmp_path, blocks) == [_ev("user", "user", "!pwd", "/message/content/1/text",
                          info=MessageInfo(rule="bash-input", attachments_omitted=1))]


def test_images_with_notes_count_on_nothing(tmp_path: Path) -> None:
    # an image alone is the person's turn (tests/test_attachment_only_prompts.py)
    assert _text(tmp_path, [{"type": "image", "source": {}}, {"type": "text", "text": "<system-reminder>x"}]) == [
        _ev("note", "system", "<system-reminder>x", "/message/content/1/text", info=INJECTED)]


def test_words_without_images_carry_no_info(tmp_path: Path) -> None:
    assert _text(tmp_path, [{"type": "text", "text": "A."}, {"type": "text", "text": "B."}]) == [
        _ev("user", "user", "A.", "/message/content/0/text"), _ev("user", "user", "B.", "/message/content/1/text")]


def test_a_user_block_that_is_no_object_is_said_and_the_rest_read(tmp_path: Path) -> None:
    s = session_of(tmp_path, [_rec(0, "user", [None, {"type": "text", "text": "Go."}], "u1", None)])
    assert warnings(s) == [("unread-content", "message.content[0] is null, not a content block; not read",
                            "s.jsonl", 1)]
    assert views(s) == [_ev("user", "user", "Go.", "/message/content/1/text")]


def _side(r: dict[str, Any]) -> dict[str, Any]:
    return {**r, "isSidechain": True, "agentId": "ag1"}


def test_inside_a_subagent_the_user_text_is_a_note_of_the_subagent(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u1", None, "Look."),
        _side(user(1, "s1", None, "Read a.py.")),
        _side(answer(2, "s2", "s1", "a = 1")),
        _side(user(3, "s3", "s2", "[Request interrupted by user]")),
        _side(user(4, "s4", "s3", "<command-name>/x</command-name>")),
        _side({**user(5, "s5", "s4", "Stop hook feedback: more"), "isMeta": True}),
        _side({**user(6, "s6", "s5", "Note this."), "isMeta": True}),
    ])
    sub = [(e.kind, e.actor, e.text, e.info) for e in s.events if e.refs[0].ev != s.events[0].refs[0].ev]
    assert sub == [
        ("note", "subagent:ag1", "Read a.py.", NoteInfo(subtype="subagent_prompt")),
        ("agent_text", "subagent:ag1", "a = 1", None),
        ("note", "subagent:ag1", "[Request interrupted by user]", NoteInfo(subtype="interrupt")),
        ("note", "subagent:ag1", "<command-name>/x</command-name>", NoteInfo(subtype="subagent_prompt")),
        ("note", "system:hook", "Stop hook feedback: more", _hook("Stop", "subagent:ag1")),
        ("note", "system", "Note this.", NoteInfo(subtype="meta"))]
    assert [e.abandoned for e in s.events] == [False] * 7  # a subagent's thread is never rewound: False, not None
    assert [e.ts for e in s.events] == [TS0, TS1, "2026-01-01T10:00:02.000Z", "2026-01-01T10:00:03.000Z",
                                        "2026-01-01T10:00:04.000Z", "2026-01-01T10:00:05.000Z",
                                        "2026-01-01T10:00:06.000Z"]


def test_each_kind_of_text_on_a_rewound_branch_is_abandoned(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u0", None, "Start."),
        answer(1, "a0", "u0", "Ready."),
        user(2, "u1", "a0", "Go."),
        {**user(3, "m1", "u1", "Stop hook feedback: x"), "isMeta": True},
        {**user(4, "m2", "m1", "Remember this."), "isMeta": True},
        user(5, "m3", "m2", "[Request interrupted by user]"),
        user(6, "m4", "m3", "This session is being continued from a previous conversation. Summary."),
        user(7, "m5", "m4", "<system-reminder>x</system-reminder>"),
        user(8, "m6", "m5", "<bash-input>ls</bash-input>"),
        {**user(9, "m7", "m6", "Summary: x."), "isCompactSummary": True},
        user(10, "u2", "a0", "Again."),
    ])
    assert [(e.kind, e.actor, e.abandoned) for e in s.events] == [
        ("user", "user", False), ("agent_text", "agent", False), ("user", "user", True),
        ("note", "system:hook", True), ("note", "system", True), ("interrupt", "user", True),
        ("compaction", "system", True), ("note", "system", True), ("user", "user", True),
        ("compaction", "system", True), ("user", "user", False)]


@pytest.mark.parametrize(("text", "kind", "derived"), [
    ("Fix it.", "typed", None),
    ("<command-name>/x</command-name><command-args>a</command-args>", "slash-command", "/x a"),
    ("<bash-input>ls</bash-input>", "bash-input", "!ls"),
    ("[Request interrupted by user]", "interrupt", None),
    ("This session is being continued from a previous conversation.", "compaction", None),
    ("<system-reminder>x", "note", None),
    ("", "note", None),
    ("Warmup", "note", None),
])
def test_the_kinds_classify_user_text_names(text: str, kind: str, derived: str | None) -> None:
    assert classify_user_text(text) == (kind, derived)
