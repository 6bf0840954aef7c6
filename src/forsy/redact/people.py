"""People named by git: the name git writes beside a commit's author, committer or a trailer's
person (`Author: Jane Doe <jane@x.io>`, `Signed-off-by:`, `Co-authored-by:`, `Reviewed-by:`,
any `<Word>-by:`), given to it (`--author="Jane Doe <jane@x.io>"`), or set as one's own
(`git config user.name "Jane Doe"`, `user.name=Jane Doe` as `git config --list` prints it,
`GIT_AUTHOR_NAME=…`), or read back (`git config user.name` and the line it prints). A name set
alone is masked even as one word (`git config user.name alice`): git writes it into every
commit as the person's name, a handle or not.

Git's raw objects and porcelain name the person without a colon: `author Jane Doe <jane@x.io>
1700000000 +0100` (`git cat-file -p`, `git log --format=raw`), and `author Jane Doe` on the line
before `author-mail <…>` (`git blame --porcelain`).

Git's default `git blame` line names the author before the date: `^3f2a1b9 src/a.py (Jane Doe
2024-01-02 10:11:12 +0100 12) code` (the name is all between the `(` and the date).

`git shortlog -s -n` prints one `count<TAB>name` line a person, the counts falling: in a run of
two or more such lines whose counts never rise (a numbered listing's, `cat -n`'s, rise by one),
each name of two to five capitalised words is masked.

Beyond git, a user's line of the account database (`/etc/passwd`, `getent passwd`:
`login:x:uid:gid:GECOS:home:shell`) names its person in the GECOS field's first part (before
the first comma: the rest is room and phones): masked for a person's account (a uid from 500
on, as Linux and macOS number them, but not 65534's `nobody`) when it is two or more words,
not the login itself and not a service's description (`Jenkins Server`, `Dev User`).

Beyond git and passwd, a name written right before its address in angle brackets (`Jane Doe <jane@x.io>`,
RFC 5322's mailbox, as package manifests, changelogs, `.mailmap`, `hg log`, `git shortlog -e`,
mail headers write it) is the person's: masked when it is one to five words, each capitalised
(a particle between them: `van`, `de`…), and not a team's, a project's or a role's
(`Acme Support <support@acme.io>`, `The Foo Project <…>`), nor documentation's stand-in (an
address at `example.com`, as the email rule keeps it).

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
from .personal import _EMAIL_LOCAL_SKIP, _NOT_PEOPLE_PARTS, GENERIC_ACCOUNTS, _doc_domain

if TYPE_CHECKING:
    from ._anchors import Anchors

# labels after which git writes `Name <address>`: headers of `git log` / `git show`, and the
# trailers (`Signed-off-by:`, `Co-authored-by:`, `Acked-by:`…: one `-by:` ends them all)
_PERSON_LABELS = ("Author:", "Commit:", "Committer:", "AuthorName:", "author:", "committer:", "-by:", "-By:", "-BY:",
                  "--author")
# where a name is set alone (no address after it)
_NAME_LABELS = ("user.name", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME")
# `git blame --porcelain`: the name is on the line before these
_MAIL_LINES = ("author-mail <", "committer-mail <")
# a passwd line's empty password field, shadowed (`x`): its account's name comes before it
_PASSWD_ANCHORS = (":x:",)
PEOPLE_ANCHORS = _PERSON_LABELS + _NAME_LABELS + _MAIL_LINES + _PASSWD_ANCHORS
# the engine's dialect (no capturing group): where a `git blame` line's date, zone and line number stand
PEOPLE_SHAPES = {"blame": r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4} {1,8}[0-9]{1,7}\)",
                 # a `git shortlog -s` line after another line: a count, a tab, a letter
                 "shortlog": r"\n {0,8}[0-9]{1,7}\t[A-Za-z\x80-\xff]"}
_NAME = r"(?P<name>[^\W\d_][\w.'’-]*(?:[ \t]+[^\W\d_][\w.'’-]*){0,4})"
_WITH_ADDRESS = re.compile(r"[ \t]*[=:]?[ \t]*(?:\\{0,3}[\"'])?[ \t]*" + _NAME + r"[ \t]+<[^<>\s]{1,254}>")
# set alone: quoted, or bare to the line's end, to the next command (`&& git commit`) or to the
# end of the string that holds the command (`"command": "git config user.name x"`)
_ALONE = re.compile(r"(?:[ \t]*=[ \t]*|[ \t]+)(?P<q>\\{0,3}[\"'])?" + _NAME
                    + r"(?(q)(?P=q)|(?=[ \t]*(?:\r?\n|\\[rn]|$|&&|\|\||;|\)|\\{0,3}[\"'])))")
# given to `git -c name=value`, a bare value ends at the blank
_ONE_WORD = re.compile(r"=(?P<name>[^\W\d_][\w.'’-]*)(?=[ \t])")
_C_OPTION = re.compile(r"[ \t]-c[ \t]+\Z")
# `git config [--global] [--get] user.name` alone on its line, and the line it printed: the value
_READ_BACK = re.compile(r"[ \t]*(?:\r?\n|\\r?\\n)(?P<name>[^\W\d_][\w.'’-]*(?:[ \t]+[^\W\d_][\w.'’-]*){0,4})"
                        r"[ \t]*(?=\r?\n|\\[rn]|$)")
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
        if label in _PASSWD_ANCHORS:
            if (hit := _gecos_name(text, i)) is not None:
                yield hit
            continue
        if label == "-by:" or label[0] == "-" and label[1] != "-":
            if not _trailer_start(text, i):
                continue
        elif i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_") and not text.startswith("\\n", i - 2):
            continue  # inside a longer name (`myAuthor:`)
        end = i + len(label)
        if label == "user.name" and not _GIT_CONFIG.search(text, max(0, i - 80), i):
            continue  # `user.name = "…"` in code: a field, not git's setting
        if label in _MAIL_LINES:
            m = _PORCELAIN.search(text, max(0, i - 200), i)
        elif label in _NAME_LABELS:
            m = _ALONE.match(text, end)
            if m is None and _C_OPTION.search(text, max(0, i - 8), i):
                m = _ONE_WORD.match(text, end)
            elif m is None and label == "user.name" and (m := _READ_BACK.match(text, end)) is not None and not (
                    len(words := m["name"].split()) == 1 or all(w[0].isupper() or w in _PARTICLES for w in words)):
                m = None  # words of prose after the command, not the name it printed
        else:
            m = _WITH_ADDRESS.match(text, end)
        if m is not None and _person(m["name"]):
            yield Hit(m.start("name"), m.end("name"), PERSON, "git-person")
    if "@" in text:
        yield from _mailbox_names(text, anchors)
    yield from _blame_names(text, anchors)
    yield from _shortlog_names(text, anchors)


# ---------------------------------------------------------------- passwd's GECOS field
_LINE_START = r"(?:^|(?<=[\n\s\"'>])|(?<=\\n))"
_LOGIN = re.compile(_LINE_START + r"(?P<login>[a-z_][a-z0-9_.-]{0,31})\Z")
_PASSWD_REST = re.compile(r":x:(?P<uid>[0-9]{1,10}):[0-9]{1,10}:(?P<gecos>[^:\n\\]{0,256}):/[^:\n\\]{0,256}:")
_FIRST_PERSON_UID, _NOBODY = 500, 65534
# besides a team's or a company's words: words of an account kept for a service or a tool
_SERVICE_WORDS = frozenset({"user", "account", "container", "runner", "agent", "worker", "daemon", "manager",
                            "system", "default", "guest", "test", "demo"})


def _gecos_name(text: str, at: int) -> Hit | None:
    """The person named in a passwd line's GECOS field, the line's `:x:` at `at` (see the module)."""
    login = _LOGIN.search(text, max(0, at - 32), at)
    m = _PASSWD_REST.match(text, at)
    if login is None or m is None or not _FIRST_PERSON_UID <= int(m["uid"]) != _NOBODY:
        return None
    name = m["gecos"].split(",", 1)[0].strip()
    words = name.split()
    if not 2 <= len(words) <= 5 or name.lower() == login["login"] or not all(
            w[:1].isupper() or w in _PARTICLES for w in words):
        return None
    if any(w.lower() in _NOT_PERSON_WORDS or w.lower() in _SERVICE_WORDS for w in words) or not _person(name):
        return None
    start = m.start("gecos") + m["gecos"].index(name)
    return Hit(start, start + len(name), PERSON, "passwd-name")


# ---------------------------------------------------------------- git blame's default line
_BLAME_SHAPE = re.compile(PEOPLE_SHAPES["blame"])
# the line's start up to the date: the commit (`^` when it is the boundary), maybe the file, `(`, the name
_BLAME_HEAD = re.compile(_LINE_START + r"\^?[0-9a-f]{7,40}(?: [^\s()]{1,256})? \((?P<name>[^()<>\n\\]{1,100}?) +\Z")
_UNCOMMITTED = "Not Committed Yet"


def _blame_names(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The author's name in `git blame`'s default lines."""
    for i, _ in anchors.shaped("blame", _BLAME_SHAPE):
        m = _BLAME_HEAD.search(text, max(0, i - 400), i)
        if m is not None and m["name"] != _UNCOMMITTED and _person(m["name"]):
            yield Hit(m.start("name"), m.end("name"), PERSON, "git-person")


# `author Jane Doe` (its line) right before `author-mail <…>`
_PORCELAIN = re.compile(r"(?:^|\n|\\n)(?:author|committer) (?P<name>[^\n\\<>]{1,100}?)[ \t]*(?:\r?\n|\\r?\\n)\Z")


# ---------------------------------------------------------------- a name before its address
_MAILBOX = re.compile(r"<[^\s<>@\"'`]{1,64}@[^\W_][\w-]*(?:\.[\w-]+)*\.[^\W\d_]{2,24}>")
_BEFORE_MAILBOX = re.compile(r"(?:^|(?<=[\s\"'(:,=\[>|]))(?P<name>[^\W\d_][\w'’.-]*(?:[ \t]+[^\W\d_][\w'’.-]*){0,6})"
                             r"[ \t]+\Z")
# a display name in quotes (RFC 5322's quoted string: `"Doe, Jane" <jane@x.io>`), JSON-escaped too
_QUOTED_NAME = re.compile(r'(?P<q>\\{0,3}")[ \t]*(?P<name>[^\W\d_][^"\\\n<>@]{0,98}[^\W\d_.])[ \t]*(?P=q)[ \t]+\Z')
_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "das", "dos", "del", "della", "di", "du", "la", "le",
                        "y", "e", "bin", "binti", "ibn", "al", "el", "ter", "ten", "zu", "st"})
# a mailbox of a team, a project, a role or a company, not of a person
_NOT_PERSON_WORDS = frozenset({
    "team", "support", "project", "projects", "foundation", "authority", "developers", "developer", "contributors",
    "maintainers", "maintainer", "community", "group", "labs", "lab", "software", "systems", "inc", "inc.", "llc",
    "ltd", "ltd.", "gmbh", "corp", "corp.", "corporation", "company", "the", "and", "security", "sales", "info",
    "admin", "administrator", "help", "desk", "service", "services", "notifications", "notification", "news",
    "newsletter", "alerts", "mailer", "daemon", "release", "releases", "automation", "office", "department",
    "university", "institute", "network", "organization", "organisation", "association", "society", "consortium",
    "committee", "board", "list", "mailing", "users", "devel", "dev", "bugs", "bug", "tracker", "reply", "noreply",
    "do", "not", "git", "robot", "bot", "build", "ci", "deploy", "server", "app", "api", "cloud", "platform",
})
# words that say what the address is for, written before the name (`Contact Jane Doe <…>`)
_LEAD_WORDS = frozenset({"contact", "email", "e-mail", "mail", "from", "to", "cc", "bcc", "by", "author", "authors",
                         "owner", "owners", "maintainer", "maintainers", "write", "ping", "ask", "send", "reach",
                         "dear", "hi", "hello", "thanks", "copyright", "written", "reported", "reviewed", "see"})


def _mailbox_names(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A person's name right before their address in angle brackets (see the module)."""
    done = -1
    for at in anchors.find(("@",)):
        if at < done:
            continue
        lt = text.rfind("<", max(0, at - 65), at)
        if lt < 2 or text[lt - 1] not in " \t" or (m := _MAILBOX.match(text, lt)) is None or m.end() <= at:
            continue
        done = m.end()
        local, domain = text[lt + 1 : at].lower(), text[at + 1 : m.end() - 1].lower()
        if local in _EMAIL_LOCAL_SKIP or _doc_domain(domain, domain.rsplit(".", 1)[-1]):
            continue  # `Acme Support <support@acme.io>`: a role's; `Jane Doe <jane@example.com>`: a stand-in
        before = _QUOTED_NAME.search(text, max(0, lt - 160), lt) or _BEFORE_MAILBOX.search(text, max(0, lt - 160), lt)
        if before is None:
            continue
        span = _capitalised(text, before.start("name"), before.end("name"))
        if before.re is _QUOTED_NAME and span != (before.start("name"), before.end("name")):
            continue  # a quoted display name is the person's whole (`"Doe, Jane"`), or none
        if span is not None and _person(text[span[0] : span[1]]):
            yield Hit(span[0], span[1], PERSON, "mailbox-name")


def _capitalised(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the last run of capitalised words (particles between them) in `start:end`,
    or None when there is none or it is a team's or a company's name."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[start:end])]
    first = len(words)
    while first > 0:
        w = text[start + words[first - 1][0] : start + words[first - 1][1]]
        if w[:1].isupper() or (w in _PARTICLES and first < len(words)):
            first -= 1
        else:
            break
    run = words[first:]
    while run and ((w := text[start + run[0][0] : start + run[0][1]]) in _PARTICLES
                   or w.lower().rstrip(":") in _LEAD_WORDS):
        run = run[1:]  # a name starts with a capital, after what says whose the address is
    if not run or len(run) > 5:
        return None
    s, e = start + run[0][0], start + run[-1][1]
    name = text[s:e]
    if any(w.lower().strip(".,") in _NOT_PERSON_WORDS for w in name.split()) or name.isupper() and len(name) > 3:
        return None  # (`MAILER-DAEMON`, `ACME`: capitals, not a name)
    return s, e


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


# ---------------------------------------------------------------- git shortlog -s
_SHORTLOG_SHAPE = re.compile(PEOPLE_SHAPES["shortlog"])
_SHORTLOG_LINE = re.compile(r" {0,8}(?P<count>[0-9]{1,7})\t(?P<name>[^\t\n]{1,200}?)[ \t]*(?:\n|\Z)")


def _shortlog_names(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The people of `git shortlog -s -n`'s lines (see the module)."""
    done = -1
    for i, _ in anchors.shaped("shortlog", _SHORTLOG_SHAPE):
        if i < done:
            continue
        start = i
        while start > 0 and _SHORTLOG_LINE.fullmatch(text, text.rfind("\n", 0, start - 1) + 1, start):
            start = text.rfind("\n", 0, start - 1) + 1  # back to the run's first line
        lines = []
        pos = start if text[start : start + 1] != "\n" else start + 1
        while (m := _SHORTLOG_LINE.match(text, pos)) is not None and m.end() > pos:
            lines.append(m)
            pos = m.end()
        done = pos
        counts = [int(m["count"]) for m in lines]
        if len(lines) < 2 or any(b > a for a, b in zip(counts, counts[1:], strict=False)):
            continue
        for m in lines:
            words = m["name"].split()
            if 2 <= len(words) <= 5 and all(w[:1].isupper() or w in _PARTICLES for w in words) and _person(m["name"]):
                yield Hit(m.start("name"), m.start("name") + len(m["name"]), PERSON, "git-person")
