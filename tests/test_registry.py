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
