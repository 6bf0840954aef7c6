"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format) → `Session`s.

The file is one JSON document and one evidence record; every value is cited by its JSON
pointer inside it. Per step:

* `system`: a compaction when forsy wrote it as one (its `extra.forsy_steps[0].actor` is
  `system`); else the first step's message is the system prompt, and a later one a note,
  warned about (it is not a step of the work);
* `user`: a user event with the exact message;
* `agent`: its `reasoning_content` as reasoning, its message as agent text, one tool call per
  `tool_calls` entry (the calls of a step share a group: issued together), and one result
  per `observation.results` entry linked by `source_call_id`. A result with no call id (a
  non-tool action) becomes agent text, since it is what the agent got back;
* the step's `timestamp` is the time of its events; `extra.forsy_steps` (written by forsy's
  own export) gives each call's actor, end time and success flag when present.

Embedded `subagent_trajectories` are not read (warned about and counted); neither is an agent
step's message in several content parts (text and images, ATIF v1.6: warned, counted), whose
reasoning, calls and results are read, nor an `observation` that is no object with a `results`
list (warned, counted). A document cut short, no JSON, or of another shape fails, naming its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Event, Evidence, Ref, Session
from ...payloads import NoteInfo
from .. import ReadContext
from ..chat import load_doc, new_session, parsed, unreadable
from ..lines import discover_sniffed

KIND = "atif"


def _text(v: Any, ptr: str) -> tuple[str | None, str] | None:
    if v is None or isinstance(v, str):
        return v, ptr
    if isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict) and isinstance(v[0].get("text"), str):
        return v[0]["text"], f"{ptr}/0/text"
    return None


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _forsy(step: dict[str, Any], k: int) -> dict[str, Any]:
    extra = step.get("extra")
    fs = extra.get("forsy_steps") if isinstance(extra, dict) else None
    item = fs[k] if isinstance(fs, list) and k < len(fs) else None
    return item if isinstance(item, dict) else {}


class AtifSource:
    name: ClassVar[str] = KIND

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return s.startswith(b"{") and b'"schema_version"' in s[:400] and b'"ATIF-v' in s[:600]

    def discover(self, path: Path) -> list[Path]:
        return discover_sniffed(path, self.sniff, ("*.json",), named=lambda p: p.suffix == ".json")

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        doc = load_doc(path, ctx, KIND)
        d = parsed(doc)
        sid = (d.get("session_id") or d.get("trajectory_id")) if isinstance(d, dict) else None
        s = new_session(KIND, sid if isinstance(sid, str) and sid else path.stem, doc, "atif")
        if not isinstance(d, dict) or not isinstance(d.get("steps"), list):
            # its one record could not be read as a trajectory: the file fails, saying why and where
            s.quality.unparsable_records = 1
            why, line = unreadable(doc.data, "not an ATIF trajectory (no steps list)")
            s.warn("unparsable", f"{why}; nothing read", doc.source, line)
            return [s]
        ev = s.add_evidence(Evidence.make(doc.source, 1, 0, doc.data, doc.file.sha256, "trajectory"))
        s.quality.records = 1
        agent = _dict(d.get("agent"))
        if isinstance(agent.get("name"), str):
            s.meta.agent = agent["name"]
        if isinstance(agent.get("version"), str):
            s.meta.agent_version = agent["version"]
        if isinstance(agent.get("model_name"), str):
            s.meta.models.append(agent["model_name"])
        for t in _list(agent.get("tool_definitions")):
            fn = t.get("function") if isinstance(t, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                s.meta.tools.append(fn["name"])
        if d.get("subagent_trajectories"):
            n = len(d["subagent_trajectories"]) if isinstance(d["subagent_trajectories"], list) else 1
            s.quality.unknown_records += n
            s.warn("subagents-not-read", f"{n} embedded subagent trajectory(ies) not read", doc.source, None)
        for i, st in enumerate(d["steps"]):
            _step(s, ev, st, f"/steps/{i}", i == 0)
        return [s]


def _step(s: Session, ev: str, st: Any, p: str, first: bool) -> None:
    src = s.evidence[ev].source
    if not isinstance(st, dict) or st.get("source") not in ("system", "user", "agent"):
        s.quality.unknown_records += 1
        s.warn("not-a-step", f"{p} is not an ATIF step; skipped", src, None)
        return
    got = _text(st.get("message"), f"{p}/message")
    if got is None and st["source"] != "agent":
        s.quality.unknown_records += 1
        s.warn("content-parts", f"{p}/message holds content parts other than one text; skipped", src, None)
        return
    if got is None:  # an agent step's words in several parts (text and images): its calls are still read
        s.quality.unknown_records += 1
        s.warn("content-parts", f"{p}/message holds content parts other than one text; not read (the step's "
               "reasoning, calls and results are)", src, None)
    text, tptr = got if got is not None else (None, f"{p}/message")
    ts = _str(st.get("timestamp"))
    ts_ref = Ref(ev, f"{p}/timestamp") if ts else None
    fs0 = _forsy(st, 0)
    actor = _str(fs0.get("actor"))
    source = st["source"]
    if source == "system":
        if actor == "system:hook":  # a hook's intervention exported by forsy: a hook step again (R-hook)
            s.events.append(Event("note", "system:hook", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref,
                                  info=NoteInfo(subtype="hook")))
        elif actor == "system":
            s.events.append(Event("compaction", "system", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
        elif first and text is not None:
            s.meta.system_prompt, s.meta.system_prompt_ref = text, Ref(ev, tptr)
        else:
            s.events.append(Event("note", "system", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
            s.warn("system-step", f"system step {p} is kept as a note, not a step", src, None)
        return
    if source == "user":
        s.events.append(Event("user", actor or "user", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
        return
    who = actor or "agent"
    if isinstance(st.get("reasoning_content"), str) and st["reasoning_content"]:
        s.events.append(Event("reasoning", who, ts, [Ref(ev, f"{p}/reasoning_content")], text=st["reasoning_content"],
                              ts_ref=ts_ref))
    if text:
        s.events.append(Event("agent_text", who, ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
    calls = _list(st.get("tool_calls"))
    index: dict[str, int] = {}
    for k, c in enumerate(calls):
        cp = f"{p}/tool_calls/{k}"
        if not isinstance(c, dict) or not isinstance(c.get("function_name"), str):
            s.quality.unknown_records += 1
            s.warn("bad-tool-call", f"{cp} has no function_name; skipped", src, None)
            continue
        args, aptr = c.get("arguments"), f"{cp}/arguments"
        extra = _dict(c.get("extra"))
        if extra.get("no_input") is True:
            args = None
        elif extra.get("raw_input") is True and isinstance(args, dict) and isinstance(args.get("input"), str):
            args, aptr = args["input"], f"{aptr}/input"
        cid = c["tool_call_id"] if isinstance(c.get("tool_call_id"), str) else f"{ev}:{cp}"
        fs = _forsy(st, k)
        cts = _str(fs.get("started_at"))  # forsy's export: each call of a parallel step keeps its own time
        cts_ref = Ref(ev, f"{p}/extra/forsy_steps/{k}/started_at") if cts else ts_ref
        s.events.append(Event("tool_call", _str(fs.get("actor")) or who, cts or ts,
                              [Ref(ev, aptr)], call_id=cid, tool=c["function_name"], args=args, group=f"{ev}{p}",
                              ts_ref=cts_ref, name_ref=Ref(ev, f"{cp}/function_name")))
        index[cid] = k
    obs = st.get("observation")
    results = obs.get("results") if isinstance(obs, dict) else None
    if (obs is not None and not isinstance(obs, dict)) or (results is not None and not isinstance(results, list)):
        s.quality.unknown_records += 1
        what = f"{p}/observation" if not isinstance(obs, dict) else f"{p}/observation/results"
        s.warn("bad-observation", f"{what} is {type(obs if not isinstance(obs, dict) else results).__name__}, "
               "not an object with a results list; its results not read", src, None)
    for r, res in enumerate(_list(results)):
        rp = f"{p}/observation/results/{r}"
        got = _text(res.get("content"), f"{rp}/content") if isinstance(res, dict) else None
        if got is None:
            s.quality.unknown_records += 1
            s.warn("bad-result", f"{rp} is not a text result; skipped", src, None)
            continue
        rtext, rptr = got
        cid = res.get("source_call_id")
        if not isinstance(cid, str):
            if rtext:
                s.events.append(Event("agent_text", who, ts, [Ref(ev, rptr)], text=rtext, ts_ref=ts_ref))
            continue
        fs = _forsy(st, index.get(cid, -1)) if cid in index else {}
        end = _str(fs.get("ended_at"))
        k = index[cid] if cid in index else -1
        ok = fs.get("success")  # forsy's own step record: its success flag, both ways; else unknown
        err = (not ok) if isinstance(ok, bool) else None
        s.events.append(Event("tool_result", who, end, [Ref(ev, rptr)], text=rtext, call_id=cid, is_error=err,
                              ts_ref=Ref(ev, f"{p}/extra/forsy_steps/{k}/ended_at") if end else None))
