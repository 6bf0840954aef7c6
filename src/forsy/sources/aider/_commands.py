"""The commands a user types at aider's prompt, as the chat history shows them: the ones whose
output is a call's result (`command`, `command_failed`, and before 0.64 `/run`'s question and
`/test`'s output written again: `RUN_ASKED`, `era`, `echoed`), and the ones whose request aider
writes again as an input of its own (`mode_command`, `passed_on`).
"""

from __future__ import annotations

import re

COMMANDS = frozenset({"/run", "/test", "/lint", "/git"})
# what aider writes when a command failed (commands.py cmd_run, run_cmd.py, base_coder.py):
# the command could not be run (run_cmd's OSError, for /run, /test and suggested commands)
# (and cmd_run's own handler before 0.54, run_cmd's from 0.54: `Error running command: <exception>`)
RUN_FAILED = re.compile(r"Error (?:occurred while )?running command(?: '|: )")
# /test (cmd_run with add_on_nonzero_exit): the output is added, with no question, only on a non-zero exit
ADDED = re.compile(r"Added \d+ lines? of output to the chat\.?\s*\Z")
ADD_ASKED = re.compile(r"Add .* of command output to the chat\?")
# /run before 0.64 (commands.py cmd_run up to commit 28be59582) asked whether to add the output to
# the chat, written as one aider message `<question> <answer>`: confirm_ask's `Add the output to the
# chat? y` (to 0.45), prompt_ask's `… (y/n/instructions): A` (0.46-0.48), `…?\n(y/n/instructions) A`
# (0.49-0.50), `(Y/n/instructions)` (0.51), `[Y/n/instructions]` (0.52-0.53) and, from commit
# eed7e0b65 (0.54-0.63), `…?\n(Y)es/(n)o/message with instructions: A` (group 2). An answer other
# than y/yes/n/no is the person's instructions, sent to the model with the output (group 3: A).
RUN_ASKED = re.compile(r"Add the output to the chat\?(?:( \(y/n/instructions\):|\n\([yY]/n/instructions\)|"
                       r"\n\[Y/n/instructions\])|(\n\(Y\)es/\(n\)o/message with instructions:))?(?: (.*))?\Z", re.S)
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


def run_asked(text: str) -> tuple[bool, str | None, tuple[int, int]] | None:
    """For /run's question before 0.64 (`RUN_ASKED`), with its answer: whether it is the 0.54-0.63
    form (the output written only after it), the person's instructions if the answer was some
    (else None), and where the answer is in the text; None for any other text."""
    m = RUN_ASKED.match(text)
    if m is None:
        return None
    answer = (m.group(3) or "").strip()
    # confirm_ask took no instructions; prompt_ask's empty answer (Enter) adds the output
    words = answer if (m.group(1) or m.group(2)) and answer.lower() not in ("", "y", "yes", "n", "no") else None
    return m.group(2) is not None, words, m.span(3)


def test_outcome(version: str | None, texts: list[str], then: bytes | None) -> tuple[int, bool] | None:
    """`/test`'s outcome in aider 0.22-0.63 from the messages written right after it (their texts),
    the first non-blank line after them (`then`) and the session's `Aider v<version>` line: (how
    many of the messages are the output, whether it failed); None when the version or the
    messages' shape does not say (R-call/aider-test-output).

    cmd_test runs cmd_run(add_on_nonzero_exit=True), which adds the output to the chat, writing
    each of its lines as a message, only on a non-zero exit. 0.22-0.53 first wrote the output
    whole, as one message (so the output written once passed; written again, line by line, it
    failed); commit eed7e0b65 (0.54) dropped that first write (so any output written failed;
    none written is a pass or a failure printing nothing). 0.53.1-dev holds that commit, and
    0.63.3.dev commit 28be59582 (the `Added N lines…` message after): their dev builds say nothing.
    A pass is read only when the next write is an input, a session or a Ctrl-C at the prompt (a
    passing /test asks the model nothing), or there is none: an output line ending with two
    spaces ends aider's message early, and the rest of the output then stands before it."""
    m = re.match(r"0\.(\d+)\.(\d+)(\S*)\Z", version or "")
    if m is None or not any(t.strip() for t in texts):
        return None
    minor, patch, dev = int(m.group(1)), int(m.group(2)), bool(m.group(3))
    if 54 <= minor <= 63 and not (dev and minor == 63 and patch >= 3):
        return len(texts), True
    if not 22 <= minor <= 53 or (dev and minor == 53 and patch >= 1):
        return None
    for k in range(1, len(texts)):
        again = [t.strip() for t in texts[k:]]
        if all("\n" not in t for t in again) and any(again) and \
                [ln.strip() for t in texts[:k] for ln in t.split("\n") if ln.strip()] == [t for t in again if t]:
            return k, True
    alone = then is None or then.startswith((b"#### ", b"# aider chat started at ", b"> ^C "))
    return (len(texts), False) if alone and sum(bool(t.strip()) for t in texts) == 1 else None
