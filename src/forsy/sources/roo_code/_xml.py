"""Tool calls Roo Code read out of the model's text, and the headers of their results.

Roo Code forked Cline's XML form and kept it until January 2026 (RooCodeInc/Roo-Code 8de9337e63
removed it; native tool calls came in 5e6e601b0a, November 2025, and were the default for the
models that take them from then). Its parser (core/assistant-message: parseAssistantMessage,
then from August 2025 AssistantMessageParser, f24c1e69a3) reads a message the way Cline's does
(`cline/_xml_calls.py`), with these differences, which `GRAMMAR` carries:

* the tool and parameter names are Roo Code's (`toolNames` in packages/types/src/tool.ts,
  `toolParamNames` in src/shared/tools.ts, and their places before April 2025): `TOOLS` and
  `PARAMS` are the union of every version's up to 8de9337e63~1;
* a `content` value loses one line break at either end rather than being trimmed (245c8f3269,
  June 2025; before it, trimmed as Cline did: the two differ only in blanks at a file's ends).

AssistantMessageParser also dropped a parameter longer than 100 KB as it streamed; forsy keeps
it (the saved text holds it whole).

The results are Cline's older form: a block `<description> Result:`, then the output in the
next block (presentAssistantMessage.ts at 8de9337e63~1, `pushToolResult` for the XML protocol).
The description is the call's own (`toolDescription()`): `[read_file for 'a.ts']`, `[switch_mode
to 'code' because: …]`, `[new_task in Code mode: '…']`, `[apply_diff for 'a.ts' and 2 more
files]`, `[attempt_completion]`: `header` takes a block that is only such a description for the
call waiting, `[` and the call's name first.
"""

from __future__ import annotations

import re

from ..cline import Grammar

RULE = "R-call/roo-xml"

# toolNames / toolUseNames, October 2024 to January 2026 (Roo Code's own and Cline's of the fork)
TOOLS: tuple[str, ...] = (
    "execute_command", "read_file", "write_to_file", "apply_diff", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "ask_followup_question", "attempt_completion", "switch_mode", "new_task", "fetch_instructions",
    "insert_content", "search_and_replace", "codebase_search", "update_todo_list", "generate_image",
    "run_slash_command", "apply_patch", "search_replace", "edit_file", "custom_tool", "append_to_file",
    "insert_code_block", "create_file", "inspect_site",
)  # fmt: skip
# toolParamNames over the same years
PARAMS: tuple[str, ...] = (
    "command", "path", "content", "regex", "file_pattern", "recursive", "action", "url", "coordinate", "text",
    "server_name", "tool_name", "arguments", "uri", "question", "result", "diff", "start_line", "end_line",
    "line_count", "mode_slug", "reason", "operations", "mode", "message", "cwd", "follow_up", "auto_truncate",
    "task", "size", "search", "replace", "use_regex", "ignore_case", "line", "query", "args", "todos", "prompt",
    "image", "files", "patch", "file_path", "old_string", "new_string", "expected_replacements",
)  # fmt: skip

GRAMMAR = Grammar(open_tool=re.compile("<(" + "|".join(TOOLS) + ")>"),
                  open_param=re.compile("<(" + "|".join(PARAMS) + ")>"), content_newline=True)


def header(text: str, tool: str) -> bool:
    """Whether a text block is only the header of a result of a `tool` call: its description
    (`[tool`, then the rest of it, which may span lines and hold brackets) and ` Result:`."""
    body = text.strip()
    if not (body.startswith("[" + tool) and body.endswith("] Result:")):
        return False
    after = body[len(tool) + 1]
    return after in " ]:"
