"""Formats that look alike are each read by their own reader, and by no other.

For every file below exactly one source's `sniff` says yes, and it is the source that wrote
the format; so each pair of look-alikes (Gemini's chat lines and Claude Code's or Codex's
JSONL, Gemini's logs.json and the JSON arrays of Claude Code and OpenHands, the one-object
documents of Gemini, the TypeScript Codex CLI and OpenHands' output.jsonl) is told apart.
A folder holding all of them gives each file to that reader once.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from forsy.sources import available, detect, read_head
from forsy.sources.walk import discover_tree

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"
GEMINI_PROJECT = next((FIX / "gemini" / "tmp").iterdir())
GEMINI_CHAT = next((GEMINI_PROJECT / "chats").glob("session-*.jsonl"))
SDK_OUTPUT = FIX / "openhands" / "sdk-output.jsonl"
CLAUDE_JSONL = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"


def _made(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Look-alikes made from the fixtures: the same records in the other shape each writer uses."""
    out: dict[str, tuple[Path, str]] = {}
    # Gemini's chat before 2026: one pretty-printed object with its messages
    lines = [json.loads(x) for x in GEMINI_CHAT.read_text("utf-8").splitlines()]
    header = {k: v for k, v in lines[0].items()}
    msgs = list({m["id"]: m for m in lines if isinstance(m.get("id"), str)}.values())
    p = tmp / "gemini-json" / "session-2026-03-04T10-15-8f2c1a9b.json"
    p.parent.mkdir()
    p.write_text(json.dumps({**header, "messages": msgs}, indent=2))
    out["gemini chat (one object)"] = (p, "gemini")
    # OpenHands V1 events saved as a JSON array
    p = tmp / "openhands-events" / "events.json"
    p.parent.mkdir()
    p.write_text(json.dumps(json.loads(SDK_OUTPUT.read_text("utf-8"))["history"], indent=2))
    out["openhands SDK event array"] = (p, "openhands")
    # Claude Code's transcript re-saved as a JSON array (a Stop hook's copy)
    p = tmp / "claude-array" / "chat.json"
    p.parent.mkdir()
    p.write_text(json.dumps([json.loads(x) for x in CLAUDE_JSONL.read_text("utf-8").splitlines()], indent=2))
    out["claude transcript array"] = (p, "claude_code")
    return out


FILES: dict[str, tuple[Path, str]] = {
    "gemini chat lines": (GEMINI_CHAT, "gemini"),
    "gemini logs.json": (GEMINI_PROJECT / "logs.json", "gemini"),
    "codex envelope lines": (next((FIX / "codex").glob("rollout-2026-*.jsonl")), "codex"),
    "codex review thread": (next((FIX / "codex" / "review").glob("rollout-*.jsonl")), "codex"),
    "codex {session, items}": (next((FIX / "codex").glob("rollout-*.json")), "codex"),
    "codex bare lines": (next((ROOT / "sample_logs" / "codex" / "legacy").glob("rollout-*.jsonl")), "codex"),
    "openhands output.jsonl (SDK)": (SDK_OUTPUT, "openhands"),
    "claude code lines": (CLAUDE_JSONL, "claude_code"),
}


def _sniffers(p: Path) -> list[str]:
    head = read_head(p)
    return [s.name for s in available() if s.sniff(p, head)]


@pytest.mark.parametrize("what", sorted(FILES))
def test_each_shipped_look_alike_has_one_reader(what: str) -> None:
    path, want = FILES[what]
    assert _sniffers(path) == [want]
    assert detect(path).name == want


def test_each_made_look_alike_has_one_reader(tmp_path: Path) -> None:
    for what, (path, want) in _made(tmp_path).items():
        assert (what, _sniffers(path)) == (what, [want])


def test_a_folder_of_look_alikes_gives_each_to_its_reader(tmp_path: Path) -> None:
    want: dict[str, str] = {}
    for i, (what, (path, reader)) in enumerate(sorted(FILES.items())):
        if what.startswith("gemini"):
            continue  # the project folder below, as Gemini lays it out
        dest = tmp_path / f"d{i}" / path.name
        dest.parent.mkdir()
        shutil.copy(path, dest)
        want[str(dest)] = reader
    proj = tmp_path / "gemini" / GEMINI_PROJECT.name
    shutil.copytree(GEMINI_PROJECT, proj)
    chat = next((proj / "chats").glob("session-*.jsonl"))
    want[str(chat)] = "gemini"
    want[str(proj / "logs.json")] = "gemini"  # it holds a session with no chat
    (tmp_path / "made").mkdir()
    for path, reader in _made(tmp_path / "made").values():
        if reader != "claude_code":  # Claude Code's discover does not look for JSON arrays (its reader's call)
            want[str(path)] = reader
        else:
            path.unlink()
    tree = discover_tree(tmp_path, available())
    got = {str(p): s.name for s, p in tree.found}
    assert got == want and not tree.unrecognised
