"""What newer Claude Code versions write that the reader once misread or lost, each record built by
hand from a public description of its shape (the source is named on each test).

* A prompt typed while the agent worked is written as an `attachment` of type `queued_command`
  (`commandMode` "prompt", `origin.kind` "human"), with no `user` line: it is the person's words.
* Text Claude Code delivers as a user message from someone other than the person — a teammate's
  `<teammate-message …>`, an MCP channel's `<channel source=…>` event, another session's
  `<cross-session-message …>`, a proactive `<tick>` — and a user record whose `origin.kind` names
  another sender are notes, never words the person typed.
* System notices newer versions write (`away_summary` recaps, `scheduled_task_fire` markers,
  `agents_killed`) are set aside by name, not left unknown (a refusal's records are failed model
  calls: tests/test_claude_code_refusals_advisor.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _env(n: int, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "version": "2.1.200",
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", **fields}


def _queued(n: int, uuid: str, parent: str, prompt: Any, **attachment: Any) -> dict[str, Any]:
    att = {"type": "queued_command", "commandMode": "prompt", "origin": {"kind": "human"}, "prompt": prompt,
           **attachment}
    return _env(n, uuid, parent, type="attachment", attachment=att)


def _line_of(s: Session, ev_id: str) -> int | None:
    return s.evidence[ev_id].line


def test_a_prompt_typed_while_the_agent_worked_is_the_persons_words(tmp_path: Path) -> None:
    """Third-party readers that track the writer (found in the public code index, e.g. one
    documenting '221 of 228 measured [queued prompts] had no `user` line', 2026-09-29): Claude Code
    writes `{"type":"attachment","attachment":{"type":"queued_command","commandMode":"prompt",
    "origin":{"kind":"human"},"prompt":"..."}}` and no user record. CHANGELOG: 'Fixed
    messages typed while Claude is working not being persisted to the transcript' (2.1.97). The reader set
    every attachment aside, so the words were lost."""
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the build."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "make"}),
        _queued(2, "q1", "a1", "also run the linter"),
        result(3, "r1", "q1", "t1", "ok"),
        _queued(4, "q2", "r1", [{"type": "text", "text": "and the type checker"}]),
        answer(5, "a2", "q2", "Done."),
    ]))
    said = [(e.kind, e.actor, e.text, _line_of(s, e.refs[0].ev), e.refs[0].pointer, e.ts)
            for e in s.events if e.kind == "user"]
    assert said == [
        ("user", "user", "Fix the build.", 1, "/message/content", "2026-01-01T10:00:00.000Z"),
        ("user", "user", "also run the linter", 3, "/attachment/prompt", "2026-01-01T10:00:02.000Z"),
        ("user", "user", "and the type checker", 5, "/attachment/prompt/0/text", "2026-01-01T10:00:04.000Z"),
    ]


def test_a_queued_command_nobody_typed_is_a_note_and_other_attachments_stay_set_aside(tmp_path: Path) -> None:
    """The same public readers (one checked against real transcripts, 2026-09-26): a queued
    command whose origin is not `human` (another session's message, `peer`) or is missing, one
    marked isMeta (itself or its record), one of commandMode `task-notification` (a background
    task's report folded into the turn) or of no mode (a coordinator's or peer's message to a helper
    agent) is not the person's; a queued prompt that starts with another sender's envelope
    (`<agent-message …>`) is that sender's; an attachment of another type (`deferred_tools_delta`)
    carries no words and stays set aside."""
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _queued(1, "q1", "u1", "from the other session", origin={"kind": "peer", "from": "s2"}),
        _queued(2, "q2", "q1", "<task-notification><status>completed</status></task-notification>",
                commandMode="task-notification", origin=None),
        _queued(3, "q3", "q2", "expanded skill text", isMeta=True),
        {**_queued(4, "q4", "q3", "skill body"), "isMeta": True},
        _queued(5, "q5", "q4", "no origin", origin=None),
        _queued(6, "q6", "q5", "no mode", commandMode=None),
        _queued(7, "q7", "q6", '<agent-message from="reviewer">\nLGTM\n</agent-message>'),
        _env(8, "d1", "q7", type="attachment", attachment={"type": "deferred_tools_delta", "addedNames": ["Read"]}),
        answer(9, "a1", "d1", "Ok."),
    ]))
    assert [e.text for e in s.events if e.kind == "user"] == ["Go."]
    notes = [(e.actor, e.text, e.info.subtype) for e in s.events if e.kind == "note" and isinstance(e.info, NoteInfo)]
    assert notes == [
        ("system", "from the other session", "queued_command"),
        ("system", "<task-notification><status>completed</status></task-notification>", "queued_command"),
        ("system", "expanded skill text", "queued_command"),
        ("system", "skill body", "queued_command"),
        ("system", "no origin", "queued_command"),
        ("system", "no mode", "queued_command"),
        ("system", '<agent-message from="reviewer">\nLGTM\n</agent-message>', "agent-message"),
    ]
    marks = {_line_of(s, k): (m.heading, m.name) for k, m in s.ledger.items()}
    assert marks[9] == ("set_aside", "attachment")
    assert marks[2] == ("set_aside", "notes are not steps")


def test_a_queued_slash_command_is_read_as_one(tmp_path: Path) -> None:
    """A slash command typed while the agent worked is queued with its command tags, as a typed
    one is written (public readers show `prompt: "<command-name>/id</command-name>\\n<command-args>
    reset</command-args>"`)."""
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _queued(1, "q1", "u1", "<command-name>/model</command-name>\n<command-args>opus</command-args>"),
        answer(2, "a1", "q1", "Ok."),
    ]))
    [_, q] = [e for e in s.events if e.kind == "user"]
    assert (q.text, q.info) == ("/model opus", MessageInfo(rule="slash-command"))


TEAMMATE = ('<teammate-message teammate_id="alice" color="blue" summary="done">\nTests pass.\n'
            "</teammate-message>")
CHANNEL = '<channel source="webhook" severity="high" run_id="1234">\nbuild failed on main\n</channel>'
PEER = '<cross-session-message from="s2">\nrebase done\n</cross-session-message>'


@pytest.mark.parametrize(("text", "subtype"), [
    # daaain/claude-code-log claude_code_log/factories/teammate_factory.py at c58ef389: agent-team
    # messages reach the lead as user entries holding `<teammate-message teammate_id=…>` blocks
    (TEAMMATE, "teammate-message"),
    # code.claude.com/docs/en/channels-reference (channels, 2.1.80+): an MCP channel's event reaches
    # the session wrapped in a `<channel source="…" …>` tag
    (CHANNEL, "channel"),
    # public readers listing Claude Code's envelopes written as user text: `<cross-session-message
    # from="…">` (another session's message) and `<tick>` (a proactive-mode wake-up)
    (PEER, "cross-session-message"),
    ("<tick>10:42:00 PM</tick>", "tick"),
])
def test_words_another_sender_delivered_are_a_note_not_the_persons(tmp_path: Path, text: str, subtype: str) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Start the team."),
        answer(1, "a1", "u1", "Started."),
        user(2, "u2", "a1", text),
        answer(3, "a2", "u2", "Noted."),
    ]))
    assert [e.text for e in s.events if e.kind == "user"] == ["Start the team."]
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.actor, note.text, note.info) == ("system", text, NoteInfo(subtype=subtype))


def test_a_person_may_type_the_tag_words_inside_a_sentence(tmp_path: Path) -> None:
    """Only a message that starts with the envelope is one: a person quoting it is typing."""
    text = "What does <channel source=x> mean in the log?"
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, text), answer(1, "a1", "u1", "It is…")]))
    assert [e.text for e in s.events if e.kind == "user"] == [text]


@pytest.mark.parametrize(("origin", "kind", "subtype"), [
    ({"kind": "task-notification", "subkind": "scheduled-trigger"}, "note", "origin:task-notification"),
    ({"kind": "channel", "server": "slack"}, "note", "origin:channel"),
    ({"kind": "peer", "from": "s2", "name": "api"}, "note", "origin:peer"),
    ({"kind": "coordinator"}, "note", "origin:coordinator"),
    ({"kind": "human"}, "user", None),
    ({"kind": "unclassified"}, "user", None),
    ({"kind": 7}, "user", None),
])
def test_a_user_record_whose_origin_names_another_sender_is_a_note(
        tmp_path: Path, origin: dict[str, Any], kind: str, subtype: str | None) -> None:
    """claude-agent-sdk-python src/claude_agent_sdk/types.py at e8bde60 (MessageOrigin): the
    provenance of a user-role message; kinds other than `human` are turns the session injected on
    its own (a scheduled task's fired prompt since 2.1.183: CHANGELOG 'scheduled task and webhook
    trigger deliveries … now classify as task notifications', a channel, a peer session, a
    coordinator). `unclassified` (not attributed) and a kind that is no text leave the words to the
    text rules."""
    rec = user(1, "u2", "a1", "check the deploy")
    rec["origin"] = origin
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Watch it."), answer(1, "a1", "u1", "Ok."), rec, answer(2, "a2", "u2", "Fine."),
    ]))
    [e] = [e for e in s.events if e.text == "check the deploy"]
    assert (e.kind, e.info.subtype if isinstance(e.info, NoteInfo) else None) == (kind, subtype)
    assert e.actor == ("user" if kind == "user" else "system")


@pytest.mark.parametrize(("subtype", "fields"), [
    # recaps (/recap, 2.1.108+); public readers model `{"subtype":"away_summary","content":…}`
    ("away_summary", {"content": "You were fixing the build. (disable recaps in /config)"}),
    # CHANGELOG 2.1.85: 'timestamp markers in transcripts when scheduled tasks (/loop, CronCreate) fire'
    ("scheduled_task_fire", {"content": "Claude resuming /loop wakeup (Apr 26 6:04pm)"}),
    ("agents_killed", {"content": "Background agents stopped."}),
])
def test_newer_system_notices_are_set_aside_by_name(tmp_path: Path, subtype: str, fields: dict[str, Any]) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _env(1, "s1", "u1", type="system", **{"subtype": subtype, "level": "info", **fields}),
        answer(2, "a1", "s1", "Ok."),
    ]))
    marks = {_line_of(s, k): (m.heading, m.name, m.subtype) for k, m in s.ledger.items()}
    assert marks[2] == ("set_aside", "system notices are not steps", subtype)
    assert [e.kind for e in s.events] == ["user", "agent_text"]


def test_a_prompt_queued_in_a_subagents_transcript_is_kept_as_the_persons_note(tmp_path: Path) -> None:
    """CHANGELOG 2.1.113: 'Fixed messages typed while viewing a running subagent being hidden from
    its transcript and misattributed to the parent AI'. In a subagent's file the queued prompt is
    kept as a note of actor `user` (the subagent's thread has no user turns of its own)."""
    main = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Review it."),
        call(1, "a1", "u1", "t1", "Agent", {"prompt": "Review the diff.", "subagent_type": "reviewer"}),
        result(5, "r1", "a1", "t1", "Looks fine."),
    ])
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    side = [{**r, "isSidechain": True, "agentId": "x1"} for r in (
        user(2, "b1", None, "Review the diff."),
        _queued(3, "b2", "b1", "check the tests too"),
        answer(4, "b3", "b2", "Reviewed."))]
    write(sub / "agent-x1.jsonl", side)
    s = _read(main)
    [q] = [e for e in s.events if e.text == "check the tests too"]
    assert (q.kind, q.actor, q.info) == ("note", "user", NoteInfo(subtype="queued_command"))
    assert q.link is not None and q.link.subagent == "x1"


def _spawned(tmp_path: Path, sub_prompt: str, meta: str | None) -> Session:
    """A session whose Agent call t2 has no result yet (a background agent still running: no
    toolUseResult.agentId) and whose subagent's first words are `sub_prompt`; a second call t1
    with the same prompt makes the prompt no unique key."""
    main = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Review it twice."),
        call(1, "a1", "u1", "t1", "Agent", {"prompt": "Review the diff.", "name": "alice"}),
        call(2, "a2", "a1", "t2", "Agent", {"prompt": "Review the diff.", "name": "bob"}),
    ])
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    write(sub / "agent-x1.jsonl", [{**r, "isSidechain": True, "agentId": "x1"} for r in (
        user(3, "b1", None, sub_prompt), answer(4, "b2", "b1", "Reviewed."))])
    if meta is not None:
        (sub / "agent-x1.meta.json").write_text(meta, "utf-8")
    return _read(main)


def test_a_subagent_is_linked_by_the_call_id_its_meta_file_names(tmp_path: Path) -> None:
    """claude-agent-sdk-python src/claude_agent_sdk/_internal/sessions.py at e8bde60
    (`_parent_ids_from_agent_metadata`): the `.meta.json` beside `agent-<id>.jsonl` records which
    Agent tool_use spawned the subagent (`toolUseId`) and, nested, its `parentAgentId`. It is an
    exact key when no result names the agent (a background agent still running) and the prompt is
    not unique; a toolUseId naming no call of the log links nothing."""
    s = _spawned(tmp_path, "Review the diff.", '{"agentType": "reviewer", "toolUseId": "t2"}')
    [link] = {(e.link.parent_call_id, e.link.link_rule) for e in s.events if e.link}
    assert link == ("t2", "meta.toolUseId")
    assert not [w for w in s.warnings if w.code == "unlinked-subagent"]
    (tmp_path / "other").mkdir()
    s = _spawned(tmp_path / "other", "Review the diff.", '{"agentType": "reviewer", "toolUseId": "t9"}')
    assert {(e.link.parent_call_id, e.link.link_rule) for e in s.events if e.link} == {(None, None)}
    assert [w.code for w in s.warnings if w.code == "unlinked-subagent"] == ["unlinked-subagent"]


def test_a_teammate_is_linked_by_the_team_leads_words_its_transcript_starts_with(tmp_path: Path) -> None:
    """daaain/claude-code-log claude_code_log/factories/teammate_factory.py at c58ef389
    (`find_team_lead_body`): a teammate's transcript starts with the spawning prompt wrapped in
    `<teammate-message teammate_id="team-lead" …>`; its body is the Agent call's prompt. Unique
    among the calls' prompts, it links the thread as an identical prompt does."""
    main = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Build a team."),
        call(1, "a1", "u1", "t1", "Agent", {"prompt": "Write the tests.", "name": "alice"}),
        call(2, "a2", "a1", "t2", "Agent", {"prompt": "Write the docs.", "name": "bob"}),
    ])
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    wrapped = '<teammate-message teammate_id="team-lead" summary="docs">\nWrite the docs.\n</teammate-message>'
    write(sub / "agent-x1.jsonl", [{**r, "isSidechain": True, "agentId": "x1"} for r in (
        user(3, "b1", None, wrapped), answer(4, "b2", "b1", "Written."))])
    s = _read(main)
    assert {(e.link.parent_call_id, e.link.link_rule) for e in s.events if e.link} == {("t2", "identical-prompt")}
    _spawned_other = '<teammate-message teammate_id="alice">\nWrite the docs.\n</teammate-message>'
    write(sub / "agent-x1.jsonl", [{**r, "isSidechain": True, "agentId": "x1"} for r in (
        user(3, "b1", None, _spawned_other), answer(4, "b2", "b1", "Written."))])
    s = _read(main)  # only the team lead's words are the spawning prompt
    assert {(e.link.parent_call_id, e.link.link_rule) for e in s.events if e.link} == {(None, None)}


def test_a_queued_prompt_on_a_rewound_branch_is_abandoned_with_it(tmp_path: Path) -> None:
    """A prompt the person queued is typed words: on a branch the person rewound away from (as a
    typed message there is) it is marked abandoned, whether below an abandoned record or the first
    off the chain; a channel's words (origin `channel`) off the chain are no typed words."""
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
        result(2, "r1", "a1", "t1", "1 failed"),
        _queued(3, "q1", "r1", "try stashing first"),
        call(4, "a2", "q1", "t2", "Bash", {"command": "git stash"}),
        _queued(5, "q2", "a2", "then pop it"),
        result(6, "r2", "q2", "t2", "Saved working directory"),
        {**user(7, "c1", "r1", "deploy finished"), "origin": {"kind": "channel", "server": "ci"}},
        user(8, "u3", "r1", "Do not stash; fix the test."),
        answer(9, "a3", "u3", "Fixed."),
    ]))
    assert [(e.kind, e.text, e.abandoned) for e in s.events if e.kind in ("user", "note")] == [
        ("user", "Fix the bug.", False), ("user", "try stashing first", True), ("user", "then pop it", True),
        ("note", "deploy finished", False), ("user", "Do not stash; fix the test.", False)]


def test_a_forked_sessions_copy_of_its_parents_history_is_set_aside(tmp_path: Path) -> None:
    """claude-agent-sdk-python src/claude_agent_sdk/_internal/session_mutations.py at e8bde60
    (`_build_fork_lines`, as `/branch` and `--fork-session` do: CHANGELOG 2.1.218 'fork-session
    lineage'): a fork starts with the parent's records copied under new uuids, each carrying
    `forkedFrom: {sessionId, messageUuid}`. That is the parent's work, retraced with the parent:
    set aside as a fork's copy, the parent named in the metadata; the fork's own work follows."""
    def copied(rec: dict[str, Any], n: int) -> dict[str, Any]:
        return {**rec, "forkedFrom": {"sessionId": "parent-1", "messageUuid": f"m{n}"}}
    s = _read(write(tmp_path / "s.jsonl", [
        copied(user(0, "u1", None, "Fix the bug."), 1),
        copied(call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}), 2),
        copied(result(2, "r1", "a1", "t1", "1 failed"), 3),
        user(3, "u2", "r1", "Try another way."),
        answer(4, "a2", "u2", "Done another way."),
    ]))
    assert [(e.kind, e.text) for e in s.events] == [("user", "Try another way."), ("agent_text", "Done another way.")]
    marks = {_line_of(s, k): (m.heading, m.name) for k, m in s.ledger.items()}
    assert [marks[n] for n in (1, 2, 3)] == [("set_aside", "a fork's copy of its parent's history")] * 3
    assert s.meta.extra["forked_from"] == "parent-1"
    assert s.quality.extra["forked_copies"] == 3
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("forked-session", "3 records are the history of session parent-1 this session was forked from, copied: "
         "set aside (they are that session's work)", "s.jsonl")]


def test_the_prompt_a_scheduled_task_fires_is_no_words_typed_then(tmp_path: Path) -> None:
    """CHANGELOG 2.1.85 (markers when `/loop` or CronCreate tasks fire); public readers of those
    logs: the fired prompt is a plain `user` record chained (parentUuid) to the
    `scheduled_task_fire` record, nothing in its text says a timer sent it (before 2.1.183, which
    gives it a task-notification origin). It is a note; a prompt typed after another notice is not."""
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "<command-name>/loop</command-name><command-args>5m check the deploy</command-args>"),
        answer(1, "a1", "u1", "Scheduled."),
        _env(2, "f1", "a1", type="system", subtype="scheduled_task_fire", content="Claude resuming /loop wakeup"),
        user(3, "u2", "f1", "check the deploy"),
        answer(4, "a2", "u2", "Deploy is green."),
        _env(5, "i1", "a2", type="system", subtype="informational", content="Hooks ran."),
        user(6, "u3", "i1", "Stop the loop."),
        answer(7, "a3", "u3", "Stopped."),
    ]))
    assert [(e.kind, e.actor, e.text) for e in s.events if e.kind in ("user", "note")] == [
        ("user", "user", "/loop 5m check the deploy"), ("note", "system", "check the deploy"),
        ("user", "user", "Stop the loop.")]
    [note] = [e for e in s.events if e.kind == "note"]
    assert note.info == NoteInfo(subtype="scheduled-prompt")


def test_a_side_question_file_is_claude_codes_helper_not_a_subagent(tmp_path: Path) -> None:
    """`/btw` side questions (CHANGELOG 2.1.101: 'Fixed /btw writing a copy of the entire
    conversation to disk on every use') are written as `subagents/agent-aside_question-<hex>.jsonl`,
    listed with `acompact-` and `aprompt_suggestion-` as Claude Code's internal agent files by public
    readers of the format. No call spawned it and it repeats the conversation: it is counted as a
    helper, not read as a subagent's work."""
    main = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), answer(1, "a1", "u1", "Fixed.")])
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    write(sub / "agent-aside_question-3f2a1b.jsonl", [{**r, "isSidechain": True} for r in (
        user(0, "b1", None, "Fix it."), answer(1, "b2", "b1", "Fixed."),
        user(2, "b3", "b2", "what does the retry flag do?"), answer(3, "b4", "b3", "It retries."))])
    s = _read(main)
    assert [(e.kind, e.actor, e.text) for e in s.events] == [("user", "user", "Fix it."),
                                                               ("agent_text", "agent", "Fixed.")]
    assert s.quality.extra["helper_agents"] == 1
    assert not [w for w in s.warnings if w.code == "unlinked-subagent"]


def test_context_a_hook_added_written_as_an_attachment_is_the_hooks_intervention(tmp_path: Path) -> None:
    """Newer versions write the context a hook gave the model as an attachment
    `{"type":"hook_additional_context","hookName":…,"hookEvent":"PostToolUse","content":[text…]}`
    (public readers checked against real transcripts: 'a real transcript instead stores injected
    hook context as {"attachment": {"type": "hook_additional_context", "content": [...]}}'), no
    longer as a `<system-reminder>` user line. It is the hook's note (actor system:hook, the hook
    event named), one per text, as that line is; a SessionStart hook's context stays a note."""
    def hook(n: int, uuid: str, parent: str, event: str, content: Any) -> dict[str, Any]:
        return _env(n, uuid, parent, type="attachment", attachment={
            "type": "hook_additional_context", "hookName": f"{event}:Edit", "hookEvent": event, "content": content})
    s = _read(write(tmp_path / "s.jsonl", [
        hook(0, "h0", "x", "SessionStart", ["Project uses uv."]),
        user(1, "u1", "h0", "Fix it."),
        call(2, "a1", "u1", "t1", "Edit", {"file_path": "a.py"}),
        result(3, "r1", "a1", "t1", "ok"),
        hook(4, "h1", "r1", "PostToolUse", ["Lint: 2 warnings.", "Run the tests."]),
        answer(5, "a2", "h1", "Done."),
    ]))
    notes = [(e.actor, e.text, e.refs[0].pointer, e.info) for e in s.events if e.kind == "note"]
    assert notes == [
        ("system", "Project uses uv.", "/attachment/content/0", NoteInfo(subtype="injected")),
        ("system:hook", "Lint: 2 warnings.", "/attachment/content/0",
         NoteInfo(subtype="hook", hook="PostToolUse", hook_target="agent")),
        ("system:hook", "Run the tests.", "/attachment/content/1",
         NoteInfo(subtype="hook", hook="PostToolUse", hook_target="agent")),
    ]


def test_a_hooks_blocking_error_written_as_an_attachment_is_the_hooks_intervention(tmp_path: Path) -> None:
    """A hook that blocks is written as an attachment `{"type":"hook_blocking_error","hookName":
    "PreToolUse:Bash","hookEvent":"PreToolUse","toolUseID":…,"blockingError":{"blockingError":
    reason,"command":…}}` (public readers: 'blockingError.blockingError carries the reason text …
    Hook blocked the tool before it ran'). Its reason is the hook's note, as the `PreToolUse:Bash hook
    blocking error` line that carried it before is; one whose reason is no text is warned about."""
    def block(n: int, uuid: str, parent: str, reason: Any) -> dict[str, Any]:
        return _env(n, uuid, parent, type="attachment", attachment={
            "type": "hook_blocking_error", "hookName": "PreToolUse:Bash", "hookEvent": "PreToolUse",
            "toolUseID": "t1", "blockingError": {"blockingError": reason, "command": "guard.sh"}})
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Clean up."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "rm -rf build"}),
        block(2, "h1", "a1", "rm -rf is not allowed here."),
        result(3, "r1", "h1", "t1", "PreToolUse:Bash hook error: rm -rf is not allowed here.", err=True),
        block(4, "h2", "r1", ["not text"]),
        answer(5, "a2", "h2", "I will not delete it."),
    ]))
    notes = [(e.actor, e.text, e.refs[0].pointer, e.info) for e in s.events if e.kind == "note"]
    assert notes == [("system:hook", "rm -rf is not allowed here.", "/attachment/blockingError/blockingError",
                      NoteInfo(subtype="hook", hook="PreToolUse", hook_target="agent"))]
    assert [(w.code, w.line) for w in s.warnings if w.code == "unread-content"] == [("unread-content", 5)]
