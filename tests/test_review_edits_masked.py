"""What a reviewer types is masked before it is stored: a token pasted into an edit (or a
rejection's reason) never reaches the store, the audit log or a published export, and a new
placeholder never takes the name of one the trace already has."""

from __future__ import annotations

import json
import re
from pathlib import Path

from _review import cli, planted_draft, planted_log, put
from forsy.review.redacted import mask_typed
from forsy.store import open_store
from secretgen import SecretGen, forms


def everything(url: str) -> str:
    """Every row of every table of the store, as text (the files decompressed)."""
    st = open_store(url)
    try:
        out = [repr(st.audit(None))]
        from forsy.store import TraceQuery

        for r in st.traces(TraceQuery(limit=10**6)):
            out.append(repr(st.proposals(r.trace_id)))
            out.extend(f.data.decode("utf-8", "replace") for f in st.trace_files(r.trace_id))
    finally:
        st.close()
    return "\n".join(out)


def test_a_token_pasted_into_an_edit_is_masked_stored_and_published_masked(tmp_path: Path) -> None:
    url, tid, _, trace = planted_draft(tmp_path)  # the trace already holds [CREDENTIAL_n] placeholders
    had = {int(n) for n in re.findall(r"\[CREDENTIAL_(\d+)\]", trace)}
    assert had
    pasted = SecretGen(seed=99).github()
    code, _, err = cli("review", "edit", tid, "--field", "learning", "--value", f"use {pasted} to deploy",
                       "--store", url)
    assert code == 0, err
    code, _, err = cli("review", "edit", tid, "--step", "2", "--field", "reasoning",
                       "--value", f"Read it first; [CREDENTIAL_{min(had)}] stays what it was", "--store", url)
    assert code == 0, err
    code, out, err = cli("review", "approve", tid, "--store", url)
    assert code == 0, err
    code, _, err = cli("review", "export", "-o", str(tmp_path / "pub"), "--store", url)
    assert code == 0, err
    published = "\n".join(p.read_text("utf-8", "replace") for p in (tmp_path / "pub").rglob("*") if p.is_file())
    stored = everything(url)
    for where, text in (("store", stored), ("export", published)):
        assert not any(f in text for f in forms(pasted)), where
    [idx] = [json.loads(x) for x in (tmp_path / "pub" / "index.jsonl").read_text().splitlines()]
    t = json.loads((tmp_path / "pub" / idx["folder"] / "trace.json").read_text())
    m = re.fullmatch(r"use \[CREDENTIAL_(\d+)\] to deploy", t["learning"])
    assert m and int(m.group(1)) == max(had) + 1  # a new name, after the trace's own
    assert t["steps"][1]["reasoning"] == f"Read it first; [CREDENTIAL_{min(had)}] stays what it was"
    # provenance says placeholders stand for parts of both edits, and of nothing the approval wrote
    p = json.loads((tmp_path / "pub" / idx["folder"] / "provenance.json").read_text())
    assert p["trace_fields"]["learning"]["redacted"] is True
    assert p["steps"][1]["fields"]["reasoning"]["redacted"] is True
    assert p["trace_fields"]["validation_level"]["redacted"] is False


def test_a_rejection_reason_is_masked_in_the_audit_log(tmp_path: Path) -> None:
    log, _ = planted_log(tmp_path / "logs")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, log)
    finally:
        st.close()
    pasted = SecretGen(seed=5).github()
    assert cli("review", "reject", tid, "--reason", f"leaks {pasted}", "--store", url)[0] == 0
    code, out, _ = cli("review", "audit", tid, "--json", "--store", url)
    assert code == 0 and "leaks [CREDENTIAL_" in out
    assert not any(f in everything(url) for f in forms(pasted))


def test_mask_typed_keeps_plain_text_and_typed_placeholders() -> None:
    assert mask_typed("Read the file first.", {}) == "Read the file first."
    trace = {"task": "x [CREDENTIAL_4] and [EMAIL_2]"}
    assert mask_typed("was [CREDENTIAL_4], [EMAIL_2]", trace) == "was [CREDENTIAL_4], [EMAIL_2]"
    got = mask_typed("mail ada@lovelace-analytics.com now", trace)
    assert got == "mail [EMAIL_3] now"
