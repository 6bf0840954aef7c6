"""A throwaway git repository for tests: fixed names and dates, so every sha is the same each run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


class Repo:
    """A throwaway repository with fixed names and dates, so every sha is the same each run."""

    def __init__(self, path: Path, *, init: bool = True) -> None:
        assert PROJECT not in path.resolve().parents, "tests must never touch the project repo"
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(path.parent),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "Ada Dev",
            "GIT_AUTHOR_EMAIL": "ada@example.org",
            "GIT_COMMITTER_NAME": "Ada Dev",
            "GIT_COMMITTER_EMAIL": "ada@example.org",
            "GIT_CEILING_DIRECTORIES": str(path.parent),
        }
        if init:
            self.git("init", "-q", "-b", "main")

    @classmethod
    def partial_clone(cls, origin: Repo, path: Path) -> Repo:
        """`git clone --filter=blob:none` of `origin` (a local path): the checkout fetches the blobs
        of HEAD's tree, older blobs stay in the origin (missing here until lazily fetched)."""
        origin.git("config", "uploadpack.allowFilter", "true")
        clone = cls(path, init=False)
        clone.git("clone", "-q", "--filter=blob:none", f"file://{origin.path}", str(path))
        return clone

    def git(self, *args: str, when: str | None = None) -> str:
        env = dict(self.env)
        if when:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
        r = subprocess.run(["git", "-C", str(self.path), *args], env=env, capture_output=True, check=True)
        return r.stdout.decode()

    def write(self, rel: str, data: str | bytes) -> None:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode() if isinstance(data, str) else data)

    def commit(self, msg: str, when: str) -> str:
        self.git("add", "-A", when=when)
        self.git("commit", "-q", "-m", msg, when=when)
        return self.git("rev-parse", "HEAD").strip()
