"""Credentials on command lines (redact/cmdline.py), on forsy's own rules alone (an engine that
finds nothing, so every mask is forsy's): the labelled set of tests/cmdline_secrets.py in one
loop per promise (test_redact_cmdline.py has the same cases as parametrised tests, whose ids
pytest cannot take back on a command line), and each piece by hand: the CLI_SECRETS entries, the
shell words of a command, the quotes, the slots of a secret among the words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from cmdline_secrets import CmdCase, CmdlineGen
from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._base import CREDENTIAL, Hit
from forsy.redact._values import name_tier
from forsy.redact.cmdline import (
    CLI_ANCHORS,
    CLI_SECRETS,
    CLI_TABLE,
    CliSlot,
    _cli_slot,
    _escape_len,
    _flag_value,
    _unquoted,
    cli_literal,
    cli_secret,
    setter_value,
    shell_words,
)
from secretgen import forms

GEN = CmdlineGen(seed=20261117)
CASES = GEN.must_mask(240)
CLEAN = GEN.must_not_mask(240)


class _NoEngine:
    name = "none"
    reports_anchors = False

    def scan(self, data: bytes) -> list[Any]:
        return []


@pytest.fixture(scope="module")
def red() -> Redactor:
    return Redactor(engine=_NoEngine())


def _leaks(case: CmdCase, out: str) -> list[str]:
    return [s for s in case.secrets if any(f in out for f in forms(s))]


# --------------------------------------------------------------------------- the labelled set, in loops
def test_every_generated_secret_is_masked_exactly(red: Redactor) -> None:
    """The secret and nothing else: the flag, the name, the quotes, a closing `)` stay."""
    wrong = []
    for case, out in zip(CASES, red.redact_many([c.text for c in CASES]), strict=True):
        kept = case.text
        for s in sorted(case.secrets, key=len, reverse=True):
            kept = kept.replace(s, "\0")
        expected = re.escape(kept).replace("\\\x00", r"\[CREDENTIAL_\d+\]").replace("\x00", r"\[CREDENTIAL_\d+\]")
        if not re.fullmatch(expected, out):
            wrong.append((case.text, out))
    assert wrong == []


CONTEXTS: dict[str, Callable[[str], str]] = {
    "alone": lambda t: t,
    "bash -c": lambda t: "bash -c " + json.dumps(t),
    "code fence": lambda t: f"Run:\n```bash\n$ {t}\n```\n",
    "CRLF": lambda t: f"{t}\r\necho ok\r\n",
    "between commands": lambda t: f"cd /srv; {t}; echo done",
    "tool use": lambda t: json.dumps({"type": "tool_use", "input": {"command": t, "description": "Run it"}}),
    "twice escaped": lambda t: json.dumps({"type": "tool_use", "input": json.dumps({"command": t})}),
}


def test_every_generated_secret_is_masked_in_every_context_and_no_lookalike_changes(red: Redactor) -> None:
    for name, wrap in CONTEXTS.items():
        outs = red.redact_many([wrap(c.text) for c in CASES])
        assert [c.text for c, o in zip(CASES, outs, strict=True) if _leaks(c, o)] == [], name
        clean = [wrap(t) for t in CLEAN]
        assert [t for t, o in zip(clean, red.redact_many(clean), strict=True) if t != o] == [], name


# --------------------------------------------------------------------------- the table
def test_each_entry_is_parsed_into_its_slots() -> None:
    assert _cli_slot("-p") == CliSlot("-p", True, False, "", 0, "", False)
    assert _cli_slot("--password") == CliSlot("--password")
    assert _cli_slot("-P+") == CliSlot("-P", separate=True, attached=True)
    assert _cli_slot("-p*") == CliSlot("-p", separate=False, attached=True)
    assert _cli_slot("/p:*") == CliSlot("/p:", separate=False, attached=True)
    assert _cli_slot("-U%") == CliSlot("-U", split="%")
    assert _cli_slot("--user%") == CliSlot("--user", split="%")
    assert _cli_slot("-u,") == CliSlot("-u", split=",")
    assert _cli_slot("#2") == CliSlot(position=2)
    assert _cli_slot("#1/") == CliSlot(position=1, split="/")
    assert _cli_slot("#-1?b") == CliSlot(position=-1, when="b")
    assert _cli_slot("#1~") == CliSlot(position=1, machine=True)
    assert _cli_slot("--value?SecureString") == CliSlot("--value", when="SecureString")
    assert _cli_slot("#=") == CliSlot(split="=", pairs=True)
    assert _cli_slot("--from-literal=") == CliSlot("--from-literal", split="=")
    assert _cli_slot("-Password") == CliSlot("-Password")
    for bad in ("p", "#x", "-p?", "#12", "-p~x"):
        with pytest.raises(ValueError, match=re.escape(f"bad CLI_SECRETS entry {bad!r}")):
            _cli_slot(bad)


def test_the_table_is_keyed_by_the_command_and_anchored_with_its_blank() -> None:
    assert CLI_TABLE["docker"] == [(("login",), (CliSlot("-p"), CliSlot("--password")))]
    assert CLI_TABLE["7z"] == [((), (CliSlot("-p", separate=False, attached=True),))]
    assert [sub for sub, _ in CLI_TABLE["security"]] == [("add-generic-password",), ("add-internet-password",),
                                                         ("unlock-keychain",), ("create-keychain",)]
    # the most words first: a command is read by its most specific entry
    assert [sub for sub, _ in CLI_TABLE["mc"]] == [("config", "host", "add"), ("alias", "set")]
    assert [sub for sub, _ in CLI_TABLE["kubectl"]] == [("create", "secret", "generic"), ()]
    assert len(CLI_ANCHORS) == len(CLI_SECRETS) and CLI_ANCHORS[0] == "docker login "
    assert "rar " in CLI_ANCHORS and "ConvertTo-SecureString " in CLI_ANCHORS


# --------------------------------------------------------------------------- shell words
def _words(text: str, pos: int = 0, limit: int | None = None) -> list[str]:
    return [text[s:e] for s, e in shell_words(text, pos, len(text) if limit is None else limit)]


def test_shell_words_end_at_the_end_of_the_command() -> None:
    assert list(shell_words("a  b\tc", 0, 6)) == [(0, 1), (3, 4), (5, 6)]
    for text in ("a b; c", "a b & c", "a b | c", "a b(c", "a b)c", "a b < c", "a b > c", "a b `c`", "a b # c",
                 "a b\nc", "a b\rc", "a b\\nc", "a b\\\\nc", "a b\\rc"):
        assert _words(text) == ["a", "b"], text
    assert _words("a\\tb \\t c") == ["a", "b", "c"]  # JSON's tab is a blank
    assert _words("abcdef", 0, 3) == ["abc"]
    assert _words("xx abc", 3) == ["abc"]
    assert _words("a\\ b c") == ["a\\ b", "c"]  # a shell escape keeps the blank in the word


def test_a_quote_opens_a_string_at_a_word_start_or_in_a_flag() -> None:
    assert _words("'a b' c") == ["'a b'", "c"]
    assert _words('--body="x y" z') == ['--body="x y"', "z"]
    assert _words("-p'x y' z") == ["-p'x y'", "z"]
    assert _words('/p:"x y" z') == ['/p:"x y"', "z"]
    assert _words('\\"x y\\" z') == ['\\"x y\\"', "z"]  # escaped JSON quotes
    assert _words('ab"cd ef') == ["ab"]  # a bare quote ends the JSON string holding the command
    assert _words('--bo"dy x') == ["--bo"]
    assert _words('"unclosed x') == []
    assert _words('a "x\ny" b') == ["a"]  # not closed on its line
    assert _words("a 'x' b") == ["a", "'x'", "b"]


def test_escape_lengths() -> None:
    for text, n in (("\\n", 2), ("\\r", 2), ("\\t", 2), ("\\\\n", 3), ("\\\\\\n", 4), ("\\\\\\\\n", 0), ("\\x", 0),
                    ("\\", 0), ("n", 0), ("\\\\", 0)):
        assert _escape_len(text, 0) == n, text
    assert _escape_len("ab\\n", 2) == 2


def test_unquoted_is_the_inside_of_a_quoted_word() -> None:
    for text, span in (('"abc"', (1, 4)), ("'a'", (1, 2)), ("`a`", (1, 2)), ('""', (1, 1)), ('"', (0, 1)),
                       ('\\"x\\"', (2, 3)), ('\\"\\"', (2, 2)), ('\\"', (0, 2)), ('"abc', (0, 4)), ("abc", (0, 3)),
                       ("'a\"", (0, 3))):
        assert _unquoted(text, 0, len(text)) == span, text
    assert _unquoted('x="ab"', 2, 6) == (3, 5)


def test_a_literal_is_no_reference_placeholder_or_word() -> None:
    for value in ("abc", "s3cr3tV4lue", "changeme"):
        assert cli_literal(value), value
    for value in ("ab", "$PW", "${PW}", "%PW%", "$(cat f)", "<password>", "password", "PASSWORD", ""):
        assert not cli_literal(value), value


# --------------------------------------------------------------------------- cli_secret
def _found(text: str) -> list[str]:
    return [text[h.start : h.end] for h in cli_secret(text, Anchors(text))]


def test_the_slots_of_each_kind_of_entry() -> None:
    pw = "s3cr3tV4lue"
    assert list(cli_secret(f"docker login -p {pw}", Anchors(f"docker login -p {pw}"))) == [
        Hit(16, 27, CREDENTIAL, "cli-secret")]
    for text, want in (
            (f"docker login --password={pw} reg.io", [pw]), (f"docker login -p '{pw} x' reg.io", [f"{pw} x"]),
            (f"docker login -p{pw}", []), (f"docker login -p -x {pw}", []), (f"docker logout -p {pw}", []),
            ("docker login", []), ("docker login -p", []),
            (f"sqlcmd -S h -P{pw}", [pw]), (f"sqlcmd -P {pw}", [pw]), (f"sqlcmd -P={pw}", [pw]),
            (f"7z a -p{pw} x.7z", [pw]), (f"7z a -p {pw} x.7z", []), (f"7z a -p={pw}", [f"={pw}"]),
            (f"xfreerdp /v:h /p:{pw}", [pw]), (f"smbclient //h/s -U alice%{pw}", [pw]),
            (f"smbclient //h/s -U {pw}", []), (f"smbclient -U %{pw}", []), (f"smbclient --user=bob%{pw}", [pw]),
            (f"smbclient -U bob%{pw}@x", [f"{pw}@x"]),  # an @ after % is part of the secret
            (f"sqlplus scott/{pw}@x@db", [f"{pw}@x"]),  # up to the last @
            (f"sqlplus scott/{pw}@db", [pw]), (f"sqlplus scott/{pw}", [pw]), (f"sqlplus /{pw}", []),
            (f"lftp -u alice,{pw} h", [pw]), (f"cf auth alice {pw}", [pw]), ("cf auth alice", []),
            (f"htpasswd -b -c f alice {pw}", [pw]), (f"htpasswd -cb f alice {pw}", [pw]), (f"htpasswd f {pw}", []),
            (f"mc alias set m http://h ak {pw}", [pw]), (f"mc config host add m http://h ak {pw}", [pw]),
            ("vault login hvs.CAESIJ3k9xQz7L2mNpR4tVwY8aBc", ["hvs.CAESIJ3k9xQz7L2mNpR4tVwY8aBc"]),
            ("vault login first", []), (f"keytool -storepass {pw} -keypass k3yp4ssw0rd", [pw, "k3yp4ssw0rd"]),
            ("docker login -p $PW", []), ("docker login -p ${PW}", []), ("docker login -p ab", []),
            (f"kubectl --token {pw} get pods", [pw]), (f"kubectl get --token={pw}", [pw]),
            (f"ConvertTo-SecureString '{pw}' -AsPlainText", [pw]), (f"ConvertTo-SecureString -String {pw}", [pw, pw])):
        assert _found(text) == want, text


def test_where_a_command_may_start() -> None:
    pw = "s3cr3tV4lue"
    for text in (f"(docker login -p {pw})", f"x;docker login -p {pw}", f"`docker login -p {pw}`",
                 f"'docker login -p {pw}'", f"/usr/bin/docker login -p {pw}", f"X=$docker login -p {pw}",
                 f"a=docker login -p {pw}", f"\\ndocker login -p {pw}", f"\tdocker login -p {pw}"):
        assert _found(text) == [pw], text
    for text in (f"xdocker login -p {pw}", f"_docker login -p {pw}", f"-docker login -p {pw}",
                 f"mydocker login -p {pw}"):
        assert _found(text) == [], text


def test_each_command_is_read_once_and_the_next_one_too() -> None:
    text = "docker login -p aaa1x; docker login -p bbb2x && zip -P ccc3x f.zip f"
    assert _found(text) == ["aaa1x", "bbb2x", "ccc3x"]
    # a command given as an argument of another is inside the first's words: read as its own too
    assert _found("sudo docker login -p aaa1x") == ["aaa1x"]
    text = "docker login -p a\\b"
    a = Anchors(text)
    assert list(cli_secret(text, a)) == [] and a.want_json_view  # read in the unescaped view
    a = Anchors("docker login -p abc1")
    list(cli_secret("docker login -p abc1", a))
    assert not a.want_json_view


# --------------------------------------------------------------------------- values set by a command, flag values
P = "Zx8Qw2Lp9Rt4Vb7N"  # machine-made: a token's value


def _set(text: str, name: str) -> tuple[str | None, bool]:
    """What setter_value masks after the name (the rules find the name), and whether it asked
    for the unescaped view."""
    i, a = text.index(name), Anchors(text)
    h = setter_value(text, i, i + len(name), name, name_tier(name), a)
    assert h is None or (h.kind, h.rule) == (CREDENTIAL, "secret-assignment")
    return (text[h.start : h.end] if h else None), a.want_json_view


def test_a_value_set_by_a_command_is_masked() -> None:
    for text, name, value in (
            (f"set -x API_TOKEN {P}", "API_TOKEN", P), (f"set -gx API_TOKEN {P}", "API_TOKEN", P),
            (f"set --global API_TOKEN {P}", "API_TOKEN", P), (f"set --export API_TOKEN {P}", "API_TOKEN", P),
            ("set DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("set DB_PASSWORD\thunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("setx DB_PASSWORD  hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("setenv DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("setx DB_PASSWORD 'hunter2 hunter'", "DB_PASSWORD", "hunter2 hunter"),
            ("echo set DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("Set-Item Env:DB_PASSWORD -Value hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("New-Item -Path Env:DB_PASSWORD -Value 'hunter2hunter'", "DB_PASSWORD", "hunter2hunter"),
            ("set-item env:DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            (f"npm config set //reg/:_authToken {P}", "_authToken", P),
            ("yarn config set DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("npm set DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            (f"aws configure set aws_secret_access_key {P}", "aws_secret_access_key", P),
            ("git config --global user.password hunter2hunter", "user.password", "hunter2hunter"),
            ("git config --worktree DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("git config DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("dotnet user-secrets set DB_PASSWORD hunter2hunter", "DB_PASSWORD", "hunter2hunter"),
            ("poetry config http-basic.pypi.password hunter2hunter", "http-basic.pypi.password", "hunter2hunter"),
            ('os.Setenv("DB_PASSWORD", "hunter2hunter")', "DB_PASSWORD", "hunter2hunter"),
            ('os.Setenv(\\"DB_PASSWORD\\", \\"hunter2hunter\\")', "DB_PASSWORD", "hunter2hunter"),
            ('putenv( "DB_PASSWORD", "hunter2hunter")', "DB_PASSWORD", "hunter2hunter"),
            ('setdefault("DB_PASSWORD" , "hunter2hunter")', "DB_PASSWORD", "hunter2hunter"),
            ("SetEnvironmentVariable('DB_PASSWORD', 'hunter2hunter')", "DB_PASSWORD", "hunter2hunter")):
        assert _set(text, name) == (value, False), text


def test_no_value_where_none_is_set_or_it_is_no_literal() -> None:
    for text, name in (
            (f"set -e API_TOKEN {P}", "API_TOKEN"), (f"set -q API_TOKEN {P}", "API_TOKEN"),
            (f"set -n API_TOKEN {P}", "API_TOKEN"), (f"set -S API_TOKEN {P}", "API_TOKEN"),
            (f"set -xe API_TOKEN {P}", "API_TOKEN"),
            (f"set --erase API_TOKEN {P}", "API_TOKEN"), (f"set --query API_TOKEN {P}", "API_TOKEN"),
            (f"set --names API_TOKEN {P}", "API_TOKEN"), (f"set --show API_TOKEN {P}", "API_TOKEN"),
            ("setx DB_PASSWORD $PW", "DB_PASSWORD"), ("setx DB_PASSWORD -x", "DB_PASSWORD"),
            ("setx DB_PASSWORD =x", "DB_PASSWORD"), ("setx DB_PASSWORD :x", "DB_PASSWORD"),
            ("setx DB_PASSWORD", "DB_PASSWORD"), ("setx DB_PASSWORD;", "DB_PASSWORD"),
            ("setx DB_PASSWORD ab", "DB_PASSWORD"), ("set -x DB_PASSWORD password", "DB_PASSWORD"),
            ("xset DB_PASSWORD hunter2hunter", "DB_PASSWORD"), ("reset DB_PASSWORD hunter2hunter", "DB_PASSWORD"),
            ("x.set DB_PASSWORD hunter2hunter", "DB_PASSWORD"), ("DB_PASSWORD hunter2hunter", "DB_PASSWORD"),
            ('os.Setenv("DB_PASSWORD", pw)', "DB_PASSWORD"), ('os.Setenv("DB_PASSWORD", "$PW")', "DB_PASSWORD"),
            ('Setenv("' + "x" * 30 + '", "DB_PASSWORD", "hunter2hunter")', "DB_PASSWORD")):
        assert _set(text, name) == (None, False), text
    for text in ('os.Setenv("DB_PASSWORD", "hunter\\"2")', 'os.Setenv("DB_PASSWORD", "unclosed',
                 "setx DB_PASSWORD hunter\\2hunter"):
        assert _set(text, "DB_PASSWORD") == (None, True), text  # read in the unescaped view


def _flag(text: str, spaced: bool = True, name: str = "--password") -> tuple[str | None, bool]:
    a = Anchors(text)
    h = _flag_value(text, name, name_tier(name), len(name) + 1, spaced, a)
    assert h is None or (h.kind, h.rule) == (CREDENTIAL, "secret-assignment")
    return (text[h.start : h.end] if h else None), a.want_json_view


def test_a_flag_value_is_one_shell_word() -> None:
    h = "hunter2hunter"
    for text, spaced, value in (
            (f"--password {h}", True, h), (f"--password={h},x", False, f"{h},x"), ("--password=-x12", False, "-x12"),
            (f"--password {h};x", True, h), (f"--password {h}\\n", True, h), (f"--password {h}\\", True, h),
            (f'--password {h}\\"', True, h), (f"--password {h}\\t", True, h), (f"--password {h}\\r", True, h)):
        assert _flag(text, spaced) == (value, False), text
    assert _flag("--password hunter2\\x") == ("hunter2", True)  # an escape inside: the unescaped view decides
    assert _flag("--password hunter2hunter\\n next") == ("hunter2hunter", False)  # JSON's newline: the end
    assert _flag("--password foo.bar") == ("foo.bar", False)  # on a command line a dotted word is the value
    assert _flag("--password changeme") == (None, False)  # documentation's stand-in
    assert _flag("--api-token hello123x", name="--api-token") == (None, False)  # a token's value is machine-made
    assert _flag(f"--api-token {P}", name="--api-token") == (P, False)
    for text in ("--password -x", "--password $PW", "--password  x", "--password ab", "--password password"):
        assert _flag(text) == (None, False), text
    long = "--password " + "a1" * 600
    assert _flag(long) == ("a1" * 512, False)
