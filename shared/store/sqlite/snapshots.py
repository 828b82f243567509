"""The embedded store's saved lexical-index snapshot: one row, replaced whole."""

from __future__ import annotations

from shared.records import StoredSnapshot
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS index_snapshot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cursor TEXT NOT NULL,
    payload BLOB NOT NULL
);
"""


def load(db: Database) -> StoredSnapshot | None:
    """The row, or None; a row of the wrong types (damage) counts as no snapshot."""
    row = db.connection().execute("SELECT cursor, payload FROM index_snapshot").fetchone()
    if row is None or not isinstance(row["cursor"], str) or not isinstance(row["payload"], bytes):
        return None
    return StoredSnapshot(row["cursor"], row["payload"])


def save(db: Database, snapshot: StoredSnapshot) -> None:
    with db.write() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO index_snapshot (id, cursor, payload) VALUES (1, ?, ?)",
            (snapshot.cursor, snapshot.payload),
        )
