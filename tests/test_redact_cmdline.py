"""Credentials given on a command line (a tool's password flag, an environment assignment in
bash/zsh, fish, PowerShell or cmd) are masked, exactly; their look-alikes (ports, prompts,
`--password-stdin`, `$VAR` references, counts, xtrace) come out unchanged. The labelled set
is tests/cmdline_secrets.py (fresh values, fixed seed)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest

from cmdline_secrets import MUST_MASK, MUST_NOT_MASK, CmdCase, CmdlineGen
from forsy.redact import EngineHit, Redactor, shared_engine
from secretgen import SecretGen, forms

SEED = 20261117
PLACEHOLDER = re.compile(r"\[[A-Z][A-Z0-9_]*\]")
GEN = CmdlineGen(seed=SEED)
CASES = GEN.must_mask(240)
CLEAN = GEN.must_not_mask(240)


@pytest.fixture(scope="module")
def red() -> Redactor:
    return Redactor(engine=shared_engine())


class RulesOnly:
    """The engine's anchors without its findings: forsy's own rules alone (the engine's
    spans are its own: it masks `user:pass` whole after `curl -u`)."""

    name = "rules only"
    reports_anchors = True

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return [h for h in shared_engine().scan(data) if h.rule.startswith("custom.forsy-anchor")]


def test_the_set_is_large_fresh_and_deterministic() -> None:
    assert len(CASES) >= 100 and len(CLEAN) >= len(CASES)
    assert len({s for c in CASES for s in c.secrets}) == sum(len(c.secrets) for c in CASES)  # all fresh
    again = CmdlineGen(seed=SEED)
    assert again.must_mask(240) == CASES and again.must_not_mask(240) == CLEAN
    assert all(c.secrets and all(s in c.text for s in c.secrets) for c in CASES)
    assert len(MUST_MASK) >= 100 and len(MUST_NOT_MASK) >= 100


def _leaks(case: CmdCase, out: str) -> list[str]:
    return [s for s in case.secrets if any(f in out for f in forms(s))]


@pytest.mark.parametrize("case", CASES[: len(MUST_MASK)], ids=lambda c: c.template[:48])
def test_secret_on_a_command_line_is_masked(case: CmdCase, red: Redactor) -> None:
    out = red.redact(case.text)
    assert _leaks(case, out) == [], out


def test_every_generated_line_is_masked(red: Redactor) -> None:
    outs = red.redact_many([c.text for c in CASES])
    missed = [o for c, o in zip(CASES, outs, strict=True) if _leaks(c, o)]
    assert missed == []


@pytest.mark.parametrize("case", CASES[: len(MUST_MASK)], ids=lambda c: c.template[:48])
def test_mask_covers_exactly_the_secret(case: CmdCase) -> None:
    """Everything but the secret stays: the flag, the name, the quotes, a closing `)`."""
    out = Redactor(engine=RulesOnly()).redact(case.text)
    kept = case.text
    for s in sorted(case.secrets, key=len, reverse=True):
        kept = kept.replace(s, "\0")
    # (addresses at example.com, as in `az login -u alice@example.com`, are documentation's: kept)
    expected = re.escape(kept).replace("\\\x00", r"\[CREDENTIAL_\d+\]").replace("\x00", r"\[CREDENTIAL_\d+\]")
    assert re.fullmatch(expected, out), (case.text, out)


@pytest.mark.parametrize("text", CLEAN[: len(MUST_NOT_MASK)])
def test_lookalike_is_left_alone(text: str, red: Redactor) -> None:
    assert red.redact(text) == text


def test_no_generated_lookalike_is_changed(red: Redactor) -> None:
    assert [t for t, o in zip(CLEAN, red.redact_many(CLEAN), strict=True) if t != o] == []


def _bash_tool_use(command: str) -> str:
    """One Claude Code assistant record calling the Bash tool, as a JSONL line."""
    return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01", "name": "Bash",
         "input": {"command": command, "description": "Run it"}}]}})


def test_masked_inside_a_bash_tool_use_record(red: Redactor) -> None:
    """The JSON-escaped line (quotes as \\", inside a JSONL record) and the parsed record."""
    for case in CASES:
        line = _bash_tool_use(case.text)
        out = red.redact(line)
        assert _leaks(case, out) == [], out
        assert json.loads(out)["message"]["content"][0]["input"]["description"] == "Run it"
        value = red.redact_value(json.loads(line))
        assert _leaks(case, json.dumps(value)) == [], value


def test_lookalikes_inside_a_bash_tool_use_record(red: Redactor) -> None:
    for text in CLEAN:
        line = _bash_tool_use(text)
        assert red.redact(line) == line
        assert red.redact_value(json.loads(line)) == json.loads(line)


def test_twice_escaped_command(red: Redactor) -> None:
    """A Bash call inside a JSON string inside a JSONL record (sub-agent transcripts)."""
    for case in CASES[:: 7]:
        text = json.dumps({"type": "tool_use", "input": json.dumps({"command": case.text})})
        assert _leaks(case, red.redact(text)) == [], text


def test_putty_private_key_is_masked_whole(red: Redactor) -> None:
    gen = SecretGen(seed=SEED)
    pub = [gen.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64) for _ in range(4)]
    priv = [gen.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64) for _ in range(8)]
    mac = gen.hex_secret(64)
    for version, extra in ((2, ""), (3, "Key-Derivation: Argon2id\nArgon2-Memory: 8192\nArgon2-Passes: 21\n")):
        key = (f"PuTTY-User-Key-File-{version}: ssh-rsa\nEncryption: aes256-cbc\n{extra}Comment: deploy\n"
               f"Public-Lines: {len(pub)}\n" + "\n".join(pub) + f"\nPrivate-Lines: {len(priv)}\n"
               + "\n".join(priv) + f"\nPrivate-MAC: {mac}\n")
        for text in (f"$ cat deploy.ppk\n{key}$ ls\n", json.dumps({"output": key}),
                     key.split("Private-MAC")[0]):  # cut off before the MAC
            out = red.redact(text)
            assert not any(line in out for line in priv), out
            assert "[PRIVATE_KEY_" in out
            if text.startswith("$ cat"):
                assert out.startswith("$ cat deploy.ppk\n[PRIVATE_KEY_") and out.endswith("$ ls\n")


CONTEXTS = {
    "bash -c": lambda t: "bash -c " + json.dumps(t),
    "code fence": lambda t: f"Run:\n```bash\n$ {t}\n```\n",
    "CRLF": lambda t: f"{t}\r\necho ok\r\n",
    "between commands": lambda t: f"cd /srv; {t}; echo done",
    "twice escaped": lambda t: json.dumps({"type": "tool_use", "input": json.dumps({"command": t})}),
}


@pytest.mark.parametrize("context", CONTEXTS)
def test_in_context_batched(context: str, red: Redactor) -> None:
    """Batched with its neighbours (a quote left open by one must not swallow the next)."""
    wrap = CONTEXTS[context]
    outs = red.redact_many([wrap(c.text) for c in CASES])
    assert [o for c, o in zip(CASES, outs, strict=True) if _leaks(c, o)] == []
    clean = [wrap(t) for t in CLEAN]
    assert [o for t, o in zip(clean, red.redact_many(clean), strict=True) if t != o] == []


@pytest.mark.parametrize(("text", "kept"), [
    ("mysql -u root -p; echo done", "-p; echo"),  # -p prompts; ";" is not its password
    ("az login --service-principal -u http://app-deployer -p x", "http://app-deployer"),  # -u URL: no user:pass
    ("wget --ask-password --user=alice https://x", "--user=alice"),  # a flag after a flag is no value
    ("openssl rsa -in k.pem -passin env:KEY_PASS HTTP/1.1", "HTTP/1.1"),  # env:VAR is a reference
    ("export PASSWORD_MIN_LENGTH=8 TOKEN_COUNT=5", "=8 TOKEN_COUNT=5"),
])
def test_lookalikes_older_rules_used_to_mask(text: str, kept: str, red: Redactor) -> None:
    assert kept in red.redact(text)


def test_truncated_pem_with_headers_is_masked_to_its_end(red: Redactor) -> None:
    body = SecretGen(seed=SEED).chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64)
    text = ("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n"
            f"{body}\n(output truncated)")
    assert body not in red.redact(text)
