"""Chunks of the embedded store: rows written with their page, searched by a scan."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from shared.ports import Chunk, ChunkHit, PageRecord, SearchFilter, Vector
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
    tags TEXT NOT NULL,
    status TEXT NOT NULL,
    source_types TEXT NOT NULL,
    PRIMARY KEY (slug, ordinal)
);
CREATE INDEX IF NOT EXISTS chunks_status ON chunks (status, embedder);
"""


def _page_fields(page: PageRecord) -> tuple[str, str | None, str | None, str, str, str]:
    fm = page.front_matter
    sources = fm.get("sources") or []
    source_types = sorted({str(s.get("type")) for s in sources if isinstance(s, dict)})
    return (
        str(fm.get("title", "")),
        fm.get("type"),
        fm.get("category"),
        json.dumps(list(fm.get("tags") or []), ensure_ascii=False),
        str(fm.get("status", "")),
        json.dumps(source_types),
    )


def replace(conn: sqlite3.Connection, page: PageRecord, chunks: Sequence[Chunk]) -> None:
    """Make ``chunks`` the page's chunks, inside the caller's transaction."""
    conn.execute("DELETE FROM chunks WHERE slug = ?", (page.slug,))
    fields = _page_fields(page)
    conn.executemany(
        "INSERT INTO chunks (slug, ordinal, heading, text, hash, vector, embedder, dim, title,"
        " type, category, tags, status, source_types)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    """Copy a page's filterable fields onto its chunks (metadata-only update)."""
    conn.execute(
        "UPDATE chunks SET title = ?, type = ?, category = ?, tags = ?, status = ?,"
        " source_types = ? WHERE slug = ?",
        (*_page_fields(page), page.slug),
    )


class SqliteChunks:
    """``ChunkIndex`` on SQLite: an exact scan over the active chunks."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def vectors_for(self, slug: str) -> dict[str, Vector]:
        rows = self._db.connection().execute(
            "SELECT hash, vector FROM chunks WHERE slug = ?", (slug,)
        )
        return {row["hash"]: np.frombuffer(row["vector"], dtype=np.float32) for row in rows}

    def embedders(self) -> set[str]:
        rows = self._db.connection().execute("SELECT DISTINCT embedder FROM chunks")
        return {row["embedder"] for row in rows}

    def nearest(
        self, vector: Vector, *, embedder: str, filters: SearchFilter, limit: int
    ) -> list[ChunkHit]:
        clauses = ["status = 'active'", "embedder = ?"]
        params: list[str] = [embedder]
        if filters.page_type is not None:
            clauses.append("type = ?")
            params.append(filters.page_type)
        if filters.category is not None:
            clauses.append("category = ?")
            params.append(filters.category)
        if filters.tag is not None:
            clauses.append("EXISTS (SELECT 1 FROM json_each(chunks.tags) WHERE value = ?)")
            params.append(filters.tag)
        rows = (
            self._db.connection()
            .execute(
                "SELECT slug, ordinal, heading, text, title, vector FROM chunks WHERE "  # noqa: S608
                + " AND ".join(clauses),
                params,
            )
            .fetchall()
        )
        if not rows:
            return []
        matrix = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
        scores = matrix @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores)[:limit]
        return [
            ChunkHit(
                slug=rows[i]["slug"],
                title=rows[i]["title"],
                heading=rows[i]["heading"],
                text=rows[i]["text"],
                ordinal=rows[i]["ordinal"],
                score=float(scores[i]),
            )
            for i in order
        ]
