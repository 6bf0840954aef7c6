"""`forsy render`: a trace as one self-contained page (HTML or Markdown), from the web app's templates.

The HTML page carries its stylesheet inline and a Content-Security-Policy that allows
nothing else (no script, no request, no font, no image), so it opens from file:// with the
network off, and log text that slipped past escaping still could not run or fetch anything.

Every page carries a mark (`HTML_MARK` in the head, `MD_MARK` as its first line) so that a
second render may replace a page forsy wrote, and `write_page` refuses any other file: forsy
never overwrites what it did not write.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import markupsafe

from .._atomic import replace_file
from ..errors import OutputError
from ..review.conversation import conversation, marked
from ..review.evidence import EvidenceReader
from ..review.source import LoadedTrace
from ..review.view import extras, header, rows, step_view
from .pages import css, env

HTML_MARK = '<meta name="generator" content="forsy render">'
MD_MARK = "<!-- generator: forsy render -->"
_HEAD = 4096  # the marks sit in the first bytes of a page


def _context(d: LoadedTrace, evidence: bool) -> dict[str, object]:
    reader = EvidenceReader(d) if evidence else None
    h = header(d)
    blocks = conversation(d)
    return dict(
        # forsy's own stylesheet, inline: as it is (escaped, `a > b` would be `a &gt; b`: no such rule)
        static=True, title=h.trace_id, css=markupsafe.Markup(css()), reviewer=None, message=None, message_kind="",
        h=h, can_review=False, csrf="", levels=[], edits=[], extras=extras(d), step_rows=rows(d), pages=1, page=1,
        step_url=lambda n: f"#step-{n}", conv_url=lambda n: f"#c-{n}", blocks=blocks, marked=marked(blocks),
        needs=None,
        # one at a time, as the page reaches them: a trace of thousands of steps is never held
        # as views and as a page at once (each template walks them once)
        step_views=(step_view(d, n, reader, cap=None) for n in range(1, len(d.steps) + 1)))


def html_parts(d: LoadedTrace, *, evidence: bool = True) -> Iterator[str]:
    """The HTML page in parts, in order (`write_page` writes them as they come)."""
    return env().get_template("draft.html").generate(**_context(d, evidence))


def markdown_parts(d: LoadedTrace) -> Iterator[str]:
    return env().get_template("page.md").generate(**_context(d, False))


def render_html(d: LoadedTrace, *, evidence: bool = True) -> str:
    return "".join(html_parts(d, evidence=evidence))


def render_markdown(d: LoadedTrace) -> str:
    return "".join(markdown_parts(d))


def rendered_by_forsy(path: Path) -> bool:
    """Whether `path` is a page `forsy render` wrote (a symlink never is: replacing it would
    write wherever it points)."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as f:
            head = f.read(_HEAD).decode("utf-8", "replace")
    except OSError:
        return False
    return head.startswith(MD_MARK) or (head.startswith("<!doctype html>") and HTML_MARK in head)


def write_page(path: Path, text: str | Iterable[str]) -> None:
    """Write a page (a work file renamed over it; given in parts, each written as it comes),
    never over a file forsy did not write."""
    if path.exists() or path.is_symlink():
        if path.is_dir():
            raise OutputError("exists and is a folder, not a page", path=path)
        if not rendered_by_forsy(path):
            raise OutputError("exists and was not written by forsy render; not overwritten", path=path)
    try:
        replace_file(path, text.encode("utf-8") if isinstance(text, str) else (t.encode("utf-8") for t in text))
    except OSError as e:
        raise OutputError(e.strerror or str(e), path=path) from None
