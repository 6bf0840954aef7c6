"""git/_diff.py's promises, each diff written by hand as git writes it: every file's path, old
path, status, exact diff text and hunks (starts and counts, a count git leaves out is 1); quoted
paths with C escapes and octal bytes (bytes that are no UTF-8 replaced, never dropped); renames,
copies, new and deleted files, binary files, plain `---`/`+++` diffs with a date, combined diffs of
a merge; what comes before the first file is no file."""

from __future__ import annotations

import pytest

from forsy.sources.git import parse_diff
from forsy.sources.git._diff import unquote


def test_a_file_of_two_hunks_with_its_exact_text_and_counts() -> None:
    diff = ("a description\n\n"
            "diff --git a/src/x.py b/src/x.py\n"
            "index 1111111..2222222 100644\n"
            "--- a/src/x.py\n"
            "+++ b/src/x.py\n"
            "@@ -1,3 +1,2 @@ def f():\n"
            " a\n"
            "-b\n"
            " c\n"
            "@@ -10 +9,0 @@\n"
            "-z\n"
            "\\ No newline at end of file\n"
            "\n\n")
    (f,) = parse_diff(diff)
    assert f == {
        "path": "src/x.py", "status": "M",
        "diff": diff.removeprefix("a description\n\n").rstrip("\n") + "\n",
        "hunks": [
            {"header": "@@ -1,3 +1,2 @@ def f():", "old_start": 1, "old_lines": 3, "new_start": 1, "new_lines": 2},
            {"header": "@@ -10 +9,0 @@", "old_start": 10, "old_lines": 1, "new_start": 9, "new_lines": 0}],
    }


def test_new_deleted_renamed_copied_and_binary_files() -> None:
    diff = ("diff --git a/new.txt b/new.txt\n"
            "new file mode 100644\n"
            "--- /dev/null\n"
            "+++ b/new.txt\n"
            "@@ -0,0 +1 @@\n"
            "+n\n"
            "diff --git a/old.txt b/old.txt\n"
            "deleted file mode 100644\n"
            "--- a/old.txt\n"
            "+++ /dev/null\n"
            "@@ -1 +0,0 @@\n"
            "-o\n"
            "diff --git a/from.txt b/to.txt\n"
            "similarity index 90%\n"
            "rename from from.txt\n"
            "rename to to.txt\n"
            "--- a/from.txt\n"
            "+++ b/to.txt\n"
            "diff --git a/src.txt b/dst.txt\n"
            "similarity index 100%\n"
            "copy from src.txt\n"
            "copy to dst.txt\n"
            "diff --git a/img.png b/img.png\n"
            "index 1..2 100644\n"
            "Binary files a/img.png and b/img.png differ\n"
            "diff --git a/p.bin b/p.bin\n"
            "GIT binary patch\n"
            "literal 1\n")
    got = [(f["path"], f.get("old_path"), f["status"], f.get("binary"), len(f["hunks"])) for f in parse_diff(diff)]
    assert got == [("new.txt", None, "A", None, 1), ("old.txt", None, "D", None, 1),
                   ("to.txt", "from.txt", "R", None, 0), ("dst.txt", "src.txt", "C", None, 0),
                   ("img.png", None, "M", True, 0), ("p.bin", None, "M", True, 0)]


def test_quoted_paths_come_back_as_text() -> None:
    diff = ('diff --git "a/caf\\303\\251 \\"q\\".txt" "b/caf\\303\\251 \\"q\\".txt"\n'
            '--- "a/caf\\303\\251 \\"q\\".txt"\n'
            '+++ "b/caf\\303\\251 \\"q\\".txt"\n'
            'diff --git a/plain name "b/tab\\there"\n'
            'rename from plain name\n'
            'rename to "tab\\there"\n'
            'diff --git a/same a/same b/same a/same\n')
    got = [(f["path"], f.get("old_path"), f["status"]) for f in parse_diff(diff)]
    assert got == [('café "q".txt', None, "M"), ("tab\there", "plain name", "R"), ("same a/same", None, "M")]


@pytest.mark.parametrize(("quoted", "text"), [
    ('"a\\tb\\nc\\\\d\\"e"', 'a\tb\nc\\d"e'),
    ('"\\a\\b\\v\\f\\r"', "\a\b\v\f\r"),
    ('"caf\\303\\251"', "café"),
    ('"\\377x"', "\ufffdx"),  # a byte that is no UTF-8: replaced, the rest kept
    ('"\\18"', "18"),  # not three octal digits: the escaped character itself
    ('"\\q"', "q"),
    ('"end\\"', "end\\"),  # a backslash at the very end stays
    ('"é"', "é"),
    ('"', '"'), ("", ""), ("plain", "plain"), ('"open', '"open'), ('close"', 'close"'),
])
def test_unquote_reads_git_s_c_escapes(quoted: str, text: str) -> None:
    assert unquote(quoted) == text


def test_a_plain_diff_with_dates_and_prefixes() -> None:
    diff = ("--- a/f.txt\t2026-01-01 00:00:00\n"
            "+++ b/f.txt\t2026-01-02 00:00:00\n"
            "@@ -1 +1 @@\n"
            "-x\n"
            "+y\n"
            "--- orig/g.txt \n"
            "+++ g.txt\n"
            "@@ -2,2 +2,2 @@\n"
            " k\n"
            "-- x\n"
            "++ y\n")
    got = [(f["path"], f.get("old_path"), f["status"], [(h["old_start"], h["old_lines"]) for h in f["hunks"]])
           for f in parse_diff(diff)]
    assert got == [("f.txt", None, "M", [(1, 1)]), ("g.txt", "orig/g.txt", "M", [(2, 2)])]
    (g,) = parse_diff("--- /dev/null\n+++ new\n@@ -0,0 +1 @@\n+n\n")
    assert (g["path"], g["status"]) == ("new", "A")


def test_a_combined_diff_of_a_merge() -> None:
    diff = ("diff --cc m.txt\n"
            "index 1,2..3\n"
            "--- a/m.txt\n"
            "+++ b/m.txt\n"
            "@@@ -1,2 -1 +1,3 @@@\n"
            "  a\n"
            "+ b\n"
            "diff --combined \"q\\tt\"\n"
            "@@@@ -5 -5 -5 +5,2 @@@@\n")
    got = [(f["path"], f.get("combined"), f["hunks"]) for f in parse_diff(diff)]
    assert got == [("m.txt", True, [{"header": "@@@ -1,2 -1 +1,3 @@@", "old_start": 1, "old_lines": 2,
                                     "new_start": 1, "new_lines": 3}]),
                   ("q\tt", True, [{"header": "@@@@ -5 -5 -5 +5,2 @@@@", "old_start": 5, "old_lines": 1,
                                    "new_start": 5, "new_lines": 2}])]


@pytest.mark.parametrize(("hunk", "body"), [
    ("@@ -1,2 +0,0 @@", "-a\n--- c\n+++ d\n"),  # two removed lines, the second `-- c`
    ("@@ -1,2 +1 @@", " a\n--- c\n+++ d\n"),  # a context line, then a removed `-- c`
    ("@@ -1 +1 @@", "+a\n--- c\n+++ d\n"),  # an added line, then a removed `-- c`
])
def test_a_removed_line_that_looks_like_a_header_is_the_hunk_s(hunk: str, body: str) -> None:
    diff = f"--- a/f\n+++ b/f\n{hunk}\n{body}"
    (f,) = parse_diff(diff)
    assert (f["path"], f["diff"], len(f["hunks"])) == ("f", diff, 1)


def test_a_combined_diff_names_its_file_from_its_first_line() -> None:
    (f,) = parse_diff("diff --cc my file.txt\nindex 1,2..3\n@@@ -1 -1 +1 @@@\n  a\n")
    assert (f["path"], f.get("old_path"), f.get("combined")) == ("my file.txt", None, True)


def test_the_a_and_b_prefixes_of_a_header_git_s_first_line_did_not_name() -> None:
    # halves that differ, no rename lines: the --- and +++ lines name the two sides
    (f,) = parse_diff("diff --git a/one b/two\n--- a/one\n+++ b/two\n@@ -1 +1 @@\n-x\n+y\n")
    assert (f["path"], f.get("old_path"), f["status"]) == ("two", "one", "M")
    assert unquote('""') == "" and unquote('"a"') == "a"


def test_a_diff_without_prefixes_of_a_file_under_a_folder_named_a_or_b() -> None:
    # `git -c diff.noprefix=true diff` of a/x and of "b/x y" (seen written so by git 2.39)
    diff = ("diff --git a/x a/x\nindex 1a9cc2b..bca70f3 100644\n--- a/x\n+++ a/x\n@@ -1 +1 @@\n-p\n+q\n"
            'diff --git "b/x\\ty" "b/x\\ty"\n--- "b/x\\ty"\n+++ "b/x\\ty"\n@@ -1 +1 @@\n-p\n+q\n'
            "diff --git my file my file\n--- my file\n+++ my file\n"
            "diff --git a/xy a/xy\n--- a/xy\n+++ a/xy\n"
            "diff --git a/x a/x\nold mode 100644\nnew mode 100755\n")  # no --- and +++ lines
    assert [(f["path"], f.get("old_path")) for f in parse_diff(diff)] == [
        ("a/x", None), ("b/x\ty", None), ("my file", None), ("a/xy", None), ("a/x", None)]
