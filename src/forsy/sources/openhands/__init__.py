"""OpenHands trajectories and evaluation outputs → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it):
the older event stream (a trajectory's JSON array, an evaluation's output.jsonl) is read
there; the software-agent SDK's own events (OpenHands V1) by `_v1`, wherever they are, and
its one-file-per-event conversations by `_events_dir`; `_build` makes the events.
"""

from __future__ import annotations

from .source import OpenHandsSource

__all__ = ["OpenHandsSource"]
