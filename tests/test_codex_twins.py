"""A Codex rollout kept twice, `rollout-….jsonl` beside `rollout-….jsonl.zst`, read once.

The writer (codex-rs/rollout/src/compression.rs): a cold rollout is compressed into `.jsonl.zst`
before its `.jsonl` is removed, and a compressed one being resumed is written back to `.jsonl`
before its `.zst` is removed (`materialize_rollout_for_append`), so both may be on disk, the plain
one grown since. Codex reads only the plain file then (`RolloutFile::from_path` passes over a
`.jsonl.zst` whose plain sibling exists: `should_skip_compressed_sibling`). So does forsy, naming
the compressed twin as a copy set aside in `ls`, `retrace DIR` and `sweep`, with what it holds.
Built by hand here (compressed with `zstandard`), expectations from the writer's rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zstandard
from typer.testing import CliRunner

from forsy import sources
from forsy.cli import app
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from forsy.sources.codex._fork import candidate_paths
from forsy.sources.walk import discover_tree
from forsy.store import Store, TraceQuery
from forsy.sweep import SweepOptions, SweepReport, sweep

T = "2026-05-12T09:00:00.000Z"
PID = "019e2a10-0000-7000-8000-00000000aaaa"
CID = "019e2a10-5555-7000-8000-00000000bbbb"
DAY = ("sessions", "2026", "05", "12")
SAME = "a compressed copy of the plain rollout beside it (the same lines)"
RULE = "Codex reads the plain file when both are there, and so does forsy"


def line(typ: str, payload: dict[str, Any]) -> bytes:
    return json.dumps({"timestamp": T, "type": typ, "payload": payload}, separators=(",", ":")).encode() + b"\n"


def rollout(tid: str, prompts: list[str], **meta: Any) -> bytes:
    out = line("session_meta", {"id": tid, "timestamp": T, "cwd": "/w/tool", "cli_version": "0.130.0", **meta})
    for p in prompts:
        out += line("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": p}]})
        out += line("event_msg", {"type": "user_message", "message": p})
        out += line("response_item", {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": f"done: {p}"}]})
    return out


def packed(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def twins(root: Path, plain: bytes, zst: bytes, tid: str = PID) -> tuple[Path, Path]:
    """A dated day folder holding `rollout-….jsonl`, its `.zst` twin and Codex's timers sidecar."""
    day = root.joinpath(*DAY)
    day.mkdir(parents=True, exist_ok=True)
    p = day / f"rollout-2026-05-12T09-00-00-{tid}.jsonl"
    p.write_bytes(plain)
    z = p.with_name(p.name + ".zst")
    z.write_bytes(zst)
    p.with_name(p.name + ".timers.json").write_text("{}")
    return p, z


def named(root: Path) -> tuple[list[str], dict[str, str]]:
    tree = discover_tree(root, sources.available())
    return sorted(p.name for _, p in tree.found), {p.name: why for p, why in tree.not_searched}


# ------------------------------------------------------------------ which one is read


def test_the_plain_file_is_the_session_and_its_same_bytes_twin_is_named(tmp_path: Path) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path, data, packed(data))
    found, said = named(tmp_path)
    assert found == [p.name]
    assert said == {z.name: f"not read: {SAME}: {RULE}"}


def test_a_twin_the_plain_file_grew_past_is_named_as_its_first_part(tmp_path: Path) -> None:
    """Compressed, then resumed: the plain file holds the compressed lines and the later turns."""
    early = rollout(PID, ["add a test"])
    p, z = twins(tmp_path, early + rollout(PID, ["and a second one"]).split(b"\n", 1)[1], packed(early))
    found, said = named(tmp_path)
    assert found == [p.name]
    assert said == {z.name: "not read: a compressed copy of the plain rollout beside it, holding the first part of "
                            f"its lines (the plain file was written to since): {RULE}"}


def test_a_twin_with_other_lines_is_named_and_may_be_retraced_by_name(tmp_path: Path) -> None:
    p, z = twins(tmp_path, rollout(PID, ["add a test"]), packed(rollout(PID, ["something else"])))
    found, said = named(tmp_path)
    assert found == [p.name]
    assert said == {z.name: "not read: a compressed copy of the plain rollout beside it, whose lines differ from it: "
                            f"{RULE}; name it to retrace it"}


def test_a_twin_that_is_no_zstd_stream_is_named_not_compared(tmp_path: Path) -> None:
    p, z = twins(tmp_path, rollout(PID, ["add a test"]), b"\x28\xb5\x2f\xfd garbage")
    found, said = named(tmp_path)
    assert found == [p.name]
    assert said[z.name].startswith("not read: a compressed copy of the plain rollout beside it, not compared (")
    assert said[z.name].endswith(f"{RULE}; name it to retrace it")


def test_a_compressed_rollout_alone_is_read_as_before(tmp_path: Path) -> None:
    p, z = twins(tmp_path, b"", packed(rollout(PID, ["add a test"])))
    p.unlink()
    found, said = named(tmp_path)
    assert found == [z.name] and said == {}
    s = CodexSource().read(z, ReadContext(root=tmp_path))[0]
    assert [e.text for e in s.events if e.kind == "user"] == ["add a test"]
    assert not [w for w in s.warnings if w.code == "compressed_twin"]


def test_a_twin_named_by_the_user_is_read_and_says_codex_reads_the_plain_file(tmp_path: Path) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path, data, packed(data))
    s = CodexSource().read(z, ReadContext(root=z.parent))[0]
    assert [e.text for e in s.events if e.kind == "user"] == ["add a test"]
    [w] = [w for w in s.warnings if w.code == "compressed_twin"]
    assert w.message == (f"a compressed copy of {p.name}, beside it (the same lines): read as named, though Codex "
                         "reads the plain file when both are there")


def test_a_subagents_twin_is_not_read_with_its_parent(tmp_path: Path) -> None:
    """A subagent's rollout is read with its parent's: its compressed twin would give its events twice."""
    parent, _ = twins(tmp_path, rollout(PID, ["spawn a helper"]), b"")
    parent.with_name(parent.name + ".zst").unlink()
    sub = rollout(CID, ["help"], source={"subagent": {"thread_spawn": {"parent_thread_id": PID, "depth": 1}}})
    child, cz = twins(tmp_path, sub, packed(sub), CID)
    s = CodexSource().read(parent, ReadContext(root=tmp_path))[0]
    assert sorted(Path(f.path).name for f in s.files) == sorted([parent.name, child.name])
    assert len([e for e in s.events if e.text == "done: help"]) == 1
    [w] = [w for w in s.warnings if w.code == "compressed_twin"]
    assert w.message == f"{cz.name}, a subagent's rollout beside it, not read: {SAME}: {RULE}"
    found, said = named(tmp_path)
    assert found == [parent.name] and list(said) == [cz.name]


def test_a_forks_parent_is_looked_for_in_the_plain_file_only(tmp_path: Path) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path, data, packed(data))
    other = p.with_name("rollout-2026-05-12T10-00-00-x.jsonl")
    other.write_bytes(data)
    assert candidate_paths(other, PID, None) == [p]


# ------------------------------------------------------------------ what the commands say


def test_ls_lists_the_session_once_and_names_the_twin(tmp_path: Path) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path, data, packed(data))
    res = CliRunner().invoke(app, ["ls", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert [ln.rsplit(" ", 1)[-1] for ln in res.stdout.splitlines()] == [str(p)]
    assert f"forsy: not read: {z}: not read: {SAME}: {RULE}" in res.stderr
    assert "1 session," in res.stderr and "1 not read (above)" in res.stderr


def test_retrace_of_the_folder_writes_one_trace_and_skips_the_twin(tmp_path: Path) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path / "logs", data, packed(data))
    res = CliRunner().invoke(app, ["retrace", str(tmp_path / "logs"), "-o", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(ln) for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert [(Path(r["input"]).name, r["status"]) for r in rows if r["status"] != "skipped"] == [(p.name, "written")]
    assert [(Path(r["input"]).name, r["message"]) for r in rows if r["status"] == "skipped"] == [
        (z.name, f"not read: {SAME}: {RULE}")]


def test_the_sweep_drafts_the_session_once_and_leaves_the_twin_out(tmp_path: Path, store: Store) -> None:
    data = rollout(PID, ["add a test"])
    p, z = twins(tmp_path / "logs", data, packed(data))
    report: SweepReport = sweep(store, SweepOptions(roots=[tmp_path / "logs"], ignore_settle=True,
                                                    claude_home=Path("/nonexistent"), now=lambda: 2e9))
    assert [Path(r.unit_path).name for r in store.traces(TraceQuery())] == [p.name]
    assert report.left_out == [(str(z), f"not read: {SAME}: {RULE}")]
