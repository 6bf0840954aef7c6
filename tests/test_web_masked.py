"""What redaction masked is shown as such on the review pages: each placeholder it wrote
(`[CREDENTIAL_1]`) is marked, with what kind of value it stands for, wherever the draft's work
shows it (the user's words, commands, outputs, diffs, answers, a step's fields), never inside an
attribute or a tag; and the draft says once which kinds were masked and how many."""

from __future__ import annotations

import re
from pathlib import Path

from _review import USER, planted_log
from forsy.review.source import from_folder
from forsy.run import RetraceOptions, retrace
from forsy.web.pages import markdown, masked
from forsy.web.render import render_html

SPAN = '<span class="masked" title="masked by forsy before it was stored: {}">[{}]</span>'


def test_a_placeholder_is_marked_and_everything_else_escaped() -> None:
    assert masked("key [CREDENTIAL_12] <b>") == "key " + SPAN.format("credential", "CREDENTIAL_12") + " &lt;b&gt;"
    assert masked("at /home/[PATH_USER_1]/x") == "at /home/" + SPAN.format("path user", "PATH_USER_1") + "/x"
    assert masked("no placeholder [here] [CREDENTIAL] [NOT_A_KIND_1]") == (
        "no placeholder [here] [CREDENTIAL] [NOT_A_KIND_1]")
    assert masked(None) == ""
    # markup a filter made: only its text is changed, never a tag or an attribute
    html = masked(markdown('mail [EMAIL_2], see [doc](https://x.example/[EMAIL_2] "about [EMAIL_2]")'))
    assert html.count('class="masked"') == 1 and 'href="https://x.example/%5BEMAIL_2%5D"' in html
    assert 'title="about [EMAIL_2]"' in html and "<p>mail " + SPAN.format("email", "EMAIL_2") in html


def test_the_draft_marks_what_was_masked_where_the_work_shows_it(tmp_path: Path) -> None:
    log, secrets = planted_log(tmp_path / "logs")
    retrace([log], RetraceOptions(out=tmp_path / "t"))
    html = render_html(from_folder(tmp_path / "t"), evidence=False)
    assert not any(s in html for s in secrets) and USER not in html
    work = html[html.index("<h2>The work</h2>"):html.index('class="steptable"')]
    said = re.search(r'<div class="words" tabindex="0">[^<]*My token is (.*?) and DB_PASSWORD=(.*?) here', work)
    assert said, work[:2000]
    assert said.group(1) == SPAN.format("credential", "CREDENTIAL_1")
    assert said.group(2) == SPAN.format("credential", "CREDENTIAL_2")
    out = re.search(r'<pre class="out[^"]*" tabindex="0">[^<]*?AWS_SECRET_ACCESS_KEY=(<span[^>]*>[^<]*</span>)', work)
    assert out and out.group(1) == SPAN.format("credential", "CREDENTIAL_3"), work[:3000]
    assert SPAN.format("path user", "PATH_USER_1") in work  # the home folder's owner, in paths
    legend = re.search(r'<p class="masking">Masked before it was stored: (.*?)\. The same value', work)
    assert legend and re.fullmatch(r'(\d+ <span class="masked">\[[A-Z_]+_n\]</span>(, )?)+', legend.group(1))
    assert '3 <span class="masked">[CREDENTIAL_n]</span>' in legend.group(1)
    # a step's own page (its fields, as the static page holds them) marks them too
    steps = html[html.index('class="step" id="step-1"'):]
    assert re.search(r'<pre class="value">[^<]*My token is ' + re.escape(SPAN.format("credential", "CREDENTIAL_1")),
                     steps)
