"""Reviewer tokens: how the web UI knows who a reviewer is when it is reached from beyond
localhost. A token is made once, shown once, and only its sha256 is stored: a copy of the
store gives nobody a way in. Tokens are 256 random bits, so a plain sha256 (no slow hash)
cannot be turned back into one.

    token = create_reviewer_token(store, "alice", now)    # give it to alice
    verify_reviewer_token(store, token)                   # -> "alice" (None: unknown or revoked)
"""

from __future__ import annotations

import hashlib
import secrets

from ..errors import InputError
from . import Store
from .jobs import Sql

TOKEN_PREFIX = "forsy_rt_"  # tells a reviewer token apart from other secrets (and lets scanners find it)


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def reviewer_name(name: str) -> str:
    """A reviewer's name as stored and looked up: white space folded, so that the name given to
    `token revoke` finds the tokens `token add` made for it, however it was spaced."""
    return " ".join(name.split())


def create_reviewer_token(store: Store, reviewer: str, now: str) -> str:
    """A new token for `reviewer` (returned, never stored: only its hash is)."""
    if not reviewer_name(reviewer):
        raise InputError("a reviewer token needs the reviewer's name")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    Sql(store).x("INSERT INTO reviewer_tokens (reviewer, token_sha256, created_at) VALUES (?, ?, ?)",
                 (reviewer_name(reviewer), _sha(token), now))
    return token


def verify_reviewer_token(store: Store, token: str) -> str | None:
    """The reviewer a token belongs to; None when it is unknown or revoked."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    rows = Sql(store).q("SELECT reviewer FROM reviewer_tokens WHERE token_sha256 = ? AND revoked_at IS NULL",
                        (_sha(token),))
    return str(rows[0][0]) if rows else None


def revoke_reviewer_tokens(store: Store, reviewer: str, now: str) -> int:
    """Revoke every live token of `reviewer`; how many. None live for that name is an InputError
    naming the reviewers that have one (a typo must not look like a revocation)."""
    n = Sql(store).x("UPDATE reviewer_tokens SET revoked_at = ? WHERE reviewer = ? AND revoked_at IS NULL",
                     (now, reviewer_name(reviewer)))
    if n == 0:
        live = sorted({str(r[0]) for r in Sql(store).q(
            "SELECT reviewer FROM reviewer_tokens WHERE revoked_at IS NULL", ())})
        raise InputError(f"no live token of {reviewer_name(reviewer)!r}; reviewers with live tokens: "
                         + (", ".join(repr(x) for x in live) or "none"))
    return n


__all__ = ["TOKEN_PREFIX", "create_reviewer_token", "reviewer_name", "revoke_reviewer_tokens",
           "verify_reviewer_token"]
