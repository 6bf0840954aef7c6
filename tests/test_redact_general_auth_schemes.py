"""An Authorization (or Proxy-Authorization) header's credential is masked whatever its scheme
word: `SSWS`, `Api-Key`, `Splunk`, `Negotiate`, `GenieKey`, a vendor's own. Only a few schemes were
known, and the credential after any other was left in clear. The scheme stays readable; a
scheme's parameters are read for their proofs (`Digest … response=`, `Hawk … mac=`). Look-alikes:
a reference or a word after the scheme, the header named in prose, a nonce."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

TOKEN = "65Vjw0wP47YCte19kLhMpE7fNXEemSEYEeQsKyK0ca"
UUID = "5f299088-33e1-4747-9218-4197f667a0ab"


@pytest.mark.parametrize(("text", "secret", "kept"), [
    (f"Authorization: SSWS {TOKEN}", TOKEN, "SSWS"),
    (f'{{"headers": {{"Authorization": "Api-Key {TOKEN}"}}}}', TOKEN, "Api-Key"),
    (f'curl -k -H "Authorization: Splunk {UUID}" https://splunk:8088/services/collector', UUID, "Splunk"),
    (f"Authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnagMDAu{TOKEN}", TOKEN, "Negotiate"),
    (f"Authorization: NTLM TlRMTVNTUAABAAAAB4IIAAAAAAAAAAAA{TOKEN}", TOKEN, "NTLM"),
    (f"Authorization: OAuth {TOKEN}", TOKEN, "OAuth"),
    (f"Authorization: GenieKey {UUID}", UUID, "GenieKey"),
    (f"Authorization: HMAC {TOKEN}", TOKEN, "HMAC"),
    (f'-H "Proxy-Authorization: Zoho-oauthtoken 1000.{TOKEN}"', TOKEN, "Zoho-oauthtoken"),
    (f"Authorization: DeepL-Auth-Key {UUID}:fx", UUID, "DeepL-Auth-Key"),
    (f'{{\\"Authorization\\": \\"Custom {TOKEN}\\"}}', TOKEN, "Custom"),  # JSON inside a string
    ('Authorization: Digest username="jane", realm="api", nonce="dcd98b7102dd2f0e", uri="/dir/index.html", '
     'response="843075b7d1fb63c0ad3995bd6c96fde1", opaque="5ccc069c"', "843075b7d1fb63c0ad3995bd6c96fde1",
     'nonce="dcd98b7102dd2f0e"'),
    ('Authorization: Hawk id="dh37fgj492je", ts="1353832234", nonce="j4h3g2", '
     'mac="6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE="', "6R4rV5iE+NPoym+WwjeHzjAGXUtLNIxmo1vpMofpLAE=",
     'id="dh37fgj492je"'),
    ("Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
     "SignedHeaders=host;range, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
     "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "AWS4-HMAC-SHA256"),
])
def test_the_credential_after_any_scheme_is_masked_and_the_scheme_stays(text: str, secret: str, kept: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out
    assert kept in out


@pytest.mark.parametrize("value", [f"Api-Key {TOKEN}", f"SSWS {TOKEN}", TOKEN])
def test_a_parsed_headers_authorization_field_is_read_as_the_header(value: str) -> None:
    """Tool arguments reach the redactor parsed: `{"Authorization": "SSWS X"}`'s value alone has
    no header name before it."""
    out = Redactor().redact_values([{"headers": {"Authorization": value}}, {"proxy-authorization": value}])
    assert TOKEN not in repr(out)
    assert out[0]["headers"]["Authorization"].startswith(value.split()[0] if " " in value else "[CREDENTIAL_")


@pytest.mark.parametrize("text", [
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer ${API_TOKEN}",
    "Authorization: Bearer <token>",
    "Authorization: SSWS {{okta_token}}",
    "Authorization: Bearer my-test-token",
    "authorization: required",
    "The Authorization: Bearer header carries the token",
    "Authorization: Negotiate",
    'headers["Authorization"] = "Token " + api_key',
])
def test_references_words_and_prose_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_parsed_field_with_a_reference_stays() -> None:
    value = {"headers": {"Authorization": "Bearer ${TOKEN}"}, "authorization": "required"}
    assert Redactor().redact_value(value) == value
