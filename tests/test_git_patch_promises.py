"""`read_patch` on hand-written `git format-patch` mails and plain diffs: every field of the mail
read as git am reads it, the evidence of each mail, and what is said about bytes it cannot read.

Each mail is written here by hand (no git run), so every expectation is worked out from the text.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from forsy.evidence import Session
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import parse_diff, read_patch

SHA1, SHA2 = "1" * 40, "2" * 40

MAIL_1 = (
    f"From {SHA1} Mon Sep 17 00:00:00 2001\n"
    "From: =?UTF-8?q?Jos=C3=A9=20Dev?= <jose@example.org>\n"
    "Date: Tue, 2 Jan 2024 12:30:00 +0200\n"
    "Subject: [PATCH 1/2] feat: a subject long enough that\n"
    " it is folded\n"
    "\tonto two more lines\n"
    "\n"
    "Why: the list needed a bullet.\n"
    "---\n"
    "Everything after the first --- line is not the message (git am).\n"
    "---\n"
    " a.md | 2 +-\n"
    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    "\n"
    "diff --git a/a.md b/a.md\n"
    "index 1111111..2222222 100644\n"
    "--- a/a.md\n"
    "+++ b/a.md\n"
    "@@ -1,2 +1,2 @@\n"
    " title\n"
    "-- \n"
    "+- item\n"
    "-- \n"
    "2.39.2\n"
    "\n"
)
MAIL_2 = (
    f"From {SHA2} Mon Sep 17 00:00:00 2001\n"
    "Date: someday\n"
    "\n"
    "diff --git a/b.txt b/b.txt\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/b.txt\n"
    "@@ -0,0 +1 @@\n"
    "+b\n"
)


def ci(s: Session, i: int) -> CommitInfo:
    info = s.events[i].info
    assert isinstance(info, CommitInfo)
    return info


def test_a_mail_is_read_as_git_am_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the event time is UTC whatever the machine's zone
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        p = tmp_path / "series" / "two.patch"
        p.parent.mkdir()
        p.write_text(MAIL_1 + MAIL_2)
        s = read_patch(p, ReadContext(root=tmp_path))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    first, second = s.events
    assert first.text == "feat: a subject long enough that it is folded onto two more lines\n\n" \
                         "Why: the list needed a bullet."
    assert (first.ts, first.actor, first.kind) == ("2024-01-02T10:30:00Z", "human:git", "commit")
    one = ci(s, 0)
    assert (one.sha, one.author_name, one.author_email, one.author_date, one.patch) == (
        SHA1, "José Dev", "jose@example.org", "2024-01-02T12:30:00+02:00", True)
    (f,) = one.files
    assert (f["path"], f["status"]) == ("a.md", "M")
    # the removed line "- " reads "-- ": only the LAST "-- " line is the mail's signature
    assert f["diff"].endswith("@@ -1,2 +1,2 @@\n title\n-- \n+- item\n")
    assert f["hunks"][0]["old_lines"] == f["hunks"][0]["new_lines"] == 2
    # a mail with no From, no Subject and a Date that is not one: nothing invented
    two = ci(s, 1)
    assert (s.events[1].text, s.events[1].ts) == ("", None)
    assert (two.sha, two.author_name, two.author_email, two.author_date) == (SHA2, None, None, None)
    assert [(x["path"], x["status"]) for x in two.files] == [("b.txt", "A")]


def test_each_mail_is_its_own_evidence_and_the_file_is_named_from_the_root(tmp_path: Path) -> None:
    p = tmp_path / "series" / "two.patch"
    p.parent.mkdir()
    data = (MAIL_1 + MAIL_2).encode()
    p.write_bytes(data)
    s = read_patch(p, ReadContext(root=tmp_path))
    assert (s.source_kind, s.meta.agent, s.quality.records) == ("git", "git", 2)
    (sf,) = s.files
    assert (sf.path, sf.abs_path, sf.kind, sf.bytes, sf.sha256) == (
        "series/two.patch", str(p), "patch", len(data), hashlib.sha256(data).hexdigest())
    evs = [s.evidence[e.refs[0].ev] for e in s.events]
    assert [(e.refs[0].pointer) for e in s.events] == ["", ""]
    assert [(ev.source, ev.line, ev.byte_offset, ev.byte_length, ev.record_type) for ev in evs] == [
        ("series/two.patch", 1, 0, len(MAIL_1), "format_patch"),
        ("series/two.patch", MAIL_1.count("\n") + 1, len(MAIL_1), len(MAIL_2), "format_patch")]
    assert evs[1].sha256 == hashlib.sha256(MAIL_2.encode()).hexdigest()
    assert s.warnings == []
    # the session id: the same for the same bytes under the same name, another for other bytes or name
    again = read_patch(p, ReadContext(root=tmp_path))
    (tmp_path / "one.patch").write_text(MAIL_1)
    (tmp_path / "series" / "three.patch").write_bytes(data)
    assert again.session_id == s.session_id
    assert read_patch(tmp_path / "one.patch", ReadContext()).session_id != s.session_id
    assert read_patch(tmp_path / "series" / "three.patch", ReadContext()).session_id != s.session_id


def test_a_plain_diff_and_unreadable_bytes_are_said_so(tmp_path: Path) -> None:
    p = tmp_path / "change.diff"
    data = b"--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-caf\xe9\n+cafe\n"
    p.write_bytes(data)
    s = read_patch(p, ReadContext())
    (e,) = s.events
    ev = s.evidence[e.refs[0].ev]
    assert (ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (1, 0, len(data), "unified_diff")
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("invalid_utf8", "patch is not valid UTF-8; replaced", "change.diff", 1)]
    (f,) = ci(s, 0).files
    assert f["diff"] == "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-caf\ufffd\n+cafe\n"
    assert ci(s, 0).patch is True and e.actor == "human:git"
    empty = tmp_path / "notes.patch"
    empty.write_text(f"From {SHA1} Mon Sep 17 00:00:00 2001\nSubject: [PATCH] words only\n\nno diff\n")
    s = read_patch(empty, ReadContext())
    assert s.events[0].text == "words only\n\nno diff" and ci(s, 0).files == []
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("patch_without_diff", "no diff found in the file", "notes.patch", None)]


def test_quoted_and_spaced_paths_of_a_git_diff() -> None:
    diff = (
        'diff --git "a/tab\\there" "b/tab\\there"\n'
        "deleted file mode 100644\n"
        "diff --git a/with space.txt \"b/caf\\303\\251 \\\"q\\\".txt\"\n"
        "similarity index 100%\n"
        "diff --git a/x y/z.txt b/x y/z.txt\n"
        "new file mode 100644\n"
        "diff --git a/odd b/other\n"
        "old mode 100644\n"
        "new mode 100755\n"
    )
    got = [(f["path"], f.get("old_path"), f["status"]) for f in parse_diff(diff)]
    assert got == [
        ("tab\there", None, "D"),
        ('café "q".txt', "with space.txt", "M"),
        ("x y/z.txt", None, "A"),
        (None, None, "M"),  # halves that differ with no rename line: no path is guessed
    ]


def test_paths_of_a_diff_made_without_prefixes_or_cut_short() -> None:
    # `diff.noprefix`: no a/ b/ to strip; a name beginning with an escaped quote; a name ending in "\"
    diff = (
        'diff --git "tab\\there" "tab\\there"\n'
        "new file mode 100644\n"
        'diff --git "\\"q" "\\"q"\n'
        "new file mode 100644\n"
        'diff --git "a/x\\\\" "b/x\\\\"\n'
        "new file mode 100644\n"
    )
    assert [(f["path"], f.get("old_path"), f["status"]) for f in parse_diff(diff)] == [
        ("tab\there", None, "A"), ('"q', None, "A"), ("x\\", None, "A")]
    # a header cut inside its quote: read without error, the text kept as it is, no second path made up
    (f,) = parse_diff('diff --git "a/x y\n')
    assert (f["path"], f["old_path"], f["diff"]) == ("", '"a/x y', 'diff --git "a/x y\n')


def test_a_hunk_is_read_by_its_counts_not_by_what_its_lines_look_like() -> None:
    # the removed line "-- x" and the added line "++ y" read "--- x" / "+++ y": still the hunk's
    # lines, counted by the header, as is a "\ No newline" line (which counts for neither side)
    diff = (
        "--- a/f\n+++ b/f\n"
        "@@ -1,2 +1,2 @@\n"
        "-a\n+b\n\\ No newline at end of file\n--- x\n+++ y\n"
    )
    (f,) = parse_diff(diff)
    assert (f["path"], f["diff"]) == ("f", diff)
    # a lone "--- " line is no file header, nor a last line that starts like one
    assert parse_diff("a note\n--- not a file\nmore\n--- last") == []
    (g,) = parse_diff("--- a/only\n+++ b/only")  # headers at the very end, no newline after them
    assert g["path"] == "only"


@pytest.mark.parametrize(("old", "new"), [("i/", "w/"), ("c/", "w/"), ("c/", "i/"), ("o/", "w/"), ("1/", "2/"),
                                          ("w/", "i/")])
def test_a_diff_written_with_mnemonic_prefixes_names_the_file_itself(old: str, new: str) -> None:
    # `git diff` under diff.mnemonicPrefix=true writes i/ w/ (index, work tree), c/ (a commit), o/ (an
    # object), 1/ 2/ (--no-index) instead of a/ b/: the file is the same on both sides, not renamed
    diff = (f"diff --git {old}src/x.py {new}src/x.py\nindex 1111111..2222222 100644\n"
            f"--- {old}src/x.py\n+++ {new}src/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    (f,) = parse_diff(diff)
    assert (f["path"], f.get("old_path"), f["status"]) == ("src/x.py", None, "M")
    quoted = f'diff --git "{old}caf\\303\\251" "{new}caf\\303\\251"\nnew file mode 100644\n'
    (g,) = parse_diff(quoted)
    assert (g["path"], g.get("old_path"), g["status"]) == ("café", None, "A")


def test_a_diff_without_prefixes_keeps_a_first_folder_that_looks_like_one() -> None:
    # diff.noprefix: "c/x" on both sides is the folder c, not a prefix
    (f,) = parse_diff("diff --git c/x c/x\n--- c/x\n+++ c/x\n@@ -1 +1 @@\n-a\n+b\n")
    assert (f["path"], f.get("old_path")) == ("c/x", None)


def test_a_mail_s_message_and_the_session_s_name_of_its_bytes(tmp_path: Path) -> None:
    # a mail with a diffstat but no diff (an empty commit's format-patch): the message stops at ---
    # and keeps an indented first line as written
    mail = (f"From {SHA1} Mon Sep 17 00:00:00 2001\nSubject: [PATCH] empty\n\n    indented code\nmore\n---\n"
            " 0 files changed\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.patch").write_text(mail)
    (tmp_path / "b" / "x.patch").write_text(mail.replace("more", "other"))
    s = read_patch(tmp_path / "a" / "x.patch", ReadContext())
    assert s.events[0].text == "empty\n\n    indented code\nmore" and ci(s, 0).files == []
    # two patch files of one name and other bytes are two sessions
    assert read_patch(tmp_path / "b" / "x.patch", ReadContext()).session_id != s.session_id
