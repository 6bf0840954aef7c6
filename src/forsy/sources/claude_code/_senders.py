"""Who sent a Claude Code record's words, when it was not the person at the prompt: another
sender's envelope, a non-human `origin`, Claude Code itself (`promptSource` "system"), a queued
prompt's sender, a fork's copied history, the program driving a print-mode run that stopped it.
(`_events` and `_graph` apply these; the rules they serve are in `_events`' docstring.)"""

from __future__ import annotations

import re
from typing import Any

# Envelopes Claude Code puts around words someone other than the person sent, each a note of
# its own subtype: an agent-team teammate's message, an MCP channel's event (2.1.80+), another
# session's message, another agent's (SendMessage), a proactive-mode wake-up.
SENDER_TAGS = re.compile(r"<(?P<tag>teammate-message|cross-session-message|agent-message)[\s>]|"
                         r"<(?P<ch>channel)\s+source=|<(?P<tick>tick)>")
# `origin.kind` of a user record (2.1.1xx+) whose words are still read by the text rules: the
# person's, a cancellation marker, or not attributed; any other kind is a sender other than the person
_PERSON_ORIGINS = ("human", "interruption", "unclassified")


def sender_tag(text: str) -> str | None:
    """The envelope `text` starts with when another sender's words were delivered as a user
    message (teammate-message, channel, cross-session-message, tick), else None."""
    m = SENDER_TAGS.match(text.lstrip())
    return None if m is None else next(g for g in m.groups() if g)


def other_sender(d: dict[str, Any]) -> str | None:
    """The `origin.kind` of a record sent by someone other than the person (a scheduled task's
    fired prompt, a channel, a peer session, a coordinator), else None."""
    origin = d.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return kind if isinstance(kind, str) and kind not in _PERSON_ORIGINS else None


# `promptSource` of a user record (2.1.165+, as public readers of such transcripts quote it): who put
# the prompt in. "system" is Claude Code's own prompt, with no `origin` or isMeta to say so: a
# /goal check-in on background work (2.1.234+), "N background agents were stopped by the user", a
# scheduled or resumed turn's prompt, a task notification. The others ("typed", "queued" while the
# agent worked, "sdk" from the program driving Claude Code) leave the words to the text rules.
CLAUDE_CODE_PROMPT = "system"


def claude_code_prompt(d: dict[str, Any]) -> bool:
    """Whether a user record's words are a prompt Claude Code wrote itself (`promptSource` "system")."""
    return d.get("promptSource") == CLAUDE_CODE_PROMPT


# Until 2.1.236 Claude Code in print/SDK mode (`entrypoint` sdk-cli for `claude -p`, sdk-ts, sdk-py)
# wrote an interrupted turn and synthetic tool denials when the process got SIGTERM (CHANGELOG
# 2.1.236), as when the program driving it interrupted: no one at a prompt stopped such a turn
SIGTERM_SILENT_FROM = (2, 1, 236)
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def version_of(v: Any) -> tuple[int, int, int] | None:
    """A record's `version` ("2.1.235") as numbers, or None when it names none."""
    m = _VERSION.match(v) if isinstance(v, str) else None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def unattended_interrupt(d: dict[str, Any]) -> str | None:
    """The entrypoint of a print/SDK-mode record of a version that wrote an interrupted turn on
    SIGTERM too (its interrupt marker says nothing of who stopped the turn), else None."""
    entry, version = d.get("entrypoint"), version_of(d.get("version"))
    if isinstance(entry, str) and entry.startswith("sdk-") and version is not None and version < SIGTERM_SILENT_FROM:
        return entry
    return None


def queued_by_person(d: dict[str, Any]) -> bool:
    """Whether an attachment record is a prompt the person typed while the agent worked: a
    `queued_command` of `commandMode` "prompt" and `origin.kind` "human", neither it nor its record
    isMeta. One without a mode is a coordinator's or peer's message to a helper agent, and one
    without an origin is not attributed to the person (as readers checked against real logs say)."""
    att = d.get("attachment")
    if not isinstance(att, dict) or att.get("type") != "queued_command":
        return False
    origin = att.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return att.get("commandMode") == "prompt" and kind == "human" and not att.get("isMeta") and not d.get("isMeta")


def forked_copy(d: dict[str, Any]) -> str | None:
    """The session a record was copied from when this session was forked from it (`forkedFrom`
    on each copied record): that record is the parent's work. None for the session's own."""
    fk = d.get("forkedFrom")
    sid = fk.get("sessionId") if isinstance(fk, dict) else None
    return sid if isinstance(sid, str) and sid else None
