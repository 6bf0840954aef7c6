"""Tool calls Cline read out of the model's text: the XML form, before native tool calls.

Until Cline gave models its tools as native tool definitions (cline/cline 5fde21dffd, October
2025; the default for the models that take them from 8aac67bf75, November 2025; the others
kept this form until the SDK), the model wrote each call as XML in its answer and Cline saved
the answer whole: the assistant message is one text block (`content: [{type: "text", text}]`,
task/index.ts; `Cline.ts` before April 2025), prose and calls, e.g.
`<read_file>\\n<path>src/x.ts</path>\\n</read_file>`. How Cline read it (parse-assistant-message.ts:
parseAssistantMessage at 7ee0a58f9b, October 2024; parseAssistantMessageV2 from 7d5d347cdd,
May 2025, to 864419d8b0, which reads a whole message the same way), which `split` follows:

* a call opens at `<name>` exactly (no attributes, no space), for a name in Cline's list of
  tools (`TOOLS`); any other tag, `<thinking>` among them, is text;
* inside a call, `<param>` opens a parameter, for a name in Cline's list of parameters
  (`PARAMS`, any tool's), and its value runs to the first `</param>`, trimmed; text in a call
  outside parameters is dropped; the call closes at the first `</name>` met outside a
  parameter; a parameter written twice keeps the later value;
* `write_to_file`'s `content` is, when the call closes, what lies between its first
  `<content>` and its last `</content>` (so a file holding `</content>` is kept whole; in an
  unclosed call, as V2 reads it, to the first: the older parser took the last one so far);
* text between calls is the model's prose, trimmed (a blank stretch is no text);
* a call still open when the text ends (the response was cut off) keeps what was read: its
  open parameter runs to the end of the text. When the response had ended normally, Cline
  ran it as it stood (task/index.ts marks every partial block complete and presents it), so
  it has a result like any other (often "Missing value for required parameter").

Both lists are the union of every version's (`toolUseNames` and `toolParamNames` in
core/assistant-message/index.ts, `ClineDefaultTool` in shared/tools.ts, October 2024 to
March 2026): the model wrote a tool's tag because its prompt offered that tool, so a tag of a
tool its version lacked is rare prose read as a call. Tools an extension added at run time
(`getToolUseNames`' dynamic names) are not known from the log: their XML stays text; so does
the `<function_calls><invoke name="…">` form Claude 4 models were given in v3.17.8 alone
(parseAssistantMessageV3, 94516092b1 to 203f805548).

Cline ran one call per message from November 2024 (c54c6d82f5): each later one is answered
"Tool [X] was not executed because a tool has already been used in this message." (before
that, and with parallel calling on, each ran in turn); once a result was in, the stream was
stopped and "\\n\\n[Response interrupted by a tool use result. Only one tool may be used at a time
and should be placed at the end of the message.]" appended to the saved text, or
"\\n\\n[Response interrupted by user feedback]" when the person rejected a call (69ba0c833e,
05920b5233; from 5fde21dffd the model's text is saved without them). `CUT_NOTICES` names
them: Cline's words, never the model's.

The results are in the next user message, in order, each opened by `[<tool> for '<what>']
Result:` (pushToolResult in Cline.ts, then ToolExecutor.ts, then ToolResultUtils.ts), where
`<what>` is the call's command, path, question... as written, line breaks and all (`HEADER`).
Until 5fde21dffd the header is a block of its own and the output the next block (`body_of`);
from then one block, `[...] Result:\\n<output>`. From abfaf6ca7a (May 2025) a result pushed as
an array of blocks (a screenshot, the person's images) has no header (`HEADLESS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...evidence import Event, Ref
from ...payloads import CallInfo, MessageInfo, NoteInfo
from ._harness import INJECTED, RESULT, harness_kind, not_run, wrapped_words

RULE = "R-call/cline-xml"  # the catalogue's rule for a call read out of the model's text

# every tool name Cline's parser looked for, October 2024 to March 2026 (index.ts toolUseNames,
# shared/tools.ts ClineDefaultTool): the short-lived ones too (inspect_site, October 2024;
# consult_advisor, chat_mode_response, respond_to_inquiry, plan_mode_response, January-March 2025)
TOOLS: tuple[str, ...] = (
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "ask_followup_question", "attempt_completion", "plan_mode_respond", "act_mode_respond",
    "load_mcp_documentation", "new_task", "condense", "summarize_task", "report_bug", "new_rule", "web_fetch",
    "web_search", "focus_chain", "apply_patch", "generate_explanation", "use_skill", "use_subagents",
    "inspect_site", "consult_advisor", "chat_mode_response", "respond_to_inquiry", "plan_mode_response",
)  # fmt: skip
# every parameter name (index.ts toolParamNames over the same years; `problem`, January 2025)
PARAMS: tuple[str, ...] = (
    "command", "requires_approval", "path", "absolutePath", "content", "diff", "regex", "file_pattern",
    "recursive", "action", "url", "coordinate", "text", "query", "allowed_domains", "blocked_domains", "prompt",
    "server_name", "tool_name", "arguments", "uri", "question", "options", "response", "result", "context",
    "title", "what_happened", "steps_to_reproduce", "api_request_output", "additional_context",
    "needs_more_exploration", "task_progress", "timeout", "input", "from_ref", "to_ref", "skill_name",
    "prompt_1", "prompt_2", "prompt_3", "prompt_4", "prompt_5", "start_line", "end_line", "problem",
)  # fmt: skip
# a tag is `<` name `>` exactly; the alternation backtracks, so `<prompt_1>` is not taken for `<prompt>`
OPEN_TOOL = re.compile("<(" + "|".join(TOOLS) + ")>")
OPEN_PARAM = re.compile("<(" + "|".join(PARAMS) + ")>")


@dataclass(frozen=True, slots=True)
class Grammar:
    """The names a parser of this XML form looked for, and how it cut a `content` value: Cline's
    by default; a fork that kept the form with tools of its own gives its own (Roo Code's,
    `roo_code/_xml.py`). `content_newline`: `content` loses one line break at either end
    instead of being trimmed (Roo Code's parser from June 2025)."""

    open_tool: re.Pattern[str] = OPEN_TOOL
    open_param: re.Pattern[str] = OPEN_PARAM
    content_newline: bool = False


CLINE = Grammar()
# what JavaScript's String.prototype.trim removes (Python's strip differs: \x1c-\x1f, \x85, \ufeff)
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000\ufeff"
# what Cline appended to the saved text when it stopped the stream itself (task/index.ts, from
# 69ba0c833e and 05920b5233 to 5fde21dffd): notice -> the note's subtype
CUT_NOTICES: dict[str, str] = {
    "[Response interrupted by a tool use result. Only one tool may be used at a time and should be placed at the "
    "end of the message.]": "response_cut_after_tool",
    "[Response interrupted by user feedback]": "response_cut_after_rejection",
}
Cut = tuple[str, tuple[int, int]]  # cut_notice: a notice's subtype and its span in the text
# a result's header for a call whose description spans lines (a command or question with newlines)
HEADER = re.compile(r"\[([A-Za-z_][\w-]*)(?: for .*?)?\] Result:", re.S)


@dataclass(frozen=True, slots=True)
class Call:
    """A call as Cline read it: its name, its parameters in the order first written, where its
    XML is in the text ([start, end)), and whether its closing tag never came."""

    name: str
    params: dict[str, str]
    span: tuple[int, int]
    unclosed: bool


def _trimmed(text: str, a: int, z: int) -> tuple[int, int]:
    """[a, z) without the blanks JavaScript's trim would take off either end."""
    while a < z and text[a] in JS_SPACE:
        a += 1
    while z > a and text[z - 1] in JS_SPACE:
        z -= 1
    return a, z


def split(text: str, end: int | None = None, grammar: Grammar = CLINE) -> list[tuple[int, int] | Call] | None:
    """The model's prose (each a trimmed [start, end) of `text`) and its calls, in order, as
    Cline's parser (or the one `grammar` describes) read `text[:end]`; None when it holds no
    call (the text is all prose)."""
    end = len(text) if end is None else end
    m = grammar.open_tool.search(text, 0, end)
    if m is None:
        return None
    out: list[tuple[int, int] | Call] = []
    at = 0  # where the prose after the last call starts
    while m is not None:
        a, z = _trimmed(text, at, m.start())
        if z > a:
            out.append((a, z))
        call = _call(text, m, end, grammar)
        out.append(call)
        at = call.span[1]
        m = grammar.open_tool.search(text, at, end) if not call.unclosed else None
    a, z = _trimmed(text, at, end)
    if z > a:
        out.append((a, z))
    return out


def _call(text: str, opened: re.Match[str], end: int, grammar: Grammar = CLINE) -> Call:
    """One call from its opening tag: parameters until the first closing tag of the call met
    outside them (tags cannot overlap, so the first to start is the first Cline saw end)."""
    name, body = opened.group(1), opened.end()
    close = f"</{name}>"
    params: dict[str, str] = {}
    i = body
    while True:
        p = grammar.open_param.search(text, i, end)
        c = text.find(close, i, end)
        if c >= 0 and (p is None or c < p.start()):
            if name == "write_to_file":
                _whole_content(text[body:c], params, grammar)
            return Call(name, params, (opened.start(), c + len(close)), False)
        # cut off (the blanks before the end, or before the notice Cline appended, are not the call's)
        unclosed = (opened.start(), _trimmed(text, opened.start(), end)[1])
        if p is None:
            return Call(name, params, unclosed, True)
        param, start = p.group(1), p.end()
        stop = text.find(f"</{param}>", start, end)
        if stop < 0:  # cut off inside a parameter: its value is the rest of the text
            a, z = _cut(text, start, end, param, grammar)
            params[param] = text[a:z]
            return Call(name, params, unclosed, True)
        a, z = _cut(text, start, stop, param, grammar)
        params[param] = text[a:z]
        i = stop + len(param) + 3


def _cut(text: str, a: int, z: int, param: str, grammar: Grammar) -> tuple[int, int]:
    """A parameter's value in [a, z): trimmed, or for `content` when `grammar` says so, one line
    break off either end (Roo Code keeps a file's blank lines)."""
    if param != "content" or not grammar.content_newline:
        return _trimmed(text, a, z)
    if a < z and text[a] == "\n":
        a += 1
    if z > a and text[z - 1] == "\n":
        z -= 1
    return a, z


def _whole_content(body: str, params: dict[str, str], grammar: Grammar = CLINE) -> None:
    """write_to_file: the content between the first `<content>` and the last `</content>`."""
    a, z = body.find("<content>"), body.rfind("</content>")
    if a >= 0 and z > a:
        s, e = _cut(body, a + len("<content>"), z, "content", grammar)
        params["content"] = body[s:e]


def cut_notice(text: str, end: int) -> Cut | None:
    """(subtype, span) of the notice Cline appended to `text[:end]` when it stopped the stream."""
    body = text[:end].rstrip()
    for notice, subtype in CUT_NOTICES.items():
        if body.endswith(notice):
            return subtype, (len(body) - len(notice), len(body))
    return None


WAIT = -1  # body_of: the header of a completion whose answer is the person's feedback after it


def body_of(blocks: list[tuple[str, dict[str, Any]]], i: int, tool: str) -> int | None:
    """For a header block alone (`[tool ...] Result:`, until 5fde21dffd), the index of the
    block holding the result's text: the next block, when it is text Cline wrote as the result
    (a string result is pushed as one block; an array's text comes first, its images after);
    None when the next block is something else (the header is the whole result). WAIT for
    attempt_completion's header followed by Cline's wrapper around the person's feedback (its
    answer, as `_harness` reads it)."""
    nxt = blocks[i + 1][1] if i + 1 < len(blocks) else None
    text = nxt.get("text") if nxt is not None and nxt.get("type") == "text" else None
    if not isinstance(text, str):
        return None
    body = text.lstrip()
    kind = harness_kind(body)
    if tool == "attempt_completion" and kind == "completion_feedback_wrapper":
        return WAIT
    if kind not in (None, "command_output") or RESULT.match(body) or not_run(body) is not None \
            or body.startswith(INJECTED) or wrapped_words(body) is not None:
        return None
    return i + 1


def events(rec_id: str, ptr: str, text: str, pieces: list[tuple[int, int] | Call], cut: Cut | None, ts: str | None,
           at: Ref | None, group: str, extra: dict[str, int], rule: str = RULE) -> list[Event]:
    """The model's prose (agent_text, C-span) and the calls Cline read out of its text (`rule`:
    name and arguments derived, `span` the XML), in order, the unclosed ones counted; then
    Cline's notice that it stopped the stream (`cut`: its subtype and span), a system note."""
    out = []
    for piece in pieces:
        if not isinstance(piece, Call):
            out.append(Event("agent_text", "agent", ts, [Ref(rec_id, ptr)], ts_from=at, text=text[slice(*piece)],
                             info=MessageInfo(span=piece)))
            continue
        out.append(Event("tool_call", "agent", ts, [Ref(rec_id, ptr)], ts_from=at, tool=piece.name, args=piece.params,
                         call_id=f"{rec_id}{ptr}@{piece.span[0]}", group=group,
                         info=CallInfo(span=piece.span, parsed_by=rule)))
        extra["xml_calls"] = extra.get("xml_calls", 0) + 1
        if piece.unclosed:  # the response ended inside it: read as Cline ran it, with what it held
            extra["xml_calls_unclosed"] = extra.get("xml_calls_unclosed", 0) + 1
    if cut is not None:  # Cline's words after the model's, never the model's
        subtype, span = cut
        extra[subtype] = extra.get(subtype, 0) + 1
        out.append(Event("note", "system", ts, [Ref(rec_id, ptr)], ts_from=at, text=text[slice(*span)],
                         info=NoteInfo(subtype=subtype, span=span)))
    return out


def header(body: str, pending: list[Event]) -> re.Match[str] | None:
    """The header of a result for the first call waiting, when Cline read it out of the text and
    its description spans lines (`HEADER`; one line is `_harness.RESULT`'s)."""
    first = pending[0] if pending else None
    if first is None or not is_xml(first):
        return None
    m = HEADER.match(body)
    return m if m is not None and m.group(1) == first.tool else None


# from abfaf6ca7a (May 2025) a result Cline pushed as an array of blocks (a screenshot, images the
# person attached) has no header: its first text block opens with the tool's own words
HEADLESS: tuple[tuple[str, str], ...] = (
    ("The browser action has been executed.", "browser_action"),  # BrowserToolHandler, with the screenshot
    ("<answer>\n", "ask_followup_question"),  # the person's answer, with images or files
    ("<user_message>\n", "plan_mode_respond"),
)


def headless(body: str, pending: list[Event]) -> Event | None:
    """The call waiting (read out of the text) that a header-less array result answers."""
    tool = next((t for start, t in HEADLESS if body.startswith(start)), None)
    return next((c for c in pending if tool is not None and c.tool == tool and is_xml(c)), None)


def is_xml(call: Event) -> bool:
    """Whether the call was read out of the model's text (its result may be in two blocks)."""
    return isinstance(call.info, CallInfo) and call.info.parsed_by == RULE


def block_text(blocks: list[tuple[str, dict[str, Any]]], k: int) -> tuple[str, str]:
    """(pointer, text) of text block `k` (a message whose content is one string: its pointer)."""
    ptr, b = blocks[k]
    return (ptr if b.get("_whole") else ptr + "/text"), str(b.get("text"))
