"""One value, one placeholder, throughout a trace: what reviewers type into a draft is masked as
the draft's redactor numbers placeholders. A value pasted into two edits (or an edit and a note),
in two processes, gets one placeholder; a value the draft's log holds gets the draft's own; a new
value the next number after every placeholder the draft and its history hold. What lets a later
edit know a value is a keyed fingerprint in the action's audit record, under a key kept in
forsy's data folder (never the value, never a key the store holds)."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from _review import cli, planted_draft
from forsy.review import redacted
from forsy.store import open_store
from secretgen import SecretGen, forms

NEW = SecretGen(seed=99).github()  # a token no log holds
OTHER = SecretGen(seed=98).github()


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """forsy's data folder (where the fingerprints' key is kept) in the test's folder, and a
    process that has read no key and rebuilt no redactor yet."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    new_process()
    yield tmp_path / "data" / "forsy"
    new_process()


def new_process() -> None:
    """What a new `forsy` process starts from: no key read, no session redactor rebuilt."""
    redacted._KEY.clear()
    redacted._CACHE.clear()


def stored(tmp_path: Path) -> tuple[str, str, list[str], int]:
    """A store holding the draft of a log with three planted secrets: its URL, the draft, the
    secrets, and the highest credential placeholder of the draft."""
    url, tid, planted, trace = planted_draft(tmp_path)
    return url, tid, planted, max(int(n) for n in re.findall(r"\[CREDENTIAL_(\d+)\]", trace))


def values(url: str, tid: str) -> dict[str, str]:
    st = open_store(url)
    try:
        return {p.path: json.loads(p.value_json) for p in st.proposals(tid)}
    finally:
        st.close()


def edit(url: str, tid: str, *args: str) -> None:
    code, _, err = cli("review", "edit", tid, *args, "--store", url)
    assert code == 0, err


def test_a_value_pasted_into_two_edits_in_two_processes_has_one_placeholder(tmp_path: Path) -> None:
    url, tid, _, high = stored(tmp_path)
    edit(url, tid, "--field", "learning", "--value", f"use {NEW} to deploy")
    new_process()
    edit(url, tid, "--step", "2", "--field", "reasoning", "--value", f"again {NEW}, and {OTHER}")
    new_process()
    edit(url, tid, "--field", "summary.goal_notes", "--value", f"{OTHER} then {NEW}")
    got = values(url, tid)
    one, two = f"[CREDENTIAL_{high + 1}]", f"[CREDENTIAL_{high + 2}]"
    assert got == {"/learning": f"use {one} to deploy", "/steps/2/reasoning": f"again {one}, and {two}",
                   "/summary/goal_notes": f"{two} then {one}"}
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    assert code == 0 and not any(f in out for f in (*forms(NEW), *forms(OTHER)))


def test_a_value_the_log_holds_keeps_the_drafts_own_placeholder(tmp_path: Path) -> None:
    url, tid, planted, high = stored(tmp_path)
    token = planted[0]
    st = open_store(url)
    try:
        trace = next(f.data for f in st.trace_files(tid) if f.name == "trace.json").decode()
    finally:
        st.close()
    said = re.search(r"My token is (\[CREDENTIAL_\d+\])", trace)
    assert said, trace
    edit(url, tid, "--field", "learning", "--value", f"never paste {token}; {NEW} is new")
    assert values(url, tid)["/learning"] == f"never paste {said.group(1)}; [CREDENTIAL_{high + 1}] is new"


def test_a_new_value_never_takes_a_number_the_history_used(tmp_path: Path) -> None:
    url, tid, _, high = stored(tmp_path)
    edit(url, tid, "--field", "learning", "--value", f"use {NEW}")
    edit(url, tid, "--field", "learning", "--value", "Nothing secret now.")  # the placeholder left the trace
    new_process()
    edit(url, tid, "--field", "summary.goal_notes", "--value", f"use {OTHER}")
    assert values(url, tid)["/summary/goal_notes"] == f"use [CREDENTIAL_{high + 2}]"


def test_a_note_and_an_edit_share_the_placeholder_of_one_value(tmp_path: Path) -> None:
    url, tid, _, high = stored(tmp_path)
    code, _, err = cli("review", "needs-changes", tid, "--note", f"step 3 leaks {NEW}", "--store", url)
    assert code == 0, err
    new_process()
    edit(url, tid, "--field", "summary.goal_notes", "--value", f"and {OTHER}")
    edit(url, tid, "--field", "learning", "--value", f"rotate {NEW}")
    assert values(url, tid)["/summary/goal_notes"] == f"and [CREDENTIAL_{high + 2}]"
    assert values(url, tid)["/learning"] == f"rotate [CREDENTIAL_{high + 1}]"
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    [note] = [json.loads(x)["detail"]["note"] for x in out.splitlines() if '"needs_changes"' in x]
    assert note == f"step 3 leaks [CREDENTIAL_{high + 1}]"


def test_without_the_log_values_typed_before_keep_their_placeholders(tmp_path: Path) -> None:
    url, tid, planted, high = stored(tmp_path)
    edit(url, tid, "--field", "learning", "--value", f"use {NEW}")
    (tmp_path / "logs" / "planted-session.jsonl").unlink()  # the draft's redactor cannot be rebuilt
    new_process()
    edit(url, tid, "--field", "summary.goal_notes", "--value", f"{NEW} and {OTHER}")
    assert values(url, tid)["/summary/goal_notes"] == f"[CREDENTIAL_{high + 1}] and [CREDENTIAL_{high + 2}]"


def test_the_fingerprints_key_is_the_users_alone_and_never_in_the_store(tmp_path: Path,
                                                                         own_data_folder: Path) -> None:
    url, tid, _, high = stored(tmp_path)
    edit(url, tid, "--field", "learning", "--value", f"use {NEW}")
    key = own_data_folder / "review-fingerprint.key"
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600 and len(key.read_bytes()) == 32
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    [fps] = [json.loads(x)["detail"]["fingerprints"] for x in out.splitlines() if '"edit"' in x]
    assert list(fps.values()) == [f"[CREDENTIAL_{high + 1}]"]
    assert key.read_bytes() not in (tmp_path / "store.db").read_bytes()
    # another machine (another key): the value is new to it, and never takes another's number
    key.unlink()
    new_process()
    edit(url, tid, "--field", "summary.goal_notes", "--value", f"use {NEW}")
    assert values(url, tid)["/summary/goal_notes"] == f"use [CREDENTIAL_{high + 2}]"


def test_a_log_changed_since_the_trace_lends_no_number_of_its_own(tmp_path: Path) -> None:
    url, tid, planted, high = stored(tmp_path)
    log = tmp_path / "logs" / "planted-session.jsonl"
    # rewritten: a new secret comes first, so the log read again numbers every value one later
    log.write_text(log.read_text("utf-8").replace("My token is", f"My key {OTHER} and token is", 1), "utf-8")
    edit(url, tid, "--field", "learning", "--value", f"never paste {planted[0]}")
    # not the rebuilt log's number for it (in the trace that number is another value): a new one
    assert values(url, tid)["/learning"] == f"never paste [CREDENTIAL_{high + 1}]"
