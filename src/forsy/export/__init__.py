"""Exports of Forsy traces to the formats other tools read, behind one small registry: a new
format is one module and one entry point (`forsy.exporters`: forsy's own are declared in its
pyproject.toml, the way a plugin declares its own).

Each format is a class (`_core.Exporter`) that declares its field coverage (for every Forsy
field: kept / transformed, and how / dropped) and converts traces to output files. `export`
(`writer`) converts, builds the loss report (what the output does not carry, counted over the traces
given), refuses a lossy export when `strict`, then writes the output and the report beside it
(`<PATH>.loss.json` for a file, `loss.json` inside a folder).

forsy never overwrites what it did not write: an output path that exists is replaced only
when the loss report beside it says forsy's export wrote it.
"""

from ._core import FIELDS, Bundle, Cover, ExportOptions, ExportRefused, LossReport
from .writer import (
    EXPORTERS,
    ExportResult,
    approved,
    coverage_of,
    export,
    formats,
    load,
    load_folder,
    load_store,
    report_path,
)

__all__ = ["EXPORTERS", "FIELDS", "Bundle", "Cover", "ExportOptions", "ExportRefused", "ExportResult", "LossReport",
           "approved", "coverage_of", "export", "formats", "load", "load_folder", "load_store", "report_path"]
