"""Append-only analytics records (utility hits, archive outcomes) in the embedded store."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from shared.ports import EventKind
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


class SqliteEvents:
    """``EventLog`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(self, kind: EventKind, data: Mapping[str, Any]) -> None:
        at = datetime.now(UTC).isoformat()
        payload = json.dumps({**data, "at": at}, ensure_ascii=False, default=str)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO events (kind, at, data) VALUES (?, ?, ?)", (kind, at, payload)
            )

    def recent(self, kind: EventKind, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._db.connection().execute(
            "SELECT data FROM events WHERE kind = ? ORDER BY id DESC LIMIT ?", (kind, limit)
        )
        return [json.loads(row["data"]) for row in rows]
