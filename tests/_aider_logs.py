"""Hand-made aider histories in the shape aider's own code writes them (io.py), and one retraced
whole into a folder that must verify with every record accounted for."""

from __future__ import annotations

import json
from pathlib import Path

import forsy
from forsy.verification import verify_folder

B = "  "  # the markdown line break aider ends its lines with (io.py append_chat_history)
CHAT = ".aider.chat.history.md"
INPUT = ".aider.input.history"


def retraced_checked(tmp_path: Path) -> Path:
    """The chat in tmp_path retraced into a folder that verifies against the log, every record
    of which the ledger accounts for (none unknown); the folder."""
    out = tmp_path / "out"
    run = forsy.retrace([tmp_path / CHAT], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert not run.failed
    [d] = [t.parent for t in out.rglob("trace.json")]
    assert verify_folder(d, [tmp_path]).ok
    m = json.loads((d / "manifest.json").read_text("utf-8"))
    for f in m["ledger"]:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    return d
