"""The secret engine warmed in the background (redact/_engine.py warm_engine): built once,
waited for by the redactor, and a failure there is raised where the redactor asks."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from forsy.errors import RedactionError
from forsy.redact import _engine


class _Slow:
    built: list[Path | None] = []
    release = threading.Event()

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.release.wait(10)
        if cache_dir is not None and cache_dir.name == "broken":
            raise RedactionError("secret scanner could not start: planted")
        self.built.append(cache_dir)


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> type[_Slow]:
    monkeypatch.setattr(_engine, "KingfisherEngine", _Slow)
    monkeypatch.setattr(_engine, "_ENGINES", {})
    _Slow.built = []
    _Slow.release = threading.Event()
    return _Slow


def test_warming_builds_once_and_the_redactor_gets_that_engine(slow: type[_Slow], tmp_path: Path) -> None:
    _engine.warm_engine(tmp_path)
    _engine.warm_engine(tmp_path)  # already warming: no second build
    got: list[object] = []
    asker = threading.Thread(target=lambda: got.append(_engine.shared_engine(tmp_path)))
    asker.start()
    asker.join(0.2)
    assert asker.is_alive()  # waits for the build under way
    slow.release.set()
    asker.join(10)
    assert slow.built == [tmp_path]
    assert got == [_engine._ENGINES[tmp_path]]
    _engine.warm_engine(tmp_path)  # built: nothing to do
    assert slow.built == [tmp_path]


def test_a_failed_warm_up_is_raised_where_the_redactor_asks(slow: type[_Slow], tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    slow.release.set()
    _engine.warm_engine(broken)
    for t in threading.enumerate():
        if t.name == "forsy-engine-warm":
            t.join(10)
    with pytest.raises(RedactionError, match="planted"):
        _engine.shared_engine(broken)
    assert broken not in _engine._ENGINES
