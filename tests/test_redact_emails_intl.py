"""Email addresses beyond ASCII and beyond the TLDs no file extension shares: an internationalised
address (RFC 6531) is masked whole, never cut at its first accented letter; a country's domain
whose code is also a file extension (`.pl` Poland and Perl, `.pt`, `.rs`, `.md`) is an address,
while a file name such as `icon@2x.png` still is not."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

ADDRESSES = ["jürgen.müller@beispiel-firma.de", "anna.kowalska@wp.pl", "joao.silva@sapo.pt", "marko@mts.rs",
             "ion.popescu@mail.md", "jan@bücher.de", "张伟@公司.中国", "ólafur@simnet.is", "ελένη@mail.gr"]
NOT_ADDRESSES = ["icon@2x.png", "logo@3x.webp", "script@v2.pl", "serde@1.0.rs", "pkg@scope.io/name",
                 "Promise.@resolve", "nginx@worker.service", "bob@example.com"]


@pytest.mark.parametrize("address", ADDRESSES)
def test_an_address_is_masked_whole(address: str) -> None:
    out = Redactor().redact(f"write to {address} today")
    assert out == "write to [EMAIL_1] today", out


@pytest.mark.parametrize("text", NOT_ADDRESSES)
def test_a_name_that_is_no_address_stays(text: str) -> None:
    assert "[EMAIL_" not in Redactor().redact(f"see {text} here")
