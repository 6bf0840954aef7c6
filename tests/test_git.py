"""Git as evidence: a real repository built in a temp dir, read back through `git`.

Every git command here runs with `-C <tmp repo>` and an isolated HOME/config, never in the
project checkout.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from _gitrepo import Repo
from forsy.errors import InputError
from forsy.evidence import Event, Session
from forsy.payloads import CommitInfo
from forsy.sources import ReadContext
from forsy.sources.git import GIT_SHOW_ARGS, parse_diff, read_git, read_patch

PROJECT = Path(__file__).resolve().parents[1]
APP_V1 = "".join(f"line {i}\n" for i in range(1, 21))
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + bytes(range(256))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    r = Repo(tmp_path_factory.mktemp("git") / "demo")
    r.write("README.md", "# Demo\n")
    r.write("src/app.py", APP_V1)
    r.commit("Add app\n\nFirst version of the app.", "2024-01-01T10:00:00+00:00")
    r.write(
        "src/app.py", APP_V1.replace("line 2\n", "line two\n").replace("line 19\n", "line 19\nline 19b\n")
    )
    r.write("logo.png", PNG)
    r.commit("Edit app, add logo", "2024-01-01T10:05:00+00:00")
    r.git("mv", "src/app.py", "src/main.py")
    r.write("src/main.py", (r.path / "src/main.py").read_text() + "line 21\n")
    r.commit("Rename app to main", "2024-01-01T10:10:00+02:00")  # 08:10 UTC: before the others
    (r.path / "README.md").unlink()
    r.write("logo.png", PNG[::-1])
    r.commit("Drop README, new logo", "2024-01-01T10:15:00+00:00")
    r.write("café notes.txt", "-- not a header\n++ nor this\n")
    r.commit("Notes with an odd name", "2024-01-01T10:20:00+00:00")
    r.git("checkout", "-q", "-b", "feature")
    r.write("feature.txt", "feature\n")
    r.commit("Feature", "2024-01-01T10:25:00+00:00")
    r.git("checkout", "-q", "main")
    r.write("src/main.py", "line 0\n" + (r.path / "src/main.py").read_text())
    r.commit("Main moves on", "2024-01-01T10:26:00+00:00")
    r.git("merge", "-q", "--no-ff", "-m", "Merge feature", "feature", when="2024-01-01T10:30:00+00:00")
    return r


def ci(e: Event) -> CommitInfo:
    assert isinstance(e.info, CommitInfo)
    return e.info


def read(repo: Repo, since: str | None = None, until: str | None = None) -> Session:
    return read_git(repo.path, since=since, until=until, ctx=ReadContext(root=repo.path))


def by_msg(s: Session) -> dict[str, Event]:
    return {(e.text or "").split("\n")[0]: e for e in s.events}


def files(e: Event) -> dict[str, dict[str, Any]]:
    return {f["path"]: f for f in ci(e).files}


def test_commits_in_time_order_with_people_and_dates(repo: Repo) -> None:
    s = read(repo)
    assert s.source_kind == "git" and s.meta.agent == "git" and s.meta.git_branch == "main"
    msgs = [(e.text or "").split("\n")[0] for e in s.events]
    # HEAD's history, reversed `git log` order: parents always before their children
    assert msgs == [
        "Add app",
        "Edit app, add logo",
        "Rename app to main",
        "Drop README, new logo",
        "Notes with an odd name",
        "Feature",
        "Main moves on",
        "Merge feature",
    ]
    first = s.events[0]
    assert first.kind == "commit" and first.actor == "human:git"
    assert first.text == "Add app\n\nFirst version of the app."
    assert first.ts == "2024-01-01T10:00:00Z"
    assert ci(first).author_name == "Ada Dev" and ci(first).author_email == "ada@example.org"
    assert ci(first).committer_date == "2024-01-01T10:00:00+00:00"
    assert ci(first).sha == repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    rename = by_msg(s)["Rename app to main"]
    assert (
        rename.ts == "2024-01-01T08:10:00Z" and ci(rename).committer_date == "2024-01-01T10:10:00+02:00"
    )
    assert not s.warnings


def test_added_modified_binary_files_and_hunks(repo: Repo) -> None:
    s = read(repo)
    add = files(by_msg(s)["Add app"])
    assert {p: f["status"] for p, f in add.items()} == {"README.md": "A", "src/app.py": "A"}
    assert add["src/app.py"]["hunks"] == [
        {"header": "@@ -0,0 +1,20 @@", "old_start": 0, "old_lines": 0, "new_start": 1, "new_lines": 20}
    ]
    edit = files(by_msg(s)["Edit app, add logo"])
    app = edit["src/app.py"]
    assert app["status"] == "M"
    assert [(h["old_start"], h["old_lines"], h["new_start"], h["new_lines"]) for h in app["hunks"]] == [
        (1, 5, 1, 5),
        (17, 4, 17, 5),
    ]
    assert app["diff"].startswith("diff --git a/src/app.py b/src/app.py\n")
    assert "-line 2\n+line two\n" in app["diff"] and "+line 19b\n" in app["diff"]
    logo = edit["logo.png"]
    assert logo["status"] == "A" and logo["binary"] is True and logo["hunks"] == []
    assert "Binary files /dev/null and b/logo.png differ" in logo["diff"]


def test_rename_delete_and_quoted_names(repo: Repo) -> None:
    s = read(repo)
    ren = files(by_msg(s)["Rename app to main"])
    assert list(ren) == ["src/main.py"]
    assert ren["src/main.py"]["status"] == "R" and ren["src/main.py"]["old_path"] == "src/app.py"
    assert [h["new_start"] for h in ren["src/main.py"]["hunks"]] == [19]
    drop = files(by_msg(s)["Drop README, new logo"])
    assert drop["README.md"]["status"] == "D" and drop["logo.png"] == {**drop["logo.png"], "binary": True}
    assert drop["logo.png"]["status"] == "M"
    notes = files(by_msg(s)["Notes with an odd name"])
    # git quotes the non-ASCII name; the lines "-- ..." / "++ ..." are content, not headers
    (only,) = notes.values()
    assert only["path"] == "café notes.txt" and only["status"] == "A"
    assert only["hunks"][0]["new_lines"] == 2


def test_merge_commit_is_noted(repo: Repo) -> None:
    s = read(repo)
    merge = by_msg(s)["Merge feature"]
    assert ci(merge).merge is True and len(ci(merge).parents) == 2
    assert s.quality.extra["merge_commits"] == 1
    assert ci(merge).files == []  # a clean merge: git show has no combined diff to show


def test_window_filters_by_author_or_committer_date(repo: Repo) -> None:
    s = read(repo, since="2024-01-01T10:04:00Z", until="2024-01-01T10:16:00Z")
    assert [(e.text or "").split("\n")[0] for e in s.events] == [
        "Edit app, add logo",
        "Drop README, new logo",
    ]
    s = read(repo, since="2024-01-01T08:00:00Z", until="2024-01-01T08:30:00Z")
    assert [(e.text or "").split("\n")[0] for e in s.events] == ["Rename app to main"]


def test_empty_window_gives_empty_session_and_warning(repo: Repo) -> None:
    s = read(repo, since="2030-01-01T00:00:00Z", until=None)
    assert s.events == [] and [w.code for w in s.warnings] == ["git_no_commits"]


def test_evidence_hash_is_sha256_of_documented_git_show(repo: Repo) -> None:
    s = read(repo)
    assert len(s.evidence) == len(s.events)
    for e in s.events:
        ev = s.evidence[e.refs[0].ev]
        sha = ci(e).sha
        assert ev.source == f"git:demo@{sha}" and ev.line is None and ev.byte_offset == 0
        out = subprocess.run(
            ["git", "-C", str(repo.path), *GIT_SHOW_ARGS, sha], env=repo.env, capture_output=True, check=True
        ).stdout
        assert ev.byte_length == len(out)
        assert ev.sha256 == hashlib.sha256(out).hexdigest()
        (f,) = [f for f in s.files if f.path == ev.source]
        assert (f.kind, f.bytes, f.sha256) == ("git", len(out), ev.sha256)
    assert len(s.files) == len(s.events)


def test_not_a_repo_is_input_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InputError) as ei:
        read_git(plain, since=None, until=None, ctx=ReadContext())
    assert ei.value.path == str(plain) and "not a git work tree" in str(ei.value)
    with pytest.raises(InputError):
        read_git(tmp_path / "missing", since=None, until=None, ctx=ReadContext())


def test_repo_without_commits(tmp_path: Path) -> None:
    r = Repo(tmp_path / "empty")
    s = read(r)
    assert s.events == [] and [w.code for w in s.warnings] == ["git_no_commits"]


def test_bad_window_value_is_input_error(repo: Repo) -> None:
    with pytest.raises(InputError, match="since"):
        read(repo, since="last tuesday")


# --- patches -------------------------------------------------------------------------------


def test_format_patch_mbox(repo: Repo, tmp_path: Path) -> None:
    out = tmp_path / "patches"
    repo.git("format-patch", "-q", "-o", str(out), "HEAD~6..HEAD~4")  # two mails: the edit and the rename
    (p1, p2) = sorted(out.iterdir())
    both = tmp_path / "both.patch"
    both.write_bytes(p1.read_bytes() + p2.read_bytes())
    s = read_patch(both, ReadContext(root=tmp_path))
    assert [(e.text or "").split("\n")[0] for e in s.events] == ["Edit app, add logo", "Rename app to main"]
    edit, ren = s.events
    assert ci(edit).author_name == "Ada Dev" and edit.ts == "2024-01-01T10:05:00Z"
    assert ci(edit).sha == repo.git("rev-parse", "HEAD~5").strip()
    assert {f["path"]: f["status"] for f in ci(edit).files} == {"logo.png": "A", "src/app.py": "M"}
    assert ci(ren).files[0]["status"] == "R" and ren.ts == "2024-01-01T08:10:00Z"
    assert not ci(ren).files[0]["diff"].rstrip().endswith("-- ")  # the mail signature is not diff
    data = both.read_bytes()
    for e in s.events:
        ev = s.evidence[e.refs[0].ev]
        assert ev.source == "both.patch"
        raw = data[ev.byte_offset : ev.byte_offset + ev.byte_length]
        assert raw.startswith(b"From ") and hashlib.sha256(raw).hexdigest() == ev.sha256
    assert s.evidence[s.events[1].refs[0].ev].line == p1.read_bytes().count(b"\n") + 1


def test_plain_unified_diff(tmp_path: Path) -> None:
    d = tmp_path / "change.diff"
    d.write_text(
        "--- old/a.txt\t2024-01-01 10:00:00\n+++ new/a.txt\t2024-01-01 10:01:00\n"
        "@@ -1,2 +1,2 @@\n-- dash\n+++ plus\n same\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"
    )
    s = read_patch(d, ReadContext())
    (e,) = s.events
    assert e.kind == "commit" and e.ts is None and e.text is None and ci(e).sha is None
    fs = ci(e).files
    assert [(f["path"], f["status"]) for f in fs] == [("new/a.txt", "M"), ("new.txt", "A")]
    assert fs[0]["old_path"] == "old/a.txt"
    assert fs[0]["hunks"][0]["header"] == "@@ -1,2 +1,2 @@" and fs[1]["hunks"][0]["new_lines"] == 1


def test_parse_diff_quoted_and_mode_only() -> None:
    diff = (
        'diff --git "a/dir/caf\\303\\251.txt" "b/dir/caf\\303\\251.txt"\nold mode 100644\nnew mode 100755\n'
    )
    (f,) = parse_diff(diff)
    assert f["path"] == "dir/café.txt" and f["status"] == "M" and f["hunks"] == []


def test_patch_without_diff_warns(tmp_path: Path) -> None:
    p = tmp_path / "x.patch"
    p.write_text("just words\n")
    s = read_patch(p, ReadContext())
    assert [w.code for w in s.warnings] == ["patch_without_diff"]


def test_merge_with_resolved_conflict_has_combined_diff(tmp_path: Path) -> None:
    r = Repo(tmp_path / "cc")
    r.write("f", "a\nb\nc\n")
    r.commit("base", "2024-02-01T10:00:00+00:00")
    r.git("checkout", "-q", "-b", "x")
    r.write("f", "a\nX\nc\n")
    r.commit("x", "2024-02-01T10:01:00+00:00")
    r.git("checkout", "-q", "main")
    r.write("f", "a\nM\nc\n")
    r.commit("m", "2024-02-01T10:02:00+00:00")
    subprocess.run(
        ["git", "-C", str(r.path), "merge", "-q", "x"], env=r.env, capture_output=True, check=False
    )
    r.write("f", "a\nXM\nc\n")
    r.commit("Merge x", "2024-02-01T10:03:00+00:00")
    merge = read(r).events[-1]
    assert ci(merge).merge is True
    (f,) = ci(merge).files
    assert f["path"] == "f" and f["combined"] is True and f["diff"].startswith("diff --cc f\n")
    assert f["hunks"] == [
        {"header": "@@@ -1,3 -1,3 +1,3 @@@", "old_start": 1, "old_lines": 3, "new_start": 1, "new_lines": 3}
    ]


def test_partial_clone_never_fetches(tmp_path: Path) -> None:
    """The origin is still there: a lazy fetch would succeed, and must not be tried."""
    up = Repo(tmp_path / "up")
    up.write("data.txt", "v1\n")
    up.commit("one", "2024-01-01T10:00:00+00:00")
    up.write("data.txt", "v2\n")
    up.commit("two", "2024-01-01T10:05:00+00:00")
    clone = Repo.partial_clone(up, tmp_path / "clone")
    old_blob = up.git("rev-parse", "HEAD~1:data.txt").strip()
    s = read(clone)
    assert [w.code for w in s.warnings] == ["git_missing_object", "git_missing_object"]
    assert all(old_blob in m for e in s.events for m in ci(e).missing)
    assert [e.refs[0].ev for e in s.events] and all(ev.source.endswith(":raw") for ev in s.evidence.values())
    r = subprocess.run(["git", "-C", str(clone.path), "cat-file", "-e", old_blob], env={**clone.env,
                       "GIT_ALLOW_PROTOCOL": "none"}, capture_output=True, check=False)
    assert r.returncode != 0  # still missing: nothing was fetched


def test_bare_repository_and_every_branch(repo: Repo, tmp_path: Path) -> None:
    bare = tmp_path / "demo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], env=repo.env, check=True)
    subprocess.run(["git", "-C", str(bare), "branch", "-q", "side", "main^2"], env=repo.env, check=True)
    s = read_git(bare, since=None, until=None, ctx=ReadContext(root=bare))
    assert len(s.events) == len(read(repo).events)
    heads = {ci(e).sha: ci(e) for e in s.events}
    main_head = repo.git("rev-parse", "main").strip()
    assert heads[main_head].branches == ["main"]  # the merge: on main only
    assert heads[repo.git("rev-parse", "feature").strip()].branches == ["feature", "main", "side"]
