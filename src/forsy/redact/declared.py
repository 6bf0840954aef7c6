"""Values their writer declared secret, or gave as the default of something named for one.

- GitHub Actions' `::add-mask::X`: the workflow asks for X to be hidden from its own log.
- The default of a Terraform/HCL variable named for a secret or marked `sensitive = true`
  (`variable "db_password" {` … `default = "X"` … `}`, aligned by terraform fmt or not).
- The default of a parameter or input named for a secret, or marked `NoEcho: true` /
  `sensitive: true`: CloudFormation and SAM parameters, GitHub Actions inputs, any mapping
  whose `default`/`Default` key sits under such a name (YAML by its indentation, JSON by its
  braces): `DBPassword:` / `  Type: String` / `  Default: X`.

The name decides as in an assignment (`name_tier`, `accept_value`); a declared one takes any
literal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, is_template
from ._values import _OPEN_QUOTE, _closing_quote, accept_value, name_tier

if TYPE_CHECKING:
    from ._anchors import Anchors

MASK_ANCHORS = ("::add-mask::",)
# Searched here, not reported by the engine: `default:` is in every switch statement, and each
# report costs the engine's pass ~90 µs (1,568 of them: +0.14 s on a 100 MB session)
DEFAULT_WORD = ("default",)
HCL_ANCHORS = ('variable "', 'variable \\"')  # `\\"`: escaped, where no engine runs
_MASKED = re.compile(r"::add-mask::(?P<v>[^\s\"'`\\]{1,1024})")
_BLOCK = 4096  # how far a variable's or parameter's body is read
_HCL_VARIABLE = re.compile(r'variable[ \t]+\\{0,3}"(?P<name>[\w.-]{1,128})\\{0,3}"[ \t]*\{')
_HCL_END = re.compile(r"(?:\n|\\n)\}")
_HCL_DEFAULT = re.compile(r"(?:\n|\\n)[ \t]*default[ \t]*=[ \t]*")
_HCL_INLINE = re.compile(r"[ \t]*default[ \t]*=[ \t]*")
_SENSITIVE = re.compile(r"(?:sensitive|Sensitive|NoEcho)\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?(?:true|True)\b")
# after `default`/`Default`: an HCL `=`, a YAML `:` or a JSON key's `":`
_DEFAULT_SEP = re.compile(r"(?P<q>\\{0,3}[\"'])?[ \t]*(?P<sep>=|:)[ \t]*")
_BARE = re.compile(r"[^\s,}\]#\"'`\\]{1,1024}")
_JSON_KEY = re.compile(r"\\{0,3}[\"'](?P<name>[\w.-]{1,128})\\{0,3}[\"'][ \t]*:[ \t]*$")
_ESCAPED_LINE_KEY = re.compile(r"\\n[ \t]*(?:\\{1,3}[\"'])?\Z")
_KEY = re.compile(r"[ \t]*(?:-[ \t]+)?\\{0,3}[\"']?(?P<name>[\w.-]{1,128})\\{0,3}[\"']?[ \t]*:")


def declared_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`::add-mask::X`, and the default of a variable or parameter named for a secret."""
    for i in anchors.find(MASK_ANCHORS):
        m = _MASKED.match(text, i)
        if m is not None and not is_template(m["v"]) and len(m["v"]) >= 3:
            yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "declared-secret")
    done = -1
    for i in anchors.find(HCL_ANCHORS):
        hit = _hcl_default(text, i)
        if hit is not None:
            done = max(done, hit.end)
            yield hit
    for i in anchors.find(DEFAULT_WORD, ignore_case=True):
        if i < done or (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            continue  # `defaults`, `is_default`
        sep = _DEFAULT_SEP.match(text, i + 7)
        if sep is None or (sep["q"] is None) != (text[i - 1 : i] not in ('"', "'")):
            continue
        owner = _owner(text, i, json_key=sep["q"] is not None)
        if owner is None:
            if _ESCAPED_LINE_KEY.search(text, max(0, i - 64), i):
                anchors.want_json_view = True  # the default is a line's key in escaped text: read decoded
            continue
        name, body_start = owner
        tier = name_tier(name)
        declared = _SENSITIVE.search(text, body_start, min(len(text), body_start + _BLOCK)) is not None
        if not tier and not declared:
            continue
        hit = _value(text, sep.end(), name if tier else "password", tier or 1)
        if hit is not None:
            done = hit.end
            yield hit


def _hcl_default(text: str, i: int) -> Hit | None:
    """`variable "db_password" {` … `default = "X"` … `}` (terraform fmt closes a block at the
    line's start): X, when the name is a secret's or the block says `sensitive = true`."""
    m = _HCL_VARIABLE.match(text, i)
    if m is None:
        return None
    close = _HCL_END.search(text, m.end(), m.end() + _BLOCK)
    end = close.start() if close is not None else min(len(text), m.end() + _BLOCK)
    # a block on one line holds one argument: `variable "db_password" { default = "X" }`
    default = _HCL_INLINE.match(text, m.end()) or _HCL_DEFAULT.search(text, m.end(), end)
    if default is None:
        return None
    tier = name_tier(m["name"])
    if not tier and _SENSITIVE.search(text, m.end(), end) is None:
        return None
    return _value(text, default.end(), m["name"] if tier else "password", tier or 1)


def _value(text: str, pos: int, name: str, tier: int) -> Hit | None:
    opener = _OPEN_QUOTE.match(text, pos)
    if opener is not None:
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close > opener.end() and "\n" not in value and "\\" not in value and accept_value(
                name, tier, value, quoted=True):
            return Hit(opener.end(), close, CREDENTIAL, "declared-secret")
        return None
    bare = _BARE.match(text, pos)
    if bare is not None and accept_value(name, tier, bare.group(), quoted=True) and bare.group() not in (
            "null", "true", "false", "~"):
        return Hit(bare.start(), bare.end(), CREDENTIAL, "declared-secret")
    return None


def _owner(text: str, i: int, *, json_key: bool) -> tuple[str, int] | None:
    """The name of the variable or mapping whose default is at `i` (the first key of its line),
    and where its body starts."""
    lo = max(0, i - _BLOCK)
    line = text.rfind("\n", lo, i) + 1
    head = text[line : i - (1 if json_key else 0)]
    if head.strip(" \t"):
        return None  # not the line's key: `export default`, `x.default = …`
    brace = text.rfind("{", lo, line)
    if brace >= 0 and text.rfind("}", brace, line) < 0:
        # JSON `"x": {` (a nested block before the default: not read)
        start = text.rfind("\n", lo, brace) + 1
        key = _JSON_KEY.search(text, max(start, brace - 200), brace)
        return (key["name"], brace) if key is not None else None
    # YAML: the nearest line above indented less than the default's
    indent = len(head) - len(head.lstrip(" "))
    pos = line - 1
    while pos > lo:
        above = text.rfind("\n", lo, pos) + 1
        row = text[above:pos]
        stripped = row.lstrip(" ")
        if stripped and not stripped.startswith("#"):
            if len(row) - len(stripped) < indent:
                m = _KEY.match(row)
                return (m["name"], above) if m is not None and row.rstrip().endswith(":") else None
            if "{" in row or "}" in row:
                return None  # braces: not YAML
        pos = above - 1
    return None

