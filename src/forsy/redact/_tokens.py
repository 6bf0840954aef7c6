"""Token-prefix rules (`ghp_…`, `AKIA…`, `sk-…`, JWTs…) and authorization-header rules."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ._base import (
    CREDENTIAL,
    PLACEHOLDER_RE,
    RB,
    Finder,
    Hit,
    RegexRule,
    TokenRules,
    _rx,
    _token_like,
    is_template,
    left_ok,
    looks_random,
)

if TYPE_CHECKING:
    from ._anchors import Anchors


def _vendor(issued: range) -> Callable[[str], bool]:
    """A token after its vendor's own prefix: of a length the vendor issues, or of another
    length (a character lost or added in a paste, a format the vendor changed) when it looks
    machine-made: the prefix names it, the length need not (`ghp_` and 35 characters leaked)."""
    return lambda v: len(v) in issued or _token_like(v)


TOKEN_RULES: tuple[RegexRule, ...] = (
    # AWS issues base32 ids (`[A-Z2-7]`); any capital or digit is taken, as people and generators
    # write made-up or mistyped ones (`AKIAO22XRV8C29YSHHEV`): the prefix and length are the id's
    _rx("aws-access-key-id", r"(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})" + RB,
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    _rx("github-token", r"(?P<v>gh[pousr]_[A-Za-z0-9]{20,251})" + RB, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        accept=_vendor(range(40, 256))),
    _rx("github-fine-grained-pat", r"(?P<v>github_pat_[A-Za-z0-9_]{20,251})" + RB, ("github_pat_",),
        accept=_vendor(range(51, 263))),
    _rx("gitlab-token", r"(?P<v>gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,250}"
        r"(?:\.[A-Za-z0-9_-]{2,250}){0,3})", ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-",
                                               "glsoat-", "glft-", "glimt-", "glagent-")),
    _rx("slack-token", r"(?P<v>xox[abposre]-[A-Za-z0-9-]{10,250})", ("xox",)),
    _rx("slack-app-token", r"(?P<v>xapp-\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{20,})", ("xapp-",)),
    _rx("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9+/_-]{20,200})",
        ("hooks.slack.com",)),
    _rx("stripe-key", r"(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247})" + RB, ("sk_live_", "sk_test_",
                                                                                  "rk_live_", "rk_test_")),
    _rx("stripe-webhook-secret", r"(?P<v>whsec_[A-Za-z0-9+/=]{20,100})", ("whsec_",)),
    _rx("anthropic-key", r"(?P<v>sk-ant-[A-Za-z0-9_-]{20,250})", ("sk-ant-",)),
    _rx("openai-key", r"(?P<v>sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,250})", ("sk-",),
        accept=_token_like),
    _rx("google-api-key", r"(?P<v>AIza[0-9A-Za-z_-]{30,45})" + RB, ("AIza",), accept=_vendor(range(39, 40))),
    _rx("google-oauth", r"(?P<v>(?:ya29\.[0-9A-Za-z_-]{20,2000}|GOCSPX-[0-9A-Za-z_-]{20,60}))",
        ("ya29.", "GOCSPX-")),
    # a Google OAuth refresh token (what `gcloud auth` and the OAuth playground print)
    _rx("google-refresh-token", r"(?P<v>1//0[0-9A-Za-z_-]{40,500})" + RB, ("1//0",), accept=_token_like),
    # service tokens with a prefix that holds no word for a secret (see prefixed.py for those that do)
    _rx("service-token", r"(?P<v>(?:ops_eyJ[A-Za-z0-9_-]{40,4000}|NRAK-[A-Z0-9]{27}"
        r"|pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}"
        r"|dp\.(?:st|pt|ct|sa|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}))" + RB,
        ("ops_eyJ", "NRAK-", "pcsk_", "dp.st.", "dp.pt.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        accept=_token_like),
    _rx("huggingface-token", r"(?P<v>hf_[A-Za-z0-9]{30,60})" + RB, ("hf_",), accept=_token_like),
    _rx("npm-token", r"(?P<v>npm_[A-Za-z0-9]{20,100})" + RB, ("npm_",), accept=_vendor(range(40, 41))),
    _rx("pypi-token", r"(?P<v>pypi-AgE[A-Za-z0-9_-]{50,400})", ("pypi-AgE",)),
    _rx("jwt", r"(?P<v>eyJ[A-Za-z0-9_-]{5,4000}+\.eyJ[A-Za-z0-9_-]{5,8000}+\.[A-Za-z0-9_-]{0,1000}+)", ("eyJ",)),
    # Sentry-style DSN: the 32-hex key is the URL user name
    _rx("dsn-key", r"://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@", ("://",), bounded=False),
)

TOKEN_FINDER = TokenRules(TOKEN_RULES)

# ---------------------------------------------------------------- headers and commands
_HEADER_VALUE = r"[A-Za-z0-9._~+/=-]"
# `Authorization: <scheme> <credential>` (or `Proxy-Authorization`, a JSON key, `HTTP_AUTHORIZATION=`)
_AUTH_NAME = re.compile(r"authorization\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?[ \t]*", re.IGNORECASE)
_AUTH_WORD = re.compile(_HEADER_VALUE + r"{1,4096}")
# a scheme's credential may be a pair (GoDaddy's `sso-key KEY:SECRET`)
_AUTH_CREDENTIAL = re.compile(r"[A-Za-z0-9._~+/=:-]{8,4096}")
_AUTH_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,40}[ \t]+")
# a scheme's parameters (`Digest username="u", response="…"`, `Hawk id="…", mac="…"`,
# `AWS4-HMAC-SHA256 Credential=…, Signature=…`): the ones that prove the secret is known
_AUTH_PARAM = re.compile(r"(?P<name>[A-Za-z][\w-]{0,40})[ \t]*=(?!=)[ \t]*"
                         r"(?:(?P<q>\\{0,3}\")(?P<qv>[^\"\\\n]{0,1024})(?P=q)|(?P<v>[^\s,\"'\\]{1,1024}))"
                         r"[ \t]*,?[ \t]*")
_PROOF_PARAMS = frozenset({"response", "signature", "sig", "mac", "hmac", "hash", "oauth_signature"})


def auth_header(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The credential of an Authorization header, whatever its scheme: `Bearer X`, `SSWS X`,
    `Api-Key X`, `Negotiate X`, X alone, or the proofs among a scheme's parameters. The scheme
    word stays readable."""
    for i in anchors.find(("authorization",), ignore_case=True):
        if not left_ok(text, i):
            continue
        head = _AUTH_NAME.match(text, i)
        if head is None:
            continue
        pos = head.end()
        scheme = _AUTH_SCHEME.match(text, pos)
        if scheme is not None and _AUTH_PARAM.match(text, scheme.end()):
            yield from _auth_params(text, scheme.end())
            continue
        second = _AUTH_CREDENTIAL.match(text, scheme.end()) if scheme is not None else None
        if second is not None and _scheme_credential(second.group()):
            yield Hit(second.start(), second.end(), CREDENTIAL, "auth-header")
            continue
        first = _AUTH_WORD.match(text, pos)  # no scheme: the credential alone
        if first is not None and len(first.group()) >= 8 and (
                looks_random(first.group(), 8) or is_basic_credential(first.group())):
            yield Hit(first.start(), first.end(), CREDENTIAL, "auth-header")


def _scheme_credential(value: str) -> bool:
    """What follows a scheme word is its credential unless it is a reference or a word
    (`Bearer $TOKEN`, `Bearer <token>`, `Token token_here`)."""
    return not is_template(value) and not PLACEHOLDER_RE.search(value) and (
        looks_random(value, 8) or is_basic_credential(value))


def _auth_params(text: str, pos: int) -> Iterator[Hit]:
    for _ in range(24):
        m = _AUTH_PARAM.match(text, pos)
        if m is None or m.end() == pos:
            return
        value = m["qv"] if m["q"] is not None else m["v"]
        start = m.start("qv") if m["q"] is not None else m.start("v")
        if m["name"].lower() in _PROOF_PARAMS and len(value) >= 8 and not is_template(value):
            yield Hit(start, start + len(value), CREDENTIAL, "auth-header")
        pos = m.end()


HEADER_RULES: tuple[Finder, ...] = (
    auth_header,
    _rx("auth-scheme", r"(?:bearer|basic)[ \t]+(?P<v>" + _HEADER_VALUE + r"{12,4096})",
        ("bearer", "basic"), ignore_case=True,
        accept=lambda v: looks_random(v, 12) or is_basic_credential(v)),
    _rx("mysql-password",
        r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb(?:-dump)?)\b"
        # a JSON \uXXXX escape (how json.dumps writes a non-ASCII character) is part of the value;
        # quoted, the value is all up to its closing quote (`-p'Zq81(Tdw)x'`: a shell word); a quote
        # that ends a string (`"mysql -u root -p", "description": …`) opens no value
        r"[^\n|;&]{0,300}?[ \t]-p(?:(?P<sq>')(?![\s,:;}\]])|(?P<dq>\\{0,3}\")(?![\s,:;}\]]))?"
        r"(?P<v>(?(sq)(?:[^'\n\\]|\\u[0-9a-fA-F]{4}){1,200}(?=')"
        r"|(?(dq)(?:[^\"\n\\]|\\u[0-9a-fA-F]{4}){1,200}(?=\\{0,3}\")"
        r"|(?:[^\s'\"\\;&|<>()`]|\\u[0-9a-fA-F]{4}){1,200})))",
        ("mysql", "mariadb"),
        accept=lambda v: not is_template(v)),
    # (no `%`, `(`, `)` in the user: `date -u +%H:%M)` is a format, not user:password)
    # (`--user 1000:1000` is docker's uid:gid)
    # (quoted, the password runs to the closing quote: `-u 'admin:P@ss w0rd!'`; an `@` is part of it)
    _rx("curl-user", r"(?:-u|--user)[ \t]+(?:(?P<sq>')|(?P<dq>\\{0,3}\"))?(?!\d{1,10}:\d{1,10}(?![^\s'\"]))"
        r"[^\s:'\"@%()]{1,100}:(?P<v>(?(sq)[^'\n\\]{1,200}(?=')|(?(dq)[^\"\n\\]{1,200}(?=\\{0,3}\")|[^\s'\"]{1,200})))",
        ("-u ", "-u\t", "--user"), accept=lambda v: not is_template(v) and not v.startswith("//")),  # not a URL
    _rx("sshpass-password", r"sshpass[ \t]+(?:-[a-oq-zA-Z]\S*[ \t]+)*-p[ \t]*(?P<q>['\"]?)(?P<v>[^\s'\"]{1,200})(?P=q)",
        ("sshpass",), accept=lambda v: not is_template(v)),
    _rx("openssl-pass", r"pass:(?P<v>[^\s'\"]{1,200})", ("pass:",), ignore_case=False,
        accept=lambda v: not is_template(v)),
)

# Tools whose flags or arguments carry a credential: (the command as typed, where its
# secret is). The command's words are the anchor; what follows is read as shell words up to


def is_basic_credential(value: str) -> bool:
    """A Basic auth value: base64 of `user:password`."""
    if len(value) < 8 or len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()

