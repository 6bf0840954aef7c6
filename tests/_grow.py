"""A Claude Code session that grows, as the agent appends to it (tests of sweeps and drafts)."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path


def append_user(path: Path, text: str) -> None:
    """Append one new user message to a Claude session, chained to its last record (its id
    drawn from `text`, so the same text appends the same record)."""
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    last = [r for r in recs if r.get("uuid")][-1]
    new = {k: last[k] for k in ("sessionId", "cwd", "version", "gitBranch", "timestamp") if k in last}
    new.update({"type": "user", "uuid": str(uuid.UUID(int=random.Random(text).getrandbits(128))),
                "parentUuid": last["uuid"], "isSidechain": False, "userType": "external",
                "message": {"role": "user", "content": text}})
    with open(path, "a") as f:
        f.write(json.dumps(new) + "\n")
