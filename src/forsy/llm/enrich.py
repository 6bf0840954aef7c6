"""The optional model pass (`forsy retrace --llm MODEL`): cited proposals for fields rules leave null.

    outcome = enrich(session, drafts, LLMConfig(model="openai/gpt-4o-mini"))
    assembled = assemble(session, drafts, ..., proposals=outcome.proposals,
                         extra_factors=outcome.factors, llm=outcome.report)

The model sees only redacted text (redaction runs on the session before this), in delimited
evidence blocks, and only for fields the deterministic pass could not fill. Each value it
proposes must cite evidence; forsy checks every quote against the text it read from that
evidence (`_evidence`) and keeps a value only when all its citations pass. What passes
becomes a `forsy.proposals.Proposal` (the drafts are never changed here); `assemble` lays
the accepted proposals over the drafts. Copied fields are never touched. See docs/llm.md
for the prompt, the thresholds and the limits.

This is the only module that imports litellm, lazily, so forsy runs without the extra.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..assemble import termination
from ..assemble.score import Factor
from ..errors import LLMError
from ..evidence import Session
from ..proposals import Actor, Proposal, apply_to_drafts
from ..protocols import Completion
from ..rules.segment import Draft
from ._cache import AnswerCache, default_path
from ._call import CallResult, Parse, call_chunk
from ._check import Checker, Tally, parse_answer
from ._evidence import (
    EXACT_MIN_CHARS,
    MAX_EDIT_DISTANCE,
    EvidenceIndex,
    build_index,
)
from ._request import CHUNK_FILL, Chunk, Plan, Prompt, load_prompt, plan_chunks, request_params, split_chunk
from ._steps import CHECKS as STEP_CHECKS
from ._steps import MIN_RUN, CheckedTurn, Refused, Window, check_window, parse_grouping, proposals_for, scopes
from ._steps import PROMPT_NAME as STEPS_PROMPT
from ._steps import windows as step_windows

MAX_LISTED = 100  # rejections listed one by one in the report (all are counted)
NOTE = ("Values whose provenance origin is 'model' were proposed by a language model; forsy kept a value only "
        "when every quote it cited was found verbatim in the cited evidence and the value says nothing (no word, "
        "number, path or name) its quotes do not. A citation shows a value is grounded in the log, not that it "
        "is right.")


@dataclass
class LLMConfig:
    model: str
    api_base: str | None = None
    max_concurrency: int = 4
    timeout_s: float = 60
    cache_dir: Path | None = None
    chunk_tokens: int = 6000
    client: Completion | None = None  # injected completion callable (tests); else litellm.completion
    retries: int = 3  # transient failures retried per request
    backoff_s: float = 1.0  # first backoff; doubles each retry (at most 20 s)
    use_cache: bool = True
    json_mode: bool | None = None  # None: on for a hosted provider, off with api_base (fenced JSON is read)
    propose_steps: bool = True  # ask for a grouping where the rules cannot segment well (`_steps`)


@dataclass
class LLMOutcome:
    report: dict[str, Any]  # manifest.json's `llm`: calls, tokens, accepted and rejected by reason
    factors: list[Factor]
    proposals: list[Proposal] = field(default_factory=list)  # accepted, in order: what `assemble` lays over


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
                       termination(session, drafts))


def enrich(session: Session, drafts: list[Draft], cfg: LLMConfig) -> LLMOutcome:
    """Ask the model for the null fields of `drafts`: the proposals whose citations pass (drafts unchanged).

    Where the rules cannot segment well (shell commands only, or a long run of them), the model
    is first asked for a grouping into steps and turns (`_steps`); an accepted one is laid under
    the field pass, which then asks only for what is still null."""
    prompt = load_prompt()
    idx = build_index(session)
    client, cost_of = _client(cfg)
    stats = _Stats()
    grouped = _propose_steps(drafts, idx, cfg, client, cost_of, stats) if cfg.propose_steps else _Grouped()
    base = apply_to_drafts(drafts, grouped.proposals) if grouped.proposals else drafts
    the_plan = plan_chunks(session, base, idx, prompt, cfg.chunk_tokens, termination(session, base))
    splitter = _Splitter(the_plan, base, idx, prompt)
    answered = _answers(the_plan.chunks, prompt.name, cfg, client, cost_of, stats, splitter)
    checker = Checker(base, idx, the_plan, Actor(cfg.model, prompt_version=prompt.name))
    for ch, proposals in answered:
        checker.apply(ch, proposals)
    return _outcome(cfg, prompt, the_plan, stats, checker, grouped)


# ---------------------------------------------------------------------- proposed steps
GROUPING_PENALTY = 5.0  # confidence points: the trace's grouping is a model's (checked) proposal, not a rule's


@dataclass
class _Grouped:
    proposals: list[Proposal] = field(default_factory=list)
    report: dict[str, Any] | None = None  # manifest.llm.steps (None: no scope was eligible)
    fallbacks: int = 0  # requests that got no usable answer
    grouped_steps: int = 0  # rule-made steps an accepted grouping covers


def _propose_steps(drafts: list[Draft], idx: EvidenceIndex, cfg: LLMConfig, client: Completion, cost_of: Any,
                   stats: _Stats) -> _Grouped:
    """Ask for a grouping of each eligible scope; keep each scope's grouping only when every
    request of it was answered and the whole grouping passed every check (never a partial mix)."""
    found = scopes(drafts)
    if not found:
        return _Grouped()
    prompt = load_prompt(STEPS_PROMPT)
    wins: list[Window] = []
    for sc in found:
        wins += step_windows(sc, drafts, idx, prompt, cfg.chunk_tokens, len(wins))
    failed: dict[int, str] = {}
    answered = _answers([w.chunk for w in wins], prompt.name, cfg, client, cost_of, stats, parse=parse_grouping,
                        failed=failed)
    got = {ch.index: items for ch, items in answered}
    out = _Grouped(fallbacks=len(failed))
    actor = Actor(cfg.model, prompt_version=prompt.name)
    entries: list[dict[str, Any]] = []
    reasons: dict[str, int] = {}
    group = 1
    for sc in found:
        mine = [w for w in wins if w.scope is sc]
        entry: dict[str, Any] = {"steps": [sc.first + 1, sc.last + 1], "evidence_ids": len(sc.items),
                                 "turns_proposed": sc.turns, "requests": len(mine), "status": "accepted"}
        turns: list[CheckedTurn] = []
        for k, w in enumerate(mine, start=1):
            if w.chunk.index in failed:
                entry.update(status="fallback", reason=failed[w.chunk.index])
                break
            raw = got[w.chunk.index]
            if not raw:
                entry["status"] = "declined"  # the model proposed no grouping: nothing to check
                break
            try:
                turns += check_window(w, raw, idx)
            except Refused as r:
                entry.update(status="rejected", reason=r.reason, at={"request": k, **r.at})
                reasons[r.reason] = reasons.get(r.reason, 0) + 1
                break
        if entry["status"] == "accepted":
            n_steps = sum(len(t.steps) for t in turns)
            out.proposals += proposals_for(sc, turns, drafts, actor, group)
            group += n_steps
            out.grouped_steps += sc.last - sc.first + 1
            entry.update(turns=len(turns), proposed_steps=n_steps)
        entries.append(entry)
    status = [e["status"] for e in entries]
    out.report = {"prompt_version": prompt.name, "prompt_sha256": prompt.sha256, "min_run": MIN_RUN,
                  "scopes": entries, "accepted": status.count("accepted"), "rejected": status.count("rejected"),
                  "declined": status.count("declined"), "fell_back": status.count("fallback"),
                  "rejected_by_reason": dict(sorted(reasons.items())), "checks": list(STEP_CHECKS),
                  "penalty": GROUPING_PENALTY if out.proposals else 0.0}
    return out


# ---------------------------------------------------------------------- calls
MAX_SPLITS = 3  # a chunk too long for the server's context is halved at most this many times


@dataclass
class _Stats:
    calls: int = 0
    retries: int = 0
    timeouts: int = 0
    splits: int = 0
    seconds: float = 0.0
    malformed_answers: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    sent_estimate_all_calls: int = 0
    cost: float | None = None
    fallbacks: dict[str, int] = field(default_factory=dict)


@dataclass
class _Splitter:
    plan: Plan
    drafts: list[Draft]
    idx: EvidenceIndex
    prompt: Prompt

    def split(self, ch: Chunk, key: tuple[int, ...]) -> list[Chunk]:
        return split_chunk(self.plan, ch, self.drafts, self.idx, self.prompt, ".".join(str(k + 1) for k in key))


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


def json_mode(cfg: LLMConfig) -> bool:
    """JSON mode for a hosted provider (litellm drops it where unsupported); not for a local server."""
    return cfg.json_mode if cfg.json_mode is not None else cfg.api_base is None


def answer_tokens(cfg: LLMConfig, ch: Chunk) -> int:
    """The answer's share of `chunk_tokens` (`max_tokens`): what the request leaves, at least 30%.

    Without it a local server generates until its context is full (minutes on a CPU) when a
    small model runs on; a truncated answer is malformed and asked once more."""
    return max(int(cfg.chunk_tokens * (1 - CHUNK_FILL)), cfg.chunk_tokens - ch.tokens)


def _kwargs(cfg: LLMConfig, ch: Chunk) -> dict[str, Any]:
    kw = request_params(cfg.model, ch.messages, json_mode(cfg), answer_tokens(cfg, ch)) | {
        "timeout": cfg.timeout_s, "max_retries": 0, "drop_params": True}
    if cfg.api_base:
        kw["api_base"] = cfg.api_base
        if cfg.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kw["api_key"] = "forsy-local-no-key"  # OpenAI-compatible local servers need some key
    return kw


Answered = list[tuple[Chunk, list[dict[str, Any]]]]


def _answers(chunks: list[Chunk], prompt_name: str, cfg: LLMConfig, client: Completion, cost_of: Any,
             stats: _Stats, splitter: _Splitter | None = None, parse: Parse = parse_answer,
             failed: dict[int, str] | None = None) -> Answered:
    """Each chunk's answer items, in chunk order (a split chunk's halves in its place); the
    reason a chunk got no usable answer goes to `failed` (chunk index → reason) when given."""
    got: dict[tuple[int, ...], tuple[Chunk, list[dict[str, Any]]]] = {}
    cache = AnswerCache((cfg.cache_dir / "llm.sqlite3") if cfg.cache_dir else default_path()) \
        if cfg.use_cache else None
    todo: list[tuple[tuple[int, ...], Chunk]] = [((ch.index,), ch) for ch in chunks]
    try:
        while todo:
            asked = []
            for key, ch in todo:
                hit = cache.get(cfg.model, prompt_name, ch.request_sha256) if cache else None
                if hit is not None:
                    try:
                        got[key] = (ch, parse(hit))
                        stats.cache_hits += 1
                        continue
                    except ValueError:
                        pass  # a stored answer this version cannot read: ask again
                asked.append((key, ch))
            todo = []
            for (key, ch), r in zip(asked, _ask(asked, cfg, client, cost_of, parse), strict=True):
                _count(stats, r, ch)  # in chunk order: the report and the cache do not depend on timing
                if r.failure == "context_overflow" and len(key) <= MAX_SPLITS and splitter is not None:
                    halves = splitter.split(ch, key)
                    if halves:
                        stats.splits += 1
                        todo += [((*key, k), h) for k, h in enumerate(halves)]
                        continue
                if r.failure is not None:
                    stats.fallbacks[r.failure] = stats.fallbacks.get(r.failure, 0) + 1
                if r.proposals is not None and r.content is not None:
                    got[key] = (ch, r.proposals)
                    if cache:
                        cache.put(cfg.model, prompt_name, ch.request_sha256, r.content, r.usage)
                elif failed is not None:
                    failed.setdefault(key[0], r.failure or "malformed")
    finally:
        if cache:
            cache.close()
    return [got[k] for k in sorted(got)]


def _ask(asked: list[tuple[tuple[int, ...], Chunk]], cfg: LLMConfig, client: Completion, cost_of: Any,
         parse: Parse) -> list[CallResult]:
    with ThreadPoolExecutor(max_workers=max(1, cfg.max_concurrency)) as pool:
        futures: list[Future[CallResult]] = [
            pool.submit(call_chunk, client, _kwargs(cfg, ch), cfg.retries, cfg.backoff_s, cost_of, parse)
            for _, ch in asked]
        try:
            return [f.result() for f in futures]
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _count(stats: _Stats, r: CallResult, ch: Chunk) -> None:
    stats.calls += r.attempts
    stats.retries += r.retries
    stats.timeouts += r.timeouts
    stats.seconds += r.seconds
    stats.sent_estimate_all_calls += ch.tokens * r.attempts
    stats.malformed_answers += r.malformed
    stats.prompt_tokens += r.usage["prompt_tokens"]
    stats.completion_tokens += r.usage["completion_tokens"]
    if r.cost is not None:
        stats.cost = (stats.cost or 0.0) + r.cost


# ---------------------------------------------------------------------- outcome
def _outcome(cfg: LLMConfig, prompt: Prompt, the_plan: Plan, stats: _Stats, checker: Checker,
             grouped: _Grouped) -> LLMOutcome:
    t: Tally = checker.tally
    rejected = sum(t.rejected.values())
    report: dict[str, Any] = {
        "model": cfg.model, "prompt_version": prompt.name, "prompt_sha256": prompt.sha256,
        "chunks": len(the_plan.chunks), "chunk_tokens": cfg.chunk_tokens, "oversized_steps": the_plan.oversized,
        "calls": stats.calls, "retries": stats.retries, "timeouts": stats.timeouts,
        "context_splits": stats.splits, "call_seconds": round(stats.seconds, 3), "cache_hits": stats.cache_hits,
        "timeout_s": cfg.timeout_s, "concurrency": cfg.max_concurrency, "json_mode": json_mode(cfg),
        "tokens": {"sent_estimate": the_plan.tokens, "sent_estimate_all_calls": stats.sent_estimate_all_calls,
                   "prompt": stats.prompt_tokens, "completion": stats.completion_tokens},
        "cost_usd": round(stats.cost, 6) if stats.cost is not None else None,
        "proposed": t.proposed, "accepted": t.accepted, "rejected": rejected,
        "rejected_by_reason": dict(sorted(t.rejected.items())),
        "accepted_by_field": dict(sorted(t.accepted_fields.items())),
        "rejections": [{"step": s, "field": f, "reason": r} for s, f, r in t.rejections[:MAX_LISTED]],
        "malformed_answers": stats.malformed_answers,
        "fallbacks": sum(stats.fallbacks.values()), "fallbacks_by_reason": dict(sorted(stats.fallbacks.items())),
        "checks": {"exact_min_chars": EXACT_MIN_CHARS, "max_edit_distance": MAX_EDIT_DISTANCE,
                   "values_grounded_in_quotes": True, "all_citations_must_pass": True,
                   "chunk_fill": CHUNK_FILL},
        "note": NOTE,
    }
    factors: list[Factor] = []  # refused proposals are reported, never scored: they are not in the trace
    if grouped.report is not None:
        report["steps"] = grouped.report
    if grouped.proposals:  # what the model added: the grouping itself, not a value copied from the log
        factors.append(Factor("model_grouping", grouped.grouped_steps, GROUPING_PENALTY,
                              "steps grouped into proposed steps and turns by a model (checked whole), not by rules"))
    warnings = []
    chunk_fallbacks = sum(stats.fallbacks.values()) - grouped.fallbacks
    if chunk_fallbacks:
        warnings.append(f"{chunk_fallbacks} of {len(the_plan.chunks)} chunk(s) fell back to the deterministic "
                        "result (no usable answer)")
    if grouped.fallbacks:
        warnings.append(f"{grouped.fallbacks} grouping request(s) fell back: the rule-made steps are kept")
    if warnings:
        report["warning"] = "; ".join(warnings)
    return LLMOutcome(report, factors, [*grouped.proposals, *checker.accepted])


__all__ = ["EvidenceIndex", "LLMConfig", "LLMOutcome", "enrich", "evidence_texts", "litellm_module", "plan"]
