"""Never destroy, never overwrite another trace, one bad file never stops the batch, names are
redacted, verify stays inside its roots, a closed pipe is not a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forsy.cli import app
from forsy.errors import ExitCode

runner = CliRunner()


def _session(sid: str, prompt: str = "List the files please", cwd: str = "/home/dev/proj") -> str:
    recs = [
        {"type": "user", "uuid": f"{sid}-u1", "parentUuid": None, "sessionId": sid, "version": "2.1.38",
         "cwd": cwd, "timestamp": "2026-01-01T10:00:00.000Z", "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": f"{sid}-a1", "parentUuid": f"{sid}-u1", "sessionId": sid,
         "timestamp": "2026-01-01T10:00:01.000Z",
         "message": {"id": f"msg-{sid}", "role": "assistant", "model": "claude-test",
                     "content": [{"type": "text", "text": "Done: two files."}]}},
    ]
    return "".join(json.dumps(r) + "\n" for r in recs)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_o_on_a_project_with_a_trace_json_is_refused_and_nothing_is_touched(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / ".git").mkdir()
    (proj / "src" / "main.py").write_text("print('hi')\n")
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / "trace.json").write_text("{}\n")  # a project that happens to hold a trace.json
    before = _tree(proj)
    r = runner.invoke(app, ["retrace", str(log), "-o", str(proj), "--no-redact"])
    assert r.exit_code == ExitCode.OUTPUT, r.output
    assert "did not write" in r.output and "src/" in r.output
    assert _tree(proj) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proj", "s.jsonl"]  # no work folder left


def test_o_on_a_trace_folder_the_user_added_notes_to_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    out = tmp_path / "t"
    assert runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"]).exit_code == 0
    (out / "NOTES.md").write_text("my review notes\n")
    before = _tree(out)
    r = runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"])
    assert r.exit_code == ExitCode.OUTPUT and "NOTES.md" in r.output
    assert _tree(out) == before


def test_o_on_a_trace_folder_with_an_edited_file_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    out = tmp_path / "t"
    assert runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"]).exit_code == 0
    edited = (out / "trace.json").read_text().replace("Done: two files.", "Done: two files (checked by hand).")
    (out / "trace.json").write_text(edited)
    r = runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"])
    assert r.exit_code == ExitCode.OUTPUT
    assert (out / "trace.json").read_text() == edited


def test_o_as_a_symlink_writes_where_it_points_and_keeps_the_link(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    for _ in range(2):  # the second run replaces forsy's own folder through the link
        r = runner.invoke(app, ["retrace", str(log), "-o", str(link), "--no-redact"])
        assert r.exit_code == 0, r.output
        assert link.is_symlink() and (target / "trace.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real", "s.jsonl"]  # no .forsy-tmp left


def test_two_files_of_one_session_get_two_folders(tmp_path: Path) -> None:
    """A resumed session's files share a sessionId; each is its own trace (never one over the other)."""
    logs = tmp_path / "proj"
    logs.mkdir()
    (logs / "turn-1.jsonl").write_text(_session("same", "first prompt"))
    (logs / "turn-2.jsonl").write_text(_session("same", "second prompt"))
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    folders = sorted(p for p in out.iterdir())
    assert len(folders) == 2, folders
    prompts = sorted(json.loads((f / "trace.json").read_text())["steps"][0]["input"] for f in folders)
    assert prompts == ["first prompt", "second prompt"]
    # and one file's trace is never written over the other's folder
    r = runner.invoke(app, ["retrace", str(logs / "turn-2.jsonl"), "-o", str(folders[0]), "--no-redact"])
    assert r.exit_code == ExitCode.OUTPUT and "another trace" in r.output
    assert json.loads((folders[0] / "trace.json").read_text())["steps"][0]["input"] == "first prompt"


def test_one_broken_file_does_not_stop_the_batch(tmp_path: Path) -> None:
    logs = tmp_path / "proj"
    logs.mkdir()
    (logs / "a.jsonl").write_text(_session("a"))
    (logs / "b.jsonl").write_bytes(b"\x00\x01\x02garbage\xff\xfe\n" * 3)  # nothing readable
    (logs / "c.jsonl").write_text(_session("c"))
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out), "--no-redact"])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert len(list(out.iterdir())) == 2
    assert "failed" in r.output and "b.jsonl" in r.output
    assert "2 written, 0 skipped, 1 failed" in r.output


def test_a_bug_in_one_session_does_not_stop_the_batch(tmp_path: Path, monkeypatch: object) -> None:
    from forsy import run as forsy_run
    from forsy.run import session as session_stage

    real = session_stage.process

    def flaky(session, options, redactor):  # type: ignore[no-untyped-def]
        if session.session_id == "b":
            raise KeyError("boom")
        return real(session, options, redactor)

    monkeypatch.setattr(session_stage, "process", flaky)  # type: ignore[attr-defined]
    logs = tmp_path / "proj"
    logs.mkdir()
    for sid in "abc":
        (logs / f"{sid}.jsonl").write_text(_session(sid))
    run = forsy_run.retrace([str(logs)], forsy_run.RetraceOptions(out=tmp_path / "out", redact=False))
    assert [r.session.session_id for r in run.results] == ["a", "c"]
    [failed] = run.failed
    assert failed.path.endswith("b.jsonl") and failed.exit_code == ExitCode.INTERNAL and "KeyError" in failed.message
    assert run.exit_code == ExitCode.PARTIAL


def test_a_secret_or_a_name_in_a_file_name_is_redacted_everywhere(tmp_path: Path) -> None:
    token = "ghp_" + "Zq8sK2vN4mX7pR1tY6wB3cF9hJ5lD0aE8gUo"  # a fake GitHub token shape
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / f"session-{token}.jsonl"
    log.write_text(_session(f"sid-{token}", cwd="/home/margaretsmith/proj"))
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert token not in r.output and "margaretsmith" not in r.output
    [folder] = list(out.iterdir())
    assert token not in folder.name and "margaretsmith" not in folder.name
    for f in folder.rglob("*"):
        if f.is_file():
            text = f.read_text("utf-8")
            assert token not in text and "margaretsmith" not in text, f.name
    # the redacted source name is still found by verify, by its hash
    r = runner.invoke(app, ["verify", str(folder), str(logs)])
    assert r.exit_code == 0, r.output


def test_verify_accepts_a_log_file_as_well_as_its_folder(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    out = tmp_path / "t"
    assert runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"]).exit_code == 0
    r = runner.invoke(app, ["verify", str(out), str(log)])
    assert r.exit_code == 0 and "0 problem(s)" in r.output, r.output


def test_verify_never_opens_files_outside_its_roots(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "s.jsonl"
    log.write_text(_session("s-1"))
    out = tmp_path / "t"
    assert runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"]).exit_code == 0
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(log.read_bytes())  # same bytes, same hash: only the place differs
    log.unlink()
    prov = json.loads((out / "provenance.json").read_text())
    [digest] = prov["sources"].values()
    prov["sources"] = {"../outside.jsonl": digest}
    for ev in prov["evidence"].values():
        ev["source"] = "../outside.jsonl"
    (out / "provenance.json").write_text(json.dumps(prov))
    r = runner.invoke(app, ["verify", str(out), str(logs)])
    assert r.exit_code == ExitCode.INVALID and "not found" in r.output, r.output


def test_validate_into_a_closed_pipe_is_not_an_internal_error(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(_session("s-1"))
    out = tmp_path / "t"
    assert runner.invoke(app, ["retrace", str(log), "-o", str(out), "--no-redact"]).exit_code == 0
    trace = json.loads((out / "trace.json").read_text())
    trace["steps"][0]["eval"] = 1  # a broken rule per step, thousands of steps: far more than a pipe holds
    trace["steps"] = [dict(trace["steps"][0], step=n) for n in range(1, 5001)]
    (out / "trace.json").write_text(json.dumps(trace))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen([sys.executable, "-m", "forsy.cli", "validate", str(out / "trace.json")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.read(1)
        p.stdout.close()  # like `| head -c 1`
        err = p.stderr.read().decode()
        rc = p.wait(timeout=60)
    assert rc == ExitCode.BROKEN_PIPE, (rc, err)
    assert "internal error" not in err and "Traceback" not in err and "BrokenPipe" not in err


def test_sessions_whose_ids_share_a_prefix_get_their_own_folders(tmp_path: Path) -> None:
    """Short names collide (the first 8 characters of the id): the name grows, nothing is refused."""
    logs = tmp_path / "proj"
    logs.mkdir()
    for n in range(3):
        sid = f"aaaaaaaa-0000-0000-0000-00000000000{n}"
        (logs / f"{sid}.jsonl").write_text(_session(sid, f"prompt {n}"))
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    folders = sorted(out.iterdir())
    assert len(folders) == 3
    prompts = sorted(json.loads((f / "trace.json").read_text())["steps"][0]["input"] for f in folders)
    assert prompts == ["prompt 0", "prompt 1", "prompt 2"]
    # a re-run finds each trace's own folder again (nothing new, nothing refused)
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    assert sorted(out.iterdir()) == folders


def test_home_and_claude_folders_are_discovered(tmp_path: Path) -> None:
    """`forsy retrace ~/.claude` and `forsy retrace ~` find the sessions under .claude/projects
    (and Codex's under .codex/sessions) instead of nothing, or only one agent's."""
    home = tmp_path / "home"
    proj = home / ".claude" / "projects" / "-home-dev-proj"
    proj.mkdir(parents=True)
    (proj / "s-1.jsonl").write_text(_session("s-1"))
    day = home / ".codex" / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    import shutil

    from _paths import SAMPLES

    rollout = next((SAMPLES / "codex").glob("rollout-*.jsonl"))
    shutil.copy(rollout, day / rollout.name)
    for given, expect in ((home / ".claude", 1), (home, 2)):
        out = tmp_path / f"out-{given.name}"
        r = runner.invoke(app, ["retrace", str(given), "-o", str(out), "--no-redact"])
        assert r.exit_code == 0, r.output
        assert len(list(out.iterdir())) == expect, (given, r.output)


def test_one_file_holding_several_sessions_gets_o_as_their_parent(tmp_path: Path) -> None:
    """An OpenHands evaluation output.jsonl holds one trace per line: `-o DIR` with that one file
    writes each into DIR/<name>, never the first into DIR and the others refused."""
    from _paths import REAL_LOGS

    found = sorted(REAL_LOGS.glob("openhands/**/output.jsonl")) if REAL_LOGS.is_dir() else []
    if not found:
        pytest.skip("../shared/real_logs/openhands is absent")
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(found[0]), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    folders = [p for p in out.iterdir() if p.is_dir()]
    assert len(folders) >= 2 and not (out / "trace.json").exists()
