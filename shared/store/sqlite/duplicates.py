"""What ``duplicates`` keeps between runs, in the embedded store (``DuplicateIndex``).

A signature is one row by slug, and one ``dedup_bands`` row per band key (indexed), so
the candidates of a changed page are one indexed lookup; the pairs found, the dismissed
pairs and the cursor are rows too.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from shared.clock import now
from shared.records import StoredFinding, StoredSignature
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS dedup_signatures (
    slug TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS dedup_bands (
    band TEXT NOT NULL,
    slug TEXT NOT NULL,
    PRIMARY KEY (band, slug)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS dedup_bands_slug ON dedup_bands (slug);
CREATE TABLE IF NOT EXISTS dedup_findings (
    key TEXT PRIMARY KEY,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    kind TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS dedup_findings_a ON dedup_findings (a);
CREATE INDEX IF NOT EXISTS dedup_findings_b ON dedup_findings (b);
CREATE TABLE IF NOT EXISTS dedup_dismissed (
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (a, b)
);
CREATE TABLE IF NOT EXISTS dedup_cursor (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cursor TEXT NOT NULL
);
"""
_IN = "(SELECT value FROM json_each(?))"


class SqliteDuplicates:
    """``DuplicateIndex`` on SQLite."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def cursor(self) -> str | None:
        row = self._db.connection().execute("SELECT cursor FROM dedup_cursor").fetchone()
        return None if row is None else str(row["cursor"])

    def signatures(self, slugs: Collection[str] | None) -> list[StoredSignature]:
        conn = self._db.connection()
        if slugs is None:
            rows = conn.execute("SELECT slug, data FROM dedup_signatures ORDER BY slug")
        else:
            rows = conn.execute(
                f"SELECT slug, data FROM dedup_signatures WHERE slug IN {_IN} ORDER BY slug",  # noqa: S608
                (json.dumps(sorted(set(slugs))),),
            )
        # The bands are only looked up, never read back: the signature holds them.
        return [StoredSignature(str(r["slug"]), (), bytes(r["data"])) for r in rows]

    def sharing(self, bands: Collection[str]) -> set[str]:
        if not bands:
            return set()
        rows = self._db.connection().execute(
            f"SELECT DISTINCT slug FROM dedup_bands WHERE band IN {_IN}",  # noqa: S608
            (json.dumps(sorted(set(bands))),),
        )
        return {str(r["slug"]) for r in rows}

    def findings(self) -> list[StoredFinding]:
        rows = self._db.connection().execute(
            "SELECT a, b, kind, data FROM dedup_findings ORDER BY key"
        )
        return [StoredFinding(r["a"], r["b"], r["kind"], bytes(r["data"])) for r in rows]

    def save(
        self,
        *,
        signatures: Sequence[StoredSignature],
        removed: Collection[str],
        findings: Sequence[StoredFinding],
        touched: Collection[str] | None,
        cursor: str,
    ) -> None:
        gone = json.dumps(sorted({*removed, *(s.slug for s in signatures)}))
        with self._db.write() as conn:
            conn.execute(f"DELETE FROM dedup_bands WHERE slug IN {_IN}", (gone,))  # noqa: S608
            conn.execute(f"DELETE FROM dedup_signatures WHERE slug IN {_IN}", (gone,))  # noqa: S608
            conn.executemany(
                "INSERT INTO dedup_signatures (slug, data) VALUES (?, ?)",
                [(s.slug, s.data) for s in signatures],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO dedup_bands (band, slug) VALUES (?, ?)",
                [(band, s.slug) for s in signatures for band in s.bands],
            )
            if touched is None:
                conn.execute("DELETE FROM dedup_findings")
            else:
                names = json.dumps(sorted(set(touched)))
                conn.execute(
                    f"DELETE FROM dedup_findings WHERE a IN {_IN} OR b IN {_IN}",  # noqa: S608
                    (names, names),
                )
            conn.executemany(
                "INSERT OR REPLACE INTO dedup_findings (key, a, b, kind, data)"
                " VALUES (?, ?, ?, ?, ?)",
                [(f.key, f.a, f.b, f.kind, f.data) for f in findings],
            )
            conn.execute(
                "INSERT INTO dedup_cursor (id, cursor) VALUES (1, ?)"
                " ON CONFLICT (id) DO UPDATE SET cursor = excluded.cursor",
                (cursor,),
            )

    def dismiss(self, a: str, b: str, *, by: str, reason: str | None) -> None:
        a, b = sorted((a, b))
        data = json.dumps({"by": by, "reason": reason, "at": now().isoformat()})
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO dedup_dismissed (a, b, data) VALUES (?, ?, ?)",
                (a, b, data),
            )

    def dismissed(self) -> set[tuple[str, str]]:
        rows = self._db.connection().execute("SELECT a, b FROM dedup_dismissed")
        return {(str(r["a"]), str(r["b"])) for r in rows}
