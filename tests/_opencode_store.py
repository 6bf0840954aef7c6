"""OpenCode storage folders written for tests, as OpenCode's code writes them (anomalyco/opencode
packages/opencode/src: storage/storage.ts @ 17db7910ca writes each item as `JSON.stringify(value,
null, 2)` at `<storage>/<key…>.json`; session/index.ts @ 0002b1fa7d keys a session's info
`session/<project id>/<session id>`, a message `message/<session id>/<message id>`, a part
`part/<message id>/<part id>`; the shapes are message-v2.ts @ 007a9409ba's, the tool states
session/processor.ts @ 002d982286's, a subagent's session tool/task.ts @ 005201e9a2's, a revert
session/revert.ts @ 089ee8d0e6's). Ids sort in the order the items were made, as the writer's do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

START = 1_768_381_200_000  # 2026-01-14T09:00:00Z, in ms as the writer keeps times
PROJECT = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
CWD = "/home/dev/projects/shop"
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


def ms(seconds: float) -> int:
    return START + int(seconds * 1000)


def tokens(i: int = 100, o: int = 10, r: int = 0, read: int = 0, wrote: int = 0) -> dict[str, Any]:
    return {"input": i, "output": o, "reasoning": r, "cache": {"read": read, "write": wrote}}


def text(words: str, at: float = 0, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": words, **({"time": {"start": ms(at), "end": ms(at)}} if at else {}), **extra}


def call(tool: str, call_id: str, args: dict[str, Any], at: float, *, output: str | None = None,
         error: str | None = None, status: str | None = None, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A tool part in the state processor.ts leaves it: completed, error, running or pending."""
    if status == "pending":
        state: dict[str, Any] = {"status": "pending", "input": {}, "raw": json.dumps(args)[:10]}
    elif status == "running":
        state = {"status": "running", "input": args, "time": {"start": ms(at)}}
    elif error is not None:
        state = {"status": "error", "input": args, "error": error, "time": {"start": ms(at), "end": ms(at + 1)}}
    else:
        state = {"status": "completed", "input": args, "output": output or "", "metadata": metadata or {},
                 "title": tool, "time": {"start": ms(at), "end": ms(at + 1)}}
    return {"type": "tool", "tool": tool, "callID": call_id, "state": state}


def step_start() -> dict[str, Any]:
    return {"type": "step-start", "snapshot": "0" * 40}


def step_finish(reason: str = "tool-calls", tok: dict[str, Any] | None = None, cost: float = 0.001) -> dict[str, Any]:
    return {"type": "step-finish", "reason": reason, "snapshot": "1" * 40, "tokens": tok or tokens(), "cost": cost}


class Store:
    """One storage folder under `root` (`root/storage`), one project."""

    def __init__(self, root: Path, project: str = PROJECT) -> None:
        self.root = root
        self.storage = root / "storage"
        self.project = project
        self.n = 0

    def write(self, rel: str, value: Any) -> Path:
        p = self.storage / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(value, indent=2, ensure_ascii=False), encoding="utf-8")
        return p

    def session(self, sid: str, title: str = "Fix the cart total", *, parent: str | None = None, at: float = 0,
                **extra: Any) -> Path:
        info: dict[str, Any] = {"id": sid, "version": "1.1.21", "projectID": self.project, "directory": CWD}
        if parent is not None:
            info["parentID"] = parent
        info.update({"title": title, "time": {"created": ms(at), "updated": ms(at + 600)}, **extra})
        return self.write(f"session/{self.project}/{sid}.json", info)

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:06d}"

    def user(self, sid: str, at: float, *parts: dict[str, Any], mid: str | None = None, **extra: Any) -> str:
        mid = mid or self._id("msg")
        self.write(f"message/{sid}/{mid}.json", {"id": mid, "sessionID": sid, "role": "user",
                                                  "time": {"created": ms(at)}, "agent": "build", "model": MODEL,
                                                  **extra})
        self.parts(sid, mid, parts)
        return mid

    def assistant(self, sid: str, at: float, *parts: dict[str, Any], mid: str | None = None, parent: str = "",
                  **extra: Any) -> str:
        mid = mid or self._id("msg")
        info: dict[str, Any] = {"id": mid, "sessionID": sid, "role": "assistant",
                                "time": {"created": ms(at), "completed": ms(at + 5)}}
        if "error" in extra:
            info["error"] = extra.pop("error")
        info.update({"parentID": parent, "modelID": MODEL["modelID"], "providerID": MODEL["providerID"],
                     "mode": "build", "agent": "build", "path": {"cwd": CWD, "root": CWD}, "cost": 0.002,
                     "tokens": tokens(), "finish": "tool-calls", **extra})
        self.write(f"message/{sid}/{mid}.json", info)
        self.parts(sid, mid, parts)
        return mid

    def parts(self, sid: str, mid: str, parts: tuple[dict[str, Any], ...]) -> list[Path]:
        out = []
        for body in parts:
            pid = self._id("prt")
            out.append(self.write(f"part/{mid}/{pid}.json", {"id": pid, "messageID": mid, "sessionID": sid, **body}))
        return out
