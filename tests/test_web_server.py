"""forsy review serve as people start it: the README's team command reachable (Host checked per
connection on 0.0.0.0, no local identity needed), a session cookie per server that is never the
token, bounded forms and numbers, a refused or conflicting edit that keeps what was typed, and
token names that mean the same to `add` and `revoke`."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from _review import ADA, HOST, TOKEN, hostile_log, put, review_serve
from forsy.cli import app
from forsy.store import open_store
from forsy.store.reviewers import create_reviewer_token
from forsy.web.app import make_app
from forsy.web.guard import MAX_FORM, Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

runner = CliRunner()


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, hostile_log(tmp_path / "logs"))
    finally:
        st.close()
    return url, tid


@pytest.fixture
def client(store: tuple[str, str]) -> Iterator[tuple[TestClient, str, str]]:
    url, tid = store
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        r = c.get(f"/?token={TOKEN}")
        assert r.status_code == 303
        yield c, url, tid


def no_identity_env(tmp_path: Path) -> dict[str, str]:
    """An environment with no reviewer identity at all (no flag, variable, config or git)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORSY_", "GIT_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull}


def test_the_readme_team_command_starts_without_a_local_identity_and_answers(store: tuple[str, str],
                                                                             tmp_path: Path) -> None:
    url, tid = store
    st = open_store(url)
    try:
        bob = create_reviewer_token(st, "Bob <bob@example.org>", "2026-03-02T09:00:00+00:00")
    finally:
        st.close()
    args = ["--store", url, "--host", "0.0.0.0", "--port", "0", "--allow-remote", "--reviewer-tokens"]
    with review_serve(args, no_identity_env(tmp_path)) as first:
        port = int(re.search(r":(\d+)/", first).group(1))  # type: ignore[union-attr]
        assert "YOUR_REVIEWER_TOKEN" in first  # nobody acts with a token printed on this terminal
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, follow_redirects=False, timeout=10) as c:
            assert c.get("/").status_code == 403  # reachable: the Host is the address connected to
            assert c.get("/", headers={"host": f"evil.example:{port}"}).status_code == 421
            r = c.get(f"/?token={bob}")
            assert r.status_code == 303
            page = c.get("/")
            assert page.status_code == 200 and "Bob" in page.text and f"/t/{tid}" in page.text


def test_the_cookie_is_a_session_of_this_server_never_the_token(store: tuple[str, str]) -> None:
    url, _ = store
    env = {**os.environ, "FORSY_REVIEWER": ADA}
    args = ["--store", url, "--port", "0"]
    with review_serve(args, env) as a, review_serve(args, env) as b:
        with httpx.Client(follow_redirects=False, timeout=10) as c:  # one browser, two forsy servers
            ra = c.get(a)
            assert ra.status_code == 303
            sid = next(iter(ra.cookies.values()))
            assert a.split("token=")[1] not in ra.headers["set-cookie"] and len(sid) >= 40
            assert c.get(b).status_code == 303
            home_a, home_b = a.split("?")[0], b.split("?")[0]
            assert c.get(home_a).status_code == 200  # the second login did not log the first out
            assert c.get(home_b).status_code == 200
            # the session of one server opens nothing on the other
            c.cookies.clear()
            c.cookies.set(f"forsy_review_{home_b.rsplit(':', 1)[1].strip('/')}", sid)
            assert c.get(home_b).status_code == 403


def test_a_huge_form_is_refused_by_its_length(client: tuple[TestClient, str, str]) -> None:
    c, _, tid = client
    r = c.post(f"/t/{tid}/reject", content=b"x" * 16, headers={"content-length": str(400 * 1024 * 1024),
                                                                 "content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
    r = c.post(f"/t/{tid}/reject", content=b"reason=" + b"x" * (MAX_FORM + 10),
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


@pytest.mark.parametrize("query", ["min_confidence=1e30", "min_confidence=100000000000000000000000000000",
                                   "min_confidence=-5", "page=100000000000000000000000000000"])
def test_out_of_range_numbers_are_refused_not_an_error(client: tuple[TestClient, str, str], query: str) -> None:
    c, _, tid = client
    path = f"/t/{tid}?{query}" if query.startswith("page") else f"/?{query}"
    r = c.get(path)
    assert r.status_code == 400 and "whole number" in r.text


@pytest.mark.parametrize("cmd", [["store", "list"], ["review", "list"]])
def test_out_of_range_confidence_on_the_command_line_is_an_input_error(store: tuple[str, str],
                                                                       cmd: list[str]) -> None:
    url, _ = store
    r = runner.invoke(app, [*cmd, "--store", url, "--min-confidence", str(10**30)])
    assert r.exit_code == 2, r.stderr
    assert "0 to 100" in r.stderr


def test_a_refused_edit_gives_the_typed_value_back(client: tuple[TestClient, str, str]) -> None:
    from forsy.web.guard import Settings as S

    c, _, tid = client
    csrf = S(store_url="", reviewer="", token=TOKEN, hosts=set()).csrf
    r = c.post(f"/t/{tid}/edit", data={"csrf": csrf, "version": "0", "step": "2", "field": "success",
                                       "value": "probably <yes>"})
    assert r.status_code == 400
    assert re.search(r'<textarea id="typed"[^>]*>probably &lt;yes&gt;</textarea>', r.text), r.text
    assert f'href="/t/{tid}/s/2" id="back"' in r.text


def test_a_conflict_keeps_the_typed_value_and_links_back(client: tuple[TestClient, str, str]) -> None:
    from forsy.web.guard import Settings as S

    c, _, tid = client
    csrf = S(store_url="", reviewer="", token=TOKEN, hosts=set()).csrf
    form = {"csrf": csrf, "version": "0", "step": "2", "field": "reasoning", "value": "first"}
    assert c.post(f"/t/{tid}/edit", data=form).status_code == 303
    r = c.post(f"/t/{tid}/edit", data={**form, "value": "my long careful second thought"})
    assert r.status_code == 409 and "my long careful second thought" in r.text
    assert f'href="/t/{tid}/s/2" id="back"' in r.text
    r = c.post(f"/t/{tid}/reject", data={"csrf": csrf, "version": "0", "reason": "x"})
    assert r.status_code == 409 and f'href="/t/{tid}" id="back"' in r.text


def test_a_token_is_revoked_by_the_name_it_was_added_with(store: tuple[str, str]) -> None:
    url, _ = store
    name = "  Bob   Builder <bob@example.org> "
    r = runner.invoke(app, ["review", "token", "add", name, "--store", url])
    assert r.exit_code == 0, r.stderr
    r = runner.invoke(app, ["review", "token", "revoke", name, "--store", url])
    assert r.exit_code == 0 and "1 token(s) revoked" in r.stdout, r.stderr
    r = runner.invoke(app, ["review", "token", "revoke", "Bob Buidler <bob@example.org>", "--store", url])
    assert r.exit_code == 2 and "no live token" in r.stderr


def test_a_damaged_store_is_a_page_that_says_so_not_a_traceback(client: tuple[TestClient, str, str]) -> None:
    """Each page of the database damaged in turn: the draft page and the queue answer (200 when
    what they read is intact, else a page saying the store cannot be read), never a traceback."""
    c, url, tid = client
    path = Path(url.removeprefix("sqlite:///"))
    pristine = path.read_bytes()
    seen: set[int] = set()
    for off in range(4096, len(pristine), 4096):
        path.write_bytes(pristine[:off] + b"\xff" * 4096 + pristine[off + 4096:])
        for p in (f"/t/{tid}", "/"):
            r = c.get(p)
            assert r.status_code in (200, 400, 503), (off, p, r.status_code, r.text[:300])
            assert "Traceback" not in r.text
            seen.add(r.status_code)
    assert 503 in seen  # some damage was met, and said


def test_with_no_identity_the_page_asks_once_and_keeps_the_answer(store: tuple[str, str], tmp_path: Path) -> None:
    url, tid = store
    env = no_identity_env(tmp_path)
    cfg = tmp_path / "forsy.toml"
    cfg.write_text('# my settings\n[llm]\nmodel = "x"\n', "utf-8")  # a user's file, with a table
    env["FORSY_CONFIG"] = str(cfg)
    with review_serve(["--store", url, "--port", "0"], env) as first:
        base = first.split("/?")[0]
        with httpx.Client(follow_redirects=False, timeout=10) as c:
            assert c.get(first).status_code == 303
            r = c.get(base + f"/t/{tid}")
            assert r.status_code == 303 and r.headers["location"] == "/who"
            page = c.get(base + "/who").text
            csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
            r = c.post(base + "/who", data={"csrf": csrf, "name": "  Grace   Hopper <grace@example.org> "})
            assert r.status_code == 303
            assert "reviewing as Grace Hopper &lt;grace@example.org&gt;" in c.get(base + f"/t/{tid}").text
    import tomllib

    kept = cfg.read_text("utf-8")
    assert kept.endswith('# my settings\n[llm]\nmodel = "x"\n')  # the user's lines, byte for byte
    assert tomllib.loads(kept)["reviewer"] == "Grace Hopper <grace@example.org>"
    r = runner.invoke(app, ["review", "list", "--store", url], env={"FORSY_CONFIG": str(cfg)})
    assert r.exit_code == 0


def test_a_session_whose_file_name_is_not_utf8_is_shown(tmp_path: Path) -> None:
    """A file name's bytes that are not UTF-8 reach the pages as `\\xNN`, never a 500."""
    from _paths import SAMPLES

    folder = tmp_path / "logs"
    folder.mkdir()
    name = os.fsdecode(b"caf\xe9-latin1.jsonl")
    (folder / name).write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, folder / name)
    finally:
        st.close()
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        for path in ("/", f"/t/{tid}", f"/t/{tid}/s/2", "/audit"):
            r = c.get(path)
            assert r.status_code == 200, (path, r.text[:300])
        page = c.get(f"/t/{tid}/s/2").text
        # the trace names the file with U+FFFD for its byte; its evidence is found and shown all the same
        assert "caf\ufffd-latin1.jsonl" in page and '<pre class="record"' in page
