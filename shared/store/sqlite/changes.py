"""The embedded store's change log: which page each chunk write touched, by generation.

Every chunk write bumps ``chunk_generation`` (chunks.py) and logs its page here under
the new generation, in the same transaction. Writers are serialized (``BEGIN
IMMEDIATE``), so generations are given in commit order: a reader that has applied
everything up to generation ``g`` needs only the rows after ``g``. The log keeps the
last ``KEEP`` writes; a cursor older than that is told to reload everything.
"""

from __future__ import annotations

import sqlite3

from shared.records import ChunkChanges
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS chunk_changes (
    generation INTEGER PRIMARY KEY,
    slug TEXT NOT NULL
);
"""
KEEP = 100_000  # writes kept in the log (a few MB); an older cursor reloads everything
PREFIX = "sqlite:"  # cursors read like the chunk index's fingerprint: the same generation


def record(conn: sqlite3.Connection, slug: str) -> None:
    """Log ``slug`` under the generation the caller's transaction just bumped to."""
    conn.execute(
        "INSERT OR REPLACE INTO chunk_changes (generation, slug)"
        " SELECT n, ? FROM chunk_generation WHERE id = 1",
        (slug,),
    )
    conn.execute(
        "DELETE FROM chunk_changes WHERE generation <= (SELECT n FROM chunk_generation) - ?",
        (KEEP,),
    )


def cursor_of(generation: int) -> str:
    return f"{PREFIX}{generation}"


def since(db: Database, cursor: str | None) -> ChunkChanges:
    """The pages written after ``cursor``; incomplete when the log cannot tell."""
    conn = db.connection()
    row = conn.execute("SELECT n FROM chunk_generation").fetchone()
    current = int(row["n"]) if row else 0
    after = _generation(cursor)
    if after is None or after > current:  # no cursor, or one of another file
        return ChunkChanges(cursor_of(current), frozenset(), complete=False)
    rows = conn.execute(
        "SELECT generation, slug FROM chunk_changes WHERE generation > ? ORDER BY generation",
        (after,),
    ).fetchall()
    generations = [int(r["generation"]) for r in rows]
    latest = generations[-1] if generations else after
    # Every bump logs its generation: a gap means rows pruned, or written by a version
    # that kept no log; then the log cannot say what changed.
    if generations != list(range(after + 1, latest + 1)) or (not rows and current > after):
        return ChunkChanges(cursor_of(max(current, latest)), frozenset(), complete=False)
    return ChunkChanges(cursor_of(latest), frozenset(r["slug"] for r in rows), complete=True)


def _generation(cursor: str | None) -> int | None:
    if cursor is None or not cursor.startswith(PREFIX):
        return None
    try:
        return int(cursor.removeprefix(PREFIX))
    except ValueError:
        return None
