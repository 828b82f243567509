"""Chunks of the embedded store: rows written with their page, searched by a cached scan.

The active vectors of one embedder are held as one matrix, reloaded only when the
store's chunk generation (bumped inside every page write) has moved.

A page's tags are kept once, in its front matter on ``pages``: chunks are read with
their page's tags (one tuple per page, shared by its chunks), and the ``tag`` filter
tests them there. Firestore keeps a copy on each chunk document instead, because its
``find_nearest`` pre-filter reads only the vector document (docs/limits.md). The
page's title, type, category and status (a few hundred bytes at most) stay on each row:
the scan's ``WHERE`` and the search results read them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.records import (
    Chunk,
    ChunkChanges,
    ChunkHit,
    IndexedChunk,
    PageRecord,
    SearchFilter,
    StoredSnapshot,
    Vector,
)
from shared.retrieval.filters import FilterColumns
from shared.store.sqlite import changes, snapshots
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS chunks (
    slug TEXT NOT NULL REFERENCES pages (slug) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    heading TEXT NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL,
    title TEXT NOT NULL,
    type TEXT,
    category TEXT,
    status TEXT NOT NULL,
    PRIMARY KEY (slug, ordinal)
);
CREATE INDEX IF NOT EXISTS chunks_status ON chunks (status, embedder);
CREATE TABLE IF NOT EXISTS chunk_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n INTEGER NOT NULL
);
INSERT OR IGNORE INTO chunk_generation (id, n) VALUES (1, 0);
"""
# Bumped in the page's own transaction by every chunk write: the fingerprint that
# in-memory caches compare (exact, unlike timestamps, whatever the clocks say).
_BUMP = "UPDATE chunk_generation SET n = n + 1 WHERE id = 1"


def drop_source_types(conn: sqlite3.Connection) -> None:
    """Files written before the column was dropped lose it (it was written, never read)."""
    _drop_column(conn, "source_types")


def drop_tags(conn: sqlite3.Connection) -> None:
    """Files written when each chunk kept a copy of its page's tags lose the column (up to
    ~13 KB a row; the tags are read from the page now)."""
    _drop_column(conn, "tags")


def _drop_column(conn: sqlite3.Connection, name: str) -> None:
    """Drop a column of ``chunks`` older files still have: left in place, its NOT NULL
    would refuse every chunk written without it. Two processes may upgrade one file at
    once: the second finds the column gone."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}
    if name in columns:
        try:
            conn.execute(f"ALTER TABLE chunks DROP COLUMN {name}")
        except sqlite3.OperationalError as exc:
            if "no such column" not in str(exc):
                raise


UPGRADES = (drop_source_types, drop_tags)

# A chunk's columns as ``IndexedChunk`` reads them (its page's tags come apart).
_COLUMNS = "slug, ordinal, heading, text, title, type, category"
# The same with the stored vector, for the dense side of the search snapshot.
_WITH_VECTORS = f"{_COLUMNS}, embedder, vector"


def _page_fields(page: PageRecord) -> tuple[str, str | None, str | None, str]:
    fm = page.front_matter
    return (
        str(fm.get("title", "")),
        fm.get("type"),
        fm.get("category"),
        str(fm.get("status", "")),
    )


def _tags_of(conn: sqlite3.Connection, slugs: Collection[str] | None) -> dict[str, tuple[str, ...]]:
    """The tags of the active pages ``slugs`` (every active page: None), one tuple each."""
    query = "SELECT slug, json_extract(front_matter, '$.tags') AS tags FROM pages"
    query += " WHERE status = 'active'"
    params: tuple[str, ...] = ()
    if slugs is not None:
        query += " AND slug IN (SELECT value FROM json_each(?))"
        params = (json.dumps(sorted(set(slugs))),)
    found: dict[str, tuple[str, ...]] = {}
    for row in conn.execute(query, params):
        tags = json.loads(row["tags"]) if row["tags"] else []
        found[row["slug"]] = tuple(str(t) for t in tags) if isinstance(tags, list) else ()
    return found


def replace(conn: sqlite3.Connection, page: PageRecord, chunks: Sequence[Chunk]) -> None:
    """Make ``chunks`` the page's chunks, inside the caller's transaction."""
    conn.execute("DELETE FROM chunks WHERE slug = ?", (page.slug,))
    conn.execute(_BUMP)
    changes.record(conn, page.slug)
    fields = _page_fields(page)
    conn.executemany(
        "INSERT INTO chunks (slug, ordinal, heading, text, hash, vector, embedder, dim, title,"
        " type, category, status)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.slug,
                c.ordinal,
                c.heading,
                c.text,
                c.hash,
                np.asarray(c.vector, dtype=np.float32).tobytes(),
                c.embedder,
                len(c.vector),
                *fields,
            )
            for c in chunks
        ],
    )


def refresh_page_fields(conn: sqlite3.Connection, page: PageRecord) -> None:
    """Copy a page's filterable fields onto its chunks (metadata-only update); its tags
    are read from the page itself, and the generation moves for them too."""
    conn.execute(
        "UPDATE chunks SET title = ?, type = ?, category = ?, status = ? WHERE slug = ?",
        (*_page_fields(page), page.slug),
    )
    conn.execute(_BUMP)
    changes.record(conn, page.slug)


@dataclass(frozen=True, slots=True)
class _Matrix:
    """Every active chunk of one embedder, loaded once per store generation."""

    fingerprint: str
    embedder: str
    vectors: npt.NDArray[np.float32]
    rows: list[IndexedChunk]
    columns: FilterColumns


class SqliteChunks:
    """``ChunkIndex`` on SQLite: a vectorized scan over a matrix cached per generation."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._matrix: _Matrix | None = None
        self._lock = threading.Lock()

    def fingerprint(self) -> str:
        row = self._db.connection().execute("SELECT n FROM chunk_generation").fetchone()
        return f"sqlite:{row['n'] if row else 0}"

    def vectors_for(self, slug: str) -> dict[str, Vector]:
        rows = self._db.connection().execute(
            "SELECT hash, vector FROM chunks WHERE slug = ?", (slug,)
        )
        return {row["hash"]: np.frombuffer(row["vector"], dtype=np.float32) for row in rows}

    def embedders(self) -> set[str]:
        rows = self._db.connection().execute(
            "SELECT DISTINCT embedder FROM chunks WHERE status = 'active'"
        )
        return {row["embedder"] for row in rows}

    def active_chunks(self) -> list[IndexedChunk]:
        conn = self._db.connection()
        rows = conn.execute(
            f"SELECT {_WITH_VECTORS} FROM chunks WHERE status = 'active' ORDER BY slug, ordinal"  # noqa: S608
        ).fetchall()
        tags = _tags_of(conn, None)
        return [_indexed(row, tags) for row in rows]

    def changes_since(self, cursor: str | None) -> ChunkChanges:
        return changes.since(self._db, cursor)

    def load_snapshot(self) -> StoredSnapshot | None:
        return snapshots.load(self._db)

    def save_snapshot(self, snapshot: StoredSnapshot) -> None:
        snapshots.save(self._db, snapshot)

    def active_chunks_of(self, slugs: Collection[str]) -> list[IndexedChunk]:
        conn = self._db.connection()
        rows = conn.execute(
            f"SELECT {_WITH_VECTORS} FROM chunks"  # noqa: S608
            " WHERE status = 'active' AND slug IN (SELECT value FROM json_each(?))"
            " ORDER BY slug, ordinal",
            (json.dumps(sorted(set(slugs))),),
        ).fetchall()
        tags = _tags_of(conn, {row["slug"] for row in rows})
        return [_indexed(row, tags) for row in rows]

    def chunks_by_key(
        self, keys: Collection[tuple[str, int]], *, vectors: bool = False
    ) -> dict[tuple[str, int], IndexedChunk]:
        if not keys:
            return {}
        conn = self._db.connection()
        rows = conn.execute(
            f"SELECT {_WITH_VECTORS if vectors else _COLUMNS} FROM chunks"  # noqa: S608
            " WHERE status = 'active' AND (slug, ordinal) IN"
            " (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))",
            (json.dumps(sorted(set(keys))),),
        ).fetchall()
        tags = _tags_of(conn, {row["slug"] for row in rows})
        return {(r.slug, r.ordinal): r for r in (_indexed(row, tags) for row in rows)}

    def nearest(
        self,
        vector: Vector,
        *,
        embedder: str,
        filters: SearchFilter,
        limit: int,
        fingerprint: str | None = None,
    ) -> list[ChunkHit]:
        matrix = self._current(embedder, fingerprint or self.fingerprint())
        if not matrix.rows:
            return []
        keep = matrix.columns.mask(filters)
        scores = matrix.vectors @ np.asarray(vector, dtype=np.float32)
        scores[~keep] = -np.inf
        count = min(limit, int(keep.sum()))
        if count <= 0:
            return []
        top = np.argpartition(-scores, count - 1)[:count]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [_hit(matrix.rows[i], float(scores[i])) for i in top]

    def _current(self, embedder: str, fingerprint: str) -> _Matrix:
        """The cached matrix, reloaded when a write changed the generation (as read by the
        caller: rows loaded after a newer write only cost one more reload later)."""
        matrix = self._matrix
        if matrix is not None and (matrix.fingerprint, matrix.embedder) == (
            fingerprint,
            embedder,
        ):
            return matrix
        with self._lock:
            matrix = self._load(fingerprint, embedder)
            self._matrix = matrix
        return matrix

    def _load(self, fingerprint: str, embedder: str) -> _Matrix:
        conn = self._db.connection()
        rows = conn.execute(
            f"SELECT {_WITH_VECTORS}"  # noqa: S608
            " FROM chunks WHERE status = 'active' AND embedder = ? ORDER BY slug, ordinal",
            (embedder,),
        ).fetchall()
        tags = _tags_of(conn, None)
        vectors = (
            np.frombuffer(b"".join(r["vector"] for r in rows), dtype=np.float32).reshape(
                len(rows), -1
            )
            if rows
            else np.zeros((0, 0), dtype=np.float32)
        )
        indexed = [_indexed(r, tags) for r in rows]
        return _Matrix(
            fingerprint=fingerprint,
            embedder=embedder,
            vectors=vectors,
            rows=indexed,
            columns=FilterColumns(indexed),
        )


def _indexed(row: sqlite3.Row, tags: dict[str, tuple[str, ...]]) -> IndexedChunk:
    return IndexedChunk(
        slug=row["slug"],
        ordinal=row["ordinal"],
        title=row["title"],
        heading=row["heading"],
        text=row["text"],
        page_type=row["type"],
        category=row["category"],
        tags=tags.get(row["slug"], ()),
        **_vector_of(row),
    )


def _vector_of(row: sqlite3.Row) -> dict[str, Any]:
    """The row's embedder and vector, when the query read them."""
    if "vector" not in row.keys():  # noqa: SIM118 (a Row's `in` tests its values)
        return {}
    return {"embedder": row["embedder"], "vector": np.frombuffer(row["vector"], np.float32)}


def _hit(row: IndexedChunk, cosine: float) -> ChunkHit:
    return ChunkHit(
        slug=row.slug,
        title=row.title,
        heading=row.heading,
        text=row.text,
        ordinal=row.ordinal,
        cosine=cosine,
    )
