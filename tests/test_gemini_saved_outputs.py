"""Large tool outputs Gemini CLI cut for the model and saved beside its chats (fileUtils.ts
formatTruncatedToolOutput / saveTruncatedToolOutput; toolOutputMaskingService.ts): the whole
output is read back from `<project>/tool-outputs/session-<id>/`, cited, and copied into the
trace folder's artifacts, whether the call worked or not; a file that is not there is a
truncated output. A path the log names elsewhere is never opened."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from _gemini_view import read, write_lines
from forsy.cli import app
from forsy.payloads import ResultInfo

SID = "4a4a4a4a-0000-4000-8000-000000000004"
T = "2026-08-20T10:00:0{}.000Z".format
FULL = "".join(f"line {i}: make[1]: Entering directory\n" for i in range(3000)) + "Error 2\n"


def _chat(project: Path, written: str, status: str = "error", how: str = "cut") -> Path:
    head = ("Output too large. Showing first 800 and last 3,200 characters. For full output see: "
            f"{written}\nline 0 ...\n\n... [90,000 characters omitted] ...\n\nError 2") if how == "cut" else (
        f"<tool_output_masked>\nOutput too large. Full output available at: {written}\n</tool_output_masked>")
    call = {"id": "run_shell_command_1_0", "name": "run_shell_command", "args": {"command": "make"},
            "status": status, "timestamp": T(3), "result": [{"functionResponse": {
                "id": "run_shell_command_1_0", "name": "run_shell_command", "response": {"output": head}}}]}
    return write_lines(project / "chats" / f"session-2026-08-20T10-00-{SID[:8]}.jsonl", [
        {"sessionId": SID, "projectHash": "h", "startTime": T(0), "lastUpdated": T(0)},
        {"id": "u", "timestamp": T(1), "type": "user", "content": [{"text": "build it"}]},
        {"id": "g", "timestamp": T(2), "type": "gemini", "content": "", "toolCalls": [call]}])


def _save(project: Path) -> tuple[Path, str]:
    f = project / "tool-outputs" / f"session-{SID}" / "run_shell_command_1_0.txt"
    f.parent.mkdir(parents=True)
    f.write_text(FULL, "utf-8")
    return f, f"/home/u/.gemini/tmp/proj/tool-outputs/session-{SID}/run_shell_command_1_0.txt"  # where it ran


def test_a_cut_output_is_read_whole_from_beside_the_chats_and_cited(tmp_path: Path) -> None:
    for how in ("cut", "masked"):
        project = tmp_path / how
        f, written = _save(project)
        s = read(_chat(project, written, how=how))
        [result] = [e for e in s.events if e.kind == "tool_result"]
        assert isinstance(result.info, ResultInfo) and result.info.persisted is not None
        assert result.info.persisted.text == FULL and result.info.persisted_path == written
        assert result.info.persisted.folder == f"tool-outputs/session-{SID}"
        assert s.files[-1].path.endswith("run_shell_command_1_0.txt") and s.evidence[result.info.persisted.ref.ev]
        assert s.quality.truncated_outputs == 0
        assert s.ledger[result.info.persisted.ref.ev].heading == "metadata"  # accounted for, not unknown


def test_a_saved_output_not_beside_the_chats_is_a_truncated_output_and_no_other_path_is_opened(tmp_path: Path) -> None:
    elsewhere = tmp_path / "secret.txt"
    elsewhere.write_text("not the log's", "utf-8")
    for written in (f"/home/u/.gemini/tmp/proj/tool-outputs/session-{SID}/gone.txt", str(elsewhere),
                    "/home/u/.gemini/tmp/proj/tool-outputs/session-x/.."):
        project = tmp_path / str(abs(hash(written)))
        s = read(_chat(project, written))
        [result] = [e for e in s.events if e.kind == "tool_result"]
        assert isinstance(result.info, ResultInfo) and result.info.persisted is None, written
        assert result.info.persisted_missing and s.quality.truncated_outputs == 1
        assert [f.path for f in s.files] == [f"session-2026-08-20T10-00-{SID[:8]}.jsonl"]


def test_a_failed_calls_whole_output_is_an_artifact_of_the_trace(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    _, written = _save(project)
    chat = _chat(project, written, status="error")
    r = CliRunner().invoke(app, ["retrace", str(chat), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
    folder = tmp_path / "out"  # one file: its trace folder
    trace = json.loads((folder / "trace.json").read_text("utf-8"))
    assert trace["steps"][1]["success"] is False
    [art] = trace["static_output"]["artifacts"]
    assert art["path"] == "artifacts/tool-results/run_shell_command_1_0.txt" and art["related_steps"] == [2]
    assert art["state"] == (f"Saved by Gemini CLI to tool-outputs/session-{SID}/run_shell_command_1_0.txt; "
                            "copied here.")
    assert (folder / art["path"]).read_text("utf-8") == FULL
    # `forsy verify` finds the saved file again, given the chats folder or the project folder
    for logs in (project / "chats", project):
        v = CliRunner().invoke(app, ["verify", str(folder), str(logs)])
        assert v.exit_code == 0 and "0 problem(s)" in v.output, (logs, v.output)


def test_a_name_read_back_never_leaves_the_saved_outputs_folder(tmp_path: Path) -> None:
    from forsy.sources.gemini import GeminiSource

    project = tmp_path / "proj"
    (project / "chats").mkdir(parents=True)
    (project / "tool-outputs").mkdir()
    (project / "tool-outputs" / "a.txt").write_text("saved", "utf-8")
    (project / "secret.txt").write_text("not a saved output", "utf-8")
    src = GeminiSource()
    assert src.read_back("gemini-project:tool-outputs/a.txt", [project / "chats"]) == b"saved"
    for name in ("gemini-project:tool-outputs/../secret.txt", "gemini-project:secret.txt",
                 "gemini-project:tool-outputs/../../proj/secret.txt"):
        assert src.read_back(name, [project / "chats", project]) is None, name
