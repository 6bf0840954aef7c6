"""A passphrase is words, masked whole; a secret handed to a program through a process
substitution (`--password-file <(echo X)`) or `password=-` and a here-string is masked; a user
and a secret said together in prose (`creds: bob / X`) lose the secret, its last `!` with it."""

from __future__ import annotations

import random

import pytest

from forsy.redact import Redactor

# words of no list the rules know (not BIP-39's English words only), chosen at random per run
WORDS = ("harbor", "violet", "quartz", "meadow", "lantern", "pepper", "glacier", "tundra", "walnut", "ember",
         "cobalt", "saffron", "thistle", "marble", "falcon", "juniper", "orchid", "canyon", "ripple", "zephyr")


def phrase(seed: int, n: int = 4, sep: str = " ") -> str:
    return sep.join(random.Random(seed).sample(WORDS, n))


@pytest.mark.parametrize("template", [
    "passphrase: {p}",
    "Passphrase = {p}",
    "the passphrase is {p}.",
    "The pass phrase was {p}, keep it safe",
    "seed phrase: {p}",
    "my recovery phrase is {p}",
    'export BORG_PASSPHRASE="{p}"',
    "mnemonic: {p}",
    "the backup phrase has been set to {p}",
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_passphrase_is_masked_whole(template: str, seed: int) -> None:
    p = phrase(seed, n=3 + seed)
    out = Redactor().redact(template.format(p=p))
    assert not [w for w in p.split() if w in out], out
    assert "[CREDENTIAL_1]" in out


def test_a_hyphenated_passphrase_is_masked_whole() -> None:
    p = phrase(7, 4, "-")
    out = Redactor().redact(f"passphrase: {p}")
    assert out == "passphrase: [CREDENTIAL_1]", out


@pytest.mark.parametrize("text", [
    "the passphrase is stored in the vault",
    "no passphrase is set for this key",
    "Enter passphrase for key '/root/.ssh/id_ed25519': ",
    "passphrase: none",
    "a passphrase protected key file",
    "phrase matching is case insensitive",
    "the seed phrase is required to restore the wallet",
])
def test_words_about_a_passphrase_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("template", [
    "ansible-playbook site.yml --vault-password-file=<(echo {pw})",
    "ansible-vault view --vault-password-file <(echo '{pw}') x.yml",
    "sops --passphrase-file <(printf '{pw}') -d x.enc",
    "restic -r repo --password-file <(printf '%s' '{pw}') backup",
    "cryptsetup open /dev/sdb x --key-file=<(echo -n {pw})",
    "gpg --batch --passphrase-file <(echo \"{pw}\") -d f.gpg",
    "vault login -method=userpass username=bob password=- <<< '{pw}'",
])
def test_a_secret_through_a_substitution_or_stdin_is_masked(template: str) -> None:
    pw = "Xq7!mR2vLk9wZ"
    out = Redactor().redact(template.format(pw=pw))
    assert pw not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", [
    "diff <(echo Tr0ub4dor2024) expected.txt",
    "tool --config-file <(echo 'debug=true') run",
    "cat <(echo Hello2024World)",
    "ansible-playbook site.yml --vault-password-file=<(echo $VAULT_PW)",
    "tool --input=- <<< 'Tr0ub4dor&3'",
])
def test_other_substitutions_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("template", [
    "creds: bob / {pw}",
    "the credentials are bob / {pw}",
    "login: bob / {pw}",
    "Login with admin / {pw}",
    "the login for staging is deploy / {pw}",
    "credentials for the db are app / {pw}",
    "user admin / pass {pw}",
    "username: bob, pw: {pw}",
    "username admin password {pw}",
])
@pytest.mark.parametrize("pw", ["Hunter2!x", "Depl0y#2024", "Summer2024!"])
def test_a_user_and_a_secret_said_together_lose_the_secret(template: str, pw: str) -> None:
    out = Redactor().redact(template.format(pw=pw))
    assert pw not in out and pw.rstrip("!") not in out and "[CREDENTIAL_1]" in out and "!" not in out, out


@pytest.mark.parametrize("text", [
    "default login is admin/admin",
    "login: bob / see the wiki",
    "login page /api/v1/auth/login",
    "user bob / pass through to the next stage",
    "creds: user / password",
    "The password is wrong!",
])
def test_pairs_that_name_no_secret_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text
