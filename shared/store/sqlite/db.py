"""One SQLite file shared by every adapter of the embedded store.

Each thread gets its own connection (WAL mode, so readers never block the writer
and several processes may share the file); each adapter module registers the DDL
of its own tables, and the upgrades of files older versions wrote, applied once
per process.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from shared.errors import Unavailable

BUSY_TIMEOUT_MS = 10_000


class Database:
    """A lazily opened SQLite file, one connection per thread."""

    def __init__(
        self,
        path: Path,
        schema: list[str],
        upgrades: Sequence[Callable[[sqlite3.Connection], None]] = (),
    ) -> None:
        self.path = path
        self._schema = schema
        self._upgrades = upgrades
        self._local = threading.local()
        self._ready = False
        self._lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            with self._lock:
                if not self._ready:
                    self._prepare(conn)
                    self._ready = True
        except (sqlite3.Error, OSError) as exc:
            raise Unavailable(f"the embedded store at {self.path} cannot be opened: {exc}") from exc
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """WAL mode (kept in the file, so once per process is enough) and the tables.

        Switching the journal mode needs the file to itself and SQLite may answer "locked"
        at once instead of waiting, so threads opening the store together must not race
        for it, and another process doing the same is waited out here.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.executescript("\n".join(self._schema))
                for upgrade in self._upgrades:  # files written by older versions
                    upgrade(conn)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken up front (BEGIN IMMEDIATE): all of it or nothing."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes whenever another connection commits: a cheap "has the store changed?"."""
        row = self.connection().execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
