"""The rebuild's lease and manifest in the embedded store (``SiteState`` on SQLite).

The lease is one row (owner, expiry) taken in a ``BEGIN IMMEDIATE`` transaction, so
two processes sharing the file cannot both hold it; the manifest and the navigation are
one JSON row each, as is what imports said of their trees (routes, the site's name).
The files pages link (``site_assets``) are one row each, by the path the site publishes
them at (it names their content).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from shared.json_value import JsonObject
from shared.records import Lease, StoredNav, stored_nav
from shared.store.sqlite.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS site_lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS site_manifest (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    data TEXT NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS site_nav (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    data TEXT NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS site_imports (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    data TEXT NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS site_assets (
    path TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    saved_at REAL NOT NULL
);
"""


class SqliteSiteState:
    """``SiteState`` on SQLite; ``clock`` (seconds since the epoch) dates the lease."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock

    def acquire_lease(self, owner: str, ttl_seconds: float) -> bool:
        """Take (or extend, for the same owner) the lease unless another owner holds it."""
        now = self._clock()
        with self._db.write() as conn:
            row = conn.execute("SELECT owner, expires_at FROM site_lease WHERE id = 1").fetchone()
            if row is not None and row["owner"] != owner and row["expires_at"] > now:
                return False
            conn.execute(
                "INSERT INTO site_lease (id, owner, expires_at) VALUES (1, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET owner = excluded.owner,"
                " expires_at = excluded.expires_at",
                (owner, now + ttl_seconds),
            )
            return True

    def release_lease(self, owner: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM site_lease WHERE id = 1 AND owner = ?", (owner,))

    def read_lease(self) -> Lease | None:
        sql = "SELECT owner, expires_at FROM site_lease WHERE id = 1"
        row = self._db.connection().execute(sql).fetchone()
        return None if row is None else Lease(str(row["owner"]), float(row["expires_at"]))

    def load_manifest(self) -> JsonObject | None:
        return self._load("site_manifest")

    def save_manifest(self, manifest: Mapping[str, Any]) -> None:
        self._save("site_manifest", manifest)

    def load_nav(self) -> StoredNav | None:
        return stored_nav(self._load("site_nav"))

    def save_nav(self, nav: Mapping[str, Any] | None) -> None:
        if nav is None:
            with self._db.write() as conn:
                conn.execute("DELETE FROM site_nav WHERE id = 1")
            return
        self._save("site_nav", nav)

    def load_imports(self) -> dict[str, Any] | None:
        return self._load("site_imports")

    def save_imports(self, imports: Mapping[str, Any]) -> None:
        self._save("site_imports", imports)

    def _load(self, table: str) -> JsonObject | None:
        row = (
            self._db.connection().execute(f"SELECT data FROM {table} WHERE id = 1").fetchone()  # noqa: S608
        )
        if row is None:
            return None
        try:
            data = json.loads(row["data"])
        except ValueError:
            return None  # unreadable: the next build is a full one (or has no nav)
        return data if isinstance(data, dict) else None

    def _save(self, table: str, value: Mapping[str, Any]) -> None:
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        with self._db.write() as conn:
            conn.execute(
                f"INSERT INTO {table} (id, data, saved_at) VALUES (1, ?, ?)"  # noqa: S608
                " ON CONFLICT (id) DO UPDATE SET data = excluded.data,"
                " saved_at = excluded.saved_at",
                (data, time.time()),
            )

    # -- assets -------------------------------------------------------------------------

    def put_assets(self, assets: Mapping[str, bytes]) -> None:
        now = self._clock()
        with self._db.write() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO site_assets (path, data, saved_at) VALUES (?, ?, ?)",
                [(path, data, now) for path, data in sorted(assets.items())],
            )

    def held_assets(self, paths: Collection[str]) -> set[str]:
        rows = self._db.connection().execute(
            "SELECT path FROM site_assets WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(paths)),),
        )
        return {row["path"] for row in rows}

    def get_assets(self, paths: Collection[str]) -> dict[str, bytes]:
        rows = self._db.connection().execute(
            "SELECT path, data FROM site_assets WHERE path IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(paths)),),
        )
        return {row["path"]: bytes(row["data"]) for row in rows}
