"""Helpers of the review tests: a real SQLite store holding drafts of the sample sessions,
one of them with hostile text (HTML, a script, an onerror image, an ANSI escape) in its log."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.run import RetraceOptions, retrace_one
from forsy.store import Store
from forsy.store.sink import StoreSink
from secretgen import SecretGen

NOW = "2026-03-01T12:00:00+00:00"
ADA = "Ada Lovelace <ada@example.org>"  # the reviewer of the review tests
TOKEN = "t" * 40  # a review server's own token in the web tests
HOST = "127.0.0.1:9"  # the Host the web tests' client names
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)> \\u001b[31mRED\\u001b[0m"
SHOWN = "<script>alert(1)</script> <img src=x onerror=alert(2)>"


def cli(*args: str, who: str | None = ADA) -> tuple[int, str, str]:
    """`forsy ARGS` in this process as reviewer `who` (None: no reviewer set): exit code, stdout, stderr."""
    r = CliRunner().invoke(app, list(args), env={"FORSY_REVIEWER": who} if who else {})
    return r.exit_code, r.stdout, r.stderr

def hostile_log(folder: Path) -> Path:
    """demo-session.jsonl with the user's first words replaced by hostile text."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8")
    assert "Can you fix it" in text
    out = folder / "hostile-session.jsonl"
    out.write_text(text.replace("Can you fix it", HOSTILE + " Can you fix it", 1), "utf-8")
    return out


def csrf(token: str = TOKEN) -> str:
    """The CSRF value of the forms of a server (or a reviewer) with this token."""
    from forsy.web.guard import Settings

    return Settings(store_url="", reviewer="", token=token, hosts=set()).csrf


def put(store: Store, log: Path) -> str:
    [o] = retrace_one(log, RetraceOptions(), sink=StoreSink(store, now=NOW), keep=False)
    assert o.status == "written" and o.trace_id
    return o.trace_id


def stored(db: Path, *samples: str) -> tuple[str, list[str]]:
    """A SQLite store at `db` holding a draft of each Claude Code sample named: its URL and the ids."""
    from forsy.store import open_store

    url = f"sqlite:///{db}"
    st = open_store(url)
    try:
        return url, [put(st, SAMPLES / "claude" / name) for name in samples]
    finally:
        st.close()


USER = "marguerite"  # the home folder's owner: masked as [PATH_USER_n] in the trace


def planted_log(folder: Path) -> tuple[Path, list[str]]:
    """demo-session.jsonl with a GitHub token and a password in the user's words, an AWS secret
    in a tool's output, and the session run from /home/marguerite."""
    gen = SecretGen(seed=7)
    token, password, aws = gen.github(), gen.password() + "Zq9", gen.aws_secret()
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8").replace("/home/dev/", f"/home/{USER}/")
    said = f"My token is {token} and DB_PASSWORD={password} here. Can you fix it"
    text = text.replace("Can you fix it", said, 1)
    assert "Exit code 1\\n" in text
    text = text.replace("Exit code 1\\n", f"Exit code 1\\nAWS_SECRET_ACCESS_KEY={aws}\\n", 1)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "planted-session.jsonl"
    out.write_text(text, "utf-8")
    return out, [token, password, aws]


def planted_draft(tmp_path: Path) -> tuple[str, str, list[str], str]:
    """A store holding the draft of `planted_log`: its URL, the draft, the planted secrets and the
    draft's trace.json as text."""
    from forsy.store import open_store

    log, planted = planted_log(tmp_path / "logs")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, log)
        trace = next(f.data for f in st.trace_files(tid) if f.name == "trace.json").decode()
    finally:
        st.close()
    return url, tid, planted, trace


@contextmanager
def review_serve(args: list[str], env: dict[str, str]) -> Iterator[str]:
    """`forsy review serve ARGS` in a process of its own; yields the first line it prints (the
    URL to open) and stops it on leaving. Its stderr goes to a file (a pipe nobody reads would
    fill and stall the server), shown if it did not start."""
    with (
        tempfile.TemporaryFile() as err,
        subprocess.Popen(
            [sys.executable, "-m", "forsy.cli", "review", "serve", *args],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        ) as proc,
    ):
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline().strip()
            if not first:
                err.seek(0)
                pytest.fail(f"review serve did not start: {err.read().decode(errors='replace')}")
            yield first
        finally:
            proc.terminate()
            proc.wait(timeout=10)
