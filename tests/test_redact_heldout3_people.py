"""A person's name in an account database line (`/etc/passwd`, `getent passwd`: the GECOS
field's first part, for a person's account), in `git blame`'s default line (between the `(`
and the date), and in `git shortlog -s -n`'s lines (count, tab, name; counts never rising).
Look-alikes: system accounts, a service's description, the login as its own name, an empty
field, uncommitted lines, `cat -n`'s numbered lines, one-word entries."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "name"), [
    ("hkarlsson:x:1003:1003:Henrik Karlsson,,,:/home/hkarlsson:/bin/bash", "Henrik Karlsson"),
    ("$ grep adaeze /etc/passwd\nadaeze:x:1500:100:Adaeze Nwachukwu-Obi,Lab 4,+44 20 7946 0000,:/home/adaeze:/bin/zsh",
     "Adaeze Nwachukwu-Obi"),
    ("_mbp:x:501:20:Pieter de Vries:/Users/_mbp:/bin/zsh", "Pieter de Vries"),
    (json.dumps({"output": "rk:x:1001:1001:Rosa Kettunen:/home/rk:/bin/sh\n"}), "Rosa Kettunen"),
])
def test_a_person_named_in_a_passwd_line_is_masked(text: str, name: str) -> None:
    out = Redactor().redact(text)
    assert name not in out, out
    assert "[PERSON_1]" in out


@pytest.mark.parametrize("text", [
    "root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin",
    "postgres:x:112:120:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash",
    "nobody:x:65534:65534:Kernel Overflow User:/nonexistent:/usr/sbin/nologin",
    "node:x:1000:1000::/home/node:/bin/bash",
    "vscode:x:1000:1000:Dev Container User,,,:/home/vscode:/bin/bash",
    "jenkins:x:1001:1001:Jenkins Automation Server,,,:/var/lib/jenkins:/bin/bash",
    "ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash",
])
def test_system_and_service_accounts_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(("text", "name"), [
    ("a41c9e07 (Beatriz Oliveira 2021-06-30 14:02:11 -0300  7) import os", "Beatriz Oliveira"),
    ("^b3d2e1f lib/q.rb (Nguyen Thi Lan      2019-01-05 08:00:00 +0700 120)   end", "Nguyen Thi Lan"),
    ("$ git blame -L 3,4 a.go\n7e6d5c4b3 (Oskar Ødegård 2020-02-02 02:02:02 +0100 3) func a() {\n"
     "7e6d5c4b3 (Oskar Ødegård 2020-02-02 02:02:02 +0100 4) }", "Oskar Ødegård"),
])
def test_the_author_of_a_git_blame_line_is_masked(text: str, name: str) -> None:
    out = Redactor().redact(text)
    assert name not in out, out
    assert "[PERSON_1]" in out


def test_an_uncommitted_blame_line_stays() -> None:
    text = "00000000 (Not Committed Yet 2024-05-01 10:00:00 +0200 9) x = 1"
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(("text", "names"), [
    ("$ git shortlog -s -n --all\n   310\tMarisol Echeverría\n    88\tJun-seo Park\n     2\trenovate[bot]\n",
     ["Marisol Echeverría", "Jun-seo Park"]),
    ("  17\tThandiwe van Wyk\n  17\tGiorgos Papadakis\n", ["Thandiwe van Wyk", "Giorgos Papadakis"]),
])
def test_the_people_of_git_shortlog_are_masked(text: str, names: list[str]) -> None:
    out = Redactor().redact(text)
    assert not [n for n in names if n in out], out


@pytest.mark.parametrize("text", [
    "     1\tGetting Started\n     2\tRelease Notes\n     3\tKnown Issues\n",
    "   42\tjdoe\n   17\tasmith\n",
    "    12\tJane Doe\n",
])
def test_numbered_listings_and_one_word_entries_stay(text: str) -> None:
    assert Redactor().redact(text) == text
