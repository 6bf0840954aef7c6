"""One timeline from an agent session, shell histories and git commits.

`merge(agent, history, git, window=)` returns ONE `Session`. What it decides, and by which
rule (every decision is written into the events' payloads with its rule and score):

Shell commands an agent ran (rule "command-text+time")
    An agent shell call (Claude Code `Bash`, Codex `shell`/`exec_command`/`local_shell`/
    `container.exec`/`shell_command`) and a history command are the same run when
    * text: score = rapidfuzz `fuzz.ratio` / 100 of both commands, whitespace-normalized,
      >= 0.95;
    * time: the history time lies in [call time - 5 s, result time + 5 s] (the result is
      the call's `tool_result`; without one, the next timed agent event);
    * each command matches at most one call and each call at most one command; calls are
      taken in time order and, among equal candidates, the higher score, then the smaller
      time gap, then the earlier history entry wins (so repeated commands pair in order).
    A match is not a separate event: the call's `CallInfo.shell_history` (exit code,
    duration, a ref to the history evidence, the match) and the evidence joins the session.
    A pair that only reaches the loose bounds (score >= 0.80, time within 120 s) is
    *uncertain*: not merged; the command stays an event with `ShellInfo.possible_match`
    and `quality.extra["uncertain_matches"]` counts it.
    A terminal recording's command carries a call id and is followed in its source by its
    output (a `tool_result` with that id). A command that stays an event keeps that output
    right after it (counted in `command_outputs`); a matched command's output is not a
    second output of the call: its evidence joins the session marked `duplicate`
    (`DUPLICATE_OUTPUT`); a command left out by the window takes its output with it.

Commits the agent made (forsy.rules.commits; its docstring states each rule)
    First what the log says: a result that names a commit (`[branch sha] subject` of `git
    commit`, Aider's `Commit sha subject`, `gh pr merge`'s pull request) attributes that commit
    to the naming call exactly (G-named-commit), an amend replaces the commit it amended
    (G-amend: that commit leaves the timeline), a named commit the repository lacks is
    reported and linked to its rebased form (G-named-rewritten), a squash to all the commits
    it holds (G-squash); every named commit is listed in `named_commits` (sha, status, the
    branches holding it, the evidence and span of the name). Only the other commits are
    matched by time ("shell-git-commit+time") or edited files ("edits-before-commit"), and
    such a match is refused when the log contradicts it (G-refuse).
    A matched commit gets `CommitInfo.matched_call_id` and `match` (rule, score, files)
    and the actor of the matched call ("agent", "subagent:<id>"); an unmatched commit keeps
    "human:git". `commit_branches` maps every commit on the timeline to its branches.

Window
    Explicit `window=(since, until)` (ISO 8601, either side open) when given; else, with an
    agent session, its first..last timestamp widened by 300 s each side; else none.
    History commands and commits outside the window are left out (counted), and so are
    commands with no time at all when there is a window (they cannot be placed).

Order
    Each source keeps its own order: the agent log as written; history and commits sorted
    by time, stably. An event without a time takes the time of the nearest earlier timed
    event of its source (the start of time if none), so it stays after its neighbour. The
    sources are then merged by those times (agent, then history, then git on ties); the
    agent's times count as their running maximum, so the agent's order is never changed.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rapidfuzz import fuzz

from ..errors import InputError
from ..evidence import Event, Mark, Quality, Session, SessionMeta, SourceFile
from ..ids import make_id
from ..payloads import CallInfo, CommitInfo, HistoryMatch, Match, ShellInfo
from ..tools import COMMAND_LINE_ARGS, PATH_ARGS, ToolKind, kind_of, spec
from . import commits
from .commits import CallSpan as _Call
from .commits import to_epoch

__all__ = ["edit_paths", "merge", "norm_cmd", "shell_command_of", "to_epoch"]

STRICT_SCORE = 0.95  # rapidfuzz ratio / 100; every match score in forsy is in [0, 1]
LOOSE_SCORE = 0.80
STRICT_SLACK_S = 5.0
LOOSE_SLACK_S = 120.0
DEFAULT_PAD_S = 300.0
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
NEG_INF = float("-inf")
COUNT_KEYS = (
    "commands", "matched", "uncertain", "commits", "matched_commits", "uncertain_commits", "human_commits",
    "outside_window", "untimed_left_out", "commits_named", "named_matched", "named_missing", "named_rewritten",
    "named_amended", "refused_matches", "amended_away", "command_outputs",
)  # fmt: skip
# the ledger's reason for a recorded output of a command the agent ran (a strict match)
DUPLICATE_OUTPUT = ("output of a command the agent ran, recorded by the terminal: the agent's own result is "
                    "the step's output")


# --- small helpers -------------------------------------------------------------------------


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def norm_cmd(s: str) -> str:
    """Whitespace-normalized command text (a backslash-newline counts as a space)."""
    return " ".join(s.replace("\\\n", " ").split())


def shell_command_of(e: Event) -> str | None:
    """The command an agent shell call ran, as text (None for other calls)."""
    if e.kind != "tool_call" or kind_of(e.tool) is not ToolKind.SHELL:
        return None
    if isinstance(e.args, str) and e.tool in COMMAND_LINE_ARGS:
        try:  # the argv as written, quoted: the script of `bash -lc '<script>'` is what a shell logs
            argv = shlex.split(e.args)
        except ValueError:
            return e.args
        return str(argv[2]) if _shell_script(argv) else e.args
    if not isinstance(e.args, dict):
        return None
    cmd = e.args.get("command", e.args.get("cmd"))
    if isinstance(cmd, str):
        return cmd
    if isinstance(cmd, list) and cmd and all(isinstance(x, str) for x in cmd):
        # Codex runs ["bash", "-lc", "<script>"]: the script is what a shell would log
        return str(cmd[2]) if _shell_script(cmd) else shlex.join(cmd)
    return None


def _shell_script(argv: list[str]) -> bool:
    """Whether argv is `bash -lc <script>` (or sh/zsh, -c/-ic)."""
    return len(argv) == 3 and argv[1] in ("-c", "-lc", "-ic") and argv[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")


def edit_paths(e: Event) -> list[str]:
    """Files an edit call wrote (paths as the agent gave them)."""
    if e.kind != "tool_call":
        return []
    args = e.args
    tool = spec(e.tool)
    form = tool.edit_form if tool else None
    if form == "file" and isinstance(args, dict):
        for key in PATH_ARGS:
            if isinstance(args.get(key), str):
                return [args[key]]
    if form == "changes" and isinstance(args, list):
        return [c["path"] for c in args if isinstance(c, dict) and isinstance(c.get("path"), str)]
    texts: list[str] = []
    if form == "patch":
        texts = [args] if isinstance(args, str) else [v for v in (args or {}).values() if isinstance(v, str)]
    cmd = shell_command_of(e)
    if cmd and "*** Begin Patch" in cmd:
        texts.append(cmd)
    return [a or b for t in texts for a, b in PATCH_FILE.findall(t)]


# --- the agent's calls ---------------------------------------------------------------------


def _index_calls(agent: Session) -> list[_Call]:
    """Timed tool calls with their end: the result's time, else the next timed agent event."""
    result_ts: dict[str, float] = {}
    failed: set[str] = set()
    for e in agent.events:
        t = to_epoch(e.ts)
        if e.kind == "tool_result" and e.call_id and t is not None:
            result_ts.setdefault(e.call_id, t)
        if e.kind == "tool_result" and e.call_id and e.is_error:
            failed.add(e.call_id)
    # the time of the next timed event after each position (for calls with no result)
    nxt: list[float | None] = [None] * len(agent.events)
    later: float | None = None
    for i in range(len(agent.events) - 1, -1, -1):
        nxt[i] = later
        t = to_epoch(agent.events[i].ts)
        later = t if t is not None else later
    calls: list[_Call] = []
    for i, e in enumerate(agent.events):
        start = to_epoch(e.ts)
        if e.kind != "tool_call" or start is None:
            continue
        fallback = nxt[i]
        end = result_ts.get(e.call_id or "", fallback if fallback is not None else start)
        cmd = shell_command_of(e)
        calls.append(_Call(e, start, max(end, start), norm_cmd(cmd) if cmd else None, edit_paths(e),
                           raw_command=cmd, failed=(e.call_id or "") in failed))
    calls.sort(key=lambda c: c.start)
    return calls


# --- shell commands <-> calls --------------------------------------------------------------


@dataclass
class _Hist:
    event: Event
    order: int  # position among all history commands (sorted by time)
    t: float | None
    text: str  # normalized command


@dataclass
class _Found:
    call: _Call
    score: float
    dt: float  # history time - call time, seconds


class _Timed:
    """History commands with a time, sorted by it, for range lookups."""

    def __init__(self, hist: list[_Hist]) -> None:
        pairs = sorted(((h.t, h.order, h) for h in hist if h.t is not None), key=lambda x: (x[0], x[1]))
        self.items = [h for _, _, h in pairs]
        self.times = [t for t, _, _ in pairs]

    def between(self, lo: float, hi: float) -> list[_Hist]:
        return self.items[bisect.bisect_left(self.times, lo) : bisect.bisect_right(self.times, hi)]


def _best(c: _Call, timed: _Timed, taken: set[int], min_score: float, slack: float) -> _Hist | None:
    """The best free history command for a call within the bounds, by (score, gap, order)."""
    best: tuple[tuple[float, float, int], _Hist] | None = None
    for h in timed.between(c.start - slack, c.end + slack):
        if h.order in taken or h.t is None:
            continue
        score = _text_score(c, h)
        key = (-score, abs(h.t - c.start), h.order)
        if score >= min_score and (best is None or key < best[0]):
            best = (key, h)
    return best[1] if best else None


def _text_score(c: _Call, h: _Hist) -> float:
    return float(fuzz.ratio(c.command or "", h.text)) / 100


def _found(c: _Call, h: _Hist) -> _Found:
    assert h.t is not None
    return _Found(c, _text_score(c, h), h.t - c.start)


def _match_commands(calls: list[_Call], hist: list[_Hist]) -> tuple[dict[int, _Found], dict[int, _Found]]:
    """(strict matches, uncertain pairs), both keyed by the history command's order."""
    shell_calls = [c for c in calls if c.command]
    timed = _Timed(hist)
    strict: dict[int, _Found] = {}
    left: list[_Call] = []
    for c in shell_calls:
        h = _best(c, timed, set(strict), STRICT_SCORE, STRICT_SLACK_S)
        if h is None:
            left.append(c)
        else:
            strict[h.order] = _found(c, h)
    loose: dict[int, _Found] = {}
    for c in left:
        h = _best(c, timed, set(strict) | set(loose), LOOSE_SCORE, LOOSE_SLACK_S)
        if h is not None:
            loose[h.order] = _found(c, h)
    return strict, loose


def _shell(e: Event) -> ShellInfo:
    return e.info if isinstance(e.info, ShellInfo) else ShellInfo()


def _history_match(h: _Hist, f: _Found) -> HistoryMatch:
    info = _shell(h.event)
    return HistoryMatch(
        exit_code=info.exit_code,
        duration_s=info.duration_s,
        record=_record_id(h.event),
        match=Match("command-text+time", round(f.score, 4), dt_s=round(f.dt, 3)),
    )


def _record_id(e: Event) -> str | None:
    """The history record the exit code and duration come from (the whole record)."""
    rec = _shell(e).record_ref
    if rec is not None:
        return rec.ev
    return e.refs[0].ev if e.refs else None


def _possible(call: Event, rule: str, score: float, dt: float | None, files: tuple[str, ...] = ()) -> Match:
    return Match(rule, round(score, 3), dt_s=round(dt, 3) if dt is not None else None, call_id=call.call_id,
                 files=files)


# --- window and order ----------------------------------------------------------------------


@dataclass
class _Window:
    lo: float | None
    hi: float | None
    rule: str

    @property
    def active(self) -> bool:
        return self.lo is not None or self.hi is not None

    def holds(self, t: float | None) -> bool:
        if not self.active:
            return True
        if t is None:
            return False
        return (self.lo is None or t >= self.lo) and (self.hi is None or t <= self.hi)


def _window_side(value: str | None, name: str) -> float | None:
    if not value:
        return None
    t = to_epoch(value)
    if t is None:
        raise InputError(f"{name} is not an ISO 8601 time: {value!r}")
    return t


def _window(agent: Session | None, window: tuple[str | None, str | None] | None) -> _Window:
    if window and (window[0] or window[1]):
        lo, hi = (_window_side(v, name) for v, name in zip(window, ("since", "until"), strict=True))
        return _Window(lo, hi, "explicit")
    times = [t for t in (to_epoch(e.ts) for e in agent.events) if t is not None] if agent else []
    if times:
        return _Window(
            min(times) - DEFAULT_PAD_S, max(times) + DEFAULT_PAD_S, f"agent-span±{DEFAULT_PAD_S:g}s"
        )
    return _Window(None, None, "none")


def _inherited_times(events: list[Event]) -> list[float]:
    """Each event's time; an untimed one takes its nearest earlier timed neighbour's."""
    out: list[float] = []
    last = NEG_INF
    for e in events:
        t = to_epoch(e.ts)
        last = t if t is not None else last
        out.append(last)
    return out


def _sorted_source(sessions: list[Session], kind: str) -> list[tuple[float, Event, Session]]:
    """Events of one kind from several sessions, by (inherited) time, stable."""
    items: list[tuple[float, int, int, Event, Session]] = []
    for si, s in enumerate(sessions):
        evs = [e for e in s.events if e.kind == kind]
        for pos, (t, e) in enumerate(zip(_inherited_times(evs), evs, strict=True)):
            items.append((t, si, pos, e, s))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return [(t, e, s) for t, _, _, e, s in items]


# --- merge ---------------------------------------------------------------------------------


@dataclass
class _Out:
    session: Session
    counts: dict[str, Any] = field(default_factory=dict)

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def cite(self, e: Event, source: Session, only: str | None = None) -> None:
        """Bring the evidence an event cites (refs and its record, or `only` that one) into the
        merged session, with the source's ledger marks for them."""
        ids = [r.ev for r in e.refs]
        if isinstance(e.info, ShellInfo) and e.info.record_ref is not None:
            ids.append(e.info.record_ref.ev)
        if only is not None:
            ids = [only]
        for i in ids:
            ev = source.evidence.get(i)
            if ev is not None:
                self.session.add_evidence(ev)
            mark = source.ledger.get(i)  # why the source read it (an entry's whole record: its time…)
            if mark is not None:
                self.session.ledger.setdefault(i, mark)

    def duplicate(self, e: Event, source: Session, why: str) -> None:
        """Bring the evidence of an event the timeline leaves out as a second copy of what it
        already holds, marked a duplicate unless the source said why it read it."""
        for r in e.refs:
            ev = source.evidence.get(r.ev)
            if ev is None:
                continue
            self.session.add_evidence(ev)
            mark = source.ledger.get(r.ev)
            self.session.ledger.setdefault(r.ev, mark if mark is not None else Mark("duplicate", why))


def merge(
    agent: Session | None,
    history: list[Session],
    git: list[Session],
    *,
    window: tuple[str | None, str | None] | None = None,
) -> Session:
    """One session: the agent's events with history commands and commits merged in (module doc)."""
    win = _window(agent, window)
    calls = _index_calls(agent) if agent else []
    out = _Out(_new_session(agent, history, git))
    out.counts.update(dict.fromkeys(COUNT_KEYS, 0))
    replaced: dict[int, Event] = {}
    hist_items = _merge_history(out, calls, history, win, replaced)
    named = commits.plan(agent, git, calls)
    git_items = _merge_commits(out, calls, git, win, named)
    agent_items = _agent_items(agent, replaced)
    merged = heapq.merge(agent_items, hist_items, git_items, key=lambda x: (x[0], x[1], x[2]))
    out.session.events = [x[3] for x in merged]
    _named_out(out, named)
    # a link to a rewritten commit is not what the log says: it lowers confidence as an uncertain match
    uncertain = out.counts["uncertain"] + out.counts["uncertain_commits"] + out.counts["named_rewritten"]
    q = out.session.quality.extra
    q["uncertain_matches"] = q.get("uncertain_matches", 0) + uncertain
    lo, hi = win.lo, win.hi
    out.counts["window"] = {
        "from": _iso(lo) if lo is not None else None,
        "to": _iso(hi) if hi is not None else None,
        "rule": win.rule,
    }
    out.counts["sources"] = [
        # entries and commits read (a recording's outputs ride with their commands)
        {"kind": s.source_kind, "session_id": s.session_id, "events": sum(e.kind != "tool_result" for e in s.events)}
        for s in [*history, *git]
    ]
    out.session.meta.extra["timeline"] = out.counts
    return out.session


def _agent_items(agent: Session | None, replaced: dict[int, Event]) -> list[tuple[float, int, int, Event]]:
    if agent is None:
        return []
    items: list[tuple[float, int, int, Event]] = []
    top = NEG_INF
    for pos, (t, e) in enumerate(zip(_inherited_times(agent.events), agent.events, strict=True)):
        top = max(top, t)  # running maximum: the agent's own order is never changed
        items.append((top, 0, pos, replaced.get(id(e), e)))
    return items


def _merge_history(
    out: _Out, calls: list[_Call], history: list[Session], win: _Window, replaced: dict[int, Event]
) -> list[tuple[float, int, int, Event]]:
    srt = _sorted_source(history, "shell_command")
    hist = [_Hist(e, i, to_epoch(e.ts), norm_cmd(e.text or "")) for i, (_, e, _) in enumerate(srt)]
    outputs = _outputs(history)
    strict, loose = _match_commands(calls, hist)
    items: list[tuple[float, int, int, Event]] = []
    for (key, e, src), h in zip(srt, hist, strict=True):
        res = outputs.get((id(src), e.call_id)) if e.call_id else None
        f = strict.get(h.order)
        if f is not None:
            call = replaced.get(id(f.call.event), f.call.event)
            # copies: the input session's events stay as they were read
            info = call.info if isinstance(call.info, CallInfo) else CallInfo()
            info = dataclasses.replace(info, shell_history=_history_match(h, f))
            replaced[id(f.call.event)] = dataclasses.replace(call, info=info)
            # the match cites the entry's whole record; the command's own bytes are inside it
            out.cite(e, src, only=_record_id(e))
            if res is not None:
                out.duplicate(res, src, DUPLICATE_OUTPUT)
            out.bump("commands")
            out.bump("matched")
            continue
        if not win.holds(h.t):
            out.bump("outside_window" if h.t is not None else "untimed_left_out")
            continue  # its output, if recorded, leaves with it
        u = loose.get(h.order)
        if u is not None:
            possible = _possible(u.call.event, "command-text+time", u.score, u.dt)
            e = dataclasses.replace(e, info=dataclasses.replace(_shell(e), possible_match=possible))
            out.bump("uncertain")
        out.cite(e, src)
        out.bump("commands")
        # even positions for commands, the odd one after each for its output: right after it
        items.append((key, 1, 2 * h.order, e))
        if res is not None:
            out.cite(res, src)
            out.bump("command_outputs")
            items.append((key, 1, 2 * h.order + 1, res))
    return items


def _outputs(history: list[Session]) -> dict[tuple[int, str], Event]:
    """The output a history source recorded for a command (a terminal recording's
    `tool_result` after its `shell_command`), by (source, call id)."""
    return {(id(s), e.call_id): e for s in history for e in s.events if e.kind == "tool_result" and e.call_id}


def _named_out(out: _Out, named: commits.NamedPlan) -> None:
    """What the log named, in the timeline's counts; its warnings in the session's."""
    for k, v in named.counts.items():
        out.bump(k, v)
    out.counts["named_commits"] = [dataclasses.asdict(r) for r in named.records]
    out.counts["squashes"] = [{"sha": s, "squash_of": of} for s, of in named.squashes]
    out.session.warnings.extend(named.warnings)


def _merge_commits(
    out: _Out, calls: list[_Call], git: list[Session], win: _Window, named: commits.NamedPlan
) -> list[tuple[float, int, int, Event]]:
    items: list[tuple[float, int, int, Event]] = []
    held: dict[str, list[str]] = {}
    seq = 0
    for s in git:
        prev_t = NEG_INF
        for key, e, _ in _sorted_source([s], "commit"):
            t = to_epoch(e.ts)
            sha = getattr(e.info, "sha", None)
            if sha in named.drop:
                out.bump("amended_away")  # G-amend: the amending commit stands for it
                continue
            new, verdict = commits.attribute(e, t, prev_t, calls, named)
            prev_t = t if t is not None else prev_t
            if verdict != "matched" and not win.holds(t):
                out.bump("outside_window" if t is not None else "untimed_left_out")
                continue
            if verdict == "refused":
                out.bump("refused_matches")
            if sha:
                known = e.info.branches if isinstance(e.info, CommitInfo) else None
                held[sha] = list(known or [])
            out.bump("commits")
            out.bump(
                {"matched": "matched_commits", "uncertain": "uncertain_commits"}.get(verdict, "human_commits")
            )
            out.cite(new, s)
            items.append((key, 2, seq, new))
            seq += 1
    out.counts["commit_branches"] = held
    items.sort(key=lambda x: (x[0], x[2]))
    return items


def _new_session(agent: Session | None, history: list[Session], git: list[Session]) -> Session:
    others = [*history, *git]
    everyone = [agent, *others] if agent else others
    if agent is not None:
        meta = dataclasses.replace(agent.meta, extra=dict(agent.meta.extra))
        kind, sid = agent.source_kind, agent.session_id
        evidence = dict(agent.evidence)
    else:
        meta = SessionMeta(agent="shell" if history else "git")
        kind = "shell" if history else "git"
        sid = make_id("timeline", [s.session_id for s in others])
        evidence = {}
    files: list[SourceFile] = [f for s in everyone for f in s.files]
    session = Session(kind, sid, files, evidence, [], meta, _sum_quality(everyone))
    session.warnings = [dataclasses.replace(w) for s in everyone for w in s.warnings]
    return session


def _sum_quality(sessions: list[Session]) -> Quality:
    q = Quality()
    for s in sessions:
        for f in dataclasses.fields(Quality):
            if f.name == "extra":
                for k, v in s.quality.extra.items():
                    q.extra[k] = q.extra.get(k, 0) + v
            else:
                setattr(q, f.name, getattr(q, f.name) + getattr(s.quality, f.name))
    return q
