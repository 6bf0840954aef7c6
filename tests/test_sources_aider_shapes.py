"""Every shape of edit, message and question aider writes, read in process from one
hand-written chat: what each event is (kind, actor, tool, text), what answers each call, and
why each message no step cites was read (the ledger). The shapes are aider's own
(aider/io.py, coders/editblock_coder.py, udiff_coder.py, wholefile_coder.py,
editblock_fenced_coder.py; the formats' docs); expectations worked out by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forsy.evidence import Mark
from forsy.payloads import NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

B = "  "
NOTE = "aider's messages are notes, not steps"
SETTINGS = "settings (version, models, edit format, git repo, repo map)"
SR_A = "a.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n>>>>>>> REPLACE"  # no fence at all
UDIFF = "```diff\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-b = 1\n+b = 2\n```"
WHOLE = "c.py\n```python\nc = 3\n```"
FENCED = "```\nd.py\n<<<<<<< SEARCH\nd = 1\n=======\nd = 2\n>>>>>>> REPLACE\n```"  # diff-fenced
SOURCE = "e.py\n<source>python\n<<<<<<< SEARCH\ne = 1\n=======\ne = 2\n>>>>>>> REPLACE\n</source>"
CODE = '```python\nprint("only an example")\n```'
CHAT = (
    "\n# aider chat started at 2026-03-01 09:00:00\n\n"
    f"> aider --yes{B}\n> Aider v0.86.0{B}\n> Model: m1 with whole edit format{B}\n"
    f"> Editor model: m2 with editor-whole edit format{B}\n> Repo-map: disabled{B}\n\n"
    f"#### edit them{B}\n\n<think>\nplan\n</think>\n\n{SR_A}\n\n{UDIFF}\n\n{WHOLE}\n\n{FENCED}\n\n{SOURCE}\n\n"
    f"{CODE}\n\n"
    f"> Applied edit to a.py{B}\n> Applied edit to b.py{B}\n> Applied edit to c.py{B}\n> Applied edit to d.py{B}\n"
    f"> Applied edit to e.py{B}\n> Applied edit to z.py{B}\n"
    f"> Tokens: 1k sent{B}\n> Commit 1a2b3c4 edit them{B}\n> Added f.py to the chat.{B}\n"
    f"> Removed g.py from the chat{B}\n> Dropping h.py{B}\n> Model: m3{B}\n\n"
    f"#### new file{B}\n\nf.py\n```\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n```\n\n"
    f"> f.py{B}\n> Create new file? (Y)es/(N)o [Yes]: n{B}\n> Skipping edits to f.py{B}\n\n"
    f"#### /run true{B}\n\n"
    "Run it:\n\n```bash\nls\n```\n\n"
    f"> ls{B}\n> Run shell command? (Y)es/(N)o [Yes]: y{B}\n\n"
)


def _read(tmp_path: Path) -> Any:
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(CHAT)
    [s] = AiderSource().read(p, ReadContext(root=tmp_path))
    return s


def _sub(e: Any) -> Any:
    if isinstance(e.info, NoteInfo):
        return e.info.subtype
    if isinstance(e.info, ResultInfo):
        return "rejected" if e.info.rejected else None
    return None


def test_every_edit_format_and_message_is_what_it_is(tmp_path: Path) -> None:
    s = _read(tmp_path)
    got = [(e.kind, e.actor, e.tool, e.text if e.kind != "tool_call" else e.args, e.is_error, _sub(e))
           for e in s.events]
    applied = [("tool_result", "agent", t, f"Applied edit to {p}.py", False, None)
               for t, p in (("search_replace", "a"), ("udiff", "b"), ("whole_file", "c"), ("search_replace", "d"),
                            ("search_replace", "e"))]
    assert got == [
        ("user", "user", None, "edit them", None, None),
        ("reasoning", "agent", None, "plan", None, None),
        ("tool_call", "agent", "search_replace", SR_A, None, None),
        ("tool_call", "agent", "udiff", UDIFF, None, None),
        ("tool_call", "agent", "whole_file", WHOLE, None, None),
        ("tool_call", "agent", "search_replace", FENCED, None, None),
        ("tool_call", "agent", "search_replace", SOURCE, None, None),
        ("agent_text", "agent", None, CODE, None, None),  # a fence under no applied path: an example
        *applied,
        ("note", "system", None, "Applied edit to z.py", None, "applied_edit"),  # no edit of z.py
        ("note", "system", None, "Tokens: 1k sent", None, "usage"),
        ("note", "system", None, "Commit 1a2b3c4 edit them", None, "commit"),
        ("note", "system", None, "Added f.py to the chat.", None, "context"),
        ("note", "system", None, "Removed g.py from the chat", None, "context"),
        ("note", "system", None, "Dropping h.py", None, "context"),
        ("user", "user", None, "new file", None, None),
        ("tool_call", "agent", "search_replace", "f.py\n```\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n```",
         None, None),
        ("note", "system", None, "f.py", None, "message"),
        ("tool_result", "agent", "search_replace", "Create new file? (Y)es/(N)o [Yes]: n", False, "rejected"),
        ("note", "system", None, "Skipping edits to f.py", None, "message"),
        ("user", "user", None, "/run true", None, None),
        ("tool_call", "agent", "/run", "true", None, None),
        ("agent_text", "agent", None, "Run it:\n\n```bash\nls\n```", None, None),
        ("tool_call", "agent", "shell", "ls", None, None),
        ("note", "system", None, "Run shell command? (Y)es/(N)o [Yes]: y", None, "confirmation"),
    ]
    edits = [e for e in s.events if e.kind == "tool_call" and e.tool != "/run" and e.tool != "shell"]
    # each reply is one group named by its first line; each edit cites from its path line or fence
    assert [e.group for e in edits] == [f"reply-L{ln('<think>')}"] * 5 + [f"reply-L{ln('f.py')}"]
    assert [s.evidence[e.refs[0].ev].line for e in edits] == [
        ln("a.py"), ln("```diff"), ln("c.py"), ln("```", ln("c.py") + 3), ln("e.py"), ln("f.py")]
    m = s.meta
    assert (m.agent_version, m.models) == ("0.86.0", ["m1", "m3"])
    assert {k: m.extra[k] for k in ("command", "edit_format", "editor_model", "repo_map")} == {
        "command": "aider --yes", "edit_format": "whole", "editor_model": "m2", "repo_map": "disabled"}
    assert s.quality.missing_results == 2  # /run true wrote nothing; ls ran with no report of its run
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-result", "/run 'true': no output written after it", ln(f"#### /run true{B}")),
        ("no-result", "a shell command aider ran has no report of its run", ln(f"> ls{B}"))]
    assert (s.quality.extra["confirmations"], s.quality.extra["edits_reconstructed"]) == (2, 6)
    marks = {s.evidence[k].line: v for k, v in s.ledger.items()}
    settings = [f"> {t}{B}" for t in ("aider --yes", "Aider v0.86.0", "Model: m1 with whole edit format",
                                     "Editor model: m2 with editor-whole edit format", "Repo-map: disabled",
                                     "Model: m3")]
    assert [marks[ln(t)] for t in settings] == [Mark("metadata", SETTINGS)] * 6  # a later model switch too
    notes = [("Applied edit to z.py", "applied_edit"), ("Tokens: 1k sent", "usage"),
             ("Commit 1a2b3c4 edit them", "commit"), ("Added f.py to the chat.", "context"),
             ("Removed g.py from the chat", "context"), ("Dropping h.py", "context"),
             ("Skipping edits to f.py", "message"), ("Run shell command? (Y)es/(N)o [Yes]: y", "confirmation")]
    assert [marks[ln(f"> {t}{B}")] for t, _ in notes] == [Mark("set_aside", NOTE, sub) for _, sub in notes]


def ln(text: str, after: int = 0) -> int:
    """The 1-based number of the first line of CHAT after line `after` that is exactly `text`."""
    return CHAT.split("\n").index(text, after) + 1


def test_a_padded_subject_of_several_lines_and_a_message_cut_by_the_end(tmp_path: Path) -> None:
    """aider pads a confirmation's subject of several lines to one width (io.confirm_ask), so
    its first line already ends with spaces: the lines glued after it are the rest of it. A
    message still open at the end of the file is warned in the session it belongs to."""
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### one{B}\n\n"
            f"# aider chat started at 2026-03-01 10:00:00\n\n#### two{B}\n\nRun:\n\n```bash\nmake\nmake lint\n```\n\n"
            f"> make     \nmake lint{B}\n> Run shell commands? (Y)es/(N)o [Yes]: n{B}\n\n"
            f"#### /run x{B}\n> first line of its output\nand more")
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(chat)
    s1, s2 = AiderSource().read(p, ReadContext(root=tmp_path))
    shell = [(e.kind, e.text if e.kind != "tool_call" else e.args, _sub(e)) for e in s2.events if e.tool == "shell"]
    assert shell == [("tool_call", "make     \nmake lint", None),
                     ("tool_result", "Run shell commands? (Y)es/(N)o [Yes]: n", "rejected")]
    assert s1.warnings == []
    last = chat.split("\n").index("> first line of its output") + 1
    assert [(w.code, w.line) for w in s2.warnings] == [("unterminated-message", last), ("cut-write", last + 1)]
    assert next(e for e in s2.events if e.tool == "/run" and e.kind == "tool_result").text == \
        "first line of its output\nand more"


def test_dont_ask_again_and_skip_are_refusals_and_models_lines_name_models(tmp_path: Path) -> None:
    """`(D)on't ask again` and `(S)kip all` refuse a shell command as `n` does; `Models:` and
    `Main model: … weak model …` name the main model, the edit format and the weak model."""
    chat = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n"
            f"> Models: m1 with diff edit format, weak model w1{B}\n\n#### go{B}\n\n"
            "Run:\n\n```bash\nls\n```\n\n"
            f"> ls{B}\n> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: d{B}\n\n#### again{B}\n\n"
            "Run:\n\n```bash\npwd\n```\n\n"
            f"> pwd{B}\n> Run shell command? (Y)es/(N)o/(S)kip all [Yes]: s{B}\n")
    p = tmp_path / ".aider.chat.history.md"
    p.write_text(chat)
    [s] = AiderSource().read(p, ReadContext(root=tmp_path))
    res = [(e.text, e.is_error, _sub(e)) for e in s.events if e.kind == "tool_result"]
    assert res == [("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: d", False, "rejected"),
                   ("Run shell command? (Y)es/(N)o/(S)kip all [Yes]: s", False, "rejected")]
    assert (s.meta.models, s.meta.extra["edit_format"], s.meta.extra["weak_model"]) == (["m1"], "diff", "w1")
