"""A Claude Code tool result read as its writer wrote it: a result with no content is an empty
output, exact (no excerpt); a list of blocks joins its texts and states what it left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _small_logs import _rec, call, user, write
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _results(tmp_path: Path, *contents: Any) -> list[tuple[str | None, bool]]:
    records = [user(0, "u1", None, "Go.")]
    parent = "u1"
    for i, content in enumerate(contents):
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"t{i}"}
        if content is not None:
            block["content"] = content
        records += [call(2 * i + 1, f"a{i}", parent, f"t{i}", "Bash", {"command": "true"}),
                    _rec(2 * i + 2, "user", [block], f"r{i}", f"a{i}")]
        parent = f"r{i}"
    [s] = ClaudeCodeSource().read(write(tmp_path / "s.jsonl", records), ReadContext(root=tmp_path))
    return [(e.text, e.excerpt) for e in s.events if e.kind == "tool_result"]


def test_a_result_without_content_is_an_exact_empty_output(tmp_path: Path) -> None:
    assert _results(tmp_path, None, "") == [("", False), ("", False)]


def test_a_list_result_joins_its_texts_and_marks_what_it_left_out(tmp_path: Path) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    assert _results(tmp_path, [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                    [{"type": "text", "text": "shot:"}, image],
                    [{"type": "image", "source": "?"}, {"type": "document", "source": {"type": "base64"}}]) == [
        ("a\nb", False),
        ("shot:\n[image omitted by forsy: image/png]", True),
        ("[image omitted by forsy: unknown type]\n[non-text block omitted by forsy]", True)]


def test_the_tools_a_tool_search_found_are_its_output_by_name(tmp_path: Path) -> None:
    """ToolSearch answers with the API's `tool_reference` blocks ({type, tool_name}): the names
    of the tools it loaded are its output, whole (they were 'non-text blocks omitted', an excerpt
    counted as a truncated output), and `forsy verify` reads them the same way."""
    from typer.testing import CliRunner

    from forsy.cli import app

    refs = [{"type": "tool_reference", "tool_name": "mcp__github__create_issue"},
            {"type": "tool_reference", "tool_name": "mcp__github__list_issues"}]
    log = write(tmp_path / "s.jsonl", [
        user(1, "u1", None, "open an issue"),
        call(2, "a1", "u1", "t1", "ToolSearch", {"query": "github issue"}),
        _rec(3, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": refs}], "r1", "a1")])
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    assert trace["steps"][1]["output"] == "mcp__github__create_issue\nmcp__github__list_issues"
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert manifest["counts"]["truncated_outputs"] == 0
    v = CliRunner().invoke(app, ["verify", str(out), str(tmp_path)])
    assert v.exit_code == 0 and " 0 problem(s)" in v.output, v.output
