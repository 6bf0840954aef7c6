"""git/_read.py's reading of one commit's `git show --format=raw` bytes, written by hand as git
writes them: the header's sha, parents, author and committer with their dates in their own
offsets and the event's time in UTC; the message without its indent, blank lines kept inside it;
the files of the patch or of the `--raw` listing; a merge counted; bytes that are no UTF-8 warned
(a real U+FFFD is not); the commit's evidence covering all its bytes."""

from __future__ import annotations

import hashlib

from forsy.evidence import Evidence, Quality, ReadingWarning, Ref, Session, SessionMeta
from forsy.payloads import CommitInfo
from forsy.sources.git._read import _add_commit, _split_raw_show

SHA = "a" * 40
HEAD = (f"commit {SHA}\n"
        "tree " + "b" * 40 + "\n"
        "parent " + "1" * 40 + "\n"
        "author Ann Lee <ann@x.org> 1700000000 +0100\n"
        "committer Bob <bob@y.org> 1700000060 -0230\n")
MSG = "\n    subject line\n    \n    body  line\n\n"
PATCH = "diff --git a/f.txt b/f.txt\nindex 1..2 100644\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"


def _session() -> Session:
    return Session("git", "g", [], {}, [], SessionMeta(agent="git"), Quality())


def test_a_commit_is_its_header_message_files_and_evidence() -> None:
    raw = (HEAD + MSG + PATCH).encode()
    s = _session()
    info = _add_commit(s, "git:repo@" + SHA, raw)
    ev = Evidence.make("git:repo@" + SHA, None, 0, raw, hashlib.sha256(raw).hexdigest(), "git_commit")
    assert s.evidence == {ev.id: ev} and (ev.byte_length, ev.line) == (len(raw), None)
    [e] = s.events
    assert (e.kind, e.actor, e.ts, e.refs, e.text) == ("commit", "human:git", "2023-11-14T22:14:20Z", [Ref(ev.id, "")],
                                                       "subject line\n\nbody  line")
    assert e.info is info and isinstance(info, CommitInfo)
    assert (info.sha, info.parents, info.merge) == (SHA, ["1" * 40], False)
    assert (info.author_name, info.author_email, info.author_date) == (
        "Ann Lee", "ann@x.org", "2023-11-14T23:13:20+01:00")
    assert (info.committer_name, info.committer_email, info.committer_date) == (
        "Bob", "bob@y.org", "2023-11-14T19:44:20-02:30")
    assert [(f["path"], f["status"], len(f["hunks"])) for f in info.files] == [("f.txt", "M", 1)]
    assert (s.quality.records, s.quality.extra, s.warnings) == (1, {}, [])


def test_a_merge_listed_raw_and_bytes_that_are_no_utf8() -> None:
    head = HEAD.replace("parent " + "1" * 40 + "\n", "parent " + "1" * 40 + "\nparent " + "2" * 40 + "\n")
    listing = (":100644 100644 " + "3" * 40 + " " + "4" * 40 + " M\tdir/f.txt\n"
               ":000000 100644 " + "0" * 40 + " " + "5" * 40 + " A\t\"caf\\303\\251\"\n"
               "not a listing line\n")
    raw = head.encode() + b"\n    caf\xff\n\n" + listing.encode()
    s = _session()
    info = _add_commit(s, "git:repo@" + SHA + ":raw", raw)
    assert (info.parents, info.merge, s.events[0].text) == (["1" * 40, "2" * 40], True, "caf\ufffd")
    assert info.files == [{"path": "dir/f.txt", "status": "M", "diff": "", "hunks": []},
                          {"path": "café", "status": "A", "diff": "", "hunks": []}]
    assert s.quality.extra == {"merge_commits": 1}
    assert s.warnings == [ReadingWarning("invalid_utf8", "commit output is not valid UTF-8; replaced",
                                         "git:repo@" + SHA + ":raw")]
    _add_commit(s, "git:repo@x", (HEAD.replace("1" * 40, "2" * 40) + "parent " + "9" * 40 + "\n").encode())
    assert s.quality.extra == {"merge_commits": 2} and s.quality.records == 2


def test_a_real_replacement_character_is_no_invalid_utf8() -> None:
    s = _session()
    _add_commit(s, "git:r@x", (HEAD + "\n    caf\ufffd\n").encode())
    assert s.warnings == [] and s.events[0].text == "caf\ufffd"


def test_the_message_ends_at_the_first_blank_line_not_followed_by_an_indented_one() -> None:
    assert _split_raw_show("commit x\n\n    a\n\n    b\n\n\ndiff") == (["commit x"], "a\n\nb", "diff")
    assert _split_raw_show("commit x\n\n    a\n") == (["commit x"], "a", "")
    assert _split_raw_show("commit x\n\n    a\n    ") == (["commit x"], "a\n", "")
    assert _split_raw_show("commit x\nauthor y") == (["commit x", "author y"], "", "")
    assert _split_raw_show("") == ([], "", "")


def test_header_lines_that_say_nothing_leave_the_fields_unset() -> None:
    s = _session()
    info = _add_commit(s, "git:r@x", b"commit\nauthor nobody\ncommitter Bob <b@c> notatime +0000\nodd\n\n    m\n")
    assert (info.sha, info.author_name, info.committer_name, s.events[0].ts) == (None, None, None, None)
    info = _add_commit(s, "git:r@y", f"commit {SHA} (from {'c' * 40})\n\n    m\n".encode())
    assert info.sha == SHA
