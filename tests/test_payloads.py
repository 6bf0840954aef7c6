"""Typed event payloads (forsy.payloads): the contract between sources and later stages."""

from __future__ import annotations

import dataclasses

from forsy.evidence import Event, Ref
from forsy.payloads import (
    PAYLOAD_FOR_KIND,
    CallInfo,
    CommitInfo,
    HistoryMatch,
    Link,
    Match,
    MessageInfo,
    NoteInfo,
    Persisted,
    ResultInfo,
    ShellInfo,
    redact_payload,
)

CLASSES = (MessageInfo, CallInfo, ResultInfo, NoteInfo, ShellInfo, CommitInfo, Link, Persisted)


def test_events_carry_typed_payloads_not_a_bag() -> None:
    names = {f.name for f in dataclasses.fields(Event)}
    assert "meta" not in names and {"info", "link"} <= names
    assert set(PAYLOAD_FOR_KIND.values()) == {MessageInfo, CallInfo, ResultInfo, NoteInfo, ShellInfo, CommitInfo}


def test_text_fields_name_real_fields() -> None:
    for cls in CLASSES:
        fields = {f.name for f in dataclasses.fields(cls)}
        assert set(cls.TEXT_FIELDS) <= fields, cls
        assert len(set(cls.TEXT_FIELDS)) == len(cls.TEXT_FIELDS), cls


def test_redaction_masks_declared_text_only() -> None:
    def mask(v: object) -> object:
        return f"<{v}>" if isinstance(v, str) else v

    ref = Ref("ev1", "/toolUseResult")
    info = ResultInfo(rich={"filePath": "/home/x"}, rich_ref=ref, raw="out", exit_code=2,
                      persisted=Persisted(ref=Ref("ev2", ""), text="secret", source="tool-results/a.txt"))
    redact_payload(info, lambda v: {"masked": v} if isinstance(v, dict) else mask(v))
    assert info.rich == {"masked": {"filePath": "/home/x"}} and info.raw == "<out>" and info.exit_code == 2
    assert info.rich_ref is ref  # evidence places are ids, not text
    assert info.persisted is not None and info.persisted.text == "<secret>"
    assert info.persisted.source == "tool-results/a.txt"
    shell = ShellInfo(shell="zsh", cwd="/home/ada/x", decoded="zsh: metafied bytes unmetafied")
    redact_payload(shell, mask)
    assert (shell.shell, shell.cwd, shell.decoded) == ("zsh", "</home/ada/x>", "zsh: metafied bytes unmetafied")


def test_timeline_copies_leave_the_input_payload_alone() -> None:
    call = CallInfo(raw_name="x")
    hist = HistoryMatch(exit_code=0, duration_s=1.0, record="ev", match=Match("command-text+time", 1.0, dt_s=0.5))
    copy = dataclasses.replace(call, shell_history=hist)
    assert call.shell_history is None and copy.shell_history is hist and copy.raw_name == "x"
