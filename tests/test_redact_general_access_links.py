"""Links that let whoever holds them in: a token right after a path segment that resets a
password, signs in by mail, accepts an invitation, verifies, confirms or activates; a query
parameter that carries a sign-in's proof (an OAuth code, a JWT, a session id, a one-time
password, a ticket); an authenticator's export. Look-alikes: ids, words and numbers in those
places, a repository named `verify`, a code that is code."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

TOKEN = "ajwCCr4akI64cyFapQHWa9P8wgLRax3WPVmMPhDd"


@pytest.mark.parametrize("text", [
    f"https://app.acme.io/reset-password/{TOKEN}",
    f"https://app.acme.io/password/reset/{TOKEN}",
    f"Click to sign in: https://app.acme.io/auth/magic/{TOKEN}",
    f"https://app.acme.io/magic-link/{TOKEN}?next=/home",
    f"https://app.acme.io/invite/accept/{TOKEN}",
    f"https://app.acme.io/verify/{TOKEN}",
    f"https://app.acme.io/confirm-email/{TOKEN}.",
    f"app.acme.io/activate/{TOKEN}",
    f"http://localhost:8080/callback?code={TOKEN}&state=xyz",
    f"https://app.acme.io/export?jwt={TOKEN}",
    f"https://app.acme.io/x?foo=1&sessionid={TOKEN}",
    f"https://app.acme.io/x?sid={TOKEN}",
    f"https://app.acme.io/x?a=1&amp;otp={TOKEN}",
    f"https://sso.acme.io/cas/login?service=x&ticket=ST-1234-{TOKEN}",
    f"GET /oauth/callback?code={TOKEN} HTTP/1.1",
])
def test_a_link_that_grants_access_has_its_token_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert TOKEN not in out
    assert "[CREDENTIAL_1]" in out


def test_an_authenticator_export_is_masked() -> None:
    data = "CjEKCkhlbGxvId6tvu8SGEV4YW1wbGUlM0FhbGljZUBnb29nbGUuY29tGgdFeGFtcGxlMAI%3D"
    out = Redactor().redact(f"otpauth-migration://offline?data={data}")
    assert data not in out and "CjEKCkhlbGxv" not in out


@pytest.mark.parametrize("text", [
    "https://github.com/acme/verify/blob/3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39/src/x.py",
    "https://docs.acme.io/confirm/overview",
    "https://app.acme.io/verify/12345",
    "https://app.acme.io/reset-password/new",
    f"https://app.acme.io/releases/{TOKEN}",
    "https://x.io/a?code=200&session=new&otp=123456",
    "see https://play.golang.org/p/?code=fmt.Println",
    "status_code=q0p315Bs6LVGLdxiTB6g5Dp3U3l7PsUuw51HJsur",
    "/reset-password/{token}",
])
def test_ids_words_and_other_paths_stay(text: str) -> None:
    assert Redactor().redact(text) == text
