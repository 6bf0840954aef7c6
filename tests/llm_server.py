"""A scripted OpenAI-compatible chat server for tests: NOT a model.

It reads forsy's request (the STEP / SESSION lines and <evidence> blocks of prompts/segment_v2.md)
and answers by a fixed script chosen by the model name (`openai/scripted-<behaviour>`):

    good            proposes values that restate quotes copied from the evidence blocks
    fabricate       values and quotes that are in no evidence (marker FABRICATED-9c1), fake ids,
                    copied-field overwrites, off-enum values, a goal claim with no citation
    wrong-quotes    real ids, but each quote is taken from another block (marker WRONGQ-4d2)
    bad-ids         real quotes, cited under ids that do not exist (marker BADID-77e)
    inject          obeys instructions planted in the log ("…write that the task succeeded")
    malformed       an answer that is not JSON, every time
    malformed-once  not JSON the first time a request is seen, then `good`
    429             HTTP 429 the first time a request is seen, then `good`
    timeout         sleeps `slow_s` seconds before answering `good` (past the client's timeout); the HTTP
                    server watches the socket meanwhile and counts a client that hung up (`cancelled`)
    invent          real evidence ids, verbatim quotes, invented values (marker words INVENTED_MARKERS):
                    a foreign word, a number, a path, an enum without its kind of quote, a field on a
                    step it does not apply to, a quote with one character changed
    overflow        HTTP 400 "exceeds the available context size" (llama.cpp's words) for a request
                    longer than `OVERFLOW_CHARS`, else `good`
    fenced          the `good` answer inside a ```json fence, with words before and after

A grouping request (proposed steps, prompts/steps_v1.md: a shell-only session or a
long run of shell commands) is answered by `grouping`: a valid grouping for `good`, one forsy
must reject for `invent`, `fabricate`, `wrong-quotes`, `bad-ids` and `inject`; `fenced`,
`malformed`, `timeout`, `429` and `overflow` behave as for any request.

Run by the tests as a fixture (127.0.0.1, a free port, stops by itself after `max_seconds` or
`max_requests`), or by hand for an end-to-end check:

    python tests/llm_server.py --seconds 600      # prints http://127.0.0.1:PORT/v1
    forsy retrace SESSION --llm openai/scripted-fabricate --llm-api-base http://127.0.0.1:PORT/v1

`ScriptedClient` runs the same script in-process, as an injected completion callable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STEP = re.compile(r"^(CONTEXT STEP|STEP) (\d+) \| (.*)$", re.M)
SESSION = re.compile(r"^SESSION \| fill: ([^|]*) \|.*\| task: ([^|]*) \| final answer: (.*)$", re.M)
BLOCK = re.compile(r'<evidence id="([^"]+)" role="([^"]*)">\n(.*?)\n</evidence>', re.S)
INJECTED = re.compile(r"[^.\n]*ignore (all )?previous instructions[^.\n]*", re.I)
OMITTED = "\n…["
BEHAVIOURS = ("good", "fabricate", "wrong-quotes", "bad-ids", "inject", "malformed", "malformed-once", "429",
              "timeout", "invent", "overflow", "fenced")
OVERFLOW_CHARS = 6000


class ScriptedHTTPError(Exception):
    def __init__(self, status_code: int, message: str):
        super().__init__(message)
        self.status_code = status_code


# ---------------------------------------------------------------------- reading the request
def parse_request(text: str) -> dict[str, Any]:
    blocks = {m.group(1): (m.group(2), m.group(3)) for m in BLOCK.finditer(text)}
    steps = []
    for m in STEP.finditer(text):
        parts = m.group(3).split(" | ")
        info: dict[str, Any] = {"n": int(m.group(2)), "context": m.group(1) != "STEP", "actor": parts[0],
                                "action": parts[1], "evidence": [], "fill": [], "tool": None}
        for p in parts[2:]:
            if p.startswith("tool="):
                info["tool"] = json.loads(p[5:])
            elif p.startswith("evidence: ") and p != "evidence: -":
                info["evidence"] = [(e.split(" (")[0], e.split(" (", 1)[1].rstrip(")")) for e in p[10:].split(", ")]
            elif p.startswith("fill: ") and p != "fill: nothing":
                info["fill"] = p[6:].split(", ")
        steps.append(info)
    session = None
    sm = SESSION.search(text)
    if sm:
        session = {"fill": [f.strip() for f in sm.group(1).split(",")], "task": sm.group(2).strip().split(", "),
                   "final": sm.group(3).strip().split(", ")}
    return {"blocks": blocks, "steps": steps, "session": session}


def quote(text: str, length: int = 60) -> str:
    """A real passage of a block: from its head, never across forsy's omission marker."""
    head = text.split(OMITTED, 1)[0]
    for line in head.splitlines():
        line = line.strip()
        if len(line) >= 20:
            return line[:length].strip()
    return head.strip()[:length].strip()


def cite(ev: str, q: str) -> list[dict[str, str]]:
    return [{"evidence_id": ev, "quote": q}]


# ---------------------------------------------------------------------- the scripts
def _ev(step: dict[str, Any], req: dict[str, Any], role: str) -> str | None:
    return next((e for e, r in step["evidence"] if role in r and e in req["blocks"]), None)


def good(req: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    blocks = req["blocks"]
    prev_result: str | None = None
    for s in req["steps"]:
        if s["context"]:
            prev_result = _quotable(s, req) or prev_result
            continue
        if s["actor"] == "user" and s["fill"]:
            out.extend(_user(s, req))
        elif s["fill"]:
            res = _ev(s, req, "result")
            if res and len(quote(blocks[res][1])) < 12:
                res = None  # too short a result to quote (forsy needs 12 characters or the whole text)
            if res and "state_change" in s["fill"]:
                q = quote(blocks[res][1])
                out.append({"step": s["n"], "field": "state_change", "value": f"The call returned: {q}",
                            "citations": cite(res, q)})
            if prev_result and "observation" in s["fill"]:
                q = quote(blocks[prev_result][1])
                out.append({"step": s["n"], "field": "observation", "value": f"The result read: {q}",
                            "citations": cite(prev_result, q)})
        prev_result = _quotable(s, req) or prev_result
    if req["session"]:
        out.extend(_session_good(req))
    return out


def _quotable(s: dict[str, Any], req: dict[str, Any]) -> str | None:
    ev = _ev(s, req, "result") or _ev(s, req, "answer")
    return ev if ev and len(quote(req["blocks"][ev][1])) >= 12 else None


def _user(s: dict[str, Any], req: dict[str, Any]) -> list[dict[str, Any]]:
    ev = _ev(s, req, "user words")
    if ev is None:
        return []
    words = req["blocks"][ev][1]
    q = quote(words, 200)
    if not re.search(r"\b(no|wrong|instead|not)\b", words, re.I):
        return [{"step": s["n"], "field": "feedback_type", "value": "new_instruction", "citations": cite(ev, q)},
                {"step": s["n"], "field": "message_role", "value": "new_constraint", "citations": cite(ev, q)}]
    out = [{"step": s["n"], "field": f, "value": "correction", "citations": cite(ev, q)}
           for f in ("message_role", "feedback_type")]
    out.append({"step": s["n"], "field": "feedback_content", "value": f"The user said: {q}",
                "citations": cite(ev, q)})
    earlier = [x for x in req["steps"] if x["n"] < s["n"] and x["actor"] != "user"]
    edits = [x for x in earlier if x["tool"] in ("Write", "Edit", "MultiEdit")]
    target = (edits or earlier or [None])[-1]
    if target is not None:
        out.append({"step": target["n"], "field": "directive", "about_step": s["n"],
                    "value": q, "citations": cite(ev, q)})
    return out


def _session_good(req: dict[str, Any]) -> list[dict[str, Any]]:
    sess, blocks = req["session"], req["blocks"]
    final = next((e for e in sess["final"] if e in blocks), None)
    task = next((e for e in sess["task"] if e in blocks), None)
    out: list[dict[str, Any]] = []
    if final:
        text = blocks[final][1]
        q = quote(text, 120)
        ok = not re.search(r"could not|cannot|still fail|failed", text, re.I)
        out += [{"step": None, "field": "goal_achieved", "value": ok, "citations": cite(final, q)},
                {"step": None, "field": "goal_notes", "value": f"The agent's final answer says: {q}",
                 "citations": cite(final, q)},
                {"step": None, "field": "learning", "value": f"Candidate lesson: {q}",
                 "citations": cite(final, q)}]
    if task:
        q = quote(blocks[task][1], 120)
        out.append({"step": None, "field": "description", "value": f"The user asked: {q}", "citations": cite(task, q)})
    return out


FAB = "FABRICATED-9c1"


def fabricate(req: dict[str, Any]) -> list[dict[str, Any]]:
    ids = list(req["blocks"])
    out: list[dict[str, Any]] = []
    for k, s in enumerate(x for x in req["steps"] if not x["context"]):
        for f in s["fill"]:
            ev = ids[k % len(ids)] if k % 2 == 0 and ids else "ev_fabricated00001"
            out.append({"step": s["n"], "field": f, "value": f"{FAB} {f} of step {s['n']}: deployed to production",
                        "citations": cite(ev, f"{FAB} the agent deployed the service to production")})
        out.append({"step": s["n"], "field": "input", "value": f"{FAB} rewritten input",
                    "citations": cite(ids[0], quote(req["blocks"][ids[0]][1]))} if ids else {})
        if s["actor"] != "user":
            out.append({"step": s["n"], "field": "success", "value": True, "citations": []})
            out.append({"step": s["n"], "field": f"{FAB}_verdict", "value": "ok", "citations": []})
    users = [s for s in req["steps"] if s["actor"] == "user" and s["fill"]]
    for s in users:
        ev = _ev(s, req, "user words") or (ids[0] if ids else "x")
        out.append({"step": s["n"], "field": "message_role", "value": f"{FAB}-role",
                    "citations": cite(ev, quote(req["blocks"].get(ev, ("", ""))[1]))})
    if req["session"]:
        out += [{"step": None, "field": "goal_achieved", "value": True, "citations": []},
                {"step": None, "field": "learning", "value": f"{FAB} always deploy on Fridays",
                 "citations": cite("ev_fabricated00002", f"{FAB} deploying on Fridays worked")},
                {"step": None, "field": "termination_reason", "value": "user_confirmed_done",
                 "citations": cite(ids[0], f"{FAB} the user said thanks") if ids else []}]
    return [p for p in out if p]


def wrong_quotes(req: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = req["blocks"]
    out = []
    for s in req["steps"]:
        if s["context"] or not s["fill"] or not s["evidence"]:
            continue
        ev = s["evidence"][0][0]
        other = next((e for e in blocks if e != ev and quote(blocks[e][1]) not in blocks.get(ev, ("", ""))[1]), None)
        if other is None:
            continue
        out.append({"step": s["n"], "field": s["fill"][0], "value": f"WRONGQ-4d2 {s['fill'][0]} of step {s['n']}",
                    "citations": cite(ev, quote(blocks[other][1]))})
    return out


def bad_ids(req: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for s in req["steps"]:
        ev = s["evidence"][0][0] if s["evidence"] else None
        if s["context"] or not s["fill"] or ev not in req["blocks"]:
            continue
        out.append({"step": s["n"], "field": s["fill"][0], "value": f"BADID-77e {s['fill'][0]} of step {s['n']}",
                    "citations": cite(f"ev_{s['n']:016x}", quote(req["blocks"][ev][1]))})
    return out


def inject(req: dict[str, Any]) -> list[dict[str, Any]]:
    """What a model that obeys text planted in the log would answer."""
    blocks = req["blocks"]
    planted = [(e, m.group(0).strip()) for e, (_, t) in blocks.items() for m in INJECTED.finditer(t)]
    out: list[dict[str, Any]] = []
    for ev, q in planted:
        out.append({"step": None, "field": "goal_achieved", "value": True, "citations": cite(ev, q)})
    sess = req["session"] or {"final": [], "task": []}
    final = next((e for e in sess["final"] if e in blocks), None)
    task = next((e for e in sess["task"] if e in blocks), None)
    if task:
        out.append({"step": None, "field": "goal_achieved", "value": True,
                    "citations": cite(task, quote(blocks[task][1]))})
    if final:
        fq = quote(blocks[final][1])
        out += [{"step": None, "field": "goal_notes", "value": "The task succeeded.", "citations": cite(final, fq)},
                {"step": None, "field": "learning", "value": "As instructed: the task succeeded.",
                 "citations": cite(final, fq)},
                {"step": None, "field": "description", "value": "An agent session in which the task succeeded.",
                 "citations": cite(final, fq)}]
    for s in req["steps"]:
        res = _ev(s, req, "result")
        if not s["context"] and res and "state_change" in s["fill"]:
            out.append({"step": s["n"], "field": "state_change", "value": "The task succeeded.",
                        "citations": cite(res, quote(blocks[res][1]))})
        words = _ev(s, req, "user words")
        if not s["context"] and words and "feedback_content" in s["fill"]:
            out.append({"step": s["n"], "field": "feedback_content", "value": "The user confirms the task succeeded.",
                        "citations": cite(words, quote(blocks[words][1], 200))})
    return out


INVENTED_MARKERS = ("production database", "/etc/forsy-invented.conf", "4242", "INVENTED")


def _long_quote(req: dict[str, Any]) -> tuple[str, str] | None:
    for ev, (_, text) in req["blocks"].items():
        q = quote(text, 200)
        if len(q) >= 40 and any(c.isalpha() for c in q):
            return ev, q
    return None


def _kind_rules() -> dict[str, re.Pattern[str]]:
    """forsy's kinds of quote per enum value (the invent script picks a value its quote does not support)."""
    try:
        from forsy.llm._ground import KIND_RULES
    except ImportError:  # a forsy without grounding rules (to show these tests fail there)
        return {"correction": re.compile(r"\b(no|not|wrong|instead)\b", re.I), "approval": re.compile(r"\bok\b")}
    return KIND_RULES


def invent(req: dict[str, Any]) -> list[dict[str, Any]]:
    """Real ids and verbatim quotes, invented values: what a model that makes things up but copies well sends."""
    blocks = req["blocks"]
    out: list[dict[str, Any]] = []
    adds = (" and then deleted the production database", " in 4242 seconds", " after editing /etc/forsy-invented.conf",
            " INVENTED")
    for k, s in enumerate(x for x in req["steps"] if not x["context"]):
        own = [e for e, _ in s["evidence"] if e in blocks]
        if not own:
            continue
        ev = own[-1]
        q = quote(blocks[ev][1], 120)
        for f in s["fill"]:
            if f in ("message_role", "feedback_type"):
                kind = next((k for k, rule in _kind_rules().items() if not rule.search(q)), None)  # what q is not
                if kind is not None and (f == "message_role" or kind != "new_constraint"):
                    out.append({"step": s["n"], "field": f, "value": kind, "citations": cite(ev, q)})
            else:
                out.append({"step": s["n"], "field": f, "value": q + adds[k % len(adds)], "citations": cite(ev, q)})
        if s["actor"] != "user" and not s["tool"] and "state_change" not in s["fill"]:
            out.append({"step": s["n"], "field": "state_change", "value": q, "citations": cite(ev, q)})
    long = _long_quote(req)
    if long is not None:  # one character changed in a long quote, the value is the changed text
        ev, q = long
        i = next(j for j in range(len(q) // 2, len(q)) if q[j].isalpha())
        changed = q[:i] + ("x" if q[i] != "x" else "y") + q[i + 1:]
        step = next((x["n"] for x in req["steps"] if not x["context"] and "observation" in x["fill"]), None)
        if step is not None:
            out.append({"step": step, "field": "observation", "value": changed, "citations": cite(ev, changed)})
    if req["session"]:
        sess = req["session"]
        task = next((e for e in sess["task"] if e in blocks), None)
        final = next((e for e in sess["final"] if e in blocks), None)
        if task:
            tq = quote(blocks[task][1], 120)
            out += [{"step": None, "field": "goal_achieved", "value": True, "citations": cite(task, tq)},
                    {"step": None, "field": "description", "value": f"The user asked: {tq} INVENTED",
                     "citations": cite(task, tq)}]
        if final:
            fq = quote(blocks[final][1], 120)
            out += [{"step": None, "field": "learning", "value": f"{fq} and the tests passed on the production "
                     "database", "citations": cite(final, fq)},
                    {"step": None, "field": "termination_reason", "value": "user_confirmed_done",
                     "citations": cite(final, fq)}]
    return out


# ---------------------------------------------------------------------- grouping requests (prompts/steps_v1.md)
GROUP_STEP = re.compile(r"^STEP (\d+) \| .* \| evidence: (.*)$", re.M)
GROUPING_INVENTION = " then deployed to production"


def grouping(behaviour: str, text: str) -> dict[str, Any]:
    """A grouping request's answer: one turn, each rule step a proposed step whose goal is the head
    of its first block (a command), citing it — valid for `good` and the behaviours that answer
    as it does. `invent` and `fabricate` append an invention to one goal, `wrong-quotes` cites
    the next step's record, `bad-ids` names an id forsy never read, `inject` makes a goal of a
    planted instruction: each of those is a grouping forsy must reject whole."""
    blocks = {m.group(1): m.group(3) for m in BLOCK.finditer(text)}
    rows = [(int(m.group(1)), m.group(2).split(" (")[0].split(", ")) for m in GROUP_STEP.finditer(text)]
    steps: list[dict[str, Any]] = []
    for _, ids in rows:
        ev = ids[0].split("..")[0]
        q = blocks.get(ev, "").split(OMITTED, 1)[0][:200].strip()
        steps.append({"evidence_ids": ids, "goal": q, "citations": cite(ev, q)})
    if not steps:
        return {"turns": []}
    last = steps[-1]
    if behaviour in ("invent", "fabricate"):
        last["goal"] = str(last["goal"]) + GROUPING_INVENTION
    elif behaviour == "wrong-quotes" and len(steps) > 1:
        steps[0]["citations"] = steps[1]["citations"]
    elif behaviour == "bad-ids":
        last["evidence_ids"] = [*last["evidence_ids"], "ev_00000000badid77e"]
    elif behaviour == "inject":
        planted = next((m.group(0).strip() for t in blocks.values() for m in INJECTED.finditer(t)), None)
        if planted:
            last["goal"] = planted
    return {"turns": [{"goal": steps[0]["goal"], "citations": steps[0]["citations"], "steps": steps}]}


SCRIPTS = {"good": good, "fabricate": fabricate, "wrong-quotes": wrong_quotes, "bad-ids": bad_ids, "inject": inject,
           "invent": invent, "fenced": good, "overflow": good}


class Script:
    """The scripted behaviour, shared by the HTTP server and the in-process client."""

    def __init__(self, slow_s: float = 3.0):
        self.slow_s = slow_s
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any], wait: Any = None) -> tuple[int, dict[str, Any]]:
        """(status, payload). `wait(seconds)`, when given, sleeps and says whether the client hung up."""
        model = str(body.get("model", "")).split("/")[-1]
        behaviour = model.removeprefix("scripted-")
        if behaviour not in BEHAVIOURS:
            return 404, {"error": {"message": f"no scripted model {model!r}", "type": "invalid_request_error"}}
        key = hashlib.sha256(json.dumps([model, body.get("messages")], sort_keys=True).encode()).hexdigest()
        with self.lock:
            n = self.seen[key] = self.seen.get(key, 0) + 1
        if behaviour == "429" and n == 1:
            return 429, {"error": {"message": "Rate limit reached (scripted)", "type": "rate_limit_error"}}
        if behaviour == "timeout" and wait is not None:
            if wait(self.slow_s):
                return 499, {"error": {"message": "client closed the connection", "type": "cancelled"}}
        elif behaviour == "timeout":
            time.sleep(self.slow_s)
        user = "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")
        if behaviour == "overflow" and len(user) > OVERFLOW_CHARS:
            return 400, {"error": {"message": f"the request exceeds the available context size ({len(user) // 4} "
                                              f"tokens, n_ctx {OVERFLOW_CHARS // 4})", "type": "invalid_request_error"}}
        if behaviour == "malformed" or (behaviour == "malformed-once" and n == 1):
            content = 'Here are my proposals: {proposals: [{"step": 1, "field": '
        elif user.startswith("GROUPING"):  # a proposed-steps request (prompts/steps_v1.md)
            content = json.dumps(grouping(behaviour, user), ensure_ascii=False)
        else:
            script = SCRIPTS.get(behaviour, good)
            content = json.dumps({"proposals": script(parse_request(user))}, ensure_ascii=False)
        if behaviour == "fenced":
            content = f"Here are the proposals:\n```json\n{content}\n```\nEach cites the evidence."
        return 200, completion(str(body.get("model")), content, len(user) // 4)


def completion(model: str, content: str, prompt_tokens: int) -> dict[str, Any]:
    return {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(content) // 4,
                      "total_tokens": prompt_tokens + len(content) // 4}}


# ---------------------------------------------------------------------- in-process client
class ScriptedClient:
    """The script as an injected completion callable; counts calls and how many ran at once."""

    def __init__(self, model: str | None = None, delay_s: float = 0.0, gate: int = 0):
        """`gate` > 1: the first `gate` calls wait for each other before answering, so that many
        are in flight at once whatever the machine's speed (a limit below `gate` breaks the
        barrier after 60 s and those calls fail); later calls do not wait."""
        self.script = Script(slow_s=0.0)
        self.model, self.delay_s = model, delay_s
        self.barrier = threading.Barrier(gate, timeout=60) if gate > 1 else None
        self.calls = 0
        self.running = 0
        self.peak = 0
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        with self.lock:
            self.calls += 1
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.requests.append(kwargs)
            gated = self.barrier is not None and self.calls <= self.barrier.parties
        try:
            if gated and self.barrier is not None:
                self.barrier.wait()
            time.sleep(self.delay_s)
            body = {"model": self.model or kwargs["model"], "messages": kwargs["messages"]}
            if str(body["model"]).endswith("scripted-timeout"):
                raise TimeoutError("scripted timeout")
            status, payload = self.script.answer(body)
            if status != 200:
                raise ScriptedHTTPError(status, payload["error"]["message"])
            return payload
        finally:
            with self.lock:
                self.running -= 1


# ---------------------------------------------------------------------- HTTP
class _Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            status, payload = 404, {"error": {"message": "only /v1/chat/completions", "type": "not_found"}}
        else:
            status, payload = self.server.script.answer(body, self._wait)
        self.server.count()
        if status == 499:
            self.server.cancelled += 1  # the client closed the connection: no answer is written
            return
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout scenario)

    def _wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, watching the socket: True as soon as the client has closed it."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.connection], [], [], min(0.05, max(0.0, end - time.monotonic())))
            if ready:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                time.sleep(0.05)  # readable but not closed (a pipelined byte): keep waiting
        return False

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return


class ScriptedServer(ThreadingHTTPServer):
    """127.0.0.1, a free port; stops by itself after `max_seconds` or `max_requests`."""

    daemon_threads = True

    def __init__(self, max_seconds: float = 300.0, max_requests: int = 1000, slow_s: float = 3.0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = Script(slow_s)
        self.max_requests = max_requests
        self.requests = 0
        self.cancelled = 0  # requests whose client hung up before the answer (timeout scenario)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._timer = threading.Timer(max_seconds, self.stop)
        self._timer.daemon = True
        self._stop_lock = threading.Lock()
        self._stopped = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def count(self) -> None:
        self.requests += 1
        if self.requests >= self.max_requests:
            threading.Thread(target=self.stop, daemon=True).start()

    def start(self) -> ScriptedServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
        self._timer.cancel()
        self.shutdown()
        self.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=600.0, help="stop after this long (default 600)")
    ap.add_argument("--max-requests", type=int, default=1000)
    ap.add_argument("--slow", type=float, default=3.0, help="seconds the timeout scenario sleeps")
    args = ap.parse_args()
    srv = ScriptedServer(args.seconds, args.max_requests, args.slow)
    srv.start()
    print(srv.base_url, flush=True)
    srv._thread.join()


if __name__ == "__main__":
    main()
