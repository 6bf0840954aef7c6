"""forsy review from the command line, on a real SQLite store: edits are overlays (never
changes to the stored draft), every action is audited with hashes, two reviewers acting on
the same version conflict, an approval makes a new trace that `forsy validate` accepts."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import orjson
import pytest

from _paths import SAMPLES
from _review import cli, put
from forsy.errors import ExitCode, InputError
from forsy.review.identity import reviewer
from forsy.review.overlay import apply_to_trace, human_proposal
from forsy.store import TraceQuery, open_store
from forsy.validation import validate_path

ADA = "Ada Lovelace <ada@example.org>"


@pytest.fixture
def db(tmp_path: Path) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    finally:
        st.close()
    return url, tid


def stored(url: str, tid: str) -> dict[str, bytes]:
    st = open_store(url)
    try:
        return {f.name: f.data for f in st.trace_files(tid)}
    finally:
        st.close()


def test_an_edit_is_an_overlay_kept_with_the_old_value_and_audited(db: tuple[str, str]) -> None:
    url, tid = db
    before = stored(url, tid)
    code, out, err = cli("review", "edit", tid, "--step", "2", "--field", "reasoning", "--value", "Read it first.",
                         "--store", url)
    assert code == 0, err
    assert "version 1" in out
    assert stored(url, tid) == before  # the draft's files are never changed
    code, out, _ = cli("review", "show", tid, "--json", "--store", url)
    shown = json.loads(out)
    [e] = shown["edits"]
    assert (e["path"], e["value"], e["reviewer"]) == ("/steps/2/reasoning", "Read it first.", ADA)
    assert e["replaced"].startswith("Runs of separators")
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    log = [json.loads(line) for line in out.splitlines()]
    assert [a["action"] for a in log] == ["draft_created", "edit"]
    edit = log[-1]
    assert edit["actor"] == ADA and edit["detail"]["path"] == "/steps/2/reasoning"
    assert edit["before_sha256"] == hashlib.sha256(before["trace.json"]).hexdigest()
    assert edit["after_sha256"] not in (None, edit["before_sha256"])
    code, out, _ = cli("show", tid, "--step", "2", "--store", url)
    assert "edited by Ada Lovelace" in out and "Read it first." in out


def test_two_reviewers_on_one_version_conflict_and_nothing_is_lost(db: tuple[str, str]) -> None:
    url, tid = db
    assert cli("review", "edit", tid, "--step", "2", "--field", "reasoning", "--value", "first",
               "--expect-version", "0", "--store", url)[0] == 0
    code, _, err = cli("review", "edit", tid, "--step", "2", "--field", "reasoning", "--value", "second",
                       "--expect-version", "0", "--store", url, who="Bob <bob@example.org>")
    assert code == ExitCode.CONFLICT and "changed since it was read" in err
    code, _, err = cli("review", "reject", tid, "--reason", "late", "--expect-version", "0", "--store", url)
    assert code == ExitCode.CONFLICT and "changed since it was read" in err
    show = json.loads(cli("review", "show", tid, "--json", "--store", url)[1])
    assert [e["value"] for e in show["edits"]] == ["first"] and show["status"] == "pending"


def test_reject_needs_a_reason_and_closes_the_draft(db: tuple[str, str]) -> None:
    url, tid = db
    code, _, err = cli("review", "reject", tid, "--reason", " ", "--store", url)
    assert code == 2 and "needs a reason" in err
    assert cli("review", "needs-changes", tid, "--note", "step 3 output cut", "--store", url)[0] == 0
    assert cli("review", "edit", tid, "--step", "3", "--field", "eval_reason", "--value", "tests failed",
               "--store", url)[0] == 0  # a draft needing changes is still open
    assert cli("review", "reject", tid, "--reason", "not a real task", "--store", url)[0] == 0
    code, _, err = cli("review", "edit", tid, "--step", "3", "--field", "eval_reason", "--value", "x", "--store", url)
    assert code == 9 and "is rejected" in err  # decided by a reviewer: a conflict (README), not bad input
    listed = cli("review", "list", "--json", "--status", "rejected", "--store", url)[1]
    rows = [json.loads(x) for x in listed.splitlines()]
    assert [r["trace_id"] for r in rows] == [tid]
    assert cli("review", "list", "--json", "--status", "pending", "--store", url)[1:] == ("", "")
    # without --json a person is told, on stderr, that nothing matched (not left with no output)
    assert cli("review", "list", "--status", "pending", "--store", url) == (
        0, "", "no drafts match (--all: also replaced and hidden ones)\n")
    assert cli("review", "list", "--all", "--status", "pending", "--store", url) == (0, "", "no drafts match\n")
    audit = [json.loads(x) for x in cli("review", "audit", tid, "--json", "--store", url)[1].splitlines()]
    assert audit[-1]["action"] == "reject" and audit[-1]["detail"]["note"] == "not a real task"


def test_values_are_typed_and_structural_fields_are_not_editable(db: tuple[str, str]) -> None:
    url, tid = db
    for field, value, msg in [("success", "maybe", "true or false"), ("eval", "2", "-1, 0 or 1"),
                              ("turn", "3", "cannot be edited"), ("reasoning", "  ", "empty value"),
                              ("nonsense", "x", "nonsense cannot be edited in review; editable: "),
                              ("../1/reasoning", "x", "cannot be edited in review")]:
        code, _, err = cli("review", "edit", tid, "--step", "2", "--field", field, "--value", value, "--store", url)
        assert code == 2 and msg in err, (field, err)
    code, _, err = cli("review", "edit", tid, "--step", "99", "--field", "reasoning", "--value", "x", "--store", url)
    assert code == 2 and "no step 99" in err
    code, _, err = cli("review", "edit", tid, "--field", "summary.nonsense", "--value", "x", "--store", url)
    assert code == 2 and "cannot be edited in review; editable: /learning" in err, err  # a trace field no more known
    assert cli("review", "edit", tid, "--field", "summary.goal_achieved", "--value", "true", "--store", url)[0] == 0


def test_list_filters(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    st = open_store(url)
    try:
        a = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        b = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    finally:
        st.close()
    every = [json.loads(x)["trace_id"] for x in cli("review", "list", "--json", "--store", url)[1].splitlines()]
    assert sorted(every) == sorted([a, b])
    assert cli("review", "list", "--json", "--project", "no-such", "--store", url)[1] == ""
    only = [json.loads(x) for x in cli("review", "list", "--json", "--since", "2026-02-16",
                                        "--until", "2026-02-17", "--store", url)[1].splitlines()]
    assert [r["trace_id"] for r in only] == [a] and only[0]["version"] == 0
    assert cli("review", "list", "--status", "bogus", "--store", url)[0] == 2


def test_reviewer_identity_from_flag_env_or_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert reviewer("  Ada   L ", {}) == "Ada L"
    assert reviewer(None, {"FORSY_REVIEWER": "Env Person"}) == "Env Person"
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="who is reviewing"):
        reviewer(None, {})
    subprocess.run(["git", "config", "--global", "user.name", "Grace Hopper"], check=True)
    subprocess.run(["git", "config", "--global", "user.email", "grace@example.org"], check=True)
    assert reviewer(None, {}) == "Grace Hopper <grace@example.org>"
    with pytest.raises(InputError):
        reviewer("a\x1b[31mb", {})


def test_apply_to_trace_is_pure_and_recounts_evals(db: tuple[str, str]) -> None:
    url, tid = db
    files = stored(url, tid)
    trace, prov = orjson.loads(files["trace.json"]), orjson.loads(files["provenance.json"])
    t0, p0 = orjson.dumps(trace), orjson.dumps(prov)
    p = human_proposal(trace, "/steps/5/eval", 1, ADA, "2026-03-02T00:00:00Z")
    new_t, new_p = apply_to_trace(trace, prov, [p])
    assert orjson.dumps(trace) == t0 and orjson.dumps(prov) == p0
    assert new_t["steps"][4]["eval"] == 1
    assert new_t["summary"]["positive_steps"] == trace["summary"]["positive_steps"] + 1
    fp = next(sp for sp in new_p["steps"] if sp["step"] == 5)["fields"]["eval"]
    assert fp["origin"] == "human" and fp["reviewer"]["reviewer"] == ADA
    assert fp["reviewer"]["replaced"]["value"] == 0 and fp["reviewer"]["time"] == "2026-03-02T00:00:00Z"


def test_approval_is_refused_when_validate_finds_errors(db: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is approved that `forsy validate` refuses: the draft stays pending, no trace is added."""
    import forsy.validation.check
    from forsy.validation import Finding, Report

    bad = Report("x", [Finding(rule="S001", severity="error", message="broken on purpose")], False, {})
    monkeypatch.setattr(forsy.validation.check, "validate_path", lambda _p: bad)
    url, tid = db
    code, _, err = cli("review", "approve", tid, "--level", "human_reviewed", "--store", url)
    assert code == 2 and "does not pass forsy validate: S001 broken on purpose" in err
    st = open_store(url)
    try:
        assert st.draft_state(tid).status == "pending"  # type: ignore[union-attr]
        assert len(st.traces(TraceQuery())) == 1
        assert [a.action for a in st.audit(tid)] == ["draft_created"]
    finally:
        st.close()


def test_approve_makes_a_new_trace_that_validates_and_exports(db: tuple[str, str], tmp_path: Path) -> None:
    url, tid = db
    assert cli("review", "edit", tid, "--step", "2", "--field", "reasoning", "--value", "Read it first.",
               "--store", url)[0] == 0
    code, out, err = cli("review", "approve", tid, "--level", "expert_reviewed", "--store", url)
    assert code == 0, err
    new = out.split("reviewed trace ")[1].strip()
    assert new != tid
    out_dir = tmp_path / "dataset"
    assert cli("review", "export", "--status", "approved", "-o", str(out_dir), "--store", url)[0] == 0
    [line] = (out_dir / "index.jsonl").read_text().splitlines()
    idx = json.loads(line)
    assert (idx["trace_id"], idx["prior_trace_id"], idx["validation_level"], idx["reviewer"]) == \
        (new, tid, "expert_reviewed", ADA)
    folder = out_dir / new
    t = json.loads((folder / "trace.json").read_text())
    assert (t["trace_id"], t["prior_trace_id"], t["validation_level"]) == (new, tid, "expert_reviewed")
    assert t["steps"][1]["reasoning"] == "Read it first."
    prov = json.loads((folder / "provenance.json").read_text())
    fp = next(sp for sp in prov["steps"] if sp["step"] == 2)["fields"]["reasoning"]
    assert fp["origin"] == "human" and fp["reviewer"]["reviewer"] == ADA
    assert validate_path(folder).ok, [str(f) for f in validate_path(folder).errors]
    audit = [json.loads(x) for x in cli("review", "audit", tid, "--json", "--store", url)[1].splitlines()]
    assert audit[-1]["action"] == "approve"
    assert audit[-1]["after_sha256"] == hashlib.sha256((folder / "trace.json").read_bytes()).hexdigest()
    code, _, err = cli("review", "approve", tid, "--store", url)
    assert code == 9 and "is approved" in err  # decided: a conflict (README), not bad input
    # exported again: the identical folder is left alone, not rewritten
    assert "0 written" in cli("review", "export", "-o", str(out_dir), "--store", url)[1]


def test_reviewer_from_the_config_file(tmp_path: Path) -> None:
    """The config file's `reviewer` comes after the flag and FORSY_REVIEWER, before git."""
    cfg = tmp_path / "config.toml"
    cfg.write_text('reviewer = "Ada Lovelace <ada@acme-mail.io>"\n')
    env = {"FORSY_CONFIG": str(cfg)}
    assert reviewer(env=env) == "Ada Lovelace <ada@acme-mail.io>"
    assert reviewer(env={**env, "FORSY_REVIEWER": "Bob <b@acme-mail.io>"}) == "Bob <b@acme-mail.io>"
    assert reviewer("Cy <c@acme-mail.io>", env=env) == "Cy <c@acme-mail.io>"


@pytest.mark.parametrize("theirs", [b'{"id": 1, "text": "my dataset row"}\n', b"not json\n"])
def test_export_never_overwrites_an_index_it_did_not_write(db: tuple[str, str], tmp_path: Path,
                                                           theirs: bytes) -> None:
    url, tid = db
    assert cli("review", "approve", tid, "--store", url)[0] == 0
    project = tmp_path / "my-project"
    project.mkdir()
    (project / "index.jsonl").write_bytes(theirs)
    code, _, err = cli("review", "export", "-o", str(project), "--store", url)
    assert code == 6, err
    assert f"{project / 'index.jsonl'}: exists and was not written by forsy review export; not overwritten" in err
    assert (project / "index.jsonl").read_bytes() == theirs
    assert [p.name for p in project.iterdir()] == ["index.jsonl"]  # refused before any trace folder was written


def test_export_replaces_its_own_index_and_never_a_symlinked_one(db: tuple[str, str], tmp_path: Path) -> None:
    url, tid = db
    assert cli("review", "approve", tid, "--store", url)[0] == 0
    out = tmp_path / "dataset"
    assert cli("review", "export", "-o", str(out), "--store", url)[0] == 0
    first = (out / "index.jsonl").read_bytes()
    assert cli("review", "export", "-o", str(out), "--store", url)[0] == 0
    assert (out / "index.jsonl").read_bytes() == first
    other = tmp_path / "elsewhere.jsonl"
    other.write_bytes(first)  # even holding forsy's own lines: replacing a link writes where it points
    (out / "index.jsonl").unlink()
    (out / "index.jsonl").symlink_to(other)
    code, _, err = cli("review", "export", "-o", str(out), "--store", url)
    assert code == 6 and "not overwritten" in err
    assert (out / "index.jsonl").is_symlink() and other.read_bytes() == first


def test_show_names_each_edit_as_the_form_does_and_says_where_a_long_one_is_whole(db: tuple[str, str]) -> None:
    url, tid = db
    long = "Read the test first, then the code. " * 10
    for field, value in (("reasoning", "Read it first."), ("reasoning", long)):
        assert cli("review", "edit", tid, "--step", "2", "--field", field, "--value", value, "--store", url)[0] == 0
    out = cli("review", "show", tid, "--store", url)[1]
    edits = " ".join(out.split()).split("edit ")[1:]  # the console wraps lines
    assert edits[0].startswith("reasoning of step #2 (") and "(/steps/2/reasoning) by " in edits[0]
    assert "Read it first." in edits[0] and "characters" not in edits[0]
    assert f"({len(long)} characters: --json gives it whole)" in edits[1]
