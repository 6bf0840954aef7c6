"""No planted secret leaves forsy: fresh fake secrets planted into real Claude Code and Codex
logs (user words, tool arguments, JSON-in-a-string arguments, tool output, rich results,
system prompts), then every output file is searched for each value and its JSON-escaped form,
by forsy's test and by the independent checker (../shared/tools/forsy_check.py secrets)."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from _paths import SHARED, needs_shared, real_logs
from forsy.redact._known import distinctive
from forsy.run import RetraceOptions, retrace
from redaction_structure_samples import samples
from secretgen import Planted, SecretGen

pytestmark = [needs_shared, pytest.mark.real_logs]

LOGS = [p for p in real_logs("claude", "**/*.jsonl", "**/chat.json") + real_logs("codex")
        if p.stat().st_size > 3000 and not p.name.startswith("agent-a1593bc")]
# logs that hold no work, by name, with the reason forsy gives (checked: not a silent skip)
NO_WORK = {"agent-36541525.jsonl": "a Warmup stub (cache priming), not work"}
TEXT_KEYS = {"text", "content", "command", "stdout", "stderr", "output", "arguments", "input", "prompt",
             "thinking", "base_instructions", "message", "result", "new_string", "old_string", "query"}


class StructureGen:
    """Plants the structure rules' samples (stdin, credential lines, URL paths, base64,
    short flags, prose…) with fresh values, and now and then repeats a secret already
    planted, bare, in a later field: known once, masked everywhere."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.given: list[str] = []
        self.origin: dict[str, str] = {}  # secret -> the marker planted with its first mention
        self.count = 0

    def planted_one(self) -> Planted:
        if self.given and self.rng.random() < 0.25:
            secret = self.rng.choice(self.given)
            return Planted("known-once", f"(it was {secret} again)", (secret,))
        sample = self.rng.choice(samples(self.rng.randrange(1 << 30)))
        self.count += 1
        marker = f"(planted {self.count})"  # a line of its own before the sample: where it went
        for v in sample.secrets:
            # an htpasswd hash is masked whole: its random tail alone is not the secret learnt
            if distinctive(v) and sample.rule != "password-hash-line":
                self.given.append(v)
                self.origin.setdefault(v, marker)
        return Planted(sample.rule, f"{marker}\n{sample.text}", sample.secrets)

    def excused(self, blob: str) -> set[str]:
        """Secrets whose first mention no output holds (planted in a field forsy does not
        read): the session never saw them as secrets, so a bare repeat cannot be known."""
        return {v for v, marker in self.origin.items() if not re.search(re.escape(marker) + r"(?!\d)", blob)}


class Planter:
    def __init__(self, seed: int, *, structure: bool = False) -> None:
        self.gen: SecretGen | StructureGen = StructureGen(seed) if structure else SecretGen(seed=seed)
        self.rng = random.Random(seed)
        self.planted: list[Planted] = []

    def value(self, v: Any, key: str | None = None) -> Any:
        if isinstance(v, dict):
            return {k: self.value(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        if isinstance(v, str) and key in TEXT_KEYS and v and self.rng.random() < 0.25:
            if v.lstrip().startswith("{"):
                try:  # JSON held in a string (Codex arguments): plant inside, keep it JSON
                    return json.dumps(self.value(json.loads(v)))
                except ValueError:
                    pass
            p = self.gen.planted_one()
            self.planted.append(p)
            if isinstance(self.gen, StructureGen):  # a line of its own: a file's line, a command
                return f"{v}\n{p.text}" if self.rng.random() < 0.5 else f"{p.text}\n{v}"
            return f"{v}\n{p.text}" if self.rng.random() < 0.5 else f"{p.text} {v}"
        return v


def plant_file(src: Path, dst: Path, planter: Planter) -> None:
    text = src.read_text("utf-8")
    if text.lstrip().startswith("["):
        dst.write_text(json.dumps([planter.value(r) for r in json.loads(text)], indent=2))
        return
    out = [json.dumps(planter.value(json.loads(line)), ensure_ascii=False)
           for line in text.splitlines() if line.strip()]
    dst.write_text("\n".join(out) + "\n", "utf-8")


def _checker() -> Any:
    spec = importlib.util.spec_from_file_location("forsy_check", SHARED / "tools" / "forsy_check.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("structure", [False, True], ids=["tokens", "structure"])
@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name[:24])
def test_no_planted_secret_leaks(log: Path, tmp_path: Path, structure: bool) -> None:
    planter = Planter(seed=len(log.name) * 7919 + log.stat().st_size, structure=structure)
    src = tmp_path / "in" / log.name
    src.parent.mkdir()
    plant_file(log, src, planter)
    assert planter.planted
    out = tmp_path / "out"
    # every log here holds work: a refusal (a ForsyError, a failed or skipped session) is a
    # failure of this test, never a skip (refused Codex sessions once passed as skips)
    run = retrace([src], RetraceOptions(out=out), raise_if_empty=False)
    if log.name in NO_WORK:  # the one log that holds no work: skipped for its stated reason, nothing written
        assert [(o.status, o.message) for o in run.outcomes] == [("skipped", NO_WORK[log.name])]
        assert not out.exists()
        return
    assert [(o.status, o.message) for o in run.outcomes if o.status != "written"] == []
    assert run.results
    blob = "\n".join(p.read_text("utf-8", "replace") for p in out.rglob("*") if p.is_file())
    excused = planter.gen.excused(blob) if isinstance(planter.gen, StructureGen) else set()
    secrets = sorted({s for p in planter.planted for s in p.secrets} - excused)
    secret_file = tmp_path / "secrets.txt"
    secret_file.write_text("\n".join(secrets) + "\n")
    leaks = _checker().check_secrets(out, secret_file)
    assert leaks == [], leaks[:5]
    for p in planter.planted:
        leaked = [s for s in p.leaks(blob) if s not in excused]
        assert leaked == [], (p.text[:80], leaked[:2])


def test_rescan_masks_what_slipped_through(tmp_path: Path) -> None:
    """The last scan before writing catches a secret that reached the trace unmasked."""
    from forsy.redact import Redactor
    from forsy.run import process
    from forsy.run.redaction import rescan
    from forsy.sources import ReadContext
    from forsy.sources.claude_code import read_session

    secret = SecretGen(seed=3).github()
    rec = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
           "message": {"role": "user", "content": f"use token {secret} please"}}
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    session = read_session(p, ReadContext(root=tmp_path))
    assembled = process(session, RetraceOptions(redact=False), None)  # nothing masked on the way
    assert secret in assembled.trace.task
    rescan(assembled, Redactor())
    assert secret not in assembled.trace.model_dump_json()
    assert assembled.manifest.redaction["rescan_fixed"] is True


# two Claude Code logs (a sweep, six exports and two pages each: kept short)
OUTPUT_LOGS = [p for p in LOGS if p.suffix == ".jsonl" and p.name not in NO_WORK][:2]


@pytest.mark.parametrize("log", OUTPUT_LOGS, ids=lambda p: p.name[:24])
def test_no_structure_secret_reaches_the_store_exports_or_pages(log: Path, tmp_path: Path) -> None:
    """The structure samples and their bare repeats, planted in a real log, then swept into a
    store, exported in every format, rendered (with the log's evidence) and the store file
    itself read: no secret in any of them."""
    from typer.testing import CliRunner

    from forsy.cli import app
    from forsy.store import TraceQuery, open_store

    runner = CliRunner()
    planter = Planter(seed=len(log.name) * 104729 + 1, structure=True)
    logs = tmp_path / "logs"
    logs.mkdir()
    plant_file(log, logs / log.name, planter)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    r = runner.invoke(app, ["sweep", str(logs), "--now", "--store", url, "-q"])
    assert r.exit_code == 0, r.output
    st = open_store(url)
    try:
        ids = [t.trace_id for t in st.traces(TraceQuery())]
    finally:
        st.close()
    assert ids
    out = tmp_path / "out"
    out.mkdir()
    for fmt in ("invariant", "opentraces", "atif", "openai", "hf", "otlp"):
        r = runner.invoke(app, ["export", "--from-store", "*", "--status", "pending", "--store", url, "--to", fmt,
                                "-o", str(out / fmt), "-q"])
        assert r.exit_code == 0, (fmt, r.output)
    for tid in ids:
        for page in ("page.html", "page.md"):
            r = runner.invoke(app, ["render", tid, "-o", str(out / f"{tid[:12]}-{page}"), "--store", url,
                                    "--logs", str(logs), "-q"])
            assert r.exit_code == 0, r.output
    written = [p for p in out.rglob("*") if p.is_file()] + [p for p in tmp_path.glob("store.db*") if p.is_file()]
    blob = "\n".join(p.read_bytes().decode("utf-8", "replace") for p in written)
    excused = planter.gen.excused(blob) if isinstance(planter.gen, StructureGen) else set()
    assert any(f"(planted {n})" in blob for n in range(1, 50)), "nothing planted reached the outputs"
    assert blob.count("[CREDENTIAL_") >= 10  # masked, not dropped
    for p in planter.planted:
        leaked = [s for s in p.leaks(blob) if s not in excused]
        assert leaked == [], (p.kind, p.text[:80], leaked[:2])
