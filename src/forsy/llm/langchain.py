"""A LangChain chat model as forsy's model client (`forsy.retrace(paths, model=chat_model)`).

For those whose stack is LangChain: any `BaseChatModel` (ChatOpenAI, ChatAnthropic, a local one,
a fake in tests) is called through this adapter, and its answers go through the very checks a
litellm answer does (citations, quotes, grounding). forsy's own path stays litellm, for the
reasons docs/llm.md measured; langchain-core is imported only when a chat model is given
(`pip install 'forsy[langchain]'`).
"""

from __future__ import annotations

from typing import Any

from ..errors import LLMError

_ROLES = {"system": "system", "user": "human", "assistant": "ai"}


class LangChainCompletion:
    """`protocols.Completion` over a LangChain chat model: the messages go in as LangChain
    messages, the answer comes back OpenAI-shaped (`choices[0].message.content`, `usage`)."""

    def __init__(self, chat_model: Any) -> None:
        try:
            from langchain_core.language_models import BaseChatModel
        except ImportError:  # pragma: no cover - the extra is installed where this is used
            raise LLMError("a LangChain chat model needs langchain-core: pip install 'forsy[langchain]'") from None
        if not isinstance(chat_model, BaseChatModel):
            raise LLMError(f"not a LangChain chat model: {type(chat_model).__name__}")
        self.chat_model = chat_model

    @property
    def name(self) -> str:
        """The model's name as forsy records it (provenance, cache keys): `langchain/<its type>`."""
        named = getattr(self.chat_model, "model_name", None) or getattr(self.chat_model, "model", None)
        return f"langchain/{named if isinstance(named, str) and named else self.chat_model._llm_type}"

    def __call__(self, *, model: str, messages: list[dict[str, str]], **options: object) -> object:
        # request options litellm understands (timeout, response_format, api_base) are the chat
        # model's own business in LangChain: it was configured when it was made
        msgs = [(_ROLES.get(m.get("role", "user"), "human"), m.get("content", "")) for m in messages]
        answer = self.chat_model.invoke(msgs)
        content = answer.content if isinstance(answer.content, str) else "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in answer.content)
        usage = getattr(answer, "usage_metadata", None) or {}
        return {"choices": [{"message": {"content": content}}],
                "usage": {"prompt_tokens": usage.get("input_tokens", 0),
                          "completion_tokens": usage.get("output_tokens", 0)}}


__all__ = ["LangChainCompletion"]
