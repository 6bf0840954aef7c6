"""A recording's events → the commands typed at a shell prompt, each with the output after it.

The rule (docs/sources.md, "asciinema recordings"):

* Prompt: after each output (`o`) event, the line in progress on the terminal (escapes
  removed, overwrites applied: `_term.Screen`) is a prompt when the whole of it matches
  `PROMPT`: `user@host:path$ `, `user@host path % `, `[user@host dir]$ `, `bash-5.2$ `,
  `~/dir$ `, `/app# `, oh-my-zsh's `➜  dir git:(main) ✗ `, PowerShell's `PS C:\\dir> `,
  or a bare `$ `, `# `, `% `, `❯ `, each optionally after a `(venv) ` and ending in a
  blank. A continuation prompt (`> `) is not one. A bare one drawn while a command runs,
  when the shell's prompt was a fuller one, is that program's output (a script echoing
  `$ cmd` in colour), not the shell's next prompt.
* Command: the line at the prompt ends (the terminal shows a newline). Its text is what was
  typed: the input (`i`) events since the prompt, up to the first Enter (`\\r`), when they
  hold only printable keys and newlines; else (no input recorded, or keys the shell's line
  editor interprets: arrows, Tab, backspace) what the terminal showed after the prompt.
  An empty line runs nothing (counted, set aside).
* Output: everything the terminal showed after the command's line until the next prompt
  (that prompt not included), except the later lines of a multi-line typed command echoed
  after the continuation prompt (`> ` + the line). The recording ending first leaves the
  command unfinished.
* A recording of one program (`asciinema rec -c CMD`: the header's `command` is not an
  interactive shell, tmux or screen; `bash -c ...` is one program) is one command: the
  header's command, with all the output.

Input events while a command runs went to that program (an answer, Ctrl-D): read, marked as
metadata, not commands. Every event is either cited by a command or marked (`Marks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...evidence import LedgerHeading, Ref
from ._cast import Cast, CastEvent
from ._term import Screen, typed_text

PROMPT = re.compile(
    r"(?:\([^()\s]{1,60}\) )?"  # (venv)
    r"(?:"
    r"[\w.-]+@[\w.-]+(?:[: ][^\s]*)? ?[$#%]"  # user@host:path$  user@host path %
    r"|\[[\w.-]+@[\w.-]+[^\]]*\] ?[$#%]"  # [user@host dir]$
    r"|[\w.-]+-\d[\w.]*[$#]"  # bash-5.2$
    r"|[~/][^\s]* ?[$#%❯]"  # ~/src$  /app#
    r"|[$#%❯]"  # bare
    r"|➜ +\S+(?: git:\(\S+\))?(?: ✗)?"  # oh-my-zsh's default theme: ➜  proj git:(main) ✗
    r"|PS [A-Za-z]:\\[^>]*>"  # PowerShell: PS C:\Users\me>
    r") "
)
BARE = re.compile(r"(?:\([^()\s]{1,60}\) )?[$#%❯] ")  # a prompt of its sign alone
MAX_PROMPT = 400  # a longer line in progress is not checked (keeps the cost linear)
SHELLS = frozenset({"sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "tcsh", "csh", "ash", "nu", "pwsh", "xonsh"})


@dataclass(slots=True)
class Command:
    text: str
    refs: list[Ref]  # where the text was read (one ref + `span` when it is a slice of it)
    span: tuple[int, int] | None
    typed: bool  # from the input events (else from the echo, or the header)
    start: float  # when it was entered (seconds into the recording)
    prompt: str
    lines: list[str] = field(default_factory=list)  # the output, line by line
    out_refs: list[Ref] = field(default_factory=list)
    end: float | None = None  # when the next prompt appeared
    finished: bool = False
    exit_code: int | None = None  # only a one-program recording's `x` event says it
    exit_ref: Ref | None = None
    rebuilt: bool = False  # the text is the echo with the line editing applied, no event's slice

    def output(self) -> str:
        return "\n".join(self.lines)


@dataclass(slots=True)
class Marks:
    """Why each event no command cites was read: evidence id → (heading, rule name)."""

    by_id: dict[str, tuple[LedgerHeading, str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def mark(self, ev: CastEvent, heading: LedgerHeading, name: str, count: str | None = None) -> None:
        self.by_id[ev.ev.id] = (heading, name)
        if count:
            self.counts[count] = self.counts.get(count, 0) + 1


def one_program(cast: Cast) -> str | None:
    """The header's command when the recording is of one program, not of a shell."""
    cmd = cast.header.get("command")
    if not isinstance(cmd, str) or not cmd.strip():
        return None
    words = cmd.split()
    first = words[0].rsplit("/", 1)[-1]
    if first in ("tmux", "screen") or (first in SHELLS and "-c" not in words):
        return None  # an interactive shell: its commands are found from the prompt
    return cmd


class Reader:
    """Walks the events once (module docstring)."""

    def __init__(self, cast: Cast) -> None:
        self.cast = cast
        self.screen = Screen()
        self.commands: list[Command] = []
        self.marks = Marks()
        self.state = "before"  # "before" the first prompt, at a "prompt", or "running" a command
        self.cur: Command | None = None  # the command running (None: an empty line's aftermath)
        self.prompt = ""
        self.keys: list[CastEvent] = []  # input events at this prompt
        self.echo: list[CastEvent] = []  # output events at this prompt
        self.prompts = 0
        self.cont: list[str] = []  # continuation lines of a multi-line typed command, not yet echoed

    def run(self) -> list[Command]:
        program = one_program(self.cast)
        if program is not None:
            hev = self.cast.header_ev
            self.cur = Command(program, [Ref(hev.id, "/command")], None, False, 0.0, "")
            self.commands.append(self.cur)
            self.state = "program"
        for e in self.cast.events:
            handler = {"o": self._output, "i": self._input, "r": self._resize, "m": self._marker,
                       "x": self._exit}.get(e.code)
            if handler is not None:
                handler(e)
        self._finish()
        return self.commands

    # --- events ------------------------------------------------------------------------------
    def _output(self, e: CastEvent) -> None:
        self.screen.write(e.data)
        done = self.screen.take()
        if self.state == "prompt":
            self.echo.append(e)
            if not done:
                return  # still typing: the line in progress is the prompt and the keys echoed
            self._enter(done[0], e)
            # an empty or cancelled line's own event keeps `_enter`'s mark, the next prompt drawn
            # in it too: only output after the line's end is marked as such
            if self.cur is not None or done[1:] or (self.screen.line and not self._at_prompt()):
                self._out(e, done[1:])
        elif self.state == "before":
            self.marks.mark(e, "set_aside", "terminal output before the first prompt (no command)")
        else:
            self._out(e, done)
        if self.state != "program" and self._at_prompt() and not self._program_prompt():
            if not done:  # an event that only drew the prompt: not the command's output
                self._unout(e)
                self.marks.mark(e, "metadata", "the shell prompt")
            self._new_prompt(e)

    def _input(self, e: CastEvent) -> None:
        if self.state == "prompt":
            self.keys.append(e)
        elif self.state == "before":
            self.marks.mark(e, "set_aside", "input before the first prompt", "input_before_prompt")
        else:
            self.marks.mark(e, "metadata", "input typed to the running program", "stdin_inputs")

    def _resize(self, e: CastEvent) -> None:
        self.marks.mark(e, "metadata", "terminal resized (r event)", "resizes")

    def _marker(self, e: CastEvent) -> None:
        self.marks.mark(e, "metadata", "marker (m event)", "markers")

    def _exit(self, e: CastEvent) -> None:
        self.marks.mark(e, "metadata", "exit status of the recorded process (x event)")
        if self.state == "program" and self.cur is not None and e.data.strip().lstrip("-").isdigit():
            self.cur.exit_code, self.cur.exit_ref = int(e.data.strip()), Ref(e.ev.id, "/2")

    # --- prompts and commands ----------------------------------------------------------------
    def _at_prompt(self) -> bool:
        line = self.screen.line
        if not line or len(line) > MAX_PROMPT:
            return False
        return PROMPT.fullmatch("".join(line)) is not None

    def _program_prompt(self) -> bool:
        """A bare `$ ` (`# `, `% `, `❯ `) drawn while a command runs, after the shell's own
        prompt was a fuller one: the program printed it (a demo script showing what it runs),
        it is not the shell asking for the next command."""
        if self.state != "running" or not self.prompt:
            return False
        bare = BARE.fullmatch("".join(self.screen.line)) is not None
        return bare and BARE.fullmatch(self.prompt) is None

    def _new_prompt(self, e: CastEvent) -> None:
        if self.cur is not None and self.state == "running":
            self.cur.end, self.cur.finished = e.t, True
        self.state, self.cur = "prompt", None
        self.prompt = "".join(self.screen.line)
        self.keys, self.echo = [], []
        self.prompts += 1

    def _enter(self, line: str, e: CastEvent) -> None:
        """The line at the prompt ended: a command (or an empty line) was entered."""
        echo = self._echo_text(line)
        keys = "".join(k.data for k in self.keys)
        typed = keys.split("\r", 1)[0] if "\r" in keys else keys
        plain = bool(typed) and typed_text(typed) == typed
        text = typed if plain else echo
        sources = self.keys if plain else self.echo
        for ev in (*self.keys, *self.echo):
            kind = "typed keys" if ev.code == "i" else "echo of the typed command"
            self.marks.mark(ev, "metadata", kind)
        cancelled = not plain and text.rstrip().endswith("^C")
        if not text.strip() or cancelled:
            # an empty line runs nothing; a line ended by Ctrl-C (the shell shows ^C) is not run
            why, count = ("a line cancelled with Ctrl-C ran nothing", "cancelled_lines") if cancelled else \
                ("empty command lines ran nothing", "empty_commands")
            for ev in (*self.keys, *self.echo):
                self.marks.mark(ev, "set_aside", why)
            self.marks.counts[count] = self.marks.counts.get(count, 0) + 1
            self.state, self.cur = "running", None
            return
        refs, span = _cite(text, sources)
        t = next((k.t for k in self.keys if "\r" in k.data), e.t) if plain else e.t
        self.cur = Command(text, refs, span, plain, t, self.prompt.rstrip(), rebuilt=span is None and not plain)
        self.commands.append(self.cur)
        self.cont = text.split("\n")[1:] if plain else []
        self.state = "running"

    def _echo_text(self, line: str) -> str:
        if line.startswith(self.prompt):
            return line[len(self.prompt) :]
        if line == self.prompt.rstrip():
            return ""
        m = PROMPT.match(line)  # the prompt was redrawn differently: cut any prompt-shaped start
        return line[m.end() :] if m else line

    def _out(self, e: CastEvent, lines: list[str]) -> None:
        if self.cur is None:  # after an empty line (the shell's "exit" on Ctrl-D...)
            self.marks.mark(e, "set_aside", "output after an empty command line")
            return
        if self.cont:
            lines = self._uncontinued(lines)
        self.cur.lines.extend(lines)
        if not self.cur.out_refs or self.cur.out_refs[-1].ev != e.ev.id:
            self.cur.out_refs.append(Ref(e.ev.id, "/2"))

    def _uncontinued(self, lines: list[str]) -> list[str]:
        """A multi-line command's later lines, echoed after the shell's continuation prompt
        (`> `), are the command, not its output."""
        kept = []
        for ln in lines:
            if self.cont and ln == ("> " + self.cont[0]).rstrip():
                self.cont.pop(0)
                continue
            self.cont = []
            kept.append(ln)
        return kept

    def _unout(self, e: CastEvent) -> None:
        if self.cur is not None and self.cur.out_refs and self.cur.out_refs[-1].ev == e.ev.id:
            self.cur.out_refs.pop()

    def _finish(self) -> None:
        last = self.cast.events[-1].t if self.cast.events else 0.0
        if self.state in ("running", "program") and self.cur is not None:
            tail = self.screen.current()
            if tail:
                self.cur.lines.append(tail)
            self.cur.end = last
            self.cur.finished = self.state == "program"
        elif self.state == "prompt":
            for ev in (*self.keys, *self.echo):
                self.marks.mark(ev, "set_aside", "typed at the last prompt, never entered")


def _cite(text: str, events: list[CastEvent]) -> tuple[list[Ref], tuple[int, int] | None]:
    """Where `text` was read: one event whose data holds it (a slice of it), else the events
    whose data occurs in it (keys typed one by one); the others are the editing around it."""
    for ev in events:
        i = ev.data.find(text)
        if i >= 0:
            return [Ref(ev.ev.id, "/2")], (i, i + len(text))
    parts = [Ref(ev.ev.id, "/2") for ev in events if ev.data.strip() and ev.data.rstrip("\r\n") in text]
    return parts or [Ref(ev.ev.id, "/2") for ev in events], None
