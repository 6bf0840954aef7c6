"""File names are redacted together and in name order (run/redaction.py `redact_names`): a
placeholder's number never depends on the order Python happens to iterate a set in, which
changes from one process to the next (PYTHONHASHSEED)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r'''
from forsy.evidence import Evidence, Session, SessionMeta, SourceFile
from forsy.redact import Redactor
from forsy.run.redaction import redact_names

names = [f"logs/{c}-ghp_{c * 36}.jsonl" for c in "abcdefgh"]
s = Session("claude_code", "s", [SourceFile(n, "/x/" + n, "claude_code", 1, "0") for n in names], {}, [],
            SessionMeta())
for n in names:
    s.add_evidence(Evidence.make(n, 1, 0, b"{}", "0"))
redact_names(s, Redactor())
print([f.path for f in s.files])
'''


def test_placeholders_in_file_names_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    outs = set()
    for seed in ("0", "1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, check=True)
        outs.add(run.stdout)
    [out] = outs
    assert "logs/a-[CREDENTIAL_1].jsonl" in out and "logs/h-[CREDENTIAL_8].jsonl" in out
