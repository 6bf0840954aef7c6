"""The hook itself: what runs when the agent calls forsy.

The foreground (what the agent waits for) reads what the agent sent, starts the user's own
Codex `notify` when forsy's is chained to it, hands everything else to a detached background
process and returns: exit 0, nothing on stdout (Claude Code and Gemini CLI read a hook's
stdout as its answer), whatever happens. It imports nothing of forsy's but this package's
stdlib-only modules, so it costs a Python start and little more.

The background process finds the session file and runs the sweep over it alone (`--now`):
the draft is the one `forsy sweep` makes — same reader, redaction, store and file state —
so a later sweep finds the file unchanged, and a session that grew since (a `Stop` at every
turn) becomes a grown draft linked to the previous one. What goes wrong before the sweep
(a payload that is not JSON, no transcript) is a line in the hook log; what goes wrong in the
sweep is recorded by the sweep (`forsy sweep --status`) and in the log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

from . import _files

ARGV_PAYLOAD_MAX = 100_000  # larger payloads go through a file (Linux allows 128 KiB per argument)
LOCK_WAIT_S = 600.0  # another sweep (cron's) holding the store: wait this long for it, then give up
LOCK_POLL_S = 2.0
STEADY_WAIT_S = 10.0  # Codex may still be flushing the rollout when it notifies


def foreground(agent: str, payload_arg: str | None, chain: str | None) -> None:
    """Never raises; everything it cannot do goes to the log."""
    try:
        payload = payload_arg if payload_arg is not None else _stdin(agent)
        if chain:
            _run_chained(agent, chain, payload)
        _spawn(agent, payload)
    except BaseException as e:  # the agent must never see forsy fail
        _files.log(agent, "-", "failed", "-", f"the hook could not start its work: {type(e).__name__}: {e}")


STDIN_WAIT_S = 5.0  # an agent that left stdin open (never closed it) must not be held by the hook


def _stdin(agent: str) -> str:
    """What the agent wrote on stdin, up to its end or STDIN_WAIT_S. Codex gives its payload as
    an argument: its stdin (perhaps the terminal) is never read."""
    if agent == "codex" or sys.stdin is None or sys.stdin.isatty():
        return ""
    try:
        fd = sys.stdin.fileno()
    except (OSError, ValueError):  # not a real file (a test runner's): read it as it is
        fd = -1
    if fd < 0 or os.name != "posix":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    import select

    chunks: list[bytes] = []
    end = time.monotonic() + STDIN_WAIT_S
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _run_chained(agent: str, chain: str, payload: str) -> None:
    """The user's own notify program, as Codex would have run it: its argv and the JSON last.
    Not waited for (Codex does not wait for notify either)."""
    try:
        argv = json.loads(chain)
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("not a list of strings")
        subprocess.Popen([*argv, payload], stdin=subprocess.DEVNULL, close_fds=True, start_new_session=True)
    except (OSError, ValueError) as e:
        _files.log(agent, "-", "failed", "-", f"the chained notify program could not be run: {e}")


def _spawn(agent: str, payload: str) -> None:
    cmd = [sys.executable, "-m", "forsy.hooks", "run", "--agent", agent, "--background"]
    if len(payload) <= ARGV_PAYLOAD_MAX:
        cmd.append("--payload=" + payload)  # one argument, whatever the payload starts with
    else:
        fd, spool = tempfile.mkstemp(prefix="forsy-hook-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(payload)
        cmd += ["--payload-file", spool]
    subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     close_fds=True, start_new_session=True)  # the agent's folder: a relative path means the same


def background(agent: str, payload: str | None, payload_file: str | None, wait_s: float = STEADY_WAIT_S) -> int:
    """Put the session the payload names into the store. Returns 0 when a draft is up to
    date; 1 when something failed (logged). Never raises."""
    event, where = "-", "-"
    try:
        if payload_file is not None:
            try:
                payload = Path(payload_file).read_text(encoding="utf-8")
            finally:
                Path(payload_file).unlink(missing_ok=True)
        data = _parse(payload or "")
        event = str(data.get("hook_event_name") or data.get("type") or "-")
        if agent == "codex" and data.get("type") not in (None, "agent-turn-complete"):
            _files.log(agent, event, "skipped", "-", "not the end of a turn")
            return 0
        where = str(data.get("transcript_path") or data.get("thread-id") or "-")
        roots, where = _session_roots(agent, data)
        _steady(roots[0], wait_s)
        return _sweep(agent, event, roots)
    except _Failed as e:
        _files.log(agent, event, "failed", where, str(e))
    except BaseException as e:  # a bug: logged, never a crash the agent could see
        _files.log(agent, event, "failed", where, f"{type(e).__name__}: {e}"[:500])
    return 1


class _Failed(Exception):
    pass


def _parse(payload: str) -> dict[str, Any]:
    if not payload.strip():
        raise _Failed("the agent sent no payload")
    try:
        data = json.loads(payload.lstrip("\ufeff"))
    except ValueError as e:
        raise _Failed(f"the payload is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise _Failed("the payload is not a JSON object")
    return data


def _session_roots(agent: str, data: dict[str, Any]) -> tuple[list[Path], str]:
    """The session file (first) and, for Claude Code, the folder of its subagents' logs: the
    roots a sweep over this one session needs so that it records the same files a sweep of the
    whole projects folder does."""
    if agent == "codex":
        from ._codex import find_rollout

        path = find_rollout(data)
        if path is None:
            raise _Failed(f"no rollout found for thread {data.get('thread-id')!r} (cwd {data.get('cwd')!r})")
        where = str(path)
    else:
        t = data.get("transcript_path")
        if not isinstance(t, str) or not t:
            raise _Failed("the payload names no transcript_path")
        where = t
        path = Path(os.path.abspath(Path(t).expanduser()))  # relative: to the folder the agent ran the hook in
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise _Failed(f"cannot read the session file: {e.strerror or e}") from None
    roots = [path]
    stem = path.with_name(path.name.split(".jsonl")[0])
    if agent == "claude-code" and stem != path and stem.is_dir():
        roots.append(stem)
    return roots, where


def _steady(path: Path, wait_s: float) -> None:
    """Wait (up to `wait_s`) until the file has not changed for a second: the agent may still be
    writing the turn it just announced."""
    end = time.monotonic() + wait_s
    last = None
    while time.monotonic() < end:
        st = path.stat()
        now = (st.st_size, st.st_mtime_ns)
        if now == last:
            return
        last = now
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))


def _sweep(agent: str, event: str, roots: list[Path]) -> int:
    from ..config import load_config
    from ..run import RetraceOptions
    from ..store import open_store
    from ..sweep import SweepOptions, sweep

    cfg = load_config()
    opts = SweepOptions(roots=roots, settle_seconds=cfg.settle_seconds, ignore_settle=True,
                        retrace=RetraceOptions(redact=cfg.redact, history=cfg.histories, git=cfg.git,
                                               llm_model=cfg.llm_model, llm_api_base=cfg.llm_api_base))
    store = open_store(cfg.store)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            report = sweep(store, opts)
            if report.locked_by is None or time.monotonic() > deadline:
                break
            time.sleep(LOCK_POLL_S)  # cron's sweep (or another hook's) holds the store: ours comes next
    finally:
        store.close()
    c = report.counts
    where = str(roots[0])
    problems = [report.failure] if report.failure else []
    problems += [f"{e.path}: {e.message}" for e in report.failures]
    problems += [f"{f.path}: {f.reason}" for f in report.faults]
    problems += [f"{p}: waiting: {w}" for p, w in report.waiting]
    if report.locked_by is not None:
        h = report.locked_by
        problems.append(f"another sweep held the store for {LOCK_WAIT_S:g} s (pid {h.pid} on {h.host}); "
                        "the next sweep traces this session")
    if problems:
        _files.log(agent, event, "failed", where, "; ".join(problems)[:2000])
        return 1
    if not c.seen:
        _files.log(agent, event, "skipped", where, "no session of its own in this file (a subagent's log is "
                                                   "read with its parent's session)")
        return 0
    _files.log(agent, event, "ok", where, f"run {report.run_id}: {c.new} new, {c.grown} grown, "
                                          f"{c.rewritten} rewritten, {c.unchanged} unchanged; "
                                          f"{c.traces_written} draft(s) written")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m forsy.hooks run --agent A [--chain JSON] [--inline] [PAYLOAD]`: what the
    agents' settings run. Exit 0 always."""
    import argparse

    class Quiet(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # nothing on the agent's terminal: the log says it
            raise ValueError(message)

    p = Quiet(prog="python -m forsy.hooks", add_help=False)
    p.add_argument("command", choices=["run"])
    p.add_argument("--agent", required=True, choices=["claude-code", "codex", "gemini"])
    p.add_argument("--chain")
    p.add_argument("--background", action="store_true")
    p.add_argument("--inline", action="store_true")
    p.add_argument("--payload")
    p.add_argument("--payload-file")
    p.add_argument("--wait", type=float, default=STEADY_WAIT_S)
    p.add_argument("arg", nargs="?")
    try:
        a = p.parse_intermixed_args(argv)
    except (ValueError, SystemExit) as e:
        _files.log("-", "-", "failed", "-", f"the hook was called with arguments it does not take ({e}): {argv}")
        return 0
    code = run(a.agent, a.arg, chain=a.chain, background_=a.background, inline=a.inline, payload=a.payload,
               payload_file=a.payload_file, wait_s=a.wait)
    return code if a.inline else 0


def run(agent: str, arg: str | None, *, chain: str | None = None, background_: bool = False, inline: bool = False,
        payload: str | None = None, payload_file: str | None = None, wait_s: float = STEADY_WAIT_S) -> int:
    """The three ways in: the foreground (hands off), `--background` (does the work),
    `--inline` (both in this process, for a test or by hand: the exit code says whether a draft
    was made)."""
    if background_:
        return background(agent, payload if payload is not None else arg, payload_file, wait_s)
    if inline:
        text = payload if payload is not None else (arg if arg is not None else _stdin(agent))
        if chain:
            _run_chained(agent, chain, text)
        return background(agent, text, None, wait_s)
    foreground(agent, payload if payload is not None else arg, chain)
    return 0
