"""Every named rule a derived (or specially copied) value can cite, defined once.

A rule id names *what* was done ("R-retry"); the numbers and names that vary from one use
to the next are its parameters ({"similarity": 93, "failed_step": 4}), kept apart in
provenance (`FieldProvenance.params`) so ids can be counted, documented and tested. Citing
an id that is not here is a bug (`check` raises), and docs/rules.md's rule table is
generated from this list (`markdown`) and tested against it.

Id prefixes: R- segmentation (steps and their fields), T- trace-level fields, A- artifacts,
M- model-proposed corrections, C- how a copied value sits in its record, G- how the timeline
ties a git commit to the log (the `match` of R-commit/match; forsy.rules.commits).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    summary: str
    params: tuple[str, ...] = ()


_RULES: tuple[Rule, ...] = (
    # -- how copied values sit in their record (forsy verify reads these)
    Rule("C-json-string", "The value is inside a JSON document held as a string: parse it, then follow `pointer`.",
         ("pointer",)),
    Rule("C-span", "The value is a slice of the cited text (it must occur in it)."),
    # -- segmentation
    Rule("R-user", "A message the user typed, copied as written."),
    Rule("R-user/slash-command", "A slash command, written as `/name args` from the command tags the log holds."),
    Rule("R-user/bash-input", "A `!command` the user ran through the agent, written as `!command`."),
    Rule("R-first-request", "The first user message of a session is its direct request."),
    Rule("R-interrupt/R-rewind", "The user interrupted the agent or rewound the conversation before this message."),
    Rule("R-abandoned", "The record is on a branch the user rewound away from: kept and flagged."),
    Rule("R-error", "An API error or a failed call: the step failed."),
    Rule("R-error/rejected", "The user rejected the tool call."),
    Rule("R-call/name", "The tool name, from the call record."),
    Rule("R-call/json", "The call's arguments as canonical JSON text."),
    Rule("R-call/user-edited", "The log says the user changed the proposed call before accepting it (Gemini CLI: "
         "`modified_by_user` in the arguments, the model's proposal kept as `ai_proposed_content`): the input's source "
         "is the user."),
    Rule("R-call/user-modified", "Claude Code: the tool's result says the user changed the model's proposed edit "
         "before accepting it (`toolUseResult.userModified`): the input stays the model's proposal, as the call logged "
         "it; what was written is the user's version, which the result's `structuredPatch` states (the artifact's "
         "diff)."),
    Rule("R-call/error-flag", "Success is the inverse of the result's error flag (a rejected call failed); "
                              "null when the log records neither an error flag nor an exit code."),
    Rule("R-call/server-tool-error", "Claude Code: the result of a tool the model's provider ran (a `*_tool_result` "
         "block in the assistant message: web search, web fetch, code execution, the advisor…) holds an error object "
         "(its `type` ends in `_error`, as `advisor_tool_result_error`): the call failed, citing the error's "
         "`error_code` (else its `type`)."),
    Rule("R-call/claude-denied", "Claude Code: the result's record names a `toolDenialKind` (the print-mode "
         "stream: its `tool_result_meta` entry's `non_execution_kind`) other than `user-rejected` (a deny rule or "
         "a hook's deny: `permission-rule`; the auto-mode classifier: `automode-blocked`, `automode-unavailable`; an "
         "interrupt or a cancel: `interrupted`, `cancelled`; a kind forsy does not know), or `user-rejected` with "
         "none of the words of a person's rejection (a `toolUseResult` 'User rejected…', a result opening 'The "
         "user doesn't want to proceed with this tool use'; print mode writes it when no one could be asked): the "
         "call was denied and failed, citing the kind; it is not the user's rejection (R-error/rejected), "
         "whatever the result's words."),
    Rule("R-call/codex-failure-text", "Codex: the output is one of Codex's own failure messages that carry no "
         "success flag (a sandbox denial, 'failed in sandbox', 'exec_command failed for', the unified exec handler's "
         "'exec_command failed:', 'write_stdin failed:' and 'failed to parse exec_command|write_stdin arguments', "
         "an apply_patch parse or match error): the call failed; an exit code the message states is read from it."),
    Rule("R-call/codex-exit-by-poll", "Codex: an exec_command whose output said its process was still running "
         "('Process running with session ID N') and that states no exit code of its own (no exit header, no "
         "exec_command_end in the log) takes the one a later write_stdin to that session states ('Process exited "
         "with code N': unified exec's answer to the call that finds the process gone): success is that code being "
         "0, citing the poll's output. No poll states one: success stays null."),
    Rule("R-call/gemini-exit-code", "Gemini CLI: the shell tool's output states 'Exit Code: N' with N other than 0 "
         "(the CLI writes the line only then, except from July 2025 to January 2026, when it wrote 'Exit Code: 0' "
         "on success too), or, in the headless stream, which carries what the CLI showed, is 'Command exited with "
         "code: N' (shown for a command that printed nothing): the call failed, whatever its status."),
    Rule("R-call/gemini-stopped", "Gemini CLI: the shell tool's result opens with the CLI's words for a command it "
         "stopped (its timeout exceeded, or cancelled by the user before it could complete): the call failed, "
         "whatever its status."),
    Rule("R-call/gemini-subagent-failed", "Gemini CLI: a subagent call's result opens with the CLI's words for a "
         "run that did not complete its task: 'Subagent '<name>' failed. Error: …' (the run threw; written as a "
         "success with no error, on purpose), or 'Subagent '<name>' finished.' (the browser agent's 'Browser agent "
         "finished.') then 'Termination Reason: R' with R other than GOAL (MAX_TURNS, TIMEOUT, ERROR, "
         "ERROR_NO_COMPLETE_TASK_CALL: stopped early); <name> is the agent the call ran (the tool's name or its "
         "agent_name argument): the call failed, whatever its status."),
    Rule("R-call/qwen-shell-stopped", "Qwen Code: the shell tool's result opens with 'Command timed out after Nms "
         "before it could complete.' (its words for a command it stopped; a user's cancel is Gemini CLI's words, "
         "R-call/gemini-stopped): the call failed, whatever its status."),
    Rule("R-call/qwen-shell-signal", "Qwen Code: the shell tool's result states no exit code but 'Signal: N' (the "
         "command was killed by a signal): the call failed, whatever its status."),
    Rule("R-call/copilot-exit-code", "GitHub Copilot CLI: a bash or powershell call's result ends with the tool's "
         "'<exited with exit code N>' (0.0.3xx-1.0.x) or '<shellId: X completed with exit code N>' (1.0.5x on) with N "
         "other than 0: the call failed, whatever its success flag (the CLI reports success whenever the command "
         "ran)."),
    Rule("R-call/goose-declined", "Goose: a tool call's result is Goose's words for a call the person declined "
         "('The user has declined to run this tool.', given to the model as a success): the call was refused and "
         "failed."),
    Rule("R-cause/exec-session", "Codex: a write_stdin call (its chars, or none: a poll) names the session_id of a "
         "process an earlier exec_command's output said was still running ('Process running with session ID N'): "
         "its step is caused by that call's step (dependency_on_tool_result), not by the results just before it."),
    Rule("R-call/cline-failure-text", "Cline: the result is one of Cline's own failure messages (a command's "
         "'Command failed with exit code N.' or 'Command terminated by signal', 'The tool execution failed with the "
         "following error:', a missing parameter, a .clineignore or command-permission block, a SEARCH block that "
         "did not match, 'Tool [X] was not executed because a tool has already been used in this message.'): the "
         "call failed."),
    Rule("R-call/cline-xml", "Cline before native tool calls: the model wrote the call as XML in its text "
         "(`<read_file>\\n<path>a.ts</path>\\n</read_file>`), and characters [`span_start`, `span_end`) of the "
         "cited text are that XML. The tool is the opening tag's name and the input its parameters, each the text "
         "between `<param>` and the first `</param>`, trimmed (write_to_file's `content`: to the last "
         "`</content>`), read as Cline's parser read them, for the tool and parameter names Cline knew; a call "
         "whose closing tag never came keeps what was written (Cline ran it so). The `[tool for '...'] Result:` "
         "blocks of the next user message answer these calls in order.", ("span_start", "span_end")),
    Rule("R-call/roo-failure-text", "Roo Code: the result is one of Roo Code's own failure messages ('The tool "
         "execution failed with the following error:' or a native result's JSON of status 'error', a missing "
         "parameter, a .rooignore block, a call not run ('Tool [X] was not executed…', 'This tool was not executed "
         "because new_task was called…'), a command whose status line says 'Exit code: N' with N other than 0 or "
         "'Process terminated by signal'): the call failed; 'Exit code: 0' is a success, an unknown exit code (or a "
         "command still running) leaves success unknown."),
    Rule("R-call/roo-xml", "Roo Code before native tool calls (until January 2026): the model wrote the call as XML "
         "in its text, and characters [`span_start`, `span_end`) of the cited text are that XML, read as "
         "R-call/cline-xml reads Cline's, for the tool and parameter names Roo Code's parser knew; a `content` value "
         "loses one line break at either end instead of being trimmed. The next user message's `[tool …] Result:` "
         "block and the block after it answer these calls in order.", ("span_start", "span_end")),
    Rule("R-call/mini-returncode", "mini-swe-agent 1.x: the answer starts with '<returncode>N</returncode>' (as its "
         "default observation template writes it) with N other than 0: the call failed; N is the exit code."),
    Rule("R-call/mini-timeout", "mini-swe-agent 1.x: the answer starts with the fixed text of the trajectory's own "
         "timeout_template: the command timed out and was killed (the call failed)."),
    Rule("R-call/mini-submitted", "mini-swe-agent 2.x: an `exit` message with exit_status 'Submitted' follows the "
         "answer that held the call (the environment raises Submitted, before it records the output, only for a "
         "command that exited 0 and whose output opens with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT), and the call is "
         "that answer's one command without a result, or the first whose result is the interactive agent's "
         "placeholder ('action was not executed', returncode -1, written for each command it did not record): the "
         "call ran and succeeded, and its result is the exit message, whose content is the submission (the output "
         "after that line). The placeholder is set aside."),
    Rule("R-call/aider-test-output", "Aider 0.22-0.63 (the session's `Aider v…` line): `/test` adds the command's "
         "output to the chat, writing each line of it, only on a non-zero exit (commands.py cmd_run with "
         "add_on_nonzero_exit): the output written again line by line after it was written whole (0.22-0.53), or "
         "written at all (0.54-0.63), is a failure; written whole and only once (0.22-0.53), a success. A dev build "
         "made across either change (0.53.1-dev, 0.63.3.dev) says neither."),
    Rule("R-operation", "The operation the tool's source declares for it (forsy.tools); 'other' when undeclared."),
    Rule("R-compaction", "The context was compacted: a step that carries the summary the model got."),
    Rule("R-shell", "A command from a shell history is one execute step of tool `shell`."),
    Rule("R-shell/decoded", "The command's text was decoded from its bytes as `decoding` says.", ("decoding",)),
    Rule("R-output/rendered", "The output's text was rendered from the cited records as `decoding` says (a "
         "terminal's escape sequences and overwrites applied): what the screen showed, not a byte copy of the records.",
         ("decoding",)),
    Rule("R-shell/exit-code", "Success is exit status 0, from the history's own record."),
    Rule("R-commit", "A git commit is one write step of tool `git`."),
    Rule("R-commit/show", "The output is the commit's `git show` header and message."),
    Rule("R-commit/match", "The commit was attributed to an agent call by the timeline rule `match` with `score`.",
         ("match", "score")),
    Rule("R-commit/named", "The commit was attributed by the timeline rule `match` with `score` to the call whose "
         "result names it: characters [`span_start`, `span_end`) of the text at `pointer` in record `named_in` (a "
         "string, or its text blocks joined by newlines; a Codex output held as a JSON string: the `matches` entry's "
         "`named_by.inner_pointer` inside it) are the name, e.g. `[branch sha] subject`.",
         ("match", "score", "named_in", "pointer", "span_start", "span_end")),
    Rule("R-commit/branches", "The state change names the branches whose history holds the commit, as git reported "
         "them when the repository was read (local and remote-tracking branches, and `HEAD` when detached, each walked "
         "with `git rev-list`; the first 10 by name, the rest counted: all are in "
         "`agent_config.timeline.commit_branches` and a matched commit's `matches` entry); \"on no branch\" when "
         "only a reflog holds it (amended or rebased away)."),
    Rule("R-commit/amend", "The call whose `git commit --amend` replaced the commit `amended` (now `amended_as`; "
         "G-amend) redoes step `amended_step`, whose call made it: `retry_of` that step, added to `caused_by`.",
         ("amended_step", "amended", "amended_as")),
    Rule("R-reasoning", "The agent's reasoning text before the action, copied."),
    Rule("R-reasoning/joined", "Several reasoning texts before the action, joined by newlines."),
    Rule("R-answer", "The agent's visible answer, copied."),
    Rule("R-answer/joined", "Several answer texts of one turn, joined by newlines."),
    Rule("R-text/deltas", "The agent's text came in pieces as it streamed, each its own record (Gemini CLI's "
         "headless stream: assistant `message` events with `delta: true`): the pieces with no other event between "
         "them are one text, their contents joined in order with nothing between them; each piece is cited."),
    Rule("R-answer/thinking-only", "A turn with reasoning and no visible answer is an analyze step."),
    Rule("R-cause/user", "An agent step is caused by the user message that started its turn."),
    Rule("R-cause/results", "An agent step is caused by the tool results it read."),
    Rule("R-cause/branch", "An agent step that goes on after a run of steps on an abandoned branch (the "
         "conversation went back before them) is caused by its turn's user message, not by their results."),
    Rule("R-cause/delegation", "A subagent's first step is caused by the call that spawned it."),
    Rule("R-cause/hook", "An action that follows a hook's intervention is caused by it (and, for the turn's "
         "first action, by the user message)."),
    Rule("R-hook", "A hook's intervention (a Stop hook's feedback, context a hook added) is a `system:hook` step "
         "whose output is the text the agent was given, caused by the step before; answers are not joined across it."),
    Rule("R-user/context", "The context a client wrapped the user's words in (IDE setup, open tabs, files mentioned) "
         "is a `system:ide` step after the user message; its output is the other slice of the same text."),
    Rule("R-turn/unlogged", "A turn the log marks without holding its request (Codex exec's `turn.started`: the "
         "prompt was given on the command line): the agent's text pending there is its answer, as at a user "
         "message, and the steps after it are the next turn's."),
    Rule("R-retry", "A call repeats a failed call (same tool, similar input) within the retry window, and no "
         "attempt like it since succeeded; a call writing to a running process (Codex's write_stdin) repeats only "
         "one written to the same process.",
         ("similarity", "failed_step")),
    Rule("R-time", "The timestamp of the record the step comes from."),
    Rule("R-parallel", "Calls issued in one model message run in parallel (one group)."),
    Rule("R-parallel/serial", "One call per model message: the step ran serially."),
    # -- trace-level fields
    Rule("T-id", "The trace id: a hash of the source kind, the session id and the sha256 of every source."),
    Rule("T-times", "started_at / ended_at: the earliest and latest step times, compared as times."),
    Rule("T-times/header", "No step has a time: started_at is copied from the log's header (old Codex rollouts)."),
    Rule("T-task/delegated", "A subagent's thread read alone (a Codex review, a subagent's own file): no user "
         "message; the task is the instructions it was started with, copied from the note that holds them."),
    Rule("T-task/no-user-message", "No user message: the task says what evidence the work was recorded in."),
    Rule("T-tools/listed", "The tools the log lists as available."),
    Rule("T-tools/used-only", "The log does not list available tools: the tools the steps used."),
    Rule("T-config", "agent_config: values copied from the session's records (model, version, cwd, …)."),
    Rule("T-card", "The dataset card's title and description, written by rule from counts."),
    Rule("T-confidence", "summary.agent_confidence from score.confidence; factors in the manifest."),
    Rule("T-termination/declared", "The log states how the session ended, in its own words mapped by its source "
         "(mini-swe-agent's exit_status: Submitted is task_complete, TimeExceeded is timeout; Claude Code's "
         "print-mode result: a turn or budget limit reached is partial_then_stopped, an error during execution "
         "error_unrecoverable, a cancelled turn user_abandoned; Gemini CLI's headless stream: a result of status "
         "error is error_unrecoverable, but a turn limit (FatalTurnLimitedError) partial_then_stopped and a "
         "cancelled run (FatalCancellationError) user_abandoned; a run the CLI stopped with 'Loop detected, stopping "
         "execution' or 'Maximum session turns exceeded' and then ended as a success, partial_then_stopped; Codex "
         "exec's stream: a last turn that failed, `turn.failed`, is error_unrecoverable)."),
    Rule("T-termination/answer", "The session ends on an answer: task complete."),
    Rule("T-final/answer-call", "final_output is the answer the agent gave by a tool call (attempt_completion's "
         "`result`, submit_and_exit's `summary`), copied from the call's arguments, when it is the last answer (a "
         "call the model wrote in its text, R-call/cline-xml: a slice of that text, C-span)."),
    Rule("T-final/structured-output", "final_output is the object a call made to answer in a schema's shape "
         "(Claude Code's StructuredOutput, with --json-schema) holds, its whole input as canonical JSON text "
         "(R-call/json), when it is the last answer."),
    Rule("T-final/submission", "final_output is the work the run submitted: the result of the call the harness "
         "ended the run on as a submission (R-call/mini-submitted: mini-swe-agent's exit message, for a SWE-bench "
         "run the patch), copied from where that result is, when no answer follows it; not an empty one."),
    Rule("T-termination/answer-call", "The session ends on the tool call by which the agent gives its answer "
         "(attempt_completion, submit_and_exit): task complete."),
    Rule("T-termination/none", "The session has no agent step at the end to judge from."),
    Rule("T-termination/interrupt", "The user interrupted the last step."),
    Rule("T-termination/no-result", "The last call has no result: partial, then stopped."),
    Rule("T-termination/rejected", "The user rejected the last call."),
    Rule("T-termination/api-error", "The session ends on an API error."),
    Rule("T-termination/other", "None of the above."),
    # -- artifacts
    Rule("A-write", "A successful whole-file write: the file was created or overwritten with the content."),
    Rule("A-edit", "A successful edit: the file was modified; the diff from the tool's patch, else the change as "
         "the call's arguments give it (Cline's SEARCH/REPLACE blocks)."),
    Rule("A-patch", "An apply_patch: the files its patch names, each with its section."),
    Rule("A-changes", "A call's list of the files it changed (Codex exec's file_change): each file created, "
         "modified or deleted as its kind says, with its diff when the log gives one."),
    Rule("A-commit", "A commit's files, with the status git gives."),
    Rule("A-persisted", "A tool output the agent saw only a preview of, saved in full by the agent."),
    # -- git commits on the agent's timeline (forsy.rules.commits)
    Rule("G-named-commit", "A result names the commit its command made (`[branch sha] subject`, Aider's `Commit sha "
         "subject`): that commit, the sha resolved in the repository, is the call's (score 1)."),
    Rule("G-named-mention", "A result names a commit it did not make (`HEAD is now at sha`, a push's `old..new`): "
         "recorded in `named_commits`, never attributed to the call."),
    Rule("G-named-pull-request", "`gh pr merge` names pull request #N: the window's one commit of that pull request "
         "(subject ending `(#N)`, or `Merge pull request #N`) is the call's (score 0.95)."),
    Rule("G-named-rewritten", "A named commit the repository lacks (a warning says so) is linked to the one window "
         "commit with its subject authored before the log named it: \"rebased as\" (score 0.7, uncertain)."),
    Rule("G-amend", "`git commit --amend` names a new commit: it replaces the earlier named commit of its branch "
         "on the timeline; both records link each other."),
    Rule("G-squash", "A commit whose patch id equals that of an agent's branch since it left the commit's parent "
         "squashes those commits: linked to all of them."),
    Rule("G-refuse", "A time or edited-files match the log contradicts (the call's result names other commits, its "
         "message another subject, or the edits were already committed) is refused."),
    # -- model corrections (the optional LLM pass)
    Rule("M-correction", "The user message of step `user_step` corrects an earlier step (model-proposed, "
         "citations checked): directive, eval −1, success false, and the cause link.", ("user_step",)),
)

CATALOGUE: dict[str, Rule] = {r.id: r for r in _RULES}


# rules cited with no parameters, the common case, checked by one look-up (tens of thousands
# of times per large log)
_PLAIN = frozenset(r.id for r in _RULES if not r.params)


def check(rule_id: str, params: Mapping[str, object] | None = None) -> None:
    """A rule cited in provenance must be in the catalogue, with exactly its declared parameters.
    Several rules behind one value are joined with '+' (an artifact written, then edited)."""
    if not params and rule_id in _PLAIN:
        return
    parts = rule_id.split("+")
    declared: set[str] = set()
    for part in parts:
        r = CATALOGUE.get(part)
        if r is None:
            raise KeyError(f"rule {part!r} is not in forsy.rules.catalogue")
        declared.update(r.params)
    if set(params or {}) != declared:
        raise KeyError(f"rule {rule_id!r} takes parameters {sorted(declared)}, got {sorted(params or {})}")


def markdown() -> str:
    """The rule table of docs/rules.md (between its `rule-catalogue` markers)."""
    lines = ["| rule | parameters | what it says |", "|---|---|---|"]
    for r in _RULES:
        params = ", ".join(f"`{p}`" for p in r.params)
        lines.append(f"| `{r.id}` | {params} | {r.summary} |")
    return "\n".join(lines) + "\n"


START, END = "<!-- rule-catalogue:start -->", "<!-- rule-catalogue:end -->"


def with_table(doc: str) -> str:
    """`doc` (docs/rules.md) with the generated table between its markers."""
    a, b = doc.index(START) + len(START), doc.index(END)
    return doc[:a] + "\n" + markdown() + doc[b:]


if __name__ == "__main__":  # python -m forsy.rules.catalogue docs/rules.md: regenerate the table
    import sys
    from pathlib import Path

    target = Path(sys.argv[1])
    target.write_text(with_table(target.read_text("utf-8")), "utf-8")
