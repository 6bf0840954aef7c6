"""`--quiet` (and FORSY_QUIET) on every command: errors only. Summaries, confirmations and
notes are not printed; errors are, and so is what a command was asked to show (a trace, a
list, its --json). One invocation's --quiet does not silence the next one in the same process."""

from __future__ import annotations

import json
from pathlib import Path

from _paths import SAMPLES
from _review import cli, stored


def _store(tmp_path: Path) -> tuple[str, str]:
    url, [tid] = stored(tmp_path / "store.db", "demo-session.jsonl")
    return url, tid


def test_action_commands_say_nothing_under_quiet_and_their_summary_without(tmp_path: Path) -> None:
    url, tid = _store(tmp_path)
    out = tmp_path / "x.opentraces"
    loud = cli("export", "--from-store", "*", "--status", "pending", "--store", url, "--to", "opentraces",
               "-o", str(out))
    assert loud[0] == 0 and "1 trace(s) as opentraces" in loud[1] and "loss report:" in loud[1]
    assert "1 draft(s) no person has approved (--status pending) are exported" in loud[2]
    assert cli("export", "--from-store", "*", "--status", "pending", "--store", url, "--to", "opentraces",
               "-o", str(tmp_path / "y"), "-q") == (0, "", "")
    assert (tmp_path / "y").is_file()  # quiet, not idle
    assert cli("review", "edit", tid, "--step", "2", "--field", "eval", "--value", "1", "--store", url,
               "--quiet") == (0, "", "")
    loud = cli("review", "edit", tid, "--step", "2", "--field", "eval", "--value", "-1", "--store", url)
    assert loud == (0, f"{tid}: edited /steps/2/eval; now pending (version 2)\n", "")  # the next one speaks
    assert cli("store", "migrate", "--store", url, "-q") == (0, "", "")
    assert "schema up to date" in cli("store", "migrate", "--store", url)[1]


def test_quiet_keeps_errors_and_what_was_asked_for(tmp_path: Path) -> None:
    url, tid = _store(tmp_path)
    code, out, err = cli("review", "edit", tid, "--step", "99", "--field", "eval", "--value", "1", "--store", url,
                         "-q")
    assert code == 2 and out == "" and "step 99" in err  # the error, said
    shown = cli("review", "list", "--json", "--store", url, "-q")
    assert shown[0] == 0 and [json.loads(x)["trace_id"] for x in shown[1].splitlines()] == [tid]
    assert cli("show", tid, "--store", url, "-q")[1].startswith(tid)


def test_validate_under_quiet_prints_error_findings_only(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    code, _, _ = cli("retrace", str(SAMPLES / "claude" / "demo-session.jsonl"), "-o", str(folder), "--no-redact",
                     "-q")
    assert code == 0
    loud = cli("validate", str(folder))
    assert loud[0] == 0 and "WARNING M009" in loud[1] and f"{folder}: 0 error(s)" in loud[1]
    assert cli("validate", str(folder), "-q") == (0, "", "")  # a warning is no error: nothing to say
    trace = json.loads((folder / "trace.json").read_text("utf-8"))
    trace["steps"][1]["step"] = 7  # steps out of order: an error
    (folder / "trace.json").write_text(json.dumps(trace), "utf-8")
    code, out, _ = cli("validate", str(folder), "-q")
    assert code == 1 and out and all(line.startswith("ERROR ") for line in out.splitlines()), out


def test_sweep_under_quiet_names_failures_only(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "s.jsonl").write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    (root / "writing.jsonl").write_bytes(b'{"type":"user","message"')  # waits: a note, not an error
    url = f"sqlite:///{tmp_path / 'store.db'}"
    code, out, err = cli("sweep", str(root), "--store", url, "--now", "-q")
    assert (code, out, err) == (0, "", "")
    code, out, err = cli("sweep", str(root), "--store", url, "--now")
    assert code == 0 and "swept 1 root(s)" in out and "forsy: waiting:" in err and "writing.jsonl" in err


def test_sweep_names_each_file_that_held_no_work_unless_quiet(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "s.jsonl").write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    (root / "empty.jsonl").write_bytes(b"")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    code, out, err = cli("sweep", str(root), "--store", url, "--now")
    assert code == 0 and "0 failed, 1 with no work; 1 draft(s) written" in out
    assert f"forsy: no work: {root / 'empty.jsonl'}: the log holds no work" in err
    (root / "quiet.jsonl").write_bytes(b"")
    assert cli("sweep", str(root), "--store", url, "--now", "-q") == (0, "", "")
