"""A person's name where git and other tools print it: set for git as one word
(`git config user.name alice`, `GIT_COMMITTER_NAME=…`, `git -c user.name=…`), read back
(`git config user.name` then the line it printed), in git's raw objects and porcelain
(`author Jane Doe <…> 1700000000 +0100`, `author Jane Doe` before `author-mail`), and right
before an address in angle brackets (a manifest's author, a changelog's signature, `.mailmap`,
`hg log`'s user, `git shortlog -sne`). Look-alikes: a template, a bot, a generic account, a
team's or a project's mailbox, a role's address, prose after the command."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "name"), [
    ("git config user.name mbeaumont", "mbeaumont"),
    ('git config --global user.name "Mireille"', "Mireille"),
    ("git config --local user.name 'Oksana' && git commit -am wip", "Oksana"),
    ("git -c user.name=Teodor commit -m 'fix'", "Teodor"),
    ("export GIT_AUTHOR_NAME=Radek", "Radek"),
    ("$ git config user.name\nLeopold Anand\n$ git status", "Leopold Anand"),
    ("$ git config --list\nuser.name=Ines\nuser.email=ines@mail.pt", "Ines"),
    (json.dumps({"command": "git config --global user.name Yusuf"}), "Yusuf"),
])
def test_a_name_set_for_git_is_masked_even_as_one_word(text: str, name: str) -> None:
    out = Redactor().redact(text)
    assert name not in out, out
    assert "[PERSON_1]" in out


@pytest.mark.parametrize(("text", "name"), [
    ("$ git cat-file -p HEAD\ntree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
     "author Mireille Okafor <mo@mail.fr> 1700000000 +0100\ncommitter Mireille Okafor <mo@mail.fr> 1700000000 +0100",
     "Mireille Okafor"),
    ("9fceb02d0ae598e95dc970b74767f19372d61af8 3 3 1\nauthor Teodor Lindqvist\nauthor-mail <teo@mail.se>\n"
     "author-time 1700000000", "Teodor Lindqvist"),
    ('  "author": "Oksana Hryhorenko <oksana@mail.ua>",', "Oksana Hryhorenko"),
    ('authors = ["Leopold van der Berg <leo@mail.nl>"]', "Leopold van der Berg"),
    (" -- Radek Novak <radek@mail.cz>  Tue, 02 Jan 2024 09:00:00 +0100", "Radek Novak"),
    ("Maintainer: Ines Carvalho <ines@mail.pt>", "Ines Carvalho"),
    ("changeset:   3:1f0e2d3c4b5a\nuser:        Yusuf Demir <yusuf@mail.tr>", "Yusuf Demir"),
    ("$ git shortlog -sne\n    12\tAmara Nwosu <amara@mail.ng>", "Amara Nwosu"),
    ("Amara Nwosu <amara@mail.ng> <a.nwosu@old.ng>", "Amara Nwosu"),
])
def test_a_name_beside_its_address_is_masked(text: str, name: str) -> None:
    out = Redactor().redact(text)
    assert name not in out, out


@pytest.mark.parametrize("lookalike", [
    'git config user.name "$GIT_USER"',
    'git config user.name "github-actions[bot]"',
    "git config --global user.name ci",
    "git config user.name\nThen run the tests again",
    "Co-authored-by: Claude <noreply@anthropic.com>",
    "reply-to: Acme Support Team <help@acme.io>",
])
def test_look_alikes_stay_beside_a_masked_name(lookalike: str) -> None:
    text = f"git config user.name mbeaumont\n{lookalike}"
    out = Redactor().redact(text)
    assert "mbeaumont" not in out
    assert out.endswith("\n" + lookalike), out


@pytest.mark.parametrize("name", ["The Acme Project", "Acme Developers", "Widget Labs", "ACME"])
def test_a_teams_or_a_projects_name_before_its_address_stays(name: str) -> None:
    out = Redactor().redact(f"Jane Okoro <jane@mail.ng>\nmaintainer = '{name} <dev@acme.org>'")
    assert "Jane Okoro" not in out
    assert f"'{name} <" in out, out
