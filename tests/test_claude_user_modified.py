"""A Claude Code edit the person changed before accepting it, built by hand in the writer's
shape (expectations worked out by hand). The evidence is public: the Edit tool's output schema
(filePath, oldString, newString, originalFile, structuredPatch, userModified, replaceAll; MultiEdit:
edits, originalFileContents, structuredPatch, userModified), the tool runs on the input the
permission dialog hands back (`callInput = permissionDecision.updatedInput`, with `userModified`
true when it differs from the model's: services/tools/toolExecution.ts,
hooks/toolPermission/PermissionContext.ts), its result is made from that input, and its text says
".  The user modified your proposed changes before accepting them. " (FileEditTool.ts
mapToolResultToToolResultBlockParam). The assistant's `tool_use` block keeps the model's proposal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _small_logs import _rec, call, user, write
from forsy.payloads import ResultInfo
from forsy.rules.segment import USER_MODIFIED_NOTE
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

PROPOSED = {"file_path": "/home/dev/proj/a.py", "old_string": "x = 1", "new_string": "y = 1"}
ORIGINAL = "x = 1\nprint(x)\n"
# what ran: the person's version, as the tool recorded it (the patch is of the file written)
PATCH = [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
          "lines": ["-x = 1", "+y = 1  # mine", " print(x)"]}]
RAN = {"filePath": "/home/dev/proj/a.py", "oldString": "x = 1", "newString": "y = 1  # mine",
       "originalFile": ORIGINAL, "structuredPatch": PATCH, "replaceAll": False}
SAID = ("The file /home/dev/proj/a.py has been updated successfully.  The user modified your proposed changes "
        "before accepting them. .")


def _session(tmp_path: Path, modified: bool) -> Path:
    said = SAID if modified else "The file /home/dev/proj/a.py has been updated successfully."
    result = _rec(2, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": said}], "r1", "a1")
    result["toolUseResult"] = {**RAN, "userModified": modified} if modified else {
        **RAN, "newString": "y = 1", "structuredPatch": [{**PATCH[0], "lines": ["-x = 1", "+y = 1", " print(x)"]}],
        "userModified": False}
    return write(tmp_path / "s.jsonl", [user(0, "u1", None, "rename x"),
                                        call(1, "a1", "u1", "t1", "Edit", PROPOSED), result])


def _trace(tmp_path: Path, log: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    retrace([log], RetraceOptions(out=tmp_path / "t", redact=False))
    trace = json.loads((tmp_path / "t" / "trace.json").read_text("utf-8"))
    prov = json.loads((tmp_path / "t" / "provenance.json").read_text("utf-8"))
    return trace, prov


def test_an_edit_the_person_changed_says_its_input_is_the_models_proposal(tmp_path: Path) -> None:
    log = _session(tmp_path, modified=True)
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(res.info, ResultInfo) and res.info.user_modified is not None
    assert (s.evidence[res.info.user_modified.ev].line, res.info.user_modified.pointer) == (
        3, "/toolUseResult/userModified")
    trace, prov = _trace(tmp_path, log)
    step = trace["steps"][-1]
    assert json.loads(step["input"]) == PROPOSED  # the model's proposal, as the call logged it
    assert step["input_source"] == {"actor": "agent", "source_step": None, "source_field": None,
                                    "note": USER_MODIFIED_NOTE}
    assert step["output"] == SAID
    field = dict(prov["steps"][step["step"] - 1]["fields"])["input_source"]
    assert (field["origin"], field["rule"], [e["pointer"] for e in field["evidence"]]) == (
        "derived", "R-call/user-modified", ["/toolUseResult/userModified"])
    # what was written is the person's version: the artifact's diff is the result's patch, not the proposal
    [art] = trace["static_output"]["artifacts"]
    assert "+y = 1  # mine" in art["diff"]


def test_an_edit_accepted_as_proposed_names_no_source(tmp_path: Path) -> None:
    log = _session(tmp_path, modified=False)
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(res.info, ResultInfo) and res.info.user_modified is None
    trace, _ = _trace(tmp_path, log)
    assert trace["steps"][-1]["input_source"] is None
