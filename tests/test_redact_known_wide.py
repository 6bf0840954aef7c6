"""Known once, masked everywhere, where a rule's mask is wider than the secret: every labelled
secret the project has (tests/known_forms.py), masked in the form a rule finds it, is masked where
it stands bare in the same session, before and after that form (`redact_values`, as
run.redaction.redact_session hands a session over). The mask may hold more than the secret (a key
block, a cookie's value running on, a field masked whole with its scheme or quotes, a decoded
span widened to whole escapes, a union of two rules' hits): the secret alone is learnt.

And precision: what is learnt is the secret, never what stood around it. The form's texts with
their secrets cut out (names, labels, schemes, the rest of the line) come out the same after the
form as alone."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from forsy.redact import NUMBERED_PLACEHOLDER_RE, Hit, Redactor
from forsy.redact._known import distinctive, learnt_values
from forsy.redact._merge import resolve
from known_forms import Form, context, covered, expected, labelled_forms, leaked, rule_of, session

FORMS = labelled_forms()
EXPECTED = [f for f in FORMS if expected(f)]

# forms whose context a rule masks after the form for a reason of its own, not learnt here
CONTEXT_MASKED = {
    # url-path-token masks the webhook's last path id as a token of its own (and learns it)
    "heldout:url_path/teams webhook": "the webhook's last id is a hit of url-path-token",
}


@cache
def _rules() -> tuple[str, ...]:
    return tuple(rule_of(f) for f in EXPECTED)


def test_the_forms_are_many_and_of_many_rules() -> None:
    """The measure is general: most forms expected, of many rules and sources, a good part of
    them masked wider than the secret (a key block, a cookie running on, a field with its scheme)."""
    assert len(EXPECTED) > 1500
    assert len({f.source.split(":")[0] for f in EXPECTED}) >= 10
    assert len(set(_rules())) > 40
    assert sum("wider" in r or r == "a record's field" for r in _rules()) > 700


def test_a_bare_secret_is_masked_around_every_form() -> None:
    """Before the form and after it, in a sentence and alone on a line (known_forms.session)."""
    failed: Counter[str] = Counter()
    examples: list[str] = []
    for form, rule in zip(EXPECTED, _rules(), strict=True):
        where = leaked(form)
        if where:
            failed[rule] += 1
            examples.append(f"{form.source}: {form.secret!r} in texts {where}")
    assert not failed, f"{sum(failed.values())} forms leak: {dict(failed)}; {examples[:5]}"


def _normal(text: str) -> str:
    return NUMBERED_PLACEHOLDER_RE.sub(lambda m: f"[{m.group(1)}]", text)


def test_what_stood_around_a_secret_is_not_learnt() -> None:
    """The names, labels, schemes and the rest of the line are not masked elsewhere."""
    changed = []
    for form in FORMS:
        ctx = context(form)
        if not ctx or form.source in CONTEXT_MASKED:
            continue
        alone = [_normal(t) for t in Redactor().redact_values(ctx)]
        after = [_normal(t) for t in Redactor().redact_values([*form.texts, *ctx])[len(form.texts):]]
        changed += [f"{form.source}: {a!r} -> {b!r}" for a, b in zip(alone, after, strict=True) if a != b]
    assert not changed, changed[:5]


def test_learning_first_is_the_same() -> None:
    """`learn` then `redact_value` of each (the other way a session is redacted) masks them too."""
    for form in EXPECTED[::7]:
        red = Redactor()
        texts = session(form)
        red.learn(texts)
        out = [red.redact_value(t) for t in texts]
        assert not any(form.secret in str(t) for t in out), form.source


def test_a_mask_cut_short_is_not_counted() -> None:
    """`-pass X&Y` masked up to `&`: the rule's miss, not a secret learnt wrong (left to it)."""
    cut = Form("x", ("vpncli connect -user bob -pass Office2005&Meadow -server vpn.corp.io",), "Office2005&Meadow")
    assert not covered(cut)


def test_merged_hits_keep_what_each_rule_found() -> None:
    """A wider span from one rule does not hide the precise one another found: the parts."""
    text = "vault kv patch app db=FYdua-5ZMs1SWOpQa"
    wide, exact = Hit(19, 39, "CREDENTIAL", "prose-secret"), Hit(22, 39, "CREDENTIAL", "cli-secret")
    (merged,) = resolve(text, [exact, wide])
    assert merged == Hit(19, 39, "CREDENTIAL", "prose-secret")
    assert set(merged.parts) == {(19, 39), (22, 39)}
    email = Hit(25, 30, "EMAIL", "email")  # not a secret's part: not learnt
    (merged,) = resolve(text, [wide, email])
    assert set(merged.parts) == {(19, 39)}


@pytest.mark.parametrize(("masked", "learnt", "not_learnt"), [
    ("db=FYdua-5ZMs1SWOpQa", "FYdua-5ZMs1SWOpQa", "db"),
    (":ZoMMu9Q~P4%Ies-u0b", "ZoMMu9Q~P4%Ies-u0b", ":"),
    ("pi0RCDD_tL_UCUGr3vUznbKmVxI437bE) and retried", "pi0RCDD_tL_UCUGr3vUznbKmVxI437bE", "retried"),
    ("Bearer Zq8vR3tY6wP1mK4nX7bL2cD9", "Zq8vR3tY6wP1mK4nX7bL2cD9", "Bearer"),
    ("'Tr0ub4dor&3zzQ'", "Tr0ub4dor&3zzQ", "'"),
    ("postgres://bob:Zx8Qw2Lp9Rt4Vb7N@db.internal:5432/app", "Zx8Qw2Lp9Rt4Vb7N", "db.internal"),
])
def test_the_secret_is_learnt_from_a_wider_mask(masked: str, learnt: str, not_learnt: str) -> None:
    spread = {v for v in learnt_values(masked, masked) if distinctive(v)}
    assert learnt in spread
    assert not any(not_learnt in v and learnt not in v for v in spread)


def test_a_key_blocks_labels_are_not_learnt() -> None:
    """Its body's lines are learnt, not its header lines, its BEGIN and END, its public part."""
    body = ["MIIEowIBAAKCAQEAx3Kq8vR3tY6wP1mK4nX7bL2cD9", "Zq8vR3tY6wP1mK4nX7bL2cD9MIIEowIBAAKCAQEAx3K"]
    block = ("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF\n\n"
             + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----")
    after = Redactor().redact_values([block, *body, "Proc-Type: 4,ENCRYPTED", "4,ENCRYPTED"])
    assert after[1:3] == ["[PRIVATE_KEY_2]", "[PRIVATE_KEY_3]"]
    assert after[3:] == ["Proc-Type: 4,ENCRYPTED", "4,ENCRYPTED"]
