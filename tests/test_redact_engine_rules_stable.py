"""The engine's rule file is the same text in every process. Its compiled form is cached by the
file's hash, so a file that changed with the process (a set's order follows each process's hash
seed) is compiled again on every run: 10-20 s a `forsy retrace`, however small the log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CODE = ("import sys; from pathlib import Path; from forsy.redact._engine import _anchor_rules_file; "
        "print(_anchor_rules_file(Path(sys.argv[1])).name)")


def test_the_rule_file_does_not_change_with_the_hash_seed(tmp_path: Path) -> None:
    names = set()
    for seed in ("0", "1", "2", "3", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", CODE, str(tmp_path)], capture_output=True, text=True,
                             env=env, timeout=120, check=True)
        names.add(out.stdout.strip())
    assert len(names) == 1, names
    assert len(list(tmp_path.glob("forsy-anchors-*.yml"))) == 1
