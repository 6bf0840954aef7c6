"""The layout holds: imports only go down (no cycle between forsy's modules), no private name is
imported from another package, `__init__.py` files say what a package holds (80 lines at most),
modules stay under 600 lines, and `forsy --help` imports none of the heavy machinery.

The graph is computed from the source (every `import`, `TYPE_CHECKING` ones too: a type-only
cycle is a cycle of the design). What is not there yet is listed below by name, so that the
lists can only shrink: a new cycle, private import, long `__init__` or long module fails, and
so does one listed here that has gone (strike it from the list).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from _paths import ROOT

SRC = ROOT / "src" / "forsy"

# (importer, the private module or name imported from another package)
KNOWN_PRIVATE: set[tuple[str, str]] = set()
INIT_LINES = 80
MODULE_LINES = 600
HEAVY = ("pydantic", "rapidfuzz", "litellm", "starlette", "jinja2", "uvicorn", "psycopg", "kingfisher",
         "datasets", "pyarrow", "ray", "playwright", "zstandard", "forsy.run", "forsy.models", "forsy.store",
         "forsy.web", "forsy.redact", "forsy.llm", "forsy.sweep")


def modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        parts = list(p.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODS = modules()


def package_of(mod: str) -> str:
    return mod if MODS[mod].name == "__init__.py" else mod.rsplit(".", 1)[0]


def imports(mod: str) -> list[tuple[str, str]]:
    """(module imported, name imported or "") of every forsy import in `mod`."""
    out = []
    pkg = package_of(mod).split(".")
    for node in ast.walk(ast.parse(MODS[mod].read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            if base.split(".")[0] != "forsy":
                continue
            for a in node.names:
                full = f"{base}.{a.name}"
                out.append((full, "") if full in MODS else (base, a.name))
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.split(".")[0] == "forsy"]
    return [(m, n) for m, n in out if m in MODS]


GRAPH = {m: {t for t, _ in imports(m)} for m in MODS}


def cycles() -> set[tuple[str, ...]]:
    """The strongly connected groups of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.add(tuple(sorted(group)))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # given back: other tests count on the default depth (deep JSON, deep values)
    try:
        for v in MODS:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_imports_only_go_down() -> None:
    assert cycles() == set(), "import cycles"


def test_no_private_name_is_imported_from_another_package() -> None:
    found = set()
    for mod in MODS:
        for target, name in imports(mod):
            private = [p for p in [*target.split(".")[1:], name] if p.startswith("_") and not p.startswith("__")]
            owner = package_of(target)
            if private and not (mod == owner or mod.startswith(owner + ".")):
                found.add((mod, f"{target}.{name}" if name.startswith("_") else target))
    assert found - KNOWN_PRIVATE == set(), "private names imported across packages"
    assert KNOWN_PRIVATE - found == set(), "gone: strike them from KNOWN_PRIVATE"


def test_modules_and_package_inits_stay_small() -> None:
    def lines(p: Path) -> int:
        return len(p.read_text("utf-8").splitlines())

    long_inits = sorted(m for m, p in MODS.items() if p.name == "__init__.py" and lines(p) > INIT_LINES)
    long_modules = sorted(m for m, p in MODS.items() if p.name != "__init__.py" and lines(p) > MODULE_LINES)
    assert long_inits == [], long_inits
    assert long_modules == [], long_modules


def test_forsy_help_imports_no_heavy_module() -> None:
    code = ("import sys, io, contextlib\nsys.argv = ['forsy', '--help']\nfrom forsy._launch import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main()\n    except SystemExit:\n        pass\n"
            "print('\\n'.join(sorted(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    loaded = set(r.stdout.split())
    heavy = sorted(m for m in loaded if m in HEAVY or m.split(".")[0] in HEAVY and "." not in m)
    assert heavy == [], heavy
    assert "forsy.cli" in loaded  # the check ran the real command, as its entry point starts it
