"""forsy's own detection rules: what the kingfisher engine misses in agent logs.

The rules that run, in order (project_rules), and those that read the value of a name:
URL passwords, PEM and PuTTY keys, cookies, `name = value` assignments. Tokens, personal
data and command lines have modules of their own; the parts every rule is made of are
described in _base.py.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

from ._anchors import Anchors
from ._base import (
    _ALNUM,
    CREDENTIAL,
    PLACEHOLDER,
    PLACEHOLDER_RE,
    Finder,
    Hit,
    is_template,
    looks_random,
    past_escape,
)
from ._tokens import HEADER_RULES, TOKEN_FINDER
from ._values import (
    _OPEN_QUOTE,
    NAME_KEYWORDS,
    TRAILING_OK,
    _closing_quote,
    accept_value,
    code_brackets,
    is_doc_placeholder,
    name_tier,
    password_like,
)
from .addresses import nl_street, postcode_address, street_address
from .browser import typed_secret
from .calls import call_secret, credential_pair
from .cmdline import _flag_value, cli_secret, setter_value
from .codes import code_secret
from .contacts import bank_account, mailing_address, obfuscated_email, tilde_user
from .declared import declared_secret
from .finance import iban, payment_card, wallet_key
from .headers import credential_header
from .inserts import sql_values
from .jwk import jwk_private
from .keys import base64_private_key, key_block, private_key, putty_key, signing_secret_key
from .languages import language_secret
from .links import access_param, authenticator_export, capability_link
from .logins import auth_command, login_pair
from .manifests import author_names
from .namefields import name_field
from .national import national_id
from .network import ip_address
from .otp import otp_material
from .outputs import device_secret, next_line_secret
from .pairs import pair_secret, wrapped_secret
from .people import git_person
from .personal import birth_date, email, government_id, home_path_user, labelled_phone, phone
from .pieces import joined_after, joined_literal, wrapped_jwt
from .places import coordinates, mac_address
from .prefixed import prefixed_token
from .printed import printed_secret
from .prompts import prompt_answer
from .prose import pair_in_prose, phrase_secret, prose_secret
from .seeds import seed_phrase
from .structure import (
    base64_secret,
    credential_lines,
    flag_secret,
    net_secret,
    sasl_secret,
    sql_secret,
    stdin_secret,
    url_path_secret,
)
from .tables import table_values

__all__ = ["Anchors", "assignment", "base64_private_key", "cookie", "json_view_rules", "name_tier", "private_key",
           "project_rules", "putty_key", "url_password"]

# ---------------------------------------------------------------- URLs with passwords
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_URL_USERINFO = re.compile(r"[^\s:/?#@\"'\\<>]{0,128}:(?P<v>[^\s/?#\"'\\<>]{1,256})@(?=[A-Za-z0-9\[_-])")
_URL_USERINFO_ESCAPED = re.compile(r"[^\s:/?#@\"'<>]{0,128}:[^\s/?#\"'<>]{1,256}@")
# a token given as the user, with no password (`https://<token>@github.com/…`, a Sentry DSN's key)
_URL_TOKEN_USER = re.compile(r"(?P<v>[A-Za-z0-9_.~+=-]{20,256})@(?=[A-Za-z0-9\[_-])")


def url_password(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`scheme://user:password@host`: the password (kept encoded as it appears); a token given
    as the user alone (`https://<token>@host`): the token."""
    if "@" not in text:
        return
    for i in anchors.find(("://", ":\\/\\/")):
        j = i
        while j > 0 and i - j < 21 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        if j == i or not text[j].isalpha():  # no scheme before "://"
            continue
        at = i + (3 if text[i + 1] == "/" else 5)
        m = _URL_USERINFO.match(text, at)
        if m is None and "\\" in text[at : at + 400] and _URL_USERINFO_ESCAPED.match(text, at):
            anchors.want_json_view = True  # user info with an escape in it: read it decoded
        if m is None and (user := _URL_TOKEN_USER.match(text, at)) is not None and looks_random(user["v"], 20):
            yield Hit(user.start("v"), user.end("v"), CREDENTIAL, "url-password")
            continue
        if m is None or is_template(m.group("v")) or PLACEHOLDER_RE.search(m.group("v")):
            continue
        kind = PLACEHOLDER if is_doc_placeholder(m.group("v")) else CREDENTIAL  # `user:your_password@`
        yield Hit(m.start("v"), m.end("v"), kind, "url-password")


# ---------------------------------------------------------------- signed URLs
# A pre-signed URL (S3 and SigV2 `Signature`, `X-Amz-Signature`, `X-Goog-Signature`, CloudFront
# `Signature`, Azure SAS `sig`) opens its object to whoever holds it until it expires: the
# signature is the credential, whatever the service. Only a query parameter, so
# `signature=inspect.signature(f)` in code stays.
SIGNATURE_ANCHORS = ("signature=", "sig=")
_QUERY_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_QUERY_VALUE = re.compile(r"[^&\s\"'<>#\\]{1,2048}")


def url_signature(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a URL's signature parameter (`?…&X-Amz-Signature=VALUE`)."""
    for i in anchors.find(SIGNATURE_ANCHORS, ignore_case=True):
        eq = text.index("=", i)
        start = i
        while start > 0 and i - start < 40 and text[start - 1] in _QUERY_NAME:
            start -= 1
        name = text[start:eq].lower()
        if not (name in ("sig", "signature") or name.endswith("-signature")):
            continue  # `nosig=`, `x_signature_count=`
        if start == 0 or not (text[start - 1] in "?&" or text.endswith("&amp;", 0, start)):
            continue  # not a query parameter
        m = _QUERY_VALUE.match(text, eq + 1)
        if m is None:
            continue
        value = m.group()
        decoded = urllib.parse.unquote(value)
        if looks_random(decoded.rstrip("="), 16) or _HEX_SIGNATURE.fullmatch(decoded):
            yield Hit(m.start(), m.end(), CREDENTIAL, "url-signature")


_HEX_SIGNATURE = re.compile(r"[0-9a-fA-F]{32,1024}")


# ---------------------------------------------------------------- cookies
_COOKIE = re.compile(r"(?:cookie\\{0,3}[\"']?[ \t]*:|(?P<flag>cookie[ \t]+))[ \t]*\\{0,3}[\"']?"
                     r"(?P<v>[^\r\n\"'\\]{1,8192})", re.IGNORECASE)
COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority", "version"})


def cookie(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Values of `Cookie:` / `Set-Cookie:` / `curl --cookie` pairs (attributes like Path stay)."""
    for i in anchors.find(("cookie",), ignore_case=True):
        if i > 0 and text[i - 1] in _ALNUM:
            continue
        m = _COOKIE.match(text, i)
        if m is None or (m.group("flag") and text[i - 2 : i] != "--"):
            continue  # "cookie VALUE" only as curl's "--cookie VALUE"
        yield from _cookie_values(text, m.start("v"), m.end("v"))


def _cookie_values(text: str, start: int, end: int) -> Iterator[Hit]:
    """The value of each `name=value` of a cookie list (split in Python: linear time)."""
    pos = start
    for part in text[start:end].split(";"):
        name, eq, value = part.partition("=")
        stripped = value.strip()
        if eq and name.strip() and stripped and name.strip().lower() not in COOKIE_ATTRIBUTES and not is_template(
                stripped):
            vstart = pos + len(name) + 1 + (len(value) - len(value.lstrip()))
            yield Hit(vstart, vstart + len(stripped), CREDENTIAL, "cookie")
        pos += len(part) + 1



# A cookie as a server sets it, without its `Set-Cookie:` header (a framework's log, a test's
# expectation, a browser's devtools copy): `name=value` followed by one of its attributes
COOKIE_STRING_ANCHORS = tuple(f"; {v}" for a in ("Path=", "Domain=", "Expires=", "Max-Age=", "SameSite=", "HttpOnly",
                                                  "Secure") for v in dict.fromkeys((a, a.lower(), a.upper())))
_COOKIE_PAIR = re.compile(r"(?:^|(?<=[\s\"'`(,]))(?P<name>[\w!#$%&*+.^|~-]{1,128})=(?P<v>[^;\s\"'`\\]{1,4096})\Z")


def cookie_string(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a cookie given with its attributes (`sid=X; Path=/; HttpOnly`)."""
    done = -1
    for i in anchors.find(COOKIE_STRING_ANCHORS):
        if i <= done:
            continue
        m = _COOKIE_PAIR.search(text, max(0, i - 4200), i)
        if m is None or m["name"].lower() in COOKIE_ATTRIBUTES or is_template(m["v"]):
            continue
        done = m.end("v")
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "cookie")


# ---------------------------------------------------------------- name = value assignments
# Found keyword-first (then the name is grown around it) so that no regex ever starts
# with an unbounded identifier repeat: that would be quadratic on long base64 runs.
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# "my password is Tr0ub4dor&3", "POSTGRES_PASSWORD is set to X", "set DB_PASSWORD to X", "add
# API_KEY with value X", "password -> X", "password — X": a prose separator, for values that are
# not plain words (`to` only after a verb that sets: `_SET_BEFORE`)
_PROSE_SEP = (r"|(?P<prose>[ \t]+(?:(?:is|was|are)(?:[ \t]+(?:now|still))?(?:[ \t]+(?:set|changed|updated|reset)"
              r"(?:[ \t]+to)?)?|to|with[ \t]+(?:the[ \t]+)?value(?:[ \t]+of)?|->|→|—|–)[ \t\u00a0]+(?=\S))")
_SET_BEFORE = re.compile(r"(?:^|[\s`\"'])(?i:set|change|update|reset)[ \t]+[`\"']?\Z")
# a table's cell wall: a pipe, or a box's line (`│ token │ X │`, as npm and other tools draw tables)
_PIPES = frozenset("|│┃║")
_PIPE = "[" + "".join(sorted(_PIPES)) + "]"
_PROSE_SECRET = re.compile(r"(?=\S{6})\S*[^A-Za-z\s.,;:!?'\")]")
# `settings["password"] = x`, `ENV['SECRET'] = x`: a key's closing quote, and a subscript's `]`;
# `<-`: R's assignment; `token == "X"`, `!= "X"`: a comparison with a literal gives the literal away
# (a full-width `：` or `＝` is one too, and a no-break space a blank)
_SEPARATOR = re.compile(
    r"(?P<nq>\\{0,3}[\"']\]?)?[ \t\u00a0]*(?P<sep>:=|=>|==(?=[^\s=])|(?<![=!<>])[=＝](?![=>]|~\s)|[:：](?![:/=])|"
    + _PIPE + r"(?=[ \t])|<-(?=[ \t])|[!=]={1,2}(?=[ \t]*\\{0,3}[\"'])" + _PROSE_SEP + r")[ \t\u00a0]*")
# A declared type between a name and its `=` (`let token: &str = …`, `val password: String = …`,
# `API_KEY: Final[str] = …`, `authToken: string | undefined = …`): the type is not the value.
# Formatters put blanks around that `=`; `password: abc=def` is YAML's value, not a type.
_DECLARED_TYPE = re.compile(
    r"[ \t]*:[ \t]*(?P<type>&?(?:'[A-Za-z_]\w*[ \t]+)?(?:mut[ \t]+)?[A-Za-z_][\w.]*"
    r"(?:<[^<>=\n]{0,80}>|\[[^\]\n]{0,40}\])?\??(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]*\??)*)(?=[ \t]+=[ \t])")
_CLI_SEPARATOR = re.compile(r"(?P<nq>)(?P<sep>=|[ \t]+)")
# `DB_PASSWORD==x`: for an env-style name, "==" is a value starting with "=", not a comparison
_ENV_SEPARATOR = re.compile(
    r"(?P<nq>\\{0,3}[\"']\]?)?[ \t\u00a0]*(?P<sep>:=|=>|[=＝]|[:：](?![:/=])|" + _PIPE + r"(?=[ \t])|<-(?=[ \t])"
    + _PROSE_SEP + r")[ \t\u00a0]*")
# a YAML tag before a value: a standard one (`!!str`), or a local one (CloudFormation's `!Ref`,
# Home Assistant's `!secret`), which names where the value is, never the value itself
_YAML_TAG = re.compile(r"!(?:(?P<std>!(?:str|binary))|[A-Za-z][\w.:-]{0,40})[ \t]+")
# `<password>value</password>` and netrc's `login NAME password VALUE`
_XML_VALUE = re.compile(r">(?P<v>[^<>\n]{1,1024})</")
# `<entry key="…` / `<property name='…` (JSON-escaped quotes too): a tag whose attribute names what it holds
_XML_NAMING_TAG = re.compile(r"<(?P<tag>[A-Za-z][\w:.-]{0,40})\s(?:[^<>]{0,160}\s)?(?:name|key|Name|Key|NAME|KEY)"
                             r"[ \t]*=[ \t]*\\{0,3}[\"']\Z")
# the name's closing quote, the tag's other attributes, then its `>` (not `/>`: no content)
_XML_TAG_END = re.compile(r"\\{0,3}[\"'](?:[ \t]+[^<>]{0,160}?)?(?<!/)>")
# A key element naming the value element after it: a property list's `<key>password</key>
# <string>X</string>`, Hadoop's `<name>fs.s3a.secret.key</name> <value>X</value>`
_KEY_ELEMENT = re.compile(r"<(?P<t>key|name|Key|Name|param-name)>[A-Za-z0-9_.-]{1,64}(?=</(?P=t)>)")
_VALUE_ELEMENT = re.compile(r"</[\w-]{1,12}>(?:\s|\\[nrt]){0,12}<(?P<t>string|value|data|Value|param-value)>"
                            r"(?P<v>[^<>\n]{1,1024})</(?P=t)>")
_NETRC_LOGIN = re.compile(r"\blogin[ \t]+\S+[ \t\n]+$")
_NETRC_VALUE = re.compile(r"[ \t]+(?P<v>\S{1,1024})")
_BARE = re.compile(r"[^\s\"'`\\,;<>]{1,1024}")
# what may follow a bare value's comma on its line and still be the value: no blank, no separator
_COMMA_REST = re.compile(r"(?:,[^\s\"'`\\,;<>=:]{1,256})+(?=\r?\n|\\[rn]|\Z)")
_FORM_FIELD = re.compile(r"&(?=[A-Za-z_][A-Za-z0-9_.-]{0,40}=)")



def assignment(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`name = value`, `name: value`, `"name": "value"`, `--name=value` with a secret-looking name."""
    done = 0
    n = len(text)
    for i in anchors.find(NAME_KEYWORDS, ignore_case=True):
        if i < done:
            continue
        m = _NAME_TAIL.match(text, i)
        end = done = m.end() if m else i
        if (word := _LABEL_WORD.match(text, end)) is not None and word["w"].lower() in TRAILING_OK:
            end = done = word.end()  # a label of words: `Key Content : X` (netsh), `Secret Value: X`
        # most keyword hits ("input_tokens": 12, "the key is") are ruled out here, cheaply
        if end >= n or text[end] not in _AFTER_NAME or not name_tier(text[i:end]):
            continue  # (no secret word before the first keyword, so the tail's tier bounds the name's)
        start = _name_start(text, i)
        if _OPERAND_BEFORE.search(text, max(0, start - 8), start):
            continue  # compared, not given a value: `if password == pw: …`
        name = text[start:end]
        tier = name_tier(name)
        if tier and (prev := _WORD_BEFORE.search(text, max(0, start - 16), start)) is not None and not name_tier(
                f"{prev['w']}_{name}"):
            continue  # a label of words that names no secret: `public key: X` (`wg show`), `sort key: X`
        if tier and text[start - 2 : start] == "${":  # a shell expansion: `${NAME}` refers to a value
            # `${NAME:-default}`: documentation's stand-in, or a real fallback when it looks like a secret
            default = _SHELL_DEFAULT.match(text, end)
            if default is not None:
                done = default.end()
                v = default.group("v")
                if v and (looks_random(v, 16) or (tier == 1 and password_like(v) and not is_doc_placeholder(v))):
                    yield Hit(default.start("v"), default.end("v"), CREDENTIAL, "secret-assignment")  # a real fallback
                elif v:
                    yield Hit(default.start("v"), default.end("v"), PLACEHOLDER, "shell-default")
        elif tier and text[end] == "(":
            hit = _call_value(text, name, tier, end)
            if hit is not None:
                done = hit.end
                yield hit
        elif tier:
            hit = (_value_after(text, name, tier, end, anchors) or _markup_value(text, start, end, name, tier)
                   or setter_value(text, start, end, name, tier, anchors))
            if hit is not None:
                done = hit.end
                yield hit


_NAME_TAIL = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_OPERAND_BEFORE = re.compile(r"[=!<>]=[ \t]*\Z")
_WORD_BEFORE = re.compile(r"(?:^|(?<=[\s\"']))(?P<w>[A-Za-z]{2,16}) \Z")
_LABEL_WORD = re.compile(r" (?P<w>[A-Za-z]{3,12})(?=[ \t]*:[ \t])")
_SHELL_DEFAULT = re.compile(r":?[-=](?P<v>[^}\s\"'`]{0,200})\}")
_AFTER_NAME = frozenset(" \t\"':=\\><(\u00a0：＝") | _PIPES
# A call named for a secret with one literal argument: a builder's `.apiKey("X")`, `with_token("X")`,
# a setter `setPassword('X')` (JSON-escaped quotes too)
_CALL_LITERAL = re.compile(r"\([ \t]*(?P<q>\\{0,3}[\"'`])(?P<v>[^\"'`\\\n]{1,512})(?P=q)[ \t]*\)")


def _call_value(text: str, name: str, tier: int, pos: int) -> Hit | None:
    """The one literal argument of a call named for a secret, when it looks like one on its own
    (`getToken("github")`, `hashPassword(input)`, `secret("db-password")` stay)."""
    m = _CALL_LITERAL.match(text, pos)
    if m is None:
        return None
    value = m["v"]
    ok = looks_random(value, 16) if tier == 2 else password_like(value, 6) or looks_random(value, 16)
    if ok and accept_value(name, tier, value, quoted=True):
        return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    return None


def _name_start(text: str, start: int) -> int:
    lo = max(0, start - 64)
    while start > lo and text[start - 1] in _NAME_CHARS:
        start -= 1
    return past_escape(text, start)  # "\nPASSWORD=…" in escaped text: the "n" is the escape's




def _markup_value(text: str, start: int, end: int, name: str, tier: int) -> Hit | None:
    """`<password>value</password>`, an element its `name`/`key` attribute names
    (`<entry key="db.password">value</entry>`, Hibernate's `<property name="…password">`), or
    netrc's `… login NAME password VALUE`."""
    if start > 0 and text[start - 1] == "<" and text[end : end + 1] == ">":
        m = _XML_VALUE.match(text, end)
        if m and text.startswith(name + ">", m.end()) and accept_value(name, tier, m["v"], quoted=True):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    elif start > 0 and text[start - 1] in "\"'" and (tag := _XML_NAMING_TAG.search(text, max(0, start - 240), start)):
        rest = _XML_TAG_END.match(text, end)
        m = _XML_VALUE.match(text, rest.end() - 1) if rest is not None else None
        if (m and text.startswith(tag["tag"] + ">", m.end())
                and accept_value(name, tier, m["v"], quoted=True)):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    elif start > 0 and text[start - 1] == ">" and (pair := _KEY_ELEMENT.search(text, max(0, start - 13), end + 13)):
        m = _VALUE_ELEMENT.match(text, end) if pair.end() == end else None
        if m and accept_value(name, tier, m["v"], quoted=True):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    elif name.lower() == "password" and _NETRC_LOGIN.search(text, max(0, start - 200), start):
        m = _NETRC_VALUE.match(text, end)
        if m and accept_value(name, tier, m["v"], quoted=True):
            return Hit(m.start("v"), m.end("v"), CREDENTIAL, "secret-assignment")
    return None


def _value_after(text: str, name: str, tier: int, pos: int, anchors: Anchors) -> Hit | None:
    """The secret value after `name` at `pos`, if a literal one follows a separator.

    A value that holds an escape (`\\\"` in a quoted one, `\\\\` in a bare one) cannot be
    cut right here: it asks for the JSON-unescaped view (anchors.want_json_view)."""
    # a flag: `--name`, or `-name` as a word of its own (Go, PowerShell, keytool style)
    before = pos - len(name) - 1
    flag = name.startswith("--") or (name.startswith("-") and (before < 0 or text[before] in " \t\"'("))
    if flag:
        sep_re = _CLI_SEPARATOR
    else:
        sep_re = _ENV_SEPARATOR if name.isupper() else _SEPARATOR
    typed = None if flag else _DECLARED_TYPE.match(text, pos)
    sep = (_SEPARATOR.match(text, typed.end()) if typed is not None else None) or sep_re.match(text, pos)
    if sep is None:
        if text.startswith("\\u", pos):  # `password\u003d…`: an escaped separator, read decoded
            anchors.want_json_view = True
            return None
        return None if flag else _positional_value(text, name, pos)
    sep_text = sep.group("sep").replace("：", ":").replace("＝", "=")
    prose = bool(sep.groupdict().get("prose"))
    if prose and sep_text.strip() == "to" and not _SET_BEFORE.search(text, max(0, before - 12), before + 1):
        return None  # "add DB_PASSWORD to .env": a place, not a value
    if sep_text in _PIPES and not _TABLE_CELL.search(text, max(0, before - 8), before + 1):
        return None  # `| password | X |`, ` password | X` are a table's row; `$PASSWORD' | base64` a pipe
    vstart = sep.end()
    if text.startswith("!", vstart) and (tag := _YAML_TAG.match(text, vstart)) is not None:
        if tag["std"] is None:  # `!Ref DbPassword`, `!Sub "{{resolve:…}}"`, `!secret wifi_password`: a reference
            return None
        vstart = tag.end()  # YAML's own types: `key: !!str X` is X
    spaced = sep.start("sep") > pos + len(sep.group("nq") or "") or vstart > sep.end("sep")
    if not flag and not spaced and sep_text == ":" and before >= 0 and text[before] == ":" and (
            _ARN.search(text, max(0, before - 256), before + 1) or not (
                (part := _BARE.match(text, vstart)) and looks_random(part.group(), 16))):
        return None  # a part of a colon-separated name (an ARN's `:secret:prod/db-AbCdEf`), not a value
    env_style = (name.isupper() or name.startswith("-") or (before >= 0 and text[before] == "=")) and not spaced
    # on a command line a bare word is the value itself, never a variable (that is `$x`)
    code = not flag and not env_style and (sep_text != ":" or bool(sep.group("nq")))
    opener = _OPEN_QUOTE.match(text, vstart)
    if opener is not None:
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close < 0 or "\\" in value:
            anchors.want_json_view = anchors.want_json_view or "\\" in text[vstart : vstart + 1024]
        if close > opener.end() and "\n" not in value:
            joins = joined_after(text, close + len(opener.group()))
            if joins:  # `"Zq3W" + "m8Rt…"`: the value is what the pieces make
                joined = value + "".join(text[s:e] for s, e in joins)
                if _value_hit(name, tier, joined, opener.end(), quoted=True) is not None:
                    return Hit(opener.end(), joins[-1][1], CREDENTIAL, "secret-assignment")
            return _value_hit(name, tier, value, opener.end(), quoted=True)
        return None
    if not prose and not flag and (brk := _LINE_BREAK.match(text, vstart)) is not None:
        return _next_line_value(text, name, tier, brk.end(), marked=brk.group("mark") is not None,
                                code=code)
    if (name.lower() == "pass" and sep_text == ":") or (prose and tier == 1 and not _PROSE_SECRET.match(
            text, vstart)):
        return None  # "PASS: test_x" is a test result; "the password is wrong" is not one
    if flag:
        return _flag_value(text, name, tier, vstart, sep_text != "=", anchors)
    # `NAME=value` (shell, .env) or `--from-literal=name=value`: a comma is part of the value
    # (a trailing one is not: stripped below)
    bare = (_ENV_BARE if env_style and sep_text == "=" else _BARE).match(text, vstart)
    if bare is None:
        if text.startswith("\\", vstart):  # a value that starts with an escape (`\u00e9clair`): read decoded
            anchors.want_json_view = True
        return None
    stop = bare.end()
    if not code and (rest := _COMMA_REST.match(text, stop)) is not None:
        bare = rest  # `Key Content : ab,cd` to the line's end: a comma inside a value a person chose
        stop = bare.end()
    if text[stop : stop + 1] == "\\" and text[stop + 1 : stop + 2] not in ("n", "r", "t", '"', ""):
        anchors.want_json_view = True
    value = _trimmed(_FORM_FIELD.split(text[vstart:stop], 1)[0])  # `password=x&remember=1`: x
    if typed is not None and _REFERENCE.fullmatch(value):
        return None  # a declaration's bare value is code: `KEY1: istr = hdrs.SEC_WEBSOCKET_KEY1`
    # an unclosed bracket that no quote cut (`DB_PASSWORD=abc(123`, `password: Zq8(Lm9`): a
    # literal's, not a call's (`os.getenv(` cut at its quote); in code only after no name
    literal = _open_bracket(value, text[stop : stop + 1], code)
    hit = _value_hit(name, tier, value, vstart, quoted=literal, code=code)
    if hit is not None and hit.kind == CREDENTIAL and not code and value.isalpha() and value.islower() and (
            words := _PASSPHRASE_REST.match(text, hit.end)) is not None:
        # a word taken for the value, and only words after it to the line's end: a passphrase
        # (`password: correct horse battery staple`), masked whole, not its first word alone
        return Hit(vstart, words.end(), CREDENTIAL, "secret-assignment")
    if hit is not None and hit.kind == CREDENTIAL and not env_style and (rest := _SPACED_REST.match(text, hit.end)):
        return Hit(vstart, rest.end(), CREDENTIAL, "secret-assignment")  # `password = L1zZc9 qm5OGgx`
    return hit


# After a value, the rest of its line when it is one to three more pieces of a password (each
# with a digit or a symbol, not a bracket or a sentence's stop: `(rotated monthly)` stays): a
# config's value with blanks in it, to the line's end, no comment
_SPACED_REST = re.compile(r"(?:[ \t]+(?=[^\s]*[0-9!@$%^&*+=?~<>])[^\s#\"'`\\|]{1,64}){1,3}"
                          r"(?=[ \t]*(?:\r?\n|\\[rn]|$))")


def _open_bracket(value: str, after: str, code: bool) -> bool:
    """A bare value with an unclosed `(` that ends on no quote or comma (a call's, cut there): a
    literal that holds a bracket (in code, only where no name stands beside it:
    `S3SigV4Auth(credentials` is a call a line break cut)."""
    if ")" in value or after in ("\"", "'", "`", ",") or value.find("(") < 1 or value.endswith("("):
        return False  # (a value that opens with its bracket is a group: `(Get-Content f)`)
    return not code or not code_brackets(value)


_OPENERS = {")": "(", "]": "[", "}": "{"}


def _trimmed(value: str) -> str:
    """A bare value without what ends its sentence or closes what holds it (`f(password=x)`,
    `{password: x}`), but with a bracket it opened itself (`auth[2]`, `Zq81(QMU2m0)`)."""
    while value and value[-1] in ")]}.:,":
        c = value[-1]
        if c in _OPENERS and value.count(_OPENERS[c]) >= value.count(c):
            break
        value = value[:-1]
    return value


_PASSPHRASE_REST = re.compile(r"(?:[ \t]+[A-Za-z0-9]{1,16}){1,7}(?=[ \t]*(?:\r?\n|\\[rn]|$))")


_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_LINE_OPENS = r"\A|\n|\\n"  # where a line begins: the text's start, a newline, an escaped one
# a cell opened right before the name, or a line
_TABLE_CELL = re.compile(rf"(?:{_LINE_OPENS}|{_PIPE})[ \t]*\Z")
# an Amazon Resource Name up to a `:` (its parts are names: `…:secret:prod/db-AbCdEf` names a secret)
_ARN = re.compile(r"(?<![\w-])arn:aws[\w-]*:[^\s\"'`]*:$")
# The value on the line after its name: a continued line (`password = \\`), a parenthesised
# value (`password = (`, as black wraps a long one), a YAML block scalar (`password: |`, `>-`),
# or a value a formatter moved down (`"password":` then the quoted value). The newline is real
# or escaped (JSON text).
_LINE_BREAK = re.compile(r"(?P<mark>\\{1,2}|\(|[|>][+-]?[1-9]?[+-]?)?[ \t]*(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)[ \t]*")


def _next_line_value(text: str, name: str, tier: int, pos: int, *, marked: bool, code: bool) -> Hit | None:
    """The value at the start of the next line (`pos`): a quoted one is read as on the name's
    line, and so is a bare one after a mark that says the value follows (`\\`, `|`); else a
    bare one must look like a secret on its own (`password:` then `  type: string`, a YAML
    mapping, or `  - item` stays)."""
    opener = _OPEN_QUOTE.match(text, pos)
    if opener is not None:
        close = _closing_quote(text, opener.end(), opener.group())
        value = text[opener.end() : close]
        if close > opener.end() and "\n" not in value and "\\" not in value:
            return _value_hit(name, tier, value, opener.end(), quoted=True)
        return None
    bare = _BARE.match(text, pos)
    if bare is None:
        return None
    value, rest = bare.group(), text[bare.end() : bare.end() + 2]
    if value.endswith(":") or (rest[:1] in (" ", "\t") and rest[1:].strip()):
        return None  # a key (`type: string`), or words: not one value
    return _value_hit(name, tier if marked else 2, value, pos, quoted=False, code=code)


_DIRECTIVE_START = re.compile(rf"(?:{_LINE_OPENS})[ \t]*\Z")
_DIRECTIVE_END = re.compile(r"[ \t]*(?:\r?\n|\\[rn]|\Z)")
# a quoted value may close a call or a list (`(setq api-token "X")`, Lisp's assignment)
_POSITIONAL = re.compile(r"[ \t]+(?P<q>(?:\\{1,3}(?=[\"']))?[\"']?)(?P<v>(?!-)[^\s\"'`\\;<>|]{1,1024})(?P=q)"
                         r"(?=[\s;]|\\[nrt]|$|(?<=[\"'])[),])")


def _positional_value(text: str, name: str, pos: int) -> Hit | None:
    """`name value` given to a command as two words (`config set api_token VALUE`,
    `: PSK "VALUE"`, a `db_password VALUE` line): only after a name that is no word of prose
    (words joined by `_`, `.` or `-`, or in capitals) and only a value that looks like a
    secret on its own, whatever the name (`the db_password is stored…` stays)."""
    m = _POSITIONAL.match(text, pos)
    if m is None:
        return None
    if not (any(c in name for c in "_.-") or (name.isupper() and len(name) > 2)) and not (
            _DIRECTIVE_START.search(text, max(0, pos - len(name) - 64), pos - len(name))
            and _DIRECTIVE_END.match(text, m.end())):
        return None  # but a config file's directive alone on its line (`requirepass X`, redis.conf)
    return _value_hit(name, 2, m["v"], m.start("v"), quoted=bool(m["q"]))


# a value written with its encoding before it (Laravel's `base64:`), its padding after it
_ENCODED = re.compile(r"(?i:base64|b64|hex):(?=[A-Za-z0-9+/_-]{8})")


def _value_hit(name: str, tier: int, value: str, start: int, *, quoted: bool, code: bool = False) -> Hit | None:
    """The value at `start` as a secret, as a documentation placeholder (reported, not masked), or nothing."""
    if accept_value(name, tier, value, quoted=quoted, code=code):
        end = start + len(value)
        enc = _ENCODED.match(value)
        if enc is not None:  # `APP_KEY=base64:X=`: X is learnt too, as it may stand bare elsewhere
            inner = end - (len(value) - len(value.rstrip("=")))  # without base64's padding
            return Hit(start, end, CREDENTIAL, "secret-assignment", ((start, end), (start + enc.end(), inner)))
        return Hit(start, end, CREDENTIAL, "secret-assignment")
    if is_doc_placeholder(value):
        return Hit(start, start + len(value), PLACEHOLDER, "secret-assignment")
    return None




_ENV_BARE = re.compile(r"[^\s\"'`\\;<>]{1,1024}")



def json_view_rules() -> tuple[Finder, ...]:
    """The rules run again on JSON-unescaped text: those whose values may hold escapes. The
    others read escapes in the raw text (tokens, paths, emails, phones, names, PEM blocks)."""
    return (url_password, url_signature, assignment, cli_secret, prompt_answer, login_pair, declared_secret,
            sql_values, table_values)


def project_rules() -> tuple[Finder, ...]:
    """The fixed rules, in reporting order (when spans tie, the earlier rule names the hit)."""
    return (private_key, key_block, base64_private_key, putty_key, signing_secret_key, jwk_private, TOKEN_FINDER,
            prefixed_token, *HEADER_RULES, credential_header, url_password, url_signature, cookie, cookie_string,
            assignment, pair_secret, wrapped_secret, cli_secret, stdin_secret, credential_lines, url_path_secret,
            capability_link, access_param, authenticator_export, base64_secret,
            sasl_secret, flag_secret, net_secret, sql_secret, prose_secret, phrase_secret, pair_in_prose,
            printed_secret, device_secret, next_line_secret, language_secret, call_secret, credential_pair,
            joined_literal, wrapped_jwt, prompt_answer, login_pair, auth_command, typed_secret,
            declared_secret, email, phone, labelled_phone, payment_card, code_secret, iban, wallet_key, seed_phrase,
            government_id, national_id, birth_date, ip_address, street_address, nl_street, postcode_address,
            mailing_address, obfuscated_email, bank_account, sql_values, table_values, home_path_user, tilde_user,
            git_person, name_field, author_names, otp_material, mac_address, coordinates)
