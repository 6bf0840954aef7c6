"""What the built-in sources read, named for people: `forsy --help` lists them from here, so a
source added to `base.BUILTIN` is in the help as soon as it is registered (a test fails while
it has no title here, and while the README's first paragraph does not name it).

Static on purpose: loading every source to ask it its name would import all the readers each
time the CLI starts. A registered name missing here is still listed, as its registry key.
"""

from __future__ import annotations

from .base import BUILTIN

AGENT, RECORDING, IMPORT = "agent", "recording", "import"

# registry key -> the names its logs go by (an agent's own spelling) and what kind of log it is;
# the order is the help's
TITLES: dict[str, tuple[tuple[str, ...], str]] = {
    "claude_code": (("Claude Code",), AGENT),
    "codex": (("Codex CLI",), AGENT),
    "gemini": (("Gemini CLI",), AGENT),
    "qwen_code": (("Qwen Code",), AGENT),
    "opencode": (("OpenCode",), AGENT),
    "copilot_cli": (("GitHub Copilot CLI",), AGENT),
    "goose": (("Goose",), AGENT),
    "cline": (("Cline",), AGENT),
    "roo_code": (("Roo Code", "Kilo Code"), AGENT),  # Kilo Code forked Roo Code and writes its task files
    "aider": (("Aider",), AGENT),
    "openhands": (("OpenHands",), AGENT),
    "mini_swe_agent": (("mini-swe-agent",), AGENT),
    "asciinema": (("terminal recordings (asciinema)",), RECORDING),
    "shell": (("shell history",), RECORDING),
    "git": (("git",), RECORDING),
    "invariant": (("Invariant",), IMPORT),
    "atif": (("ATIF",), IMPORT),
    "openai_chat": (("OpenAI-chat",), IMPORT),
    "forsy_v1": (("Forsy v1",), IMPORT),
}


def names(kind: str) -> list[str]:
    """The names of the registered sources of one kind, in TITLES' order; a registered source
    with no title here is an agent's log named by its registry key."""
    keys = [k for k in TITLES if k in BUILTIN] + [k for k in BUILTIN if k not in TITLES]
    return [n for k in keys if TITLES.get(k, ((k,), AGENT))[1] == kind for n in TITLES.get(k, ((k,), AGENT))[0]]


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def supported() -> str:
    """What forsy retraces, in one phrase: the agents and recordings, then the imports."""
    return f"{', '.join(names(AGENT) + names(RECORDING))}; {_and(names(IMPORT))} imports"
