"""Where the secret engine keeps its compiled rules. Kingfisher uses a cache folder only when
it and every folder above it are owned by the user (or root) and writable by no one else unless
sticky; otherwise it says nothing ("bypassed") and compiles the rules again on every run (5-15 s
on this machine). A home or `~/.cache` left group-writable by umask 002 was such a folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forsy.redact import _engine

_RULE = ('rules:\n  - name: "x"\n    id: "custom.x"\n    pattern: "(abcdefgh)"\n    confidence: "medium"\n'
         '    min_entropy: 0\n')


@pytest.mark.parametrize("above", [0o755, 0o775, 0o757, 0o777, 0o1777, 0o1775])
@pytest.mark.parametrize("mode", [0o700, 0o755, 0o775])
def test_what_forsy_trusts_is_what_kingfisher_trusts(tmp_path: Path, above: int, mode: int) -> None:
    kf = pytest.importorskip("kingfisher_sdk")
    folder = tmp_path / "above" / "cache"
    folder.mkdir(parents=True)
    rule = tmp_path / "rule.yml"
    rule.write_text(_RULE)
    os.chmod(folder.parent, above)
    os.chmod(folder, mode)
    status = kf.Rules([rule], builtins=False, confidence="low", cache=True, cache_dir=folder).cache_status
    assert _engine._trusted(folder) == (status != "bypassed"), (oct(above), oct(mode), status)


@pytest.mark.parametrize("linked", ["the folder", "a folder above"])
def test_links_are_trusted_where_kingfisher_trusts_them(tmp_path: Path, linked: str) -> None:
    kf = pytest.importorskip("kingfisher_sdk")
    real = tmp_path / "real"
    (real / "c").mkdir(parents=True, mode=0o700)
    (tmp_path / "link").symlink_to(real / "c" if linked == "the folder" else real)
    folder = tmp_path / "link" if linked == "the folder" else tmp_path / "link" / "c"
    rule = tmp_path / "rule.yml"
    rule.write_text(_RULE)
    status = kf.Rules([rule], builtins=False, confidence="low", cache=True, cache_dir=folder).cache_status
    assert _engine._trusted(folder) == (status != "bypassed"), (linked, status)


def test_each_folder_made_for_the_cache_is_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        folder = tmp_path / "cache" / "forsy" / "kingfisher-rules"
        assert _engine._private_dir(folder)
    finally:
        os.umask(old)
    for f in (folder, folder.parent, folder.parent.parent):
        assert f.stat().st_mode & 0o777 == 0o700, f
    assert _engine._trusted(folder)


def test_an_untrusted_default_gives_way_to_a_folder_of_the_users_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o775)  # a group may write here
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    monkeypatch.setattr(_engine.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    got = _engine._cache_folder(None)
    assert got == tmp_path / "tmp" / f"forsy-{os.getuid()}" / "kingfisher-rules"
    assert _engine._trusted(got)
    os.chmod(shared, 0o755)
    assert _engine._cache_folder(None) == shared / "forsy" / "kingfisher-rules"


def test_a_spare_folder_someone_else_could_write_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o775)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    tmp = tmp_path / "tmp"
    (tmp / f"forsy-{os.getuid()}").mkdir(parents=True)
    os.chmod(tmp / f"forsy-{os.getuid()}", 0o777)  # made by another before us
    monkeypatch.setattr(_engine.tempfile, "gettempdir", lambda: str(tmp))
    assert _engine._cache_folder(None) is None  # then no cache
    assert not _engine._trusted(shared / "forsy" / "kingfisher-rules")


def test_the_rules_state_says_what_building_the_engine_will_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Said before the wait (`forsy retrace` prints it): a first run compiles for 10-20 s."""
    pytest.importorskip("kingfisher_sdk")
    cache = tmp_path / "cache"
    assert _engine.rules_state(cache) == "to_compile"
    built = {}

    class Rules:  # kingfisher's, as it answers when it stored what it compiled
        cache_status = "stored"

        def __init__(self, paths: list[Path], **kw: object) -> None:
            built.update(kw)

    class Scanner:
        def __init__(self, rules: Rules, **kw: object) -> None:
            pass

    import kingfisher_sdk as kf

    monkeypatch.setattr(kf, "Rules", Rules)
    monkeypatch.setattr(kf, "Scanner", Scanner)
    _engine.KingfisherEngine(cache)
    assert built["cache_dir"] == cache
    assert _engine.rules_state(cache) == "compiled"
    Rules.cache_status = "bypassed"  # kingfisher did not keep them: nothing said it did
    other = tmp_path / "other"
    _engine.KingfisherEngine(other)
    assert _engine.rules_state(other) == "to_compile"
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    assert _engine.rules_state(shared / "c") == "every_run"


@pytest.mark.parametrize(("state", "said"), [("to_compile", "once: later runs load them"),
                                             ("every_run", "every run compiles them"), ("compiled", None)])
def test_a_retrace_says_when_it_will_wait_for_the_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str, said: str | None) -> None:
    from typer.testing import CliRunner

    import forsy.redact
    from _paths import SAMPLES
    from forsy.cli import app

    monkeypatch.setattr(forsy.redact, "rules_state", lambda cache_dir=None: state)
    args = ["retrace", str(SAMPLES / "claude" / "demo-session.jsonl"), "-o", str(tmp_path / "t")]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert ("compiling the secret-detection rules" in r.output) == (said is not None)
    if said is not None:
        assert said in " ".join(r.output.split())
    quiet = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "q"), "-q"])
    assert "compiling" not in quiet.output
