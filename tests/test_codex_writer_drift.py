"""Codex rollouts as the newest stored writer writes them: lines built by hand from
openai/codex codex-rs/protocol/src/models.rs at commit 5ef96ab2785f3ecddf279639eff7b1b42c906fa4
(`ResponseItem`: `encrypted_content` and `status` on messages, `encrypted_content` on the calls,
`name` / `namespace` on `function_call_output`, `namespace` on `custom_tool_call`, the
`configuration_update` item, an agent message's `encrypted_content` parts) and
codex-rs/protocol/src/models/item_metadata_tests.rs at the same commit. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

from test_codex_build_promises import item, msg, read, user


def _lines(s: object) -> dict[int | None, tuple[str, str]]:
    return {s.evidence[k].line: (m.heading, m.name) for k, m in s.ledger.items()}  # type: ignore[attr-defined]


def test_the_newest_item_fields_are_the_writers_not_drift(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("hi"),
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "ok"}], status="completed",
             encrypted_content="gAAA"),
        item(type="function_call", name="exec_command", arguments='{"cmd":"ls"}', call_id="c1",
             encrypted_content="e", status="completed"),
        item(type="function_call_output", call_id="c1", name="exec_command", namespace="ns", output="a\n"),
        item(type="custom_tool_call", call_id="c2", name="apply_patch", namespace="ns", input="*** Begin Patch",
             encrypted_content="e"),
        item(type="custom_tool_call_output", call_id="c2", output="Success."),
        item(type="local_shell_call", call_id="c3", status="completed", encrypted_content="e",
             action={"type": "exec", "command": ["ls"]}),
        item(type="web_search_call", status="completed", encrypted_content="e", action={"type": "search"}),
        item(type="tool_search_call", call_id="c4", execution="server", arguments={}, encrypted_content="e"),
        item(type="image_generation_call", status="completed", result="", encrypted_content="e"),
    ])
    assert "unknown_fields" not in s.quality.extra and "unknown_fields" not in s.meta.extra
    assert [w.code for w in s.warnings if w.code == "unknown_fields"] == []


def test_a_configuration_update_is_metadata_not_an_unknown_record(tmp_path: Path) -> None:
    """ResponseItem::ConfigurationUpdate {reasoning}: a durable input control interpreted by the
    backend at its place in the history: kept as written in agent_config, marked metadata."""
    s = read(tmp_path, [*user("hi"), item(type="configuration_update", reasoning={"effort": "high"}),
                        item(type="configuration_update", reasoning={"effort": "low", "summary": "auto"})])
    assert s.meta.extra["configuration_updates"] == [{"effort": "high"}, {"effort": "low", "summary": "auto"}]
    assert s.quality.unknown_records == 0 and [w for w in s.warnings if w.code.startswith("unknown")] == []
    assert _lines(s)[4] == ("metadata", "a configuration update sent to the model (agent_config.configuration_updates)")
    assert _lines(s)[5] == _lines(s)[4]


def test_an_encrypted_assistant_message_is_set_aside_as_encrypted_and_its_mirror_read(tmp_path: Path) -> None:
    """A message item whose content the model sent encrypted (`encrypted_content`, no text) holds
    nothing readable; the event_msg agent_message the recorder wrote with it is then the agent's text."""
    sealed = item(type="message", role="assistant", content=[], encrypted_content="gAAA", status="completed")
    s = read(tmp_path, [*user("hi"), sealed, msg(type="agent_message", message="visible answer")])
    assert [(e.kind, e.text, s.evidence[e.refs[0].ev].line) for e in s.events] == [
        ("user", "hi", 2), ("agent_text", "visible answer", 5)]
    assert _lines(s)[4] == ("set_aside", "an encrypted message: only the words the thread shows elsewhere are readable")


def test_a_custom_tool_calls_namespace_is_kept(tmp_path: Path) -> None:
    """CustomToolCall gained `namespace` (models.rs at 5ef96ab), as FunctionCall has: kept on the call."""
    s = read(tmp_path, [*user("hi"), item(type="custom_tool_call", call_id="c1", name="apply_patch", namespace="ns",
                                           input="*** Begin Patch")])
    [call] = [e for e in s.events if e.kind == "tool_call"]
    assert (call.tool, call.info.namespace if call.info else None) == ("apply_patch", "ns")
