"""Reviewer tokens, in process: a token is shown once and only its sha256 is stored; it names its
reviewer (white space folded) until revoked; an unknown token, one without the prefix, or a
revoked one names nobody; revoking names how many it revoked, and a name with no live token is
refused naming the reviewers that have one (a typo must not look like a revocation)."""

from __future__ import annotations

import hashlib

import pytest

from forsy.errors import InputError
from forsy.store import Store
from forsy.store.reviewers import (
    TOKEN_PREFIX,
    create_reviewer_token,
    reviewer_name,
    revoke_reviewer_tokens,
    verify_reviewer_token,
)

T0, T1 = "2026-03-02T09:00:00+00:00", "2026-03-02T11:00:00+00:00"



def _rows(store: Store) -> list[tuple[str, str, str, str | None]]:
    return [tuple(r) for r in store.conn.execute(  # type: ignore[attr-defined]
        "SELECT reviewer, token_sha256, created_at, revoked_at FROM reviewer_tokens ORDER BY id")]


def test_a_token_is_returned_once_and_only_its_hash_is_stored(store: Store) -> None:
    token = create_reviewer_token(store, "  Ada   Lovelace ", T0)
    assert token.startswith("forsy_rt_") and TOKEN_PREFIX == "forsy_rt_"
    assert len(token) == len("forsy_rt_") + 43  # 32 random bytes, URL-safe base64 without padding
    assert _rows(store) == [("Ada Lovelace", hashlib.sha256(token.encode()).hexdigest(), T0, None)]
    assert create_reviewer_token(store, "Ada Lovelace", T0) != token  # random, never the same twice


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_a_token_needs_a_name(store: Store, name: str) -> None:
    with pytest.raises(InputError, match="^a reviewer token needs the reviewer's name$"):
        create_reviewer_token(store, name, T0)
    assert _rows(store) == []


def test_a_token_names_its_reviewer_until_revoked(store: Store) -> None:
    ada = create_reviewer_token(store, "Ada\tLovelace", T0)
    bob = create_reviewer_token(store, "Bob", T0)
    assert verify_reviewer_token(store, ada) == "Ada Lovelace"
    assert verify_reviewer_token(store, bob) == "Bob"
    assert verify_reviewer_token(store, ada + "x") is None  # unknown
    assert revoke_reviewer_tokens(store, " Ada  Lovelace", T1) == 1  # found however it is spaced
    assert verify_reviewer_token(store, ada) is None
    assert verify_reviewer_token(store, bob) == "Bob"  # another reviewer's token untouched
    assert [(r[0], r[3]) for r in _rows(store)] == [("Ada Lovelace", T1), ("Bob", None)]


def test_a_token_without_the_prefix_names_nobody_even_when_its_hash_is_stored(store: Store) -> None:
    store.conn.execute(  # type: ignore[attr-defined]
        "INSERT INTO reviewer_tokens (reviewer, token_sha256, created_at) VALUES (?, ?, ?)",
        ("Eve", hashlib.sha256(b"plain-secret").hexdigest(), T0))
    assert verify_reviewer_token(store, "plain-secret") is None


def test_revoking_counts_every_live_token_of_the_name_and_no_other(store: Store) -> None:
    create_reviewer_token(store, "Ada", T0)
    create_reviewer_token(store, "Ada", T0)
    create_reviewer_token(store, "Bob", T0)
    assert revoke_reviewer_tokens(store, "Ada", T1) == 2
    assert [(r[0], r[3]) for r in _rows(store)] == [("Ada", T1), ("Ada", T1), ("Bob", None)]
    # revoked already: no live token of that name, and the reviewers that have one are named
    with pytest.raises(InputError) as e:
        revoke_reviewer_tokens(store, " Ada ", "2026-03-03T00:00:00+00:00")
    assert str(e.value) == "no live token of 'Ada'; reviewers with live tokens: 'Bob'"
    assert [r[3] for r in _rows(store)] == [T1, T1, None]  # the first revocation's time kept


def test_a_typo_is_refused_naming_every_live_reviewer_once_in_order(store: Store) -> None:
    for name in ("Zoe", "Ada", "Zoe"):
        create_reviewer_token(store, name, T0)
    with pytest.raises(InputError) as e:
        revoke_reviewer_tokens(store, "Adda", T1)
    assert str(e.value) == "no live token of 'Adda'; reviewers with live tokens: 'Ada', 'Zoe'"
    assert [r[3] for r in _rows(store)] == [None, None, None]


def test_a_store_without_live_tokens_says_none(store: Store) -> None:
    with pytest.raises(InputError) as e:
        revoke_reviewer_tokens(store, "Ada", T1)
    assert str(e.value) == "no live token of 'Ada'; reviewers with live tokens: none"


def test_a_name_is_folded_the_same_everywhere() -> None:
    assert reviewer_name("  Ada \t\n Lovelace  ") == "Ada Lovelace"
    assert reviewer_name("Ada") == "Ada"
    assert reviewer_name(" \t") == ""
