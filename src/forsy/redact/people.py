"""People named by git: the name git writes beside a commit's author, committer or a trailer's
person (`Author: Jane Doe <jane@x.io>`, `Signed-off-by:`, `Co-authored-by:`, `Reviewed-by:`,
any `<Word>-by:`), given to it (`--author="Jane Doe <jane@x.io>"`), or set as one's own
(`git config user.name "Jane Doe"`, `user.name=Jane Doe` as `git config --list` prints it,
`GIT_AUTHOR_NAME=…`).

The redactor masks a person's name where it knows it (the session's commit authors, given as
`extra_person_names`); in a tool's output, git's own fields say the same: the name there is
a person's, so it is masked as one wherever git printed it. An address stays the email rule's.
Not a person: a bot or an app (`dependabot[bot]`, `github-actions`, `Claude`, `Copilot`), a
generic account (`root`, `admin`, `runner`), a placeholder (`Your Name`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import PERSON, Hit
from .personal import _NOT_PEOPLE_PARTS, GENERIC_ACCOUNTS

if TYPE_CHECKING:
    from ._anchors import Anchors

# labels after which git writes `Name <address>`: headers of `git log` / `git show`, and the
# trailers (`Signed-off-by:`, `Co-authored-by:`, `Acked-by:`…: one `-by:` ends them all)
_PERSON_LABELS = ("Author:", "Commit:", "Committer:", "AuthorName:", "author:", "committer:", "-by:", "-By:", "-BY:",
                  "--author")
# where a name is set alone (no address after it)
_NAME_LABELS = ("user.name", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME")
PEOPLE_ANCHORS = _PERSON_LABELS + _NAME_LABELS
_NAME = r"(?P<name>[^\W\d_][\w.'’-]*(?:[ \t]+[^\W\d_][\w.'’-]*){0,4})"
_WITH_ADDRESS = re.compile(r"[ \t]*[=:]?[ \t]*(?:\\{0,3}[\"'])?[ \t]*" + _NAME + r"[ \t]+<[^<>\s]{1,254}>")
_ALONE = re.compile(r"(?:[ \t]*=[ \t]*|[ \t]+)(?P<q>\\{0,3}[\"'])?" + _NAME
                    + r"(?(q)(?P=q)|(?=[ \t]*(?:\r?\n|\\[rn]|$)))")
# git's setting: given to `git config` or `git -c`, or a line of `git config --list`
_GIT_CONFIG = re.compile(r"(?:config[ \t]+(?:--?[\w-]+[ \t]+)*|[ \t]-c[ \t]+)\Z|(?:\A|\n|\\n)\Z")
# apps and assistants git names as authors (besides bots and generic accounts)
_NOT_PEOPLE = frozenset({"claude", "copilot", "cursor", "codex", "devin", "aider", "openai", "anthropic", "chatgpt",
                         "gemini", "unknown", "anonymous", "your name", "you", "github", "gitlab", "bitbucket",
                         "renovate", "dependabot", "snyk", "greenkeeper", "semantic-release", "noreply", "nobody"})
# coding agents that sign commits under a name of their own (OpenHands asks its agent to add
# `Co-authored-by: openhands <…>`): the whole name only, as some are a person's name's part too
# (Patsy Cline)
_AGENT_NAMES = frozenset({"openhands", "all-hands", "all hands", "opendevin", "cline", "qwen", "qwen-coder",
                          "opencode", "swe-agent", "windsurf"})


def git_person(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The person's name in git's author, committer and trailer fields, and `user.name`'s value."""
    for i in anchors.find(PEOPLE_ANCHORS):
        label = next(lab for lab in PEOPLE_ANCHORS if text.startswith(lab, i))
        if label == "-by:" or label[0] == "-" and label[1] != "-":
            if not _trailer_start(text, i):
                continue
        elif i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") and not text.startswith("\\n", i - 2):
            continue  # inside a longer name (`myAuthor:`)
        end = i + len(label)
        if label == "user.name" and not _GIT_CONFIG.search(text, max(0, i - 80), i):
            continue  # `user.name = "…"` in code: a field, not git's setting
        alone = label in _NAME_LABELS
        m = (_ALONE if alone else _WITH_ADDRESS).match(text, end)
        # set alone, a single word is as often a handle as a name (`user.name "octocat"`): a name of
        # words is a person's; beside an address git says it is a person, whatever the name
        if m is not None and _person(m["name"]) and not (alone and len(m["name"].split()) < 2):
            yield Hit(m.start("name"), m.end("name"), PERSON, "git-person")


def _trailer_start(text: str, i: int) -> bool:
    """`Signed-off-by:` whole: words joined by `-` from the line's start (or a quote, a blank)."""
    j = i
    while j > 0 and (text[j - 1].isalpha() or text[j - 1] == "-"):
        j -= 1
    return j < i and (j == 0 or text[j - 1] in " \t\n\"'>" or text.startswith("\\n", j - 2))


def _person(name: str) -> bool:
    low = " ".join(name.lower().split())
    if len(low) < 2 or low in GENERIC_ACCOUNTS or low in _NOT_PEOPLE or low in _AGENT_NAMES \
            or low.endswith(("[bot]", "-bot", " bot")):
        return False
    parts = re.split(r"[\s._-]+", low)
    return not any(p in _NOT_PEOPLE_PARTS or p in _NOT_PEOPLE for p in parts)
