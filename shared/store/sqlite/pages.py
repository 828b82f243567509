"""Pages in the embedded store; chunks are written in the same transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

from shared.errors import Conflict, NotFound, VersionConflict
from shared.ports import Chunk, PageRecord
from shared.store.sqlite import chunks as chunk_rows
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    slug TEXT PRIMARY KEY,
    front_matter TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pages_status_updated ON pages (status, updated_at);
CREATE INDEX IF NOT EXISTS pages_updated ON pages (updated_at);
"""


def _status(page: PageRecord) -> str:
    return str(page.front_matter.get("status", ""))


def _utc_text(moment: datetime) -> str:
    """ISO text in UTC: the columns are compared as text, so every value needs one offset."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat()


def _row_values(page: PageRecord) -> tuple[str, str, int, str, str, str]:
    return (
        json.dumps(page.front_matter, ensure_ascii=False),
        page.content,
        page.version,
        _status(page),
        _utc_text(page.created_at),
        _utc_text(page.updated_at),
    )


def _record(row: sqlite3.Row) -> PageRecord:
    return PageRecord(
        slug=row["slug"],
        front_matter=json.loads(row["front_matter"]),
        content=row["content"],
        version=row["version"],
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
    )


class SqlitePages:
    """``PageStore`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, slug: str) -> PageRecord | None:
        row = (
            self._db.connection().execute("SELECT * FROM pages WHERE slug = ?", (slug,)).fetchone()
        )
        return None if row is None else _record(row)

    def create(self, page: PageRecord, chunks: Sequence[Chunk]) -> None:
        with self._db.write() as conn:
            try:
                conn.execute(
                    "INSERT INTO pages (slug, front_matter, content, version, status,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (page.slug, *_row_values(page)),
                )
            except sqlite3.IntegrityError as exc:
                raise Conflict(
                    f"a page with slug '{page.slug}' already exists", field="slug"
                ) from exc
            chunk_rows.replace(conn, page, chunks)

    def update(
        self, page: PageRecord, chunks: Sequence[Chunk] | None, *, expected_version: int
    ) -> None:
        with self._db.write() as conn:
            row = conn.execute("SELECT version FROM pages WHERE slug = ?", (page.slug,)).fetchone()
            if row is None:
                raise NotFound(f"no page with slug '{page.slug}'", field="slug")
            if row["version"] != expected_version:
                raise VersionConflict(
                    f"page '{page.slug}' is at version {row['version']}, "
                    f"not {expected_version}: read it again and retry",
                    field="expected_version",
                )
            fm, content, version, status, _created, updated = _row_values(page)
            conn.execute(
                "UPDATE pages SET front_matter = ?, content = ?, version = ?, status = ?,"
                " updated_at = ? WHERE slug = ?",
                (fm, content, version, status, updated, page.slug),
            )
            if chunks is None:
                chunk_rows.refresh_page_fields(conn, page)
            else:
                chunk_rows.replace(conn, page, chunks)

    def count(self) -> int:
        row = self._db.connection().execute("SELECT COUNT(*) AS n FROM pages").fetchone()
        return int(row["n"])

    def list(
        self, *, status: str | None = None, updated_since: datetime | None = None
    ) -> list[PageRecord]:
        clauses, params = [], []
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        if updated_since is not None:
            clauses.append("updated_at >= ?")
            params.append(_utc_text(updated_since))
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._db.connection().execute(f"SELECT * FROM pages{where} ORDER BY slug", params)  # noqa: S608
        return [_record(row) for row in rows]
