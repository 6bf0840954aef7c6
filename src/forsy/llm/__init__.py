"""The optional model pass (`forsy retrace --llm MODEL`): cited proposals for fields rules leave null.

    outcome = enrich(session, drafts, LLMConfig(model="openai/gpt-4o-mini"))
    assembled = assemble(session, drafts, ..., extra_factors=outcome.factors,
                         validation_level=outcome.validation_level, llm=outcome.report)
    apply_trace_fields(assembled, session, outcome)

The model sees only redacted text (redaction runs on the session before this), in delimited
evidence blocks, and only for fields the deterministic pass could not fill. Each value it
proposes must cite evidence; forsy checks every quote against the text it read from that
evidence (`_llm_evidence`) and keeps a value only when all its citations pass. Copied fields
are never touched. See docs/llm.md for the prompt, the thresholds and the limits.

This is the only module that imports litellm, lazily, so forsy runs without the extra.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..assemble.score import Factor
from ..errors import LLMError
from ..evidence import Ref, Session
from ..models import EvidenceInfo, FieldProvenance
from ..rules.segment import Draft
from ._cache import AnswerCache, default_path
from ._call import CallResult, Completion, call_chunk
from ._check import Checker, Tally, parse_answer
from ._evidence import (
    EXACT_MIN_CHARS,
    FUZZY_MIN_CHARS,
    FUZZY_MIN_SCORE,
    EvidenceIndex,
    build_index,
)
from ._request import CHUNK_FILL, Plan, Prompt, load_prompt, plan_chunks, request_params

MAX_REJECT_PENALTY = 20.0
MAX_LISTED = 100  # rejections listed one by one in the report (all are counted)
EMPTY_FIELDS_PENALTY = 15.0  # score.py's "empty fields" factor, kept for model-filled reasoning
NOTE = ("Values whose provenance origin is 'model' were proposed by a language model; forsy kept a value only "
        "when every quote it cited was found in the cited evidence. A citation shows a value is grounded in the "
        "log, not that it is right.")


@dataclass
class LLMConfig:
    model: str
    api_base: str | None = None
    max_concurrency: int = 4
    timeout_s: float = 60
    cache_dir: Path | None = None
    chunk_tokens: int = 6000
    client: Any = None  # injected completion callable (tests); else litellm.completion
    retries: int = 3  # transient failures retried per request
    backoff_s: float = 1.0  # first backoff; doubles each retry (at most 20 s)
    use_cache: bool = True


@dataclass
class LLMOutcome:
    report: dict[str, Any]
    factors: list[Factor]
    validation_level: str
    trace_fields: dict[str, tuple[Any, FieldProvenance]] = field(default_factory=dict)


def evidence_texts(session: Session) -> dict[str, str]:
    """Evidence id → the (redacted) text forsy read from it: the texts/JSON args of the events citing it."""
    return build_index(session).texts


def litellm_module() -> Any:
    """litellm, imported only here, offline: local cost map, no hub downloads, no debug banners."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import litellm
    except ImportError:
        raise LLMError("the LLM path needs the optional extra: pip install 'forsy[llm]'") from None
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


def plan(session: Session, drafts: list[Draft], cfg: LLMConfig) -> Plan:
    """The chunks `enrich` would send (no call): for dry runs and the token benchmark."""
    return plan_chunks(session, drafts, build_index(session), load_prompt(), cfg.chunk_tokens,
                       _termination(session, drafts))


def enrich(session: Session, drafts: list[Draft], cfg: LLMConfig) -> LLMOutcome:
    """Ask the model for the null fields of `drafts`; keep (in place) only values whose citations pass."""
    prompt = load_prompt()
    idx = build_index(session)
    the_plan = plan_chunks(session, drafts, idx, prompt, cfg.chunk_tokens, _termination(session, drafts))
    client, cost_of = _client(cfg)
    answers, stats = _answers(the_plan, prompt, cfg, client, cost_of)
    checker = Checker(drafts, idx, the_plan, {"model": cfg.model, "prompt_version": prompt.name})
    for ch in the_plan.chunks:
        if ch.index in answers:
            checker.apply(ch, answers[ch.index])
    return _outcome(cfg, prompt, the_plan, stats, checker)


# ---------------------------------------------------------------------- calls
@dataclass
class _Stats:
    calls: int = 0
    retries: int = 0
    malformed_answers: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    fallbacks: dict[str, int] = field(default_factory=dict)


def _client(cfg: LLMConfig) -> tuple[Completion, Any]:
    if cfg.client is not None:
        return cfg.client, lambda resp: None
    lit = litellm_module()

    def cost_of(resp: Any) -> float | None:
        try:
            return float(lit.completion_cost(completion_response=resp))
        except Exception:  # no price known for this model (e.g. a local server)
            return None

    return lit.completion, cost_of


def _kwargs(cfg: LLMConfig, messages: list[dict[str, str]]) -> dict[str, Any]:
    kw = request_params(cfg.model, messages) | {"timeout": cfg.timeout_s, "max_retries": 0, "drop_params": True}
    if cfg.api_base:
        kw["api_base"] = cfg.api_base
        if cfg.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kw["api_key"] = "forsy-local-no-key"  # OpenAI-compatible local servers need some key
    return kw


def _answers(the_plan: Plan, prompt: Prompt, cfg: LLMConfig, client: Completion, cost_of: Any
             ) -> tuple[dict[int, list[dict[str, Any]]], _Stats]:
    stats = _Stats()
    answers: dict[int, list[dict[str, Any]]] = {}
    cache = AnswerCache((cfg.cache_dir / "llm.sqlite3") if cfg.cache_dir else default_path()) \
        if cfg.use_cache else None
    todo = []
    try:
        for ch in the_plan.chunks:
            hit = cache.get(cfg.model, prompt.name, ch.request_sha256) if cache else None
            if hit is not None:
                try:
                    answers[ch.index] = parse_answer(hit)
                    stats.cache_hits += 1
                    continue
                except ValueError:
                    pass  # a stored answer this version cannot read: ask again
            todo.append(ch)
        with ThreadPoolExecutor(max_workers=max(1, cfg.max_concurrency)) as pool:
            futures: list[tuple[int, str, Future[CallResult]]] = [
                (ch.index, ch.request_sha256, pool.submit(call_chunk, client, _kwargs(cfg, ch.messages), cfg.retries,
                                                          cfg.backoff_s, cost_of)) for ch in todo]
            try:
                results = [(i, sha, f.result()) for i, sha, f in futures]
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        for i, sha, r in results:  # in chunk order: the report and the cache do not depend on timing
            _count(stats, r)
            if r.proposals is not None and r.content is not None:
                answers[i] = r.proposals
                if cache:
                    cache.put(cfg.model, prompt.name, sha, r.content, r.usage)
    finally:
        if cache:
            cache.close()
    return answers, stats


def _count(stats: _Stats, r: CallResult) -> None:
    stats.calls += r.attempts
    stats.retries += r.retries
    stats.malformed_answers += r.malformed
    stats.prompt_tokens += r.usage["prompt_tokens"]
    stats.completion_tokens += r.usage["completion_tokens"]
    if r.cost is not None:
        stats.cost = (stats.cost or 0.0) + r.cost
    if r.failure is not None:
        stats.fallbacks[r.failure] = stats.fallbacks.get(r.failure, 0) + 1


# ---------------------------------------------------------------------- outcome
def _outcome(cfg: LLMConfig, prompt: Prompt, the_plan: Plan, stats: _Stats, checker: Checker) -> LLMOutcome:
    t: Tally = checker.tally
    rejected = sum(t.rejected.values())
    report: dict[str, Any] = {
        "model": cfg.model, "prompt_version": prompt.name, "prompt_sha256": prompt.sha256,
        "chunks": len(the_plan.chunks), "chunk_tokens": cfg.chunk_tokens, "oversized_steps": the_plan.oversized,
        "calls": stats.calls, "retries": stats.retries, "cache_hits": stats.cache_hits,
        "tokens": {"sent_estimate": the_plan.tokens, "prompt": stats.prompt_tokens,
                   "completion": stats.completion_tokens},
        "cost_usd": round(stats.cost, 6) if stats.cost is not None else None,
        "proposed": t.proposed, "accepted": t.accepted, "rejected": rejected,
        "rejected_by_reason": dict(sorted(t.rejected.items())),
        "accepted_by_field": dict(sorted(t.accepted_fields.items())),
        "rejections": [{"step": s, "field": f, "reason": r} for s, f, r in t.rejections[:MAX_LISTED]],
        "malformed_answers": stats.malformed_answers,
        "fallbacks": sum(stats.fallbacks.values()), "fallbacks_by_reason": dict(sorted(stats.fallbacks.items())),
        "checks": {"exact_min_chars": EXACT_MIN_CHARS, "fuzzy_min_chars": FUZZY_MIN_CHARS,
                   "fuzzy_min_partial_ratio": FUZZY_MIN_SCORE, "all_citations_must_pass": True,
                   "chunk_fill": CHUNK_FILL},
        "note": NOTE,
    }
    factors = []
    if t.proposed:
        share = rejected / t.proposed
        factors.append(Factor("model_claims_rejected", round(share, 3), MAX_REJECT_PENALTY * share,
                              "share of the model's proposed values that failed forsy's checks and were dropped"))
    unfilled = _still_empty(checker)
    if unfilled:
        factors.append(Factor("model_reasoning_not_evidence", unfilled[0], unfilled[1],
                              "agent steps whose only reasoning is a model's proposal still count as empty"))
    if stats.fallbacks:
        report["warning"] = (f"{sum(stats.fallbacks.values())} of {len(the_plan.chunks)} chunk(s) fell back to the "
                             "deterministic result (no usable answer)")
    level = "model_reviewed" if t.accepted else "retraced_from_logs"
    return LLMOutcome(report, factors, level, dict(checker.trace_fields))


def _still_empty(checker: Checker) -> tuple[int, float] | None:
    """Keep score.py's empty-fields penalty where only a model filled the reasoning: a model never raises confidence.

    Mirrors `score.confidence` (15 × share of agent steps with neither reasoning nor output, or no time).
    """
    agent = [d for d in checker.drafts if d.values["action"] != "user_message"]
    n = sum(1 for i in checker.model_reasoning if not checker.drafts[i].values.get("output")
            and checker.drafts[i].values.get("started_at"))
    return (n, EMPTY_FIELDS_PENALTY * n / len(agent)) if n and agent else None


def _termination(session: Session, drafts: list[Draft]) -> tuple[str, str]:
    """The termination reason the deterministic pass gives (the model may only refine 'other')."""
    from .. import assemble

    fn = getattr(assemble, "_termination", None)
    if fn is None:
        return "task_complete", "unknown"  # never ask the model when the rule cannot be read
    reason, rule = fn(session, drafts)
    return str(reason), str(rule)


# ---------------------------------------------------------------------- trace fields
def apply_trace_fields(assembled: Any, session: Session, outcome: LLMOutcome) -> None:
    """Put accepted session-level values on an assembled trace (until `assemble` takes them itself).

    learning, summary.goal_achieved / goal_notes replace the deterministic nulls; termination_reason
    only replaces the rule's 'other'. The card says how many values a model added (its rule-made text
    says nothing was inferred), and the model's description, when accepted, follows it.
    """
    trace, prov, fields = assembled.trace, assembled.provenance, outcome.trace_fields
    if outcome.report.get("accepted"):
        trace.dataset_summary.description += (
            f" A model ({outcome.report.get('model')}) then proposed values for {outcome.report['accepted']} null "
            "field(s); each kept value cites evidence whose quotes forsy found in the log (origin 'model' in "
            "provenance.json).")
    for key, (value, fp) in sorted(fields.items()):
        if key == "learning":
            trace.learning = value
        elif key == "summary.goal_achieved":
            trace.summary.goal_achieved = value
        elif key == "summary.goal_notes":
            trace.summary.goal_notes = value
        elif key == "termination_reason":
            if trace.termination_reason != "other":
                continue
            trace.termination_reason = value
        elif key == "dataset_summary.description":
            trace.dataset_summary.description += f" Summary proposed by a model (citations checked): {value}"
        else:
            continue
        prov.trace_fields[key] = fp
        for ref in fp.evidence:
            _add_evidence(prov.evidence, session, Ref(ref.id, ref.pointer))
    if "summary.goal_achieved" in fields and "summary.goal_notes" not in fields:
        trace.summary.goal_notes = None  # the rule's "not assessed" note no longer holds
    prov.evidence = dict(sorted(prov.evidence.items()))


def _add_evidence(known: dict[str, EvidenceInfo], session: Session, ref: Ref) -> None:
    ev = session.evidence.get(ref.ev)
    if ev is not None and ref.ev not in known:
        known[ref.ev] = EvidenceInfo(source=ev.source, line=ev.line, byte_offset=ev.byte_offset,
                                     byte_length=ev.byte_length, sha256=ev.sha256, record_type=ev.record_type)


__all__ = ["EvidenceIndex", "LLMConfig", "LLMOutcome", "apply_trace_fields", "enrich", "evidence_texts",
           "litellm_module", "plan"]
