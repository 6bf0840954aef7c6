"""The answer sent to a password prompt by a script that drives an interactive program: expect
(`expect "*assword*"` then `send "X\\r"`), pexpect (`child.expect('Password:')` then
`child.sendline('X')`), and the same shape of any other library (`chan.send('X\\n')` after
waiting for the prompt). The secret is found by where it stands, the first thing sent after
the script waited for a password prompt, not by the tool's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import _ALNUM, CREDENTIAL, Hit, after_escape
from .cmdline import cli_literal

if TYPE_CHECKING:
    from ._anchors import Anchors

# where a value is sent (rare in logs: the engine reports them in its own pass, _native.py)
SENDS = ("sendline(", "send_line(", "write_line(", "send(", 'send "', "send '", "send -- ", "send {", "send \\")
_SEND = re.compile(r"(?:send(?:_?line)?|write_line)(?:\(| )")
# the wait before it: `expect`, `expect_exact`, `waitFor`, `read_until`, `recv_until`... then a prompt
# for a secret, all on the text just before the send
_WAIT = re.compile(r"(?:expect|wait|read|recv)\w*\W{1,6}[^\n;]{0,60}?"
                   r"(?:assword|passphrase|passcode|\bpin\b|\btoken\b)", re.IGNORECASE)
_LOOK_BACK = 200
# a string's prefix in Python (b'', r'', rb'') or Tcl's `--` / `-s` before the value
_BEFORE_VALUE = re.compile(r"\s*(?:--\s+|-s\s+)?(?:[rRbBuU]{1,2}(?=['\"]))?")
# what ends the line sent: \r, \n (escaped as in the script, or doubly as in JSON), or nothing
_LINE_END = re.compile(r"(?:\\{1,2}[rn]|[\r\n])+$")  # escaped, or decoded (a JSON view)


def prompt_answer(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of the first send after a wait for a password prompt."""
    seen = -1
    for i in anchors.find(SENDS):
        if i <= seen or (i > 0 and (text[i - 1] in _ALNUM or text[i - 1] == "_") and not after_escape(text, i)):
            continue  # `resend(`, `do_send(`
        call = _SEND.match(text, i)
        if call is None:
            continue
        seen = i
        before = text[max(0, i - _LOOK_BACK) : i]
        waits = list(_WAIT.finditer(before))
        if not waits or any(s in before[waits[-1].end() :] for s in ("send ", "send(", "sendline(")):
            continue  # no prompt for a secret, or something else was sent since
        m = _BEFORE_VALUE.match(text, call.end())
        if m is None or m.end() >= len(text):
            continue
        span = _quoted(text, m.end())
        if span is None:
            if text.startswith("\\", m.end()):  # escaped more than once (JSON in JSON): read unescaped
                anchors.want_json_view = True
            continue
        start, end = span
        value = _LINE_END.sub("", text[start:end])
        if cli_literal(value) and not value.startswith("$") and "\\" not in value and not value.isspace():
            yield Hit(start, start + len(value), CREDENTIAL, "prompt-answer")


def _quoted(text: str, q: int) -> tuple[int, int] | None:
    """The inside of the quoted string at `q` (`"…"`, `'…'`, Tcl's `{…}`, or JSON-escaped `\\"…\\"`)."""
    escaped = text.startswith('\\"', q)
    if escaped:
        q += 1
    quote = text[q : q + 1]
    close = {"'": "'", '"': '"', "{": "}"}.get(quote)
    if close is None:
        return None
    end = text.find(("\\" if escaped else "") + close, q + 1, q + 200)
    if end < 0:
        return None
    while not escaped and text[end - 1] == "\\":  # a quote escaped inside the value is not its end
        end = text.find(close, end + 1, q + 200)
        if end < 0:
            return None
    return q + 1, end
