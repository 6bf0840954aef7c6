"""Legacy Forsy traces (`schema_version` forsy-v1 / forsy-v2, the upstream examples) → `Session`s,
so `forsy retrace` upgrades them to forsy-trace-v0.1.

A legacy trace is a claim about work, not a log of it: what can be upgraded is what an event
can hold, copied from the legacy trace.json (one evidence record, values cited by JSON
pointer); every other value is listed as not upgraded, never carried over as if the log
showed it:

* a step with a tool → the agent's reasoning (when given), a tool call with the step's input
  as its arguments text, and its output as the result (error flag: success false);
* a user_message step (or any step of actor `user`) → a user event with its input;
* any other agent step (output, error, and the legacy actions: analysis, delivery, search…)
  → its reasoning and its output as the agent's text: forsy makes it an `output` step, and
  consecutive ones become one (the segmenter joins an actor's answers), which is listed;
* times: started_at → the time of the step's first event, ended_at → of its result;
* actor `assistant` is the agent (`agent`); parallel_group → the group of the calls;
* top level: system_prompt, memory, skills, agent_tools and agent_config are session facts
  (a value of another type, or a list's items that are not text, listed as not upgraded).

Not upgraded (warning `not-upgraded`, one per field, naming the steps): each step's
observation, state_change, eval, eval_reason, directive, causal fields, alternatives,
input_source, message_role, feedback fields, retry_of, success of a step with no tool,
operation (derived again from the tool), the legacy action names, and the trace's own
summary, learning, termination_reason, static_output, final_output and task when they are not
what forsy derives. `quality.extra` counts them (`not_upgraded_values`) and the values carried
(`upgraded_values`) for the manifest, so the confidence can be lowered by the share lost.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Event, Evidence, Ref, Session
from .. import ReadContext
from ..chat import load_doc, new_session, parsed, unreadable
from ..lines import discover_sniffed

KIND = "forsy_v1"
VERSIONS = ("forsy-v1", "forsy-v2")
# step fields an event holds (the rest are listed as not upgraded when they have a value)
_CARRIED = {"step", "step_index", "turn", "actor", "action", "tool", "input", "output", "reasoning", "started_at",
            "ended_at", "parallel_group", "execution_mode"}
# top-level fields carried as session facts, or that name the legacy file itself
_TOP_CARRIED = {"schema_version", "steps", "system_prompt", "memory", "skills", "agent_tools", "agent_config"}
_AGENT_ACTIONS = ("agent_step", "output", "error", "tool_call")


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v != "" else None


class ForsyV1Source:
    name: ClassVar[str] = KIND
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return s.startswith(b"{") and any(b'"schema_version": "%s"' % v.encode() in head
                                          or b'"schema_version":"%s"' % v.encode() in head for v in VERSIONS)

    def discover(self, path: Path) -> list[Path]:
        return discover_sniffed(path, self.sniff, ("trace.json",), recursive=True)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        doc = load_doc(path, ctx, KIND)
        d = parsed(doc)
        tid = _str(d.get("trace_id")) if isinstance(d, dict) else None
        s = new_session(KIND, tid or path.parent.name, doc, "forsy-v1")
        if not isinstance(d, dict) or not isinstance(d.get("steps"), list):
            # its one record could not be read as a trace: the file fails, saying why and where
            s.quality.unparsable_records = 1
            why, line = unreadable(doc.data, "not a legacy Forsy trace (no steps list)")
            s.warn("unparsable", f"{why}; nothing read", doc.source, line)
            return [s]
        ev = s.add_evidence(Evidence.make(doc.source, 1, 0, doc.data, doc.file.sha256, "legacy-trace"))
        s.quality.records = 1
        _Upgrade(s, ev, d).run()
        return [s]


class _Upgrade:
    def __init__(self, s: Session, ev: str, d: dict[str, Any]) -> None:
        self.s, self.ev, self.d = s, ev, d
        self.src = s.evidence[ev].source
        self.gaps: dict[str, list[str]] = defaultdict(list)  # field → where ("step 3", "trace")
        self.carried = 0  # legacy values an event now holds

    def ref(self, ptr: str) -> Ref:
        return Ref(self.ev, ptr)

    def run(self) -> None:
        held = self._session_facts()
        prev_answer: int | None = None
        for i, st in enumerate(self.d["steps"]):
            if not isinstance(st, dict):
                self.s.quality.unknown_records += 1
                self.s.warn("not-a-step", f"/steps/{i} is not an object; skipped", self.src, None)
                continue
            answered = self._step(i, st)
            if answered and prev_answer is not None:
                self.gaps["step boundaries"].append(f"steps {prev_answer + 1}-{i + 1} joined into one output step")
            prev_answer = i if answered else None
        self._top_gaps(held)
        total = 0
        for name, where in self.gaps.items():
            total += len(where)
            shown = ", ".join(where[:12]) + (f", … ({len(where)} in all)" if len(where) > 12 else "")
            self.s.warn("not-upgraded", f"{name}: not upgraded ({shown}); no event holds it, so forsy derives it "
                        "again or leaves it null", self.src, None)
        self.s.quality.extra["not_upgraded_values"] = total
        self.s.quality.extra["upgraded_values"] = self.carried

    def _session_facts(self) -> set[str]:
        """The top-level facts a session field can hold; returns the keys held whole (a value of
        another type, or a list's items that are not text, are then named as not upgraded)."""
        d, m = self.d, self.s.meta
        held = {"schema_version", "steps"}
        if _str(d.get("system_prompt")):
            m.system_prompt, m.system_prompt_ref = d["system_prompt"], self.ref("/system_prompt")
            held.add("system_prompt")
        if _str(d.get("memory")):
            m.memory = d["memory"]
            held.add("memory")
        for key, names in (("skills", m.skills), ("agent_tools", m.tools)):
            v = d.get(key)
            if isinstance(v, list):
                names[:] = [x for x in v if isinstance(x, str)]
                if len(names) == len(v):
                    held.add(key)
        cfg = d.get("agent_config")
        if isinstance(cfg, dict):
            m.extra.update({f"legacy_{k}": v for k, v in cfg.items()})
            held.add("agent_config")
        return held

    def _step(self, i: int, st: dict[str, Any]) -> bool:
        """Events of legacy step i; True when it became agent text (an answer)."""
        p = f"/steps/{i}"
        actor = _str(st.get("actor")) or "agent"
        actor = "agent" if actor == "assistant" else actor
        action = _str(st.get("action"))
        n = f"step {i + 1}"
        for k, v in st.items():
            if k not in _CARRIED and v is not None and not (k == "eval" and v == 0):
                if k == "success" and st.get("tool"):
                    continue
                self.gaps[k].append(n)
        if action not in ("user_message", *_AGENT_ACTIONS):
            self.gaps["legacy action names"].append(f"{n} ({action})")
        ts, ts_ref = _str(st.get("started_at")), self.ref(f"{p}/started_at") if _str(st.get("started_at")) else None
        end, end_ref = _str(st.get("ended_at")), self.ref(f"{p}/ended_at") if _str(st.get("ended_at")) else None
        text_in, text_out = _str(st.get("input")), _str(st.get("output"))
        self.carried += sum(1 for k in ("input", "output", "reasoning", "tool", "started_at", "ended_at")
                            if _str(st.get(k)) is not None)
        if action == "user_message" or actor == "user":
            if text_in is None:
                self.gaps["user message without input"].append(n)
                return False
            self.s.events.append(Event("user", "user", ts, [self.ref(f"{p}/input")], text=text_in, ts_ref=ts_ref))
            return False
        reasoning = _str(st.get("reasoning"))
        if reasoning is not None:
            self.s.events.append(Event("reasoning", actor, ts, [self.ref(f"{p}/reasoning")], text=reasoning,
                                       ts_ref=ts_ref))
        tool = _str(st.get("tool"))
        if tool is not None:
            cid = f"{self.ev}:{p}"
            group = _str(st.get("parallel_group"))
            self.s.events.append(Event("tool_call", actor, ts, [self.ref(f"{p}/input")] if text_in else [self.ref(p)],
                                       call_id=cid, tool=tool, args=text_in, group=group, ts_ref=ts_ref,
                                       name_ref=self.ref(f"{p}/tool")))
            if text_out is not None:
                ok = st.get("success")
                err = (not ok) if isinstance(ok, bool) else None  # absent or null: unknown, not a success
                self.s.events.append(Event("tool_result", actor, end, [self.ref(f"{p}/output")], text=text_out,
                                           call_id=cid, is_error=err, ts_ref=end_ref))
            return False
        if text_in is not None:
            self.gaps["input of a step with no tool"].append(n)
        if text_out is None:
            if reasoning is None:
                self.gaps["steps with nothing to upgrade"].append(n)
            return False
        self.s.events.append(Event("agent_text", actor, ts, [self.ref(f"{p}/output")], text=text_out, ts_ref=ts_ref))
        return True

    def _top_gaps(self, held: set[str]) -> None:
        d = self.d
        first_user = next((s.get("input") for s in d["steps"] if isinstance(s, dict)
                           and (s.get("action") == "user_message" or s.get("actor") == "user")), None)
        for k, v in d.items():
            if k in held or v is None or v == [] or v == {} or (k in _TOP_CARRIED and v == ""):
                continue
            if k == "task" and v == first_user:
                continue  # forsy derives the task from the first user message: the same words
            self.gaps[f"trace.{k}"].append("the trace")
