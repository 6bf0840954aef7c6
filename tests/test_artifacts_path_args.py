"""The files a trace says were changed: an edit names its file by whichever argument its agent
uses (tools.PATH_ARGS). Cline's native calls name it `absolutePath` (every write of the real Cline
task in ../shared/real_logs), its XML calls `path`: no Cline trace listed a changed file. A Cline
replace_in_file carries no patch of what was written, only its SEARCH/REPLACE blocks, which are
the change it asked for and the artifact's diff."""

from __future__ import annotations

import json
from pathlib import Path

import forsy

SEARCH_REPLACE = "------- SEARCH\nretries = 3\n=======\nretries = 5\n+++++++ REPLACE\n"


def _task(folder: Path) -> Path:
    folder.mkdir(parents=True)
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nRaise the retry limit to 5.\n</task>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "write_to_file", "input": {
            "absolutePath": "/repo/notes.md", "content": "Retries: 5\n"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "[write_to_file for '/repo/notes.md'] Result:\nThe content was successfully "
                                     "saved to /repo/notes.md."}]}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "replace_in_file", "input": {
            "absolutePath": "/repo/conf.py", "diff": SEARCH_REPLACE}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": [
            {"type": "text", "text": "[replace_in_file for '/repo/conf.py'] Result:\nThe content was successfully "
                                     "saved to /repo/conf.py."}]}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done: the limit is 5."}]},
    ]
    (folder / "api_conversation_history.json").write_text(json.dumps(api))
    return folder / "api_conversation_history.json"


def test_a_cline_tasks_writes_and_edits_are_its_artifacts(tmp_path: Path) -> None:
    log = _task(tmp_path / "task")
    run = forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(tmp_path / "out", parent=True))
    [o] = run.outcomes
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    arts = {a["path"]: a for a in json.loads((folder / "trace.json").read_text())["static_output"]["artifacts"]}
    assert sorted(arts) == ["/repo/conf.py", "/repo/notes.md"]
    assert arts["/repo/notes.md"]["content"] == "Retries: 5\n"
    assert arts["/repo/conf.py"]["diff"] == f"step 3:\n{SEARCH_REPLACE}"


def test_the_dataset_cards_tags_say_what_the_tools_did_for_every_agent(tmp_path: Path) -> None:
    """`file-edits`, `cli`, `search` come from what the tool tables say each tool does, not from
    Claude Code's and Codex's names: a Cline task that wrote files was not tagged file-edits."""
    log = _task(tmp_path / "task")
    [o] = forsy.retrace([log], forsy.RetraceOptions(redact=False)).outcomes
    assert o.assembled is not None
    tags = o.assembled.trace.dataset_summary.tags
    assert "file-edits" in tags and "cli" not in tags


def test_a_codex_exec_file_change_lists_its_files(tmp_path: Path) -> None:
    """`codex exec --json`'s file_change item lists the files it changed (`changes: [{path, kind}]`,
    a `diff` in newer writers): each is an artifact, created, modified or deleted as its kind says."""
    run = [
        {"type": "thread.started", "thread_id": "019e2a10-0000-7000-8000-00000000cccc"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "file_change", "status": "completed", "changes": [
            {"path": "/repo/conf.py", "kind": "update", "diff": "@@ -3 +3 @@\n-retries = 3\n+retries = 5\n"},
            {"path": "/repo/NOTES.md", "kind": "add"}, {"path": "/repo/old.cfg", "kind": "delete"}]}},
        {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "Raised it to 5."}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 5}},
    ]
    log = tmp_path / "codex.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in run))
    [o] = forsy.retrace([log], forsy.RetraceOptions(redact=False)).outcomes
    assert o.assembled is not None
    arts = {a.path: (a.type, a.diff) for a in o.assembled.trace.static_output.artifacts}
    assert arts == {"/repo/conf.py": ("modified", "step 1:\n@@ -3 +3 @@\n-retries = 3\n+retries = 5\n"),
                    "/repo/NOTES.md": ("created", None), "/repo/old.cfg": ("deleted", None)}  # no diff given


def test_an_opencode_apply_patch_names_its_files(tmp_path: Path) -> None:
    """OpenCode's apply_patch tool takes the patch as `patchText` (Codex's `input`)."""
    from forsy.assemble import artifacts
    from forsy.rules.segment import Draft

    patch = "*** Begin Patch\n*** Add File: notes.md\n+Retries: 5\n*** Update File: conf.py\n@@\n-retries = 3\n" \
            "+retries = 5\n*** End Patch"
    d = Draft(actor_key="agent", values={"tool": "apply_patch", "success": True}, prov={},
              tool_args={"patchText": patch})
    assert [(a.path, a.type) for a in artifacts.collect([d])] == [("notes.md", "created"), ("conf.py", "modified")]
