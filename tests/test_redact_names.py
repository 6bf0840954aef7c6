"""Secret names the rules read by their parts (redact/_values.name_tier, rules._positional_value):
a secret word run together with what it is for, a pre-shared key, and a `name value` pair
given to a command as two words. Each mask covers exactly the value."""

from __future__ import annotations

import re

import pytest

from forsy.redact import Redactor
from forsy.redact._values import name_tier

PW = "q7#Lm2vX9pWz"
TOK = "Tq8vN3kLm2Xw9Rp4Zs7Yb1Hc6Jd5Fg0"


@pytest.mark.parametrize("name", ["dbpass", "REDISPASS", "imappass", "vaultpwd", "rootpwd", "wifi_psk", "psk",
                                  "pre_shared_key", "IKE_PRESHARED_KEY"])
def test_secret_words_run_together_or_pre_shared_are_literal_secret_names(name: str) -> None:
    assert name_tier(name) == 1


@pytest.mark.parametrize("name", ["bypass", "compass", "renderpass", "subpass", "trespass", "oldpwd", "keepass",
                                  "lastpass_folder", "passage", "shared_key_id"])
def test_words_that_only_end_in_a_secret_word_are_not(name: str) -> None:
    assert name_tier(name) == 0


@pytest.mark.parametrize("name", ["masterauth", "primaryauth", "replicaauth", "proxyauth", "smtpauth"])
def test_auth_run_together_with_what_it_is_for_is_a_secret_name_for_machine_made_values(name: str) -> None:
    assert name_tier(name) == 2


@pytest.mark.parametrize("text", [
    f"masterauth {TOK}\n", f"replicaauth: {TOK}", f'proxyauth = "{TOK}"', f"--primaryauth={TOK}",
])
def test_an_auth_directive_value_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert TOK not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", [
    f"deploy --dbpass={PW} --host db", f"REDISPASS={PW}", f"imappass: {PW}", f'{{"vaultpwd": "{PW}"}}',
    f"set wifi_psk {PW}", f'nmcli c modify home 802-11-wireless-security.psk "{PW}"', f'@ 10.1.1.1 : PSK "{PW}"',
    f"tool config set login_token {TOK}", f"profile add x region eu auth_secret {TOK} output json",
    f"server db\nrw_password {PW}\n",
])
def test_the_value_and_only_the_value_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOK not in out
    assert re.fullmatch(re.escape(text.replace(PW, "\0").replace(TOK, "\0")).replace("\\\0", "\0").replace(
        "\0", r"\[CREDENTIAL_\d+\]"), out), out


@pytest.mark.parametrize("text", [
    "bypass = true", "compass: north", "renderpass = device.createRenderPass(info)", "OLDPWD=/home/x/src",
    "the db_password is stored in the vault", "client_secret must be rotated", "config set api_token",
    "gh secret set DEPLOY_SECRET --body=x --env prod", "set auth_key abcd1234 in the docs",
    "psk: see the wifi sheet", "SELECT api_token FROM sessions", "MAX_TOKENS 4096",
    "oauth: true", "urn:ietf:params:oauth:token-type:saml2", "masterauth yes",
    "Preparing to unpack .../10-xauth_1%3a1.1.2-1build1_arm64.deb ...", "deauth: Zk8pQ2vL9xR4mN7wQ",
    "the masterauth setting is documented", "oauth = OAuth(app)",
    # apt's and dpkg's `package:arch`, a package named for what it keeps
    "Setting up libsecret-1-0:amd64 (0.20.5-2) ...", "Selecting previously unselected package libsecret-1-0:arm64.",
    "Setting up gir1.2-secret-1:amd64 (0.20.5-2) ...", "Unpacking libpassword-dev:i386 (2) ...",
])
def test_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text
