"""`forsy retrace` starts loading the secret engine's rules when it will redact (at its start,
beside the imports and the reading: the rules take ~0.3 s; that it saves time is measured in
bench/, not here) and never when it will not: --no-redact builds no engine at all. Run in a
fresh interpreter: the engine is shared per process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "claude" / "demo-session.jsonl"
CODE = """
import json, sys, threading
from typer.testing import CliRunner
from forsy.cli import app
import forsy.redact._engine as engine
args = ["retrace", sys.argv[1], "-o", sys.argv[2], "-q"] + sys.argv[3:]
r = CliRunner().invoke(app, args)
print(json.dumps({"exit": r.exit_code, "engines": len(engine._ENGINES),
                  "started": any(t.name == "forsy-engine-start" for t in threading.enumerate())
                  or len(engine._ENGINES) > 0}))
"""


@pytest.mark.parametrize(("flags", "engines"), [([], 1), (["--no-redact"], 0)])
def test_the_engine_is_built_only_when_redacting(tmp_path: Path, flags: list[str], engines: int) -> None:
    out = subprocess.run([sys.executable, "-c", CODE, str(SAMPLE), str(tmp_path / "t"), *flags],
                         capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["exit"] == 0 and got["engines"] == engines and got["started"] == bool(engines), (got, out.stderr)
    assert (tmp_path / "t" / "trace.json").is_file()
