"""provenance.json's `redacted` says of each value whether placeholders replace parts of it: a
copy with a secret masked in it is no longer the evidence's exact text, and a reader of the
provenance must be able to tell without scanning the value for placeholders itself."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from _review import planted_log
from forsy import FolderSink, RetraceOptions, retrace

PLACEHOLDER = re.compile(r"\[[A-Z_]+_\d+\]")


def _retrace(log: Path, out: Path, redact: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    run = retrace([log], RetraceOptions(redact=redact), sink=FolderSink(out, parent=False))
    [outcome] = run.outcomes
    folder = Path(str(outcome.where))
    return (json.loads((folder / "trace.json").read_text("utf-8")),
            json.loads((folder / "provenance.json").read_text("utf-8")))


def _fields(trace: dict[str, Any], prov: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(where, value, redacted) of every value provenance describes."""
    out = []
    for sp in prov["steps"]:
        step = trace["steps"][sp["step"] - 1]
        out += [(f"step {sp['step']} {k}", step.get(k), fp["redacted"]) for k, fp in sp["fields"].items()]
    for path, fp in prov["trace_fields"].items():
        value: Any = trace
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        out.append((path, value, fp["redacted"]))
    return out


def test_a_value_with_a_secret_masked_in_it_is_marked_redacted_and_no_other(tmp_path: Path) -> None:
    log, _ = planted_log(tmp_path / "logs")
    trace, prov = _retrace(log, tmp_path / "out")
    fields = _fields(trace, prov)
    masked = [(w, v) for w, v, r in fields if r]
    assert any(w.endswith(" input") for w, _ in masked)  # the user's words with the token masked
    assert any("output" in w for w, _ in masked)  # the tool output with the AWS secret masked
    for where, value, redacted in fields:
        assert redacted == bool(PLACEHOLDER.search(json.dumps(value))), where


def test_without_redaction_every_copy_is_exact(tmp_path: Path) -> None:
    log, secrets = planted_log(tmp_path / "logs")
    trace, prov = _retrace(log, tmp_path / "out", redact=False)
    assert secrets[0] in json.dumps(trace)
    assert not any(r for _, _, r in _fields(trace, prov))


def test_a_placeholder_the_log_itself_holds_is_not_a_mask_of_this_run(tmp_path: Path) -> None:
    """A log that quotes a placeholder (a session about a redacted trace) and holds no secret:
    nothing was masked, so nothing is marked."""
    log, secrets = planted_log(tmp_path / "logs")
    text = log.read_text("utf-8")
    for secret in secrets:
        text = text.replace(secret, "x")
    log.write_text(text.replace("Can you fix it", "Why does it say [CREDENTIAL_7] here? Can you fix it", 1), "utf-8")
    trace, prov = _retrace(log, tmp_path / "out")
    quoting = [(where, redacted) for where, value, redacted in _fields(trace, prov)
               if "[CREDENTIAL_7]" in json.dumps(value)]
    assert quoting and not any(redacted for _, redacted in quoting), quoting
