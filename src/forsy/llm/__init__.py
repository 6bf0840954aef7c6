"""The optional model pass (`forsy retrace --llm MODEL`, extra `forsy[llm]`): proposals for the
fields the rules left null, each citing evidence with verbatim quotes that are checked before
anything reaches a trace (docs/llm.md).

    outcome = enrich(session, drafts, LLMConfig(model="openai/gpt-4.1-mini"))

`enrich` runs the pass; `_request` builds the requests, `_call` sends them (litellm, imported
lazily, or an injected client such as `langchain.LangChainCompletion`), `_cache` keeps the
answers, `_check` and `_ground` check every citation and value, `_steps` proposes steps for
shell-only timelines.
"""

from __future__ import annotations

from .enrich import EvidenceIndex, LLMConfig, LLMOutcome, enrich, evidence_texts, litellm_module, plan

__all__ = ["EvidenceIndex", "LLMConfig", "LLMOutcome", "enrich", "evidence_texts", "litellm_module", "plan"]
