"""Fields of the response items a newer Codex writes that this reader's table does not name
(in the payload, and in the envelope's `metadata` beside it).

The table is the writer's (codex-rs/protocol/src/models.rs, `ResponseItem`, serialised with
`type` as the tag). A field outside it is not an error: it is counted, so a new version's
shapes show up as numbers (`quality.extra["unknown_fields"]`, and by name in the session's
`unknown_fields` fact) before they become losses.
"""

from __future__ import annotations

from collections import Counter

from ...evidence import Session
from ._read import LoadedFile

COMMON = frozenset({"type", "id", "internal_chat_message_metadata_passthrough"})
ITEM_FIELDS: dict[str, frozenset[str]] = {
    "message": frozenset({"role", "content", "phase", "end_turn", "encrypted_content", "status"}),
    "reasoning": frozenset({"summary", "content", "encrypted_content"}),
    "function_call": frozenset({"name", "namespace", "arguments", "call_id", "encrypted_function_args", "status",
                               "encrypted_content"}),
    "function_call_output": frozenset({"call_id", "output", "name", "namespace"}),
    "custom_tool_call": frozenset({"status", "call_id", "name", "namespace", "input", "encrypted_content"}),
    "custom_tool_call_output": frozenset({"call_id", "output", "name"}),
    "local_shell_call": frozenset({"call_id", "status", "action", "encrypted_content"}),
    "web_search_call": frozenset({"status", "action", "encrypted_content"}),
    "tool_search_call": frozenset({"call_id", "status", "execution", "arguments", "encrypted_content"}),
    "tool_search_output": frozenset({"call_id", "status", "execution", "tools"}),
    "image_generation_call": frozenset({"status", "revised_prompt", "result", "encrypted_content"}),
    "agent_message": frozenset({"author", "recipient", "content"}),
    "additional_tools": frozenset({"role", "tools"}),
    "configuration_update": frozenset({"reasoning"}),
    "ghost_snapshot": frozenset({"ghost_commit"}),
    "compaction": frozenset({"encrypted_content"}),
    "context_compaction": frozenset({"encrypted_content"}),
    "compaction_summary": frozenset({"encrypted_content"}),
}


# the envelope's `metadata` beside a response item (CodexHarnessMetadata, codex-rs/history): the
# fields seen in the writer's versions; the reader acts on `delivered_assistant_message`
HARNESS_FIELDS = frozenset({"client_authored", "delivered_assistant_message", "user_input_order",
                            "fallback_token_limit_override", "tool_output_provenance",
                            "store_backed_artifact_references", "tool_argument_repair"})


def count(session: Session, lf: LoadedFile) -> None:
    unknown: Counter[str] = Counter()
    for rec in lf.recs:
        known = ITEM_FIELDS.get(rec.sub or "") if rec.kind == "response_item" else None
        if known is not None:
            unknown.update(f"{rec.sub}.{k}" for k in rec.payload if k not in known and k not in COMMON)
        if rec.harness is not None:
            unknown.update(f"metadata.{k}" for k in rec.harness if k not in HARNESS_FIELDS)
    if not unknown:
        return
    q = session.quality.extra
    q["unknown_fields"] = q.get("unknown_fields", 0) + sum(unknown.values())
    seen: dict[str, int] = session.meta.extra.setdefault("unknown_fields", {})
    for name, n in sorted(unknown.items()):
        seen[name] = seen.get(name, 0) + n
    session.warn("unknown_fields", "response item fields this reader's table does not name (a newer Codex?): "
                 + ", ".join(sorted(unknown)), lf.source)
