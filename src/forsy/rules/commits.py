"""Commits on the agent's timeline: the log's word first, time and files only for the rest.

`plan(agent, git, calls)` reads what the agent's log says about commits, before any heuristic:

Named commits (rule `G-named-commit`, score 1.0)
    A `tool_result` (or `note`: Aider keeps its lines there) whose text names a commit:
    * `[branch sha] subject`, `[branch (root-commit) sha] subject`, `[detached HEAD sha] ...`:
      what `git commit` (merge, cherry-pick, revert, `commit --amend`) prints for the commit it
      made; counted only in the result of a shell call that runs such a git command;
    * `Commit <sha> <subject>`: Aider's line for the commit it made (any result or note);
    * `HEAD is now at <sha> <subject>` and a push's `old..new  src -> dst`: the commit is
      named, not made: recorded (`G-named-mention`), never attributed to the call;
    * `gh pr merge`'s `Merged pull request #N (title)`: the commit of that pull request in the
      window (subject ending `(#N)` or `Merge pull request #N`), `G-named-pull-request`, 0.95.
    The sha prefix is resolved among the window's commits, else in the repository
    (`GitLookup`; one the repository holds outside the window is a warning,
    `git_named_commit_outside_window`); a named commit found is attributed to the naming
    call, with its evidence (the result's record), the pointer of the result's text in it
    and the span [start, end) of the name in that text, in `named_commits` and in the
    commit's `Match` (the segmenter copies them into provenance). The text is what forsy read
    at the pointer: the string (for Codex, the JSON document it holds, followed to
    `inner_pointer`), or its text blocks joined by newlines, as `forsy verify` reads it.

Rewritten commits
    * `G-amend`: a `git commit --amend` names a new commit on the branch the previous named
      commit was made on: the earlier one is `amended` (its commit, if still in the
      repository, leaves the timeline: the amend replaces it), both records link each other.
      An amend that names the same commit (nothing changed, within the same second) replaces nothing.
    * `G-named-rewritten` (score 0.7; counted as an uncertain match, which lowers confidence):
      a named commit that the repository does not hold (warning `git_named_commit_missing`
      with the sha and the step) is linked to its rewritten form: the one window commit with
      the same subject whose author date is not after the log named it (a rebase keeps the
      author date); that commit is attributed to the naming call, "rebased as" in the warning.
      A named commit found lists its copies (`same_change_as`: the same `git patch-id`, or the
      same subject, author and author date); one reachable only from a reflog is `rebased_as`
      its one copy on a branch.
    * `G-squash`: a window commit whose patch id equals that of everything an agent's commit
      adds since its branch left the commit's parent (their merge base) squashes those
      commits (two or more): `squash_of` lists them all.

Heuristics (`attribute`), for commits no log line names
    * "shell-git-commit+time" (strong): a shell call whose command runs `git commit` (or
      merge/cherry-pick/revert/am/rebase/pull) and whose [call time - 2 s, end + 2 s] holds the
      commit's committer time. Score 0.8 + 0.2 x (rapidfuzz partial_ratio of the commit subject
      within the command / 100).
    * "edits-before-commit" (weak): edit calls after the previous commit (and after the last
      result that named a commit the agent made: those edits are committed) and not after this
      one, touching the commit's files; coverage >= 0.5 matches (score 0.5 x coverage), less is
      an uncertain `possible_match`.
    `G-refuse`: a strong match is refused when the call's result names the commit(s) it made
    and this is not one of them, when the call failed (its result is an error) and names no
    commit, or when the first line of the call's `-m` message (a heredoc's too) is not the
    commit's subject (rapidfuzz ratio < 80); a weak one when its edits come before a result
    that named a commit the agent made. The commit stays the human's (`refused_matches`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rapidfuzz import fuzz

from ..evidence import Event, ReadingWarning, Session
from ..payloads import CommitInfo, Match
from ..sources.git import GitLookup

NAMED = ("G-named-commit", "G-named-mention", "G-named-pull-request", "G-named-rewritten", "G-amend", "G-squash",
         "G-refuse")
COMMIT_SLACK_S = 2.0  # commit dates are whole seconds
WEAK_MIN_COVERAGE = 0.5
REWRITTEN_SCORE = 0.7
PR_SCORE = 0.95
SUBJECT_MIN = 80.0  # rapidfuzz ratio of a commit's subject and the first line of the call's -m message
GIT_COMMIT = re.compile(
    r"(?:^|[\s;&|(`])git(?:\s+(?:-[Cc]\s+\S+|--?[\w-]+(?:=\S+)?))*\s+"
    r"(commit|merge|cherry-pick|revert|am|rebase|pull)\b"
)
GH_PR_MERGE = re.compile(r"(?:^|[\s;&|(`])gh\s+pr\s+merge\b")
MESSAGE_ARG = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:=|\s+)")
HEREDOC_START = re.compile(r"""^["']?\$\(cat\s+<<-?\s*['"]?\w+['"]?[ \t]*\n""")
_SHA = r"([0-9a-f]{7,40})"
COMMIT_LINE = re.compile(rf"^\[(detached HEAD|[^\s\]]+)(?: \(root-commit\))? {_SHA}\] (.+)$", re.MULTILINE)
AIDER_LINE = re.compile(rf"^Commit {_SHA} (.+)$", re.MULTILINE)
HEAD_LINE = re.compile(rf"^HEAD is now at {_SHA} (.*)$", re.MULTILINE)
PUSH_LINE = re.compile(rf"^\s*\+?\s*{_SHA}\.{{2,3}}{_SHA}\s+(\S+ -> \S+)", re.MULTILINE)
WINDOWS_DRIVE = re.compile(r"[A-Za-z]:/")
PR_LINE = re.compile(r"(?:Squashed and merged|Rebased and merged|Merged) pull request (?:[\w.-]+/[\w.-]+)?#(\d+)"
                     r" \((.*)\)[ \t]*$", re.MULTILINE)


def to_epoch(ts: str | None) -> float | None:
    """Seconds since 1970 of an ISO 8601 time; naive times are read as UTC; None if unreadable."""
    if not ts:
        return None
    try:
        dt = datetime.fromisoformat(ts.strip())
    except ValueError:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()


# --- what a text names ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Named:
    kind: str  # "commit", "aider", "head", "push", "pr"
    sha: str  # as written ("" for a pull request)
    subject: str  # the subject; a push: "src -> dst"; a pull request: its title
    span: tuple[int, int]  # [start, end) of the line in the text
    made: bool  # the command that printed it made the commit (else it only names it)
    branch: str | None = None
    pr: int | None = None


def named_in(text: str) -> list[Named]:
    """Every commit `text` names, in order."""
    out = [Named("commit", m.group(2), m.group(3), m.span(), True, branch=m.group(1))
           for m in COMMIT_LINE.finditer(text)]
    out += [Named("aider", m.group(1), m.group(2), m.span(), True) for m in AIDER_LINE.finditer(text)]
    out += [Named("head", m.group(1), m.group(2), m.span(), False) for m in HEAD_LINE.finditer(text)]
    out += [Named("push", m.group(2), m.group(3), m.span(), False) for m in PUSH_LINE.finditer(text)]
    out += [Named("pr", "", m.group(2), m.span(), True, pr=int(m.group(1))) for m in PR_LINE.finditer(text)]
    return sorted(out, key=lambda n: n.span)


# --- the agent's calls -----------------------------------------------------------------------


@dataclass
class CallSpan:
    """A timed tool call: start, end (its result, else the next timed event), what it ran."""

    event: Event
    start: float
    end: float
    command: str | None  # normalized shell command
    paths: list[str]
    raw_command: str | None = None  # as the agent wrote it (a heredoc message keeps its lines)
    failed: bool = False  # its result is an error


def _bracket(c: CallSpan, t: float, slack: float) -> bool:
    return c.start - slack <= t <= c.end + slack


def _same_file(agent_path: str, repo_path: str) -> bool:
    """An agent's path (absolute or relative) names the repository-relative path."""
    a = agent_path.replace("\\", "/").removeprefix("./")
    if a.startswith("/") or WINDOWS_DRIVE.match(a):  # C:/proj/a.py is as absolute as /proj/a.py
        return a.endswith("/" + repo_path)
    return a == repo_path or repo_path.endswith("/" + a)


def _info(e: Event) -> CommitInfo:
    return e.info if isinstance(e.info, CommitInfo) else CommitInfo()


def _subject(e: Event) -> str:
    return (e.text or "").split("\n", 1)[0].strip()


def _paths(e: Event) -> list[str]:
    return [str(f["path"]) for f in _info(e).files if f.get("path")]


# --- the plan: what the log names --------------------------------------------------------------


@dataclass
class NamedRecord:
    """One commit a log line names, and what became of it (written to the timeline's
    `named_commits`; `evidence` + `span` locate the name in the result's text)."""

    named: str
    kind: str
    subject: str
    call_id: str | None
    evidence: str | None
    pointer: str | None
    span: tuple[int, int]
    status: str = "unresolved"  # matched, mentioned, missing, amended, outside_window, unresolved
    sha: str | None = None
    rule: str | None = None
    branches: list[str] = field(default_factory=list)
    rebased_as: str | None = None
    same_change_as: list[str] = field(default_factory=list)
    amended_as: str | None = None
    amended_by: str | None = None
    amends: str | None = None
    squash_of: list[str] = field(default_factory=list)
    # the record's text is a JSON document held as a string (Codex): parse it, follow this, then `span`
    inner_pointer: str | None = None


@dataclass
class Claim:
    sha: str
    rule: str
    score: float
    actor: str
    call_id: str | None
    named: NamedRecord  # the log line that names it: its evidence, pointer and span go into the Match


@dataclass
class NamedPlan:
    claims: dict[str, Claim] = field(default_factory=dict)  # commit sha -> who the log says made it
    busy: set[str] = field(default_factory=set)  # calls whose result names the commit(s) they made
    named_at: list[float] = field(default_factory=list)  # when results named commits the agent made
    drop: set[str] = field(default_factory=set)  # amended away: the amend replaces them
    records: list[NamedRecord] = field(default_factory=list)
    warnings: list[ReadingWarning] = field(default_factory=list)
    squashes: list[tuple[str, list[str]]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def bump(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1


@dataclass
class _Naming:
    n: Named
    rec: NamedRecord
    event: Event
    call: CallSpan | None
    t: float | None  # when the log named it (the result's time)


class _Window:
    """The window's commits from every git session, with a repository to ask."""

    def __init__(self, git: list[Session]) -> None:
        self.commits: dict[str, Event] = {}
        for s in git:
            for e in s.events:
                sha = _info(e).sha
                if e.kind == "commit" and sha:
                    self.commits.setdefault(sha, e)
        repos = [s.meta.cwd for s in git if s.meta.cwd]
        self.lookup = GitLookup(Path(repos[0])) if repos else None

    def resolve(self, prefix: str) -> tuple[str | None, bool]:
        """(full sha, in the window) of a named sha; (None, False) when nowhere to be found."""
        hits = [s for s in self.commits if s.startswith(prefix)]
        if len(hits) == 1:
            return hits[0], True
        full = self.lookup.resolve(prefix) if self.lookup else None
        return full, full in self.commits


def plan(agent: Session | None, git: list[Session], calls: list[CallSpan]) -> NamedPlan:
    """What the agent's log says about commits (module doc), before any heuristic."""
    out = NamedPlan()
    if agent is None:
        return out
    win = _Window(git)
    by_id = {c.event.call_id: c for c in calls if c.event.call_id}
    namings = [x for e in agent.events if e.kind in ("tool_result", "note") for x in _namings(agent, e, by_id)]
    made = [x for x in namings if x.n.made]
    for x in namings:
        _resolve(out, win, x, agent)
    _amends(out, win, made)
    for x in made:
        if x.rec.status == "missing":
            _rewritten(out, win, x, agent)
        elif x.rec.status == "matched" and x.rec.sha:
            _same_change(win, x.rec)
    _squashes(out, win, made)
    out.records = [x.rec for x in namings]
    return out


def _namings(agent: Session, e: Event, by_id: dict[str, CallSpan]) -> list[_Naming]:
    call = by_id.get(e.call_id) if e.call_id else None
    cmd = call.command if call else None
    out: list[_Naming] = []
    for n in named_in(e.text or ""):
        if e.kind == "tool_result" and n.kind in ("commit", "head", "push", "pr") and cmd is None:
            continue  # not a shell command's output (a file read, a search): it made nothing
        if n.kind == "commit" and not GIT_COMMIT.search(cmd or ""):
            n = dataclasses.replace(n, made=False)  # printed by some other command (a log, a show)
        if n.kind == "pr" and not GH_PR_MERGE.search(cmd or ""):
            continue
        ref = e.refs[0] if e.refs else None
        rec = NamedRecord(n.sha if n.kind != "pr" else f"#{n.pr}", n.kind, n.subject, e.call_id,
                          ref.ev if ref else None, ref.pointer if ref else None, n.span,
                          inner_pointer=e.info.inner_pointer if e.info is not None else None)
        out.append(_Naming(n, rec, e, call, to_epoch(e.ts) if call is None else call.end))
    return out


def _claim(out: NamedPlan, x: _Naming, sha: str, rule: str, score: float) -> None:
    if sha in out.claims:
        return  # the first line that names it made it (a later one repeats it)
    actor = x.call.event.actor if x.call else x.event.actor
    out.claims[sha] = Claim(sha, rule, score, actor, x.rec.call_id if x.call else None, x.rec)


def _step(x: _Naming) -> str:
    return f"the result of call {x.rec.call_id}" if x.rec.call_id else "a note"


def _resolve(out: NamedPlan, win: _Window, x: _Naming, agent: Session) -> None:
    rec, n = x.rec, x.n
    if n.kind == "pr":
        hits = [s for s, e in win.commits.items()
                if _subject(e).endswith(f"(#{n.pr})") or _subject(e).startswith(f"Merge pull request #{n.pr} ")]
        sha, inside = (hits[0], True) if len(hits) == 1 else (None, False)
    else:
        sha, inside = win.resolve(n.sha)
    rec.sha = sha
    if n.made:
        out.bump("commits_named")
        if x.call is not None and x.call.event.call_id:
            out.busy.add(x.call.event.call_id)
        if x.t is not None:
            out.named_at.append(x.t)
    if sha is None:
        rec.status = "missing" if n.made and n.kind != "pr" else "unresolved"
        return
    if not inside:
        rec.status = "outside_window"
        ev = agent.evidence.get(rec.evidence or "")
        out.warnings.append(ReadingWarning(
            "git_named_commit_outside_window", f"{_step(x)} names commit {rec.named} ({sha}, {rec.subject}), which "
            "the repository holds outside the time window: it is not on the timeline", ev.source if ev else None,
            ev.line if ev else None))
        return
    rec.branches = list(_info(win.commits[sha]).branches or [])
    if not n.made:
        rec.status, rec.rule = "mentioned", "G-named-mention"
        return
    rec.status = "matched"
    rec.rule = "G-named-pull-request" if n.kind == "pr" else "G-named-commit"
    out.bump("named_matched")
    _claim(out, x, sha, rec.rule, PR_SCORE if n.kind == "pr" else 1.0)


def _amends(out: NamedPlan, win: _Window, made: list[_Naming]) -> None:
    """G-amend: `commit --amend` names a new commit; the one before on its branch is replaced."""
    last: dict[str | None, _Naming] = {}
    for x in made:
        if x.n.kind != "commit":
            continue
        prev = last.get(x.n.branch)
        last[x.n.branch] = x
        if prev is None or not x.call or "--amend" not in (x.call.command or "") or _same_commit(prev.rec, x.rec):
            continue  # an amend that changed nothing (same tree, message and second) made the same commit
        prev.rec.status, prev.rec.amended_as, prev.rec.amended_by = "amended", x.rec.named, x.rec.call_id
        x.rec.amends, prev.rec.rule = prev.rec.named, "G-amend"
        out.bump("named_amended")
        if prev.rec.sha is not None and prev.rec.sha in win.commits:
            out.drop.add(prev.rec.sha)
            out.claims.pop(prev.rec.sha, None)
            out.counts["named_matched"] -= 1


def _same_commit(a: NamedRecord, b: NamedRecord) -> bool:
    """Two names of one commit: the same full sha, or (one unresolved) one short sha a prefix of the other."""
    if a.sha is not None and b.sha is not None:
        return a.sha == b.sha
    return a.named.startswith(b.named) or b.named.startswith(a.named)


def _rewritten(out: NamedPlan, win: _Window, x: _Naming, agent: Session) -> None:
    """G-named-rewritten: a named commit the repository lacks, and the one it became."""
    rec = x.rec
    limit = (x.t if x.t is not None else float("inf")) + COMMIT_SLACK_S
    cands = [s for s, e in win.commits.items() if s not in out.claims and _subject(e) == x.n.subject
             and (to_epoch(_info(e).author_date) or float("inf")) <= limit]
    out.bump("named_missing")
    where = ""
    ev = agent.evidence.get(rec.evidence or "")
    if len(cands) == 1:
        rec.rebased_as, rec.rule = cands[0], "G-named-rewritten"
        rec.branches = list(_info(win.commits[cands[0]]).branches or [])
        _claim(out, x, cands[0], "G-named-rewritten", REWRITTEN_SCORE)
        out.bump("named_rewritten")
        where = f"; rebased as {cands[0]} (same subject, authored before the log named it)"
    elif cands:
        where = f"; {len(cands)} commits in the window have its subject: not linked"
    else:
        where = "; no rewritten form found in the window"
    out.warnings.append(ReadingWarning(
        "git_named_commit_missing", f"{_step(x)} names commit {rec.named} ({rec.subject}), which the repository does "
        f"not hold{where}", ev.source if ev else None, ev.line if ev else None))


def _same_change(win: _Window, rec: NamedRecord) -> None:
    """A named commit's change under other shas: the same `git patch-id`, or the same subject,
    author and author date (a rebase that had to change the diff); rebased or cherry-picked copies."""
    e = win.commits[rec.sha or ""]
    info = _info(e)
    pid = info.patch_id
    who = (_subject(e), info.author_name, info.author_email, to_epoch(info.author_date))

    def same(o: Event) -> bool:
        oi = _info(o)
        if pid and oi.patch_id == pid:
            return True
        return who[3] is not None and (_subject(o), oi.author_name, oi.author_email, to_epoch(oi.author_date)) == who

    copies = [s for s, o in win.commits.items() if s != rec.sha and same(o)]
    on_branch = [s for s in copies if _info(win.commits[s]).branches]
    if info.branches == [] and len(on_branch) == 1:  # [] (not None: not asked): no branch holds it
        rec.rebased_as = on_branch[0]  # only a reflog holds the named one: it was rewritten
    rec.same_change_as = copies


def _squashes(out: NamedPlan, win: _Window, made: list[_Naming]) -> None:
    """G-squash: a commit holding, as one change, an agent's commits since their branch left it."""
    order = list(win.commits)
    tips = [s for s in (x.rec.rebased_as or x.rec.sha for x in made if x.rec.status in ("matched", "missing"))
            if s in win.commits]
    tips.sort(key=order.index, reverse=True)  # the latest first: its range holds the earlier ones
    done: set[str] = set()
    for tip in tips:
        files = set(_paths(win.commits[tip]))
        for s in order[order.index(tip) + 1:]:
            e = win.commits[s]
            pid, parents = _info(e).patch_id, _info(e).parents
            if s in done or not pid or len(parents) != 1 or not files <= set(_paths(e)) or win.lookup is None:
                continue
            if win.lookup.is_ancestor(tip, s):
                continue
            got = win.lookup.range_patch_id(parents[0], tip)
            if got is None or got[0] != pid or len(got[1]) < 2:
                continue
            done.add(s)
            out.squashes.append((s, got[1]))
            for x in made:
                if s in (x.rec.sha, x.rec.rebased_as):
                    x.rec.squash_of = got[1]


# --- attributing one commit -----------------------------------------------------------------------


def attribute(e: Event, t: float | None, prev_t: float, calls: list[CallSpan], named: NamedPlan
              ) -> tuple[Event, str]:
    """A copy of the commit event with its match; and "matched", "uncertain", "human" or "refused"."""
    sha = _info(e).sha
    claim = named.claims.get(sha or "")
    if claim is not None:
        rec = claim.named
        match = Match(claim.rule, claim.score, files=tuple(_paths(e)), calls=(claim.call_id,) if claim.call_id else (),
                      evidence=rec.evidence, pointer=rec.pointer, inner_pointer=rec.inner_pointer, span=rec.span)
        info = dataclasses.replace(_info(e), matched_call_id=claim.call_id, match=match)
        return dataclasses.replace(e, actor=claim.actor, info=info), "matched"
    if t is None:
        return e, "human"
    strong, refused = _strong(e, t, calls, named.busy)
    if strong:
        c, score = strong
        match = Match("shell-git-commit+time", round(score, 3), files=tuple(_paths(e)))
        return _matched(e, c, match), "matched"
    done = max((x for x in named.named_at if x <= t), default=prev_t)  # edits before it are committed
    hits, files, coverage = _weak(e, t, max(prev_t, done), calls)
    if hits and coverage >= WEAK_MIN_COVERAGE:
        last = max(hits, key=lambda c: c.start)
        match = Match("edits-before-commit", round(0.5 * coverage, 3), files=tuple(files),
                      calls=tuple(c.event.call_id for c in hits))
        return _matched(e, last, match), "matched"
    if hits:
        last = max(hits, key=lambda c: c.start)
        possible = Match("edits-before-commit", round(0.5 * coverage, 3), call_id=last.event.call_id,
                         files=tuple(files))
        return dataclasses.replace(e, info=dataclasses.replace(_info(e), possible_match=possible)), "uncertain"
    return e, "refused" if refused or _weak(e, t, prev_t, calls)[2] >= WEAK_MIN_COVERAGE else "human"


def _strong(e: Event, t: float, calls: list[CallSpan], busy: set[str]) -> tuple[tuple[CallSpan, float] | None, bool]:
    """The `git commit` call whose time brackets the commit (best subject match, then latest),
    and whether a call was refused because the log contradicts it (G-refuse)."""
    subject = _subject(e)
    best: tuple[tuple[float, float], CallSpan, float] | None = None
    refused = False
    for c in calls:
        if not c.command or not GIT_COMMIT.search(c.command) or not _bracket(c, t, COMMIT_SLACK_S):
            continue
        sim = fuzz.partial_ratio(subject, c.command) if subject else 0.0
        said = message_subject(c.raw_command or c.command)
        if c.event.call_id in busy or c.failed or (subject and said is not None
                                                    and fuzz.ratio(subject, said) < SUBJECT_MIN):
            refused = True  # its result names other commits, it failed, or its message is another subject
            continue
        score = 0.8 + 0.2 * sim / 100
        key = (score, c.start)
        if best is None or key > best[0]:
            best = (key, c, score)
    return ((best[1], best[2]) if best else None), refused


def message_subject(command: str) -> str | None:
    """The first line of a `git commit -m` message in a command (quoted, bare, or a heredoc)."""
    m = MESSAGE_ARG.search(command)
    if m is None:
        return None
    rest = command[m.end():]
    if h := HEREDOC_START.match(rest):
        return rest[h.end():].split("\n", 1)[0].strip()
    if rest[:1] in ("'", '"'):
        body = rest[1:]
        end = body.find(rest[0])
        return (body if end < 0 else body[:end]).split("\n", 1)[0].strip()
    words = rest.split()
    return words[0] if words else None


def _weak(e: Event, t: float, prev_t: float, calls: list[CallSpan]) -> tuple[list[CallSpan], list[str], float]:
    """Edit calls in (prev_t, t] touching the commit's files; (calls, files, coverage)."""
    paths = _paths(e)
    if not paths:
        return [], [], 0.0
    hits: list[CallSpan] = []
    touched: set[str] = set()
    for c in calls:
        if not c.paths or not prev_t < c.start <= t:
            continue
        got = {p for p in paths for a in c.paths if _same_file(a, p)}
        if got:
            hits.append(c)
            touched |= got
    return hits, sorted(touched), len(touched) / len(paths)


def _matched(e: Event, c: CallSpan, match: Match) -> Event:
    info = dataclasses.replace(_info(e), matched_call_id=c.event.call_id, match=match)
    return dataclasses.replace(e, actor=c.event.actor, info=info)
