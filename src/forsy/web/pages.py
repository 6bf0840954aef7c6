"""The templates, shared by the web app and `forsy render` (the same pages, served or static).

Jinja2 with autoescaping on for every .html template: every piece of log text is escaped
where it is written into the page, never marked safe. The Markdown page escapes for
Markdown instead (`md_text`, `fence`: `forsy.markdown`), and every value shows bidirectional
controls instead of obeying them.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

import jinja2
import markupsafe

from ..markdown import fence, inline, visible
from ..review.evidence import RECORD_CAP, EvidenceView
from ..review.overlay import STEP_EDITABLE, value_hint
from ..review.view import short


def segments(r: EvidenceView, cap: int | None) -> list[tuple[str, str]]:
    """The record's text cut into (text, fields) pieces: a non-empty `fields` marks a copied span."""
    text = r.text or ""
    if cap is not None:
        text = text[:cap]
    out: list[tuple[str, str]] = []
    pos = 0
    for s in r.spans:
        if s.start < pos or s.start >= len(text):
            continue  # overlapping or beyond the cut: the first span shown wins
        end = min(s.end, len(text))
        if s.start > pos:
            out.append((text[pos:s.start], ""))
        names = ", ".join(x.field for x in r.spans if (x.start, x.end) == (s.start, s.end))
        out.append((text[s.start:end], names))
        pos = end
    if pos < len(text):
        out.append((text[pos:], ""))
    return out


@cache
def _md() -> Any:
    """CommonMark with no raw HTML (it is shown as text), no images (no request leaves the page),
    links kept as links that send no referrer and open nothing in this window's context."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    return md


def markdown(text: object) -> markupsafe.Markup:
    """An agent's answer (Markdown) as safe HTML: markdown-it escapes every character of the
    source; only its own tags are emitted."""
    return markupsafe.Markup(_md().render(str("" if text is None else text)))


def field_hint(step: int, name: str) -> str:
    """What an edit of a step's field may be, when that is not any text ("-1, 0 or 1")."""
    return "" if STEP_EDITABLE.get(name, str) is str else value_hint(step, name)


@cache
def _placeholder() -> re.Pattern[str]:
    from ..redact import NUMBERED_PLACEHOLDER_RE  # loaded when a page first shows a value

    return NUMBERED_PLACEHOLDER_RE


_TAG = re.compile(r"(<[^>]*>)")


def masked(v: object) -> markupsafe.Markup:
    """A value (text, or markup a filter made) with each placeholder redaction wrote in it
    (`[CREDENTIAL_2]`) marked as such, so a reviewer tells what forsy masked from what the log
    said; text is escaped first, and markup is changed only between its tags (never in an
    attribute)."""
    html = str(v) if isinstance(v, markupsafe.Markup) else str(markupsafe.escape("" if v is None else v))
    if "[" not in html:
        return markupsafe.Markup(html)
    rx = _placeholder()
    parts = _TAG.split(html)

    def mark(m: re.Match[str]) -> str:
        what = m.group(1).lower().replace("_", " ")
        return f'<span class="masked" title="masked by forsy before it was stored: {what}">{m.group(0)}</span>'

    for i in range(0, len(parts), 2):  # the text between tags
        parts[i] = rx.sub(mark, parts[i])
    return markupsafe.Markup("".join(parts))


def _visible(v: object) -> object:
    """Every value written into a page: bidirectional controls shown as their code points (in
    markup already escaped, as escaped text)."""
    if isinstance(v, markupsafe.Markup):
        return markupsafe.Markup(visible(str(v), html=True))
    return visible(v) if isinstance(v, str) else v


@cache
def env() -> jinja2.Environment:
    e = jinja2.Environment(
        loader=jinja2.PackageLoader("forsy.web", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # every value written into a page: bidirectional controls shown, never obeyed
        finalize=_visible,
    )
    e.globals.update(segments=segments, short=short, record_cap=RECORD_CAP, field_hint=field_hint)
    e.filters.update(md_text=inline, fence=fence, markdown=markdown, short=short, masked=masked)
    return e


def css() -> str:
    return resources.files("forsy.web").joinpath("static/review.css").read_text("utf-8")
