"""Start the review server: bind, print the URL with its token (the first line on stdout), serve."""

from __future__ import annotations

import ipaddress
import socket
import sys

from ..errors import InputError
from ..store import shown_url
from .app import make_app
from .guard import COOKIE, Settings, new_token

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


WILDCARD = ("0.0.0.0", "::")  # bound to every address: the Host is checked per connection


def machine_names() -> set[str]:
    """The names this machine answers to (its host name and fully qualified name)."""
    return {n for n in (socket.gethostname(), socket.getfqdn()) if n}


def serve(store_url: str, reviewer: str | None, *, host: str = "127.0.0.1", port: int = 8765,
          allow_remote: bool = False, token: str | None = None, reviewer_tokens: bool = False,
          allow_hosts: list[str] | None = None) -> None:
    """Serve until interrupted. A non-loopback `host` needs `allow_remote` and either a `token`
    of the user's own (a random one printed on a shared machine's terminal is not a secret) or
    `reviewer_tokens` (each reviewer logs in with their own token, stored hashed). `reviewer`
    None (team mode only): nobody acts with the server's own token, each logs in with theirs.
    `allow_hosts`: further names clients reach this server by (a reverse proxy's)."""

    if not _is_loopback(host):
        if not allow_remote or not (token or reviewer_tokens):
            raise InputError(f"refusing to serve on {host}, which is not this machine's loopback: give "
                             "--allow-remote and --token (at least 32 characters) or --reviewer-tokens to do it "
                             "on purpose")
    if token is not None and len(token) < 32:
        raise InputError("a --token needs at least 32 characters")
    token = token or new_token()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        # listening before the URL is printed: a browser (or script) opening it at once is queued
        # until the server accepts, never refused while uvicorn is still starting
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    real_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    hosts = {f"{shown}:{real_port}"} | {f"{h}:{real_port}" for h in allow_hosts or []}
    if _is_loopback(host):
        hosts |= {f"127.0.0.1:{real_port}", f"localhost:{real_port}", f"[::1]:{real_port}"}
    if host in WILDCARD:
        hosts |= {f"{h}:{real_port}" for h in machine_names()}
    import uvicorn

    app = make_app(Settings(store_url=store_url, reviewer=reviewer or "", token=token, hosts=hosts,
                            reviewer_tokens=reviewer_tokens, cookie=f"{COOKIE}_{real_port}",
                            any_address=host in WILDCARD, own_token=reviewer is not None or not reviewer_tokens,
                            warm_redactors=True))
    where = socket.gethostname() if host in WILDCARD else shown
    if reviewer is None and reviewer_tokens:
        sys.stdout.write(f"http://{where}:{real_port}/?token=YOUR_REVIEWER_TOKEN\n")
    else:
        sys.stdout.write(f"http://{where}:{real_port}/?token={token}\n")
    sys.stdout.flush()
    who = f"reviewing as {reviewer}" if reviewer else "each reviewer logs in with their own token" \
        if reviewer_tokens else "the page asks who is reviewing"
    sys.stderr.write(f"forsy: {who}; store {shown_url(store_url)}; Ctrl-C to stop\n")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
