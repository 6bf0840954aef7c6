"""Events of one aider session from its writes (`_md.Item`s), in file order.

A session's writes come in units: the header and aider's start-up messages; a user input
and the messages right after it; a model reply and the messages after it. What each gives:

* header `# aider chat started at T`: `meta.started_at` (T as written: local time, no zone);
* start-up and settings messages (`Aider v…`, `Main model: … with … edit format`, `Model:`,
  `Models:`, `Weak model:`, `Editor model:`, `Git repo:`, `Repo-map:`, the command line):
  the session's facts (`agent_version`, `models`, `agent_config`), marked metadata;
* a user input: a `user` event, verbatim. An input of blank lines, or `<blank>` alone (what
  aider writes for Enter pressed on an empty prompt), says nothing: set aside, counted
  (`blank_inputs`). Two kinds are not the user's words: a
  confirmation aider answered itself (`… (Y)es/(N)o… [Yes]: s`, a group's "skip all") is a
  `note`; the architect's answer passed on to the editor model (the input repeats the reply
  before it) is a `note` too, marked a duplicate of that reply; and so is `/lint`'s report
  passed on to the model as the request (an input starting `# Fix any errors below…`), set
  aside. The request of `/ask X` (`/code`, `/architect`, `/context`, `/ok`), which aider writes
  again as an input right after the command, is a `note` marked a duplicate; `/help X`'s
  request (`# Question: X` and the documents aider found) a `note` set aside.
  `/run X`, `!X`, `/test X`, `/lint X` and `/git X` (an input of one line) are also a call of
  that command (args X), answered by the messages aider wrote right after the input (the
  command's output). Aider writes no exit status, so its success stays unknown unless aider's
  words say it failed: the command could not be run (`Error occurred while running command
  '…'`, run_cmd), `/test`'s output added with no question (cmd_run adds it so only on a
  non-zero exit), `/lint`'s report (`# Fix any errors below…`, `Fix lint errors in <file>?`).
  Before 0.64 /run asked `Add the output to the chat?` and /test's output says how it ended
  (`_run_asked`, `_commands.test_outcome`);
* a reply: `reasoning`, `agent_text` and edit `tool_call`s (`_reply`), the edits of one reply
  in one group. Each edit is answered by the `Applied edit to <path>` message naming its
  file (a success); an edit with no such message by aider's failure report (`_failures`:
  an error for the edits it names or quotes, a success for the others when it says they
  were applied), by a refused `Create new file?` or `Allow edits to file that has not been
  added to the chat?` as a rejection, by aider's `Unable to create <path>, skipping edits.`
  or `Skipping edits to <path> that matches gitignore spec.` as an error, else it has no
  result (warned, counted);
* a shell command the reply suggested (a message followed by `Run shell command(s)?`): a
  `shell` call (args: that message), answered by the `Running …` messages (a failure when
  they say the command could not be run), or rejected. A
  start-up line is never that message: when one stands before the question, the call is the
  command the reply suggested in a shell fence (```bash, ```sh, ... as aider's
  editblock_coder takes them), cited as a slice of the reply's text (C-span);
* the lint or test run aider made after applying a reply's edits, when it failed (it asks
  `Attempt to fix lint errors?` / `… test errors?` only then): a `/lint` or `/test` call of
  aider's, answered by the report written right before the question, a failure (`_checks`);
* a model call that failed (`litellm.RateLimitError: …`, `litellm.APIError: …`, the
  exception aider writes before `Retrying in N seconds...` or giving up): an error step
  (`agent_text` marked `api_error`), counted in `quality.extra.model_failures`;
* `^C again to exit` / `^C KeyboardInterrupt`: an `interrupt`;
* any other message (token and cost lines, `Commit <sha> <subject>`, added files, warnings,
  errors, confirmations): a `note` with the message verbatim (the commit matcher reads them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...evidence import Event, Evidence, Ref, Session
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from ._commands import (
    LINT_REPORT,
    RUN_FAILED,
    command,
    command_failed,
    mode_command,
    norm,
    passed_on,
    run_asked,
    test_outcome,
)
from ._evidence import Cutter
from ._md import HEADER, Item, Line
from ._reply import Block, split
from ._settings import setting, setting_text

# a question and its answer as io.confirm_ask writes it: `Q? (Y)es/(N)o... [Yes]: y`, and before 0.52
# (August 2024) `Q? [Y/n] y`
QUESTION = re.compile(r".*\? (?:\(Y\)es/\(N\)o.*\]: ?|\[[Yy]/[Nn]\] ?)(\S*)\s*\Z", re.S)
APPLIED = re.compile(r"Applied edit to (.+?)\s*\Z")
# what io.user_input writes for an input of nothing (Enter alone): `#### <blank>`, not the user's words
EMPTY_INPUT = "<blank>"
EDIT_TOOLS = {"search_replace": "search_replace", "udiff": "udiff", "whole": "whole_file"}
FAILED = ("failed to match", "failed to exactly match", "did not conform to the edit format",
          "SearchReplaceNoExactMatch")
REPORT_ENDS = ("Applied edit to ", "Commit ", "Tokens: ", "You can use /undo", "Committing ")
OTHERS_APPLIED = re.compile(r"The other \d+ SEARCH/REPLACE blocks? (?:were|was) applied successfully")
SEARCH_LINE = re.compile(r"<{5,9} SEARCH\Z")
# the questions whose refusal skips a file's edits (base_coder.allowed_to_edit), and the files aider
# skipped by itself: one it could not create, one git ignores
REFUSABLE = ("Create new file?", "Allow edits to file that has not been added to the chat?")
UNAPPLIED = re.compile(r"(?:Unable to create (.+?), skipping edits\.|Skipping edits to (.+?) that matches gitignore "
                       r"spec\.)\s*\Z")
INTERRUPTS = ("^C again to exit", "^C KeyboardInterrupt")
RAN = re.compile(r"(Running |Add .* of command output to the chat\?|Added \d+ lines? of output to the chat"
                 r"|Error (?:occurred while )?running command ')")
# the checks aider runs after applying edits (base_coder.py: auto_lint, auto_test): it asks this
# only when the check failed; /lint asks "Fix lint errors in <file>?" after each file's errors
CHECK_FAILED = re.compile(r"Attempt to fix (lint|test) errors\?")
LINT_RUNNING = re.compile(r"## Running: (.+?)\s*\Z")
# the fences aider takes as shell commands to offer (editblock_coder.py shell_starts)
SHELL_FENCE = re.compile(r"^[ \t]*```(?:bash|sh|shell|cmd|batch|powershell|ps1|zsh|fish|ksh|csh|tcsh)[ \t]*\n"
                         r"(.*?)\n[ \t]*```", re.M | re.S)
# a model call that failed: the exception litellm raised, as aider writes it (base_coder.py
# send_message: tool_error(str(err)) before "Retrying in N seconds...", or the last one)
MODEL_FAILURE = re.compile(r"(?:litellm\.\w+(?:Error|Exception)|(?:\w+\.)*(?:RateLimitError|APIError|"
                           r"APIConnectionError|InternalServerError|ServiceUnavailableError|BadRequestError|"
                           r"AuthenticationError|NotFoundError|ContextWindowExceededError|"
                           r"ContentPolicyViolationError|PermissionDeniedError|Timeout))\s*:")


@dataclass
class Message:
    ev: Evidence
    text: str
    lines: list[Line]
    used: bool = False
    empty: bool = False  # a blank quote line (`>`): no text of its own


@dataclass
class _State:
    edits: list[tuple[Event, str | None]] = field(default_factory=list)  # this reply's calls, path
    last_reply: str | None = None  # the reply's visible text, normalised (architect hand-off)
    started: bool = False  # a user input or reply was seen (later settings are switches)
    answered: set[str] = field(default_factory=set)  # call ids with a result
    # the shell commands the last reply suggested (fenced ```bash etc.), not yet asked about:
    # (the text block's evidence, the commands, their span in that block's text)
    suggested: list[tuple[Evidence, str, tuple[int, int]]] = field(default_factory=list)
    # the last input when it was `/ask X`, `/help X`...: (command word, X), until a reply
    passed_on: tuple[str, str] | None = None
    # a /run (0.54-0.63) whose output follows the instructions typed at its question, written as
    # the next input: (its call id, the instructions, the input's evidence), until the next write
    run_wait: tuple[str, str, Evidence] | None = None


def _bump(s: Session, key: str, n: int = 1) -> None:
    s.quality.extra[key] = s.quality.extra.get(key, 0) + n


class Builder:
    def __init__(self, s: Session, cut: Cutter) -> None:
        self.s, self.cut = s, cut
        self.st = _State()
        self.blank_lines = 0  # inside replies, between their blocks

    # ------------------------------------------------------------------ helpers
    def _ev(self, kind: Any, actor: str, refs: list[Evidence], **fields: Any) -> Event:
        ev = Event(kind, actor, None, [Ref(r.id) for r in refs], **fields)
        self.s.events.append(ev)
        return ev

    def _note(self, m: Message, sub: str) -> None:
        m.used = True
        self._ev("note", "system", [m.ev], text=m.text, info=NoteInfo(subtype=sub))
        self.s.mark(m.ev.id, "set_aside", "aider's messages are notes, not steps", sub)

    def messages(self, items: list[Item]) -> list[Message]:
        out = []
        for it in items:
            if len(it.lines) == 1 and it.lines[0].text.strip() == ">":  # aider's blank quote line
                ev, _ = self.cut.lines(self.s, it.lines, "aider_output")
                self.s.mark(ev.id, "set_aside", "empty aider message (a blank quote line)")
                out.append(Message(ev, "", it.lines, used=True, empty=True))
                continue
            ev, text = self.cut.prefixed(self.s, it.lines, 2, "aider_output")
            out.append(Message(ev, text, it.lines))
        return out

    # ------------------------------------------------------------------ units
    def header(self, item: Item) -> None:
        line = item.lines[0]
        m = HEADER.match(line.text)
        assert m is not None  # an item of kind "header" matched it
        start = line.start + len(line.text[: m.start(1)].encode("utf-8"))
        ev = self.cut.range(self.s, line.no, start, start + len(m.group(1).encode("utf-8")), "session_start")
        self.s.meta.started_at = self.cut.text(ev.byte_offset, ev.byte_offset + ev.byte_length)
        self.s.meta.started_at_ref = Ref(ev.id)
        self.s.mark(ev.id, "metadata", "session start time")

    def user(self, item: Item, after: list[Item]) -> None:
        s = self.st
        refs: list[Evidence] = []
        texts: list[str] = []
        for ln in item.lines:
            # a blank line's record is empty: cited with the others, it says where the line was
            ev, text = self.cut.prefixed(self.s, [ln], 5, "user_line")
            texts.append(text)
            refs.append(ev)
        text = "\n".join(texts)
        msgs = self.messages(after)
        self.st.started = True
        if s.run_wait is not None and (text != s.run_wait[1] or len(item.lines) > 1):
            self.finish()  # not the instructions a /run's output waits for
        if (wait := s.run_wait) is not None:
            # the instructions typed at /run's question: the person's prompt, and the command's
            # output (added to the chat) written right after it is the /run's result. The output
            # came first (the model gets both in one message): the result, then the prompt
            glued = bool(msgs) and msgs[0].lines[0].no == item.lines[-1].no + 1
            s.run_wait = None
            self._run_output(wait[0], _contiguous(msgs) if glued else [], wait[2])
            self._ev("user", "user", refs, text=text)
        elif not text.strip() or (len(item.lines) == 1 and text == EMPTY_INPUT):  # nothing said
            why = "a user input of blank lines" if not text.strip() else "an empty user input (aider writes `<blank>`)"
            for r in refs:
                self.s.mark(r.id, "set_aside", why)
            _bump(self.s, "blank_inputs")
        elif len(item.lines) == 1 and QUESTION.match(text):
            self._ev("note", "system", refs, text=text, info=NoteInfo(subtype="confirmation"))
            for r in refs:
                self.s.mark(r.id, "set_aside", "a confirmation aider answered for a group", "confirmation")
            _bump(self.s, "auto_confirmations")
        elif text.startswith(LINT_REPORT):
            # /lint's report passed on to the model as the request (cmd_lint runs a coder with it;
            # io.user_input writes it as an input): aider's words, not the user's
            self._ev("note", "system", refs, text=text, info=NoteInfo(subtype="lint_request"))
            for r in refs:
                self.s.mark(r.id, "set_aside", "aider's lint report sent to the model as its request", "lint_request")
            _bump(self.s, "lint_requests")
        elif (kind := passed_on(s.passed_on, text)) is not None:
            # the request of the `/ask X` (etc.) just typed, written again by aider: not typed twice
            self._ev("note", "system", refs, text=text, info=NoteInfo(subtype=kind))
            why = ("the request of the command typed before it, which aider writes again as an input"
                   if kind == "command_request" else "aider's /help request: the question and the documents it found")
            for r in refs:
                self.s.mark(r.id, "duplicate" if kind == "command_request" else "set_aside", why)
            _bump(self.s, kind + "s")
        elif s.last_reply is not None and norm(text) == s.last_reply and len(item.lines) > 1:
            self._ev("note", "system", refs, text=text, info=NoteInfo(subtype="editor_request"))
            for r in refs:
                self.s.mark(r.id, "duplicate", "the architect's answer passed on to the editor model")
            _bump(self.s, "editor_requests")
        else:
            self._ev("user", "user", refs, text=text)
            m = command(text)
            glued = bool(msgs) and msgs[0].lines[0].no == item.lines[-1].no + 1
            if m is not None and len(item.lines) == 1:
                self._command(m, refs[0], msgs if glued else [])
        s.passed_on = mode_command(text)
        s.edits = []
        self.outputs(msgs)

    def _command(self, m: tuple[str, int, str], ref: Evidence, msgs: list[Message]) -> None:
        """A command the user ran through aider: a call answered by the output written after it."""
        tool, start, arg = m
        info = CallInfo(span=(start, start + len(arg))) if arg else None
        cid = f"{ref.id}:cmd"
        self._ev("tool_call", "agent", [ref], call_id=cid, tool=tool, args=arg or None, info=info)
        out = _contiguous(msgs)
        while out and out[-1].empty:
            out.pop()
        asked = next((k for k, x in enumerate(out) if run_asked(x.text)), None) if tool == "/run" else None
        if asked is not None:
            self._run_asked(cid, out[:asked], out[asked], out[asked + 1 :], ref)
            return
        if not any(not x.empty for x in out):
            self.s.quality.missing_results += 1
            self.s.warn("no-result", f"{tool} {arg[:60]!r}: no output written after it", ref.source, ref.line)
            return
        texts = [x.text for x in out]
        if tool == "/test" and not command_failed(tool, texts) and (t := test_outcome(
                self.s.meta.agent_version, texts, self.cut.next_line(out[-1].lines[-1].end))) is not None:
            self._result(cid, tool, out[: t[0]], error=t[1], rule="R-call/aider-test-output")
            self._again(out[t[0] :])
            return
        self._result(cid, tool, out, error=True if command_failed(tool, texts) else None)

    def _run_asked(self, cid: str, before: list[Message], q: Message, after: list[Message], ref: Evidence) -> None:
        """/run's question before 0.64 (`_commands.RUN_ASKED`): until 0.54 the output came before
        it, and its lines again after it when added; from 0.54 only after it, and after the input
        aider writes for the instructions when some were typed (commands.py cmd_run)."""
        asked = run_asked(q.text)
        assert asked is not None  # `_command` found it so
        late, words, span = asked
        _bump(self.s, "confirmations")
        if late and words is not None:
            self.st.run_wait = (cid, words, ref)
        else:
            self._run_output(cid, after if late else before, ref)
        if words is not None and not late:  # the person's words, sent with the output: a slice of the question
            q.used = True
            self._ev("user", "user", [q.ev], text=words, info=MessageInfo(span=span))
        else:
            self._note(q, "confirmation")
        self._again([] if late else after)

    def _run_output(self, cid: str, out: list[Message], ref: Evidence) -> None:
        if not any(not x.empty for x in out):
            self.s.quality.missing_results += 1
            self.s.warn("no-result", "/run: aider wrote no output (not added to the chat, or none)", ref.source,
                        ref.line)
            return
        self._result(cid, "/run", out, error=True if command_failed("/run", [x.text for x in out]) else None)

    def _again(self, out: list[Message]) -> None:
        """The command's output written again, line by line, as added to the chat (0.22-0.53)."""
        for x in out:
            if not x.empty:
                self._note(x, "output_added")
                self.s.mark(x.ev.id, "duplicate", "the command's output written again, as added to the chat")
            x.used = True

    def finish(self) -> None:
        """A /run whose instructions input (0.54-0.63) did not come next: no output of it was written."""
        if (wait := self.st.run_wait) is not None:
            self.st.run_wait = None
            self.s.quality.missing_results += 1
            self.s.warn("no-result", "/run: no input of its instructions, and no output, after its question",
                        wait[2].source, wait[2].line)

    def reply(self, item: Item, after: list[Item]) -> None:
        msgs = self.messages(after)
        applied = {m.group(1) for x in msgs if (m := APPLIED.match(x.text))}
        blocks = split(item.lines, applied)
        inside = {ln.no for b in blocks for ln in b.lines}
        # blank lines between the reply's blocks are separators, like those between writes
        self.blank_lines += sum(1 for ln in item.lines if ln.no not in inside)
        group = f"reply-L{item.lines[0].no}"
        self.finish()
        self.st.edits = []
        self.st.suggested = []
        self.st.passed_on = None
        visible: list[str] = []
        for b in blocks:
            ev, text = self.cut.lines(self.s, b.lines, {"edit": "edit_block"}.get(b.kind, b.kind))
            if b.kind == "tag":
                self.s.mark(ev.id, "set_aside", "the tag aider writes around the model's reasoning")
            elif b.kind == "reasoning":
                self._ev("reasoning", "agent", [ev], text=text)
            elif b.kind == "text":
                visible.append(text)
                self._ev("agent_text", "agent", [ev], text=text)
                self.st.suggested += [(ev, m.group(1), m.span(1)) for m in SHELL_FENCE.finditer(text)
                                      if m.group(1).strip()]
            else:
                visible.append(text)
                self._edit(b, ev, text, group)
        self.st.last_reply = norm("\n".join(visible))
        self.st.started = True
        # results first (they name their call wherever they stand), then the other messages
        for x in msgs:
            if (a := APPLIED.match(x.text)) is not None and any(p == a.group(1) for _, p in self.st.edits):
                self._applied(x, a.group(1))
        self._failures(msgs)
        self._checks(msgs)
        self.outputs(msgs)
        self._unanswered_edits()

    def _failures(self, msgs: list[Message]) -> None:
        """Edits aider did not report applied, answered by its failure report (`_report`): an
        error for an edit of a file the report names, unless the report quotes the blocks that
        failed and not this one; a success when it says the other blocks were applied; an error
        for every edit when it names none of their files."""
        report = _report(msgs)
        if not report:
            return
        text = _squash("\n".join(x.text for x in report))
        quoted = text if "<<<<<<< SEARCH" in text else ""
        ok = [x for x in report if OTHERS_APPLIED.search(x.text)]
        names_none = not any(p and p in text for _, p in self.st.edits)
        for c, path in self.st.edits:
            if str(c.call_id) in self.st.answered:
                continue
            body = _search_body(str(c.args))
            # whole lines: a SEARCH of `x = 1` is not the quoted `self.x = 1`
            failed = bool(path and path in text) and not (quoted and body and f"\n{body}\n" not in f"\n{quoted}\n")
            if failed or names_none:
                self._result(str(c.call_id), str(c.tool), report, error=True)
            elif ok:
                self._result(str(c.call_id), str(c.tool), ok, error=False)

    def _checks(self, msgs: list[Message]) -> None:
        """The lint or test run aider made after applying the edits, when it failed (aider asks
        `Attempt to fix lint errors?` / `... test errors?` only then): a `/lint` or `/test` call
        of aider's, answered by the report written right before the question (a failure). The
        call cites the report's `## Running: <command>` line (args: the command) when it has one,
        else the report's first message (no args); a question with no report before it is the
        report itself."""
        for k, q in enumerate(msgs):
            c = CHECK_FAILED.match(q.text)
            if q.used or c is None:
                continue
            j = k
            while j > 0 and _glued(msgs[j - 1], msgs[j]) and (msgs[j - 1].empty or not msgs[j - 1].used) \
                    and not msgs[j - 1].text.startswith(REPORT_ENDS) and not CHECK_FAILED.match(msgs[j - 1].text):
                j -= 1
                if msgs[j].text.startswith(LINT_REPORT):
                    break
            report = [x for x in msgs[j:k] if not x.empty] or [q]
            tool = "/" + c.group(1)
            run = next((x for x in report if LINT_RUNNING.match(x.text)), None) if tool == "/lint" else None
            ref = run or report[0]
            arg = LINT_RUNNING.match(run.text) if run is not None else None
            cid = f"{ref.ev.id}:{c.group(1)}"
            info = CallInfo(span=arg.span(1)) if arg is not None else None
            self._ev("tool_call", "agent", [ref.ev], call_id=cid, tool=tool, args=arg.group(1) if arg else None,
                     info=info)
            _bump(self.s, "failed_checks")
            if report == [q]:
                q.used = True
                self._ev("tool_result", "agent", [q.ev], call_id=cid, tool=tool, text=q.text, is_error=True)
                self.st.answered.add(cid)
            else:
                self._result(cid, tool, msgs[j:k], error=True)

    def _edit(self, b: Block, ev: Evidence, text: str, group: str) -> None:
        tool = EDIT_TOOLS[b.form or "search_replace"]
        cid = f"{ev.id}:edit"
        call = self._ev("tool_call", "agent", [ev], call_id=cid, tool=tool, args=text, group=group)
        self.st.edits.append((call, b.path))
        _bump(self.s, "edits_reconstructed")

    def _answer(self, call: Event, m: Message, *, error: bool = False, rejected: bool = False) -> None:
        m.used = True
        self.st.answered.add(str(call.call_id))
        # `Applied edit to X` says the edit succeeded; a refusal is a rejection, not an error
        self._ev("tool_result", "agent", [m.ev], call_id=call.call_id, tool=call.tool, text=m.text,
                 is_error=error, info=ResultInfo(rejected=True) if rejected else None)

    # ------------------------------------------------------------------ aider's messages
    def outputs(self, msgs: list[Message]) -> None:
        for k, m in enumerate(msgs):
            if m.used:
                continue
            q = QUESTION.match(m.text)
            nxt = msgs[k + 1] if k + 1 < len(msgs) else None
            if nxt is not None and not q and _glued(m, nxt) and QUESTION.match(nxt.text) \
                    and nxt.text.startswith("Run shell command") and not setting_text(m.text):
                self.st.suggested = [x for x in self.st.suggested if x[1].strip() != m.text.strip()]
                self._shell(m, nxt, msgs[k + 2:])
            elif (a := APPLIED.match(m.text)) is not None:
                self._applied(m, a.group(1))
            elif (u := UNAPPLIED.match(m.text)) is not None and self._unapplied(m, u.group(1) or u.group(2)):
                continue
            elif q and m.text.startswith("Run shell command") and self.st.suggested:
                # the question with no command written before it (a start-up line stands there):
                # it asks about the command the reply suggested, cited in the reply
                ev, cmd, span = self.st.suggested.pop(0)
                self._shell(Message(ev, cmd, []), m, msgs[k + 1:], span=span)
            elif q:
                self._confirmation(m, msgs[k - 1] if k else None, q.group(1))
            elif MODEL_FAILURE.match(m.text):
                # the model call failed: an error step, not a note (aider retries some: each is one)
                m.used = True
                _bump(self.s, "model_failures")
                self._ev("agent_text", "agent", [m.ev], text=m.text, info=MessageInfo(api_error=True))
            elif _interrupt(m.text):
                m.used = True
                self._ev("interrupt", "user", [m.ev], text=m.text)
                self.s.mark(m.ev.id, "set_aside", "interrupt (Ctrl-C)")
            elif self._setting(m):
                continue
            else:
                self._note(m, _subtype(m.text))

    def _shell(self, subject: Message, question: Message, rest: list[Message],
               span: tuple[int, int] | None = None) -> None:
        subject.used = question.used = True
        _bump(self.s, "confirmations")
        cid = f"{subject.ev.id}:shell" + (f":{span[0]}" if span else "")
        call = self._ev("tool_call", "agent", [subject.ev], call_id=cid, tool="shell", args=subject.text,
                        info=CallInfo(span=span) if span else None)
        answer = QUESTION.match(question.text)
        if answer is not None and answer.group(1).lower().startswith(("n", "d", "s")):
            self._answer(call, question, rejected=True)
            return
        ran: list[Message] = []
        prev = question
        for x in rest:
            if not _glued(prev, x) or not (RAN.match(x.text) or (ran and len(x.lines) > 1)):
                break
            ran.append(x)
            prev = x
        if not ran:
            self._note(question, "confirmation")
            self.s.quality.missing_results += 1
            self.s.warn("no-result", "a shell command aider ran has no report of its run", subject.ev.source,
                        subject.ev.line)
            return
        self._note(question, "confirmation")
        self._result(cid, "shell", ran, error=True if any(RUN_FAILED.match(x.text) for x in ran) else None)

    def _result(self, cid: str, tool: str, msgs: list[Message], error: bool | None = None,
                rule: str | None = None) -> None:
        for x in msgs:
            x.used = True
        while msgs and msgs[0].empty:  # blank quote lines around the output are not part of it
            msgs = msgs[1:]
        while msgs and msgs[-1].empty:
            msgs = msgs[:-1]
        self.st.answered.add(cid)
        self._ev("tool_result", "agent", [x.ev for x in msgs if not x.empty], call_id=cid, tool=tool,
                 text="\n".join(x.text for x in msgs), is_error=error,
                 info=ResultInfo(failure_rule=rule) if rule else None)  # a named rule read the outcome

    def _applied(self, m: Message, path: str) -> None:
        hits = [c for c, p in self.st.edits if p == path and str(c.call_id) not in self.st.answered]
        if not hits:
            self._note(m, "applied_edit")
            return
        for c in hits:
            self._answer(c, m)
            m.used = True

    def _unapplied(self, m: Message, path: str) -> bool:
        """Aider skipped the edits of `path` by itself: a failure of each edit of it not answered yet."""
        hits = [c for c, p in self.st.edits if p == path and str(c.call_id) not in self.st.answered]
        for c in hits:
            self._answer(c, m, error=True)
        return bool(hits)

    def _confirmation(self, m: Message, subject: Message | None, answer: str) -> None:
        if m.text.startswith(REFUSABLE) and answer.lower().startswith("n") and subject is not None:
            for c, p in self.st.edits:
                if p == subject.text.strip() and str(c.call_id) not in self.st.answered:
                    self._answer(c, m, rejected=True)
        _bump(self.s, "confirmations")
        if not m.used:
            self._note(m, "confirmation")

    def _setting(self, m: Message) -> bool:
        """Session facts from a settings message (`_settings`); True when it was one."""
        if not setting(self.s.meta, m.text, self.st.started):
            return False
        m.used = True
        self.s.mark(m.ev.id, "metadata", "settings (version, models, edit format, git repo, repo map)")
        return True

    def _unanswered_edits(self) -> None:
        for c, p in self.st.edits:
            if str(c.call_id) in self.st.answered:
                continue
            self.s.quality.missing_results += 1
            ref = self.s.evidence[c.refs[0].ev]
            self.s.warn("no-result", f"edit of {p or 'a file'}: aider reported no applied edit and no failure for it",
                        ref.source, ref.line)


def _report(msgs: list[Message]) -> list[Message]:
    """Aider's report of edits that failed: each message naming a failure and the messages
    written right after it (the blocks it quotes), up to its next kind of message."""
    out: list[Message] = []
    k = 0
    while k < len(msgs):
        m = msgs[k]
        if m.used or not any(f in m.text for f in FAILED):
            k += 1
            continue
        j = k
        while j + 1 < len(msgs) and _glued(msgs[j], msgs[j + 1]) and not msgs[j + 1].text.startswith(REPORT_ENDS):
            j += 1
        out.extend(x for x in msgs[k : j + 1] if not x.empty and not x.used and x not in out)
        k = j + 1
    return out


def _squash(text: str) -> str:
    """Text with each line stripped and blank lines dropped (a quoted block compares so)."""
    return "\n".join(ln.strip() for ln in text.split("\n") if ln.strip())


def _search_body(block: str) -> str | None:
    """The SEARCH section of a SEARCH/REPLACE block, squashed; None for another kind of edit."""
    lines = block.split("\n")
    start = next((i for i, ln in enumerate(lines) if SEARCH_LINE.match(ln.strip())), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("=======")), len(lines))
    return _squash("\n".join(lines[start + 1 : end]))


def _glued(a: Message, b: Message) -> bool:
    """Whether message `b` was written right after `a` (no blank line between)."""
    return b.lines[0].no == a.lines[-1].no + 1


def _contiguous(msgs: list[Message]) -> list[Message]:
    """The messages right after a user input: up to the first blank line."""
    out: list[Message] = []
    for m in msgs:
        if out and not _glued(out[-1], m) or _interrupt(m.text):
            break
        out.append(m)
    return out


def _interrupt(text: str) -> bool:
    return text.strip() in INTERRUPTS


def _subtype(text: str) -> str:
    if text.startswith("Tokens:"):
        return "usage"
    if text.startswith("Commit "):
        return "commit"
    if text.startswith(("Added ", "Removed ", "Dropping ")):
        return "context"
    return "message"
