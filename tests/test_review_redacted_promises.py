"""The promises of `forsy.review.redacted`: no raw secret on a page. A record is shown masked by
the redactor the trace was made with (rebuilt from its log: the same placeholder for the same
value), or not at all when the log is not here or cannot be read again; text a reviewer types is
masked before it is stored, new placeholders numbered after the trace's own, typed ones kept
(and any other text kept as typed, private-use characters included)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from _paths import SAMPLES
from _review import planted_log, put
from forsy import run
from forsy.errors import InputError
from forsy.review import redacted
from forsy.review.redacted import cached_redactor, log_of, mask_typed, session_redactor
from forsy.review.source import LoadedTrace, from_store
from forsy.store import open_store
from secretgen import SecretGen

GEN = SecretGen(seed=11)
TOKEN = GEN.github()
PASSWORD = GEN.password() + "Zq9"


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    """The cache is the process's: every test starts (and leaves) it empty."""
    redacted._CACHE.clear()
    yield
    redacted._CACHE.clear()


def loaded(manifest: dict[str, Any], roots: list[Path], unit_path: str | None = None,
           sources: dict[str, str] | None = None, trace_id: str = "forsy_t") -> LoadedTrace:
    row = None if unit_path is None else SimpleNamespace(unit_path=unit_path)
    return LoadedTrace(trace_id, {}, {}, {"sources": sources or {}}, manifest, roots, row)  # type: ignore[arg-type]


# ------------------------------------------------------------------ mask_typed


def test_a_pasted_secret_is_numbered_after_the_traces_own_and_typed_placeholders_are_kept() -> None:
    trace = {"steps": [{"input": "[CREDENTIAL_2] then [CREDENTIAL_5]"}], "x": "[PATH_USER_1] [EMAIL_3]"}
    typed = (f"keep [CREDENTIAL_2] and [CREDENTIAL_9]; new {TOKEN}, again {TOKEN}, DB_PASSWORD={PASSWORD} "
             "in /home/marguerite/src and [PATH_USER_1]")
    assert mask_typed(typed, trace) == ("keep [CREDENTIAL_2] and [CREDENTIAL_9]; new [CREDENTIAL_6], again "
                                        "[CREDENTIAL_6], DB_PASSWORD=[CREDENTIAL_7] in /home/[PATH_USER_2]/src and "
                                        "[PATH_USER_1]")


def test_a_trace_with_no_placeholders_numbers_from_one() -> None:
    assert mask_typed(f"token {TOKEN}", {"task": "nothing secret", "steps": []}) == "token [CREDENTIAL_1]"
    assert mask_typed(f"token {TOKEN}", {"task": "[EMAIL_4]"}) == "token [CREDENTIAL_1]"
    assert mask_typed(f"token {TOKEN}", {"task": "[CREDENTIAL_0]"}) == "token [CREDENTIAL_1]"  # after 0: 1


def test_the_highest_of_each_kind_counts_not_the_last_nor_the_first() -> None:
    trace = {"a": "[CREDENTIAL_3]", "b": "[CREDENTIAL_12]", "c": "[CREDENTIAL_4]", 7: "[PATH_USER_2]"}  # an int key
    assert mask_typed(f"{TOKEN} /home/marguerite/x", trace) == "[CREDENTIAL_13] /home/[PATH_USER_3]/x"


def test_plain_and_hostile_text_is_kept_as_typed() -> None:
    for text in ("Reads <b>slug.py</b> & runs `pytest -q`.", "  spaced  \n lines ", "[CREDENTIAL_x] [NOTE_1]",
                 "\ue0000\ue001", "a \ue000 b \ue001 c", "[CREDENTIAL_1] \ue0000\ue001 \ue001\ue0001\ue001"):
        assert mask_typed(text, {"x": "[CREDENTIAL_1]"}) == text, repr(text)


def test_text_holding_every_private_use_character_of_the_first_plane_is_kept() -> None:
    crowded = "".join(map(chr, range(0xE000, 0xF900)))
    assert mask_typed(crowded + " [CREDENTIAL_1]", {}) == crowded + " [CREDENTIAL_1]"
    assert mask_typed(crowded + f" {TOKEN}", {"x": "[CREDENTIAL_1]"}) == crowded + " [CREDENTIAL_2]"


# ------------------------------------------------------------------ log_of


def test_the_log_is_the_stored_unit_path_when_it_is_a_file(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_text("{}\n")
    other = tmp_path / "roots"
    (other / "b.jsonl").parent.mkdir()
    (other / "b.jsonl").write_text("{}\n")
    man = {"sources": [{"path": "b.jsonl"}]}
    assert log_of(loaded(man, [other], unit_path=str(log))) == log
    # the stored path gone (or empty): the manifest's first source under the roots
    assert log_of(loaded(man, [other], unit_path=str(tmp_path / "gone.jsonl"))) == (other / "b.jsonl").resolve()
    assert log_of(loaded(man, [other], unit_path="")) == (other / "b.jsonl").resolve()
    assert log_of(loaded(man, [other], unit_path=str(tmp_path))) == (other / "b.jsonl").resolve()  # a folder


def test_the_manifest_source_is_looked_for_under_every_root_and_never_outside(tmp_path: Path) -> None:
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    for r in (r1, r2):
        r.mkdir()
    (r2 / "s.jsonl").write_text("{}\n")
    (tmp_path / "outside.jsonl").write_text("{}\n")
    assert log_of(loaded({"sources": [{"path": "s.jsonl"}]}, [r1, r2])) == (r2 / "s.jsonl").resolve()
    assert log_of(loaded({"sources": [{"path": "s.jsonl"}, {"path": "x"}]}, [r1])) is None
    assert log_of(loaded({"sources": [{"path": "../outside.jsonl"}]}, [r1])) is None
    assert log_of(loaded({"sources": [{"path": "."}]}, [r2])) is None  # the root itself: no file
    for man in ({}, {"sources": []}, {"sources": None}, {"sources": ["s.jsonl"]}, {"sources": [{"path": 3}]},
                {"sources": [{"name": "s.jsonl"}]}):
        assert log_of(loaded(man, [r2])) is None, man
    # only the first source is looked for
    assert log_of(loaded({"sources": [{"path": "nope"}, {"path": "s.jsonl"}]}, [r2])) is None


# ------------------------------------------------------------------ session_redactor


def test_a_log_not_here_or_not_readable_shows_nothing_and_says_why(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        session_redactor(loaded({"sources": [{"path": "nowhere.jsonl"}]}, [tmp_path]))
    assert e.value.message == "the log is not on this machine" and e.value.path is None
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"hello": 1}\n')
    with pytest.raises(InputError) as e:
        session_redactor(loaded({"sources": [{"path": "notes.jsonl"}]}, [tmp_path]))
    assert e.value.message.startswith("the log cannot be read again to redact its records (UnsupportedFormat: ")
    assert e.value.message.endswith(")") and e.value.path == str(bad.resolve())


def test_a_log_holding_no_session_shows_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s.jsonl").write_text("{}\n")
    monkeypatch.setattr(run, "read_sessions", lambda paths: iter(()))
    with pytest.raises(InputError) as e:
        session_redactor(loaded({"sources": [{"path": "s.jsonl"}]}, [tmp_path]))
    assert e.value.message == "the log holds no session" and e.value.path == str((tmp_path / "s.jsonl").resolve())


def test_a_failure_while_redacting_is_a_refusal_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "s.jsonl").write_text("{}\n")

    def broken(paths: object) -> Iterator[object]:
        raise KeyError("lost")
        yield

    monkeypatch.setattr(run, "read_sessions", broken)
    with pytest.raises(InputError) as e:
        session_redactor(loaded({"sources": [{"path": "s.jsonl"}]}, [tmp_path]))
    assert e.value.message == "the log cannot be read again to redact its records (KeyError: 'lost')"


@pytest.fixture
def planted(tmp_path: Path) -> tuple[LoadedTrace, list[str]]:
    log, secrets = planted_log(tmp_path / "logs")
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        d = from_store(st, put(st, log))
    finally:
        st.close()
    return d, secrets


def test_the_rebuilt_redactor_gives_the_traces_placeholders(planted: tuple[LoadedTrace, list[str]]) -> None:
    d, [token, password, aws] = planted
    # the trace: "My token is [CREDENTIAL_1] and DB_PASSWORD=[CREDENTIAL_2]", "AWS_SECRET_ACCESS_KEY=[CREDENTIAL_3]"
    red = session_redactor(d)
    assert red.redact(f"{aws} {password} {token} /home/marguerite/") == (
        "[CREDENTIAL_3] [CREDENTIAL_2] [CREDENTIAL_1] /home/[PATH_USER_1]/")


def test_the_session_of_the_trace_is_the_one_rebuilt(planted: tuple[LoadedTrace, list[str]],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    d, [_, _, aws] = planted
    codex = SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
    [other] = list(run.read_sessions([codex]))
    other_id = run.process(other, run.RetraceOptions(), run.make_redactor([other])).manifest.session_id
    assert other_id != d.manifest["session_id"]
    read = run.read_sessions
    order = [Path(d.row.unit_path), codex]  # type: ignore[union-attr]
    # sessions read afresh each time (a session is redacted in place by its retrace)
    monkeypatch.setattr(run, "read_sessions", lambda paths: (s for p in order for s in read([p])))
    said = f"AWS_SECRET_ACCESS_KEY={aws}"
    # the trace's own session is the first: its redactor knows the AWS secret as [CREDENTIAL_3]
    assert session_redactor(d).redact(said) == "AWS_SECRET_ACCESS_KEY=[CREDENTIAL_3]"
    # a trace of the second session: the second's redactor, which never saw it (its first credential)
    d.manifest["session_id"] = other_id
    assert session_redactor(d).redact(said) == "AWS_SECRET_ACCESS_KEY=[CREDENTIAL_1]"
    # no session of that id (masked differently): the file's first
    d.manifest["session_id"] = "no such session"
    assert session_redactor(d).redact(said) == "AWS_SECRET_ACCESS_KEY=[CREDENTIAL_3]"
    order.reverse()
    assert session_redactor(d).redact(said) == "AWS_SECRET_ACCESS_KEY=[CREDENTIAL_1]"


# ------------------------------------------------------------------ cached_redactor


def test_the_cache_keeps_the_last_eight_by_trace_and_log_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def fake(d: LoadedTrace) -> Any:
        made.append(d.trace_id)
        return SimpleNamespace(name=f"{d.trace_id}#{len(made)}", issued=frozenset)

    monkeypatch.setattr(redacted, "session_redactor", fake)

    def get(tid: str, sha: str = "a") -> str:
        return cached_redactor(loaded({}, [], sources={"s.jsonl": sha}, trace_id=tid)).name  # type: ignore[attr-defined, no-any-return]

    assert get("t0") == "t0#1" and get("t0") == "t0#1" and made == ["t0"]
    assert get("t0", "b") == "t0#2"  # the log changed: read again
    assert get("t0", "a") == "t0#1"
    for i in range(1, 7):
        get(f"t{i}")
    assert len(redacted._CACHE) == 8 and made == ["t0", "t0", *[f"t{i}" for i in range(1, 7)]]
    assert get("t0", "b") == "t0#2"  # used last: the oldest is now ("t0", "a")
    get("t7")
    assert len(redacted._CACHE) == 8 and ("t0", repr([("s.jsonl", "a")])) not in redacted._CACHE
    assert get("t0", "b") == "t0#2" and get("t1") == "t1#3"
    assert get("t0", "a") == "t0#10"  # evicted: made again
    # the key's sources are sorted: their order in provenance.json does not matter
    two = {"x.jsonl": "1", "a.jsonl": "2"}
    k1 = cached_redactor(loaded({}, [], sources=two, trace_id="s")).name  # type: ignore[attr-defined]
    k2 = cached_redactor(loaded({}, [], sources=dict(reversed(two.items())), trace_id="s")).name  # type: ignore[attr-defined]
    assert k1 == k2


def test_a_refusal_is_not_cached(tmp_path: Path) -> None:
    d = loaded({"sources": [{"path": "later.jsonl"}]}, [tmp_path])
    with pytest.raises(InputError):
        cached_redactor(d)
    assert redacted._CACHE == {}
    (tmp_path / "later.jsonl").write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    red = cached_redactor(d)
    assert cached_redactor(d) is red and redacted._CACHE
