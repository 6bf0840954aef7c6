"""`forsy dataset build`: a corpus of agent logs retraced into a Parquet dataset, one row per
session, on one machine (`local`) or on Ray Data (`ray`), with the same rows either way
(docs/dataset.md)."""

from ._build import BuildResult, Engine, build
from ._row import COLUMNS, Row, retrace_bytes

__all__ = ["COLUMNS", "BuildResult", "Engine", "Row", "build", "retrace_bytes"]
