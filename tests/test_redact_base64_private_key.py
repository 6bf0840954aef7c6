"""A private key encoded in base64 is masked whole, whatever name it stands under (a kubeconfig's
`client-key-data:`, a Kubernetes Secret's `tls.key:`, a CI variable, a bare line of output), also
when the output was cut before the key's END line (a tool output cut by size, `| head`): the
secret engine finds only whole keys, so a cut one leaked 900 bytes of the key. Certificates and
public keys encoded the same way are public and stay. The engine here finds nothing, so what is
masked is forsy's own rule."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from forsy.redact import Redactor
from forsy.redact._engine import EngineHit

# the shape of a PEM key (not a real key: 48 random bytes a line, as base64 wraps them)
BODY = "\n".join(base64.b64encode(bytes((i * 7 + j) % 251 for j in range(48))).decode() for i in range(25))
PEM = f"-----BEGIN PRIVATE KEY-----\n{BODY}\n-----END PRIVATE KEY-----\n"
RSA_CUT = f"-----BEGIN RSA PRIVATE KEY-----\n{BODY[:900]}"
CERT = f"-----BEGIN CERTIFICATE-----\n{BODY}\n-----END CERTIFICATE-----\n"


class Nothing:
    name = "nothing"
    reports_anchors = False

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return []


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def red() -> Redactor:
    return Redactor(engine=Nothing())


def test_a_base64_key_under_any_name_is_masked_whole() -> None:
    key = b64(PEM)
    for before, after in [("    client-key-data: ", "\n"), ("tls.key: ", ""), ('{"data": {"x": "', '"}}'),
                          ("", ""), ("KEY=", " rest of the line")]:
        r = red()
        out = r.redact(before + key + after)
        assert out == before + "[PRIVATE_KEY_1]" + after, before
        assert r.report()["by_rule"] == {"base64-private-key": 1}


def test_a_base64_key_cut_before_its_end_is_masked_to_where_it_stops() -> None:
    cut = b64(RSA_CUT)[:1203]  # cut mid-way through a base64 group, as a size limit cuts
    out = red().redact(f"client-key-data: {cut}\n... (output truncated)")
    assert out == "client-key-data: [PRIVATE_KEY_1]\n... (output truncated)"


def test_base64_wrapped_in_lines_is_one_key() -> None:
    enc = b64(PEM)
    wrapped = "\n".join(enc[i:i + 76] for i in range(0, len(enc), 76))  # what `base64 key.pem` prints
    out = red().redact(f"$ base64 key.pem\n{wrapped}\n$ ls\n")
    assert out == "$ base64 key.pem\n[PRIVATE_KEY_1]\n$ ls\n"
    escaped = "\\n".join(enc[i:i + 64] for i in range(0, len(enc), 64))  # in a JSON string
    assert red().redact(f'"{escaped}\\n"') == '"[PRIVATE_KEY_1]\\n"'


def test_a_line_after_the_key_that_is_not_of_its_width_is_not_taken() -> None:
    enc = b64(PEM)
    lines = [enc[i:i + 76] for i in range(0, len(enc), 76)]
    # the key's last line is shorter than the others: what follows is not the key
    text = "\n".join(lines) + "\nQUJDREVGR0hJSktMTU5PUA==\n"
    assert red().redact(text) == "[PRIVATE_KEY_1]\nQUJDREVGR0hJSktMTU5PUA==\n"


def test_public_things_in_base64_stay() -> None:
    for text in [b64(CERT), b64("-----BEGIN PUBLIC KEY-----\n" + BODY), b64("-----BEGIN PGP SIGNATURE-----\nabc"),
                 "LS0tLS1CRUdJTiBub3QgYmFzZTY0!!", "xLS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t"]:
        r = red()
        assert r.redact(text) == text, text[:40]


def test_the_line_after_a_key_on_one_line_is_never_taken() -> None:
    key = b64(PEM)
    text = f"    client-key-data: {key}\nusers:\n- name: admin\nAbCd\n"
    assert red().redact(text) == "    client-key-data: [PRIVATE_KEY_1]\nusers:\n- name: admin\nAbCd\n"
    enc = b64(PEM)
    lines = [enc[i:i + 64] for i in range(0, len(enc), 64)]
    # wrapped, then a word on the next line that is not a whole line of base64
    assert red().redact("\n".join(lines[:3]) + "\nnext: thing\n") == "[PRIVATE_KEY_1]\nnext: thing\n"


def test_a_key_first_in_a_text_that_ends_in_a_word_is_masked() -> None:
    assert red().redact(b64(PEM) + " done") == "[PRIVATE_KEY_1] done"


def test_a_certificate_or_a_run_before_a_key_does_not_stop_the_search() -> None:
    text = f"cert: {b64(CERT)}\nrun: x{b64(PEM)[:60]}\nkey: {b64(PEM)}\n"
    assert red().redact(text) == f"cert: {b64(CERT)}\nrun: x{b64(PEM)[:60]}\nkey: [PRIVATE_KEY_1]\n"


def test_an_encrypted_key_is_recognised_from_its_first_line() -> None:
    enc = b64("-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + BODY)
    assert red().redact(f"k={enc}") == "k=[PRIVATE_KEY_1]"


def test_a_wrapped_key_cut_at_the_end_of_a_full_line() -> None:
    enc = b64(PEM)
    lines = [enc[i:i + 64] for i in range(0, 64 * 8, 64)]  # eight full lines, then the cut
    cut = "\n".join(lines)
    assert red().redact(cut) == "[PRIVATE_KEY_1]"  # the text ends there
    assert red().redact(cut + "\n... (truncated)\n") == "[PRIVATE_KEY_1]\n... (truncated)\n"
    assert red().redact('"' + cut + '"') == '"[PRIVATE_KEY_1]"'  # in quotes, real newlines


def test_widths_from_44_to_128_are_wrapped_lines() -> None:
    enc = b64(PEM)
    for width in (44, 76, 128):
        wrapped = "\n".join(enc[i:i + width] for i in range(0, len(enc), width))
        assert red().redact(wrapped + "\n") == "[PRIVATE_KEY_1]\n", width


def test_a_whole_line_after_a_key_on_one_line_is_not_taken() -> None:
    assert red().redact(f"{b64(PEM)}\nQUJD\n") == "[PRIVATE_KEY_1]\nQUJD\n"
