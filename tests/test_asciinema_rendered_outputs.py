"""A terminal recording's output as a trace holds it: a rendering of the output events (escapes
applied, lines ended by a newline) is derived by R-output/rendered, naming the decoding, not a
copy marked as an excerpt (nothing of it was left out, so no confidence is lost for a cut, and
the review page does not list it among the outputs cut); an output whose events' data is in
its text as written stays a copy that `forsy verify` checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from forsy.review.needs import needs
from forsy.review.source import load
from forsy.sources.asciinema.source import RENDERED

HEADER = {"version": 2, "width": 80, "height": 24, "timestamp": 1767261600, "env": {"SHELL": "/bin/bash"}}
P = "dev@box:~$ "


def retrace(tmp_path: Path, events: list[list[Any]]) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    log = tmp_path / "rec.cast"
    log.write_text("\n".join(json.dumps(x) for x in [HEADER, *events]) + "\n", "utf-8")
    out = tmp_path / "out"
    run = forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    (o,) = run.outcomes
    assert o.status == "written", o.message
    (folder,) = [p.parent for p in out.rglob("trace.json")]
    trace = json.loads((folder / "trace.json").read_text("utf-8"))
    prov = json.loads((folder / "provenance.json").read_text("utf-8"))
    return folder, trace, prov


def output_prov(prov: dict[str, Any], step: int) -> dict[str, Any]:
    (sp,) = [s for s in prov["steps"] if s["step"] == step]
    out: dict[str, Any] = sp["fields"]["output"]
    return out


def test_a_rendered_output_is_derived_by_its_rule_and_not_an_excerpt(tmp_path: Path) -> None:
    folder, trace, prov = retrace(tmp_path, [
        [0.1, "o", P],
        [1.0, "i", "ls\r"], [1.0, "o", "ls\r\n"],
        [1.1, "o", "\x1b[1ma.txt\x1b[0m\r\nb.txt\r\n"],  # bold, two lines: no event's data is in the text
        [2.0, "o", P]])
    (step,) = trace["steps"]
    assert (step["tool"], step["input"], step["output"]) == ("shell_command", "ls", "a.txt\nb.txt")
    fp = output_prov(prov, 1)
    assert (fp["origin"], fp["rule"], fp["params"]) == ("derived", "R-output/rendered", {"decoding": RENDERED})
    assert not fp.get("excerpt")
    assert len(fp["evidence"]) == 2  # the echo's line end and the output event
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert "truncated_outputs" not in {f["name"] for f in manifest["confidence_factors"]}
    assert needs(load(str(folder), None)).cut_outputs == []
    check = forsy.verify(folder, [tmp_path / "rec.cast"])
    assert check.problems == []


def test_an_output_written_as_its_text_stays_a_copy_that_verify_checks(tmp_path: Path) -> None:
    folder, trace, prov = retrace(tmp_path, [
        [0.1, "o", P],
        [1.0, "i", "pwd\r"], [1.0, "o", "pwd"], [1.05, "o", "\r\n"],
        [1.1, "o", "/home/dev"], [1.2, "o", "\r\n"],  # the output as written; its line end alone
        [2.0, "o", P]])
    (step,) = trace["steps"]
    assert (step["input"], step["output"]) == ("pwd", "/home/dev")
    fp = output_prov(prov, 1)
    assert (fp["origin"], fp.get("rule"), fp.get("excerpt")) == ("copied", None, False)
    check = forsy.verify(folder, [tmp_path / "rec.cast"])
    assert check.problems == [] and check.checked >= 2
