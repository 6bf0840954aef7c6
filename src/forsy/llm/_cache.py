"""On-disk cache of model answers (stdlib sqlite3), so a re-run of the same request costs nothing.

Keyed by (model, prompt version, sha256 of the exact request). Only answers that parsed are
stored: a malformed or failed answer is asked again next time. The schema evolves through the
`MIGRATIONS` list, recorded by name as the store's are (`forsy.schema_migrations`). litellm's
own cache is never used.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from ..errors import InputError, LLMError
from ..schema_migrations import SQLITE_RECORD, SQLITE_TABLE, Migration, migrate_sqlite

MIGRATIONS: tuple[Migration, ...] = (
    ("0001_answers", """CREATE TABLE answers (
        model TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        request_sha256 TEXT NOT NULL,
        content TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at TEXT NOT NULL,
        PRIMARY KEY (model, prompt_version, request_sha256)
    )"""),
)


def default_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "forsy" / "llm.sqlite3"


class AnswerCache:
    def __init__(self, path: Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path)
            self._migrate()
        except (OSError, sqlite3.Error) as e:
            raise LLMError(f"the answer cache cannot be opened: {e}", path=path) from None
        except InputError as e:  # made by a newer forsy: left as it is
            raise LLMError(f"the answer cache cannot be used: {e.message}", path=path) from None

    def _migrate(self) -> None:
        self._adopt_user_version()
        migrate_sqlite(self.db, MIGRATIONS, what="the answer cache", where=self.path)

    def _adopt_user_version(self) -> None:
        """A cache made before its migrations were named counted them in `PRAGMA user_version`:
        the first that many are recorded as applied (their tables, and the answers, are there)."""
        counted = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        named = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone()
        if not counted or named:
            return
        with self.db:
            self.db.execute(SQLITE_TABLE)
            self.db.executemany(SQLITE_RECORD, [(name,) for name, _ in MIGRATIONS[:counted]])

    def get(self, model: str, prompt_version: str, sha: str) -> str | None:
        row = self.db.execute("SELECT content FROM answers WHERE model=? AND prompt_version=? AND request_sha256=?",
                              (model, prompt_version, sha)).fetchone()
        return str(row[0]) if row else None

    def put(self, model: str, prompt_version: str, sha: str, content: str, usage: dict[str, int]) -> None:
        try:
            with self.db:
                self.db.execute(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (model, prompt_version, sha, content, usage.get("prompt_tokens"), usage.get("completion_tokens"),
                     datetime.now(UTC).isoformat(timespec="seconds")))
        except sqlite3.Error as e:
            raise LLMError(f"the answer cache cannot be written: {e}", path=self.path) from None

    def close(self) -> None:
        self.db.close()
