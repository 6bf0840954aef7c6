"""Every source's discover over a folder: a FIFO or a device among the files is passed
over without blocking (a plain `open` of a FIFO waits for a writer for ever)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT = 60  # seconds; a blocked open never returns, so any bound catches it
SOURCES = ("atif", "invariant", "openai_chat", "forsy_v1", "gemini", "openhands", "cline", "asciinema", "aider",
           "mini_swe_agent")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("name", SOURCES)
def test_discover_passes_over_a_fifo(tmp_path: Path, name: str) -> None:
    # a FIFO under every name the sources look for, in a child so a blocked open is caught
    for fname in ("x.json", "x.jsonl", "trace.json", "output.jsonl", "api_conversation_history.json"):
        os.mkfifo(tmp_path / fname)
    code = f"""
from pathlib import Path
from forsy.sources import load
print(load({name!r}).discover(Path({str(tmp_path)!r})))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
