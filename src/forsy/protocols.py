"""The two pluggable parts of a run, as protocols: what masks text, and what answers a prompt.

`run.process` and the model pass call a redactor and a completion callable through these,
so mypy strict checks every call and a library caller (or a test) can pass its own. The real
redactor is `forsy.redact.Redactor`; `NoRedactor` is what `--no-redact` uses; the completion
callable is litellm's `completion` unless one is injected (`RetraceOptions.llm_client`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class Redactor(Protocol):
    """What a run and the model pass ask of a redactor (one consistent mapping per run)."""

    def redact(self, text: str) -> str: ...

    def redact_many(self, texts: Sequence[str]) -> list[str]: ...

    def redact_value(self, value: T) -> T: ...

    def redact_values(self, values: Sequence[Any]) -> list[Any]: ...

    def scan(self, text: str) -> Sequence[object]: ...

    def rescan(self, value: Any) -> Any | None: ...

    def know_printed(self, pairs: Iterable[tuple[str, str]]) -> None: ...

    def issued(self) -> frozenset[str]: ...

    def report(self) -> dict[str, Any]: ...


class NoRedactor:
    """`--no-redact`: every text passes unchanged, and the report says redaction was off."""

    enabled = False

    def redact(self, text: str) -> str:
        return text

    def redact_many(self, texts: Sequence[str]) -> list[str]:
        return list(texts)

    def redact_value(self, value: T) -> T:
        return value

    def redact_values(self, values: Sequence[Any]) -> list[Any]:
        return list(values)

    def scan(self, text: str) -> Sequence[object]:
        return ()

    def rescan(self, value: Any) -> Any | None:
        return None

    def know_printed(self, pairs: Iterable[tuple[str, str]]) -> None:
        return None

    def issued(self) -> frozenset[str]:
        return frozenset()

    def report(self) -> dict[str, Any]:
        return {"enabled": False, "note": "redaction disabled with --no-redact"}


class Completion(Protocol):
    """A chat-completion call (litellm's `completion`, or a test's stand-in).

    Called with keyword arguments only: `model`, `messages` and request options (`timeout`,
    `response_format`, `api_base`, …). It returns an OpenAI-shaped response, as a dict or as an
    object with `.choices[0].message.content` and `.usage`; `forsy.llm` reads either shape and
    treats anything else as a malformed answer. Transient failures are raised as exceptions
    (sorted by `forsy.llm._call.failure_kind`).
    """

    def __call__(self, *, model: str, messages: list[dict[str, str]], **options: object) -> object: ...


__all__ = ["Completion", "NoRedactor", "Redactor"]
