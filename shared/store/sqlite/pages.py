"""Pages in the embedded store; chunks and the revision are written in the same transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from shared.errors import Conflict, NotFound, VersionConflict, proposal_closed
from shared.gates.staleness import cited_keys, from_stored, to_stored
from shared.records import (
    Chunk,
    CitingRecord,
    Freshness,
    Origin,
    PageRecord,
    Proposal,
    Revision,
)
from shared.store.sqlite import chunks as chunk_rows
from shared.store.sqlite import revisions as revision_rows
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
CREATE TABLE IF NOT EXISTS page_paths (
    key TEXT NOT NULL,
    slug TEXT NOT NULL REFERENCES pages (slug) ON DELETE CASCADE,
    PRIMARY KEY (key, slug)
);
CREATE INDEX IF NOT EXISTS page_paths_slug ON page_paths (slug);
CREATE TABLE IF NOT EXISTS page_origins (
    slug TEXT PRIMARY KEY REFERENCES pages (slug) ON DELETE CASCADE,
    tree TEXT NOT NULL,
    path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS page_origins_tree ON page_origins (tree);
"""


def add_freshness(conn: sqlite3.Connection) -> None:
    """Files written before freshness existed gain its column (NULL: never checked).

    Two processes may upgrade one file at once: the second finds the column there."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(pages)")}
    if "freshness" not in columns:
        try:
            conn.execute("ALTER TABLE pages ADD COLUMN freshness TEXT")
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise


def add_updated_by(conn: sqlite3.Connection) -> None:
    """Files written before revisions were kept gain the column of the last actor (NULL)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(pages)")}
    if "updated_by" not in columns:
        try:
            conn.execute("ALTER TABLE pages ADD COLUMN updated_by TEXT")
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise


UPGRADES = [add_freshness, add_updated_by]


def _status(page: PageRecord) -> str:
    return str(page.front_matter.get("status", ""))


def _utc_text(moment: datetime) -> str:
    """ISO text in UTC: the columns are compared as text, so every value needs one offset."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat()


def _row_values(page: PageRecord) -> tuple[str, str, int, str, str, str, str | None]:
    return (
        json.dumps(page.front_matter, ensure_ascii=False),
        page.content,
        page.version,
        _status(page),
        _utc_text(page.created_at),
        _utc_text(page.updated_at),
        _freshness_text(page.freshness),
    )


def _freshness_text(freshness: Freshness | None) -> str | None:
    return None if freshness is None else json.dumps(to_stored(freshness), ensure_ascii=False)


def _freshness(text: str | None) -> Freshness | None:
    return None if not text else from_stored(json.loads(text))


def _record(row: sqlite3.Row) -> PageRecord:
    return PageRecord(
        slug=row["slug"],
        front_matter=json.loads(row["front_matter"]),
        content=row["content"],
        version=row["version"],
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        freshness=_freshness(row["freshness"]),
        updated_by=row["updated_by"],
    )


def _keep_revision(conn: sqlite3.Connection, revision: Revision | None, retain: int) -> None:
    """Into the page's transaction: the revision, and its actor on the page."""
    if revision is None:
        return
    revision_rows.keep(conn, revision, retain, _utc_text(revision.at))
    conn.execute("UPDATE pages SET updated_by = ? WHERE slug = ?", (revision.actor, revision.slug))


def _index_paths(conn: sqlite3.Connection, page: PageRecord) -> None:
    """The path index rows of a page, replaced in the page's own transaction."""
    conn.execute("DELETE FROM page_paths WHERE slug = ?", (page.slug,))
    conn.executemany(
        "INSERT INTO page_paths (key, slug) VALUES (?, ?)",
        [(key, page.slug) for key in cited_keys(page.freshness)],
    )


class SqlitePages:
    """``PageStore`` on SQLite; ``keep``: revisions kept per page (0: all)."""

    def __init__(self, db: Database, *, keep: int = 0) -> None:
        self._db = db
        self._keep = keep

    def get(self, slug: str) -> PageRecord | None:
        row = (
            self._db.connection().execute("SELECT * FROM pages WHERE slug = ?", (slug,)).fetchone()
        )
        return None if row is None else _record(row)

    def create(
        self, page: PageRecord, chunks: Sequence[Chunk], revision: Revision | None = None
    ) -> None:
        with self._db.write() as conn:
            try:
                conn.execute(
                    "INSERT INTO pages (slug, front_matter, content, version, status,"
                    " created_at, updated_at, freshness) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (page.slug, *_row_values(page)),
                )
            except sqlite3.IntegrityError as exc:
                raise Conflict(
                    f"a page with slug '{page.slug}' already exists", field="slug"
                ) from exc
            _index_paths(conn, page)
            chunk_rows.replace(conn, page, chunks)
            _keep_revision(conn, revision, self._keep)

    def update(
        self,
        page: PageRecord,
        chunks: Sequence[Chunk] | None,
        *,
        expected_version: int,
        revision: Revision | None = None,
        closes: Proposal | None = None,
    ) -> None:
        with self._db.write() as conn:
            if closes is not None and not revision_rows.close_open(
                conn, replace(closes, version=page.version)
            ):
                raise proposal_closed(closes.id)
            row = conn.execute("SELECT version FROM pages WHERE slug = ?", (page.slug,)).fetchone()
            if row is None:
                raise NotFound(f"no page with slug '{page.slug}'", field="slug")
            if row["version"] != expected_version:
                raise VersionConflict(
                    f"page '{page.slug}' is at version {row['version']}, "
                    f"not {expected_version}: read it again and retry",
                    field="expected_version",
                )
            fm, content, version, status, _created, updated, freshness = _row_values(page)
            conn.execute(
                "UPDATE pages SET front_matter = ?, content = ?, version = ?, status = ?,"
                " updated_at = ?, freshness = ? WHERE slug = ?",
                (fm, content, version, status, updated, freshness, page.slug),
            )
            _index_paths(conn, page)
            if chunks is None:
                chunk_rows.refresh_page_fields(conn, page)
            else:
                chunk_rows.replace(conn, page, chunks)
            _keep_revision(conn, revision, self._keep)

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

    def citing(self, keys: Sequence[str] | None) -> Sequence[CitingRecord]:
        conn = self._db.connection()
        if keys is None:
            rows = conn.execute(
                "SELECT slug, version, freshness FROM pages WHERE slug IN"
                " (SELECT slug FROM page_paths) ORDER BY slug"
            )
        else:
            rows = conn.execute(
                "SELECT slug, version, freshness FROM pages WHERE slug IN"
                " (SELECT slug FROM page_paths WHERE key IN (SELECT value FROM json_each(?)))"
                " ORDER BY slug",
                (json.dumps(list(keys)),),
            )
        found = []
        for row in rows:
            freshness = _freshness(row["freshness"])
            if freshness is not None:
                found.append(CitingRecord(row["slug"], row["version"], freshness))
        return found

    def set_freshness(self, slug: str, freshness: Freshness, *, version: int) -> bool:
        return self.set_freshness_many([(slug, version, freshness)]) == 1

    def set_freshness_many(self, updates: Sequence[tuple[str, int, Freshness]]) -> int:
        done = 0
        with self._db.write() as conn:
            for slug, version, freshness in updates:
                if conn.execute(
                    "UPDATE pages SET freshness = ? WHERE slug = ? AND version = ?",
                    (_freshness_text(freshness), slug, version),
                ).rowcount:
                    _index_paths(conn, PageRecord(slug, {}, "", version, _EPOCH, _EPOCH, freshness))
                    done += 1
        return done

    def freshness_of(self, slugs: Sequence[str]) -> dict[str, Freshness]:
        rows = self._db.connection().execute(
            "SELECT slug, freshness FROM pages WHERE slug IN (SELECT value FROM json_each(?))",
            (json.dumps(list(slugs)),),
        )
        found = {row["slug"]: _freshness(row["freshness"]) for row in rows}
        return {slug: f for slug, f in found.items() if f is not None}

    def set_origins(self, origins: Mapping[str, Origin]) -> None:
        # A row of its own beside the page (not a column of ``pages``): a page write never
        # rewrites it, and an older file needs no upgrade to gain the table.
        with self._db.write() as conn:
            conn.executemany(
                "INSERT INTO page_origins (slug, tree, path)"
                " SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM pages WHERE slug = ?1)"
                " ON CONFLICT (slug) DO UPDATE SET tree = excluded.tree, path = excluded.path",
                [(slug, o.tree, o.path) for slug, o in origins.items()],
            )

    def origins(self, tree: str) -> dict[str, str]:
        rows = self._db.connection().execute(
            "SELECT slug, path FROM page_origins WHERE tree = ?", (tree,)
        )
        return {row["slug"]: row["path"] for row in rows}

    def contents_of(self, slugs: Sequence[str]) -> dict[str, str]:
        rows = self._db.connection().execute(
            "SELECT slug, content FROM pages WHERE slug IN (SELECT value FROM json_each(?))",
            (json.dumps(list(slugs)),),
        )
        return {row["slug"]: row["content"] for row in rows}


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
