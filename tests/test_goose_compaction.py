"""Goose's compaction read as one: the summary the model continued from is a compaction, Goose's
words to the model in the assistant's place are its own (notes of the system), and the copy of
the person's last words it adds after the summary is not a new prompt.

Hand-made sessions in the shapes crates/goose/src/context_mgmt/mod.rs compact_messages leaves in
the store (read at 331a842972): the summarised messages made agent-invisible, the summary a
user-role message marked agent_only (`userVisible: false, agentVisible: true`), an assistant
message marked agent_only with TOOL_LOOP_ (or CONVERSATION_) CONTINUATION_TEXT, then a fresh,
fully visible user message with the text of the last text-only user message the model saw; when
that message was the newest, it is kept but hidden from both (`MessageMetadata::invisible()`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from _oracle import checked_traces
from forsy.evidence import Mark
from forsy.payloads import NoteInfo
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext
from forsy.sources.goose import GooseSource

SRC = GooseSource()
VIS = {"userVisible": True, "agentVisible": True}
USER_ONLY = {"userVisible": True, "agentVisible": False}
AGENT_ONLY = {"userVisible": False, "agentVisible": True}
INVISIBLE = {"userVisible": False, "agentVisible": False}
HEAD = ("Your context was compacted. The previous message contains a summary of the conversation so far.\n"
        "Do not mention that you read a summary or that conversation summarization occurred.\n")
TOOL_LOOP = HEAD + "Continue calling tools as necessary to complete the task."
CONVERSATION = HEAD + "Just continue the conversation naturally based on the summarized context."
# an earlier version's words (no "Your context was compacted.", no final period)
OLDER = ("The previous message contains a summary that was prepared because a context limit was reached.\n"
         "Do not mention that you read a summary or that conversation summarization occurred\n"
         "Just continue the conversation naturally based on the summarized context")
SUMMARY = "Summary: the user asked to build the kettle firmware; make succeeded."
COPY_WHY = ("Goose's copy, after a compaction, of the last text-only user message the model saw "
            "(read where first written)")


def T(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def call(cid: str, cmd: str) -> dict[str, Any]:
    return {"type": "toolRequest", "id": cid,
            "toolCall": {"status": "success", "value": {"name": "developer__shell", "arguments": {"command": cmd}}}}


def result(cid: str, out: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid,
            "toolResult": {"status": "success", "value": {"content": [T(out)], "isError": False}}}


Msg = tuple[str, list[dict[str, Any]], dict[str, bool]]
# a compaction in the tool loop (context_mgmt's TOOL_LOOP case): the person's prompt is not the newest message
TOOL_LOOP_SESSION: list[Msg] = [
    ("user", [T("Build the kettle firmware")], USER_ONLY),
    ("assistant", [T("Building."), call("c1", "make")], USER_ONLY),
    ("user", [result("c1", "build ok")], USER_ONLY),
    ("user", [T(SUMMARY)], AGENT_ONLY),
    ("assistant", [T(TOOL_LOOP)], AGENT_ONLY),
    ("user", [T("Build the kettle firmware")], VIS),
    ("assistant", [T("Now tests."), call("c2", "make test")], VIS),
    ("user", [result("c2", "tests ok")], VIS),
    ("assistant", [T("All done.")], VIS),
]


def jsonl(tmp: Path, msgs: list[Msg], name: str = "20260101_1.jsonl") -> Path:
    path = tmp / name
    lines = [json.dumps({"id": f"msg_{i}", "role": role, "created": 1760000000 + i, "content": content,
                         "metadata": meta}) for i, (role, content, meta) in enumerate(msgs)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
"""


def db(folder: Path, msgs: list[Msg], sid: str = "20260101_1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sessions.db"
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.execute("INSERT INTO sessions (id, working_dir) VALUES (?, ?)", (sid, "/tmp/proj"))
    for i, (role, content, meta) in enumerate(msgs):
        con.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, "
                    "metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
                    (f"msg_{i}", sid, role, json.dumps(content), 1760000000 + i, json.dumps(meta)))
    con.commit()
    con.close()
    return path


def _seen(s: Any) -> list[tuple[str, str, str | None, str | None]]:
    return [(e.kind, e.actor, e.text, e.info.subtype if isinstance(e.info, NoteInfo) else None)
            for e in s.events if e.kind not in ("tool_call", "tool_result")]


def _marks(s: Any) -> list[Mark | None]:
    """The ledger mark of each message record, in the order read."""
    recs = sorted((ev for ev in s.evidence.values() if ev.record_type in ("user", "assistant")),
                  key=lambda ev: (ev.line or 0, ev.source))
    return [s.ledger.get(ev.id) for ev in recs]


def test_a_tool_loop_compaction_is_one_and_its_copy_is_no_prompt(tmp_path: Path) -> None:
    [s] = SRC.read(jsonl(tmp_path, TOOL_LOOP_SESSION), ReadContext())
    assert _seen(s) == [
        ("user", "user", "Build the kettle firmware", None),
        ("agent_text", "agent", "Building.", None),
        ("compaction", "system", SUMMARY, "compaction_summary"),
        ("note", "system", TOOL_LOOP, "compaction_continuation"),  # Goose's words, not the model's
        ("agent_text", "agent", "Now tests.", None),
        ("agent_text", "agent", "All done.", None),
    ]
    assert (s.quality.compactions, s.quality.duplicate_records) == (1, 1)
    marks = _marks(s)
    assert marks[4] == Mark("set_aside", "notes are not steps", "compaction_continuation")
    assert marks[5] == Mark("duplicate", COPY_WHY, "compaction_copy")
    assert not s.warnings


def test_the_store_reads_it_the_same_and_the_trace_holds_one_prompt(tmp_path: Path) -> None:
    path = db(tmp_path / "sessions", TOOL_LOOP_SESSION)
    [s] = SRC.read(path, ReadContext(root=path.parent))
    [js] = SRC.read(jsonl(tmp_path, TOOL_LOOP_SESSION), ReadContext())
    assert _seen(s) == _seen(js) and s.quality.compactions == 1
    out = tmp_path / "out"
    retrace([path], RetraceOptions(out=out, redact=False))
    [trace] = checked_traces(out, path)  # validated and verified
    steps = trace["steps"]
    assert [(st["actor"], st["action"]) for st in steps] == [
        ("user", "user_message"), ("agent", "agent_step"), ("system", "agent_step"), ("agent", "agent_step"),
        ("agent", "output")]
    assert steps[2]["output"] == SUMMARY and steps[2]["state_change"].startswith("Context compacted")
    assert steps[-1]["output"] == "All done." and trace["final_output"] == "All done."
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["counts"]["compactions"] == 1
    totals = [e["totals"] for e in manifest["ledger"] if e["path"].endswith("#messages/6")]
    assert totals == [{"cited": 0, "metadata": 0, "set_aside": 0, "duplicate": 1, "unparsable": 0, "unknown": 0}]


def test_the_newest_prompt_hidden_by_the_compaction_is_the_persons(tmp_path: Path) -> None:
    """CONVERSATION case: the prompt that set off the compaction was the newest message; Goose
    hid it from both and showed its copy after the summary: the prompt is read where it was
    typed, the copy is the duplicate."""
    msgs: list[Msg] = [
        ("user", [T("Build the kettle firmware")], USER_ONLY),
        ("assistant", [T("Built.")], USER_ONLY),
        ("user", [T("Now run the tests")], INVISIBLE),
        ("user", [T(SUMMARY)], AGENT_ONLY),
        ("assistant", [T(CONVERSATION)], AGENT_ONLY),
        ("user", [T("Now run the tests")], VIS),
        ("assistant", [T("Tests pass.")], VIS),
    ]
    [s] = SRC.read(jsonl(tmp_path, msgs), ReadContext())
    users = [e for e in s.events if e.kind == "user"]
    assert [e.text for e in users] == ["Build the kettle firmware", "Now run the tests"]
    assert s.evidence[users[1].refs[0].ev].line == 3  # the hidden original, not the copy (line 6)
    assert [k for k, *_ in _seen(s)] == ["user", "agent_text", "user", "compaction", "note", "agent_text"]
    assert _marks(s)[5] == Mark("duplicate", COPY_WHY, "compaction_copy")


def test_a_copy_whose_original_goose_dropped_stays_the_prompt(tmp_path: Path) -> None:
    """Earlier versions dropped the newest prompt and kept only its copy, and wrote a notice for
    the person before the summary: the copy repeats no earlier message, so it is the prompt;
    the notice and the summary are one compaction."""
    msgs: list[Msg] = [
        ("user", [T("Build the kettle firmware")], USER_ONLY),
        ("assistant", [T("Built.")], USER_ONLY),
        ("assistant", [{"type": "conversationCompacted", "msg": "Conversation compacted and summarized"}],
         USER_ONLY),
        ("user", [T(SUMMARY)], AGENT_ONLY),
        ("assistant", [T(OLDER)], AGENT_ONLY),
        ("user", [T("Now run the tests")], VIS),
        ("assistant", [T("Tests pass.")], VIS),
    ]
    [s] = SRC.read(jsonl(tmp_path, msgs), ReadContext())
    assert [e.text for e in s.events if e.kind == "user"] == ["Build the kettle firmware", "Now run the tests"]
    assert s.quality.compactions == 1 and s.quality.duplicate_records == 0
    assert [(k, sub) for k, _, _, sub in _seen(s)] == [
        ("user", None), ("agent_text", None), ("note", "conversation_compacted"), ("compaction", "compaction_summary"),
        ("note", "compaction_continuation"), ("user", None), ("agent_text", None)]


def test_words_typed_again_later_are_a_prompt(tmp_path: Path) -> None:
    """A manual compaction adds no copy: the person's next words, even the same as before, are
    theirs; so are the same words typed after the message that follows a compaction."""
    manual = HEAD.replace("was compacted.", "was compacted at the user's request.") + "Just continue."
    msgs: list[Msg] = [
        ("user", [T("continue")], USER_ONLY),
        ("assistant", [T("Working.")], USER_ONLY),
        ("user", [T(SUMMARY)], AGENT_ONLY),
        ("assistant", [T(manual)], AGENT_ONLY),
        ("assistant", [T("Still here.")], VIS),
        ("user", [T("continue")], VIS),
        ("assistant", [T("Done.")], VIS),
    ]
    [s] = SRC.read(jsonl(tmp_path, msgs), ReadContext())
    assert [e.text for e in s.events if e.kind == "user"] == ["continue", "continue"]
    assert s.quality.duplicate_records == 0 and s.quality.compactions == 1


def test_goose_words_in_the_assistants_place_are_notes(tmp_path: Path) -> None:
    """Any assistant message hidden from the person is Goose's, not the model's, compaction or
    not; and the summarising model's thinking in a summary is not the agent's reasoning."""
    msgs: list[Msg] = [
        ("user", [T("hi")], VIS),
        ("assistant", [T("A word from Goose to the model.")], AGENT_ONLY),
        ("user", [{"type": "thinking", "thinking": "What to keep?", "signature": "s"}, T(SUMMARY)], AGENT_ONLY),
        ("assistant", [T(TOOL_LOOP)], AGENT_ONLY),
        ("assistant", [T("Hello.")], VIS),
    ]
    [s] = SRC.read(jsonl(tmp_path, msgs), ReadContext())
    assert _seen(s) == [
        ("user", "user", "hi", None),
        ("note", "system", "A word from Goose to the model.", "goose_to_model"),
        ("note", "system", "What to keep?", "goose_to_model"),
        ("compaction", "system", SUMMARY, "compaction_summary"),
        ("note", "system", TOOL_LOOP, "compaction_continuation"),
        ("agent_text", "agent", "Hello.", None),
    ]
    assert not [e for e in s.events if e.kind == "reasoning"]
