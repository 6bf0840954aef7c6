"""Personal data the redactor masks (redact/personal.py), rule by rule on hand-written texts: an
email address (not a machine sender, a documentation domain, a file name, a systemd unit, a
package path or an ssh login), a phone number (international or North American, never a piece
of a longer token), the account name of a home path (a person's, not a service account or a
folder, not a web route), and given words (user names) as whole words."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._base import EMAIL, PATH_USER, PERSON, PHONE, Hit
from forsy.redact.personal import WordList, email, home_path_user, is_person_account, phone

Rule = Callable[[str, Anchors], Iterator[Hit]]


def found(rule: Rule, text: str) -> list[str]:
    return [text[h.start : h.end] for h in rule(text, Anchors(text))]


# --------------------------------------------------------------------------- email
def test_an_address_is_masked_whole_with_its_kind() -> None:
    text = "mail alice.smith+x@mail.acme-corp.io now"
    assert list(email(text, Anchors(text))) == [Hit(5, 36, EMAIL, "email")]
    assert found(email, "a.b@c.de, Bob_1@x.org") == ["a.b@c.de", "Bob_1@x.org"]
    assert found(email, "no at sign here.io") == []


def test_what_only_looks_like_an_address_is_left() -> None:
    for text in ("icon@2x.png", "logo@acme.json", "getty@tty1.service", "dbus@x.socket",  # files, units
                 "bob@example.com", "bob@mail.example.com", "bob@sub.example.org", "bob@x.example.net",
                 "bob@acme.test", "bob@box.local",
                 "bob@company.com", "bob@yourdomain.com",  # documentation's
                 "support@acme.io", "Support@acme.io", "NoReply@acme.io", "your.email@acme.io",  # role, stand-in
                 "@acme.io", "Promise.@acme.io", "pkg@scope.io/name", "a@b.io-x", "a@b.io.x1", "a@b.c"):
        assert found(email, text) == [], text
    # a public mail provider, however generic its name (email.com is mail.com's): its users are people
    for text in ("bob@notexample.com", "bob@example.co", "supporter@acme.io", "bob@acme.testing",
                 "john.smith@email.com"):
        assert found(email, text) == [text], text


def test_the_local_part_is_walked_left_up_to_64_chars_and_without_an_escape() -> None:
    long = "a" * 70
    assert found(email, f"{long}@acme.io") == ["a" * 64 + "@acme.io"]
    assert found(email, "x" + "b" * 64 + "@acme.io") == ["b" * 64 + "@acme.io"]
    assert found(email, "line\\nalice@acme.io") == ["alice@acme.io"]  # JSON's \n
    assert found(email, "\\ralice@acme.io") == ["alice@acme.io"]
    assert found(email, "\\xalice@acme.io") == ["xalice@acme.io"]  # not an escape of a blank
    assert found(email, "to%0Aalice@acme.io") == ["alice@acme.io"]  # URL-encoded newline
    assert found(email, "to%ZZalice@acme.io") == ["ZZalice@acme.io"]
    assert found(email, "--.+alice@acme.io") == ["alice@acme.io"]
    assert found(email, "-alice@acme.io") == ["alice@acme.io"]
    assert found(email, "Xavier@acme.io") == ["Xavier@acme.io"]
    assert found(email, "\\Xavier@acme.io") == ["Xavier@acme.io"]  # not an escape: the word stays whole
    assert found(email, "to%0aalice@acme.io") == ["alice@acme.io"]  # lower-case hex too
    assert found(email, "\\n@acme.io") == []  # the escape alone: no local part
    assert found(email, "%0A@acme.io") == []


def test_a_login_after_ssh_on_the_same_command_is_no_address() -> None:
    for text in ("ssh bob@host.io", "scp f bob@host.io:/tmp", "(rsync -a . bob@host.io:x)", ";ssh bob@host.io",
                 'cmd "ssh bob@host.io"', "cd x\nssh bob@host.io", "cd x\\nssh bob@host.io",
                 "cd x; ssh -p 22 bob@host.io", "x&ssh bob@host.io", "x|ssh bob@host.io", "x#ssh bob@host.io",
                 "a; b;ssh bob@host.io", "ssh " + "x" * 195 + " bob@host.io"):  # ssh within the 200 chars before
        assert found(email, text) == [], text
    for text in ("ssh x\nmail bob@host.io", "ssh x; mail bob@host.io", "ssh x && bob@host.io", "ssh x | bob@host.io",
                 "ssh x # bob@host.io", "ssh x\\nmail bob@host.io", "sshd bob@host.io", "myssh bob@host.io",
                 "ssh " + "x" * 196 + " bob@host.io"):
        assert found(email, text) == ["bob@host.io"], text


# --------------------------------------------------------------------------- phone
def test_international_numbers_of_8_to_15_digits() -> None:
    text = "call +1 415 555 2671 now"
    assert list(phone(text, Anchors(text))) == [Hit(5, 20, PHONE, "phone")]
    for text in ("+44 (20) 7946 0958", "+1 234 5678", "+1 234 567 890 12345", "+1234567890", "+49-30-1234.5678"):
        assert found(phone, text) == [text], text
    for text in ("+1 234 567", "+1 234 567 890 123 456", "+123456789", "+0 415 555 2671", "+1 415 555 2671x",
                 "+1 415 555 2671/2", "+1 415 555 2671:8"):
        assert found(phone, text) == [], text
    assert found(phone, "+1 415 555 2671.") == ["+1 415 555 2671"]
    assert found(phone, "+1 415 555 2671.5") == ["+1 415 555 2671.5"]  # one more group


def test_north_american_numbers_with_their_punctuation() -> None:
    for text in ("415-555-2671", "415.555.2671", "(415) 555-2671", "(415)555.2671"):
        assert found(phone, text) == [text], text
    for text in ("415-555.2671", "115-555-2671", "415-155-2671", "415 555 2671", "415-555-26712", "415-555-2671/x",
                 "(115) 555-2671"):
        assert found(phone, text) == [], text


def test_a_number_inside_a_longer_token_is_left() -> None:
    for text in ("v415-555-2671", "x:415-555-2671", "a_415-555-2671", "=415-555-2671", "-415-555-2671"):
        assert found(phone, text) == [], text
    assert found(phone, "tel:(415) 555-2671") == []  # after ":" as a port would be
    assert found(phone, "tel 415-555-2671") == ["415-555-2671"]
    assert found(phone, "\\n415-555-2671") == ["415-555-2671"]  # after JSON's \n: a token starts
    assert found(phone, "(415-555-2671)") == ["415-555-2671"]


def test_the_engine_anchors_say_where_numbers_may_start() -> None:
    text = "a 415-555-2671 b +1 415 555 2672"
    a = Anchors(text)
    a.phone = []
    assert list(phone(text, a)) == []
    a.phone = [17]
    assert [text[h.start : h.end] for h in phone(text, a)] == ["+1 415 555 2672"]
    a.phone = [2, 17]
    assert [text[h.start : h.end] for h in phone(text, a)] == ["415-555-2671", "+1 415 555 2672"]


# --------------------------------------------------------------------------- home paths
def test_the_account_name_of_a_home_path() -> None:
    text = "open /Users/alice/x.py"
    assert list(home_path_user(text, Anchors(text))) == [Hit(12, 17, PATH_USER, "home-path")]
    for text, name in (("/home/bob", "bob"), ("C:\\Users\\carol\\x", "carol"), ("C:\\\\Users\\\\dave\\\\x", "dave"),
                       ("\\/home\\/erin\\/x", "erin"), ('"/home/frank"', "frank"), ("(/home/gina)", "gina"),
                       ("/home/hal:1", "hal"), ("/home/ivan;", "ivan"), ("/home/jo_e.x-y/", "jo_e.x-y"),
                       ("x /home/kim` y", "kim"), ("[/home/lee]", "lee"), ("{/home/max}", "max"),
                       ("</home/ned>", "ned"), ("/home/ola|x", "ola"), ("/home/pat,", "pat"), ("/home/rob'", "rob"),
                       ("/home/sam\tx", "sam")):
        assert found(home_path_user, text) == [name], text


def test_an_account_name_of_several_words_escapes_or_an_apostrophe_is_masked_whole() -> None:
    """A Windows account may be a full name (`C:\\Users\\Sven Larsson\\`): the words up to a
    separator or a closing quote are the name (its first word alone left the surname); a file
    URL writes its blank as %20; a name may hold an apostrophe. Words after the name that no
    separator follows are not part of it."""
    for text, name in (("C:\\Users\\Sven Larsson\\Documents", "Sven Larsson"),
                       ("C:/Users/Sven Larsson/x", "Sven Larsson"), ("/Users/Sven Larsson/x", "Sven Larsson"),
                       ("C:\\\\Users\\\\Sven Larsson\\\\x", "Sven Larsson"),
                       ('"C:\\Users\\Maria de la Cruz"', "Maria de la Cruz"),
                       ("'/home/Ana Lima'", "Ana Lima"),
                       ("file:///C:/Users/Sven%20Larsson/Documents/a.txt", "Sven%20Larsson"),
                       ("/home/sven.o'brien/x", "sven.o'brien"),
                       ("/home/rob' x", "rob"), ("cd C:\\Users\\sven && dir", "sven"),
                       ("ls /home/sven and more", "sven"), ("C:\\Users\\anna bob carl dave emil\\x", "anna")):
        assert found(home_path_user, text) == [name], text
    # four words after the first are no name: its first word alone is taken, as any
    assert found(home_path_user, "/home/sven and /home/anna/x") == ["sven", "anna"]
    # several words that are no person: neither the phrase nor its first word
    for text in ("C:\\Users\\Default User\\AppData", "C:\\Users\\All Users\\x",
                 "C:\\Users\\Public Documents\\x", "C:/Users/All%20Users/x"):
        assert found(home_path_user, text) == [], text
    r = Redactor(user_names=set())
    # one person, one placeholder, however the path spells the name
    assert r.redact("C:\\Users\\Sven Larsson\\a and file:///C:/Users/Sven%20Larsson/b") == (
        "C:\\Users\\[PATH_USER_1]\\a and file:///C:/Users/[PATH_USER_1]/b")


def test_what_is_no_home_directory_of_a_person_is_left() -> None:
    for text in ("Users/alice", "myUsers/alice", "/home/alice@x", "/home/ubuntu", "/home/runner/work",
                 "/home/ci-bot", "/home/Downloads", "/home/al", "/home/.alice", "http://host:5678/home/alice",
                 "see https://h.io/app/home/alice", "/homes/alice", "/home/" + "a" * 65):
        assert found(home_path_user, text) == [], text
    assert found(home_path_user, "http://h.io/ x /home/alice") == ["alice"]  # the address ended before
    assert found(home_path_user, "http://h.io/\n/home/alice") == ["alice"]
    assert found(home_path_user, "http://h.io/" + "x" * 288 + "/home/alice") == ["alice"]  # 301 chars back
    assert found(home_path_user, "http://h.io/" + "x" * 287 + "/home/alice") == []  # 300 chars back
    assert found(home_path_user, "see http://h.io/ x /home/alice") == ["alice"]  # the last blank before it
    assert found(home_path_user, "/home/alice http://h.io/x") == ["alice"]  # an address after it
    assert found(home_path_user, "http://host:5678/home/alice more") == []
    assert found(home_path_user, "http://hostX:5678/home/alice") == []


def test_a_person_account_is_not_a_service_account_placeholder_or_folder() -> None:
    for name in ("alice", "ALICE", "Alice", "mybox", "alicesuser", "abcdeuser", "bob2", "anna-lee", "ali"):
        assert is_person_account(name), name
    for name in ("al", "Ubuntu", "yourself", "Your_Name", "my-box", "my_box", "aliceAgent", "alice2bot",
                 "ci-alice", "ftpuser", "abcduser", "Downloads", "RUNNER", "JohnDoe", "svcAlice"):
        assert not is_person_account(name), name


# --------------------------------------------------------------------------- given words
def test_given_words_match_whole_words_in_the_cases_asked() -> None:
    words = WordList(["alice"], PERSON, "user-name", ignore_case=True)
    assert (words.kind, words.rule) == (PERSON, "user-name")
    assert set(words.words) == {"alice", "ALICE", "Alice"} and len(words.words) == 3
    text = "alice, ALICE and Alice. xAlice Alice_x _alice aLiCe \\nAlice"
    hits = list(words(text, Anchors(text)))
    assert [(text[h.start : h.end], h.start) for h in hits] == [("alice", 0), ("ALICE", 7), ("Alice", 17),
                                                                ("Alice", 54)]
    assert all((h.kind, h.rule) == (PERSON, "user-name") for h in hits)
    assert found(words, "alice went_") == ["alice"] and found(words, "_alice") == []
    exact = WordList(["Alice"], PERSON, "git-author", ignore_case=False)
    assert exact.words == ("Alice",)
    assert found(exact, "alice Alice") == ["Alice"]


def test_the_longest_word_wins_and_a_place_is_masked_once() -> None:
    words = WordList(["Ann", "Ann Lee"], PERSON, "n", ignore_case=False)
    assert words.words == ("Ann Lee", "Ann")
    assert found(words, "Ann Lee met Ann Leex") == ["Ann Lee", "Ann"]
    twice = WordList(["ab ab", "ab"], PERSON, "n", ignore_case=False)
    assert [(h.start, h.end) for h in twice("ab ab ab", Anchors("ab ab ab"))] == [(0, 5), (6, 8)]
    assert found(twice, "ab") == ["ab"]
    side = WordList(["a-", "-b"], PERSON, "n", ignore_case=False)
    assert [(h.start, h.end) for h in side("a--b", Anchors("a--b"))] == [(0, 2), (2, 4)]  # side by side: both


class _NoEngine:
    """An engine that finds nothing: forsy's own rules alone."""

    name = "none"
    reports_anchors = False

    def scan(self, data: bytes) -> list[Any]:
        return []


def test_an_ssh_login_is_kept_alike_in_a_json_line_and_in_its_parsed_value() -> None:
    """The raw line has the newline as JSON's two chars `\\n`: the login after it was masked as
    an address there, and kept in the parsed value."""
    line = json.dumps({"command": "cd /srv\nssh deploy@build.acme.io 'ls'"})
    red = Redactor(engine=_NoEngine())
    assert red.redact(line) == line
    assert red.redact_value(json.loads(line)) == json.loads(line)
    mail = json.dumps({"command": "cd /srv\nmail deploy@build.acme.io"})
    assert "[EMAIL_1]" in red.redact(mail)
