"""A hold for the crash tests of `forsy sweep` (a kill at a chosen stage of a chosen file)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class _TestHold:
    """For the crash tests only: `FORSY_SWEEP_TEST_HOLD=N:stage` makes the Nth traced session
    file stop at `stage` (`traced`: inside its transaction; `committed`: after it), write
    `FORSY_SWEEP_TEST_MARK` and sleep until killed. Unset, it does nothing."""

    n: int = 0
    stage: str = ""
    mark: str = ""
    seen: int = 0

    @staticmethod
    def from_env() -> _TestHold:
        spec = os.environ.get("FORSY_SWEEP_TEST_HOLD", "")
        if not spec:
            return _TestHold()
        n, _, stage = spec.partition(":")
        return _TestHold(int(n), stage or "traced", os.environ.get("FORSY_SWEEP_TEST_MARK", ""))

    def maybe(self, stage: str) -> None:
        if not self.n or stage != self.stage:
            return
        self.seen += 1
        if self.seen == self.n:
            if self.mark:
                Path(self.mark).write_text(str(os.getpid()))
            while True:
                time.sleep(60)
