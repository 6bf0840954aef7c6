"""`forsy render` writes the page as it is made (a trace of thousands of steps is never held as a
page whole): the same bytes as the page made whole, and a page that fails while it is made
leaves no work file and the page that was there as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forsy.review.source import from_folder
from forsy.web.render import HTML_MARK, html_parts, markdown_parts, render_html, render_markdown, write_page

GOLDEN = Path(__file__).parent / "golden"


def _folder(tmp_path: Path) -> Path:
    """The demo session's reviewed golden trace folder (read only)."""
    return GOLDEN / "claude__demo-session.jsonl"


def test_parts_make_the_same_page(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    parts = list(html_parts(from_folder(folder), evidence=False))
    assert len(parts) > 10  # made in parts, not one string
    assert "".join(parts) == render_html(from_folder(folder), evidence=False)
    page = tmp_path / "p.html"
    write_page(page, iter(parts))
    assert page.read_text("utf-8") == "".join(parts)
    md = tmp_path / "p.md"
    write_page(md, markdown_parts(from_folder(folder)))
    assert md.read_text("utf-8") == render_markdown(from_folder(folder))


def test_a_page_failing_midway_leaves_the_old_page_and_no_work_file(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    old = f"<!doctype html><head>{HTML_MARK}</head>old page"
    page.write_text(old, "utf-8")

    def failing() -> Iterator[str]:
        yield f"<!doctype html><head>{HTML_MARK}</head>"
        yield "half of a new page"
        raise RuntimeError("a step could not be shown")

    with pytest.raises(RuntimeError):
        write_page(page, failing())
    assert page.read_text("utf-8") == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.html"]
