"""What a run is asked to do and how it reports where it is: `RetraceOptions`, the progress
events (`ProgressEvent`, and the `Meter` that makes them), and how many processes a run uses."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..protocols import Completion

Stage = Literal["reading", "redacting", "segmenting", "writing", "done"]


@dataclass(frozen=True)
class ProgressEvent:
    """Where a run is: emitted by `retrace`/`retrace_one` as each session file enters a stage,
    and once with stage "done" when the file is finished. Byte counts are file sizes (what a
    person can relate to `ls -l`): `bytes_done` counts the files finished before this one,
    `file_bytes` is the size of the file in hand (counted in `bytes_done` from its "done" event
    on); `bytes_total` the sum over the run."""

    stage: Stage
    path: str  # the session file in hand ("--history/--git" for a run without one)
    index: int  # 1-based number of the file in hand
    files: int  # files in the run
    file_bytes: int
    bytes_done: int
    bytes_total: int


Progress = Callable[[ProgressEvent], None]


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


@dataclass
class Meter:
    """Turns "this file, this stage" into ProgressEvents with the run's byte counts."""

    emit: Progress | None
    path: str = ""
    index: int = 0
    files: int = 1
    file_bytes: int = 0
    bytes_done: int = 0
    bytes_total: int = 0

    def start(self, path: str, size: int) -> None:
        self.path, self.file_bytes = path, size
        self.index += 1

    def stage(self, stage: Stage) -> None:
        if self.emit is not None:
            self.emit(ProgressEvent(stage, self.path, self.index, self.files, self.file_bytes, self.bytes_done,
                                    self.bytes_total))

    def finish(self) -> None:
        self.bytes_done += self.file_bytes
        self.stage("done")


NO_METER = Meter(None)


@dataclass
class RetraceOptions:
    out: Path | None = None  # a trace folder (one session) or a parent folder (several)
    redact: bool = True
    history: list[Path] = field(default_factory=list)
    git: Path | None = None
    since: str | None = None
    until: str | None = None
    debug: bool = False
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_client: Completion | None = None  # injected (tests, a library caller); otherwise litellm on the LLM path
    llm_timeout_s: float = 60.0  # per request; then the connection is closed, not re-sent
    llm_concurrency: int = 4
    llm_chunk_tokens: int = 6000
    cache_dir: Path | None = None
    # Processes retracing session files at once (a directory or several files). Output is
    # byte-identical whatever the number: results reach the sink in input order. The model
    # pass (`llm_model`) runs in one process. 0: auto (`parallel_jobs`).
    jobs: int = 1


# Below this, auto (`jobs=0`) stays in one process: each worker spends ~1.5 s of CPU starting
# (imports, compiling the secret rules) before its first file, about what 2-3 MB of logs
# take to retrace (bench/README.md, "Both cores").
AUTO_PARALLEL_BYTES = 4_000_000


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def parallel_jobs(options: RetraceOptions, files: int, total_bytes: int, largest: int = 0) -> int:
    """How many worker processes a run of `files` session files uses (1: in this process):
    `options.jobs`, at most one per file; with `jobs=0` (auto, the CLI's default) the CPUs,
    when the files beside the `largest` add up to AUTO_PARALLEL_BYTES or more. One large
    session with little beside it stays here: a worker would only add its start-up, and in
    this process the session's redaction uses the other core itself (forsy._aside). The model
    pass runs in one process (its requests are already concurrent, and an injected client need
    not survive a trip to another process)."""
    if options.llm_model:
        return 1
    jobs = options.jobs
    if jobs == 0:
        jobs = default_jobs() if total_bytes - largest >= AUTO_PARALLEL_BYTES else 1
    return max(1, min(jobs, files))
