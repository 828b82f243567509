"""Answer traces (expiring) and feedback (kept as long) in the embedded store.

A trace expires ``BIBLIOTECA_TRACE_DAYS`` after its answer: each save deletes at most
``SWEEP_BATCH`` expired traces (an indexed range delete), so the table stays bounded
without a scheduler, and a read never returns an expired trace even before its sweep.
A vote (or report) is kept ``retention_days`` (the same variable) after it was cast, the
same way: each one recorded deletes at most ``SWEEP_BATCH`` of the oldest expired, and
``list`` never returns one past its days.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

from shared import clock
from shared.config import DEFAULT_TRACE_DAYS
from shared.loop.feedback_json import (
    feedback_dict,
    feedback_of,
    trace_dict,
    trace_of,
    utc_text,
)
from shared.records import AnswerTrace, FeedbackRecord
from shared.store.sqlite.db import Database

SWEEP_BATCH = 100  # expired traces (votes) deleted per save (vote), at most: it stays cheap

SCHEMA = """
CREATE TABLE IF NOT EXISTS answer_traces (
    answer_id TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS answer_traces_expiry ON answer_traces (expires_at);
CREATE TABLE IF NOT EXISTS feedback (
    id TEXT PRIMARY KEY,
    at TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_at ON feedback (at);
"""


class SqliteTraces:
    """``AnswerTraces`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, trace: AnswerTrace) -> None:
        with self._db.write() as conn:
            slugs = list(dict.fromkeys(s.slug for s in trace.sources))
            marks = ",".join("?" * len(slugs))  # placeholders only: the slugs are bound
            query = f"SELECT slug, version FROM pages WHERE slug IN ({marks})"  # noqa: S608
            versions = {str(r["slug"]): int(r["version"]) for r in conn.execute(query, slugs)}
            kept = replace(
                trace,
                sources=tuple(replace(s, version=versions.get(s.slug)) for s in trace.sources),
            )
            conn.execute(
                "DELETE FROM answer_traces WHERE answer_id IN (SELECT answer_id FROM "
                "answer_traces WHERE expires_at < ? ORDER BY expires_at LIMIT ?)",
                (utc_text(clock.now()), SWEEP_BATCH),
            )
            conn.execute(
                "INSERT OR REPLACE INTO answer_traces (answer_id, expires_at, data) "
                "VALUES (?, ?, ?)",
                (
                    trace.answer_id,
                    utc_text(trace.expires_at),
                    json.dumps(trace_dict(kept), ensure_ascii=False),
                ),
            )

    def get(self, answer_id: str) -> AnswerTrace | None:
        row = (
            self._db.connection()
            .execute(
                "SELECT data FROM answer_traces WHERE answer_id = ? AND expires_at >= ?",
                (answer_id, utc_text(clock.now())),
            )
            .fetchone()
        )
        return None if row is None else trace_of(json.loads(row["data"]))


class SqliteFeedback:
    """``FeedbackStore`` on SQLite, each item kept ``retention_days``."""

    def __init__(self, db: Database, retention_days: int = DEFAULT_TRACE_DAYS) -> None:
        self._db = db
        self.retention_days = retention_days

    def _oldest_kept(self) -> str:
        return utc_text(clock.now() - timedelta(days=self.retention_days))

    def record(self, item: FeedbackRecord) -> None:
        with self._db.write() as conn:
            conn.execute(
                "DELETE FROM feedback WHERE id IN (SELECT id FROM feedback WHERE at < ?"
                " ORDER BY at LIMIT ?)",
                (self._oldest_kept(), SWEEP_BATCH),
            )
            conn.execute(
                "INSERT OR REPLACE INTO feedback (id, at, data) VALUES (?, ?, ?)",
                (item.id, utc_text(item.at), json.dumps(feedback_dict(item), ensure_ascii=False)),
            )

    def list(self, *, since: datetime | None = None) -> list[FeedbackRecord]:
        floor = self._oldest_kept()
        if since is not None:
            floor = max(floor, utc_text(since))
        rows = self._db.connection().execute(
            "SELECT data FROM feedback WHERE at >= ? ORDER BY at DESC", (floor,)
        )
        return [feedback_of(json.loads(row["data"])) for row in rows]
