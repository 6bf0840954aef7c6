"""Forms aider's own code writes that the reader mistook, each in a hand-made history of the shape
the writer's code gives (the file and function named at each test), read in process, then one
retraced whole to check every record is accounted for and verifies. Expectations by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _aider_logs import CHAT, INPUT, B, retraced_checked
from forsy.evidence import Mark
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

HEAD = "\n# aider chat started at 2025-01-10 09:00:00\n\n"  # io.py InputOutput.__init__


def _read(tmp_path: Path, chat: str, typed: str | None = None) -> list[Any]:
    (tmp_path / CHAT).write_text(chat)
    if typed is not None:
        (tmp_path / INPUT).write_text(typed)
    return AiderSource().read(tmp_path / CHAT, ReadContext(root=tmp_path))


def _events(s: Any) -> list[tuple[Any, ...]]:
    return [(e.kind, e.text, e.info.subtype if isinstance(e.info, NoteInfo) else None, e.ts) for e in s.events]


def test_the_request_of_ask_code_architect_context_ok_and_help_is_not_typed_twice(tmp_path: Path) -> None:
    # commands.py _generic_chat_command: `/ask X` runs a coder with X, whose run(with_message)
    # writes X again with io.user_input; X keeps the space after the command's word (Commands.run
    # passes the rest of the line). /ok (cmd_ok) is `/code Ok, please go ahead…`; /help X (cmd_help)
    # sends help.py ask's `# Question: X` with the documents it found
    chat = (HEAD + f"#### /ask why?{B}\n\n####  why?{B}\n\nBecause.\n\n"
            f"#### /arch plan it{B}\n#### in two lines{B}\n\n####  plan it{B}\n#### in two lines{B}\n\nPlanned.\n\n"
            f"#### /ok now{B}\n\n#### Ok, please go ahead and make those changes. now{B}\n\nDone.\n\n"
            f"#### /help how to undo?{B}\n\n#### # Question:  how to undo?{B}\n#### {B}\n#### # Relevant docs:{B}\n"
            f"#### {B}\n#### <doc from_url=\"https://aider.chat/docs/x.html\">{B}\n"
            f"#### Use /undo.{B}\n#### </doc>{B}\n\n"
            "Type /undo.\n\n"
            # the user typing the request again after a reply is the user's own words
            f"#### /ask again?{B}\n\nYes.\n\n#### again?{B}\n\nStill yes.\n\n"
            # `/c` is no command of its own (several start so): nothing is written again
            f"#### /context find it{B}\n\n####  find it{B}\n\nFound.\n\n#### /c x{B}\n\n#### x{B}\n\nHm.\n")
    [s] = _read(tmp_path, chat)
    got = [(k, t, sub) for k, t, sub, _ in _events(s)]
    assert got == [
        ("user", "/ask why?", None), ("note", " why?", "command_request"), ("agent_text", "Because.", None),
        ("user", "/arch plan it\nin two lines", None), ("note", " plan it\nin two lines", "command_request"),
        ("agent_text", "Planned.", None),
        ("user", "/ok now", None), ("note", "Ok, please go ahead and make those changes. now", "command_request"),
        ("agent_text", "Done.", None),
        ("user", "/help how to undo?", None),
        ("note", "# Question:  how to undo?\n\n# Relevant docs:\n\n<doc from_url=\"https://aider.chat/docs/x.html\">\n"
                 "Use /undo.\n</doc>", "help_request"),
        ("agent_text", "Type /undo.", None),
        ("user", "/ask again?", None), ("agent_text", "Yes.", None), ("user", "again?", None),
        ("agent_text", "Still yes.", None),
        ("user", "/context find it", None), ("note", " find it", "command_request"), ("agent_text", "Found.", None),
        ("user", "/c x", None), ("user", "x", None), ("agent_text", "Hm.", None),
    ]
    ask = next(e for e in s.events if e.text == " why?")
    assert s.ledger[ask.refs[0].ev] == Mark(
        "duplicate", "the request of the command typed before it, which aider writes again as an input")
    helped = next(e for e in s.events if (e.text or "").startswith("# Question:"))
    assert {s.ledger[r.ev].heading for r in helped.refs} == {"set_aside"}
    assert s.quality.extra["command_requests"] == 4 and s.quality.extra["help_requests"] == 1


def test_a_multi_line_input_typed_between_braces_is_one_prompt(tmp_path: Path) -> None:
    # io.py get_input: `{` (or `{tag`, 0.64+) opens a multi-line input and `}` (`tag}`) closes it;
    # each line is one prompt_toolkit prompt, so its FileHistory stores each line as an entry
    # (not a blank one: Buffer.append_to_history); user_input writes the lines between only
    chat = (HEAD + f"#### first line{B}\n#### {B}\n#### second line{B}\n\nDone.\n\n#### tagged{B}\n\nOk.\n\n"
            f"#### {{ not a block{B}\n\nRight.\n")
    typed = ("\n# 2025-01-10 09:00:05.000001\n+{\n"
             "\n# 2025-01-10 09:00:06.000001\n+first line\n"
             "\n# 2025-01-10 09:00:07.000001\n+second line\n"
             "\n# 2025-01-10 09:00:08.000001\n+}\n"
             "\n# 2025-01-10 09:01:00.000001\n+{md\n"
             "\n# 2025-01-10 09:01:01.000001\n+tagged\n"
             "\n# 2025-01-10 09:01:02.000001\n+md}\n"
             "\n# 2025-01-10 09:02:00.000001\n+{ not a block\n")
    [s] = _read(tmp_path, chat, typed)
    assert [(k, t, ts) for k, t, _, ts in _events(s)] == [
        ("user", "first line\n\nsecond line", "2025-01-10 09:00:08.000001"),  # sent with the closing brace
        ("agent_text", "Done.", None),
        ("user", "tagged", "2025-01-10 09:01:02.000001"),
        ("agent_text", "Ok.", None),
        ("user", "{ not a block", "2025-01-10 09:02:00.000001"),
        ("agent_text", "Right.", None),
    ]
    lines = typed.split("\n")
    brace = {ev.line: m for ev_id, ev in s.evidence.items() if (m := s.ledger.get(ev_id)) and ev.source == INPUT}
    why = "the brace line that opens or closes a multi-line input (aider does not send it)"
    for text in ("+{", "+}", "+{md", "+md}"):
        assert brace[lines.index(text) + 1] == Mark("set_aside", why)
    assert brace[lines.index("# 2025-01-10 09:00:06.000001") + 1] == Mark(
        "metadata", "time of a typed line of a multi-line input")
    assert s.quality.extra["typed_matched"] == 3 and "typed_added" not in s.quality.extra


def test_an_input_history_read_alone_makes_a_brace_block_one_prompt(tmp_path: Path) -> None:
    (tmp_path / INPUT).write_text("\n# 2025-01-10 09:00:05\n+{\n\n# 2025-01-10 09:00:06\n+a\n"
                                  "\n# 2025-01-10 09:00:07\n+b\n\n# 2025-01-10 09:00:08\n+}\n"
                                  "\n# 2025-01-10 09:00:09\n+{\n\n# 2025-01-10 09:00:10\n+left open\n")
    [s] = AiderSource().read(tmp_path / INPUT, ReadContext(root=tmp_path))
    # a block never closed (the input was abandoned) is left as typed
    assert [(e.kind, e.text, e.ts) for e in s.events] == [
        ("user", "a\nb", "2025-01-10 09:00:08"), ("user", "{", "2025-01-10 09:00:09"),
        ("user", "left open", "2025-01-10 09:00:10")]


def test_a_last_write_cut_short_is_read_as_what_its_marker_says_and_warned(tmp_path: Path) -> None:
    # io.py append_chat_history ends every write with a line break: a last line without one is a
    # write cut short; its `#### ` or `> ` still says whose it was (its two spaces were lost)
    for tail, want in (("> Tokens: 1.2k sent, 3", ("note", "Tokens: 1.2k sent, 3")),
                       ("#### and then fix the te", ("user", "and then fix the te")),
                       ("#### and th" + B, ("user", "and th"))):
        [s] = _read(tmp_path, HEAD + f"#### fix it{B}\n\nDone.\n\n" + tail)
        assert [(e.kind, e.text) for e in s.events] == [("user", "fix it"), ("agent_text", "Done."), want], tail
        assert [(w.code, w.line) for w in s.warnings] == [("cut-write", 8)]
    # a reply cut short stays the reply's text, warned
    [s] = _read(tmp_path, HEAD + f"#### fix it{B}\n\nDone with the fi")
    assert [(e.kind, e.text) for e in s.events] == [("user", "fix it"), ("agent_text", "Done with the fi")]
    assert [(w.code, w.line) for w in s.warnings] == [("cut-write", 6)]


def test_retraced_every_record_is_accounted_for_and_verifies(tmp_path: Path) -> None:
    (tmp_path / CHAT).write_text(HEAD + f"#### /ask why?{B}\n\n####  why?{B}\n\nBecause.\n\n"
                                 f"#### one{B}\n#### two{B}\n\nOk.\n\n> Tokens: 1k se")
    (tmp_path / INPUT).write_text("\n# 2025-01-10 09:00:01\n+/ask why?\n\n# 2025-01-10 09:00:05\n+{\n"
                                  "\n# 2025-01-10 09:00:06\n+one\n\n# 2025-01-10 09:00:07\n+two\n"
                                  "\n# 2025-01-10 09:00:08\n+}\n")
    d = retraced_checked(tmp_path)
    steps = json.loads((d / "trace.json").read_text("utf-8"))["steps"]
    assert [st["input"] for st in steps if st["action"] == "user_message"] == ["/ask why?", "one\ntwo"]
