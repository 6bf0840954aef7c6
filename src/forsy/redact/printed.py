"""A secret a command prints: `echo $DB_PASSWORD`, `printenv GITHUB_TOKEN`, `vault kv get
-field=password secret/db`, `kubectl get secret db -o jsonpath='{.data.password}' | base64 -d`,
`op read op://vault/db/password`, `security find-generic-password -s x -w`, `aws configure get
aws_secret_access_key`, `gcloud auth print-access-token`, `python -c 'print(secrets.token_hex())'`.

No list of tools: the command names what it reads (a variable, a field, a path, a verb named
for a secret, as `name_tier` reads names), and what it prints, on its one line, must look like a
secret on its own. The other rules see neither: the value stands alone, with no name beside it.

A log keeps the two in one text (a terminal's `$ cmd` and the line after it: `printed_secret`)
or as a call and its result (`printed_values`: the pairs, for the Redactor to learn before it
masks the session, so the value is masked wherever it stands).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, is_template, line_start, looks_random
from ._values import mixed_literal, name_tier, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

# programs that print their arguments or a variable: the variable's name decides
_PRINTERS = frozenset({"echo", "printf", "printenv", "print", "write-output", "write-host", "cat"})
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)|%([A-Za-z_][A-Za-z0-9_]*)%|\$env:([A-Za-z_][A-Za-z0-9_]*)")
_SEGMENT = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_WORD = re.compile(r"[^\s|;&]+")
# a shell prompt before a command in a terminal's text: `$ `, `# `, `% `, `❯ `, `PS C:\x> `, `bob@box:~/x$ `;
# and an interpreter's, whose next line is the value of the expression typed: Python's `>>> `,
# IPython's `In [3]: `, Ruby's `irb(main):001> `, Elixir's `iex(1)> `, `julia> `, `scala> `
_PROMPT = re.compile(r"(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?[$#]|PS [^>\n]{0,80}>|>>>|In \[\d+\]:"
                     r"|irb\([^)\n]{0,40}\):\d+[>*]|iex\(\d+\)>|julia>|scala>|[$#%❯›>])[ \t]+")
# how an interpreter shows the value: `Out[3]: 'x'`, `=> "x"`, R's `[1] "x"`; a string's quotes are not the value
_ECHOED = re.compile(r"(?:Out\[\d+\]:[ \t]*|=>[ \t]*|\[1\][ \t]+)?(['\"]?)(.*?)\1")
_NEWLINE = re.compile(r"\r?\n|\\r\\n|\\n")


# a store of secrets named as such (`keyring get svc me`, `kwallet-query -r x`, `security ...
# keychain`), and a source of fresh random bytes (`openssl rand -base64 32`, `pwgen -s 24 1`, `head -c
# 32 /dev/urandom | base64`): what they print on one line is a secret whatever it is called
_STORE = re.compile(r"(?<![\w-])(?:keyring|keychain|kwallet(?:-query)?)(?![\w-])", re.I)
_RANDOM = re.compile(r"(?<![\w-])(?:rand|pwgen|makepasswd|gen-random|genpass)(?![\w-])|/dev/u?random\b", re.I)


def reveals_secret(command: str) -> int:
    """How surely the command prints a secret by name: 2 when it prints a variable named for one
    or names a password or secret (a field, a JSON path, a store's path, the verb:
    `-field=password`, `find-generic-password`); 1 when a word is named for a token or a key
    (`print-access-token`, `aws_access_key_id`); 0 otherwise."""
    words = _WORD.findall(command[:2000])
    if not words:
        return 0
    first = words[0].rsplit("/", 1)[-1].lower()
    if first in _PRINTERS or (first == "sudo" and len(words) > 1 and words[1].lower() in _PRINTERS):
        names = [next(g for g in m.groups() if g) for m in _VARIABLE.finditer(command)]
        if first == "printenv":
            names += [w for w in words[1:] if not w.startswith("-")]
        if any(name_tier(n) for n in names):
            return 2
    if _STORE.search(command) or _RANDOM.search(command):
        return 2
    found = 0
    for word in words[first in _PRINTERS:]:  # the program too: `pass show mail`, `secret-tool lookup`
        if word.startswith("-") and "=" not in word:
            continue  # `--password-stdin`, `-p`: how a secret is given, not what is printed
        if "=" in word and not word.startswith("-"):
            continue  # `PASSWORD=x cmd`: a secret given to the command
        for seg in _SEGMENT.findall(word):
            # a word of hyphenated parts with one for a password or secret: `secret-tool`, `get-secret-value`
            tier = name_tier(seg) or int(any(name_tier(p) == 1 for p in seg.split("-")))
            if tier == 1:
                return 2
            if tier:
                found = 1
    return found


def printed_value(output: str, sure: bool = True) -> tuple[int, int] | None:
    """Where the secret stands in a command's output: its one line, when that looks like a
    secret on its own (Codex's `Exit code: … Output:` header skipped). Not `sure` (a word named
    for a token or a key): not a digest or an id either (`git rev-parse auth` prints a hash)."""
    start = 0
    head = output.find("\nOutput:\n", 0, 400)
    if head >= 0:
        start = head + len("\nOutput:\n")
    if len(output) - start > 600:
        return None
    lines = [m for m in _LINE.finditer(output, start) if m.group().strip()]
    if len(lines) != 1:
        return None
    value = lines[0].group().strip()
    if not _secret_looking(value) or (not sure and _HEX_OR_ID.fullmatch(value)):
        return None
    at = output.index(value, lines[0].start())
    return at, at + len(value)


_LINE = re.compile(r"[^\r\n]+")
# `name=value`: a name before an `=` inside (`Oj*NZa=EUW4` is a password with an `=` in it)
_RECORD = re.compile(r"[A-Za-z_][\w.-]*=(?!=*\Z)")
_HEX_OR_ID = re.compile(r"[0-9a-fA-F]{7,128}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _secret_looking(value: str) -> bool:
    if not 6 <= len(value) <= 512 or any(c.isspace() for c in value) or is_template(value) or _pathlike(value):
        return False
    if value.isdigit() or value.lower() in ("true", "false", "null", "none", "undefined"):
        return False
    if value.count(":") >= 2 or _RECORD.match(value) or "@" in value:
        return False  # a record (a .pgpass line, `k=v`, `user@host`): the rules that read records mask its secret

    return password_like(value, 6) or looks_random(value, 12) or mixed_literal(value)


def _pathlike(value: str) -> bool:
    """A path, a URL or a dotted name (a host, a package): not what a command printed as a
    secret. A `/` inside is no sign (an AWS secret key has them)."""
    return value.startswith(("/", "~/", "./", "../", "file:")) or "://" in value or _DOTTED_NAME.fullmatch(
        value) is not None


_DOTTED_NAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+")  # lower case: a host, a package, a version


def printed_values(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """The secrets of (command, output) pairs whose command prints one by name."""
    out = []
    for command, output in pairs:
        sure = reveals_secret(command)
        if sure and (span := printed_value(output, sure == 2)) is not None:
            out.append(output[span[0]:span[1]])
    return out


# ---------------------------------------------------------------- one text: `$ cmd` then its line
PRINTED_ANCHORS_RARE = ("pwgen", "kwallet")  # reported by the engine (_native.py)
PRINTED_ANCHORS = ("pass", "pwd", "psk", "secret", "token", "key", "auth", "cred", "rand", *PRINTED_ANCHORS_RARE)


def printed_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """In a terminal's text, the line after a prompted command that prints a secret by name."""
    done = -1
    for i in anchors.find(PRINTED_ANCHORS, ignore_case=True):
        if i < done:
            continue
        start = line_start(text, i)
        prompt = _PROMPT.match(text, start, i)
        if prompt is None:
            continue
        nl = _NEWLINE.search(text, i, i + 2000)
        if nl is None:
            continue
        done = nl.end()
        sure = reveals_secret(text[prompt.end():nl.start()])
        if not sure:
            continue
        after = _NEWLINE.search(text, nl.end(), nl.end() + 600)
        line_end = after.start() if after is not None else min(len(text), nl.end() + 600)
        value = text[nl.end():line_end].strip()
        if prompt.group().rstrip()[-1:] not in "$#%❯›" and (echo := _ECHOED.fullmatch(value)) is not None:
            value = echo.group(2)  # an interpreter's echo of a string: its text
        if (value and _secret_looking(value) and _PROMPT.match(value) is None
                and (sure == 2 or not _HEX_OR_ID.fullmatch(value))):
            at = text.index(value, nl.end())
            done = at + len(value)
            yield Hit(at, at + len(value), CREDENTIAL, "printed-secret")
