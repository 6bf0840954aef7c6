"""Shell history source: exact commands and times on the samples, atuin, hostile input,
and every real history in ../shared/real_logs/shell against an independent oracle."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sqlite3
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from forsy.errors import ForsyError
from forsy.evidence import Event, Session
from forsy.payloads import ShellInfo
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs" / "shell"
REAL = ROOT.parent / "shared" / "real_logs" / "shell"
ORACLE = ROOT.parent / "shared" / "tools" / "history_check.py"
SRC = ShellHistorySource()


def si(e: Event) -> ShellInfo:
    assert isinstance(e.info, ShellInfo)
    return e.info


def ri(e: Event) -> str:
    rec = si(e).record_ref
    assert rec is not None
    return rec.ev


def read(path: Path) -> Session:
    sessions = SRC.read(path, ReadContext(root=path.parent))
    assert len(sessions) == 1
    return sessions[0]


def cmds(s: Session) -> list[str | None]:
    return [e.text for e in s.events]


def times(s: Session) -> list[str | None]:
    return [e.ts for e in s.events]


def check_evidence(s: Session, path: Path) -> None:
    """Every event cites the bytes of its command, really at that place in the file, equal to
    the event's text unless a decoding is stated; and its whole record when there is more."""
    data = path.read_bytes()
    for e in s.events:
        assert e.kind == "shell_command"
        (ref,) = e.refs
        ev = s.evidence[ref.ev]
        raw = data[ev.byte_offset : ev.byte_offset + ev.byte_length]
        assert hashlib.sha256(raw).hexdigest() == ev.sha256
        assert ev.line is not None and data[: ev.byte_offset].count(b"\n") + 1 == ev.line
        if si(e).decoded is None:
            assert raw.decode("utf-8") == e.text
        if (rr := si(e).record_ref) is not None:
            rec = s.evidence[rr.ev]
            assert rec.byte_offset <= ev.byte_offset
            assert ev.byte_offset + ev.byte_length <= rec.byte_offset + rec.byte_length
            rec_raw = data[rec.byte_offset : rec.byte_offset + rec.byte_length]
            assert hashlib.sha256(rec_raw).hexdigest() == rec.sha256


# --- samples -------------------------------------------------------------------------------


def test_bash_plain_sample() -> None:
    p = SAMPLES / "plain.bash_history"
    s = read(p)
    assert cmds(s) == [
        "ls -la",
        "cd /srv/app",
        "git status",
        "make test 2>&1 | tee test.log",
        'echo "héllo wörld"',
        "vim README.md",
    ]
    assert times(s) == [None] * 6
    assert all(e.actor == "human:shell" and si(e) == ShellInfo(shell="bash") for e in s.events)
    assert s.source_kind == "shell" and s.meta.agent == "shell"
    assert [s.evidence[e.refs[0].ev].line for e in s.events] == [1, 2, 3, 4, 5, 8]
    assert not s.warnings
    check_evidence(s, p)


def test_bash_epoch_sample() -> None:
    p = SAMPLES / "epoch.bash_history"
    s = read(p)
    assert cmds(s) == [
        "cd ~/project",
        "git pull --rebase",
        "pytest -x tests/",
        'git commit -am "fix: handle empty input"',
    ]
    assert times(s) == [
        "2023-11-14T22:13:20Z",
        "2023-11-14T22:13:25Z",
        "2023-11-14T22:14:02Z",
        "2023-11-14T22:15:00Z",
    ]
    first = s.evidence[s.events[0].refs[0].ev]
    # the command's own bytes; the record (the `#epoch` line and the command) is cited beside
    assert (first.line, first.byte_offset, first.byte_length) == (2, 12, len(b"cd ~/project"))
    assert first.record_type == "bash_epoch"
    rec = s.evidence[ri(s.events[0])]
    assert (rec.line, rec.byte_offset, rec.byte_length) == (1, 0, len(b"#1700000000\ncd ~/project"))
    assert rec.record_type == "bash_epoch_record"
    check_evidence(s, p)


def test_zsh_extended_sample_decodes_metafied_utf8_and_continuations() -> None:
    p = SAMPLES / "extended.zsh_history"
    assert b"\x83" in p.read_bytes()  # the sample really is metafied
    s = read(p)
    assert cmds(s) == [
        "cd ~/src/forsy",
        "echo café > menu.txt",
        "mkdir 日本 && cd 日本",
        'for f in *.txt; do\n  wc -l "$f"\ndone',
        "ls \\\n  -la",
        "git status",
    ]
    assert times(s)[0] == "2023-11-14T22:16:40Z"
    assert [si(e).duration_s for e in s.events] == [0.0, 2.0, 0.0, 12.0, 1.0, 0.0]
    loop = s.evidence[s.events[3].refs[0].ev]
    assert loop.line == 4 and loop.record_type == "zsh_extended"
    assert p.read_bytes()[loop.byte_offset : loop.byte_offset + loop.byte_length].count(b"\n") == 2
    assert si(s.events[5]).shell == "zsh"
    assert [(si(e).decoded is not None) for e in s.events] == [False, False, True, True, True, False]
    first = s.evidence[s.events[0].refs[0].ev]
    assert p.read_bytes()[first.byte_offset : first.byte_offset + first.byte_length] == b"cd ~/src/forsy"
    check_evidence(s, p)


def test_fish_sample_escapes_and_paths() -> None:
    p = SAMPLES / "sample.fish_history"
    s = read(p)
    assert cmds(s) == [
        "cd ~/src/forsy",
        "for x in a b\n    echo $x\nend",
        'echo "a\\b" > notes.txt',
        "printf '%s\\n' one two",  # `\\n` in the file: a backslash, then n
    ]
    assert times(s) == [
        "2023-11-14T22:18:20Z",
        "2023-11-14T22:18:30Z",
        "2023-11-14T22:18:40Z",
        "2023-11-14T22:18:50Z",
    ]
    assert si(s.events[2]).paths == ["notes.txt"]
    assert s.evidence[s.events[2].refs[0].ev].line == 5
    assert s.evidence[ri(s.events[2])].byte_length == len(
        b'- cmd: echo "a\\\\b" > notes.txt\n   when: 1700000320\n   paths:\n    - notes.txt'
    )
    assert [(si(e).decoded is not None) for e in s.events] == [False, True, True, True]
    check_evidence(s, p)


def test_eternal_sample_multiline_and_repeated_entries() -> None:
    p = SAMPLES / "sample.bash_eternal_history"
    s = read(p)
    assert cmds(s) == ["cd ~/src/forsy", 'git commit -m "two\nlines"', 'git commit -m "two\nlines"', "make"]
    assert [si(e).session for e in s.events] == ["31337", "31337", "31337", "4242"]
    assert [si(e).histnum for e in s.events] == [101, 102, 102, 7]
    assert si(s.events[1]).duplicate_of_line is None
    assert si(s.events[2]).duplicate_of_line == 2
    assert s.quality.duplicate_records == 1
    assert times(s)[3] == "2023-11-14T22:19:59Z"  # file order is kept, not time order
    check_evidence(s, p)


# --- sniffing ------------------------------------------------------------------------------


def test_sniff_accepts_histories_and_refuses_others(tmp_path: Path) -> None:
    for p in SAMPLES.glob("*history"):
        assert SRC.sniff(p, p.read_bytes()[:65536]), p
    text = b"ls\ncd /tmp\n"
    assert SRC.sniff(tmp_path / ".bash_history", text)
    assert not SRC.sniff(tmp_path / "notes.txt", text)  # plain text with no history name
    jsonl = b'{"type":"user","message":{"content":"hi"}}\n'
    assert not SRC.sniff(tmp_path / "session.jsonl", jsonl)
    assert not SRC.sniff(tmp_path / "x_history", jsonl)  # JSON is never a shell history
    assert not SRC.sniff(tmp_path / "blob.bin", b"\x00\x01\x02" * 10)
    assert not SRC.sniff(tmp_path / "some.db", b"SQLite format 3\x00" + b"\x00" * 100)
    # strong signatures need no name
    assert SRC.sniff(tmp_path / "h.txt", b": 1700000000:0;ls\n: 1700000001:0;pwd\n")
    assert SRC.sniff(tmp_path / "h.txt", b"#1700000000\nls\n#1700000001\npwd\n")
    assert SRC.sniff(tmp_path / "h.txt", b"- cmd: ls\n   when: 1700000000\n")
    assert not SRC.sniff(tmp_path / "h.txt", b"#1700000000\nls\n")  # one pair is not enough
    assert not SRC.sniff(tmp_path / "README.md", b"# Title\n\nSome text\n")


def test_discover(tmp_path: Path) -> None:
    (tmp_path / ".zsh_history").write_bytes(b": 1700000000:0;ls\n")
    fish = tmp_path / ".local/share/fish/fish_history"
    fish.parent.mkdir(parents=True)
    fish.write_bytes(b"- cmd: ls\n   when: 1700000000\n")
    (tmp_path / "other.txt").write_text("x")
    assert sorted(SRC.discover(tmp_path)) == sorted([tmp_path / ".zsh_history", fish])
    assert SRC.discover(tmp_path / "other.txt") == []


# --- hostile input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,data",
    [
        (".bash_history", b""),
        (".bash_history", b"\n\n   \n"),
        (".bash_history", bytes(range(256)) * 4),
        (".zsh_history", b": 1700000000:0;echo \xff\xfe bad\n: 1700000001:0;ok\n"),
        (".zsh_history", b": 1700000000:0;ends with continuation\\"),
        (".zsh_history", b": 99999999999999999999:0;huge epoch\n"),
        ("fish_history", b"- cmd: ls\n   when: x\ngarbage\n   paths:\n    - \xc3\n"),
        (".bash_history", b"#1700000000\n#1700000001\nls\n#1700000002\n"),
        (".bash_eternal_history", b"garbage first\n1 u  2  1700000000 ls\n"),
        ("history.db", b"SQLite format 3\x00" + b"\x00" * 200),
    ],
)
def test_hostile_input_never_crashes(tmp_path: Path, name: str, data: bytes) -> None:
    p = tmp_path / name
    p.write_bytes(data)
    try:
        sessions = SRC.read(p, ReadContext(root=tmp_path))
    except ForsyError:
        assert name == "history.db"  # only the fake database is refused, with forsy's own error
        return
    for s in sessions:
        for e in s.events:
            assert isinstance(e.text, str) and e.text.strip()


def test_invalid_utf8_is_replaced_and_warned(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:0;echo \xff bad\n: 1700000001:0;ok\n")
    s = read(p)
    assert cmds(s) == ["echo \ufffd bad", "ok"]
    (w,) = s.warnings
    assert (w.code, w.file, w.line) == ("invalid_utf8", ".zsh_history", 1)


def test_binary_file_warnings_are_capped(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"\xff\xfe garbage\n" * 500)
    s = read(p)
    assert len(s.events) == 500 and all(si(e).decoded for e in s.events)
    assert [w.line for w in s.warnings[:20]] == list(range(1, 21))
    assert len(s.warnings) == 21 and s.warnings[-1].message == "480 more lines with this problem"


def test_orphan_timestamps_and_unparsable_lines_warn_with_place(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"#1700000000\n#1700000001\nls\n#1700000002\n")
    s = read(p)
    assert cmds(s) == ["ls"] and times(s) == ["2023-11-14T22:13:21Z"]
    assert [(w.code, w.line) for w in s.warnings] == [("orphan_timestamp", 1), ("orphan_timestamp", 4)]
    assert s.quality.unparsable_records == 2
    fish = tmp_path / "fish_history"
    fish.write_bytes(b"garbage\n- cmd: ls\n   when: 1700000000\n")
    s = read(fish)
    assert cmds(s) == ["ls"] and [(w.code, w.line) for w in s.warnings] == [("unparsable_line", 1)]


def test_empty_zsh_commands_are_counted_not_events(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:0;\n: 1700000001:0;ls\n")
    s = read(p)
    assert cmds(s) == ["ls"] and s.quality.extra["empty_commands"] == 1


def test_empty_file_gives_empty_session_and_warning(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"")
    s = read(p)
    assert s.events == [] and [w.code for w in s.warnings] == ["empty_history"]


# --- atuin ---------------------------------------------------------------------------------
# The schema atuin's client creates (migrations 20210422 create_history, 20230319 deleted_at,
# 20260224 author/intent, 20260709 shell, 20260818 author_kind: 1 a person, 2 an agent).
ATUIN_SCHEMA = """
create table history (
    id text primary key,
    timestamp integer not null,
    duration integer not null,
    exit integer not null,
    command text not null,
    cwd text not null,
    session text not null,
    hostname text not null,
    deleted_at integer,
    author text,
    intent text,
    shell text,
    author_kind integer,
    unique(timestamp, cwd, command)
);
"""


def make_atuin(path: Path, rows: Sequence[tuple[object, ...]], schema: str = ATUIN_SCHEMA) -> None:
    con = sqlite3.connect(path)
    con.executescript(schema)
    cols = [r[1] for r in con.execute("PRAGMA table_info(history)")]
    con.executemany(f"insert into history values ({','.join('?' * len(cols))})", rows)
    con.commit()
    con.close()


def test_atuin_rows_with_authors(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    t0 = 1_700_000_000_000_000_000
    here = ("/src/x",)
    rows = [
        ("a1", t0, 1_500_000_000, 0, "cargo build", *here, "s1", "box:me", None, "me", None, "zsh", 1),
        ("a2", t0 + 2_250_000_000, 40_000_000, 1, "cargo test", *here, "s2", "box:me", None,
         "claude-code", "run tests", "bash", 2),
        ("a3", t0 + 5_000_000_000, -1, -1, "ls", *here, "s1", "box:me", None, "codex", None, None, None),
        ("a4", t0 + 6_000_000_000, 1, 0, "rm secret", *here, "s1", "box:me", t0, "me", None, None, 1),
    ]  # fmt: skip
    make_atuin(db, rows)
    assert SRC.sniff(db, db.read_bytes()[:65536])
    s = read(db)
    assert cmds(s) == ["cargo build", "cargo test", "ls"]  # the deleted row stays deleted
    assert s.quality.extra["deleted_rows"] == 1
    assert times(s) == ["2023-11-14T22:13:20Z", "2023-11-14T22:13:22.250000Z", "2023-11-14T22:13:25Z"]
    human, agent, by_name = s.events
    assert human.actor == "human:shell" and si(human).exit_code == 0 and si(human).duration_s == 1.5
    assert si(human).cwd == "/src/x" and si(human).session == "s1" and si(human).shell == "zsh"
    assert agent.actor == "agent:shell" and si(agent).author == "claude-code"
    assert si(agent).exit_code == 1 and si(agent).intent == "run tests"
    # no author_kind: atuin goes by the name, and "codex" is one of its known agents
    assert (
        by_name.actor == "agent:shell"
        and si(by_name).exit_code is None
        and si(by_name).duration_s is None
    )
    assert agent.refs[0].pointer == "/command"
    ev = s.evidence[agent.refs[0].ev]
    assert ev.source == "atuin:history.db#a2" and ev.line is None and ev.record_type == "atuin_history"
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    row = dict(con.execute("select * from history where id = 'a2'").fetchone())
    con.close()
    from forsy.ids import canonical

    assert hashlib.sha256(canonical(row)).hexdigest() == ev.sha256


def test_atuin_old_schema_without_author(tmp_path: Path) -> None:
    old = ATUIN_SCHEMA.replace(
        "    author text,\n    intent text,\n    shell text,\n    author_kind integer,\n", ""
    )
    db = tmp_path / "history.db"
    make_atuin(db, [("x", 1_700_000_000_000_000_000, 0, 0, "make", "/", "s", "h:u", None)], schema=old)
    s = read(db)
    assert cmds(s) == ["make"] and s.events[0].actor == "human:shell"


def test_sqlite_without_history_table_is_input_error(tmp_path: Path) -> None:
    from forsy.errors import InputError

    db = tmp_path / "history.db"
    con = sqlite3.connect(db)
    con.execute("create table other (x)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="atuin history table"):
        SRC.read(db, ReadContext())


# --- real histories against the independent oracle -----------------------------------------

REAL_FILES = sorted(p for p in REAL.rglob("*") if p.is_file()) if REAL.is_dir() else []
ETERNAL_LINE = re.compile(r"^\d+ \S+ +\d+ +\d{9,11} (.*)$", re.DOTALL)


def oracle() -> ModuleType:
    spec = importlib.util.spec_from_file_location("history_check", ORACLE)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def oracle_commands(hc: ModuleType, path: Path) -> list[str]:
    """The oracle's commands, read the way the shell reads them where the oracle is simpler.

    Two documented differences: the oracle reads an eternal history as plain bash (one
    command per line, prefix included), so prefixes are stripped and prefix-less lines are
    joined to the command before, as bash printed them; and the oracle keeps the backslash
    zsh writes before each newline of a command, which zsh itself drops when reading.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # the oracle never closes its file
        out: list[str] = hc.commands(str(path))
    if path.name == ".bash_eternal_history":
        joined: list[str] = []
        for c in out:
            m = ETERNAL_LINE.match(c)
            if m:
                joined.append(m.group(1))
            else:
                joined[-1] += "\n" + c
        return joined
    if path.name.endswith("zsh_history"):
        out = [c.replace("\\\n", "\n") for c in out]
        return [c[:-1] if c.endswith("\\") else c for c in out]
    return out


@pytest.mark.real_logs
@pytest.mark.skipif(not REAL_FILES, reason="../shared/real_logs/shell is absent")
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(REAL)))
def test_real_history_every_command_once(path: Path) -> None:
    hc = oracle()
    assert SRC.sniff(path, path.read_bytes()[:65536])
    s = read(path)
    want = Counter(hc.norm(c) for c in oracle_commands(hc, path))
    got = Counter(hc.norm(e.text) for e in s.events)
    assert got == want
    assert len(s.events) == sum(want.values())
    if "\ufffd" not in "".join(oracle_commands(hc, path)):
        assert not any("\ufffd" in (e.text or "") for e in s.events)
    check_evidence(s, path)


@pytest.mark.real_logs
@pytest.mark.skipif(not REAL_FILES, reason="../shared/real_logs/shell is absent")
def test_real_zsh_metafied_chinese_is_decoded() -> None:
    s = read(REAL / "AsterNighT__dotfiles" / ".zsh_history")
    assert cmds(s).count("cd 下载") == 2
    assert all(e.ts for e in s.events)


@pytest.mark.real_logs
@pytest.mark.skipif(not REAL_FILES, reason="../shared/real_logs/shell is absent")
def test_real_timestamps_where_the_format_has_them() -> None:
    expect = {
        "0EFB6__SH_CONFIG/.bash_history": False,
        "kevyin__home-settings/.bash_history": True,
        "kevyin__home-settings/.bash_eternal_history": True,
        "9sako6__dotfiles/.zsh_history": True,
        "AsterNighT__dotfiles/.zsh_history": True,
        "darthdeus__fish/fish_history": True,
    }
    for rel, timed in expect.items():
        s = read(REAL / rel)
        assert all((e.ts is not None) == timed for e in s.events), rel
    eternal = read(REAL / "kevyin__home-settings/.bash_eternal_history")
    (multi,) = [
        e for e in eternal.events if e.text == 'git commit -m "tidy scripts for convert and subtract\n"'
    ]
    assert si(multi).session == "11353" and multi.ts == "2013-01-02T05:33:42Z"


def test_verify_reads_atuin_rows_back_through_the_shell_source(tmp_path: Path) -> None:
    """verify has no atuin code: the shell source re-reads `atuin:<db>#<id>` evidence; a row
    changed after the trace was made is reported, and a `../` db name never leaves the roots."""
    from forsy.run import RetraceOptions, retrace
    from forsy.verification import verify_folder

    logs = tmp_path / "logs"
    logs.mkdir()
    db = logs / "history.db"
    t0 = 1_700_000_000_000_000_000
    make_atuin(db, [("a1", t0, 5, 0, "make test", "/w", "s1", "h:u", None, "me", None, "zsh", 0),
                    ("a2", t0 + 60_000_000_000, 5, 1, "make lint", "/w", "s1", "h:u", None, "me", None, "zsh", 0)])
    out = tmp_path / "t"
    retrace([db], RetraceOptions(out=out, redact=False))
    rep = verify_folder(out, [logs])
    assert rep.ok and rep.checked >= 2, rep.problems
    con = sqlite3.connect(db)
    con.execute("update history set command = 'make deploy' where id = 'a2'")
    con.commit()
    con.close()
    rep = verify_folder(out, [logs])
    assert not rep.ok


# ---------------------------------------------------------------- zsh's other history names
FIX = Path(__file__).parent / "fixtures" / "shell"


def test_zsh_history_names_and_histories_known_by_content() -> None:
    """`.zhistory` (Prezto, zim) and `.histfile` are zsh's HISTFILE; a history under a name of
    the user's own is known by its content when a folder is searched."""
    from forsy.sources import detect

    z = FIX / "prezto" / ".zhistory"
    assert isinstance(detect(z), ShellHistorySource)
    assert cmds(read(z)) == ["cd ~/src/app", "git pull --rebase", 'for f in *.log; do\ngzip "$f"\ndone', "make test"]
    assert ShellHistorySource().discover(FIX / "prezto") == [z]
    custom = FIX / "custom"
    assert ShellHistorySource().discover(custom) == [custom / ".histfile", custom / ".history_zsh_work"]
    assert cmds(read(custom / ".histfile")) == ["ls -la", "git status", "vim README"]
    assert cmds(read(custom / ".history_zsh_work")) == ["ls", "pwd", "exit"]


def test_a_shell_history_and_aiders_input_history_are_told_apart() -> None:
    """Both are line-based histories of typed text; each reader takes only its own."""
    from forsy.sources import detect
    from forsy.sources.aider import AiderSource

    aider_input = Path(__file__).parent / "fixtures" / "aider" / "project" / ".aider.input.history"
    z = FIX / "prezto" / ".zhistory"
    assert isinstance(detect(aider_input), AiderSource) and isinstance(detect(z), ShellHistorySource)
    assert not ShellHistorySource().sniff(aider_input, aider_input.read_bytes()[:65536])
    assert aider_input not in ShellHistorySource().discover(aider_input.parent)
    assert not AiderSource().sniff(z, z.read_bytes())
