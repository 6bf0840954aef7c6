"""A Claude Code log saved as one JSON array is read whole, so the size cap of the read applies
to it (also when no root is given: the context's limits are kept), and an element it cannot
read is warned about like a damaged line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _small_logs import answer, user
from forsy.errors import InputError
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.lines import Limits


def _array(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")]), "utf-8")
    return path


@pytest.mark.parametrize("root", [True, False])
def test_a_json_array_past_the_size_cap_is_refused(tmp_path: Path, root: bool) -> None:
    path = _array(tmp_path)
    ctx = ReadContext(root=tmp_path if root else None, limits=Limits(max_file_bytes=path.stat().st_size - 1))
    with pytest.raises(InputError) as e:
        ClaudeCodeSource().read(path, ctx)
    assert e.value.path == str(path)


@pytest.mark.parametrize("root", [True, False])
def test_a_json_array_at_the_size_cap_is_read(tmp_path: Path, root: bool) -> None:
    path = _array(tmp_path)
    ctx = ReadContext(root=tmp_path if root else None, limits=Limits(max_file_bytes=path.stat().st_size))
    [s] = ClaudeCodeSource().read(path, ctx)
    assert [e.text for e in s.events] == ["Go.", "Done."]


def test_an_element_of_a_json_array_that_is_no_record_is_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([user(0, "u1", None, "Go."), 7, answer(1, "a1", "u1", "Done.")]), "utf-8")
    [s] = ClaudeCodeSource().read(path, ReadContext(root=tmp_path))
    assert [e.text for e in s.events] == ["Go.", "Done."]
    assert [(w.file, w.line) for w in s.warnings] == [("chat.json", 1)]
