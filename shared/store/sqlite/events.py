"""Append-only analytics records (utility hits, archive outcomes) in the embedded store.

Kept ``retention_days`` (``BIBLIOTECA_TRACE_DAYS``, like answer traces): each write also
deletes at most ``SWEEP_BATCH`` of the oldest expired rows, so the log stays bounded
without a scheduler and no write pays for a long backlog at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from shared import clock
from shared.config import DEFAULT_TRACE_DAYS
from shared.json_value import JsonObject
from shared.records import EventKind
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, id);
"""
SWEEP_BATCH = 100  # expired rows deleted per write: twice what one ask writes, at most


class SqliteEvents:
    """``EventLog`` on SQLite."""

    def __init__(self, db: Database, retention_days: int = DEFAULT_TRACE_DAYS) -> None:
        self._db = db
        self.retention_days = retention_days

    def record(self, kind: EventKind, data: Mapping[str, Any]) -> None:
        now = clock.now()
        at = now.isoformat()
        payload = json.dumps({**data, "at": at}, ensure_ascii=False, default=str)
        oldest_kept = (now - timedelta(days=self.retention_days)).isoformat()
        with self._db.write() as conn:
            # Rows are appended in time order: the smallest ids are the oldest.
            conn.execute(
                "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < ?"
                " ORDER BY id LIMIT ?)",
                (oldest_kept, SWEEP_BATCH),
            )
            conn.execute(
                "INSERT INTO events (kind, at, data) VALUES (?, ?, ?)", (kind, at, payload)
            )

    def recent(self, kind: EventKind, limit: int = 100) -> list[JsonObject]:
        rows = self._db.connection().execute(
            "SELECT data FROM events WHERE kind = ? ORDER BY id DESC LIMIT ?", (kind, limit)
        )
        return [json.loads(row["data"]) for row in rows]
