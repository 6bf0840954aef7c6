"""A Hugging Face dataset folder: `traces.jsonl` (one row per trace), `steps.jsonl` (one row
per step, for stepwise training) and `README.md`, the dataset card naming both configs.

Every value is kept. Values whose keys vary from trace to trace (agent_config, the manifest,
the provenance, a step's input_source) are written as JSON text: Arrow, which `datasets`
loads JSON lines into, needs one schema for every row, and a column of objects whose keys
differ (provenance is keyed by evidence ids) would become one wide struct of mostly nulls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from ._core import FIELDS, Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage

_AS_TEXT = ("agent_config", "static_output")


def _text(v: object) -> str | None:
    return None if v is None else orjson.dumps(v).decode()


def trace_row(b: Bundle) -> dict[str, Any]:
    d = b.trace.model_dump(mode="json")
    for k in _AS_TEXT:
        d[k] = _text(d[k])
    for s in d["steps"]:
        s["input_source"] = _text(s["input_source"])
    d["manifest"] = _text(b.manifest.model_dump(mode="json")) if b.manifest is not None else None
    d["provenance"] = _text(b.provenance.model_dump(mode="json")) if b.provenance is not None else None
    return d


def step_rows(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"trace_id": row["trace_id"], **s} for s in row["steps"]]


CARD = """---
configs:
- config_name: traces
  data_files: traces.jsonl
  default: true
- config_name: steps
  data_files: steps.jsonl
tags:
- agent-traces
- forsy
---
# Forsy traces

{n} trace(s) of AI agents' work in the Forsy trace format (`forsy-trace-v0.1`), written by
`forsy export --to hf`.

* `traces.jsonl`: one row per trace, every field of `trace.json`; `agent_config`,
  `static_output`, each step's `input_source`, and the trace's `manifest` and `provenance`
  (where every value came from) are JSON text.
* `steps.jsonl`: one row per step with its `trace_id`, for stepwise training.

Each trace's `dataset_summary.release_tier` says how it may be shared; the release tiers here:
{tiers}.
"""


class HfExporter:
    name: ClassVar[str] = "hf"
    directory: ClassVar[bool] = True
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={f: "traces.jsonl (steps also in steps.jsonl)" for f in FIELDS
              if f not in ("agent_config", "static_output", "steps.input_source", "manifest", "provenance")},
        transformed={f: "JSON text in traces.jsonl" for f in
                     ("agent_config", "static_output", "steps.input_source", "manifest", "provenance")},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        rows = [trace_row(b) for b in bundles]
        traces = b"".join(orjson.dumps(r) + b"\n" for r in rows)
        steps = b"".join(orjson.dumps(s) + b"\n" for r in rows for s in step_rows(r))
        tiers = sorted({b.trace.dataset_summary.release_tier for b in bundles})
        card = CARD.replace("{n}", str(len(bundles))).replace("{tiers}", ", ".join(map(str, tiers)) or "none")
        return [OutFile("traces.jsonl", traces), OutFile("steps.jsonl", steps), OutFile("README.md", card.encode())]
