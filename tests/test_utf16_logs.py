"""A log written as UTF-16 (Windows PowerShell 5's `>` writes so) gets one verdict wherever it
is met: refused, named, with how to convert it. Read as UTF-8 with its NUL bytes dropped, every
character beyond ASCII became other bytes; and each command said something else of it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forsy.cli import app
from forsy.sources.lines import utf16

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[1] / "sample_logs" / "claude" / "demo-session.jsonl"
ARROW = {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "rename a → b in café.py"}}


def _logs(tmp: Path, codec: str = "utf-16") -> Path:
    logs = tmp / "logs"
    logs.mkdir()
    (logs / "ok.jsonl").write_bytes(DEMO.read_bytes())
    text = DEMO.read_text(encoding="utf-8") + json.dumps(ARROW, ensure_ascii=False) + "\n"
    (logs / "wide.jsonl").write_bytes(text.encode(codec))
    return logs


@pytest.mark.parametrize("codec,name", [("utf-16", "UTF-16LE"), ("utf-16-le", "UTF-16LE"),
                                        ("utf-16-be", "UTF-16BE")])
def test_recognised_with_or_without_a_byte_order_mark(codec: str, name: str) -> None:
    assert utf16('{"type": "user"}\n'.encode(codec)) == name


def test_a_byte_order_mark_needs_only_the_first_characters_ascii() -> None:
    assert utf16('{"x": "日本語"}'.encode("utf-16")) == "UTF-16LE"
    assert utf16("日本語".encode("utf-16")) is None  # no log starts so


@pytest.mark.parametrize("head", [
    b"", b"{}\n", b'{"type":"user"}\n',
    b"\xff\xfe\x00\x01\x02\x03binary", bytes(range(256)),  # a mark followed by no text; binary
    b"\x00" * 64,  # a run of NULs (a file cut while written): not text of any kind
    b'{"a":"b\x00\x00"}\n',  # UTF-8 with NULs in it
])
def test_other_bytes_are_not_taken_for_it(head: bytes) -> None:
    assert utf16(head) is None


def test_retrace_file_and_folder_refuse_it_and_say_how_to_convert(tmp_path: Path) -> None:
    logs = _logs(tmp_path)
    r = runner.invoke(app, ["retrace", str(logs / "wide.jsonl"), "-o", str(tmp_path / "one")])
    assert r.exit_code == 3, r.output
    assert "wide.jsonl" in r.output and "UTF-16LE" in r.output and "iconv" in r.output
    assert not (tmp_path / "one").exists() or not any((tmp_path / "one").iterdir())
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(tmp_path / "all")])
    assert r.exit_code == 7, r.output  # the other file is traced; this one fails alone, named
    assert "wide.jsonl" in r.output and "UTF-16LE" in r.output
    assert "1 written" in r.output and "1 failed" in r.output
    written = [p for p in (tmp_path / "all").iterdir() if p.is_dir()]
    assert len(written) == 1
    assert "NUL" not in (written[0] / "manifest.json").read_text()


def test_ls_names_it_as_retrace_does(tmp_path: Path) -> None:
    logs = _logs(tmp_path, "utf-16-be")
    r = runner.invoke(app, ["ls", str(logs)])
    assert r.exit_code == 7, r.output
    assert "wide.jsonl" in r.output and "UTF-16BE" in r.output and "no work" not in r.output


def test_sweep_fails_it_at_once_instead_of_waiting_for_its_last_line(tmp_path: Path) -> None:
    logs = _logs(tmp_path)
    db = tmp_path / "store.db"
    r = runner.invoke(app, ["sweep", str(logs), "--store", f"sqlite:///{db}", "--settle", "0", "--json"])
    assert r.exit_code == 7, r.output
    report = json.loads(r.output.strip().splitlines()[-1])
    assert report["counts"]["waiting"] == 0
    assert [f["path"].endswith("wide.jsonl") and "UTF-16LE" in f["message"] for f in report["failures"]] == [True]
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM drafts").fetchone()[0] == 1  # ok.jsonl's


def test_utf8_nul_damage_is_still_mended(tmp_path: Path) -> None:
    """A NUL run inside a UTF-8 log (a crash mid-write) is not UTF-16: the line is read without
    its NULs, as before."""
    lines = DEMO.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"type"', b'"ty\x00\x00pe"', 1)
    p = tmp_path / "damaged.jsonl"
    p.write_bytes(b"".join(lines))
    r = runner.invoke(app, ["retrace", str(p), "-o", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    man = json.loads(next((tmp_path / "o").rglob("manifest.json")).read_text())
    assert any(w["code"] == "nul-bytes" for w in man["warnings"])
