"""Cline tasks from before native tool calls: the calls are XML in the model's text.

Task folders written by hand in the shape Cline's writer gives them, each expectation worked
out by hand from that writer (cline/cline):

* the parser: parse-assistant-message.ts, parseAssistantMessage at 7ee0a58f9b (October 2024),
  parseAssistantMessageV2 at 7d5d347cdd / 8aac67bf75^ (May to November 2025);
* the saved message: task/index.ts (Cline.ts before April 2025) saves the streamed text whole as
  one text block, with "[Response interrupted by a tool use result. ...]" or "[Response
  interrupted by user feedback]" appended when it stopped the stream (69ba0c833e, 05920b5233;
  not saved from 5fde21dffd);
* the results: `[<tool> for '…'] Result:` as a block of its own and the output in the next
  (Cline.ts pushToolResult at 48cdfa9874, October 2024; ToolExecutor.ts at 77cc05c843, June
  2025), or one block `[…] Result:\\n…` (ToolResultUtils.ts from 5fde21dffd, 864419d8b0 for a
  model without native tools); an array result without the header from abfaf6ca7a (May 2025).

Files are written one array element per line, so an element's evidence line is its index + 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _oracle import from_trace, retrace
from forsy.evidence import Event, Session
from forsy.payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource
from forsy.sources.cline._xml_calls import Call, split

API = "api_conversation_history.json"
UI = "ui_messages.json"
T = 1750000000000  # 2025-06-15T15:06:40Z
ENV = {"type": "text", "text": "<environment_details>\n# VSCode Visible Files\nsrc/x.ts\n</environment_details>"}
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGRg=="}}
TOOL_CUT = ("\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and should be "
            "placed at the end of the message.]")
NOT_RUN = ("Tool [list_files] was not executed because a tool has already been used in this message. Only one tool "
           "may be used per message. You must assess the first tool's result before proceeding to use the next tool.")
BROWSED = ("The browser action has been executed. The console logs and screenshot have been captured for your "
           "analysis.\n\nConsole logs:\n(No new logs)\n\n(REMEMBER: if you need to proceed to using "
           "non-`browser_action` tools or launch a new browser, you MUST first close this browser.)")


def _t(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def said(text: str, **more: Any) -> dict[str, Any]:
    """An assistant message as Cline saved it before 5fde21dffd: the streamed text, one block."""
    return {"role": "assistant", "content": [_t(text)], **more}


def user(*blocks: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks), **more}


def head(desc: str) -> dict[str, Any]:
    """The header block pushToolResult wrote before a result's own block, until 5fde21dffd."""
    return _t(f"{desc} Result:")


def task(folder: Path, api: list[Any], ui: list[Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, recs in ((API, api), (UI, ui)):
        (folder / name).write_text("[\n" + ",\n".join(json.dumps(r) for r in recs) + "\n]\n", "utf-8")
    return folder / API


def read(path: Path) -> Session:
    [s] = ClineSource().read(path, ReadContext(root=path.parent))
    return s


def calls(s: Session) -> list[tuple[Any, ...]]:
    """Each call (tool, arguments) with the result that answers it (its text, error flag)."""
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    out = []
    for e in s.events:
        if e.kind == "tool_call":
            r = results.get(e.call_id)
            out.append((e.tool, e.args, r.text if r else None, r.is_error if r else None))
    return out


def xml_of(s: Session, e: Event) -> str:
    """The text a call's span cites in its record."""
    assert isinstance(e.info, CallInfo) and e.info.span is not None and e.info.parsed_by == "R-call/cline-xml"
    ev = s.evidence[e.refs[0].ev]
    raw = json.loads((Path(s.files[0].abs_path).parent / ev.source).read_bytes()[ev.byte_offset:][:ev.byte_length])
    text = raw["content"][int(e.refs[0].pointer.split("/")[2])]["text"]
    a, z = e.info.span
    return str(text[a:z])


def ledger(out: Path) -> list[dict[str, Any]]:
    [m] = [json.loads(p.read_text("utf-8")) for p in out.rglob("manifest.json")]
    files: list[dict[str, Any]] = m["ledger"]
    return files


# ------------------------------------------------------------- the parser, as Cline's read text
def test_prose_and_calls_are_read_as_clines_parser_read_them() -> None:
    text = ("<thinking>\nfirst the file\n</thinking>\n\nI will read it.\n\n<read_file>\n<path> src/x.ts </path>\n"
            "stray words\n</read_file>\nthen <execute_command>\n<command>a</command>\n<command>b</command>\n"
            "<other>x</other>\n</execute_command>")
    pieces = split(text)
    assert pieces is not None
    shown = [text[slice(*p)] if not isinstance(p, Call) else (p.name, p.params, text[slice(*p.span)], p.unclosed)
             for p in pieces]
    assert shown == [
        "<thinking>\nfirst the file\n</thinking>\n\nI will read it.",  # <thinking> is no tool: the model's text
        ("read_file", {"path": "src/x.ts"}, "<read_file>\n<path> src/x.ts </path>\nstray words\n</read_file>",
         False),  # text in a call outside its parameters is dropped; values are trimmed
        "then",
        ("execute_command", {"command": "b"},  # written twice: the later value; an unknown tag is dropped
         "<execute_command>\n<command>a</command>\n<command>b</command>\n<other>x</other>\n</execute_command>",
         False)]
    # no known tool tag (an unknown one, one with attributes): all prose, as before
    assert split("<thinking>\nx\n</thinking>\n<my_tool>\n<path>a</path>\n</my_tool>") is None
    assert split('<read_file path="a"></read_file>') is None


def test_parameters_run_to_their_first_closing_tag_and_content_to_its_last() -> None:
    # a closing tag of the call inside a parameter does not close it; `<prompt>` is not `<prompt_1>`
    [c] = split("<use_subagents>\n<prompt_1>see </use_subagents> here</prompt_1>\n<prompt>p</prompt>\n"
                "</use_subagents>") or []
    assert isinstance(c, Call) and c.params == {"prompt_1": "see </use_subagents> here", "prompt": "p"}
    # write_to_file's content reaches its last </content>: a file that holds the tag is kept whole;
    # the call's closing tag inside the content is text until the content's first </content>
    text = ("<write_to_file>\n<path>a.md</path>\n<content>\nEnd with </write_to_file>, use <content>x</content> "
            "and so on.\n</content>\n</write_to_file>")
    [w] = split(text) or []
    assert isinstance(w, Call) and w.params == {
        "path": "a.md", "content": "End with </write_to_file>, use <content>x</content> and so on."} and w.span == (
        0, len(text))
    # ... but after it, the call's closing tag closes the call (as Cline read it): the rest is prose
    text = "<write_to_file>\n<content>\n<content>x</content> </write_to_file> y\n</content>\n</write_to_file>"
    [cut, rest] = split(text) or []
    assert isinstance(cut, Call) and cut.params == {"content": "<content>x"} and not isinstance(rest, Call)
    assert text[slice(*rest)] == "y\n</content>\n</write_to_file>"
    # any other parameter ends at its first closing tag (Cline's own rule: the rest is dropped)
    [r] = split("<replace_in_file>\n<path>a</path>\n<diff>\nx</diff>y\n</diff>\n</replace_in_file>") or []
    assert isinstance(r, Call) and r.params == {"path": "a", "diff": "x"}
    # JavaScript's trim: U+00A0 and U+FEFF are blanks, U+001C is not
    [j] = split("<read_file><path>\u00a0\ufeffa\x1c</path></read_file>") or []
    assert isinstance(j, Call) and j.params == {"path": "a\x1c"}


def test_a_call_the_text_ends_in_keeps_what_was_written() -> None:
    text = "Ask.\n\n<ask_followup_question>\n<question>Which folder?\n"
    [prose, call] = split(text) or []
    assert not isinstance(prose, Call) and text[slice(*prose)] == "Ask."
    assert isinstance(call, Call) and (call.params, call.unclosed, call.span) == (
        {"question": "Which folder?"}, True, (6, len(text) - 1))  # its XML, without the blank at the end
    [bare] = split("<list_files>\n<path>src</path>\n") or []
    assert isinstance(bare, Call) and (bare.params, bare.unclosed) == ({"path": "src"}, True)


# ---------------------------------------------------- mid-2025: each kind of call and its result
def _kinds(tmp: Path) -> Path:
    """ToolExecutor.ts at 77cc05c843: the header a block of its own, the output the next; the
    browser's screenshot result an array with no header (abfaf6ca7a); one call per message."""
    api = [
        user(_t("<task>\nMake the failing test pass\n</task>"), ENV),
        said("<thinking>\nThe test imports x from src/x.ts.\n</thinking>\n\nFirst I read the test.\n\n<read_file>\n"
             "<path>src/x.test.ts</path>\n</read_file>" + TOOL_CUT),
        user(head("[read_file for 'src/x.test.ts']"), _t("import { x } from './x'\nexpect(x).toBe(2)"), ENV),
        said("I will look for where x is defined.\n\n<search_files>\n<path>src</path>\n<regex>export const x</regex>\n"
             "<file_pattern>*.ts</file_pattern>\n</search_files>"),
        user(head("[search_files for 'export const x' in '*.ts']"),
             _t("Found 1 result.\n\nsrc/x.ts\n│----\n│export const x = 1\n│----"), ENV),
        said("<list_files>\n<path>src</path>\n<recursive>false</recursive>\n</list_files>"),
        user(head("[list_files for 'src']"), _t("x.test.ts\nx.ts"), ENV),
        said("<replace_in_file>\n<path>src/x.ts</path>\n<diff>\n------- SEARCH\nexport const x = 1\n=======\n"
             "export const x = 2\n+++++++ REPLACE\n</diff>\n</replace_in_file>"),
        user(head("[replace_in_file for 'src/x.ts']"), _t("The content was successfully saved to src/x.ts."), ENV),
        said("<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n"
             "</execute_command>"),
        user(head("[execute_command for 'npm test']"), _t("Command executed.\nOutput:\n1 passing"), ENV),
        said("<use_mcp_tool>\n<server_name>github</server_name>\n<tool_name>create_issue</tool_name>\n<arguments>\n"
             "{\"title\": \"x is 2\"}\n</arguments>\n</use_mcp_tool>"),
        user(head("[use_mcp_tool for 'github']"), _t("Created issue #7"), ENV),
        said("<browser_action>\n<action>launch</action>\n<url>http://localhost:3000</url>\n</browser_action>"),
        user(_t(BROWSED), IMAGE, ENV),
        said("<browser_action>\n<action>close</action>\n</browser_action>"),
        user(head("[browser_action for 'close']"),
             _t("The browser has been closed. You may now proceed to using other tools."), ENV),
        said("<attempt_completion>\n<result>\nx is 2 now and the test passes.\n</result>\n<command>npm test</command>\n"
             "</attempt_completion>"),
    ]

    def req(i: int) -> dict[str, Any]:  # each request's record, at the index of the user message it sends
        return {"ts": T + 1000 * i, "type": "say", "say": "api_req_started", "conversationHistoryIndex": i - 1,
                "text": json.dumps({"request": "…", "tokensIn": 10, "tokensOut": 5, "cacheWrites": 0,
                                    "cacheReads": 0, "cost": 0.001})}

    def rec(i: int, kind: str, sub: str, text: str, after: int = 0) -> dict[str, Any]:
        # a record made while the response streams has the index of the message before it; `after`
        # 1: made once the response is saved (a command's output after its approval), its own
        return {"ts": T + 1000 * i + 500, "type": kind, kind: sub, "text": text,
                "conversationHistoryIndex": i - 1 + after}

    ui = [{"ts": T, "type": "say", "say": "text", "text": "Make the failing test pass", "conversationHistoryIndex": -1},
          # the UI shows the model's text with the <thinking> tags taken out (presentAssistantMessage)
          req(1), rec(1, "say", "text", "The test imports x from src/x.ts.\n\nFirst I read the test."),
          rec(1, "say", "tool", json.dumps({"tool": "readFile", "path": "src/x.test.ts"})),
          req(3), rec(3, "say", "text", "I will look for where x is defined."),
          rec(3, "say", "tool", json.dumps({"tool": "searchFiles", "path": "src", "regex": "export const x"})),
          req(5), rec(5, "say", "tool", json.dumps({"tool": "listFilesTopLevel", "path": "src"})),
          req(7), rec(7, "ask", "tool", json.dumps({"tool": "editedExistingFile", "path": "src/x.ts"})),
          req(9), rec(9, "ask", "command", "npm test"), rec(9, "say", "command_output", "1 passing", 1),
          req(11), rec(11, "ask", "use_mcp_server", json.dumps({"serverName": "github", "toolName": "create_issue"})),
          req(13), rec(13, "ask", "browser_action_launch", "http://localhost:3000"),
          rec(13, "say", "browser_action_result", json.dumps({"logs": ""})),
          req(15), rec(15, "say", "browser_action", json.dumps({"action": "close"})),
          req(17), rec(17, "say", "completion_result", "x is 2 now and the test passes."),
          rec(17, "ask", "completion_result", "")]
    return task(tmp / "tasks" / str(T), api, ui)


def test_each_kind_of_call_is_a_step_answered_by_its_result(tmp_path: Path) -> None:
    path = _kinds(tmp_path)
    s = read(path)
    assert calls(s) == [
        ("read_file", {"path": "src/x.test.ts"},
         "[read_file for 'src/x.test.ts'] Result:\nimport { x } from './x'\nexpect(x).toBe(2)", False),
        ("search_files", {"path": "src", "regex": "export const x", "file_pattern": "*.ts"},
         "[search_files for 'export const x' in '*.ts'] Result:\nFound 1 result.\n\nsrc/x.ts\n│----\n"
         "│export const x = 1\n│----", False),
        ("list_files", {"path": "src", "recursive": "false"}, "[list_files for 'src'] Result:\nx.test.ts\nx.ts", False),
        ("replace_in_file", {"path": "src/x.ts", "diff": "------- SEARCH\nexport const x = 1\n=======\n"
                                                         "export const x = 2\n+++++++ REPLACE"},
         "[replace_in_file for 'src/x.ts'] Result:\nThe content was successfully saved to src/x.ts.", False),
        ("execute_command", {"command": "npm test", "requires_approval": "false"},
         # "Command executed." is what Cline wrote when the command ended, whatever its exit code
         # (src/core/task/index.ts at 5fde21dffd): the result says nothing of success
         "[execute_command for 'npm test'] Result:\nCommand executed.\nOutput:\n1 passing", None),
        ("use_mcp_tool", {"server_name": "github", "tool_name": "create_issue", "arguments": '{"title": "x is 2"}'},
         "[use_mcp_tool for 'github'] Result:\nCreated issue #7", False),
        ("browser_action", {"action": "launch", "url": "http://localhost:3000"}, BROWSED, False),
        ("browser_action", {"action": "close"},
         "[browser_action for 'close'] Result:\nThe browser has been closed. You may now proceed to using other tools.",
         False),
        ("attempt_completion", {"result": "x is 2 now and the test passes.", "command": "npm test"}, None, None)]
    # each call cites its XML exactly; the model's prose around it is its text, a slice (C-span)
    first = next(e for e in s.events if e.kind == "tool_call")
    assert xml_of(s, first) == "<read_file>\n<path>src/x.test.ts</path>\n</read_file>"
    texts = [(e.text, e.info.span if isinstance(e.info, MessageInfo) else None) for e in s.events
             if e.kind == "agent_text"]
    assert texts == [("<thinking>\nThe test imports x from src/x.ts.\n</thinking>\n\nFirst I read the test.", (0, 80)),
                     ("I will look for where x is defined.", (0, 35))]
    [cut] = [e for e in s.events if e.kind == "note"]  # Cline's words after the call, not the model's
    assert (cut.actor, cut.text, isinstance(cut.info, NoteInfo) and cut.info.subtype) == (
        "system", TOOL_CUT.strip(), "response_cut_after_tool")
    # the results sit in the user message after each call: the header block and the next one
    res = next(e for e in s.events if e.kind == "tool_result")
    assert [r.pointer for r in res.refs] == ["/content/0/text", "/content/1/text"]
    assert s.quality.missing_results == 0 and s.quality.extra["completion_unanswered"] == 1
    assert (s.quality.extra["xml_calls"], s.quality.extra["images"]) == (9, 1)
    assert [w.code for w in s.warnings] == []
    [trace] = retrace(path, tmp_path / "out")  # validated, and every copied value verified against the log
    assert from_trace(trace)[:3] == [
        ("user", "Make the failing test pass"),
        ("call", "read_file", {"path": "src/x.test.ts"},
         "[read_file for 'src/x.test.ts'] Result:\nimport { x } from './x'\nexpect(x).toBe(2)"),
        ("call", "search_files", {"path": "src", "regex": "export const x", "file_pattern": "*.ts"},
         "[search_files for 'export const x' in '*.ts'] Result:\nFound 1 result.\n\nsrc/x.ts\n│----\n"
         "│export const x = 1\n│----")]
    steps = trace["steps"]
    assert [st["tool"] for st in steps if st.get("tool")] == [c[0] for c in calls(s)]
    assert steps[1]["reasoning"] == texts[0][0] and steps[2]["reasoning"] == texts[1][0]
    # the answer given by attempt_completion ends the task, as with native calls
    assert (trace["final_output"], trace["termination_reason"]) == ("x is 2 now and the test passes.", "task_complete")
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text("utf-8"))
    fields = prov["steps"][1]["fields"]
    assert {k: (fields[k]["origin"], fields[k]["rule"], fields[k].get("params")) for k in ("tool", "input")} == {
        k: ("derived", "R-call/cline-xml", {"span_start": 82, "span_end": 133}) for k in ("tool", "input")}
    assert fields["reasoning"]["rule"] == "C-span"
    # every UI record and API message is accounted for
    for f in ledger(tmp_path / "out"):
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f


# ------------------------------------------------ mid-2025: what Cline did with calls it refused
def _refusals(tmp: Path) -> Path:
    """ToolExecutor.ts at 77cc05c843: askApproval on a rejection pushes "The user denied this
    operation." as the result, then the person's feedback (say user_feedback); a later call of
    the message is skipped ("Skipping tool [… for '…'] due to user rejecting a previous
    tool.") and the stream stopped ("[Response interrupted by user feedback]"); a second call
    after one that ran is refused (formatResponse.toolAlreadyUsed); an error is toolError;
    attempt_completion's feedback is one block, wrapper and words."""
    api = [
        user(_t("<task>\nWrite the notes\n</task>"), ENV),
        said("First the notes, then I show them.\n\n<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n"
             "Wrap it in <content>tags</content> like this.\n</content>\n</write_to_file>\n\n<execute_command>\n"
             "<command>cat notes.md</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n\n"
             "[Response interrupted by user feedback]"),
        user(head("[write_to_file for 'notes.md']"), _t("The user denied this operation."),
             _t("The user provided the following feedback:\n<feedback>\nput them in docs/\n</feedback>"),
             _t("Skipping tool [execute_command for 'cat notes.md'] due to user rejecting a previous tool."), ENV),
        said("<read_file>\n<path>docs/notes.md</path>\n</read_file>\n<list_files>\n<path>docs</path>\n</list_files>"),
        user(head("[read_file for 'docs/notes.md']"), _t("# Notes"), _t(NOT_RUN), ENV),
        said("<execute_command>\n<command>npx prettier --check docs</command>\n<requires_approval>false"
             "</requires_approval>\n</execute_command>"),
        user(head("[execute_command for 'npx prettier --check docs']"),
             _t("The tool execution failed with the following error:\n<error>\nError executing command: "
                "{\"name\":\"Error\",\"message\":\"spawn npx ENOENT\"}\n</error>"), ENV),
        # the response ended inside the call (the output limit): Cline ran it as it stood
        said("I need to know where the notes go.\n\n<ask_followup_question>\n<question>Which folder should hold "
             "the notes?"),
        user(head("[ask_followup_question for 'Which folder should hold the notes?']"), _t("<answer>\ndocs\n</answer>"),
             ENV),
        said("<plan_mode_respond>\n<response>\nI will keep the notes in docs/.\n</response>\n</plan_mode_respond>"),
        user(head("[plan_mode_respond]"), _t("<user_message>\nok\n</user_message>"), ENV),
        said("<attempt_completion>\n<result>\nThe notes are in docs/notes.md.\n</result>\n</attempt_completion>"),
        user(head("[attempt_completion]"),
             _t("The user has provided feedback on the results. Consider their input to continue the task, and then "
                "attempt completion again.\n<feedback>\nadd a title\n</feedback>"), ENV),
        said("<replace_in_file>\n<path>docs/notes.md</path>\n</replace_in_file>"),
        user(head("[replace_in_file for 'docs/notes.md']"),
             _t("Missing value for required parameter 'diff'. Please retry with complete response."), ENV),
    ]
    # the person's answers to the question and to plan_mode_respond (say user_feedback) are left
    # out of the UI: they are read from the results (tests/test_sources_cline_answers.py)
    ui = [{"ts": T, "type": "say", "say": "text", "text": "Write the notes"},
          {"ts": T + 1000, "type": "say", "say": "user_feedback", "text": "put them in docs/"},
          {"ts": T + 9000, "type": "say", "say": "user_feedback", "text": "add a title"}]
    return task(tmp / "tasks" / str(T), api, ui)


def test_refused_failed_and_unclosed_calls_keep_what_cline_answered(tmp_path: Path) -> None:
    path = _refusals(tmp_path)
    s = read(path)
    assert calls(s) == [
        ("write_to_file", {"path": "notes.md", "content": "# Notes\nWrap it in <content>tags</content> like this."},
         "[write_to_file for 'notes.md'] Result:\nThe user denied this operation.", True),
        ("execute_command", {"command": "cat notes.md", "requires_approval": "false"},
         "Skipping tool [execute_command for 'cat notes.md'] due to user rejecting a previous tool.", True),
        ("read_file", {"path": "docs/notes.md"}, "[read_file for 'docs/notes.md'] Result:\n# Notes", False),
        ("list_files", {"path": "docs"}, NOT_RUN, True),
        ("execute_command", {"command": "npx prettier --check docs", "requires_approval": "false"},
         "[execute_command for 'npx prettier --check docs'] Result:\nThe tool execution failed with the following "
         "error:\n<error>\nError executing command: {\"name\":\"Error\",\"message\":\"spawn npx ENOENT\"}\n</error>",
         True),
        ("ask_followup_question", {"question": "Which folder should hold the notes?"},
         "[ask_followup_question for 'Which folder should hold the notes?'] Result:\n<answer>\ndocs\n</answer>", False),
        ("plan_mode_respond", {"response": "I will keep the notes in docs/."},
         "[plan_mode_respond] Result:\n<user_message>\nok\n</user_message>", False),
        ("attempt_completion", {"result": "The notes are in docs/notes.md."}, None, None),  # answered by the person
        ("replace_in_file", {"path": "docs/notes.md"},
         "[replace_in_file for 'docs/notes.md'] Result:\nMissing value for required parameter 'diff'. Please retry "
         "with complete response.", True)]
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    by = [(e.tool, results[e.call_id].info) for e in s.events if e.kind == "tool_call" and e.call_id in results]
    assert [(t, i.rejected if isinstance(i, ResultInfo) else None, i.failure_rule if isinstance(i, ResultInfo)
             else None) for t, i in by if i is not None] == [
        ("write_to_file", True, None), ("execute_command", True, None),  # the person's rejection, and the skip
        ("list_files", False, "R-call/cline-failure-text"), ("execute_command", False, "R-call/cline-failure-text"),
        ("replace_in_file", False, "R-call/cline-failure-text")]
    # the person's words are theirs, where they were said: after the rejection, after the completion
    order = [(e.kind, e.tool or e.text) for e in s.events if e.kind in ("user", "tool_result")]
    assert order[:4] == [("user", "Write the notes"), ("tool_result", "write_to_file"), ("user", "put them in docs/"),
                         ("tool_result", "execute_command")]
    assert order[-6:] == [("tool_result", "ask_followup_question"), ("user", "docs"),  # answers: cut from the result
                          ("tool_result", "plan_mode_respond"), ("user", "ok"), ("user", "add a title"),
                          ("tool_result", "replace_in_file")]
    # the model's words before the calls; Cline's notice after them is a note, not the model's
    assert [(e.kind, e.actor, e.text) for e in s.events if e.kind in ("agent_text", "note")] == [
        ("agent_text", "agent", "First the notes, then I show them."),
        ("note", "system", "[Response interrupted by user feedback]"),
        ("agent_text", "agent", "I need to know where the notes go.")]
    unclosed = next(e for e in s.events if e.tool == "ask_followup_question")
    assert xml_of(s, unclosed) == "<ask_followup_question>\n<question>Which folder should hold the notes?"
    assert {k: s.quality.extra[k] for k in ("xml_calls", "xml_calls_unclosed", "rejected_calls",
                                            "response_cut_after_rejection", "completion_feedback")} == {
        "xml_calls": 9, "xml_calls_unclosed": 1, "rejected_calls": 2, "response_cut_after_rejection": 1,
        "completion_feedback": 1}
    assert s.quality.missing_results == 0 and [w.code for w in s.warnings] == []
    [trace] = retrace(path, tmp_path / "out")
    rejected = [st for st in trace["steps"] if st.get("eval") == -1]
    assert [st["tool"] for st in rejected] == ["write_to_file", "execute_command", "list_files", "execute_command",
                                               "replace_in_file"]
    assert trace["termination_reason"] == "other"  # the last call failed: no answer ends the task


# ------------------------------------------ 2024: every call of a message ran, each answered
def test_before_november_2024_each_call_of_a_message_ran_and_its_header_may_span_lines(tmp_path: Path) -> None:
    """Cline.ts at 48cdfa9874 (October 2024, parseAssistantMessage at 7ee0a58f9b): no limit of
    one call per message; pushToolResult writes the header, then a string's block or an array's
    blocks (the browser's text and screenshot); the description is the command as written, a
    line break and all; a rejection with words is toolDeniedWithFeedback, in the result."""
    api = [
        user(_t("<task>\ncheck the page\n</task>"), ENV),
        said("<execute_command>\n<command>npm run build &&\nnpm start</command>\n</execute_command>\n\n"
             "<browser_action>\n<action>launch</action>\n<url>http://localhost:3000</url>\n</browser_action>"),
        user(head("[execute_command for 'npm run build &&\nnpm start']"),
             _t("Command is still running in the user's terminal.\nHere's the output so far:\nready\n\nYou will be "
                "updated on the terminal status and new output in the future."),
             head("[browser_action for 'launch']"), _t(BROWSED), IMAGE, ENV),
        said("<write_to_file>\n<path>index.html</path>\n<content>\n<h1>Hi</h1>\n</content>\n</write_to_file>"),
        user(head("[write_to_file for 'index.html']"),
             _t("The user denied this operation and provided the following feedback:\n<feedback>\nkeep the old "
                "title\n</feedback>"), ENV),
    ]
    ui = [{"ts": T, "type": "say", "say": "text", "text": "check the page"},
          {"ts": T + 5000, "type": "say", "say": "user_feedback", "text": "keep the old title"}]
    path = task(tmp_path / "tasks" / str(T), api, ui)
    s = read(path)
    assert calls(s) == [
        ("execute_command", {"command": "npm run build &&\nnpm start"},
         "[execute_command for 'npm run build &&\nnpm start'] Result:\nCommand is still running in the user's "
         "terminal.\nHere's the output so far:\nready\n\nYou will be updated on the terminal status and new output in "
         "the future.", False),
        ("browser_action", {"action": "launch", "url": "http://localhost:3000"},
         "[browser_action for 'launch'] Result:\n" + BROWSED, False),
        ("write_to_file", {"path": "index.html", "content": "<h1>Hi</h1>"},
         "[write_to_file for 'index.html'] Result:\nThe user denied this operation and provided the following "
         "feedback:\n<feedback>\nkeep the old title\n</feedback>", True)]
    assert [e.tool for e in s.events if e.kind == "tool_call" and e.group == "M1"] == [
        "execute_command", "browser_action"]  # one message, one group
    # the person's words inside the rejection are theirs, after it (copied from the UI's record)
    assert [(e.kind, e.text) for e in s.events][-2:] == [
        ("tool_result", calls(s)[-1][2]), ("user", "keep the old title")]
    assert s.quality.extra["images"] == 1 and s.quality.missing_results == 0
    assert [w.code for w in s.warnings] == []
    [trace] = retrace(path, tmp_path / "out")
    assert [st["action"] for st in trace["steps"]] == ["user_message", "agent_step", "agent_step", "agent_step",
                                                       "user_message"]


# ---------------------------------- from October 2025, for a model without native tool calls
def test_one_block_results_and_thinking_before_the_calls_text(tmp_path: Path) -> None:
    """task/index.ts at 864419d8b0 with a model given no native tools: the thinking block, then
    the text with the calls as written (no notice appended); each result one text block
    (ToolResultUtils.pushToolResult with no tool_use id: "cline"), a command's exit status from
    CommandOrchestrator; a skip after a rejection names the call after the reason; the
    completion's feedback is two blocks of its array, with no header; each message has `ts`."""
    info = {"modelId": "deepseek-r1", "providerId": "openrouter", "mode": "act"}
    api = [
        user(_t("<task>\nfix the tests\n</task>"), ENV, ts=T + 100),
        {"role": "assistant", "modelInfo": info, "ts": T + 2000, "content": [
            {"type": "thinking", "thinking": "Run them first.", "signature": ""},
            {"type": "text", "text": "Running the tests.\n\n<execute_command>\n<command>npm test</command>\n"
                                     "<requires_approval>false</requires_approval>\n</execute_command>\n\nI will read "
                                     "the output next.", "call_id": "msg_1"}]},
        user(_t("[execute_command for 'npm test'] Result:\nCommand failed with exit code 1.\nOutput:\n1 failing"), ENV,
             ts=T + 4000),
        {"role": "assistant", "modelInfo": info, "ts": T + 6000, "content": [
            {"type": "thinking", "thinking": "x must be 2.", "signature": ""},
            {"type": "text", "text": "<write_to_file>\n<path>src/x.ts</path>\n<content>\nexport const x = 2\n"
                                     "</content>\n</write_to_file>\n<read_file>\n<path>src/x.ts</path>\n</read_file>"}]},
        user(_t("[write_to_file for 'src/x.ts'] Result:\nThe user denied this operation."),
             _t("Skipping tool due to user rejecting a previous tool. [read_file for 'src/x.ts']"), ENV, ts=T + 8000),
        {"role": "assistant", "modelInfo": info, "ts": T + 10000, "content": [
            _t("<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>")]},
        user(_t("The user has provided feedback on the results. Consider their input to continue the task, and then "
                "attempt completion again."), _t("<feedback>\nadd a test\n</feedback>"), ENV, ts=T + 12000),
    ]
    ui = [{"ts": T, "type": "say", "say": "text", "text": "fix the tests"},
          {"ts": T + 11000, "type": "say", "say": "user_feedback", "text": "add a test"}]
    path = task(tmp_path / "tasks" / str(T), api, ui)
    s = read(path)
    assert calls(s) == [
        ("execute_command", {"command": "npm test", "requires_approval": "false"},
         "[execute_command for 'npm test'] Result:\nCommand failed with exit code 1.\nOutput:\n1 failing", True),
        ("write_to_file", {"path": "src/x.ts", "content": "export const x = 2"},
         "[write_to_file for 'src/x.ts'] Result:\nThe user denied this operation.", True),
        ("read_file", {"path": "src/x.ts"},
         "Skipping tool due to user rejecting a previous tool. [read_file for 'src/x.ts']", True),
        ("attempt_completion", {"result": "Done."}, None, None)]
    assert [(e.kind, e.text) for e in s.events if e.kind in ("reasoning", "agent_text", "user")] == [
        ("user", "fix the tests"), ("reasoning", "Run them first."), ("agent_text", "Running the tests."),
        ("agent_text", "I will read the output next."), ("reasoning", "x must be 2."), ("user", "add a test")]
    failed = next(e for e in s.events if e.kind == "tool_result")
    assert isinstance(failed.info, ResultInfo) and failed.info.failure_rule == "R-call/cline-failure-text"
    assert [e.ts for e in s.events if e.kind == "tool_call"] == [
        "2025-06-15T15:06:42.000Z", "2025-06-15T15:06:46.000Z", "2025-06-15T15:06:46.000Z", "2025-06-15T15:06:50.000Z"]
    assert s.quality.extra["completion_feedback"] == 1 and s.quality.missing_results == 0
    assert [w.code for w in s.warnings] == []
    # the write's reasoning joins the words after the last call, the thinking before it: slices
    # of their texts, verified as such (R-reasoning/joined+C-span)
    [trace] = retrace(path, tmp_path / "out")
    write = next(st for st in trace["steps"] if st.get("tool") == "write_to_file")
    assert write["reasoning"] == "I will read the output next.\n\nx must be 2."
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text("utf-8"))
    assert prov["steps"][write["step"] - 1]["fields"]["reasoning"]["rule"] == "R-reasoning/joined+C-span"


# ---------------------------------------------- a response the person cut off inside a call
def test_a_call_in_a_response_cut_off_by_the_person_has_no_result(tmp_path: Path) -> None:
    """task/index.ts abortStream (7ee0a58f9b to 864419d8b0): the text streamed so far is saved
    with "[Response interrupted by user]" after it, and no result is written: the call was not
    run (the task resumed with a new user message)."""
    api = [
        user(_t("<task>\nwrite a.py\n</task>"), ENV),
        said("Let me write it.\n\n<write_to_file>\n<path>a.py</path>\n<content>\nprint(1)\n\n"
             "[Response interrupted by user]"),
        user(_t("[TASK RESUMPTION] This task was interrupted just now."), ENV),
    ]
    path = task(tmp_path / "tasks" / str(T), api, [{"ts": T, "type": "say", "say": "text", "text": "write a.py"}])
    s = read(path)
    assert [(e.kind, e.actor, e.text, e.tool, e.args) for e in s.events] == [
        ("user", "user", "write a.py", None, None),
        ("agent_text", "agent", "Let me write it.", None, None),
        ("tool_call", "agent", None, "write_to_file", {"path": "a.py", "content": "print(1)"}),
        ("interrupt", "user", "[Response interrupted by user]", None, None)]
    assert xml_of(s, s.events[2]) == "<write_to_file>\n<path>a.py</path>\n<content>\nprint(1)"
    assert s.quality.missing_results == 1 and s.quality.extra["xml_calls_unclosed"] == 1
    [trace] = retrace(path, tmp_path / "out")
    assert trace["termination_reason"] == "user_abandoned"


def test_a_message_with_native_calls_keeps_its_text_whole(tmp_path: Path) -> None:
    """With native tool calls (5fde21dffd) the message's tool_use blocks replace what Cline read
    from its text (processNativeToolCalls): XML in that text is the model's words, not a call;
    in a message with no tool_use block, Cline still read it (parseAssistantMessageV2)."""
    api = [
        user(_t("<task>\nread a\n</task>"), ENV),
        {"role": "assistant", "content": [
            _t("I use <read_file>\n<path>a</path>\n</read_file> below."),
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}]},
        user({"type": "tool_result", "tool_use_id": "t1", "content": "[read_file for 'a'] Result:\nA"}),
        said("<read_file>\n<path>b</path>\n</read_file>"),
        user(_t("[read_file for 'b'] Result:\nB"), ENV),
    ]
    s = read(task(tmp_path / "tasks" / str(T), api, [{"ts": T, "type": "say", "say": "text", "text": "read a"}]))
    assert calls(s) == [("read_file", {"path": "a"}, "[read_file for 'a'] Result:\nA", False),
                        ("read_file", {"path": "b"}, "[read_file for 'b'] Result:\nB", False)]
    whole = next(e for e in s.events if e.kind == "agent_text")
    assert whole.text == "I use <read_file>\n<path>a</path>\n</read_file> below." and whole.info is None
