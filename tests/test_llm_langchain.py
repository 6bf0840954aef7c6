"""A LangChain chat model passed to the library (`forsy.retrace(paths, model=chat_model)`, the
`langchain` extra): forsy sends it the same messages, and what it answers goes through the same
checks as a litellm answer — an invented citation is refused, an unreadable answer falls back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import forsy
from _paths import SAMPLES

fake = pytest.importorskip("langchain_core.language_models.fake_chat_models")
DEMO = SAMPLES / "claude" / "demo-session.jsonl"


class Recording(fake.FakeListChatModel):  # type: ignore[misc,name-defined]
    """langchain-core's scripted chat model, keeping what it was sent."""

    sent: list[Any] = []

    def invoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        type(self).sent.append(input)
        return super().invoke(input, *args, **kwargs)


def run(tmp_path: Path, answer: str) -> Any:
    Recording.sent = []
    model = Recording(responses=[answer] * 10)
    done = forsy.retrace([DEMO], forsy.RetraceOptions(cache_dir=tmp_path / "cache"), model=model)
    [o] = done.outcomes
    assert o.status == "traced"
    return o.assembled


def test_the_chat_model_gets_forsys_messages_and_its_answer_is_read(tmp_path: Path) -> None:
    a = run(tmp_path, '{"proposals": []}')
    assert a.manifest.llm["model"] == "langchain/fake-list-chat-model"
    assert a.manifest.llm["calls"] == 1 and not a.manifest.llm.get("fallbacks")
    [messages] = Recording.sent
    assert [role for role, _ in messages] == ["system", "human"]
    assert "evidence" in messages[1][1]  # the session's records, cited by id


def test_an_invented_citation_from_the_chat_model_is_refused(tmp_path: Path) -> None:
    invented = {"proposals": [{"step": 2, "field": "observation", "value": "The file was empty.",
                               "citations": [{"evidence_id": "ev_0000000000000000", "quote": "The file was empty."}]}]}
    a = run(tmp_path, json.dumps(invented))
    assert (a.manifest.llm["proposed"], a.manifest.llm["accepted"], a.manifest.llm["rejected"]) == (1, 0, 1)
    assert list(a.manifest.llm["rejected_by_reason"]) == ["unknown_id"], a.manifest.llm["rejected_by_reason"]
    assert a.trace.steps[1].observation is None  # nothing of it reached the trace


def test_something_that_is_not_a_chat_model_is_refused() -> None:
    with pytest.raises(forsy.LLMError, match="not a LangChain chat model"):
        forsy.retrace([DEMO], model=object())
