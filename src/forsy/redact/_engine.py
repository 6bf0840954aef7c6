"""The kingfisher secret engine (offline, in-process), and the anchors it reports for forsy's rules."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, NamedTuple, Protocol

from ..errors import RedactionError
from ._native import NATIVE_ANCHORS_ANY_CASE, NATIVE_ANCHORS_CASED
from .addresses import ADDRESS_SHAPES, POSTCODE_ANCHOR_PATTERN
from .calls import CALL_SHAPES
from .encoded import ENCODED_SHAPES
from .finance import NUMBER_ANCHOR_PATTERN
from .manifests import MANIFEST_SHAPES
from .namefields import NAME_FIELD_SHAPES
from .national import NATIONAL_SHAPES
from .otp import OTP_SHAPES
from .pairs import PAIR_ANCHOR_PATTERN
from .people import PEOPLE_SHAPES
from .personal import PHONE_ANCHOR_PATTERN
from .places import PLACE_SHAPES
from .prefixed import PREFIX_ANCHOR_PATTERN
from .seeds import SEED_ANCHOR_PATTERN

ANCHOR_RULE = "custom.forsy-anchor.tokens"
PHONE_ANCHOR_RULE = "custom.forsy-anchor.phone"
NUMBER_ANCHOR_RULE = "custom.forsy-anchor.number"
PAIR_ANCHOR_RULE = "custom.forsy-anchor.pair"
PREFIX_ANCHOR_RULE = "custom.forsy-anchor.prefix"
SEED_ANCHOR_RULE = "custom.forsy-anchor.seed"
POSTCODE_ANCHOR_RULE = "custom.forsy-anchor.postcode"
# one engine rule per shape a rule looks for (`custom.forsy-anchor.shape.<name>`): where it may stand
SHAPE_ANCHOR_RULE = "custom.forsy-anchor.shape"
SHAPE_ANCHOR_PATTERNS: dict[str, str] = {**CALL_SHAPES, **PLACE_SHAPES, **ENCODED_SHAPES, **PEOPLE_SHAPES,
                                         **NATIONAL_SHAPES, **NAME_FIELD_SHAPES, **MANIFEST_SHAPES, **OTP_SHAPES,
                                         **ADDRESS_SHAPES}
_ANCHOR_SETTINGS = {"confidence": "medium", "min_entropy": 0}


# ---------------------------------------------------------------- engine
class EngineHit(NamedTuple):
    """One engine finding: rule id and byte offsets into the scanned UTF-8 data."""

    rule: str
    start: int
    end: int


class SecretEngine(Protocol):
    """What the redactor needs from a detection engine (injectable for tests).

    `reports_anchors`: the engine also reports where token prefixes occur (rule ANCHOR_RULE),
    so the token rules need not search for them; False makes the rules search themselves.
    """

    @property
    def name(self) -> str: ...

    @property
    def reports_anchors(self) -> bool: ...

    def scan(self, data: bytes) -> Sequence[EngineHit]: ...


def default_cache_dir() -> Path:
    """Where kingfisher keeps its compiled rules: forsy's own user cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "forsy" / "kingfisher-rules"


class KingfisherEngine:
    """The kingfisher scanner over in-memory bytes. Offline: only Rules and Scanner are used.

    Building the rules takes ~4 s the first time and ~0.4 s once cached in `cache_dir`;
    use `shared_engine()` to build it once per process.
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        try:
            import kingfisher_sdk as kf

            folder = _cache_folder(cache_dir)
            with tempfile.TemporaryDirectory(prefix="forsy-rules-") as tmp:
                anchors = _anchor_rules_file(folder or Path(tmp))
                rules = kf.Rules([anchors], confidence="low", cache=folder is not None, cache_dir=folder)
            if folder is not None and rules.cache_status in ("stored", "loaded"):
                with contextlib.suppress(OSError):  # only a word said before the next build
                    _compiled_mark(folder, anchors).touch()
            # redact=True: findings carry offsets but not the secret, so no extra copies live on
            self._scanner = kf.Scanner(rules, base64=True, dedup=False, redact=True)
            self._name = f"kingfisher {kf.__version__}"
        except Exception as exc:  # any failure to start means nothing can be scanned
            raise RedactionError(f"secret scanner could not start: {type(exc).__name__}: {exc}") from exc

    @property
    def name(self) -> str:
        return self._name

    @property
    def reports_anchors(self) -> bool:
        return True

    def scan(self, data: bytes) -> list[EngineHit]:
        out = []
        for f in self._scanner.scan(data):
            loc = f.location
            out.append(EngineHit(f.rule_id, loc["start_offset"], loc["end_offset"]))
        return out


def _anchor_rules_file(folder: Path) -> Path:
    """Kingfisher rules reporting where forsy's rare anchor literals occur (NATIVE_ANCHORS).

    Searching ~45 literals with bytes.find costs more than the whole native scan; the
    engine finds them all in its single pass (Hyperscan), and they are rare, so cheap to report.
    """
    def alternation(literals: Iterable[str]) -> str:
        return "|".join(re.sub(r"([.\\/\t()\[\]{}$^*+?|])", lambda m: "\\t" if m.group() == "\t" else "\\" + m.group(),
                               lit) for lit in literals)

    # lower/Capitalised/UPPER rather than (?i): the engine scans 1.5x faster
    any_case = [v for lit in NATIVE_ANCHORS_ANY_CASE for v in dict.fromkeys((lit, lit.capitalize(), lit.upper()))]
    rules = [
        {"name": "forsy anchors", "id": ANCHOR_RULE,
         "pattern": f"({alternation([*NATIVE_ANCHORS_CASED, *any_case])})"},
        {"name": "forsy phone anchors", "id": PHONE_ANCHOR_RULE, "pattern": PHONE_ANCHOR_PATTERN},
        {"name": "forsy number anchors", "id": NUMBER_ANCHOR_RULE, "pattern": NUMBER_ANCHOR_PATTERN},
        {"name": "forsy pair anchors", "id": PAIR_ANCHOR_RULE, "pattern": PAIR_ANCHOR_PATTERN},
        {"name": "forsy prefix anchors", "id": PREFIX_ANCHOR_RULE, "pattern": PREFIX_ANCHOR_PATTERN},
        {"name": "forsy seed phrase anchors", "id": SEED_ANCHOR_RULE, "pattern": SEED_ANCHOR_PATTERN},
        {"name": "forsy postcode anchors", "id": POSTCODE_ANCHOR_RULE, "pattern": POSTCODE_ANCHOR_PATTERN},
        *({"name": f"forsy {name} anchors", "id": f"{SHAPE_ANCHOR_RULE}.{name}", "pattern": pattern}
          for name, pattern in SHAPE_ANCHOR_PATTERNS.items()),
    ]
    text = "rules:\n" + "".join(
        "  - " + "\n    ".join(f"{k}: {json.dumps(v)}" for k, v in {**r, **_ANCHOR_SETTINGS}.items())
        + "\n" for r in rules)
    path = folder / f"forsy-anchors-{hashlib.sha256(text.encode()).hexdigest()[:16]}.yml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return path


def _private_dir(folder: Path) -> bool:
    """Create the cache folder, each folder made owner-only (`mkdir(parents=True)` gives the
    ones above it the umask's mode: group-writable under umask 002, which kingfisher does not
    trust); False if that is impossible (then no cache)."""
    try:
        for f in (*reversed(folder.parents), folder):
            if not f.is_dir():
                f.mkdir(mode=0o700)
        return folder.is_dir() and os.access(folder, os.W_OK)
    except OSError:
        return False


def _trusted(folder: Path) -> bool:
    """Whether kingfisher keeps its compiled rules in `folder`: not a link, and it and every
    folder above it (links followed) owned by this user or root, and writable by no one else
    unless sticky (as /tmp). It says nothing of a folder it does not trust ("bypassed") and
    compiles the rules again, ~5-15 s, on every run."""
    if not hasattr(os, "getuid"):
        return True
    me = os.getuid()
    try:
        if folder.is_symlink():
            return False
        above = folder.absolute().parent.resolve()
        for f in (folder, above, *above.parents):
            st = f.stat()
            if st.st_uid not in (me, 0) or (st.st_mode & 0o022 and not st.st_mode & 0o1000):
                return False
    except OSError:
        return False
    return True


def _cache_folder(cache_dir: Path | None) -> Path | None:
    """Where kingfisher will keep the compiled rules, made if needed: `cache_dir`, else the
    default folder or, when kingfisher would not trust that one (a home or `~/.cache` writable
    by a group, as umask 002 leaves them), an owner-only folder of this user's in the temporary
    folder; None when there is none (then the rules are compiled without a cache)."""
    candidates = [cache_dir] if cache_dir is not None else [default_cache_dir()]
    if cache_dir is None and hasattr(os, "getuid"):
        candidates.append(Path(tempfile.gettempdir()) / f"forsy-{os.getuid()}" / "kingfisher-rules")
    return next((f for f in candidates if _private_dir(f) and _trusted(f)), None)


def _compiled_mark(folder: Path, anchors: Path) -> Path:
    """The file that says kingfisher keeps these rules compiled in `folder` (its own cache files
    are named by a key of its own): one per version of forsy's anchors and of kingfisher."""
    import kingfisher_sdk as kf

    return folder / f"{anchors.stem}.kingfisher-{kf.__version__}.compiled"


RulesState = Literal["compiled", "to_compile", "every_run"]


def rules_state(cache_dir: Path | None = None) -> RulesState:
    """Whether building the engine will load compiled rules (`compiled`, under a second), compile
    them once for the next runs to load (`to_compile`, 10-20 s), or compile them on every run
    (`every_run`: no folder kingfisher would keep them in). Cheap: for saying so before a wait."""
    folder = _cache_folder(cache_dir)
    if folder is None:
        return "every_run"
    try:
        return "compiled" if _compiled_mark(folder, _anchor_rules_file(folder)).exists() else "to_compile"
    except (ImportError, OSError):
        return "to_compile"


_ENGINES: dict[Path | None, KingfisherEngine] = {}
_ENGINES_LOCK = threading.Lock()


def warm_engine(cache_dir: Path | None = None) -> None:
    """Start building the shared engine in a background thread, if no one has: loading the
    rules (~0.3 s, native, without the GIL) then overlaps reading the log. The first
    `shared_engine` call waits for it; a failure here is met again, and raised, there."""
    with _WARM_LOCK:  # not _ENGINES_LOCK: a build holds that one
        if cache_dir in _ENGINES or cache_dir in _WARMING:
            return
        _WARMING.add(cache_dir)
    threading.Thread(target=_warm, args=(cache_dir,), name="forsy-engine-warm", daemon=True).start()


def _warm(cache_dir: Path | None) -> None:
    try:
        shared_engine(cache_dir)
    except RedactionError:
        pass  # shared_engine raises it again when the redactor asks
    finally:
        with _WARM_LOCK:
            _WARMING.discard(cache_dir)


_WARMING: set[Path | None] = set()
_WARM_LOCK = threading.Lock()


def _after_fork() -> None:
    """A forked child has none of the parent's threads: a build under way there will never
    finish here, and its lock would never be released. Built engines stay (their memory is
    copied whole); anything else is built again when asked."""
    global _ENGINES_LOCK, _WARM_LOCK
    _ENGINES_LOCK, _WARM_LOCK = threading.Lock(), threading.Lock()
    _WARMING.clear()


os.register_at_fork(after_in_child=_after_fork)


def shared_engine(cache_dir: Path | None = None) -> KingfisherEngine:
    """One kingfisher engine per cache folder per process (rules are costly to build)."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(cache_dir)
        if engine is None:
            engine = _ENGINES[cache_dir] = KingfisherEngine(cache_dir)
        return engine

