"""The source registry: built-ins and plugins (`forsy.sources` entry points), the entry points
scanned once per process (the scan reads every installed package's metadata; reading a
directory asks the registry once per file)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from forsy.sources import base as sources


@pytest.fixture
def fresh() -> Iterator[None]:
    sources._plugins.cache_clear()
    yield
    sources._plugins.cache_clear()


def test_plugins_are_registered_and_scanned_once(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def fake_entry_points(*, group: str) -> list[Any]:
        calls.append(group)
        return [SimpleNamespace(name="mine", value="my_pkg.source:MySource"),
                SimpleNamespace(name="codex", value="elsewhere:NotTheBuiltin")]

    monkeypatch.setattr(sources, "entry_points", fake_entry_points)
    for _ in range(3):
        reg = sources.registry()
    assert calls == ["forsy.sources"]
    assert reg["mine"] == "my_pkg.source:MySource"
    assert reg["codex"] == sources.BUILTIN["codex"]  # a plugin never replaces a built-in
    assert list(reg)[: len(sources.BUILTIN)] == list(sources.BUILTIN)


def _plugin_source(sniffs: bool) -> Any:
    return SimpleNamespace(name="mine", sniff=lambda path, head: sniffs, discover=lambda path: [],
                           read=lambda path, ctx: [])


def test_a_file_a_built_in_reads_is_detected_without_loading_the_others(
        fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """`forsy retrace FILE` asked every source, so it imported all of them and scanned the
    installed packages for plugins first: a fifth of the run on a small session. The sources
    are asked in the registry's order, each loaded when it is reached: the answer is the same."""
    from _paths import SAMPLES

    loaded: list[str] = []
    real_load = sources.load

    def load(name: str) -> Any:
        loaded.append(name)
        return real_load(name)

    def no_scan(*, group: str) -> list[Any]:
        raise AssertionError("the plugins were scanned")

    monkeypatch.setattr(sources, "load", load)
    monkeypatch.setattr(sources, "entry_points", no_scan)
    assert sources.detect(SAMPLES / "claude" / "demo-session.jsonl").name == "claude_code"
    assert loaded == ["claude_code"]


def test_a_file_no_built_in_reads_is_asked_of_the_plugins_in_order(
        fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    f = tmp_path / "x.mine"
    f.write_text("mine\n")
    monkeypatch.setattr(sources, "entry_points", lambda *, group: [
        SimpleNamespace(name="mine", value="p:Mine"), SimpleNamespace(name="mine", value="q:Other")])
    real_load = sources.load
    monkeypatch.setattr(sources, "load", lambda name: _plugin_source(True) if name == "mine" else real_load(name))
    assert sources.detect(f).name == "mine"
    assert [s.name for s in sources.available()][-1] == "mine"
    assert len(sources.available()) == len(sources.BUILTIN) + 1  # a name given twice is one source
