"""The model prompts: kept at the top of the repository (`prompts/`), shipped in the wheel as
`forsy/prompts/` (pyproject's hatch force-include) and read from the installed package first
(`llm/_request.prompt_dirs`), from the checkout when the package is the source tree."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest

from _paths import ROOT
from forsy.errors import LLMError
from forsy.llm import _request
from forsy.llm._request import load_prompt

PROMPTS = sorted(p.stem for p in (ROOT / "prompts").glob("*.md"))


def test_the_wheel_ships_the_top_level_prompts_inside_the_package() -> None:
    hatch = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["hatch"]["build"]["targets"]
    assert hatch["wheel"]["force-include"] == {"prompts": "forsy/prompts"}
    assert PROMPTS == ["segment_v2", "steps_v1"]
    assert not (ROOT / "src" / "forsy" / "llm" / "prompts").exists()  # one copy, not two


@pytest.mark.parametrize("name", PROMPTS)
def test_a_checkout_reads_the_top_level_prompt_bytes(name: str) -> None:
    raw = (ROOT / "prompts" / f"{name}.md").read_bytes()
    assert load_prompt(name).sha256 == hashlib.sha256(raw).hexdigest()


def test_the_installed_package_copy_is_read_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "forsy"
    (package / "prompts").mkdir(parents=True)
    (package / "prompts" / "segment_v2.md").write_text("<!--\nnote\n-->\n=== system ===\nS\n=== user ===\nU $x\n")
    monkeypatch.setattr(_request, "files", lambda name: package if name == "forsy" else None)
    got = load_prompt("segment_v2")
    assert (got.system, got.user.template) == ("S", "U $x\n")
    assert load_prompt("steps_v1").sha256 == hashlib.sha256((ROOT / "prompts" / "steps_v1.md").read_bytes()).hexdigest()


def test_a_prompt_in_neither_place_is_an_llm_error_naming_both() -> None:
    with pytest.raises(LLMError) as e:
        load_prompt("no_such_prompt")
    assert "forsy/prompts" in str(e.value) and str(ROOT / "prompts") in str(e.value)
