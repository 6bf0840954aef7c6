"""Every labelled secret the project has, in the form a rule finds it, for "known once, masked
everywhere": a secret masked in one text of a session must be masked where it stands bare in
another, before or after it (tests/test_redact_known_wide.py).

    forms = labelled_forms()    # list[Form]: where it comes from, the form's texts, one secret
    python tests/known_forms.py # how many forms leak the bare secret, by rule (the rule of the hit)

Sources: the held-out sets (tests/redaction_heldout), the structure rules' samples, the labelled
command lines (cmdline_secrets.py), the planted snippets (secretgen.py, bare and in contexts),
and the rules' own tests (tests/test_redact*.py): each module's secret constants (`PW`, `TOKEN`,
a table's `SECRETS`…) wherever its listed samples hold them, or fill their `{}` templates.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
for _p in (TESTS, TESTS / "redaction_heldout"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from heldout import heldout_cases  # noqa: E402
from heldout2 import heldout2_cases  # noqa: E402
from heldout3 import heldout3_cases  # noqa: E402
from heldout4 import heldout4_cases  # noqa: E402
from heldout5 import heldout5_cases  # noqa: E402
from heldout6 import heldout6_cases  # noqa: E402

from cmdline_secrets import CmdlineGen  # noqa: E402
from forsy.redact import Redactor  # noqa: E402
from forsy.redact._known import distinctive  # noqa: E402
from redaction_structure_samples import structure_cases  # noqa: E402
from secretgen import SecretGen, forms  # noqa: E402


@dataclass(frozen=True)
class Form:
    """One labelled secret in the texts (a session's, or records) where a rule finds it, and all
    the secrets labelled in them."""

    source: str
    texts: tuple[Any, ...]
    secret: str
    secrets: tuple[str, ...] = ()


def labelled_forms() -> list[Form]:
    """Every labelled (texts, secret) the project has, each secret once per form."""
    out: list[Form] = []
    sets = (("heldout", heldout_cases(3)), ("heldout2", heldout2_cases(3)), ("heldout3", heldout3_cases(3)),
            ("heldout4", heldout4_cases(3)), ("heldout5", heldout5_cases(3)), ("heldout6", heldout6_cases(3)),
            ("structure", structure_cases(5)))
    for name, cases in sets:
        out += [Form(f"{name}:{c.category}/{c.form}", tuple(c.texts), s, tuple(c.secrets))
                for c in cases for s in c.secrets]
    out += [Form(f"cmdline:{c.template}", (c.text,), s, c.secrets)
            for c in CmdlineGen(seed=7).must_mask() for s in c.secrets]
    gen = SecretGen(seed=7)
    planted = gen.planted(300, contexts=False) + gen.planted(300, contexts=True)
    out += [Form(f"secretgen:{p.kind}", (p.text,), s, p.secrets) for p in planted for s in p.secrets]
    for path in sorted(TESTS.glob("test_redact*.py")):
        out += _module_forms(path.stem)
    values = [gen.password() for _ in range(3)] + [gen.github(), gen.openai(), gen.jwt()]
    out += [Form(f"records:{name}", (make(v),), v, (v,)) for name, make in RECORDS.items() for v in values]
    seen: set[tuple[str, str]] = set()
    unique = []
    for f in out:
        key = (json.dumps(f.texts, ensure_ascii=False), f.secret)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


# records whose field a rule masks whole, with what stands around the secret in it
RECORDS: dict[str, Any] = {
    "header": lambda v: {"headers": {"Authorization": f"Bearer {v}"}},
    "HAR pair, scheme": lambda v: {"name": "Authorization", "value": f"Bearer {v}"},
    "env pair": lambda v: {"name": "DB_PASSWORD", "value": v},
    "quoted field": lambda v: {"env": {"DB_PASSWORD": f"'{v}'"}},
    "blanks around": lambda v: {"password": f" {v} "},
    "user:secret field": lambda v: {"auth": f"bob:{v}"},
    "cookie header": lambda v: {"headers": {"Cookie": f"session={v}; theme=dark"}},
    "secret field": lambda v: {"client_secret": v},
}


def _module_forms(name: str) -> list[Form]:
    """A test module's samples that hold one of its secret constants (or fill a `{}` with one)."""
    if name == "test_redact_known_wide":
        return []
    module = importlib.import_module(name)
    secrets = _secret_constants(module)
    if not secrets:
        return []
    out = []
    for attr, value in vars(module).items():
        if attr.startswith("_") or not attr.isupper() or isinstance(value, str):
            continue
        for text in _strings(value):
            if "{}" in text and text.count("{}") == 1 and not any(s in text for s in secrets):
                out += [Form(f"{name}:{attr}", (text.replace("{}", s),), s, (s,)) for s in secrets]
            else:
                held = tuple(s for s in secrets if s in text)
                out += [Form(f"{name}:{attr}", (text,), s, held) for s in held if text != s]
    return out


def _secret_constants(module: Any) -> list[str]:
    """The module's values planted as secrets: distinctive strings named in capitals (`PW`,
    `TOKEN`, `SECRET`), or the items of a `SECRETS` tuple."""
    out = [v for k, v in vars(module).items() if k.isupper() and not k.startswith("_") and isinstance(v, str)
           and "\n" not in v and "{" not in v and distinctive(v)]
    listed = getattr(module, "SECRETS", ())
    if isinstance(listed, tuple | list):
        out += [v for v in listed if isinstance(v, str) and distinctive(v)]
    return list(dict.fromkeys(out))


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < 3 and isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _strings(v, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in value.values():
            yield from _strings(v, depth + 1)


# ---------------------------------------------------------------- the session around a form
def bare(secret: str) -> tuple[str, str]:
    """The secret written bare: in an ordinary sentence, and alone on a line."""
    return f"ok, using {secret} now", f"here it is:\n{secret}\n"


def session(form: Form) -> list[str]:
    """Texts in a session's order: the bare secret before the form, the form, the bare secret after."""
    return [*bare(form.secret), *form.texts, *bare(form.secret)]


def leaks(secret: str, values: Iterable[Any]) -> bool:
    return any(f in t for t in map(_text, values) for f in forms(secret))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def covered(form: Form) -> bool:
    """The rules mask the secret in its form, each time whole (a mask cut short, `-pass X&Y`
    masked up to `&`, is a rule's miss, not what learning can mend)."""
    red = Redactor()
    texts = [t for t in form.texts if isinstance(t, str)]
    if len(texts) < len(form.texts):  # records: what redact_value masks is not in `scan`
        return not leaks(form.secret, red.redact_values(list(form.texts)))
    found = False
    for text in texts:
        hits = red.scan(text)
        for written in forms(form.secret):
            i = text.find(written)
            while i >= 0:
                found = True
                if not any(h.start <= i and i + len(written) <= h.end for h in hits):
                    return False
                i = text.find(written, i + 1)
    return found


# masked whole, and not learnt alone: a password hash's digest without its salt and scheme
# (`$6$salt$digest`) is not what stands bare elsewhere
NOT_SPREAD = ("structure:password-hash-line/",)


def expected(form: Form) -> bool:
    """The bare secret must be masked around the form: the form masks it, and it may spread."""
    return distinctive(form.secret) and not form.source.startswith(NOT_SPREAD) and covered(form)


def leaked(form: Form) -> list[int]:
    """Which texts of the form's session still hold the secret."""
    out = Redactor().redact_values(session(form))
    return [i for i, t in enumerate(out) if leaks(form.secret, [t])]


def context(form: Form) -> list[str]:
    """The form's texts with every secret labelled in them cut out: what is not a secret."""
    out = []
    for text in form.texts:
        if isinstance(text, str):
            for s in sorted(form.secrets or (form.secret,), key=len, reverse=True):
                for written in sorted(forms(s), key=len, reverse=True):
                    text = text.replace(written, " ")
            out.append(text)
    return out


def rule_of(form: Form) -> str:
    """The rule of the hit that masks the secret in its form (the first text holding it)."""
    red = Redactor()
    for text in form.texts:
        if not isinstance(text, str):
            return "a record's field"
        for written in sorted(forms(form.secret), key=len, reverse=True):
            i = text.find(written)
            if i < 0:
                continue
            for h in red.scan(text):
                if h.start <= i < h.end:
                    wide = "" if (h.start, h.end) == (i, i + len(written)) else " (wider)"
                    return h.rule + wide
    return "?"


def main() -> None:
    by_rule: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    left: Counter[str] = Counter()
    show = "--show" in sys.argv
    for form in labelled_forms():
        if not distinctive(form.secret):
            left["not distinctive: masked only where a rule finds it"] += 1
            continue
        if form.source.startswith(NOT_SPREAD):
            left["a hash's digest (NOT_SPREAD)"] += 1
            continue
        if not covered(form):
            left["not masked whole in its form"] += 1
            continue
        rule = rule_of(form)
        by_rule[rule] += 1
        if leaked(form):
            failed[rule] += 1
            if show:
                print(f"  LEAK {form.source}: {form.texts!r} / {form.secret!r}"[:600])
    total = sum(by_rule.values())
    print(f"{sum(failed.values())} of {total} forms leak the bare secret; left out: {dict(left)}")
    for rule, n in sorted(by_rule.items(), key=lambda kv: (-failed[kv[0]], kv[0])):
        print(f"  {rule}: {failed[rule]} of {n}")


if __name__ == "__main__":
    main()
