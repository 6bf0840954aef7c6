"""HTTP headers named for a credential by their words, not by a list: a request's signature
(`X-Hub-Signature-256`, `X-Slack-Signature`, `Stripe-Signature`, a vendor's `X-Foo-Sig`) and a
session (`X-Foo-Session`, `Mcp-Session-Id`), in a raw request or response, `curl -H`, httpie,
a header dict, a call that sets a header, JSON-escaped tool output, and a parsed record. The
words of other secrets' names were read already (`X-Vault-Token`); these held a credential
under a name no rule read. The algorithm's prefix (`sha256=`) stays readable. Look-alikes: a
header about the credential (`-Algorithm`, `-Expires`, `-Version`), a reference, a word, a CLI
flag `--session-id`, a name inside a longer one."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

HEX = "7d1e0c9b8a7f6e5d4c3b2a190817e6d5c4b3a29180f7e6d5c4b3a2918076e5d4"
TOKEN = "Rt6yPq2Wn8Zx4Lk1Vb9Mc3Hd7Jf5Gs0A"
UUID = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"


@pytest.mark.parametrize(("text", "secret", "kept"), [
    (f"POST /hook HTTP/1.1\r\nHost: x.io\r\nX-Gitea-Signature: {HEX}\r\n", HEX, "X-Gitea-Signature"),
    (f"x-hub-signature-256: sha256={HEX}", HEX, "sha256="),
    (f"X-Hub-Signature: sha1={HEX[:40]}", HEX[:40], "sha1="),
    (f"curl -s -H 'X-Slack-Signature: v0={HEX}' -H 'X-Slack-Request-Timestamp: 1718100000' https://x.io",
     HEX, "X-Slack-Request-Timestamp: 1718100000"),
    (f"Stripe-Signature: t=1718100000,v1={HEX},v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39",
     HEX, "Stripe-Signature: "),
    (f"http POST api.x.io/events X-Partner-Sig:{TOKEN}", TOKEN, "X-Partner-Sig:"),
    (f'fetch(u, {{ headers: {{ "X-Acme-Session": "{TOKEN}", "Accept": "application/json" }} }})', TOKEN,
     '"Accept": "application/json"'),
    (f'req.headers["X-Shop-Hmac-Sha256"] = "{TOKEN}"', TOKEN, "X-Shop-Hmac-Sha256"),
    (f'xhr.setRequestHeader("X-Request-Sign", "{TOKEN}");', TOKEN, "X-Request-Sign"),
    (f"< HTTP/2 200\n< mcp-session-id: {UUID}\n< content-type: text/event-stream", UUID, "content-type"),
    (json.dumps({"output": f"HTTP/1.1 200 OK\nX-Session-Token-Id: {TOKEN}\nVary: Accept"}), TOKEN, "Vary"),
])
def test_a_header_named_for_a_signature_or_a_session_has_its_value_masked(text: str, secret: str, kept: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out, out
    assert kept in out, out


def test_a_parsed_header_dict_is_masked_by_the_same_names() -> None:
    record = {"headers": {"X-Twilio-Signature": "c29tZXNpZ25hdHVyZWJ5dGVzMTIz+/Qx", "X-Foo-Session": TOKEN,
                          "X-Request-Id": UUID}}
    out = Redactor().redact_value(record)
    assert TOKEN not in repr(out) and "c29tZXNpZ25hdHVyZWJ5dGVzMTIz" not in repr(out)
    assert out["headers"]["X-Request-Id"] == UUID  # an id that grants nothing stays


@pytest.mark.parametrize("lookalike", [
    "X-Signature-Algorithm: hmac-sha256",
    "X-Session-Expires: 2024-06-11T10:00:00Z",
    "X-Signature-Version: 2",
    "X-Signature: $SIGNATURE",
    "X-Session: {{session_id}}",
    f"claude --session-id {UUID} -p hi",
    f"my_x-session: {TOKEN}",
    "Sec-Fetch-Site: same-origin",
])
def test_headers_about_a_credential_references_and_flags_stay(lookalike: str) -> None:
    """Each beside a real one, so the test says what is masked and what is not."""
    text = f"X-Foo-Signature: {HEX}\n{lookalike}"
    out = Redactor().redact(text)
    assert HEX not in out
    assert out.endswith("\n" + lookalike), out
