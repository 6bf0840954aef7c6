"""What each agent's tools do, declared once.

Every stage that needs to know what a tool is (the segmenter's operation, the timeline's
shell commands and edited files, the artifacts, the card's tags) asks here instead of
keeping its own list of names. Each source declares its own table (`SOURCE_TOOLS`); a
tool name not in any table is `OTHER` with operation "other" (MCP tools included).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class ToolKind(StrEnum):
    READ = "read"  # reads a file or a process's output
    SEARCH = "search"  # searches files (glob, grep)
    WEB = "web"  # searches or fetches the web
    EDIT = "edit"  # writes or changes files (see `edit_form`)
    SHELL = "shell"  # runs a command line (see `ToolSpec.command`)
    PROCESS = "process"  # controls a running process (kill, write to its stdin)
    PLAN = "plan"  # updates the agent's plan or todo list
    DELEGATE = "delegate"  # starts or talks to a subagent
    ASK_USER = "ask_user"  # asks the user a question
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str  # exact tool name as the log writes it
    operation: str  # the trace format's operation (models.KNOWN_OPERATIONS)
    kind: ToolKind
    # EDIT tools: "file" when the arguments name the file (one of PATH_ARGS), "patch" when they
    # hold an apply_patch text naming the files, "changes" when they are a list of the files
    # changed (`{path, kind[, diff]}`: Codex exec's file_change item)
    edit_form: Literal["file", "patch", "changes"] | None = None


# the argument an edit of form "file" names its file by, in the order looked for: Claude Code's
# `file_path` / `notebook_path`, Gemini's and OpenHands' `path`, Cline's `path` (XML calls) and
# `absolutePath` (native calls), OpenCode's `filePath`
PATH_ARGS = ("file_path", "notebook_path", "path", "absolutePath", "filePath")


def _t(name: str, operation: str, kind: ToolKind, edit_form: Literal["file", "patch", "changes"] | None = None
       ) -> ToolSpec:
    return ToolSpec(name, operation, kind, edit_form)


K = ToolKind
CLAUDE_CODE_TOOLS: tuple[ToolSpec, ...] = (
    _t("Read", "read", K.READ), _t("NotebookRead", "read", K.READ), _t("LS", "read", K.READ),
    _t("Glob", "search", K.SEARCH), _t("Grep", "search", K.SEARCH),
    _t("WebSearch", "search", K.WEB), _t("WebFetch", "download", K.WEB),
    _t("Write", "write", K.EDIT, "file"), _t("Edit", "edit", K.EDIT, "file"),
    _t("MultiEdit", "edit", K.EDIT, "file"), _t("NotebookEdit", "edit", K.EDIT, "file"),
    _t("Bash", "execute", K.SHELL), _t("BashOutput", "read", K.READ), _t("TaskOutput", "read", K.READ),
    _t("KillShell", "execute", K.PROCESS), _t("KillBash", "execute", K.PROCESS),
    _t("TodoWrite", "plan", K.PLAN), _t("ExitPlanMode", "plan", K.PLAN), _t("EnterPlanMode", "plan", K.PLAN),
    _t("Task", "other", K.DELEGATE), _t("Agent", "other", K.DELEGATE),
    _t("AskUserQuestion", "ask_user", K.ASK_USER), _t("Skill", "other", K.OTHER),
    _t("SlashCommand", "other", K.OTHER),
    # 2.1.x (code.claude.com tools reference): PowerShell runs a command line as Bash does, and
    # Monitor runs one in the background; TaskStop stops a background task (KillShell's
    # successor); from 2.1.142 the task list is kept with TaskCreate/TaskUpdate (read with
    # TaskGet/TaskList) in place of TodoWrite; SendMessage talks to a teammate or a subagent
    _t("PowerShell", "execute", K.SHELL), _t("Monitor", "execute", K.SHELL),
    _t("TaskStop", "execute", K.PROCESS), _t("TaskCreate", "plan", K.PLAN), _t("TaskUpdate", "plan", K.PLAN),
    _t("TaskGet", "read", K.OTHER), _t("TaskList", "read", K.OTHER), _t("SendMessage", "other", K.DELEGATE),
    _t("ToolSearch", "search", K.OTHER), _t("LSP", "analyze", K.OTHER),
    # with a JSON schema (`--json-schema`), the final answer is this call's input
    _t("StructuredOutput", "answer", K.OTHER),
)  # fmt: skip
CODEX_TOOLS: tuple[ToolSpec, ...] = (
    _t("shell", "execute", K.SHELL), _t("local_shell", "execute", K.SHELL), _t("exec_command", "execute", K.SHELL),
    _t("container.exec", "execute", K.SHELL), _t("shell_command", "execute", K.SHELL),
    _t("write_stdin", "execute", K.PROCESS), _t("apply_patch", "edit", K.EDIT, "patch"),
    _t("update_plan", "plan", K.PLAN), _t("web_search", "search", K.WEB), _t("view_image", "read", K.READ),
    _t("spawn_agent", "other", K.DELEGATE), _t("wait_agent", "other", K.DELEGATE),
    _t("send_input", "other", K.DELEGATE), _t("resume_agent", "other", K.DELEGATE),
    # openai/codex: close_agent ends a subagent (multi_agents/close_agent.rs); request_user_input
    # asks the person (its function tool's own name); grep_files, list_dir and read_file are the
    # experimental file tools some models get (models' experimental_supported_tools)
    _t("close_agent", "other", K.DELEGATE), _t("request_user_input", "ask_user", K.ASK_USER),
    _t("grep_files", "search", K.SEARCH), _t("list_dir", "read", K.READ), _t("read_file", "read", K.READ),
)  # fmt: skip
GEMINI_TOOLS: tuple[ToolSpec, ...] = (
    _t("read_file", "read", K.READ), _t("read_many_files", "read", K.READ), _t("list_directory", "read", K.READ),
    _t("glob", "search", K.SEARCH), _t("search_file_content", "search", K.SEARCH),
    _t("google_web_search", "search", K.WEB), _t("web_fetch", "download", K.WEB),
    _t("write_file", "write", K.EDIT, "file"), _t("replace", "edit", K.EDIT, "file"),
    _t("run_shell_command", "execute", K.SHELL), _t("write_todos", "plan", K.PLAN),
    _t("save_memory", "other", K.OTHER), _t("delegate_to_agent", "other", K.DELEGATE),
    _t("activate_skill", "other", K.OTHER),
    # google-gemini/gemini-cli tools/definitions/base-declarations.ts and tool-names.ts:
    # search_file_content is now grep_search; the person is asked with ask_user; plan mode;
    # the task tracker keeps the plan (tracker_get_task/tracker_list_tasks read it)
    _t("grep_search", "search", K.SEARCH), _t("ask_user", "ask_user", K.ASK_USER),
    _t("enter_plan_mode", "plan", K.PLAN), _t("exit_plan_mode", "plan", K.PLAN),
    _t("tracker_create_task", "plan", K.PLAN), _t("tracker_update_task", "plan", K.PLAN),
    _t("tracker_add_dependency", "plan", K.PLAN), _t("tracker_get_task", "read", K.OTHER),
    _t("tracker_list_tasks", "read", K.OTHER), _t("get_internal_docs", "read", K.OTHER),
)  # fmt: skip
# QwenLM/qwen-code tools/tool-names.ts: Gemini CLI's tools under their names, and its own; the
# legacy names its ToolNamesMigration still maps (search_file_content, replace, task, todo_write)
# are in old sessions. task_* keep the task list (task_stop stops a background task, task_output
# reads one's output), agent runs a subagent, lsp asks a language server
QWEN_CODE_TOOLS: tuple[ToolSpec, ...] = (
    _t("read_file", "read", K.READ), _t("read_many_files", "read", K.READ), _t("list_directory", "read", K.READ),
    _t("glob", "search", K.SEARCH), _t("grep_search", "search", K.SEARCH),
    _t("search_file_content", "search", K.SEARCH), _t("web_search", "search", K.WEB),
    _t("web_fetch", "download", K.WEB), _t("write_file", "write", K.EDIT, "file"),
    _t("edit", "edit", K.EDIT, "file"), _t("replace", "edit", K.EDIT, "file"),
    _t("run_shell_command", "execute", K.SHELL), _t("save_memory", "other", K.OTHER),
    _t("exit_plan_mode", "plan", K.PLAN), _t("todo_write", "plan", K.PLAN),
    _t("task_create", "plan", K.PLAN), _t("task_update", "plan", K.PLAN), _t("task_get", "read", K.OTHER),
    _t("task_list", "read", K.OTHER), _t("task_stop", "execute", K.PROCESS), _t("task_output", "read", K.READ),
    _t("agent", "other", K.DELEGATE), _t("task", "other", K.DELEGATE), _t("skill", "other", K.OTHER),
    _t("lsp", "analyze", K.OTHER), _t("ask_user_question", "ask_user", K.ASK_USER),
)  # fmt: skip
# OpenHands: the tool of a step is the action type of the event (`run`, `edit`, ...)
OPENHANDS_TOOLS: tuple[ToolSpec, ...] = (
    _t("run", "execute", K.SHELL), _t("run_ipython", "execute", K.SHELL), _t("read", "read", K.READ),
    _t("edit", "edit", K.EDIT, "file"), _t("write", "write", K.EDIT, "file"), _t("browse", "download", K.WEB),
    _t("browse_interactive", "other", K.WEB), _t("delegate", "other", K.DELEGATE), _t("mcp", "other", K.OTHER),
    _t("task_tracking", "plan", K.PLAN),
    # the software-agent SDK (OpenHands V1): its tools' names (openhands-tools); the editor's
    # `command` says whether it viewed or changed the file, so it is not read as an edit here
    _t("execute_bash", "execute", K.SHELL), _t("terminal", "execute", K.SHELL),
    _t("str_replace_editor", "other", K.OTHER), _t("file_editor", "other", K.OTHER),
    _t("planning_file_editor", "other", K.OTHER), _t("task_tracker", "plan", K.PLAN),
    # (a tool's name is its class's, snake_case, less `_tool`: sdk/tool/tool.py) GrepTool, and
    # TaskTool, which runs a subagent (tools/task)
    _t("grep", "search", K.SEARCH), _t("task", "other", K.DELEGATE),
    # browser_use/definition.py: BrowserNavigateTool opens a page; the others act on it
    _t("browser_navigate", "download", K.WEB), _t("browser_click", "other", K.WEB),
    _t("browser_type", "other", K.WEB), _t("browser_get_state", "other", K.WEB),
    _t("browser_get_content", "other", K.WEB), _t("browser_scroll", "other", K.WEB),
    _t("browser_go_back", "other", K.WEB), _t("browser_list_tabs", "other", K.WEB),
    _t("browser_switch_tab", "other", K.WEB), _t("browser_close_tab", "other", K.WEB),
    _t("browser_get_storage", "other", K.WEB), _t("browser_set_storage", "other", K.WEB),
    # `codex exec --json` names what the agent did by its item's kind, not the tool it called
    _t("command_execution", "execute", K.SHELL), _t("file_change", "edit", K.EDIT, "changes"),
    _t("todo_list", "plan", K.PLAN),
)  # fmt: skip
CLINE_TOOLS: tuple[ToolSpec, ...] = (
    _t("read_file", "read", K.READ), _t("list_files", "read", K.READ), _t("search_files", "search", K.SEARCH),
    _t("list_code_definition_names", "search", K.SEARCH), _t("web_fetch", "download", K.WEB),
    _t("browser_action", "other", K.WEB), _t("write_to_file", "write", K.EDIT, "file"),
    _t("replace_in_file", "edit", K.EDIT, "file"), _t("execute_command", "execute", K.SHELL),
    _t("ask_followup_question", "ask_user", K.ASK_USER), _t("attempt_completion", "answer", K.OTHER),
    _t("plan_mode_respond", "plan", K.PLAN), _t("new_task", "other", K.DELEGATE),
    _t("use_mcp_tool", "other", K.OTHER), _t("access_mcp_resource", "other", K.OTHER),
    _t("load_mcp_documentation", "other", K.OTHER),
    # the SDK's tools (cline/cline sdk/packages/core/src/extensions/tools/definitions.ts at 21cb8d2);
    # its apply_patch and spawn_agent are Codex's names with the same meaning
    _t("read_files", "read", K.READ), _t("search_codebase", "search", K.SEARCH),
    _t("run_commands", "execute", K.SHELL), _t("fetch_web_content", "download", K.WEB),
    _t("editor", "edit", K.EDIT, "file"), _t("ask_question", "ask_user", K.ASK_USER),
    _t("submit_and_exit", "answer", K.OTHER), _t("skills", "other", K.OTHER),
)  # fmt: skip
# Aider: edits reconstructed from the reply's blocks (the arguments are the block's text); the
# commands the user ran through aider (`/run`, `!`, `/test`, `/lint`, `/git`); shell commands a reply suggested
AIDER_TOOLS: tuple[ToolSpec, ...] = (
    _t("search_replace", "edit", K.EDIT), _t("udiff", "edit", K.EDIT), _t("whole_file", "write", K.EDIT),
    _t("/run", "execute", K.SHELL), _t("/test", "execute", K.SHELL), _t("/lint", "execute", K.SHELL),
    _t("/git", "execute", K.SHELL), _t("shell", "execute", K.SHELL),
)  # fmt: skip
GIT_TOOLS: tuple[ToolSpec, ...] = (_t("git", "write", K.OTHER),)
# mini-swe-agent has one tool: a bash command (a tool call in 2.x, a fenced block in 1.x answers)
MINI_SWE_AGENT_TOOLS: tuple[ToolSpec, ...] = (_t("bash", "execute", K.SHELL),)
SHELL_HISTORY_TOOLS: tuple[ToolSpec, ...] = ()  # history commands are steps of tool "shell" (R-shell)
# OpenCode (anomalyco/opencode packages/opencode/src/tool/*.ts, registry.ts): its tools' ids, those
# of 2025 too (list, multiedit, patch, todoread, lsp_*, batch, plan_enter/plan_exit); edit, write,
# multiedit name the file `filePath`, patch and apply_patch take a `patchText`
OPENCODE_TOOLS: tuple[ToolSpec, ...] = (
    _t("bash", "execute", K.SHELL), _t("read", "read", K.READ), _t("list", "read", K.READ),
    _t("glob", "search", K.SEARCH), _t("grep", "search", K.SEARCH), _t("codesearch", "search", K.WEB),
    _t("websearch", "search", K.WEB), _t("webfetch", "download", K.WEB),
    _t("edit", "edit", K.EDIT, "file"), _t("multiedit", "edit", K.EDIT, "file"),
    _t("write", "write", K.EDIT, "file"), _t("patch", "edit", K.EDIT, "patch"),
    _t("apply_patch", "edit", K.EDIT, "patch"), _t("todowrite", "plan", K.PLAN), _t("todoread", "read", K.OTHER),
    _t("task", "other", K.DELEGATE), _t("question", "ask_user", K.ASK_USER), _t("skill", "other", K.OTHER),
    _t("lsp", "analyze", K.OTHER), _t("lsp_diagnostics", "analyze", K.OTHER), _t("lsp_hover", "analyze", K.OTHER),
    _t("batch", "other", K.OTHER), _t("invalid", "other", K.OTHER), _t("plan_enter", "plan", K.PLAN),
    _t("plan_exit", "plan", K.PLAN),
)  # fmt: skip
# Roo Code's and Kilo Code's own tools (RooCodeInc/Roo-Code packages/types/src/tool.ts toolNames, every
# version's to cb83656718); the ones Cline has are in CLINE_TOOLS, apply_patch, edit and skill elsewhere
ROO_CODE_TOOLS: tuple[ToolSpec, ...] = (
    _t("apply_diff", "edit", K.EDIT, "file"), _t("insert_content", "edit", K.EDIT, "file"),
    _t("search_and_replace", "edit", K.EDIT, "file"), _t("edit_file", "edit", K.EDIT, "file"),
    _t("append_to_file", "edit", K.EDIT, "file"), _t("insert_code_block", "edit", K.EDIT, "file"),
    _t("create_file", "write", K.EDIT, "file"), _t("generate_image", "write", K.EDIT, "file"),
    _t("search_replace", "edit", K.EDIT), _t("codebase_search", "search", K.SEARCH),
    _t("read_command_output", "read", K.READ), _t("fetch_instructions", "read", K.READ),
    _t("update_todo_list", "plan", K.PLAN), _t("switch_mode", "other", K.OTHER),
    _t("run_slash_command", "other", K.OTHER), _t("custom_tool", "other", K.OTHER),
)  # fmt: skip
# GitHub Copilot CLI (npm @github/copilot, its bundled tools read at 0.0.340-1.0.60): bash or
# powershell (`command`; read_/write_/stop_/list_ the shells an async call left running), the
# editor's tools (view, create with `file_text`, str_replace / edit / insert naming `path`; the
# combined str_replace_editor, whose `command` says which), apply_patch, subagents (task and the
# background agents' read_/write_/list_agents)
COPILOT_CLI_TOOLS: tuple[ToolSpec, ...] = (
    _t("bash", "execute", K.SHELL), _t("powershell", "execute", K.SHELL), _t("read_bash", "read", K.READ),
    _t("read_powershell", "read", K.READ), _t("write_bash", "execute", K.PROCESS),
    _t("write_powershell", "execute", K.PROCESS), _t("stop_bash", "execute", K.PROCESS),
    _t("stop_powershell", "execute", K.PROCESS), _t("list_bash", "read", K.OTHER),
    _t("list_powershell", "read", K.OTHER), _t("view", "read", K.READ), _t("show_file", "read", K.READ),
    _t("create", "write", K.EDIT, "file"), _t("str_replace", "edit", K.EDIT, "file"),
    _t("edit", "edit", K.EDIT, "file"), _t("insert", "edit", K.EDIT, "file"),
    _t("str_replace_editor", "other", K.OTHER), _t("apply_patch", "edit", K.EDIT, "patch"),
    _t("glob", "search", K.SEARCH), _t("grep", "search", K.SEARCH), _t("web_fetch", "download", K.WEB),
    _t("task", "other", K.DELEGATE), _t("read_agent", "read", K.DELEGATE), _t("write_agent", "other", K.DELEGATE),
    _t("list_agents", "read", K.OTHER), _t("report_intent", "other", K.OTHER), _t("update_todo", "plan", K.PLAN),
    _t("exit_plan_mode", "plan", K.PLAN), _t("ask_user", "ask_user", K.ASK_USER),
    _t("task_complete", "answer", K.OTHER), _t("store_memory", "other", K.OTHER), _t("sql", "other", K.OTHER),
    _t("skill", "other", K.OTHER), _t("fetch_copilot_cli_documentation", "read", K.OTHER),
)  # fmt: skip
# Goose (block/goose): every tool is an extension's, named `<extension>__<tool>`. The developer
# extension: shell (`command`), text_editor (`command` view / write / str_replace / insert /
# undo_edit says which: other), list_windows, screen_capture, image_processor (mcp_core era);
# file_write (`path`, `content`), file_edit (`path`, `before`, `after`), tree (rmcp era,
# goose-mcp developer/mod.rs). The platform's own (agents/platform_tools.rs).
GOOSE_TOOLS: tuple[ToolSpec, ...] = (
    _t("developer__shell", "execute", K.SHELL), _t("developer__text_editor", "other", K.OTHER),
    _t("developer__file_write", "write", K.EDIT, "file"), _t("developer__file_edit", "edit", K.EDIT, "file"),
    _t("developer__tree", "read", K.READ), _t("developer__list_windows", "read", K.OTHER),
    _t("developer__screen_capture", "read", K.READ), _t("developer__image_processor", "read", K.READ),
    _t("platform__read_resource", "read", K.READ), _t("platform__list_resources", "read", K.OTHER),
    _t("platform__search_available_extensions", "search", K.OTHER),
    _t("platform__manage_extensions", "other", K.OTHER), _t("platform__manage_schedule", "other", K.OTHER),
    _t("platform__search_messages", "search", K.OTHER), _t("platform__search_documents", "search", K.SEARCH),
)  # fmt: skip
# shell tools whose arguments are the command line itself, one string (Codex exec's command
# items: the argv joined as a shell would quote it), not an object holding it
COMMAND_LINE_ARGS = frozenset({"command_execution"})

SOURCE_TOOLS: dict[str, tuple[ToolSpec, ...]] = {
    "claude_code": CLAUDE_CODE_TOOLS,
    "codex": CODEX_TOOLS,
    "git": GIT_TOOLS,
    "shell": SHELL_HISTORY_TOOLS,
    "gemini": GEMINI_TOOLS,
    "qwen_code": QWEN_CODE_TOOLS,
    "openhands": OPENHANDS_TOOLS,
    "roo_code": ROO_CODE_TOOLS,
    "cline": CLINE_TOOLS,
    "aider": AIDER_TOOLS,
    "mini_swe_agent": MINI_SWE_AGENT_TOOLS,
    "opencode": OPENCODE_TOOLS,
    "copilot_cli": COPILOT_CLI_TOOLS,
    "goose": GOOSE_TOOLS,
}


def _index() -> dict[str, ToolSpec]:
    out: dict[str, ToolSpec] = {}
    for specs in SOURCE_TOOLS.values():
        for s in specs:
            if s.name in out and out[s.name] != s:
                raise ValueError(f"tool {s.name!r} is declared twice with different meanings")
            out[s.name] = s
    return out


TOOLS: dict[str, ToolSpec] = _index()


def spec(name: str | None) -> ToolSpec | None:
    return TOOLS.get(name) if name else None


def kind_of(name: str | None) -> ToolKind:
    s = spec(name)
    return s.kind if s else ToolKind.OTHER


def operation_for(name: str) -> str:
    """R-operation: the declared operation of a tool; "other" for tools no source declares."""
    s = TOOLS.get(name)
    return s.operation if s else "other"


def names_of(*kinds: ToolKind) -> frozenset[str]:
    return frozenset(n for n, s in TOOLS.items() if s.kind in kinds)
