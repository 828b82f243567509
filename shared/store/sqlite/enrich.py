"""The enrichment ledger on SQLite: cursors, claims and failures, each one small table.

A claim is an ``INSERT OR IGNORE`` on a primary key, so of two workers (or two
deliveries of one Pub/Sub message) exactly one takes it; failures count per (page,
version) in one statement, so two failing workers never lose a count.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import datetime

from shared.clock import now
from shared.enrich.ledger import MAX_ATTEMPTS, backoff_s
from shared.records import Failure
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS enrich_cursors (
    name TEXT PRIMARY KEY,
    cursor TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS enrich_claims (
    key TEXT PRIMARY KEY,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS enrich_failures (
    slug TEXT NOT NULL,
    version INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    error TEXT NOT NULL,
    at TEXT NOT NULL,
    next_at REAL NOT NULL,
    dead INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (slug, version)
);
CREATE INDEX IF NOT EXISTS enrich_failures_due ON enrich_failures (dead, next_at);
"""


def _failure(row: sqlite3.Row) -> Failure:
    return Failure(
        slug=row["slug"],
        version=int(row["version"]),
        attempts=int(row["attempts"]),
        error=row["error"],
        at=datetime.fromisoformat(row["at"]),
        next_at=float(row["next_at"]),
        dead=bool(row["dead"]),
    )


class SqliteEnrichLedger:
    """``EnrichLedger`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def position(self, name: str) -> str | None:
        row = (
            self._db.connection()
            .execute("SELECT cursor FROM enrich_cursors WHERE name = ?", (name,))
            .fetchone()
        )
        return None if row is None else str(row["cursor"])

    def move(self, name: str, cursor: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO enrich_cursors (name, cursor) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor",
                (name, cursor),
            )

    def claim(self, key: str) -> bool:
        with self._db.write() as conn:
            taken = conn.execute(
                "INSERT OR IGNORE INTO enrich_claims (key, at) VALUES (?, ?)",
                (key, now().isoformat()),
            )
            return taken.rowcount == 1

    def release(self, key: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM enrich_claims WHERE key = ?", (key,))

    def fail(self, slug: str, version: int, error: str) -> Failure:
        error = error[:1000]
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT attempts, dead FROM enrich_failures WHERE slug = ? AND version = ?",
                (slug, version),
            ).fetchone()
            attempts = (int(row["attempts"]) if row else 0) + (0 if row and row["dead"] else 1)
            dead = attempts >= MAX_ATTEMPTS
            conn.execute(
                "INSERT INTO enrich_failures (slug, version, attempts, error, at, next_at, dead)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (slug, version) DO UPDATE SET"
                " attempts = excluded.attempts, error = excluded.error, at = excluded.at,"
                " next_at = excluded.next_at, dead = excluded.dead",
                (
                    slug,
                    version,
                    attempts,
                    error,
                    now().isoformat(),
                    time.time() + backoff_s(attempts),
                    int(dead),
                ),
            )
        found = self.failure(slug, version)
        assert found is not None  # written just now, in this file
        return found

    def clear(self, slug: str, version: int) -> None:
        with self._db.write() as conn:
            conn.execute(
                "DELETE FROM enrich_failures WHERE slug = ? AND version = ? AND dead = 0",
                (slug, version),
            )

    def failure(self, slug: str, version: int) -> Failure | None:
        row = (
            self._db.connection()
            .execute(
                "SELECT * FROM enrich_failures WHERE slug = ? AND version = ?", (slug, version)
            )
            .fetchone()
        )
        return None if row is None else _failure(row)

    def due(self, now: float, *, limit: int = 100) -> list[Failure]:
        rows = self._db.connection().execute(
            "SELECT * FROM enrich_failures WHERE dead = 0 AND next_at <= ?"
            " ORDER BY next_at LIMIT ?",
            (now, limit),
        )
        return [_failure(r) for r in rows]

    def dead(self, *, limit: int = 100) -> list[Failure]:
        rows = self._db.connection().execute(
            "SELECT * FROM enrich_failures WHERE dead = 1 ORDER BY at DESC LIMIT ?", (limit,)
        )
        return [_failure(r) for r in rows]

    def dead_count(self) -> int:
        row = (
            self._db.connection()
            .execute("SELECT COUNT(*) AS n FROM enrich_failures WHERE dead = 1")
            .fetchone()
        )
        return int(row["n"])
