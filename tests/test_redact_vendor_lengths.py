"""A token after its vendor's own prefix (`ghp_`, `github_pat_`, `npm_`, `AIza`) is masked
whatever its length when it looks machine-made: a character lost or added when a person pastes
it into a log or an edit, or a format the vendor changed, still leaves a live credential. A
`ghp_` token one character short was stored raw by a review edit. Placeholders stay."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

RUN = "Zq8vN3kLm2Xw9Rp4Zs7Yb1Hc6Jd5Fg0aB1cDeFgHiJkLm"


@pytest.mark.parametrize("token", [
    *(f"ghp_{RUN[:n]}" for n in (22, 30, 35, 37, 44)),
    f"gho_{RUN[:34]}", f"github_pat_11ABCDEFG0{RUN[:22]}", f"github_pat_11ABCDEFG0{RUN[:44]}_{RUN[:20]}",
    f"npm_{RUN[:35]}", f"npm_{RUN[:37]}", f"AIzaSy{RUN[:32]}", f"AIzaSy{RUN[:34]}",
])
def test_a_vendor_token_of_another_length_is_masked(token: str) -> None:
    for text in (f"The user pasted {token} here", token, f'{{"token": "{token}"}}'):
        out = Redactor().redact(text)
        assert token not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", [
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "export GITHUB_TOKEN=ghp_your_token_here",
    "npm_install_dependencies_first_then_build", "AIzaSy" + "x" * 30,
    "github_pat_XXXXXXXXXXXXXXXXXXXXXXXXXXXX",
])
def test_placeholders_after_a_vendor_prefix_stay(text: str) -> None:
    assert Redactor().redact(text) == text
