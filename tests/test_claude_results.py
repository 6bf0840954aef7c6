"""A Claude Code tool result read as its writer wrote it: a result with no content is an empty
output, exact (no excerpt); a list of blocks joins its texts and states what it left out."""

from __future__ import annotations

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
                    [{"type": "image", "source": "?"}, {"type": "tool_reference", "tool_name": "x"}]) == [
        ("a\nb", False),
        ("shot:\n[image omitted by forsy: image/png]", True),
        ("[image omitted by forsy: unknown type]\n[non-text block omitted by forsy]", True)]
