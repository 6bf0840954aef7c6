"""A secret a command prints by name (redact/printed.py): the command names what it reads, its
one line of output is that secret. Masked in a terminal's text, and where a log keeps the
command and its output apart (a call and its result): everywhere in the trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from _small_logs import answer, call, result, user, write
from forsy.redact import Redactor
from forsy.redact.printed import printed_values, reveals_secret
from forsy.run import RetraceOptions, retrace_one

SECRET = "Hunter2Secret!x"


@pytest.mark.parametrize(("command", "sure"), [
    ("echo $DB_PASSWORD", 2), ('echo "${API_TOKEN}"', 2), ("printenv GITHUB_TOKEN", 2),
    ("Write-Output $env:DB_PASSWORD", 2),
    ("vault kv get -field=password secret/db", 2),
    ("kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", 2),
    ("op read op://vault/db/password", 2), ("security find-generic-password -s github -w", 2),
    ("aws configure get aws_secret_access_key", 2), ("pass show email/gmail", 2), ("cat ~/.secrets/db_password", 2),
    ("gcloud auth print-access-token", 1),
    ("ls -la", 0), ("echo $PATH", 0), ("cat token_usage.json", 0), ("git push origin feature/auth-fix", 0),
    ("docker login -u bob --password-stdin", 0), ("PASSWORD=x ./run.sh", 0),
])
def test_what_a_command_prints_is_read_from_its_names(command: str, sure: int) -> None:
    assert reveals_secret(command) == sure


@pytest.mark.parametrize(("command", "output", "found"), [
    ("echo $DB_PASSWORD", f"{SECRET}\n", [SECRET]),
    ("aws configure get aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
     ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    ("vault kv get -field=password secret/db", f"Exit code: 0\nWall time: 0.2 seconds\nOutput:\n{SECRET}\n", [SECRET]),
    ("gcloud auth print-access-token", "ya29.a0AfH6SMBx7exampleTokenValue123\n",
     ["ya29.a0AfH6SMBx7exampleTokenValue123"]),
    ("echo $DB_PASSWORD", "\n", []),  # nothing printed
    ("echo $DB_PASSWORD", "Error: variable not set\n", []),  # words, not a secret
    ("echo $DB_PASSWORD", f"{SECRET}\nsecond line\n", []),  # more than its one line
    ("grep -c password app.py", "3\n", []),
    ("git rev-parse auth", "9f2c1e4b7a8d3c6e5f0a1b2c3d4e5f6a7b8c9d0e\n", []),  # a word for a token: a hash is no secret
    ("ls -la", f"{SECRET}\n", []),
])
def test_the_printed_line_is_the_secret(command: str, output: str, found: list[str]) -> None:
    assert printed_values([(command, output)]) == found


@pytest.mark.parametrize("text", [
    f"$ echo $DB_PASSWORD\n{SECRET}\n$ ls",
    f"bob@box:~/app$ printenv STRIPE_SECRET_KEY\n{SECRET}",
    f"PS C:\\app> Write-Output $env:DB_PASSWORD\\r\\n{SECRET}\\r\\n",
    f"# vault kv get -field=password secret/db\\n{SECRET}\\n",
])
def test_a_terminals_text_loses_the_printed_secret(text: str) -> None:
    out = Redactor().redact(text)
    assert SECRET not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", [
    f"echo $DB_PASSWORD\n{SECRET}",  # no prompt: not a terminal's text
    "$ git log --oneline -1 --author=bob\n9f2c1e4 fix the token refresh",
    "$ echo $DB_PASSWORD\n$ ls",
])
def test_other_lines_after_commands_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_call_and_its_result_read_together_lose_the_secret_everywhere(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [
        user(1, "u1", None, "what is the db password on staging?"),
        call(2, "a1", "u1", "t1", "Bash", {"command": "echo $DB_PASSWORD"}),
        result(3, "r1", "a1", "t1", SECRET),
        answer(4, "a2", "r1", f"The password is set; it starts with {SECRET[:4]}. Full value: {SECRET}"),
    ])
    [o] = retrace_one(log, RetraceOptions())
    assert o.status == "traced" and o.assembled is not None
    written = o.assembled.trace.model_dump_json() + o.assembled.provenance.model_dump_json()
    assert SECRET not in written and "Hunter2Secret" not in written
    assert "[CREDENTIAL_1]" in written


def test_a_printed_record_is_left_to_the_rules_that_read_records() -> None:
    """`cat ~/.pgpass` prints a record: its password is masked alone (so it is known alone, and
    masked where it is repeated), not the whole line."""
    r = Redactor()
    out = r.redact("$ cat ~/.pgpass\\ndb.prod.internal:*:*:app:A2j.LyoSarMAEtsM\\n")
    assert out == "$ cat ~/.pgpass\\ndb.prod.internal:*:*:app:[CREDENTIAL_1]\\n"
    assert r.redact("it was A2j.LyoSarMAEtsM again") == "it was [CREDENTIAL_1] again"


def test_a_command_the_person_ran_loses_what_it_printed(tmp_path: Path) -> None:
    """Claude Code's bash mode: `!echo $DB_PASSWORD`, then the output as `<bash-stdout>`."""
    log = write(tmp_path / "s.jsonl", [
        user(1, "u1", None, "<bash-input>echo $DB_PASSWORD</bash-input>"),
        user(2, "u2", "u1", f"<bash-stdout>{SECRET}</bash-stdout><bash-stderr></bash-stderr>"),
        user(3, "u3", "u2", f"is {SECRET} strong enough?"),
        answer(4, "a1", "u3", "It is long and mixed: yes."),
    ])
    [o] = retrace_one(log, RetraceOptions())
    assert o.status == "traced" and o.assembled is not None
    written = o.assembled.trace.model_dump_json() + o.assembled.provenance.model_dump_json()
    assert SECRET not in written and "[CREDENTIAL_1]" in written
