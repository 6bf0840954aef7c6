"""Log text written into Markdown (the trace folder's dataset card, `forsy render -o page.md`) or
shown in a page is inert: no heading, tag, image, frame or link made from it, and Unicode
bidirectional controls shown instead of obeyed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.markdown import fence, inline, visible
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink

PROMPT = ("# Owned <img src=https://evil.example/beacon.png> <iframe src=https://evil.example/></iframe> "
          "[click](https://evil.example) \u202eevil\u202c and the rest")


def hostile_first_prompt(tmp_path: Path) -> Path:
    lines = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8").splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        if rec.get("type") == "user" and isinstance((rec.get("message") or {}).get("content"), str):
            rec["message"]["content"] = PROMPT
        out.append(json.dumps(rec, ensure_ascii=False))
    log = tmp_path / "hostile.jsonl"
    log.write_text("\n".join(out) + "\n", "utf-8")
    return log


def test_the_dataset_card_takes_no_markup_from_the_log(tmp_path: Path) -> None:
    [o] = retrace_one(hostile_first_prompt(tmp_path), RetraceOptions(), sink=FolderSink(tmp_path / "t", parent=False))
    assert o.status == "written"
    card = (tmp_path / "t" / "README.md").read_text("utf-8")
    body = card.split("---", 2)[2]
    assert "<img" not in body and "<iframe" not in body and "](https://" not in body
    assert "\u202e" not in card
    headings = [line for line in body.splitlines() if line.startswith("#")]
    assert headings == ["# Claude Code session d99e6618: # Owned &lt;img src=https://evil.example/beacon.png&gt; "
                        "&lt;iframe…", "## Files", "## Known limits"]


@pytest.mark.parametrize("text", ["# h", "> q", "- i", "+ i", "* i", "1. n", "2) n", "=== ", "---"])
def test_inline_never_opens_a_block(text: str) -> None:
    md = inline(text)
    assert not re.match(r"^(#|>|[-+*=]|\d+[.)])", md), md


def test_inline_escapes_tags_links_and_images() -> None:
    md = inline("<b>x</b> ![i](http://a/b.png) [l](http://a) `c` *e* _u_ |t|")
    assert "<" not in md and "](" not in md.replace("\\](", "")
    assert md.count("\\[") == 2 and "\\`c\\`" in md and "\\*e\\*" in md and "\\|t\\|" in md


def test_bidirectional_controls_are_shown_not_obeyed() -> None:
    assert visible("a\u202eb\u2066c") == "a<U+202E>b<U+2066>c"
    assert "\u202e" not in fence("x\u202ey") and "\u202e" not in inline("x\u202ey")


def test_rendered_pages_show_bidirectional_controls(tmp_path: Path) -> None:
    from forsy.review.source import from_folder
    from forsy.web.render import render_html, render_markdown

    [o] = retrace_one(hostile_first_prompt(tmp_path), RetraceOptions(), sink=FolderSink(tmp_path / "t", parent=False))
    d = from_folder(tmp_path / "t", [tmp_path / "hostile.jsonl"])
    for page in (render_html(d), render_markdown(d)):
        assert "\u202e" not in page and "&lt;U+202E&gt;evil" in page.replace("<U+202E>", "&lt;U+202E&gt;")
