"""Revisions and proposals in the embedded store.

A revision row is written by ``SqlitePages`` inside the page's own transaction
(``keep``), which also drops the page's revisions past the retention; this module
reads them back. Proposals are rows of their own, closed with a conditional UPDATE.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from shared.records import Proposal, ProposalStatus, Revision
from shared.store.proposals import proposal_data, proposal_from
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS revisions (
    slug TEXT NOT NULL,
    version INTEGER NOT NULL,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    changed TEXT NOT NULL,
    front_matter TEXT NOT NULL,
    content TEXT NOT NULL,
    note TEXT,
    PRIMARY KEY (slug, version)
);
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY,
    slug TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS proposals_status ON proposals (status, created_at);
"""


def keep(conn: sqlite3.Connection, revision: Revision, retain: int, at_text: str) -> None:
    """Into the caller's transaction: ``revision``, and the retention (``retain`` newest
    revisions of the page; 0 keeps all). A revision row of the same version (a page
    written before under this slug, never the case through the services) is replaced."""
    conn.execute(
        "INSERT OR REPLACE INTO revisions (slug, version, at, actor, changed, front_matter,"
        " content, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            revision.slug,
            revision.version,
            at_text,
            revision.actor,
            json.dumps(list(revision.changed)),
            json.dumps(dict(revision.front_matter), ensure_ascii=False),
            revision.content,
            revision.note,
        ),
    )
    if retain > 0:
        conn.execute(
            "DELETE FROM revisions WHERE slug = ? AND version <= ?",
            (revision.slug, revision.version - retain),
        )


def _revision(row: sqlite3.Row) -> Revision:
    return Revision(
        slug=row["slug"],
        version=row["version"],
        at=datetime.fromisoformat(row["at"]),
        actor=row["actor"],
        changed=tuple(json.loads(row["changed"])),
        front_matter=json.loads(row["front_matter"]),
        content=row["content"],
        note=row["note"],
    )


class SqliteRevisions:
    """``RevisionLog`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def history(self, slug: str, *, limit: int = 20) -> list[Revision]:
        rows = self._db.connection().execute(
            "SELECT * FROM revisions WHERE slug = ? ORDER BY version DESC LIMIT ?",
            (slug, max(limit, 0)),
        )
        return [_revision(row) for row in rows]

    def get(self, slug: str, version: int) -> Revision | None:
        row = (
            self._db.connection()
            .execute("SELECT * FROM revisions WHERE slug = ? AND version = ?", (slug, version))
            .fetchone()
        )
        return None if row is None else _revision(row)


class SqliteProposals:
    """``ProposalStore`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, proposal: Proposal) -> None:
        data = proposal_data(proposal)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO proposals (id, slug, status, created_at, data) VALUES (?, ?, ?, ?, ?)",
                (
                    proposal.id,
                    proposal.slug,
                    proposal.status,
                    data["created_at"],
                    json.dumps(data, ensure_ascii=False),
                ),
            )

    def get(self, proposal_id: str) -> Proposal | None:
        row = (
            self._db.connection()
            .execute("SELECT data FROM proposals WHERE id = ?", (proposal_id,))
            .fetchone()
        )
        return None if row is None else proposal_from(json.loads(row["data"]))

    def list(
        self,
        *,
        status: ProposalStatus | None = "open",
        slug: str | None = None,
        actor: str | None = None,
    ) -> list[Proposal]:
        where = [(c, v) for c, v in (("status", status), ("slug", slug)) if v is not None]
        clause = " AND ".join(f"{c} = ?" for c, _ in where) or "1"
        rows = self._db.connection().execute(
            f"SELECT data FROM proposals WHERE {clause} ORDER BY created_at, id",  # noqa: S608
            tuple(v for _, v in where),
        )
        found = [proposal_from(json.loads(row["data"])) for row in rows]
        # The table has no actor column: one page's proposals are few, filtered here.
        return [p for p in found if actor is None or p.actor == actor]

    def close(self, closed: Proposal) -> bool:
        with self._db.write() as conn:
            return close_open(conn, closed)


def close_open(conn: sqlite3.Connection, closed: Proposal) -> bool:
    """Close a proposal that is still open, in the caller's transaction; whether it was."""
    cursor = conn.execute(
        "UPDATE proposals SET status = ?, data = ? WHERE id = ? AND status = 'open'",
        (closed.status, json.dumps(proposal_data(closed), ensure_ascii=False), closed.id),
    )
    return bool(cursor.rowcount)
