"""forsy show / forsy render: log text is shown as text (never markup, never a terminal escape),
and the static page is self-contained: it opens from file:// with nothing fetched and nothing run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _review import SHOWN, hostile_log, put
from forsy.cli import app
from forsy.store import open_store

runner = CliRunner()
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    base = tmp_path_factory.mktemp("render")
    url = f"sqlite:///{base / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, hostile_log(base / "logs"))
    finally:
        st.close()
    return url, tid


def render(tmp_path: Path, url: str, tid: str, name: str) -> str:
    out = tmp_path / name
    r = runner.invoke(app, ["render", tid, "-o", str(out), "--store", url])
    assert r.exit_code == 0, r.stderr
    return out.read_text("utf-8")


def test_html_page_escapes_log_text_and_loads_nothing(hostile: tuple[str, str], tmp_path: Path) -> None:
    url, tid = hostile
    html = render(tmp_path, url, tid, "page.html")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "onerror=alert(2)" in html  # as text, inside an escaped tag
    assert re.search(r"Content-Security-Policy\" content=\"default-src 'none'", html)
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing from the network
    assert "<link" not in html  # the stylesheet is inline
    assert "matches the log" in html  # verify's verdict beside the values (the log is on this machine)
    assert "<mark" in html  # the copied span highlighted in its record


def test_markdown_page_keeps_html_as_text(hostile: tuple[str, str], tmp_path: Path) -> None:
    url, tid = hostile
    md = render(tmp_path, url, tid, "page.md")
    outside = re.sub(r"(`{3,})text\n.*?\n\1", "", md, flags=re.S)  # fenced blocks are literal
    assert "<script>" not in outside and "&lt;script&gt;" in outside
    assert "```text\n" in md and SHOWN in md  # whole values, fenced


def test_render_refuses_an_unknown_page_type(hostile: tuple[str, str], tmp_path: Path) -> None:
    url, tid = hostile
    r = runner.invoke(app, ["render", tid, "-o", str(tmp_path / "x.pdf"), "--store", url])
    assert r.exit_code == 2 and ".html or .md" in r.stderr


def test_show_prints_log_text_without_terminal_escapes(hostile: tuple[str, str]) -> None:
    url, tid = hostile
    r = runner.invoke(app, ["show", tid, "--store", url])
    assert r.exit_code == 0, r.stderr
    assert "\x1b" not in r.stdout and "\\x1b[31mRED" in r.stdout.replace("\n", "")
    r = runner.invoke(app, ["show", tid, "--step", "1", "--store", url])
    assert "\x1b" not in r.stdout and "<script>alert(1)</script>" in r.stdout
    assert "evidence" in r.stdout and "matches the log" in r.stdout


def test_show_a_folder_without_its_log_says_so(hostile: tuple[str, str], tmp_path: Path) -> None:
    url, tid = hostile
    assert runner.invoke(app, ["store", "export", tid, "-o", str(tmp_path / "t"), "--store", url]).exit_code == 0
    r = runner.invoke(app, ["show", str(tmp_path / "t"), "--step", "2"])
    assert r.exit_code == 0, r.stderr
    assert "not on this machine" in r.stdout and "not checked" in r.stdout


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (apt-get install chromium)")
def test_html_page_opens_offline_and_runs_nothing(hostile: tuple[str, str], tmp_path: Path) -> None:
    from _browser import browser

    url, tid = hostile
    render(tmp_path, url, tid, "page.html")
    with browser() as b:
        page = b.new_page()
        dialogs: list[str] = []
        requests: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.context.set_offline(True)
        page.goto((tmp_path / "page.html").as_uri())
        assert "alert(1)" in page.inner_text("td.task")
        page.wait_for_timeout(200)
        assert dialogs == []
        assert requests == [(tmp_path / "page.html").as_uri()]
        assert page.locator("img").count() == 0 and page.locator("script").count() == 0


# ---------------------------------------------------------------- never overwriting what forsy did not write
@pytest.mark.parametrize("name", ["notes.html", "notes.md"])
def test_render_never_overwrites_a_page_it_did_not_write(hostile: tuple[str, str], tmp_path: Path,
                                                         name: str) -> None:
    url, tid = hostile
    mine = tmp_path / name
    mine.write_text("my own notes\n")
    r = runner.invoke(app, ["render", tid, "-o", str(mine), "--store", url])
    assert r.exit_code == 6, r.stderr  # an output error
    assert f"{mine}: exists and was not written by forsy render; not overwritten" in r.stderr
    assert mine.read_text() == "my own notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no work file left beside it


@pytest.mark.parametrize("name", ["page.html", "page.md"])
def test_render_replaces_its_own_page(hostile: tuple[str, str], tmp_path: Path, name: str) -> None:
    url, tid = hostile
    first = render(tmp_path, url, tid, name)
    assert render(tmp_path, url, tid, name) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_render_never_writes_through_a_symlink_it_did_not_make(hostile: tuple[str, str], tmp_path: Path) -> None:
    url, tid = hostile
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n")
    (tmp_path / "page.html").symlink_to(target)
    r = runner.invoke(app, ["render", tid, "-o", str(tmp_path / "page.html"), "--store", url])
    assert r.exit_code == 6 and "not overwritten" in r.stderr
    assert target.read_text() == "keep\n" and (tmp_path / "page.html").is_symlink()


def test_show_of_a_file_that_is_no_trace_names_that_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    r = runner.invoke(app, ["show", str(notes)])
    assert r.exit_code == 2
    assert f"{notes}: not a trace folder nor a trace's trace.json" in r.stderr


@pytest.mark.parametrize("width", [80, 132])
def test_show_fits_a_terminal_one_line_a_step(hostile: tuple[str, str], width: int) -> None:
    url, tid = hostile
    r = runner.invoke(app, ["show", tid, "--store", url], env={"COLUMNS": str(width)})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "time"])
    steps = [line for line in lines[head + 1:] if re.match(r"\s*\d+ \d\d:\d\d:\d\d ", line)]
    assert [int(line.split()[0]) for line in steps] == list(range(1, len(steps) + 1)) and len(steps) >= 9
    assert any("python -m pytest -q" in line for line in steps)  # a call says what it ran
