"""`summary.agent_confidence`: how much of the trace the evidence supports (not how good the work was).

The score starts from the quality of the evidence kind and is only ever lowered, each
penalty named, measured and explained in the manifest (`confidence_factors`):

| factor                | penalty                                                      |
|-----------------------|--------------------------------------------------------------|
| base                  | full agent transcript 90; shell, terminal and git only 40    |
|                       | (no agent reasoning)                                         |
| unparsable records    | 2 per record, at most 20                                     |
| missing results       | 3 per call with no result, at most 15                        |
| truncated outputs     | 1 per output that is an excerpt, at most 10                  |
| compaction            | 5 per compaction in the log, at most 15; 15 more when the    |
|                       | log starts from a summary of work logged elsewhere           |
| abandoned branches    | 3 when the log holds rewound branches                        |
| unlinked subagents    | 5 per subagent thread whose spawning call is unknown, ≤ 15   |
| unknown record types  | 1 per record, at most 5                                      |
| uncertain matches     | 2 per uncertain history/git match, at most 10                |
| commits without diff  | 2 per commit kept without its diff (a partial clone lacks    |
|                       | its objects: files and metadata only), at most 10; listed    |
|                       | only when there is one                                       |
| edits reconstructed   | 1 per 5 edits rebuilt from a reply's blocks rather than logged |
|                       | as calls (Aider's markdown), at most 5; listed only when any |
| exit codes unrecorded | 1 per 5 commands whose exit status the log does not hold (a  |
|                       | terminal recording), at most 5; listed only when any         |
| legacy not upgraded   | up to 40 × the share of a legacy forsy-v1/v2 trace's values  |
|                       | that could not be carried into v0.1                          |
| empty fields          | up to 15 × the share of agent steps with no reasoning,      |
|                       | no output or no timestamps                                   |

Nothing raises the score: a field the evidence does not support stays null, and a reasoning
or output whose provenance origin is `model` (a proposal, not the log) is not evidence, so it
counts as empty here. A model's refused proposals are not in the trace and are not scored
(`manifest.llm` reports them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..evidence import Session
from ..rules.segment import Draft


@dataclass
class Factor:
    name: str
    value: float
    penalty: float
    note: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "penalty": round(self.penalty, 2), "note": self.note}


def _from_log(d: Draft, name: str) -> bool:
    """A non-empty value that the log holds (a proposal, a model's or a reviewer's, is not evidence of the step)."""
    p = d.prov.get(name)
    return bool(d.values.get(name)) and (p is None or p.origin in ("copied", "derived"))


def _capped(per: float, count: float, cap: float) -> float:
    return min(cap, per * count)


def confidence(session: Session, drafts: list[Draft], extra: list[Factor] | None = None) -> tuple[int, list[Factor]]:
    q = session.quality
    has_agent = any(d.actor_key.startswith(("agent", "subagent")) for d in drafts)
    base = 90.0 if has_agent else 40.0
    factors = [Factor("base", base, 0.0, "full agent transcript" if has_agent else
                      "terminal recording only: commands and output, no agent reasoning"
                      if session.source_kind == "asciinema" else
                      "shell and git evidence only: no reasoning, no outputs")]
    factors.append(Factor("unparsable_records", q.unparsable_records, _capped(2, q.unparsable_records, 20),
                          "records that could not be read"))
    missing = sum(1 for d in drafts if d.call_id and "output" not in d.values and not d.no_result_expected)
    factors.append(Factor("missing_results", missing, _capped(3, missing, 15), "calls whose result is not in the log"))
    factors.append(Factor("truncated_outputs", q.truncated_outputs, _capped(1, q.truncated_outputs, 10),
                          "outputs that are excerpts of what the tool returned"))
    comp = _capped(5, q.compactions, 15)
    if q.extra.get("starts_from_summary"):
        comp += 15
    factors.append(Factor("compactions", q.compactions, comp, "context compacted; earlier detail hidden from the model"
                          + (" and the log starts from a summary" if q.extra.get("starts_from_summary") else "")))
    factors.append(Factor("abandoned_branches", q.abandoned_events, 3.0 if q.abandoned_events else 0.0,
                          "rewound branches kept and flagged"))
    unlinked = sum(1 for w in session.warnings if w.code == "unlinked-subagent")
    factors.append(Factor("unlinked_subagents", unlinked, _capped(5, unlinked, 15),
                          "subagent work whose spawning call is unknown"))
    factors.append(Factor("unknown_records", q.unknown_records, _capped(1, q.unknown_records, 5),
                          "records of unknown types skipped"))
    unc = q.extra.get("uncertain_matches", 0)
    factors.append(Factor("uncertain_matches", unc, _capped(2, unc, 10), "history/git matches not asserted"))
    no_diff = q.extra.get("commits_without_diff", 0)
    if no_diff:  # sources.git: the change itself is unknown (not an excerpt: no output was cut)
        factors.append(Factor("commits_without_diff", no_diff, _capped(2, no_diff, 10),
                              "commits kept without their diff (objects a partial clone lacks)"))
    # what a format does not record, said where the score is (listed only when it applies)
    rebuilt = q.extra.get("edits_reconstructed", 0)
    if rebuilt:  # sources.aider: an edit is the reply's SEARCH/REPLACE or whole-file block, not a logged call
        factors.append(Factor("edits_reconstructed", rebuilt, _capped(0.2, rebuilt, 5),
                              "edits rebuilt from the reply's blocks (the log records no edit calls)"))
    no_exit = q.extra.get("exit_codes_unrecorded", 0)
    if no_exit:  # sources.asciinema: a recording shows output, never the exit status
        factors.append(Factor("exit_codes_unrecorded", no_exit, _capped(0.2, no_exit, 5),
                              "commands whose exit status the log does not hold (success left null)"))
    legacy_lost, legacy_kept = q.extra.get("not_upgraded_values", 0), q.extra.get("upgraded_values", 0)
    if legacy_lost or legacy_kept:  # an imported forsy-v1/v2 trace: what could not be carried over
        share = legacy_lost / (legacy_lost + legacy_kept)
        factors.append(Factor("legacy_not_upgraded", round(share, 3), 40 * share,
                              "values of the legacy trace the v0.1 format could not take (listed in warnings)"))
    agent = [d for d in drafts if d.values["action"] != "user_message"]
    if agent:
        empty = sum(1 for d in agent if not (_from_log(d, "reasoning") or _from_log(d, "output"))
                    or not d.values.get("started_at"))
        share = empty / len(agent)
        factors.append(Factor("empty_fields", round(share, 3), 15 * share,
                              "agent steps with neither reasoning nor output, or without a timestamp"))
    for f in extra or []:
        factors.append(f)
    score = base - sum(f.penalty for f in factors)
    return max(0, min(100, int(round(score)))), factors
