"""The promises of `forsy.review.overlay`: a reviewer's value is typed by its field (or refused
with the reason); edits are laid over a copy of the draft (the draft untouched), the last for a
path wins, each with a provenance naming who, when and what it replaced; the reviewed folder has
a new id from the draft, the level and the edits, its manifest hashes what it holds, and carries
artifacts byte for byte. Inputs are built here; expectations are worked out by hand."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import orjson
import pytest

from _paths import SAMPLES
from _review import put
from forsy.errors import InputError
from forsy.ids import make_id
from forsy.proposals import Actor, Citation, Proposal, Replaced
from forsy.review import overlay as ov
from forsy.store import open_store

ADA = "Ada <ada@example.org>"
AT = "2026-03-02T10:00:00+00:00"


def hp(path: str, value: Any, old: Any = None, who: str = ADA, at: str | None = AT) -> Proposal:
    return Proposal(path, value, "human", Actor(who), replaces=None if old is None else Replaced(old, None), time=at)


# ------------------------------------------------------------------ typed values


def test_field_paths() -> None:
    assert ov.field_path(3, "reasoning") == "/steps/3/reasoning"
    assert ov.field_path(0, "eval") == "/steps/0/eval"
    assert ov.field_path(None, "summary.goal_notes") == "/summary/goal_notes"
    assert ov.field_path(None, "/learning") == "/learning"
    assert ov.field_path(None, "//dataset_summary.description") == "/dataset_summary/description"


@pytest.mark.parametrize(("path", "text", "want"), [
    ("/steps/2/reasoning", "  Reads <b>it</b>.\n", "  Reads <b>it</b>.\n"),  # text as typed
    ("/steps/2/success", " True ", True), ("/steps/2/success", "FALSE", False),
    ("/summary/goal_achieved", "true", True),
    ("/steps/1/eval", "-1", -1), ("/steps/1/eval", " 0 ", 0), ("/steps/1/eval", "1", 1), ("/steps/1/eval", "+1", 1),
    ("/learning", "x", "x"), ("/termination_reason", "other", "other"),
])
def test_a_typed_value_has_its_fields_type(path: str, text: str, want: Any) -> None:
    got = ov.parse_value(path, text)
    assert got == want and type(got) is type(want)


STEP_FIELDS = ("alternatives_considered, causal_note, causal_type, directive, eval, eval_reason, feedback_content, "
               "input, message_role, observation, operation, output, reasoning, state_change, success")
TRACE_FIELDS = ("/learning, /summary/goal_achieved, /summary/goal_notes, /termination_reason, "
                "/dataset_summary/description")


@pytest.mark.parametrize(("path", "text", "message"), [
    ("/steps/2/success", "yes", "success is true or false, not 'yes'"),
    ("/summary/goal_achieved", "", "/summary/goal_achieved is true or false, not ''"),
    ("/steps/2/eval", "2", "eval is -1, 0 or 1, not '2'"), ("/steps/2/eval", "1.0", "eval is -1, 0 or 1, not '1.0'"),
    ("/steps/2/eval", "", "eval is -1, 0 or 1, not ''"),
    ("/steps/2/reasoning", "  \n", "reasoning: an empty value; a field is cleared by re-tracing, not by review"),
    ("/learning", "", "/learning: an empty value; a field is cleared by re-tracing, not by review"),
    ("/steps/2/turn", "3", f"turn cannot be edited in review; editable: {STEP_FIELDS}"),
    ("/steps/2/bogus", "3", f"bogus cannot be edited in review; editable: {STEP_FIELDS}"),
    ("/steps/2/a/b", "3", f"a/b cannot be edited in review; editable: {STEP_FIELDS}"),
    ("/task", "x", f"/task cannot be edited in review; editable: {TRACE_FIELDS}"),
    ("/summary/positive_steps", "1", f"/summary/positive_steps cannot be edited in review; editable: {TRACE_FIELDS}"),
    ("/made/up", "1", f"/made/up cannot be edited in review; editable: {TRACE_FIELDS}"),
])
def test_a_value_that_does_not_fit_is_refused_with_the_reason(path: str, text: str, message: str) -> None:
    with pytest.raises(InputError) as e:
        ov.parse_value(path, text)
    assert e.value.message == message


def test_the_current_value_of_a_path() -> None:
    trace = {"steps": [{"eval": 0}, {"eval": -1, "reasoning": "r"}], "summary": {"goal_notes": "n"},
             "learning": None, "termination_reason": "other"}
    assert ov.current_value(trace, "/steps/2/eval") == -1 and ov.current_value(trace, "/steps/1/eval") == 0
    assert ov.current_value(trace, "/steps/1/reasoning") is None
    assert ov.current_value(trace, "/summary/goal_notes") == "n" and ov.current_value(trace, "/learning") is None
    assert ov.current_value(trace, "/summary/goal_achieved") is None
    assert ov.current_value(trace, "/dataset_summary/description") is None  # no such parent
    assert ov.current_value({"summary": "text"}, "/summary/goal_notes") is None  # a parent that is no object
    with pytest.raises(InputError) as e:
        ov.current_value(trace, "/steps/3/eval")
    assert e.value.message == "no step 3: the trace has 2 steps"
    with pytest.raises(InputError) as e:
        ov.current_value({}, "/steps/1/eval")
    assert e.value.message == "no step 1: the trace has 0 steps"


def test_a_human_proposal_keeps_the_value_it_replaces_when_it_is_one() -> None:
    trace = {"steps": [{"eval": -1, "success": False, "input": "i", "state_change": 1.5, "output": None,
                        "observation": ["a"]}]}
    for field, old in (("eval", -1), ("success", False), ("input", "i"), ("state_change", 1.5)):
        p = ov.human_proposal(trace, f"/steps/1/{field}", "v", ADA, AT)
        assert p == Proposal(f"/steps/1/{field}", "v", "human", Actor(ADA), replaces=Replaced(old, None), time=AT)
    for field in ("output", "observation", "reasoning"):  # null, a list, absent: nothing kept
        assert ov.human_proposal(trace, f"/steps/1/{field}", "v", ADA, AT).replaces is None


# ------------------------------------------------------------------ provenance


def test_a_reviewers_provenance_names_who_when_and_what_it_replaced() -> None:
    p = hp("/steps/1/eval", 1, old=-1)
    assert ov.field_provenance(p) == {
        "origin": "human", "rule": None, "evidence": [], "redacted": False, "excerpt": False, "model": None,
        "reviewer": {"reviewer": ADA, "citations": [], "replaced": {"value": -1, "rule": None, "origin": None},
                     "time": AT}}
    # the replaced value's own rule and origin come from its provenance (even a null rule)
    got = ov.field_provenance(p, {"origin": "derived", "rule": "R-eval"})
    assert got["reviewer"]["replaced"] == {"value": -1, "rule": "R-eval", "origin": "derived"}
    got = ov.field_provenance(p, {"origin": "copied", "rule": None})
    assert got["reviewer"]["replaced"] == {"value": -1, "rule": None, "origin": "copied"}
    p2 = Proposal("/learning", "x", "human", Actor(ADA), replaces=Replaced("y", "R-own"))
    assert ov.field_provenance(p2, {"origin": "model"})["reviewer"]["replaced"] == {
        "value": "y", "rule": "R-own", "origin": "model"}
    assert ov.field_provenance(p2)["reviewer"] == {"reviewer": ADA, "citations": [],
                                                  "replaced": {"value": "y", "rule": "R-own", "origin": None}}
    assert "replaced" not in ov.field_provenance(hp("/learning", "x", at=None))["reviewer"]


def test_a_models_provenance_cites_its_evidence_once_each() -> None:
    cites = (Citation("ev1", "/a", "import re", 100.0), Citation("ev2", "", "q2", 80.0),
             Citation("ev1", "/a", "again", 90.0))
    p = Proposal("/steps/2/observation", "It reads.", "model", Actor("m/x", "p7"), citations=cites)
    assert ov.field_provenance(p) == {
        "origin": "model", "rule": None, "evidence": [{"id": "ev1", "pointer": "/a"}, {"id": "ev2", "pointer": ""}],
        "redacted": False, "excerpt": False,
        "model": {"model": "m/x", "prompt_version": "p7", "citations": [
            {"id": "ev1", "quote": "import re", "score": 100.0}, {"id": "ev2", "quote": "q2", "score": 80.0},
            {"id": "ev1", "quote": "again", "score": 90.0}]}}


# ------------------------------------------------------------------ apply_to_trace


def docs() -> tuple[dict[str, Any], dict[str, Any]]:
    trace = {"steps": [{"eval": 0}, {"eval": -1, "observation": None}, {"eval": 0}],
             "summary": {"positive_steps": 0, "negative_steps": 1, "neutral_steps": 2, "goal_achieved": None},
             "learning": None}
    prov = {"steps": [{"step": 3, "evidence": ["e3"], "fields": {"eval": {"origin": "derived", "rule": "R-e"}}}],
            "trace_fields": {"learning": {"origin": "model", "rule": None}}, 1: "an int key"}
    return trace, prov


def test_edits_are_laid_over_a_copy_the_last_for_a_path_wins() -> None:
    trace, prov = docs()
    t0, p0 = copy.deepcopy(trace), copy.deepcopy(prov)
    edits = [hp("/steps/3/eval", 1, 0), hp("/steps/2/observation", "Fails."), hp("/learning", "L1"),
             hp("/steps/3/eval", -1, 1, who="Bob"), hp("/summary/goal_achieved", False),
             hp("/dataset_summary/description", "D"), hp("/steps/1/reasoning", ("a", "b"))]
    t, p = ov.apply_to_trace(trace, prov, edits)
    assert (trace, prov) == (t0, p0)  # pure
    assert [s["eval"] for s in t["steps"]] == [0, -1, -1]
    assert t["steps"][1]["observation"] == "Fails." and t["steps"][0]["reasoning"] == ["a", "b"]
    assert t["learning"] == "L1" and t["summary"]["goal_achieved"] is False
    assert t["dataset_summary"] == {"description": "D"}  # its parent made
    assert (t["summary"]["positive_steps"], t["summary"]["negative_steps"], t["summary"]["neutral_steps"]) == (0, 2, 1)
    assert [sp["step"] for sp in p["steps"]] == [1, 2, 3]  # new step entries, in order
    assert p["steps"][0] == {"step": 1, "evidence": [], "fields": {"reasoning": ov.field_provenance(edits[-1])}}
    e3 = p["steps"][2]
    assert e3["evidence"] == ["e3"] and e3["fields"]["eval"]["reviewer"]["reviewer"] == "Bob"
    # the second edit replaced the first: the first's provenance is what it replaced
    assert e3["fields"]["eval"]["reviewer"]["replaced"] == {"value": 1, "rule": None, "origin": "human"}
    assert "replaced" not in p["trace_fields"]["learning"]["reviewer"]  # it replaced a null
    assert p["trace_fields"]["summary.goal_achieved"]["origin"] == "human"
    assert p["trace_fields"]["dataset_summary.description"]["reviewer"]["reviewer"] == ADA
    assert p["1"] == "an int key"  # a key that is no string does not stop the copy


def test_a_provenance_with_no_trace_fields_gets_them() -> None:
    _, prov = ov.apply_to_trace({"steps": []}, {}, [hp("/learning", "L")])
    assert prov == {"steps": [], "trace_fields": {"learning": ov.field_provenance(hp("/learning", "L"))}}


def test_the_counts_follow_only_an_edited_eval() -> None:
    trace, prov = docs()
    t, _ = ov.apply_to_trace(trace, prov, [hp("/steps/1/eval", 1, 0)])
    assert (t["summary"]["positive_steps"], t["summary"]["negative_steps"], t["summary"]["neutral_steps"]) == (1, 1, 1)
    trace["summary"]["neutral_steps"] = 99  # a count that is wrong stays as it is unless an eval is edited
    t, _ = ov.apply_to_trace(trace, prov, [hp("/steps/1/observation", "x")])
    assert t["summary"]["neutral_steps"] == 99
    t, _ = ov.apply_to_trace({"steps": [{"eval": 0}]}, {}, [hp("/steps/1/eval", 1, 0)])  # no summary: none made
    assert "summary" not in t and t["steps"] == [{"eval": 1}]
    t, _ = ov.apply_to_trace({"steps": [{"eval": 0}], "summary": None}, {}, [hp("/steps/1/eval", 1, 0)])
    assert t["summary"] is None


def test_an_edit_of_a_step_the_trace_does_not_have_is_refused() -> None:
    trace, prov = docs()
    with pytest.raises(InputError) as e:
        ov.apply_to_trace(trace, prov, [hp("/steps/4/eval", 1)])
    assert e.value.message == "an edit of step 4, but the trace has 3 steps"
    with pytest.raises(InputError):
        ov.apply_to_trace({}, {}, [hp("/steps/1/eval", 1)])


def test_the_reviewed_id_hashes_the_draft_the_level_and_the_edits() -> None:
    edits = [hp("/steps/1/eval", 1), hp("/steps/1/reasoning", ("a", "b"))]
    rid = ov.reviewed_trace_id("forsy_d", "human_reviewed", edits)
    assert rid == make_id("forsy", "reviewed", "forsy_d", "human_reviewed",
                          [["/steps/1/eval", 1], ["/steps/1/reasoning", ["a", "b"]]], length=20)
    assert rid == ov.reviewed_trace_id("forsy_d", "human_reviewed", [hp("/steps/1/eval", 1, who="Bob", at=None),
                                                                     hp("/steps/1/reasoning", ["a", "b"])])
    others = {ov.reviewed_trace_id("forsy_e", "human_reviewed", edits),
              ov.reviewed_trace_id("forsy_d", "expert_reviewed", edits),
              ov.reviewed_trace_id("forsy_d", "human_reviewed", edits[:1]),
              ov.reviewed_trace_id("forsy_d", "human_reviewed", [hp("/steps/1/eval", 0), edits[1]])}
    assert rid not in others and len(others) == 4


# ------------------------------------------------------------------ the draft's files and the reviewed folder


def test_a_draft_whose_files_cannot_be_read_is_refused() -> None:
    ok = b"{}"
    for files, message in (({"provenance.json": ok}, "the draft has no trace.json"),
                           ({"trace.json": ok}, "the draft has no provenance.json"),
                           ({"trace.json": b"[1]", "provenance.json": ok},
                            "the draft's trace.json is not a JSON object"),
                           ({"trace.json": ok, "provenance.json": b'"s"'},
                            "the draft's provenance.json is not a JSON object")):
        with pytest.raises(InputError) as e:
            ov.effective(files, [])
        assert e.value.message == message
    with pytest.raises(InputError) as e:
        ov.effective({"trace.json": b"{nope", "provenance.json": ok}, [])
    assert e.value.message.startswith("the draft's trace.json is not JSON: ")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("overlay")
    st = open_store(f"sqlite:///{tmp / 'store.db'}")
    try:
        return {f.name: f.data for f in st.trace_files(put(st, SAMPLES / "claude" / "demo-session.jsonl"))}
    finally:
        st.close()


def test_the_sha256_of_a_draft_is_its_stored_bytes_until_edited(demo: dict[str, bytes]) -> None:
    odd = {**demo, "trace.json": demo["trace.json"] + b" "}  # not as forsy writes it: its own bytes count
    assert ov.effective_sha256(odd, []) == hashlib.sha256(odd["trace.json"]).hexdigest()
    edits = [hp("/steps/2/reasoning", "R.")]
    trace, _ = ov.effective(demo, edits)
    want = ov.trace_bytes(trace)
    assert want.startswith(b'{\n  "schema_version"') and want.endswith(b"}\n") and b'"reasoning": "R."' in want
    assert ov.effective_sha256(demo, edits) == hashlib.sha256(want).hexdigest()
    assert ov.trace_bytes(json.loads(demo["trace.json"])) == demo["trace.json"]  # the folder writer's bytes


def test_the_reviewed_folder(demo: dict[str, bytes]) -> None:
    lone = "out \ud800 é".encode("utf-8", "surrogatepass")  # as the folder writer writes a tool's output
    files = {**demo, "artifacts/a.diff": lone, "artifacts/b.txt": "é".encode(), "notes.txt": b"n"}
    edits = [hp("/steps/3/eval", 1, -1), hp("/learning", "Test first.")]
    rv = ov.reviewed_folder(files, edits, level="expert_reviewed", reviewer=ADA, at=AT)
    draft = json.loads(demo["trace.json"])
    assert rv.trace_id == ov.reviewed_trace_id(draft["trace_id"], "expert_reviewed", edits) == rv.trace.trace_id
    assert sorted(rv.files) == ["README.md", "artifacts/a.diff", "artifacts/b.txt", "manifest.json",
                                "provenance.json", "trace.json"]  # other files are not the reviewed trace's
    assert rv.files["artifacts/a.diff"] == lone and rv.files["artifacts/b.txt"] == "é".encode()
    t = json.loads(rv.files["trace.json"])
    assert t["steps"][2]["eval"] == 1 and t["learning"] == "Test first." and t["prior_trace_id"] == draft["trace_id"]
    assert t["validation_level"] == t["dataset_summary"]["validation_level"] == "expert_reviewed"
    assert rv.files["trace.json"] == ov.trace_bytes(t)
    prov = orjson.loads(rv.files["provenance.json"])
    assert rv.files["provenance.json"] == orjson.dumps(prov, option=orjson.OPT_INDENT_2) + b"\n"
    assert prov["trace_id"] == rv.trace_id
    man = json.loads(rv.files["manifest.json"])
    assert man["files"] == {n: hashlib.sha256(d).hexdigest() for n, d in rv.files.items() if n != "manifest.json"}
    assert list(man["files"]) == sorted(man["files"])
    assert rv.files["manifest.json"].endswith(b"}\n") and rv.files["manifest.json"].startswith(b"{\n  ")
    assert (man["trace_id"], man["validation_level"]) == (rv.trace_id, "expert_reviewed")
    readme = rv.files["README.md"].decode()
    assert rv.trace_id in readme and "expert_reviewed" in readme
    line = "- `artifacts/`: full tool outputs the agent saw only a preview of."
    assert line in readme  # the card names the artifacts it carries
    bare = ov.reviewed_folder({**demo, "notes.txt": b"n"}, edits, level="expert_reviewed", reviewer=ADA, at=AT)
    assert line not in bare.files["README.md"].decode()
    assert bare.files["manifest.json"].startswith(b'{\n  "')  # indented by two
    assert (files["trace.json"], files["manifest.json"]) == (demo["trace.json"], demo["manifest.json"])


def test_a_draft_whose_provenance_has_no_trace_fields_is_approved(demo: dict[str, bytes]) -> None:
    prov = json.loads(demo["provenance.json"])
    del prov["trace_fields"]
    files = {**demo, "provenance.json": json.dumps(prov).encode()}
    rv = ov.reviewed_folder(files, [], level="human_reviewed", reviewer=ADA, at=AT)
    got = json.loads(rv.files["provenance.json"])["trace_fields"]
    assert sorted(got) == ["prior_trace_id", "trace_id", "validation_level"]


def test_an_unknown_level_or_an_invalid_result_is_refused(demo: dict[str, bytes]) -> None:
    with pytest.raises(InputError) as e:
        ov.reviewed_folder(demo, [], level="retraced_from_logs", reviewer=ADA, at=AT)
    assert e.value.message == ("unknown review level 'retraced_from_logs'; one of human_reviewed, expert_reviewed, "
                               "client_validated")
    with pytest.raises(InputError) as e:
        ov.reviewed_folder(demo, [hp("/termination_reason", "bored")], level="human_reviewed", reviewer=ADA, at=AT)
    assert e.value.message.startswith("the reviewed trace would not be a valid trace: ")
    broken = {**demo, "manifest.json": b'{"trace_id": 5}'}
    with pytest.raises(InputError) as e:
        ov.reviewed_folder(broken, [], level="human_reviewed", reviewer=ADA, at=AT)
    assert e.value.message.startswith("the reviewed trace would not be a valid trace: ")
    with pytest.raises(InputError) as e:
        ov.reviewed_folder({k: v for k, v in demo.items() if k != "manifest.json"}, [], level="human_reviewed",
                           reviewer=ADA, at=AT)
    assert e.value.message == "the draft has no manifest.json"


# ------------------------------------------------------------------ the store's rows


@pytest.mark.parametrize(("value", "old", "value_json", "replaced_json"), [
    ("é <b>", "x", '"é <b>"', '"x"'), (True, False, "true", "false"), (-1, None, "-1", None),
    (("a", "b"), 0, '["a","b"]', "0"), (None, "m", "null", '"m"'),
])
def test_a_proposal_to_the_store_and_back(value: Any, old: Any, value_json: str, replaced_json: str | None) -> None:
    p = hp("/steps/1/reasoning", value, old)
    assert ov.proposal_json(p) == (value_json, replaced_json)
    back = ov.stored_proposal("/steps/1/reasoning", value_json, "human", ADA, AT, replaced_json)
    assert back == p
    m = ov.stored_proposal("/learning", value_json, "model", "m/x", AT, None)
    assert (m.origin, m.actor, m.replaces, m.value) == ("model", Actor("m/x"), None, value)
    assert ov.stored_proposal("/learning", "1", "anything", "a", AT, None).origin == "model"
