"""A cryptocurrency wallet's private key standing alone: WIF keys and extended private keys.

Nothing names them (`5Hue…`, `KwDi…`, `xprv9s21…`): their Base58Check checksum decides, so
an address, an extended public key or a run of base64 that only looks like one stays.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from forsy.redact import Redactor
from forsy.redact.finance import base58check

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_RND = random.Random(58)


def _encode(payload: bytes) -> str:
    """Base58Check, written here from the definition (not forsy's decoder, which is tested)."""
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = _B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def _key() -> bytes:
    return bytes(_RND.randrange(256) for _ in range(32))


KEYS = {
    "wif-uncompressed": _encode(b"\x80" + _key()),
    "wif-compressed": _encode(b"\x80" + _key() + b"\x01"),
    "wif-testnet": _encode(b"\xef" + _key() + b"\x01"),
    "xprv": _encode(bytes.fromhex("0488ade4") + bytes(9) + _key() + b"\x00" + _key()),
    "tprv": _encode(bytes.fromhex("04358394") + bytes(9) + _key() + b"\x00" + _key()),
    "zprv": _encode(bytes.fromhex("04b2430c") + bytes(9) + _key() + b"\x00" + _key()),
}


@pytest.mark.parametrize("key", list(KEYS.values()), ids=list(KEYS))
@pytest.mark.parametrize("context", [
    "{}",
    "imported {} into the wallet",
    '{{"output": "privkey: {}\\n"}}',
    "bitcoin-cli importprivkey {} label false",
])
def test_a_wallet_key_is_masked(key: str, context: str) -> None:
    assert key[0] in "5KLc9x" or key[:4] in ("tprv", "zprv")
    out = Redactor().redact(context.format(key))
    assert key not in out and "[PRIVATE_KEY_1]" in out, out


def test_the_checksum_decides() -> None:
    key = KEYS["wif-compressed"]
    changed = key[:-1] + ("2" if key[-1] != "2" else "3")
    assert base58check(key) is not None and base58check(changed) is None
    assert Redactor().redact(changed) == changed


@pytest.mark.parametrize("text", [
    _encode(bytes.fromhex("0488b21e") + bytes(9) + _key() + b"\x02" + _key()[:32]),  # xpub: public
    _encode(b"\x00" + _key()[:20]),  # an address (P2PKH)
    _encode(b"\x80" + _key() + b"\x05"),  # WIF's length, but not its compression flag
    "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",  # an IPFS hash: Base58, no checksum
    "K" + "a" * 51,
    "5" + "".join(_RND.choice(_B58) for _ in range(50)),  # the shape without the checksum
])
def test_what_only_looks_like_a_wallet_key_stays(text: str) -> None:
    assert Redactor().redact(text) == text
