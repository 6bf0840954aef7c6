"""Tokens standing alone, with nothing naming them: found by their prefix.

A token pasted into prose or printed by a tool (`here: key-…`) has no `NAME=` before it; only
its shape says what it is. Two rules read that shape: a prefix holding a word for a secret
(`prefixed-token`: any service following the convention), and the published prefixes that
hold none (`google-refresh-token`, `service-token`).
"""

from __future__ import annotations

import random
import string

import pytest

from forsy.redact import Redactor

_RND = random.Random(20261128)
_ALNUM = string.ascii_letters + string.digits


def _r(n: int, chars: str = _ALNUM) -> str:
    return "".join(_RND.choice(chars) for _ in range(n))


TOKENS = {
    # a word for a secret in the prefix: no list names these services
    "mailgun-legacy": "key-" + _r(32, string.ascii_lowercase + string.digits),
    "notion-internal": "secret_" + _r(43),
    "tailscale": "tskey-auth-" + _r(12) + "CNTRL-" + _r(33),
    "docker-pat": "dckr_pat_" + _r(27),
    "linear": "lin_api_" + _r(40),
    "made-up-service": "acme_live_key_" + _r(32),
    "made-up-token": "zq-token-" + _r(24),
    # published prefixes with no such word
    "google-refresh": "1//0" + _r(1, "3469g") + _r(98, _ALNUM + "-_"),
    "1password-service": "ops_eyJ" + _r(120, _ALNUM + "-_"),
    "new-relic": "NRAK-" + _r(27, string.ascii_uppercase + string.digits),
    "pinecone": "pcsk_" + _r(6) + "_" + _r(60),
    "doppler": "dp.st.prd." + _r(43),
}


@pytest.mark.parametrize("token", list(TOKENS.values()), ids=list(TOKENS))
@pytest.mark.parametrize("context", [
    "here: {} done",
    '{{"text": "use {} for the webhook"}}',
    "echo ok\\n{}\\n",  # JSON-escaped newlines around it
    "curl -H 'X-Token: {}' https://api.acme.test",
])
def test_a_token_alone_is_masked_by_its_prefix(token: str, context: str) -> None:
    text = context.format(token)
    out = Redactor().redact(text)
    assert token not in out and token[len(token) // 2 :] not in out, out


@pytest.mark.parametrize("text", [
    '"id": "msg_01XyZAbCdEfGhIjKlMnOpQr"',  # the agents' own ids carry no word for a secret
    '"tool_use_id": "toolu_01AbCdEfGhIjKlMnOpQrStUv"',
    "call_AbCdEfGhIjKlMnOpQrStUvWx",
    "secret_key_base",  # words joined: no random run
    "api_key_for_the_service_account_v2",
    "cache-key-5d41402abc4b2a76b9719d911017c592",  # a digest after a prefix
    "src/auth/token_refresh_handler_test.py",
    "auth_middleware_test_5f3a2b1c9d8e7f6a.py",
    "https://example.org/api/v1/AbCdEfGhIjKlMnOpQrStUvWxYz012345",  # a path, not a prefix
    "KEY_PREFIX_FOR_REDIS_CLUSTER_NODES",
    "passwordless-authentication-flow-v2",
    "api_AAAAAAAAAAAAAAAAAAAAAAAAA",  # not random
    "pattern_matching_engine_v3_release_candidate",
    "tokenizer-config-Llama3-8B-Instruct-2024",
    "keyboard_shortcut_AbCdEfGhIjKlMnOpQrSt",  # `keyboard` is not `key`
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
])
def test_what_only_looks_prefixed_stays(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_run_inside_base64_is_not_a_token_start() -> None:
    blob = "QUJD/" + "pat_" + _r(30) + "+ZGVm"  # `/` and `+` before it: inside base64
    assert Redactor().redact(blob) == blob


def test_the_rule_alone_finds_the_same_without_the_engine() -> None:
    """Without the engine's reports (`Anchors` of a text alone), the short words are searched
    for in the text: the same tokens are found, exactly."""
    from forsy.redact._anchors import Anchors
    from forsy.redact.prefixed import prefixed_token

    for name in ("made-up-token", "docker-pat", "linear", "mailgun-legacy"):
        token = TOKENS[name]
        text = f"here: {token} done, and the path_to_it stays"
        hits = list(prefixed_token(text, Anchors(text)))
        assert [(h.start, h.end) for h in hits] == [(6, 6 + len(token))], name
