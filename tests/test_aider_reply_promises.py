"""A model reply cut into blocks (`aider._reply.split`), on the shapes aider's formats allow
and the test of the whole chat does not hold: blocks back to back with no blank line, a path
line with markdown decoration, a fence under a path line aider never reports edited, reasoning
tags with text right after them, fences of four backticks, tildes and `<source>`.

The shapes are those of aider's prompts and parsers (coders/editblock_prompts.py: the path
alone on the line before the fence; editblock_coder.py strips `*`, backticks, `#` and `:`
around it; wholefile_coder.py: a fence under the file's name). Each expected block (kind,
its line numbers, path, form) is worked out by hand from the numbered lines.
"""

from __future__ import annotations

from forsy.sources.aider._md import split_lines
from forsy.sources.aider._reply import Block, path_of, split


def blocks(text: str, applied: set[str] | None = None) -> list[tuple[str, list[int], str | None, str | None]]:
    got: list[Block] = split(split_lines(text.encode()), applied or set())
    return [(b.kind, [ln.no for ln in b.lines], b.path, b.form) for b in got]


SR = ["<<<<<<< SEARCH", "x = 1", "=======", "x = 2", ">>>>>>> REPLACE"]


def test_edit_blocks_back_to_back_without_a_blank_line() -> None:
    text = "\n".join([
        "a.py", "```python", *SR, "```",  # 1-8
        "b.py", "```python", *SR, "```",  # 9-16
        "c.py", *SR,  # 17-22: no fence
        "d.py", "```", "d = 4", "```",  # 23-26: whole, aider edited d.py
        "```diff", "--- a/e.py", "+++ b/e.py", "@@ -1 +1 @@", "-e", "+f", "```",  # 27-33
        "Done.",  # 34
    ])
    assert blocks(text, {"d.py"}) == [
        ("edit", list(range(1, 9)), "a.py", "search_replace"),
        ("edit", list(range(9, 17)), "b.py", "search_replace"),
        ("edit", list(range(17, 23)), "c.py", "search_replace"),
        ("edit", list(range(23, 27)), "d.py", "whole"),
        ("edit", list(range(27, 34)), "e.py", "udiff"),
        ("text", [34], None, None),
    ]


def test_an_unfenced_search_block_under_a_sentence_has_no_path() -> None:
    text = "\n".join(["Change it like this:", *SR, "", "Then run it."])
    assert blocks(text) == [
        ("text", [1], None, None),
        ("edit", [2, 3, 4, 5, 6], None, "search_replace"),
        ("text", [8], None, None),
    ]
    # at the reply's start, or after a blank line: no path line, the block alone
    assert blocks("\n".join(SR)) == [("edit", [1, 2, 3, 4, 5], None, "search_replace")]
    assert blocks("\n".join(["Do this:", "", *SR])) == [
        ("text", [1], None, None), ("edit", [3, 4, 5, 6, 7], None, "search_replace")]
    # a SEARCH with no REPLACE after it is no block: the whole reply is text
    assert blocks("a.py\n<<<<<<< SEARCH\nx = 1\n=======") == [("text", [1, 2, 3, 4], None, None)]


def test_a_path_line_with_markdown_decoration() -> None:
    assert [path_of(x) for x in ("**a.py**", "`b/c.py`:", "# d.py", "  e.py  ", "f.py:")] == [
        "a.py", "b/c.py", "d.py", "e.py", "f.py"]
    long = "p/" * 149 + "xy"  # 300 characters
    assert path_of(long) == long and path_of(long + "z") is None
    assert path_of("XMLParser.java") == "XMLParser.java"  # only `*`, backticks, `#`, `:` and blanks go
    for no_path in ("", "**", "see a.py", "<<<<<<< SEARCH", ">>>>>>> REPLACE", "=======", "<<<<<<<", ">>>>>>>"):
        assert path_of(no_path) is None, no_path
    text = "\n".join(["`g.py`:", "```", *SR, "```"])
    assert blocks(text) == [("edit", [1, 2, 3, 4, 5, 6, 7, 8], "g.py", "search_replace")]
    # diff-fenced: the path is the first line inside the fence
    assert blocks("\n".join(["```", "**h.py**", *SR, "```"])) == [
        ("edit", list(range(1, 9)), "h.py", "search_replace")]


def test_a_fence_under_a_path_aider_never_reports_edited_is_text() -> None:
    text = "\n".join(["For example, in a.py:", "", "a.py", "```python", "print(1)", "```"])
    assert blocks(text, {"b.py"}) == [("text", [1, 2, 3, 4, 5, 6], None, None)]
    assert blocks(text, {"a.py"}) == [("text", [1], None, None), ("edit", [3, 4, 5, 6], "a.py", "whole")]
    # an example fence with no path line at all, even when some file was edited; text may follow it
    assert blocks("```\nprint(1)\n```", {"a.py"}) == [("text", [1, 2, 3], None, None)]
    assert blocks("```\nprint(1)\n```\nAfter it.\nMore.") == [("text", [1, 2, 3, 4, 5], None, None)]


def test_fences_close_on_their_own_marker() -> None:
    text = "\n".join([
        "a.py", "````", "```", "inside", "```", "````",  # 1-6: four backticks hold three
        "b.py", "~~~", "b", "~~~",  # 7-10
        "c.py", "<source>python", *SR, "</source>",  # 11-18
    ])
    assert blocks(text, {"a.py", "b.py"}) == [
        ("edit", [1, 2, 3, 4, 5, 6], "a.py", "whole"),
        ("edit", [7, 8, 9, 10], "b.py", "whole"),
        ("edit", list(range(11, 19)), "c.py", "search_replace"),
    ]
    # a fence never closed is text to the end
    assert blocks("a.py\n```\nx", {"a.py"}) == [("text", [1, 2, 3], None, None)]
    # an empty file written whole: the fence closes on the next line
    assert blocks("a.py\n```\n```\nb.py\n```\nb\n```", {"a.py", "b.py"}) == [
        ("edit", [1, 2, 3], "a.py", "whole"), ("edit", [4, 5, 6, 7], "b.py", "whole")]
    # a diff fence without a `+++` line is no udiff; a `<source>diff` fence with one is
    assert blocks("```diff\n-a\n+b\n```") == [("text", [1, 2, 3, 4], None, None)]
    assert blocks("<source>diff\n--- a/e.py\n+++ b/e.py\n-e\n+f\n</source>") == [
        ("edit", [1, 2, 3, 4, 5, 6], "e.py", "udiff")]


def test_reasoning_tags_and_the_text_right_after_them() -> None:
    text = "\n".join(["<think>", "", "plan", "", "more", "", "</think>", "Answer.", "", "Next."])
    assert blocks(text) == [
        ("tag", [1], None, None),
        ("reasoning", [3, 4, 5], None, None),
        ("tag", [7], None, None),
        ("text", [8, 9, 10], None, None),
    ]
    # an empty reasoning block is its two tags; a tag never closed is text
    assert blocks("<thinking>\n\n</thinking>\nok") == [
        ("tag", [1], None, None), ("tag", [3], None, None), ("text", [4], None, None)]
    assert blocks("<think>\nplan") == [("text", [1, 2], None, None)]
    assert blocks("<think>\n</think>\nok") == [("tag", [1], None, None), ("tag", [2], None, None),
                                               ("text", [3], None, None)]
    # the reply's last line blank (split is also given replies that end so)
    got = split(split_lines(b"Done.\n\n"), set())
    assert [(b.kind, [ln.no for ln in b.lines]) for b in got] == [("text", [1])]
    # the close must be the open tag's own: `</think>` does not close `<reasoning>`
    assert blocks("<reasoning>\na\n</think>\nb\n</reasoning>") == [
        ("tag", [1], None, None), ("reasoning", [2, 3, 4], None, None), ("tag", [5], None, None)]


def test_text_before_a_reasoning_block_is_its_own_block() -> None:
    text = "\n".join(["Intro.", "", "<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>", "why",
                      "</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>", "", "Out."])
    assert blocks(text) == [
        ("text", [1], None, None),
        ("tag", [3], None, None),
        ("reasoning", [4], None, None),
        ("tag", [5], None, None),
        ("text", [7], None, None),
    ]
    assert blocks("Intro.\nMore.\n\n<think>\nwhy\n</think>") == [
        ("text", [1, 2], None, None), ("tag", [4], None, None), ("reasoning", [5], None, None),
        ("tag", [6], None, None)]
    # a tag inside text (no blank line before it) is the text's
    assert blocks("Intro.\n<think>\nwhy\n</think>") == [("text", [1, 2, 3, 4], None, None)]
