"""The promises of `forsy.web.pages` and `forsy.web.render`: a record's copied spans cut right;
an agent's Markdown answer becomes HTML with no raw HTML, no image and links that send no
referrer; every value shows bidirectional controls instead of obeying them; a rendered page is
self-contained, marked as forsy's, and never written over a file forsy did not write."""

from __future__ import annotations

import re
from pathlib import Path

import markupsafe
import pytest

from forsy.errors import OutputError
from forsy.review.evidence import EvidenceView, Span
from forsy.review.source import from_folder
from forsy.web import pages, render
from forsy.web.render import HTML_MARK, MD_MARK, render_html, render_markdown, rendered_by_forsy, write_page

RLO = "\u202e"


def record(text: str | None, *spans: tuple[str, int, int]) -> EvidenceView:
    return EvidenceView("ev", "s", 1, 0, 0, "", None, text, "", tuple(Span(f, a, b) for f, a, b in spans))


def test_segments_mark_each_copied_span_once() -> None:
    text = "0123456789"
    assert pages.segments(record(text, ("a", 2, 4), ("b", 2, 4), ("c", 6, 8)), None) == [
        ("01", ""), ("23", "a, b"), ("45", ""), ("67", "c"), ("89", "")]
    # an overlapping span is left out; the first wins
    assert pages.segments(record(text, ("a", 0, 5), ("b", 3, 7)), None) == [("01234", "a"), ("56789", "")]
    # cut at the cap: a span past it is left out, one across it is cut
    assert pages.segments(record(text, ("a", 3, 8), ("b", 8, 9)), 6) == [("012", ""), ("345", "a")]
    assert pages.segments(record(text, ("a", 6, 8)), 6) == [("012345", "")]
    assert pages.segments(record(text, ("a", 0, 10)), None) == [("0123456789", "a")]
    assert pages.segments(record(None), None) == [] and pages.segments(record(""), 5) == []
    assert pages.segments(record(text), 0) == []


def test_markdown_answers_have_no_raw_html_no_images_and_safe_links() -> None:
    html = pages.markdown("**bold** <script>alert(1)</script> ![b](https://evil.example/b.png) "
                          "[link](https://example.org/x)")
    assert isinstance(html, markupsafe.Markup)
    assert "<strong>bold</strong>" in html and "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html  # an image is a link at most: nothing is fetched by showing the page
    assert '!<a href="https://evil.example/b.png" rel="nofollow noopener noreferrer">b</a>' in html
    assert '<a href="https://example.org/x" rel="nofollow noopener noreferrer">link</a>' in html
    assert pages.markdown(None) == "" and pages.markdown(5) == "<p>5</p>\n"
    assert pages.markdown("https://example.org") == "<p>https://example.org</p>\n"  # not made a link
    assert pages.markdown('"quotes" -- dashes') == "<p>&quot;quotes&quot; -- dashes</p>\n"  # as typed


def test_every_value_shows_bidirectional_controls() -> None:
    assert pages._visible(f"a{RLO}b") == "a<U+202E>b"
    assert pages._visible(markupsafe.Markup(f"<b>a{RLO}</b>")) == markupsafe.Markup("<b>a&lt;U+202E&gt;</b>")
    assert isinstance(pages._visible(markupsafe.Markup("x")), markupsafe.Markup)
    assert pages._visible(5) == 5 and pages._visible(None) is None
    t = pages.env().from_string("{{ v }}|{{ m }}")
    assert t.render(v=f"<i>{RLO}</i>", m=markupsafe.Markup(f"<i>{RLO}</i>")) == (
        "&lt;i&gt;&lt;U+202E&gt;&lt;/i&gt;|<i>&lt;U+202E&gt;</i>")


def test_the_template_environment() -> None:
    e = pages.env()
    assert pages.env() is e
    assert e.get_template("error.html").render(
        static=False, reviewer="<b>r</b>", message=None, message_kind="", csrf="c", title="t", heading="h",
        detail="<script>x</script>", back=None, typed=None).count("&lt;script&gt;") == 1
    with pytest.raises(Exception, match="undefined"):
        e.from_string("{{ nothing_given }}").render()
    assert e.from_string("  {% if true %}\na\n  {% endif %}\n").render() == "a\n"  # blocks trimmed
    assert e.filters["short"]("a  b") == "a b" and e.globals["record_cap"] == 20_000
    assert e.filters["md_text"]("*x*") == "\\*x\\*" and e.filters["fence"]("x").startswith("```")
    assert "body" in pages.css() or "{" in pages.css()


TRACE = b'{"trace_id": "forsy_r", "task": "Fix <b>it</b>", "steps": []}'


def test_a_rendered_page_is_self_contained_and_marked(tmp_path: Path) -> None:
    f = tmp_path / "t"
    f.mkdir()
    (f / "trace.json").write_bytes(TRACE)
    d = from_folder(f)
    html = render_html(d, evidence=False)
    assert html.startswith("<!doctype html>") and HTML_MARK in html[:4096]
    assert "default-src 'none'; style-src 'unsafe-inline'" in html
    assert f"<style>{pages.css()}</style>" in html  # its own stylesheet as it is: `a > b` rules hold
    assert "<script" not in html and "/static/" not in html and "Fix &lt;b&gt;it&lt;/b&gt;" in html
    md = render_markdown(d)
    assert md.startswith(MD_MARK) and "# Forsy trace forsy\\_r" in md and "<b>it</b>" not in md
    page = tmp_path / "page.html"
    write_page(page, html)
    assert page.read_text("utf-8") == html and rendered_by_forsy(page)
    write_page(page, html + "again")  # a page forsy wrote: replaced
    assert page.read_text("utf-8").endswith("again")
    mdp = tmp_path / "page.md"
    write_page(mdp, md)
    assert rendered_by_forsy(mdp)


@pytest.mark.parametrize("content", [b"", b"<!doctype html>\n<p>mine</p>", b"# my notes\n",
                                     b"<!doctype html>" + b" " * 4096 + HTML_MARK.encode(),
                                     HTML_MARK.encode() + b"\n<!doctype html>", b"\n" + MD_MARK.encode()])
def test_a_file_forsy_did_not_write_is_never_replaced(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "page.html"
    p.write_bytes(content)
    assert not rendered_by_forsy(p)
    with pytest.raises(OutputError) as e:
        write_page(p, "new")
    assert e.value.message == "exists and was not written by forsy render; not overwritten" and e.value.path == str(p)
    assert p.read_bytes() == content


def test_a_link_or_a_folder_is_never_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text(MD_MARK + "\nforsy's")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert rendered_by_forsy(real) and not rendered_by_forsy(link)
    with pytest.raises(OutputError):
        write_page(link, "new")
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError):
        write_page(dangling, "new")
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(OutputError) as e:
        write_page(tmp_path / "dir.md", "x")
    assert e.value.message == "exists and is a folder, not a page" and e.value.path == str(tmp_path / "dir.md")
    assert not rendered_by_forsy(tmp_path / "missing.md")
    with pytest.raises(OutputError) as e:
        write_page(tmp_path / "no" / "such" / "page.md", "x")
    assert e.value.message == "No such file or directory" and e.value.path == str(tmp_path / "no" / "such" / "page.md")


def test_an_error_with_no_strerror_is_said_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(path: Path, data: bytes) -> None:
        raise OSError("the disk went away")

    monkeypatch.setattr(render, "replace_file", fail)
    with pytest.raises(OutputError) as e:
        write_page(tmp_path / "p.md", "x")
    assert e.value.message == "the disk went away" and e.value.path == str(tmp_path / "p.md")


def test_a_page_with_bytes_that_are_not_utf8_in_its_head_is_still_read(tmp_path: Path) -> None:
    p = tmp_path / "p.md"
    p.write_bytes(MD_MARK.encode() + b"\n\xff\xfe")
    assert rendered_by_forsy(p)
    assert render._HEAD == 4096


def test_a_page_that_cannot_be_read_is_not_forsys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "p.md"
    p.write_text(MD_MARK + "\n")
    assert rendered_by_forsy(p)

    def refuse(*a: object, **k: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    assert not rendered_by_forsy(p)


def test_a_rendered_page_shows_every_step_with_its_evidence_and_no_form(tmp_path: Path) -> None:
    from _paths import SAMPLES
    from _review import put
    from forsy.review.source import from_store
    from forsy.store import open_store

    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        d = from_store(st, put(st, SAMPLES / "claude" / "demo-session.jsonl"))
    finally:
        st.close()
    n = len(d.steps)
    html = render_html(d)
    assert f"<title>{d.trace['trace_id']} · forsy</title>" in html
    assert [int(x) for x in re.findall(r'<section class="step" id="step-(\d+)">', html)] == list(range(1, n + 1))
    assert 'href="#step-1"' in html and f'href="#step-{n}"' in html and 'href="None"' not in html
    assert "<h3>Evidence</h3>" in html and "<h3>Evidence</h3>" not in render_html(d, evidence=False)
    assert "<form" not in html and 'class="pages"' not in html and 'name="csrf"' not in html


def test_a_rendered_page_shows_a_long_field_whole(tmp_path: Path) -> None:
    """The served step page cuts a field at 4,000 characters with a link to the rest; a rendered
    page has no server to ask, so it shows every field whole."""
    f = tmp_path / "t"
    f.mkdir()
    (f / "trace.json").write_text('{"trace_id": "forsy_r", "task": "t", "steps": [{"step": 1, "actor": "agent", '
                                  '"output": "' + "y" * 4100 + 'END"}]}')
    html = render_html(from_folder(f), evidence=False)
    assert "y" * 4100 + "END</pre>" in html and "cut at" not in html
