"""The commands a user types at aider's prompt, as the chat history shows them: the ones whose
output is a call's result (`command`, `command_failed`), and the ones whose request aider writes
again as an input of its own (`mode_command`, `passed_on`).
"""

from __future__ import annotations

import re

COMMANDS = frozenset({"/run", "/test", "/lint", "/git"})
# what aider writes when a command failed (commands.py cmd_run, run_cmd.py, base_coder.py):
# the command could not be run (run_cmd's OSError, for /run, /test and suggested commands)
RUN_FAILED = re.compile(r"Error (?:occurred while )?running command '")
# /test (cmd_run with add_on_nonzero_exit): the output is added, with no question, only on a non-zero exit
ADDED = re.compile(r"Added \d+ lines? of output to the chat\.?\s*\Z")
ADD_ASKED = re.compile(r"Add .* of command output to the chat\?")
# /lint's report, sent to the model as the request, and its question after each file's errors
LINT_REPORT = "# Fix any errors below, if possible."
LINT_ASKED = "Fix lint errors in "
# `/ask X`, `/code X`, `/architect X`, `/context X` run a coder with X (commands.py
# _generic_chat_command: coder.run(args) → io.user_input), so aider writes X again as an input of
# its own; `/ok [X]` (0.86.3+) is `/code Ok, please go ahead and make those changes.[ X]`; `/help X`
# (cmd_help) writes the question with the documents it retrieved (help.py ask: `# Question: X` ...).
# Aider takes any prefix of a command's word that is no other command's: the shortest is given here.
MODE_COMMANDS = {"ask": 2, "architect": 2, "code": 3, "context": 3, "ok": 1, "help": 1}
OK_REQUEST = "Ok, please go ahead and make those changes."
HELP_REQUEST = "# Question:"


def norm(text: str) -> str:
    return "\n".join(ln.rstrip() for ln in text.split("\n") if ln.strip())


def command(text: str) -> tuple[str, int, str] | None:
    """(tool, where its argument starts, the argument) of a command input: `/run X`, `!X`..."""
    if text.startswith("!"):
        head, rest = "!", text[1:]
    else:
        head, sep, rest = text.partition(" ")
        if head not in COMMANDS:
            return None
        head, rest = head + sep, rest
    arg = rest.lstrip()
    return ("/run" if head == "!" else head.strip()), len(text) - len(arg), arg


def mode_command(text: str) -> tuple[str, str] | None:
    """(command, request) of an input `/ask X`, `/code X`, `/architect X`, `/context X`, `/help X`
    (X not blank) or `/ok [X]`, the command's word written whole or as a prefix aider takes."""
    word, _, rest = text.partition(" ")
    name = next((c for c, n in MODE_COMMANDS.items() if word[1:] and len(word) > n and c.startswith(word[1:])), None)
    if not word.startswith("/") or name is None:
        return None
    if name == "ok":
        return name, f"{OK_REQUEST} {rest.strip()}" if rest.strip() else OK_REQUEST
    return (name, rest) if rest.strip() else None


def passed_on(cmd: tuple[str, str] | None, text: str) -> str | None:
    """"command_request" when `text` is the request of the command input `cmd` written again by
    aider, "help_request" when it is /help's question with its documents, else None."""
    if cmd is None:
        return None
    name, rest = cmd
    if name == "help":
        if not text.startswith(HELP_REQUEST):
            return None
        return "help_request" if norm(text[len(HELP_REQUEST):].lstrip()).startswith(norm(rest.strip())) else None
    return "command_request" if norm(text.strip()) == norm(rest.strip()) else None


def command_failed(tool: str, texts: list[str]) -> bool:
    """Whether aider's output of a command the user ran (its messages' texts) says it failed: the
    command could not be run; `/test`'s output added with no question (only on a non-zero exit);
    `/lint`'s report."""
    if any(RUN_FAILED.match(t) for t in texts):
        return True
    if tool == "/test":
        return any(ADDED.match(t) for t in texts) and not any(ADD_ASKED.match(t) for t in texts)
    return tool == "/lint" and any(t.startswith((LINT_REPORT, LINT_ASKED)) for t in texts)
