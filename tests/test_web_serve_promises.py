"""The promises of `forsy.web.serve`, in process (uvicorn's loop replaced by a recorder): only
loopback is served unless asked for on purpose with a token of the user's own or reviewer tokens;
the socket listens before the URL is printed; the URL (the first line on stdout) carries the
token; the Host values accepted name the port bound; the session cookie is named after it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from forsy.errors import InputError
from forsy.web import serve as web_serve
from forsy.web.guard import COOKIE, Settings

STORE = "sqlite:////nowhere/store.db"
MINE = "m" * 32


@dataclass
class Served:
    settings: list[Settings] = field(default_factory=list)
    config: list[Any] = field(default_factory=list)
    listening: list[bool] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    import uvicorn

    got = Served()

    def make_app(s: Settings) -> str:
        got.settings.append(s)
        return "the app"

    def run(self: Any, sockets: list[socket.socket]) -> None:
        [sock] = sockets
        got.config.append(self.config)
        got.listening.append(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1)
        got.ports.append(sock.getsockname()[1])
        sock.close()

    monkeypatch.setattr(web_serve, "make_app", make_app)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr(web_serve, "machine_names", lambda: {"box.example"})
    yield got


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True),
    ("0.0.0.0", False), ("::", False), ("10.0.0.1", False), ("example.org", False), ("", False)])
def test_loopback_is_localhost_or_a_loopback_address(host: str, loopback: bool) -> None:
    assert web_serve._is_loopback(host) is loopback


def test_the_machine_names_are_its_host_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "box")
    monkeypatch.setattr(socket, "getfqdn", lambda: "box.example.org")
    assert web_serve.machine_names() == {"box", "box.example.org"}
    monkeypatch.setattr(socket, "getfqdn", lambda: "")
    assert web_serve.machine_names() == {"box"}


@pytest.mark.parametrize("kw", [{}, {"allow_remote": True}, {"token": MINE}, {"reviewer_tokens": True}])
def test_another_address_needs_allow_remote_and_a_token_or_reviewer_tokens(served: Served, kw: dict[str, Any]) -> None:
    with pytest.raises(InputError) as e:
        web_serve.serve(STORE, "Ada", host="10.0.0.1", port=0, **kw)
    assert e.value.message == ("refusing to serve on 10.0.0.1, which is not this machine's loopback: give "
                               "--allow-remote and --token (at least 32 characters) or --reviewer-tokens to do it "
                               "on purpose")
    assert served.settings == []


def test_a_token_of_the_users_own_has_32_characters_at_least(served: Served) -> None:
    with pytest.raises(InputError, match=r"^a --token needs at least 32 characters$"):
        web_serve.serve(STORE, "Ada", port=0, token="m" * 31)
    assert served.settings == []
    web_serve.serve(STORE, "Ada", port=0, token=MINE)
    assert served.settings[0].token == MINE


def test_loopback_prints_the_url_with_the_token_once_listening(served: Served,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    web_serve.serve(STORE, "Ada <ada@example.org>", port=0)
    [s], [port] = served.settings, served.ports
    out, err = capsys.readouterr()
    assert out == f"http://127.0.0.1:{port}/?token={s.token}\n" and len(s.token) >= 32
    assert err == f"forsy: reviewing as Ada <ada@example.org>; store {STORE}; Ctrl-C to stop\n"
    assert served.listening == [True]
    assert s.hosts == {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    assert (s.store_url, s.reviewer, s.cookie, s.reviewer_tokens, s.any_address, s.own_token) == (
        STORE, "Ada <ada@example.org>", f"{COOKIE}_{port}", False, False, True)
    [c] = served.config
    assert (c.app, c.log_level, c.access_log, c.lifespan) == ("the app", "warning", False, "off")
    web_serve.serve(STORE, "Ada", port=0)
    assert served.settings[1].token != s.token  # a new random token each time


def test_nobody_named_the_page_asks_who_or_each_logs_in(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    web_serve.serve(STORE, None, port=0)
    out, err = capsys.readouterr()
    assert err == f"forsy: the page asks who is reviewing; store {STORE}; Ctrl-C to stop\n"
    assert served.settings[0].reviewer == "" and served.settings[0].own_token is True
    web_serve.serve(STORE, None, port=0, reviewer_tokens=True)
    out, err = capsys.readouterr()
    assert out == f"http://127.0.0.1:{served.ports[1]}/?token=YOUR_REVIEWER_TOKEN\n"
    assert err == f"forsy: each reviewer logs in with their own token; store {STORE}; Ctrl-C to stop\n"
    s = served.settings[1]
    assert s.reviewer_tokens is True and s.own_token is False
    web_serve.serve(STORE, "Ada", port=0, reviewer_tokens=True)
    out, _ = capsys.readouterr()
    assert out == f"http://127.0.0.1:{served.ports[2]}/?token={served.settings[2].token}\n"
    assert served.settings[2].own_token is True


def test_every_address_accepts_the_machines_names_and_the_allowed_hosts(
        served: Served, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "box")
    web_serve.serve(STORE, "Ada", host="0.0.0.0", port=0, allow_remote=True, token=MINE,
                    allow_hosts=["review.example.org"])
    [s], [port] = served.settings, served.ports
    assert s.hosts == {f"0.0.0.0:{port}", f"box.example:{port}", f"review.example.org:{port}"}
    assert s.any_address is True and s.token == MINE
    assert capsys.readouterr().out == f"http://box:{port}/?token={MINE}\n"


def test_a_port_taken_is_refused_with_the_address(served: Served) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(InputError, match=rf"^cannot listen on 127\.0\.0\.1:{port}: Address already in use$"):
            web_serve.serve(STORE, "Ada", port=port)
    finally:
        taken.close()
    assert served.settings == []


def test_an_ipv6_loopback_is_bound_and_named_in_brackets(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as e:
        pytest.skip(f"no IPv6 loopback here: {e}")
    web_serve.serve(STORE, "Ada", host="::1", port=0)
    [s], [port] = served.settings, served.ports
    assert capsys.readouterr().out == f"http://[::1]:{port}/?token={s.token}\n"
    assert s.hosts == {f"[::1]:{port}", f"127.0.0.1:{port}", f"localhost:{port}"}


def test_a_loopback_address_keeps_its_own_name_and_the_allowed_hosts(served: Served) -> None:
    web_serve.serve(STORE, "Ada", host="127.8.9.10", port=0, allow_hosts=["proxy.example"])
    [s], [port] = served.settings, served.ports
    assert s.hosts == {f"127.8.9.10:{port}", f"proxy.example:{port}", f"127.0.0.1:{port}", f"localhost:{port}",
                       f"[::1]:{port}"}
