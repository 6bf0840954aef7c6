"""Two credentials no list of token shapes names (redact/rules.py): a pre-signed URL's signature,
whichever service signed it, and an armored key block other than a PEM private key (OpenVPN's
static and tls-crypt keys). Values are generated; each case gets a new Redactor, so nothing
learnt in one case masks the next."""

from __future__ import annotations

import random
import string

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._native import NATIVE_ANCHORS
from forsy.redact.keys import KEY_BLOCK_ANCHORS, key_block
from forsy.redact.rules import SIGNATURE_ANCHORS, url_signature


def _random(seed: int, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    rnd = random.Random(seed)
    while True:
        value = "".join(rnd.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


HEX = "0123456789abcdef"
# (URL with `{}` where the signature goes, the signature's alphabet and length)
SIGNED = [
    ("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z"
     "&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={}", HEX, 64),
    ("https://storage.googleapis.com/b/o.txt?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Expires=900"
     "&X-Goog-SignedHeaders=host&X-Goog-Signature={}", HEX, 256),
    ("https://d1.cloudfront.net/a.jpg?Expires=1700000000&Signature={}&Key-Pair-Id=K2JCJMDEHXQW5F",
     string.ascii_letters + string.digits + "-~_", 120),
    ("https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig={}%3D",
     string.ascii_letters + string.digits, 43),
    ("https://bucket.s3.amazonaws.com/f?AWSAccessKeyId=AKIA&Expires=1700000000&Signature={}%3D",
     string.ascii_letters + string.digits, 27),
    ('<a href="https://x.blob.core.windows.net/c?sv=2022&amp;sig={}&amp;se=2026">file</a>',
     string.ascii_letters + string.digits, 43),
]
NOT_SIGNATURES = [
    "sig = inspect.signature(fn)", "f(signature=my_signature_value_here12345)",
    "https://x.example.com/?nosig=abcdefabcdefabcdef1234", "https://x.example.com/?signature=short",
    "https://x.example.com/?signature_count=9f86d081884c7d659a2feaa0c55ad015",
    "https://x.example.com/?sig=${SAS_SIG}",
]


@pytest.mark.parametrize(("template", "alphabet", "n"), SIGNED, ids=lambda v: str(v)[:30])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_signed_urls_signature_is_masked(template: str, alphabet: str, n: int, seed: int) -> None:
    secret = _random(seed, n, alphabet)
    text = template.format(secret)
    out = Redactor().redact(text)
    assert secret not in out and "[CREDENTIAL_" in out, out
    assert out.split("[CREDENTIAL_")[0] == text.split(secret)[0], out  # the URL up to it stays


@pytest.mark.parametrize("text", NOT_SIGNATURES)
def test_a_signature_in_code_or_too_short_stays(text: str) -> None:
    assert list(url_signature(text, Anchors(text))) == []


def test_the_rule_alone_gives_the_signature_only() -> None:
    for template, alphabet, n in SIGNED:
        secret = _random(3, n, alphabet)
        text = template.format(secret)
        hits = list(url_signature(text, Anchors(text)))
        assert [text[h.start : h.end].removesuffix("%3D") for h in hits] == [secret], template


def _key_block(label: str, seed: int, escaped: bool = False) -> tuple[str, str]:
    body = [_random(seed + k, 32, HEX) for k in range(4)]
    nl = "\\n" if escaped else "\n"
    return f"-----BEGIN {label}-----{nl}{nl.join(body)}{nl}-----END {label}-----", body[0]


@pytest.mark.parametrize("label", ["OpenVPN Static key V1", "OpenVPN tls-crypt-v2 client key",
                                   "OpenVPN tls-crypt-v2 server key", "OpenVPN tls-auth key"])
@pytest.mark.parametrize("escaped", [False, True])
def test_a_key_block_is_masked_whole(label: str, escaped: bool) -> None:
    block, first_line = _key_block(label, 5, escaped)
    text = f"cat ta.key\n{block}\nremote vpn.example.com 1194"
    out = Redactor().redact(text)
    assert first_line not in out and "[PRIVATE_KEY_" in out, out
    assert out.startswith("cat ta.key\n[PRIVATE_KEY_") and out.endswith("]\nremote vpn.example.com 1194"), out


@pytest.mark.parametrize("label", ["PUBLIC KEY", "PGP PUBLIC KEY BLOCK", "CERTIFICATE", "EC PARAMETERS",
                                   "OpenVPN public key", "CERTIFICATE REQUEST"])
def test_a_public_block_stays(label: str) -> None:
    block, _ = _key_block(label, 6)
    assert list(key_block(block, Anchors(block))) == []
    assert Redactor().redact(block) == block


def test_a_cut_key_block_is_masked_to_the_end_of_its_body() -> None:
    block, first_line = _key_block("OpenVPN Static key V1", 7)
    cut = block.split("-----END")[0] + "[output truncated]"
    hits = list(key_block(cut, Anchors(cut)))
    assert len(hits) == 1 and first_line in cut[hits[0].start : hits[0].end]


def test_the_engine_reports_the_anchors() -> None:
    """Searched one by one they would cost a pass over every text each."""
    assert set(SIGNATURE_ANCHORS) <= NATIVE_ANCHORS and set(KEY_BLOCK_ANCHORS) <= NATIVE_ANCHORS
