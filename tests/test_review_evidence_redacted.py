"""Evidence shown to a person is masked by the trace's own redactor: credentials and the home
user name planted in a session never reach a rendered page, a served page or the terminal, and a
value masked in a field carries the same placeholder in the log record shown beside it."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from _review import ADA, USER, cli, planted_log, put
from forsy.cli import app
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink
from forsy.store import open_store
from secretgen import forms

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

runner = CliRunner()
def leaked(text: str, secrets: list[str]) -> list[str]:
    found = [s for s in secrets if any(f in text for f in forms(s))]
    return found + ([USER] if USER in text else [])


def token_placeholder(trace: dict[str, object]) -> str:
    """The placeholder the trace gives the planted token (read from the user's step)."""
    m = re.search(r"My token is (\[[A-Z_]+_\d+\])", orjson.dumps(trace).decode())
    assert m, "the trace does not hold the masked token"
    return m.group(1)


@pytest.fixture
def stored(tmp_path: Path) -> tuple[str, str, list[str], Path]:
    log, secrets = planted_log(tmp_path / "logs")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, log)
        trace = orjson.loads(next(f.data for f in st.trace_files(tid) if f.name == "trace.json"))
    finally:
        st.close()
    assert not leaked(orjson.dumps(trace).decode(), secrets)  # the trace itself is masked
    return url, tid, secrets, log


def test_a_rendered_page_shows_evidence_masked_with_the_traces_placeholders(
        stored: tuple[str, str, list[str], Path], tmp_path: Path) -> None:
    url, tid, secrets, _ = stored
    for name in ("page.html", "page.md"):
        code, _, err = cli("render", tid, "-o", str(tmp_path / name), "--store", url)
        assert code == 0, err
        page = (tmp_path / name).read_text("utf-8")
        assert not leaked(page, secrets), name
    html = (tmp_path / "page.html").read_text("utf-8")
    st = open_store(url)
    try:
        trace = orjson.loads(next(f.data for f in st.trace_files(tid) if f.name == "trace.json"))
    finally:
        st.close()
    ph = token_placeholder(trace)
    # the record of the user's message is shown, masked with the very placeholder of the trace
    assert html.count(f"My token is {ph}") >= 2, "the evidence does not carry the trace's placeholder"


def test_served_pages_and_the_terminal_show_no_raw_evidence(stored: tuple[str, str, list[str], Path]) -> None:
    from forsy.web.app import make_app
    from forsy.web.guard import Settings

    url, tid, secrets, _ = stored
    token = "t" * 40
    s = Settings(store_url=url, reviewer=ADA, token=token, hosts={"127.0.0.1:9"})
    with TestClient(make_app(s), base_url="http://127.0.0.1:9", follow_redirects=True) as c:
        c.get(f"/?token={token}")
        html = c.get(f"/t/{tid}").text
        steps = int(re.findall(r"/t/[^/]+/s/(\d+)", html)[-1])
        assert steps >= 5
        shown = False
        for n in range(1, steps + 1):
            for q in ("", "?full=1"):
                page = c.get(f"/t/{tid}/s/{n}{q}").text
                assert not leaked(page, secrets), (n, q)
                shown = shown or "AWS_SECRET_ACCESS_KEY=[" in page
        assert shown, "the tool output's record was never shown"
    for n in range(1, steps + 1):
        code, out, err = cli("review", "show", tid, "--step", str(n), "--store", url)
        assert code == 0, err
        assert not leaked(out, secrets), n


def test_show_of_a_trace_folder_with_its_logs_masks_the_evidence(tmp_path: Path) -> None:
    log, secrets = planted_log(tmp_path / "logs")
    [o] = retrace_one(log, RetraceOptions(), sink=FolderSink(tmp_path / "trace", parent=False))
    assert o.status == "written"
    steps = len(orjson.loads((tmp_path / "trace" / "trace.json").read_bytes())["steps"])
    seen = ""
    for n in range(1, steps + 1):
        code, out, err = cli("show", str(tmp_path / "trace"), "--step", str(n), "--logs", str(log.parent))
        assert code == 0, err
        assert not leaked(out, secrets), n
        seen += out
    assert "evidence" in seen and "My token is [" in seen


def test_raw_evidence_is_shown_only_when_asked_and_says_so_loudly(tmp_path: Path) -> None:
    log, secrets = planted_log(tmp_path / "logs")
    [o] = retrace_one(log, RetraceOptions(), sink=FolderSink(tmp_path / "trace", parent=False))
    r = runner.invoke(app, ["show", str(tmp_path / "trace"), "--step", "1", "--logs", str(log.parent),
                            "--raw-evidence"])
    assert r.exit_code == 0, r.stderr
    assert "unredacted" in r.stderr and "WARNING" in r.stderr
    assert leaked(r.stdout, secrets), "the explicit raw view shows the log as it is"
