"""The code index in the embedded store: paths per repository and reference-counted keys.

``code_keys`` holds every multi-segment suffix of every indexed path (case-folded) with
the number of (repo, path) pairs that have it, so removing a path deletes exactly the
keys no other path shares. ``code_roots`` holds each repository's top-level folders
(``root_names``), recomputed from its paths on every put that changes them. ``code_seen``
remembers the keys of paths a put removed (freshness judges only paths the index once
held). ``lookup`` is one SELECT that also returns the path total, the roots and the
keys seen.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence

from shared.records import KeyLookup, PathChanges
from shared.store.sqlite.db import Database
from shared.text.code_paths import root_names, suffix_keys

SCHEMA = """
CREATE TABLE IF NOT EXISTS code_paths (
    repo TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS code_keys (
    key TEXT PRIMARY KEY,
    refs INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS code_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    paths INTEGER NOT NULL
);
INSERT OR IGNORE INTO code_meta (id, paths) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS code_seen (
    key TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS code_roots (
    repo TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (repo, name)
);
"""


def fill_roots(conn: sqlite3.Connection) -> None:
    """Files written before roots existed gain them from their paths, once (a file whose
    every path sits at a repository's root has none, and finds out with one row read).

    In a write transaction, and idempotent: a second process doing the same inserts none."""
    has_roots = conn.execute("SELECT 1 FROM code_roots LIMIT 1").fetchone()
    if has_roots is not None:
        return
    if conn.execute("SELECT 1 FROM code_paths WHERE instr(path, '/') LIMIT 1").fetchone() is None:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        by_repo: dict[str, set[str]] = {}
        for repo, path in conn.execute("SELECT repo, path FROM code_paths"):
            by_repo.setdefault(repo, set()).add(path)
        conn.executemany(
            "INSERT OR IGNORE INTO code_roots (repo, name) VALUES (?, ?)",
            [(repo, name) for repo, paths in by_repo.items() for name in root_names(paths)],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


UPGRADES = [fill_roots]


def key_deltas(added: Iterable[str], removed: Iterable[str]) -> Counter[str]:
    """How each key's reference count changes when ``added`` and ``removed`` paths do."""
    deltas: Counter[str] = Counter()
    for path in added:
        deltas.update(suffix_keys(path))
    for path in removed:
        deltas.subtract(suffix_keys(path))
    return deltas


def _apply(conn: sqlite3.Connection, deltas: Counter[str]) -> None:
    conn.executemany(
        "INSERT INTO code_keys (key, refs) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET refs = refs + excluded.refs",
        [(key, n) for key, n in deltas.items() if n],
    )
    conn.executemany(
        "DELETE FROM code_keys WHERE key = ? AND refs <= 0",
        [(key,) for key, n in deltas.items() if n < 0],
    )


def _all_roots(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT DISTINCT name FROM code_roots")}


def _put_roots(conn: sqlite3.Connection, repo: str, names: frozenset[str]) -> bool:
    """Store ``repo``'s roots; whether the union of every repository's roots changed."""
    before = _all_roots(conn)
    conn.execute("DELETE FROM code_roots WHERE repo = ?", (repo,))
    conn.executemany(
        "INSERT INTO code_roots (repo, name) VALUES (?, ?)", [(repo, n) for n in sorted(names)]
    )
    return _all_roots(conn) != before


class SqliteCodeIndex:
    """``CodeIndex`` on SQLite; a put is one transaction, a lookup one statement."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def put_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> int:
        return self.apply_paths(repo, paths, replace=replace).indexed

    def apply_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> PathChanges:
        wanted = set(paths)
        with self._db.write() as conn:
            before = int(conn.execute("SELECT paths FROM code_meta WHERE id = 1").fetchone()[0])
            stored = {
                row["path"]
                for row in conn.execute("SELECT path FROM code_paths WHERE repo = ?", (repo,))
            }
            added = wanted - stored
            removed = stored - wanted if replace else set()
            conn.executemany(
                "INSERT INTO code_paths (repo, path) VALUES (?, ?)", [(repo, p) for p in added]
            )
            conn.executemany(
                "DELETE FROM code_paths WHERE repo = ? AND path = ?", [(repo, p) for p in removed]
            )
            _apply(conn, key_deltas(added, removed))
            # A removed path's keys are remembered: citing it later is citing a file the
            # index lost (stale), not one it never held (not judged).
            conn.executemany(
                "INSERT OR IGNORE INTO code_seen (key) VALUES (?)",
                [(k,) for k in sorted({k for p in removed for k in suffix_keys(p)})],
            )
            conn.execute(
                "UPDATE code_meta SET paths = paths + ? WHERE id = 1", (len(added) - len(removed),)
            )
            roots_changed = bool(added or removed) and _put_roots(
                conn, repo, root_names((stored | added) - removed)
            )
            return PathChanges(
                indexed=len(stored) + len(added) - len(removed),
                added=tuple(sorted(added)),
                removed=tuple(sorted(removed)),
                total_before=before,
                total_after=before + len(added) - len(removed),
                roots_changed=roots_changed,
            )

    def paths_named(self, names: Sequence[str], *, limit: int = 20) -> dict[str, list[str]]:
        # Only asked for the missing paths of a stale page: a scan of the paths with
        # LIKE (case-insensitive for ASCII), the file name compared exactly after.
        # A name held by more than ``limit`` paths is too common to suggest: left out.
        found: dict[str, list[str]] = {}
        conn = self._db.connection()
        for name in names:
            escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = conn.execute(
                "SELECT DISTINCT path FROM code_paths"
                " WHERE path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\' ORDER BY path",
                ("%/" + escaped, escaped),
            )
            paths = [r["path"] for r in rows if r["path"].rsplit("/", 1)[-1].casefold() == name]
            if 0 < len(paths) <= limit:  # a name held by more is too common to suggest
                found[name] = paths
        return found

    def lookup(self, keys: Sequence[str]) -> KeyLookup:
        # One statement: the meta row carries the number of indexed paths, then the keys
        # found, then the roots (a few names: one row each).
        rows = (
            self._db.connection()
            .execute(
                "SELECT 'total' AS kind, NULL AS key, paths AS n FROM code_meta WHERE id = 1"
                " UNION ALL SELECT 'key', key, refs FROM code_keys"
                " WHERE key IN (SELECT value FROM json_each(?))"
                " UNION ALL SELECT DISTINCT 'root', name, 0 FROM code_roots"
                " UNION ALL SELECT 'seen', key, 0 FROM code_seen"
                " WHERE key IN (SELECT value FROM json_each(?))",
                (json.dumps(list(keys)), json.dumps(list(keys))),
            )
            .fetchall()
        )
        total = next((int(r["n"]) for r in rows if r["kind"] == "total"), 0)
        found = frozenset(r["key"] for r in rows if r["kind"] == "key")
        roots = frozenset(r["key"] for r in rows if r["kind"] == "root")
        seen = found | {r["key"] for r in rows if r["kind"] == "seen"}
        return KeyLookup(found=found, indexed_paths=total, roots=roots, seen=seen)
