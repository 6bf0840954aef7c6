"""One chunk's call: transient failures retried with backoff, a bad answer asked once more.

* Transient (429, 5xx, connection errors): retried by tenacity with exponential backoff;
  litellm is told `max_retries=0` so the two never stack.
* A timeout is not retried: the client closes the connection (httpx drops a connection whose
  response did not finish), which tells a server that watches its sockets to stop, and the
  chunk falls back. Re-sending the same request to a slow local server only queued a second
  copy behind the first one it was still working on.
* A chunk too large for the server's context (`context_overflow`) comes back to the caller,
  which splits it and asks again (`forsy.llm._answers`).
* An answer that does not parse as the proposals object: asked once more; a second bad answer
  and exhausted retries make that chunk fall back to the deterministic result (counted).
* A configuration problem (bad key, unknown model, refused request): `LLMError` at once —
  retrying cannot help, and the user asked for the model path.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..errors import LLMError
from ..protocols import Completion
from ..urls import shown_url
from ._check import parse_answer

PARSE_TRIES = 2  # the first answer and one retry
PERMANENT_STATUS = frozenset({400, 401, 403, 404, 422})


@dataclass
class CallResult:
    proposals: list[dict[str, Any]] | None = None
    content: str | None = None
    attempts: int = 0  # requests sent to the provider
    retries: int = 0  # of which retries after a transient failure
    timeouts: int = 0  # requests given up (connection closed) after the timeout
    seconds: float = 0.0  # wall time of every attempt, answered or not
    malformed: int = 0  # answers that did not parse
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    cost: float | None = None
    failure: str | None = None  # why the chunk fell back: malformed, timeout, rate_limited, ...


_OVERFLOW = re.compile(r"context (window|length)|maximum context|exceeds? (the )?context|n_ctx|too many tokens|"
                       r"prompt is too long|input is too long|reduce the length", re.I)


def overflowed(exc: BaseException) -> bool:
    """Did the server refuse the request as too long for its context? (litellm's class, or the text
    an OpenAI-compatible server such as llama.cpp's puts in its 400)."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    return "ContextWindow" in name or (status in (400, 413, 422, None) and bool(_OVERFLOW.search(str(exc)[:2000])))


def failure_kind(exc: BaseException) -> str | None:
    """The kind of a transient failure, or None when retrying cannot help."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if isinstance(exc, TimeoutError) or "Timeout" in name or status == 408:
        return "timeout"
    if status == 429 or "RateLimit" in name:
        return "rate_limited"
    if isinstance(exc, ConnectionError) or "Connection" in name or "ConnectError" in name:
        return "connection"
    if isinstance(status, int) and status >= 500 or name in ("InternalServerError", "ServiceUnavailableError"):
        return "server_error"
    return None


def _permanent(exc: Exception) -> LLMError | None:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if status in PERMANENT_STATUS or not isinstance(status, int):
        # The provider's message may quote part of a key: name the failure, not its text.
        hint = (f" (HTTP {status}); check --llm, --llm-api-base and the provider's API key" if status else
                f": {shown_url(str(exc))[:200]}")  # a connection error quotes the server's URL
        return LLMError(f"the model call failed: {name}{hint}")
    return None


def _content(resp: Any) -> tuple[str | None, dict[str, int]]:
    """The answer's text and token counts, from a dict or an SDK object; (None, zeros) for anything else."""
    try:
        return _read(resp)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return None, {"prompt_tokens": 0, "completion_tokens": 0}


def _read(resp: Any) -> tuple[str | None, dict[str, int]]:
    if isinstance(resp, dict):
        choices = resp.get("choices") or [{}]
        content = (choices[0].get("message") or {}).get("content")
        usage_raw: Any = resp.get("usage") or {}
    else:
        content = resp.choices[0].message.content
        usage_raw = getattr(resp, "usage", None) or {}
    usage = {k: int((usage_raw.get(k) if isinstance(usage_raw, dict) else getattr(usage_raw, k, None)) or 0)
             for k in ("prompt_tokens", "completion_tokens")}
    return (content if isinstance(content, str) else None), usage


Parse = Callable[[str], list[dict[str, Any]]]  # an answer's items, or ValueError when it is not the object asked for


def call_chunk(client: Completion, kwargs: dict[str, Any], retries: int, backoff_s: float,
               cost_of: Callable[[Any], float | None], parse: Parse = parse_answer) -> CallResult:
    res = CallResult()
    for _ in range(PARSE_TRIES):
        try:
            resp = _send(client, kwargs, retries, backoff_s, res)
        except LLMError:
            raise
        except Exception as e:  # provider errors are foreign: sorted into transient / permanent here
            if overflowed(e):
                res.failure = "context_overflow"
                return res
            kind = failure_kind(e)
            if kind == "timeout":
                res.timeouts += 1
            if kind is None:
                err = _permanent(e)
                if err is not None:
                    raise err from None
                kind = "provider_error"
            res.failure = kind
            return res
        content, usage = _content(resp)
        for k, v in usage.items():
            res.usage[k] += v
        c = cost_of(resp)
        if c is not None:
            res.cost = (res.cost or 0.0) + c
        try:
            res.proposals = parse(content or "")
            res.content = content
            res.failure = None
            return res
        except ValueError:
            res.malformed += 1
            res.failure = "malformed"
    return res


def _retryable(e: BaseException) -> bool:
    return not overflowed(e) and failure_kind(e) in ("rate_limited", "connection", "server_error")


def _send(client: Completion, kwargs: dict[str, Any], retries: int, backoff_s: float, res: CallResult) -> Any:
    retrying = Retrying(stop=stop_after_attempt(retries + 1), wait=wait_exponential(multiplier=backoff_s, max=20),
                        retry=retry_if_exception(_retryable), reraise=True)
    for attempt in retrying:
        with attempt:
            res.attempts += 1
            if attempt.retry_state.attempt_number > 1:
                res.retries += 1
            t0 = time.monotonic()
            try:
                return client(**kwargs)
            finally:
                res.seconds += time.monotonic() - t0
    raise AssertionError("unreachable: tenacity reraises")  # pragma: no cover
