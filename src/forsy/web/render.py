"""`forsy render`: a trace as one self-contained page (HTML or Markdown), from the web app's templates.

The HTML page carries its stylesheet inline and a Content-Security-Policy that allows
nothing else (no script, no request, no font, no image), so it opens from file:// with the
network off, and log text that slipped past escaping still could not run or fetch anything.
"""

from __future__ import annotations

from ..review.source import EvidenceReader, LoadedTrace
from ..review.view import extras, header, rows, step_view
from .pages import css, env


def _context(d: LoadedTrace, evidence: bool) -> dict[str, object]:
    reader = EvidenceReader(d) if evidence else None
    h = header(d)
    return dict(
        static=True, title=h.trace_id, css=css(), reviewer=None, message=None, message_kind="", h=h,
        can_review=False, csrf="", levels=[], edits=[], extras=extras(d), step_rows=rows(d), pages=1, page=1,
        step_url=lambda n: f"#step-{n}",
        step_views=[step_view(d, n, reader, cap=None) for n in range(1, len(d.steps) + 1)])


def render_html(d: LoadedTrace, *, evidence: bool = True) -> str:
    return env().get_template("draft.html").render(**_context(d, evidence))


def render_markdown(d: LoadedTrace) -> str:
    return env().get_template("page.md").render(**_context(d, False))
