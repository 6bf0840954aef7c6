"""The promises of `forsy.review.actions`, on the demo session stored as a draft: an approval keeps
ALL of a reviewer's edits (several kinds, several reviewers, one field edited twice: the last
wins) in the reviewed trace, its provenance, its manifest and its audit record; every action is
audited with the sha256 of the draft before and after it; a stale version is a conflict that
writes nothing; only open drafts are acted on; a model's value is accepted or declined, nothing
else is declined. Expected values are read off the demo session by hand (below)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from _paths import SAMPLES
from _review import ADA, NOW, put
from forsy.assemble import Assembled
from forsy.errors import InputError
from forsy.evidence import Session
from forsy.ids import make_id
from forsy.models import FieldProvenance
from forsy.review import actions
from forsy.review.needs import decisions
from forsy.review.source import from_store
from forsy.run import RetraceOptions, retrace_one
from forsy.store import ReviewConflict, Store, open_store
from forsy.store.sink import StoreSink

BOB = "Bob Builder <bob@example.org>"
T = "2026-03-02T10:00:{:02d}+00:00"
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
# the demo draft, by hand: step 2 reasoning copied by R-reasoning/joined; step 3 failed (success
# False, derived by R-call/error-flag) with eval -1; every other eval 0; no goal assessed;
# termination_reason task_complete (T-termination/answer)
GOAL_NOTES = ("Not assessed: forsy's deterministic pass copies what the log holds and does not judge whether the "
              "user's goal was met.")

# (reviewer, path, typed, the value kept, the value it replaced, that value's (rule, origin))
EDITS: list[tuple[str, str, str, Any, Any, tuple[str | None, str | None]]] = [
    (ADA, "/steps/2/reasoning", "Reads <b>slug.py</b> first.", "Reads <b>slug.py</b> first.", "*",
     ("R-reasoning/joined", "copied")),
    (ADA, "/steps/3/success", " TRUE ", True, False, ("R-call/error-flag", "derived")),
    (BOB, "/steps/3/eval", "+1", 1, -1, (None, None)),
    (BOB, "/steps/5/eval", "-1", -1, 0, (None, None)),
    (ADA, "/steps/4/observation", "One dash per run & no more.", "One dash per run & no more.", None, (None, None)),
    (BOB, "/summary/goal_achieved", "false", False, None, (None, None)),
    (ADA, "/summary/goal_notes", "Tests pass after the fix.", "Tests pass after the fix.", GOAL_NOTES, (None, None)),
    (BOB, "/learning", "Run the failing test first.", "Run the failing test first.", None, (None, None)),
    (ADA, "/termination_reason", "user_confirmed_done", "user_confirmed_done", "task_complete",
     ("T-termination/answer", "derived")),
    (BOB, "/dataset_summary/description", "A slug fix.", "A slug fix.", "*", (None, None)),
    (BOB, "/steps/2/reasoning", "Reads slug.py, then runs the tests.", "Reads slug.py, then runs the tests.",
     "Reads <b>slug.py</b> first.", (None, "human")),  # the second edit of a field: the last wins
]


class ModelSink:
    """The draft with two values a (scripted) model proposed: step 2's observation and the learning."""

    def __init__(self, inner: StoreSink) -> None:
        self.inner = inner

    def write(self, a: Assembled, s: Session) -> str:
        a.trace.steps[1].observation = "It reads the file."
        a.trace.learning = "Read before editing."
        sp = next(p for p in a.provenance.steps if p.step == 2)
        model = {"origin": "model", "evidence": [{"id": sp.evidence[0], "pointer": ""}],
                 "model": {"model": "scripted/m", "citations": [{"id": sp.evidence[0], "quote": "import re"}]}}
        sp.fields["observation"] = FieldProvenance.model_validate(model)
        a.provenance.trace_fields["learning"] = FieldProvenance.model_validate(model)
        return self.inner.write(a, s)


@pytest.fixture
def st(tmp_path: Path) -> Any:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield store
    store.close()


def files_of(st: Store, tid: str) -> dict[str, bytes]:
    return {f.name: f.data for f in st.trace_files(tid)}


def at(doc: Any, path: str) -> Any:
    for part in path.strip("/").split("/"):
        doc = doc[int(part) - 1] if isinstance(doc, list) else doc[part]
    return doc


def prov_of(prov: dict[str, Any], path: str) -> dict[str, Any]:
    parts = path.strip("/").split("/")
    if parts[0] == "steps":
        return next(sp for sp in prov["steps"] if sp["step"] == int(parts[1]))["fields"][parts[2]]  # type: ignore[no-any-return]
    return prov["trace_fields"][".".join(parts)]  # type: ignore[no-any-return]


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_one_approval_keeps_every_edit_of_every_kind(st: Store) -> None:
    tid = put(st, DEMO)
    draft_files = files_of(st, tid)
    original = json.loads(draft_files["trace.json"])
    for i, (who, path, typed, *_) in enumerate(EDITS):
        actions.edit(st, tid, path, typed, reviewer=who, at=T.format(i))
    done = actions.approve(st, tid, "client_validated", reviewer=ADA, at=T.format(59))
    assert files_of(st, tid) == draft_files  # the draft itself is never changed
    rid = done.reviewed_trace_id
    assert rid is not None and done.state.status == "approved" and done.state.reviewed_as == rid
    edits = [[p, v] for _, p, _, v, _, _ in EDITS]
    assert rid == make_id("forsy", "reviewed", tid, "client_validated", edits, length=20)
    out = files_of(st, rid)
    assert sorted(out) == ["README.md", "manifest.json", "provenance.json", "trace.json"]
    trace, prov, man = (json.loads(out[n]) for n in ("trace.json", "provenance.json", "manifest.json"))
    last = {p: (who, v, old, rule_origin, i) for i, (who, p, _, v, old, rule_origin) in enumerate(EDITS)}
    for path, (who, value, old, (rule, origin), i) in last.items():
        assert at(trace, path) == value, path
        fp = prov_of(prov, path)
        assert fp["origin"] == "human" and fp["rule"] is None and fp["model"] is None, path
        r = fp["reviewer"]
        assert r["reviewer"] == who and r["time"] == T.format(i) and r["citations"] == [], path
        if old is None:
            assert "replaced" not in r, path
        else:
            want = at(original, path) if old == "*" else old
            assert r["replaced"] == {"value": want, "rule": rule, "origin": origin}, path
    # every field not edited is the draft's
    for n, (s, o) in enumerate(zip(trace["steps"], original["steps"], strict=True), 1):
        for k in o:
            if f"/steps/{n}/{k}" not in last:
                assert s[k] == o[k], (n, k)
    assert trace["task"] == original["task"] and trace["final_output"] == original["final_output"]
    # the summary's counts follow the evals: [0, 0, +1, 0, -1, 0, 0, 0, 0]
    assert [s["eval"] for s in trace["steps"]] == [0, 0, 1, 0, -1, 0, 0, 0, 0]
    sm = trace["summary"]
    assert (sm["positive_steps"], sm["negative_steps"], sm["neutral_steps"]) == (1, 1, 7)
    assert (trace["trace_id"], trace["prior_trace_id"], trace["validation_level"]) == (rid, tid, "client_validated")
    assert trace["dataset_summary"]["validation_level"] == "client_validated"
    assert prov["trace_id"] == rid
    by = {"reviewer": ADA, "time": T.format(59)}
    assert prov["trace_fields"]["trace_id"]["reviewer"] == {
        **by, "note": "approved as client_validated: sha256 of the draft's id, the level and the 11 edit(s)",
        "replaced": {"value": tid}}
    assert prov["trace_fields"]["prior_trace_id"]["reviewer"] == {**by, "note": "the draft this review approved"}
    assert prov["trace_fields"]["validation_level"]["reviewer"] == {
        **by, "note": "the level the reviewer chose; the draft was retraced_from_logs"}
    for k in ("trace_id", "prior_trace_id", "validation_level"):
        assert {k2: v for k2, v in prov["trace_fields"][k].items() if k2 != "reviewer"} == {
            "origin": "human", "rule": None, "evidence": [], "redacted": False, "excerpt": False, "model": None}
    assert (man["trace_id"], man["validation_level"]) == (rid, "client_validated")
    assert man["files"] == {n: sha(out[n]) for n in ("README.md", "provenance.json", "trace.json")}
    assert rid in out["README.md"].decode() and "A slug fix." in out["README.md"].decode()
    assert out["trace.json"].endswith(b"}\n") and out["provenance.json"].startswith(b'{\n  "')
    row = st.trace(rid)
    assert row is not None and row.prior_trace_id == tid and row.task == original["task"]
    d = st.trace(tid)
    assert d is not None
    for k in ("source_kind", "session_id", "unit_path", "agent", "project", "started_at", "ended_at", "confidence",
              "steps", "turns"):
        assert getattr(row, k) == getattr(d, k), k
    # its audit record: the level, the new trace, the count of edits, the hashes before and after
    log = [a for a in st.audit(tid) if a.action in ("edit", "approve")]
    ap = log[-1]
    assert ap.action == "approve" and ap.actor == ADA and ap.at == T.format(59)
    assert json.loads(ap.detail_json) == {"level": "client_validated", "reviewed_trace_id": rid, "edits": 11}
    assert ap.before_sha256 == log[-2].after_sha256 and ap.after_sha256 == sha(out["trace.json"])


def test_the_reviewed_trace_is_found_by_the_same_texts_as_its_draft(st: Store) -> None:
    tid = put(st, DEMO)
    actions.edit(st, tid, "/steps/2/reasoning", "Reads it.", reviewer=ADA, at=T.format(1))
    # an input on the answer step (no tool, no user): not searched, as the sweep does not search it
    actions.edit(st, tid, "/steps/6/input", "zebra words", reviewer=ADA, at=T.format(1))
    rid = actions.approve(st, tid, "human_reviewed", reviewer=ADA, at=T.format(2)).reviewed_trace_id
    steps = json.loads(files_of(st, tid)["trace.json"])["steps"]
    want = [("task", json.loads(files_of(st, tid)["trace.json"])["task"]), ("prompt", steps[0]["input"])]
    want += [("tool_input", steps[i]["input"]) for i in (1, 2, 3, 4)]
    want += [("prompt", steps[6]["input"]), ("tool_input", steps[7]["input"])]
    q = "SELECT what, text FROM trace_text WHERE trace_id = ? ORDER BY rowid"
    assert [tuple(r) for r in st.db.execute(q, (rid,)).fetchall()] == want  # type: ignore[attr-defined]


def test_each_edit_is_audited_with_the_draft_hash_before_and_after(st: Store) -> None:
    tid = put(st, DEMO)
    stored = files_of(st, tid)["trace.json"]
    actions.edit(st, tid, "/steps/4/observation", "Edits the pattern.", reviewer=ADA, at=T.format(1))
    actions.edit(st, tid, "/steps/3/eval", "0", reviewer=BOB, at=T.format(2))
    actions.needs_changes(st, tid, "", reviewer=BOB, at=T.format(3))
    actions.edit(st, tid, "/learning", "Test first.", reviewer=ADA, at=T.format(4))
    log = [a for a in st.audit(tid) if a.action != "draft_created"]
    assert [(a.action, a.actor, a.at) for a in log] == [("edit", ADA, T.format(1)), ("edit", BOB, T.format(2)),
                                                       ("needs_changes", BOB, T.format(3)), ("edit", ADA, T.format(4))]
    assert [json.loads(a.detail_json) for a in log] == [
        {"path": "/steps/4/observation", "value": "Edits the pattern."},  # it replaced a null: no "replaced"
        {"path": "/steps/3/eval", "value": 0, "replaced": -1},
        {"status_before": "pending"},
        {"path": "/learning", "value": "Test first."}]
    assert log[0].before_sha256 == sha(stored)
    d = from_store(st, tid)
    assert log[-1].after_sha256 == actions.effective_sha256(d.files, d.proposals)
    for a, b in zip(log, log[1:], strict=False):
        assert a.after_sha256 == b.before_sha256 and a.after_sha256 is not None
    assert log[2].before_sha256 == log[2].after_sha256  # a status changes no field
    assert len({log[0].before_sha256, log[0].after_sha256, log[1].after_sha256, log[3].after_sha256}) == 4
    rows = st.proposals(tid)
    assert [(p.path, p.value_json, p.replaced_json, p.origin, p.actor, p.created_at) for p in rows] == [
        ("/steps/4/observation", '"Edits the pattern."', None, "human", ADA, T.format(1)),
        ("/steps/3/eval", "0", "-1", "human", BOB, T.format(2)),
        ("/learning", '"Test first."', None, "human", ADA, T.format(4))]


def test_a_stale_version_is_a_conflict_and_writes_nothing(st: Store) -> None:
    tid = put(st, DEMO)
    v0 = st.draft_state(tid).version  # type: ignore[union-attr]
    actions.edit(st, tid, "/steps/2/reasoning", "Mine.", reviewer=ADA, at=T.format(1), expected_version=v0)
    before = (st.proposals(tid), st.audit(tid), st.draft_state(tid))
    stale = [
        lambda: actions.edit(st, tid, "/steps/2/reasoning", "Theirs.", reviewer=BOB, at=T.format(2),
                             expected_version=v0),
        lambda: actions.confirm(st, tid, "/steps/2/reasoning", reviewer=BOB, at=T.format(2), expected_version=v0),
        lambda: actions.decline(st, tid, "/steps/2/reasoning", reviewer=BOB, at=T.format(2), expected_version=v0),
        lambda: actions.approve(st, tid, "human_reviewed", reviewer=BOB, at=T.format(2), expected_version=v0),
        lambda: actions.reject(st, tid, "No.", reviewer=BOB, at=T.format(2), expected_version=v0),
        lambda: actions.needs_changes(st, tid, "More.", reviewer=BOB, at=T.format(2), expected_version=v0),
    ]
    for i, act in enumerate(stale):
        with pytest.raises((ReviewConflict, InputError)) as e:
            act()
        if i != 2:  # decline refuses a value no model proposed before it looks at the version
            assert isinstance(e.value, ReviewConflict), i
    assert (st.proposals(tid), st.audit(tid), st.draft_state(tid)) == before
    # no version given: the current one
    actions.edit(st, tid, "/steps/2/reasoning", "Mine again.", reviewer=ADA, at=T.format(3))
    assert st.draft_state(tid).version == v0 + 2  # type: ignore[union-attr]
    # a field nobody set since the page was loaded is no conflict: kept, on the draft as it is now
    actions.confirm(st, tid, "/steps/3/success", reviewer=BOB, at=T.format(4), expected_version=v0)
    assert st.draft_state(tid).version == v0 + 3  # type: ignore[union-attr]
    assert [p.path for p in st.proposals(tid)] == ["/steps/2/reasoning", "/steps/2/reasoning", "/steps/3/success"]


def test_only_open_drafts_are_acted_on(st: Store) -> None:
    tid = put(st, DEMO)
    actions.needs_changes(st, tid, "  Check step 3.  ", reviewer=BOB, at=T.format(1))
    [nc] = [a for a in st.audit(tid) if a.action == "needs_changes"]
    assert json.loads(nc.detail_json) == {"note": "Check step 3.", "status_before": "pending"}
    actions.edit(st, tid, "/steps/3/eval", "0", reviewer=ADA, at=T.format(2))  # needing changes: still open
    rid = actions.approve(st, tid, "expert_reviewed", reviewer=ADA, at=T.format(3)).reviewed_trace_id
    with pytest.raises(InputError) as e:
        actions.edit(st, tid, "/steps/3/eval", "1", reviewer=ADA, at=T.format(4))
    assert e.value.message == (f"trace {tid} is approved; it was reviewed as {rid}: only pending drafts and drafts "
                               "needing changes are reviewed")
    with pytest.raises(InputError) as e:
        actions.reject(st, rid, "Bad.", reviewer=ADA, at=T.format(4))  # type: ignore[arg-type]
    assert e.value.message == f"trace {rid} is the result of a review (of draft {tid}), not a draft"


def test_a_rejection_needs_a_reason_and_keeps_it_stripped(st: Store) -> None:
    tid = put(st, DEMO)
    for reason in ("", "   \n\t"):
        with pytest.raises(InputError) as e:
            actions.reject(st, tid, reason, reviewer=ADA, at=T.format(1))
        assert e.value.message == "a rejection needs a reason (--reason)"
    assert st.draft_state(tid).status == "pending"  # type: ignore[union-attr]
    stored = files_of(st, tid)["trace.json"]
    done = actions.reject(st, tid, "\n Not a real session. ", reviewer=ADA, at=T.format(2))
    assert done.state.status == "rejected" and done.reviewed_trace_id is None
    [r] = [a for a in st.audit(tid) if a.action == "reject"]
    assert json.loads(r.detail_json) == {"note": "Not a real session.", "status_before": "pending"}
    assert r.before_sha256 == r.after_sha256 == sha(stored)
    with pytest.raises(InputError) as e:
        actions.needs_changes(st, tid, "again", reviewer=ADA, at=T.format(3))
    assert e.value.message == (f"trace {tid} is rejected: only pending drafts and drafts needing changes are "
                               "reviewed")


def test_confirm_keeps_the_value_as_the_reviewers_decision(st: Store) -> None:
    tid = put(st, DEMO)
    actions.confirm(st, tid, "/steps/3/success", reviewer=ADA, at=T.format(1))
    actions.confirm(st, tid, "/steps/3/eval", reviewer=ADA, at=T.format(2))
    actions.confirm(st, tid, "/termination_reason", reviewer=BOB, at=T.format(3))
    with pytest.raises(InputError) as e:
        actions.confirm(st, tid, "/summary/goal_achieved", reviewer=ADA, at=T.format(4))
    assert e.value.message == "/summary/goal_achieved is null: nothing to confirm; give it a value"
    rows = st.proposals(tid)
    assert [(p.path, p.value_json, p.replaced_json, p.actor) for p in rows] == [
        ("/steps/3/success", "false", "false", ADA), ("/steps/3/eval", "-1", "-1", ADA),
        ("/termination_reason", '"task_complete"', '"task_complete"', BOB)]
    d = from_store(st, tid)
    assert decisions(d) == {"/steps/3/success": "accepted", "/steps/3/eval": "accepted",
                            "/termination_reason": "accepted"}
    assert d.trace["steps"][2]["success"] is False and d.trace["termination_reason"] == "task_complete"
    assert d.step_provenance(3)["fields"]["success"]["reviewer"]["replaced"] == {
        "value": False, "rule": "R-call/error-flag", "origin": "derived"}


def test_decline_nulls_a_models_value_and_nothing_else(tmp_path: Path, st: Store) -> None:
    [o] = retrace_one(DEMO, RetraceOptions(), sink=ModelSink(StoreSink(st, now=NOW)), keep=False)
    tid = o.trace_id
    assert tid is not None
    for path in ("/steps/2/reasoning", "/steps/4/observation", "/termination_reason", "/summary/goal_notes"):
        with pytest.raises(InputError) as e:
            actions.decline(st, tid, path, reviewer=ADA, at=T.format(1))
        assert e.value.message == f"{path} was not proposed by a model; correct it with an edit"
    v = st.draft_state(tid).version  # type: ignore[union-attr]
    actions.decline(st, tid, "/steps/2/observation", reviewer=ADA, at=T.format(2), expected_version=v)
    with pytest.raises(ReviewConflict):  # the same field, decided on the page before that decline
        actions.decline(st, tid, "/steps/2/observation", reviewer=BOB, at=T.format(3), expected_version=v)
    # another field, as the page showed it: no conflict
    actions.decline(st, tid, "/learning", reviewer=BOB, at=T.format(3), expected_version=v)
    d = from_store(st, tid)
    assert d.trace["steps"][1]["observation"] is None and d.trace["learning"] is None
    assert decisions(d) == {"/steps/2/observation": "declined", "/learning": "declined"}
    assert [(p.path, p.value_json, p.replaced_json) for p in st.proposals(tid)] == [
        ("/steps/2/observation", "null", '"It reads the file."'), ("/learning", "null", '"Read before editing."')]
    assert d.provenance["trace_fields"]["learning"]["reviewer"]["replaced"] == {
        "value": "Read before editing.", "rule": None, "origin": "model"}


def test_an_edit_that_would_make_an_invalid_trace_is_refused(st: Store) -> None:
    tid = put(st, DEMO)
    with pytest.raises(InputError) as e:
        actions.edit(st, tid, "/termination_reason", "bored", reviewer=ADA, at=T.format(1))
    assert e.value.message.startswith("/termination_reason: the edited trace would not be valid: ")
    assert st.proposals(tid) == []


def test_an_approval_validate_refuses_names_three_errors_and_counts_the_rest(st: Store,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from forsy import validation
    from forsy.validation._base import Finding
    from forsy.validation.check import Report

    tid = put(st, DEMO)
    errs = [Finding(f"V{i}", "error", f"problem {i}") for i in range(1, 6)]
    warn = [Finding("W1", "warning", "only a warning")]
    for found, tail in ((errs, "V1 problem 1; V2 problem 2; V3 problem 3 (and 2 more)"),
                        (errs[:4], "V1 problem 1; V2 problem 2; V3 problem 3 (and 1 more)"),
                        (errs[:3] + warn, "V1 problem 1; V2 problem 2; V3 problem 3"),
                        (errs[:1], "V1 problem 1")):
        monkeypatch.setattr(validation, "validate_files", lambda files, f=found: Report("x", f, False, {}))
        with pytest.raises(InputError) as e:
            actions.approve(st, tid, "human_reviewed", reviewer=ADA, at=T.format(1))
        assert e.value.message == f"the reviewed trace does not pass forsy validate: {tail}; nothing was approved"
    monkeypatch.setattr(validation, "validate_files", lambda files: Report("x", warn, False, {}))
    assert actions.approve(st, tid, "human_reviewed", reviewer=ADA, at=T.format(2)).reviewed_trace_id


def test_a_secret_in_a_reason_is_masked_after_the_traces_own(tmp_path: Path, st: Store) -> None:
    from _review import planted_log

    log, _ = planted_log(tmp_path / "logs")  # its trace holds [CREDENTIAL_1] to [CREDENTIAL_3]
    tid = put(st, log)
    pasted = "ghp_" + "Zx81Qw" * 6  # 36 characters after the prefix: a GitHub token
    actions.reject(st, tid, f"Leaks {pasted} and [CREDENTIAL_2].", reviewer=ADA, at=T.format(1))
    [r] = [a for a in st.audit(tid) if a.action == "reject"]
    assert json.loads(r.detail_json)["note"] == "Leaks [CREDENTIAL_4] and [CREDENTIAL_2]."


@pytest.mark.parametrize("path", ["", "success", "/steps/3/nope", "/steps/x/success", "/summary/what"])
def test_confirm_or_decline_of_a_path_naming_no_field_is_refused_by_name(st: Store, path: str) -> None:
    """A path that names no field was a ValueError out of the library (a 500 in the web UI,
    whose handler now catches it too): it is the caller's mistake, said as one, and nothing changes."""
    tid = put(st, DEMO)
    before = st.proposals(tid)
    for act in (actions.confirm, actions.decline):
        with pytest.raises(InputError) as e:
            act(st, tid, path, reviewer=ADA, at=T.format(1))
        assert e.value.message == f"{path!r} names no field of the trace (a step field is /steps/N/<field>)"
    assert st.proposals(tid) == before
