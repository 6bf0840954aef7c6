"""`forsy ls` names each session's agent as its traces will (`claude-code`, as the queue, `forsy
review list` and the draft page say it), not by the source that reads it (`claude_code`, the
manifest's `source_kind`, which `--json` gives beside it). Its table of names is checked against
what each reader's sessions say, on a log of each source the tests hold."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.cli._ls import AGENTS, agent_name, look
from forsy.run import discover
from forsy.sources import ReadContext
from forsy.sources.base import BUILTIN

FIX = Path(__file__).parent / "fixtures"


def test_ls_shows_the_agents_name_the_queue_shows_and_the_source_beside_it_in_json() -> None:
    demo = SAMPLES / "claude" / "demo-session.jsonl"
    r = CliRunner().invoke(app, ["ls", str(demo)])
    assert r.exit_code == 0 and r.stdout.split()[0] == "claude-code" and "claude_code" not in r.stdout
    r = CliRunner().invoke(app, ["ls", "--json", str(SAMPLES / "codex")])
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert rows and {(x["agent"], x["source_kind"]) for x in rows} == {("codex-cli", "codex")}


def test_every_source_forsy_reads_has_its_agents_name() -> None:
    assert set(AGENTS) == set(BUILTIN)
    assert agent_name("an_unknown_plugin", Path("x.jsonl")) == "an_unknown_plugin"  # all there is to name it by


def test_kilo_codes_folders_are_kilo_code_as_its_reader_says(tmp_path: Path) -> None:
    task = tmp_path / "kilocode.kilo-code" / "tasks" / "t1" / "ui_messages.json"
    assert agent_name("roo_code", task) == "kilo-code"
    assert agent_name("roo_code", tmp_path / "rooveterinaryinc.roo-cline" / "tasks" / "t1" / "x.json") == "roo-code"
    assert agent_name("roo_code", tmp_path / "elsewhere" / "t1" / "x.json") == "roo-code"


def test_the_names_are_the_ones_the_readers_give_their_sessions() -> None:
    seen: dict[str, set[str]] = {}
    for root in (FIX, SAMPLES):
        for src, p in discover([root]):
            if len(seen.get(src.name, ())) >= 3:
                continue  # a few logs of each source are enough
            try:
                sessions = src.read(p, ReadContext())
            except Exception:  # a log its reader refuses names no agent
                continue
            for s in sessions:
                if s.meta.agent:
                    assert look(src.name, p).agent == s.meta.agent, (src.name, p)
                    seen.setdefault(src.name, set()).add(str(p))
    # the logs held here cover these sources; git, invariant, openai_chat, atif and forsy_v1 have none
    assert {"claude_code", "codex", "gemini", "shell", "cline", "aider", "asciinema", "openhands",
            "mini_swe_agent", "opencode", "copilot_cli", "goose", "qwen_code", "roo_code"} <= set(seen)
