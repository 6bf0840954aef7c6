"""`_senders`' answers on the edges of what Claude Code writes, each input built by hand.

* A sender's envelope (`<teammate-message …>`, `<channel source=…>`, `<cross-session-message …>`,
  `<tick>`) is named even when the delivered text starts with a newline or spaces: Claude Code
  writes the envelope as the message's text, and a reader that does not strip the leading
  whitespace would read a teammate's words as the person's.
* Only an `attachment` of type `queued_command` can be a prompt the person queued: another
  attachment (an `edited_text_file`, a `todo_reminder`) or a record with no attachment is not,
  whatever `commandMode` / `origin` it carries.
* `forkedFrom.sessionId` names the parent only when it is a non-empty string: an empty or
  non-string id names no session (the record stays the session's own).
"""

from __future__ import annotations

from forsy.sources.claude_code._senders import forked_copy, queued_by_person, sender_tag


def test_an_envelope_after_leading_whitespace_is_still_named() -> None:
    assert sender_tag('\n  <teammate-message teammate_id="a">hi</teammate-message>') == "teammate-message"
    assert sender_tag('\t<channel source="slack">x</channel>') == "channel"
    assert sender_tag("plain words <tick>") is None


def test_only_a_queued_command_attachment_is_a_queued_prompt() -> None:
    person = {"commandMode": "prompt", "origin": {"kind": "human"}}
    assert queued_by_person({"attachment": {"type": "queued_command", **person}}) is True
    assert queued_by_person({"attachment": {"type": "edited_text_file", **person}}) is False
    assert queued_by_person({"type": "user", "message": {"role": "user", "content": "hi"}}) is False
    assert queued_by_person({"attachment": "queued_command"}) is False


def test_a_fork_names_its_parent_only_with_a_non_empty_string_id() -> None:
    assert forked_copy({"forkedFrom": {"sessionId": "0b1c", "messageUuid": "u1"}}) == "0b1c"
    assert forked_copy({"forkedFrom": {"sessionId": ""}}) is None
    assert forked_copy({"forkedFrom": {"sessionId": 7}}) is None
    assert forked_copy({"forkedFrom": "0b1c"}) is None
