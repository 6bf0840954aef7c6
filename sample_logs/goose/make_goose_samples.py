"""Write the Goose samples in this folder (see README.md).

The messages below were written by hand by the forsy developers in the shapes Goose's session
writer gives them (block/goose, crates/goose/src: session/storage.rs `save_messages_with_metadata`
writes `SessionMetadata` as the first line, then one `Message` a line, each `serde_json::to_writer`
(compact JSON, keys in the structs' field order); message.rs and conversation/message.rs the
parts, tagged by `type`; tool_result_serde.rs the `{status, value}` / `{status, error}` outcome).
The work they describe (the project, files, commands, outputs) is invented and never happened;
no real log was copied. Times are derived from fixed values, so the output is the same on every run.

    python sample_logs/goose/make_goose_samples.py

Two sessions, one per era of the JSONL form:

* `sessions/20250611_093012.jsonl`: the mcp_core era (no message ids nor metadata): a listing
  shown twice (for the assistant and for the user), a file viewed (an embedded resource for the
  model) and written, a test run that failed but whose call succeeded (the shell of that era
  returned the output whatever the exit status), an edit the tool refused (an error status,
  ToolError's text), a call the person declined, thinking, the context running out;
* `sessions/20250904_161540.jsonl`: a later one (message ids, visibility metadata): Goose's
  own words to the model, a summarization request, an edit, a call Goose could not read,
  a notification, a confirmation asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def dump(v: Any) -> str:
    """serde_json::to_writer: compact, non-ASCII kept."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def text(t: str, audience: list[str] | None = None, priority: float | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "text", "text": t}
    if audience is not None:
        d["annotations"] = {"audience": audience} | ({"priority": priority} if priority is not None else {})
    return d


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "toolRequest", "id": cid,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}}


def ok(cid: str, *contents: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "success", "value": list(contents)}}


def err(cid: str, error: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "error", "error": error}}


DECLINED = ("The user has declined to run this tool. DO NOT attempt to call this tool again. If there are no "
            "alternative methods to proceed, clearly explain the situation and STOP.")


class Session:
    def __init__(self, start: int, ids: bool) -> None:
        self.t, self.ids, self.lines, self.n = start, ids, [], 0

    def msg(self, role: str, *content: dict[str, Any], secs: int = 4, user_visible: bool = True) -> None:
        self.t += secs
        self.n += 1
        m: dict[str, Any] = {}
        if self.ids:
            m["id"] = f"msg_{self.n:04d}" if role == "assistant" else None
        else:
            m["id"] = None
        m |= {"role": role, "created": self.t, "content": list(content)}
        if self.ids:
            m["metadata"] = {"userVisible": user_visible, "agentVisible": True}
        self.lines.append(dump(m))

    def write(self, name: str, meta: dict[str, Any]) -> None:
        meta["message_count"] = len(self.lines)
        path = HERE / "sessions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join([dump(meta), *self.lines]) + "\n", "utf-8")


def resource(uri: str, body: str, audience: list[str]) -> dict[str, Any]:
    """Content::embedded_text: the text editor's view gives the model the file as a resource."""
    return {"type": "resource", "resource": {"uri": uri, "mimeType": "text", "text": body},
            "annotations": {"audience": audience}}


def early() -> None:
    cwd = "/home/dev/projects/tallybook"
    s = Session(1749634212, ids=False)
    s.msg("user", text("The CSV export drops the last row. Can you find out why and fix it?"))
    s.msg("assistant", text("Let me look at the project first."),
          call("toolu_01GooseLs", "developer__shell", command="ls src"), secs=6)
    # the developer shell of this era returns the output (stderr joined) for both audiences,
    # whatever the command's exit status
    listing = "export.rs\nlib.rs\nmain.rs\n"
    s.msg("user", ok("toolu_01GooseLs", text(listing, ["assistant"]), text(listing, ["user"], 0.0)), secs=1)
    s.msg("assistant", {"type": "thinking", "thinking": "The loop in export.rs probably stops one short.",
                        "signature": "c2lnbmF0dXJlLW9mLXRoZS10aGlua2luZw=="},
          call("toolu_02GooseView", "developer__text_editor", command="view", path=f"{cwd}/src/export.rs"), secs=5)
    body = "pub fn rows(v: &[Row]) -> Vec<String> {\n    (0..v.len() - 1).map(|i| v[i].to_csv()).collect()\n}\n"
    s.msg("user", ok("toolu_02GooseView", resource(f"file://{cwd}/src/export.rs", body, ["assistant"]),
                     text(f"### {cwd}/src/export.rs\n```rust\n{body}```\n", ["user"], 0.0)), secs=1)
    fixed = "pub fn rows(v: &[Row]) -> Vec<String> {\n    v.iter().map(|r| r.to_csv()).collect()\n}\n"
    s.msg("assistant", text("The range stops before the last index. Rewriting it."),
          call("toolu_03GooseWrite", "developer__text_editor", command="write", path=f"{cwd}/src/export.rs",
               file_text=fixed), secs=7)
    s.msg("user", ok("toolu_03GooseWrite", text(f"Successfully wrote to {cwd}/src/export.rs", ["assistant"]),
                     text(f"### {cwd}/src/export.rs\n```rust\n{fixed}```\n", ["user"], 0.2)), secs=1)
    s.msg("assistant", call("toolu_04GooseTest", "developer__shell", command="cargo test export"), secs=3)
    out = ("error[E0599]: no method named `to_csv` found for reference `&Row` in the current scope\n"
           "error: could not compile `tallybook` (lib test) due to 1 previous error\n")
    s.msg("user", ok("toolu_04GooseTest", text(out, ["assistant"]), text(out, ["user"], 0.0)), secs=12)
    s.msg("assistant", {"type": "redactedThinking", "data": "ZW5jcnlwdGVkLXRoaW5raW5nLWJsb2Nr"},
          text("The trait is not in scope. I will import it and push the branch."),
          call("toolu_05GooseEdit", "developer__text_editor", command="str_replace", path=f"{cwd}/src/export.rs",
               old_str="pub fn row(", new_str="use crate::csv::ToCsv;\n\npub fn rows("),
          call("toolu_06GoosePush", "developer__shell", command="git push origin fix-export"), secs=8)
    s.msg("user", err("toolu_05GooseEdit", "Invalid parameters: 'old_str' must appear exactly once in the file, but "
                      "it does not appear in the file. Make sure the string exactly matches existing file content, "
                      "including whitespace!"),
          ok("toolu_06GoosePush", text(DECLINED)), secs=20)
    s.msg("assistant", text("The fix is in src/export.rs, but the import did not apply and I did not push, as you "
                            "declined."), secs=3)
    s.msg("user", text("Thanks. Now summarize the whole module history."), secs=40)
    s.msg("assistant", {"type": "contextLengthExceeded",
                        "msg": "The context length of the model has been exceeded. Please start a new session "
                               "and try again."}, secs=2)
    s.write("20250611_093012.jsonl", {"working_dir": cwd, "description": "Fix CSV export last row",
                                      "schedule_id": None, "message_count": 0, "total_tokens": 18211,
                                      "input_tokens": 17640, "output_tokens": 571,
                                      "accumulated_total_tokens": 96233, "accumulated_input_tokens": 93120,
                                      "accumulated_output_tokens": 3113})


def later() -> None:
    cwd = "/home/dev/projects/weatherline"
    s = Session(1756995340, ids=True)
    s.msg("user", text("Add a --units flag to the CLI, metric by default."))
    s.msg("assistant", text("I'll look at the argument parser."),
          call("toolu_11GooseRg", "developer__shell", command="rg -n 'struct Args' src"), secs=5)
    s.msg("user", ok("toolu_11GooseRg", text("src/cli.rs:8:pub struct Args {\n", ["assistant"]),
                     text("src/cli.rs:8:pub struct Args {\n", ["user"], 0.0)), secs=1)
    s.msg("assistant", {"type": "toolConfirmationRequest", "id": "toolu_12GooseEdit",
                        "toolName": "developer__text_editor",
                        "arguments": {"command": "str_replace", "path": f"{cwd}/src/cli.rs"},
                        "prompt": "Goose would like to call the above tool. Allow? (y/n):"},
          call("toolu_12GooseEdit", "developer__text_editor", command="str_replace", path=f"{cwd}/src/cli.rs",
               old_str="pub struct Args {", new_str="pub struct Args {\n    #[arg(long, default_value = \"metric\")]\n"
               "    pub units: String,"), secs=6)
    s.msg("user", ok("toolu_12GooseEdit", text(f"Successfully edited {cwd}/src/cli.rs", ["assistant"])), secs=9)
    s.msg("assistant", {"type": "toolRequest", "id": "toolu_13GooseBad",
                        "toolCall": {"status": "error",
                                     "error": "-32602: Could not interpret tool use parameters for id "
                                              "toolu_13GooseBad: EOF while parsing an object at line 1 column 31"}},
          secs=4)
    s.msg("user", err("toolu_13GooseBad", "-32602: Could not interpret tool use parameters for id toolu_13GooseBad: "
                      "EOF while parsing an object at line 1 column 31"), secs=1)
    s.msg("assistant", call("toolu_14GooseBuild", "developer__shell", command="cargo build --quiet"), secs=3)
    s.msg("user", ok("toolu_14GooseBuild", text("", ["assistant"]), text("", ["user"], 0.0)), secs=25)
    s.msg("user", text("The user has interrupted. Continue from where you left off, briefly."), secs=2,
          user_visible=False)
    s.msg("assistant", text("Done: `--units metric|imperial` on Args, metric by default; the build passes."),
          {"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Session saved."}, secs=4)
    s.msg("user", {"type": "summarizationRequested", "msg": "Summarize the session so far."}, secs=30)
    s.write("20250904_161540.jsonl", {"working_dir": cwd, "description": "Add units flag to CLI",
                                      "schedule_id": None, "message_count": 0, "total_tokens": 9920,
                                      "input_tokens": 9511, "output_tokens": 409,
                                      "accumulated_total_tokens": 41277, "accumulated_input_tokens": 39802,
                                      "accumulated_output_tokens": 1475})


if __name__ == "__main__":
    early()
    later()
