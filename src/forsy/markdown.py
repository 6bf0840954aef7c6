"""Log text written into Markdown or shown to a person, made inert.

Log text is untrusted: a first prompt or an `ai-title` may hold `# heading`, `<img src=…>`,
`<iframe>`, link syntax, or Unicode bidirectional controls that reorder what a reader sees
("Trojan Source"). Every writer of a card, a Markdown page or an HTML page passes log text
through these, so that what is shown is the text as written, nothing more.
"""

from __future__ import annotations

import re

# Unicode bidirectional embeddings, overrides and isolates (marks are harmless and kept)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
# what opens a block at the start of a line: heading, quote, list item, rule, setext underline
_BLOCK_MARK = re.compile(r"^([#>+*=-])")
_LIST_NUMBER = re.compile(r"^(\d+)([.)])")


_SURROGATE = re.compile("[\ud800-\udfff]")


def visible(text: str, *, html: bool = False) -> str:
    """`text` with every bidirectional control shown as its code point (`<U+202E>`; in `html`
    already escaped, `&lt;U+202E&gt;`), and a file name's bytes that are not UTF-8 (kept as
    lone surrogates) as `\\xNN`, as `ls -b` shows them: a page can always be written."""
    lt, gt = ("&lt;", "&gt;") if html else ("<", ">")
    shown = _BIDI.sub(lambda m: f"{lt}U+{ord(m.group(0)):04X}{gt}", text)
    if _SURROGATE.search(shown):
        shown = shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")  # any lone surrogate left
    return shown


def inline(text: object) -> str:
    """One line of Markdown showing `text` literally: whitespace folded, HTML and Markdown syntax
    characters escaped (no tag, link, image, emphasis or table cell can be made), and a line
    start that would open a block (`# `, `> `, `- `, `1. `) escaped."""
    s = visible(" ".join(str("" if text is None else text).split()))
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = re.sub(r"([\\`*_{}\[\]|~])", r"\\\1", s)
    return _LIST_NUMBER.sub(r"\1\\\2", _BLOCK_MARK.sub(r"\\\1", s))


def fence(text: object) -> str:
    """A fenced code block holding `text` literally (the fence is longer than any run of backticks in it)."""
    s = visible(str("" if text is None else text))
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    f = "`" * max(3, longest + 1)
    return f"{f}text\n{s}\n{f}"


__all__ = ["fence", "inline", "visible"]
