"""ATIF documents with values of other shapes than Harbor writes: read without a crash, what
cannot be read named. Worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.atif import AtifSource

SRC = AtifSource()


def read(tmp_path: Path, doc: Any, name: str = "run.json") -> Session:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    return s


@pytest.mark.parametrize("defs", [5, True, "bash", {"function": {"name": "bash"}}, None])
def test_tool_definitions_that_are_no_list_give_no_tools(defs: object, tmp_path: Path) -> None:
    doc = {"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "tool_definitions": defs},
           "steps": [{"source": "user", "message": "hi"}]}
    s = read(tmp_path, doc)  # an integer crashed the reader (it iterated it)
    assert (s.meta.agent, s.meta.tools, [e.text for e in s.events]) == ("a", [], ["hi"])
