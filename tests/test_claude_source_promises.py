"""`claude_code/source.py` beyond `read_session`'s own lines, built from what Claude Code writes
(`~/.claude/projects/<slug>/<session>.jsonl`; a large tool output saved to
`<session>/tool-results/<tool_use_id>.txt`, its result then saying `<persisted-output>` /
`Output too large (…). Full output saved to: <path>`): every saved output of a session looked
up in order, each found one read and listed as a source file (its path, where it is on this
machine, its kind, size and digest) beside what the result said of itself, each missing one
counted; a web search result quoting those words is no saved output (Claude Code saves none of
the API's results); a usage count of zero or of the wrong kind (warned with its file and line);
records skipped for their type counted together with those the loader skipped. Worked out by
hand.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from _small_logs import answer, call, result, user, write
from forsy.evidence import Session, SourceFile
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _saved(tid: str) -> str:
    where = f"/home/dev/.claude/projects/-app/s/tool-results/{tid}.txt"
    return f"<persisted-output>\nOutput too large (2KB). Full output saved to: {where}\n\nPreview:\nx\n"


def _infos(s: Session) -> list[ResultInfo]:
    out = [e.info for e in s.events if e.kind == "tool_result"]
    assert all(isinstance(i, ResultInfo) for i in out)
    return out  # type: ignore[return-value]


def test_every_saved_output_of_a_session_is_looked_up_in_order(tmp_path: Path) -> None:
    # t1: a tool's own words with the marker but no saved file named; t2, t3: saved, their files
    # missing; t4: saved and found
    data = b"all 4000 lines\n"
    (tmp_path / "s" / "tool-results").mkdir(parents=True)
    (tmp_path / "s" / "tool-results" / "t4.txt").write_bytes(data)
    recs: list[dict[str, Any]] = [user(0, "u1", None, "Build it.")]
    parent = "u1"
    outs = ["Output too large (3MB) to show; narrow the search", _saved("t2"), _saved("t3"), _saved("t4")]
    for k, out in enumerate(outs, start=1):
        recs += [call(2 * k - 1, f"a{k}", parent, f"t{k}", "Bash", {"command": f"make {k}"}),
                 result(2 * k, f"r{k}", f"a{k}", f"t{k}", out)]
        parent = f"r{k}"
    recs.append(answer(9, "a9", parent, "Built."))
    recs[-2]["toolUseResult"] = {"stdout": "all 4000 lines", "stderr": "", "interrupted": False}
    s = _read(write(tmp_path / "s.jsonl", recs))
    infos = _infos(s)
    # what the result said of itself (Claude Code's `toolUseResult`) stays beside the saved output
    assert infos[3].rich == {"interrupted": False}  # its stdout and stderr are the text itself
    assert infos[3].rich_ref is not None and infos[3].rich_ref.pointer == "/toolUseResult"
    assert [(i.persisted_missing, i.persisted is not None) for i in infos] == [
        (False, False), (True, False), (True, False), (False, True)]
    assert s.quality.truncated_outputs == 2
    assert infos[3].persisted is not None and infos[3].persisted.text == "all 4000 lines\n"
    log = tmp_path / "s.jsonl"
    assert s.files == [
        SourceFile("s.jsonl", str(log), "claude_code", log.stat().st_size,
                   hashlib.sha256(log.read_bytes()).hexdigest()),
        SourceFile("s/tool-results/t4.txt", str(tmp_path / "s" / "tool-results" / "t4.txt"), "claude_code",
                   len(data), hashlib.sha256(data).hexdigest())]


def test_a_usage_count_of_the_wrong_kind_is_warned_at_its_file_and_line(tmp_path: Path) -> None:
    turn = answer(1, "a1", "u1", "Done.")
    turn["message"]["usage"] = {"input_tokens": 12, "output_tokens": 1.5}
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), turn]))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("field-type", "message.usage.output_tokens is a number, not a whole number; not counted", "s.jsonl", 2)]
    assert s.meta.token_usage == {"input_tokens": 12}


def test_records_of_an_unknown_type_are_counted_with_those_whose_type_is_no_text(tmp_path: Path) -> None:
    # line 2's type is a number (the loader skips it), line 3's a type no Claude Code wrote yet
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), {"type": 7, "uuid": "n1"},
                                           {"type": "future-kind", "uuid": "f1", "sessionId": "s-small"}]))
    assert s.quality.unknown_records == 2
    assert [(w.code, w.line) for w in s.warnings] == [("field-type", 2), ("unknown-record-type", 3)]


def test_a_usage_count_of_zero_is_zero(tmp_path: Path) -> None:
    # Claude Code writes zeros (`cache_creation_input_tokens: 0` on most turns)
    turn = answer(1, "a1", "u1", "Done.")
    turn["message"]["usage"] = {"input_tokens": 3, "output_tokens": 0, "cache_creation_input_tokens": 0,
                                "cache_read_input_tokens": 0}
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), turn]))
    assert s.meta.token_usage == {"input_tokens": 3, "output_tokens": 0, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 0}


def test_a_web_search_result_quoting_the_saved_output_words_is_no_saved_output(tmp_path: Path) -> None:
    # a server-side result is the API's (no ResultInfo): Claude Code saves none of them to disk,
    # so a page that quotes its words names no file of this session
    words = "Output too large (69.2KB). Full output saved to: /home/x/.claude/projects/-p/s/tool-results/t.txt"
    turn = answer(1, "a1", "u1", "Searching.")
    turn["message"]["content"] = [
        {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "claude output"}},
        {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": words}]
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Look it up."), turn]))
    [e] = [e for e in s.events if e.kind == "tool_result"]
    assert (e.text, e.info) == (words, None)
    assert s.quality.truncated_outputs == 0 and [f.path for f in s.files] == ["s.jsonl"]
