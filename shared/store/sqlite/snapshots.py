"""The embedded store's saved lexical-index snapshot: one row, replaced whole."""

from __future__ import annotations

from shared.ports import StoredSnapshot
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS index_snapshot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cursor TEXT NOT NULL,
    payload BLOB NOT NULL
);
"""


def load(db: Database) -> StoredSnapshot | None:
    row = db.connection().execute("SELECT cursor, payload FROM index_snapshot").fetchone()
    return None if row is None else StoredSnapshot(str(row["cursor"]), bytes(row["payload"]))


def save(db: Database, snapshot: StoredSnapshot) -> None:
    with db.write() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO index_snapshot (id, cursor, payload) VALUES (1, ?, ?)",
            (snapshot.cursor, snapshot.payload),
        )
