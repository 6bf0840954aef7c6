"""A password typed by browser automation into a field whose selector, label or description says
it is a password's (or a PIN's, a secret's, a token's) field.

Agents drive browsers with Playwright, Puppeteer, Selenium, Cypress, WebdriverIO, Capybara, or
a browser tool (Playwright MCP's `browser_type`: `{"element": "Password textbox", "ref": "e12",
"text": X}`, the element described in words, the text typed). The value has no name of its own:
the field it goes into names it. Whatever it looks like, a value typed there is the secret
(`Velvet0637?` reads as a word and a number; a test's `hunter2` is a password too).

    await page.fill('#password', X)              page.getByLabel('Password').fill(X)
    driver.find_element(By.ID, "pwd").send_keys(X)   cy.get('input[name=password]').type(X)
    fill_in 'Password', with: X                  {"element": "Password textbox", "text": X}

The field is read from the call's own selector (two-argument forms), from the statement before
the call (a locator chain or a variable named for the field), or from the record's element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._base import CREDENTIAL, PLACEHOLDER_RE, Hit, is_template
from ._values import _NAME_PARTS, LITERAL_WORDS, _closing_quote, _joined_words, is_doc_placeholder

if TYPE_CHECKING:
    from ._anchors import Anchors

# Words that make a field a secret's: a password's (any of its forms), a PIN's, a secret's, a token's
_FIELD_WORDS = LITERAL_WORDS | {"pin", "token", "apikey", "passkey"}
# Methods that type text: into the element they are called on (`.fill(X)`), or into the element
# their first argument selects (`page.fill(SELECTOR, X)`, `page.type(SELECTOR, X)`)
_TYPERS = (".fill(", ".type(", ".send_keys(", ".sendKeys(", ".setValue(", ".addValue(", ".pressSequentially(",
           ".press_sequentially(")
_QUOTE = re.compile(r"\\{0,3}[\"'`]")
# after the typed value: the call's end, or its options (`.type(X, {log: false})`, `.fill(X, { timeout })`)
_VALUE_END = re.compile(r"[ \t]*(?:\)|,[ \t]*\{)")
_ARG_SEP = re.compile(r"[ \t]*,[ \t]*")
# Capybara: `fill_in 'Password', with: X`, `fill_in :password, with: X`
_FILL_IN = re.compile(r"fill_in[ \t(]+(?P<field>:\w{1,64}|\\{0,3}[\"'][^\"'\n]{1,200}\\{0,3}[\"'])[ \t]*,[ \t]*"
                      r"with:[ \t]*(?=\\{0,3}[\"'])")
# A record in JSON text that names the element typed into (`"element": "Password textbox"`)
_ELEMENT = re.compile(r"(?:element|selector|locator)\\{0,3}[\"'][ \t]*:[ \t]*\\{0,3}[\"']"
                      r"(?P<field>[^\"'\\\n]{1,200})")
_TYPED_KEY = re.compile(r"(?<![\w-])(?:text|value)\\{0,3}[\"'][ \t]*:[ \t]*(?=\\{0,3}[\"'])")
ELEMENT_ANCHORS = ("element\"", "element\\\"", "selector\"", "selector\\\"", "locator\"", "locator\\\"")
TYPED_ANCHORS = (*_TYPERS, "fill_in", *ELEMENT_ANCHORS)


def names_secret_field(description: str) -> bool:
    """A selector, label or description of a field for a password, PIN, secret or token
    (`#password`, `input[type=password]`, `Password textbox`, `pwd`, `user[pass]`)."""
    words = _joined_words([p.lower() for p in _NAME_PARTS.findall(description)])
    return any(w in _FIELD_WORDS for w in words)


def typed_value(value: str) -> bool:
    """A value typed into a secret's field is the secret, unless it stands for one (`${PW}`,
    `{{password}}`, `your_password`), is a key press (Cypress's `{enter}`) or is empty."""
    v = value.strip()
    return len(v) >= 3 and not is_template(v) and not PLACEHOLDER_RE.search(v) and not v.startswith("{") and not (
        is_doc_placeholder(v))


def typed_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The literal typed into a password's field by a browser automation call or tool."""
    done = -1
    for i in anchors.find(TYPED_ANCHORS):
        if i < done:
            continue
        if text.startswith(ELEMENT_ANCHORS, i):
            hit = _record_value(text, i)
        elif text.startswith("fill_in", i):
            hit = _fill_in(text, i)
        else:
            hit = _typed_call(text, i)
        if hit is not None:
            done = hit.end
            yield hit


def _quoted(text: str, pos: int) -> tuple[int, int] | None:
    """The inside of the quoted string at pos (one line), or None."""
    opener = _QUOTE.match(text, pos)
    if opener is None:
        return None
    close = _closing_quote(text, opener.end(), opener.group())
    if close < opener.end() or "\n" in text[opener.end() : close]:
        return None
    return opener.end(), close


def _close_of(text: str, start: int, end: int) -> int:
    """Where the quote closing the string [start, end) ends (past its escapes)."""
    m = _QUOTE.match(text, end)
    return m.end() if m is not None else end


def _typed_call(text: str, i: int) -> Hit | None:
    pos = text.index("(", i) + 1
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    first = _quoted(text, pos)
    if first is None:
        return None
    after = _close_of(text, *first)
    sep = _ARG_SEP.match(text, after)
    second = _quoted(text, sep.end()) if sep is not None else None
    if second is not None and _VALUE_END.match(text, _close_of(text, *second)):
        # `page.fill(SELECTOR, X)`: the selector names the field
        field, (vs, ve) = text[first[0] : first[1]], second
    elif _VALUE_END.match(text, after):
        # `<locator>.fill(X)`: the expression the method is called on names the field
        field, (vs, ve) = _receiver(text, i), first
    else:
        return None
    if names_secret_field(field) and typed_value(text[vs:ve]):
        return Hit(vs, ve, CREDENTIAL, "typed-secret")
    return None


def _receiver(text: str, dot: int) -> str:
    """The expression before `.method(` at dot: a chain of names, calls and subscripts
    (`page.getByRole('textbox', { name: 'Password' })`, `driver.find_element(By.ID, "pwd")`,
    `self.password_input`), read back to what is no part of it (a blank, `=`, `await `)."""
    lo = max(0, dot - 300)
    j, depth = dot, 0
    while j > lo:
        c = text[j - 1]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (c.isalnum() or c in "_.$"):
            break
        j -= 1
    return text[j:dot]


def _fill_in(text: str, i: int) -> Hit | None:
    m = _FILL_IN.match(text, i)
    if m is None:
        return None
    value = _quoted(text, m.end())
    if value is None or not names_secret_field(m["field"]) or not typed_value(text[value[0] : value[1]]):
        return None
    return Hit(value[0], value[1], CREDENTIAL, "typed-secret")


def _record_value(text: str, i: int) -> Hit | None:
    """`{"element": "Password textbox", "ref": "e12", "text": X}` in JSON text: X, the record's
    `text` or `value`, before or after its element (in one record: no brace between)."""
    m = _ELEMENT.match(text, i)
    if m is None or not names_secret_field(m["field"]):
        return None
    lo, hi = max(0, i - 400), min(len(text), i + 600)
    opening = text.rfind("{", lo, i)
    closing = text.find("}", i, hi)
    if opening < 0 or closing < 0 or "}" in text[opening:i]:
        return None
    for key in _TYPED_KEY.finditer(text, opening, closing):
        value = _quoted(text, key.end())
        if value is not None and value[1] <= closing and typed_value(text[value[0] : value[1]]):
            return Hit(value[0], value[1], CREDENTIAL, "typed-secret")
    return None


# ---------------------------------------------------------------- a parsed record
_DESCRIBING = ("element", "selector", "locator", "label", "placeholder", "field", "target")
_TYPED = ("text", "value")


def typed_value_key(record: dict[Any, Any]) -> str | None:
    """In a parsed tool call's arguments, the key of the text typed into a secret's field, to
    mask whole (`{"element": "Password textbox", "ref": "e12", "text": X}` -> "text"). A `name`
    describes the field too when the record refers to a page's element (`ref`)."""
    if len(record) > 12:
        return None
    keys = _DESCRIBING + (("name",) if "ref" in record else ())
    if not any(isinstance(record.get(k), str) and names_secret_field(record[k]) for k in keys):
        return None
    return next((k for k in _TYPED if isinstance(record.get(k), str) and typed_value(record[k])), None)
