"""What Gemini CLI's subagent tools say about how a subagent ended, in their result's words.

A call that ran a subagent is recorded with status "success" whenever the tool returned, whether
the subagent did its task or not: agents/local-invocation.ts (and local-session-invocation.ts)
return a run that threw as text and leave the result's `error` out on purpose (so the CLI shows
its own display), and a run that ended early is a plain result. Only the text tells them apart:

* `Subagent '<name>' failed. Error: <message>`: the run threw;
* `Subagent '<name>' finished.` (browser/browserAgentInvocation.ts: `Browser agent finished.`),
  then `Termination Reason: <mode>`: `<mode>` is the run's AgentTerminateMode, and anything but
  `GOAL` (MAX_TURNS, TIMEOUT, ERROR, ERROR_NO_COMPLETE_TASK_CALL) is a run stopped before it
  completed its task.

`<name>` must be the agent the call ran: the tool's own name (a tool per agent), or the
`agent_name` argument of the tool that delegates to any agent (`delegate_to_agent`,
`invoke_agent`), so another tool's output quoting these words is not read so.
"""

from __future__ import annotations

import re
from typing import Any

from ...payloads import ResultInfo

RULE = "R-call/gemini-subagent-failed"
BROWSER_AGENT = "browser_agent"  # browserAgentDefinition.ts BROWSER_AGENT_NAME
_FAILED = re.compile(r"Subagent '([^'\n]*)' failed\. Error: ")
_FINISHED = re.compile(r"(?:Subagent '([^'\n]*)'|Browser agent) finished\.\nTermination Reason: (\w+)\n")


def subagent_outcome(name: str | None, args: Any, text: str, failed: bool, info: ResultInfo) -> bool:
    """Whether the call failed, reading a subagent tool's words for how its run ended (the rule
    that read a failure goes to `info`)."""
    if failed:
        return failed
    given = args.get("agent_name") if isinstance(args, dict) else None
    ran = {n for n in (name, given) if isinstance(n, str)}
    threw = _FAILED.match(text)
    ended = _FINISHED.match(text)
    if threw is not None and threw[1] in ran:
        failed = True
    elif ended is not None and (BROWSER_AGENT if ended[1] is None else ended[1]) in ran and ended[2] != "GOAL":
        failed = True
    if failed:
        info.failure_rule = RULE
    return failed
