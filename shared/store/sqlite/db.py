"""One SQLite file shared by every adapter of the embedded store, and its fault boundary.

Each thread gets its own connection (WAL mode, so readers never block the writer
and several processes may share the file); each adapter module registers the DDL
of its own tables, and the upgrades of files older versions wrote, applied once
per process.

Every statement runs through connections and cursors of this module, which turn
SQLite's faults into our error tree, naming the file: a damaged file (checked with
``PRAGMA quick_check`` when a process first opens it, and known from the first
"malformed" error after that) is ``Unavailable`` for every call until it is repaired
and the process restarted, so nothing is written on top of the damage; a full disk,
an I/O error or a lock held too long is ``Unavailable`` for that call. Errors the
adapters handle themselves (``IntegrityError``) and real bugs pass through untouched.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from shared.errors import Unavailable

BUSY_TIMEOUT_MS = 10_000
# SQLite's primary result codes (the low byte of ``sqlite_errorcode``).
_IOERR, _CORRUPT, _FULL, _NOTADB = 10, 11, 13, 26
_BUSY, _LOCKED, _READONLY, _CANTOPEN = 5, 6, 8, 14
_ROOM_BYTES = 1024 * 1024  # less than this free beside the file: "the disk is full"

# What ``execute`` binds: a sequence or a mapping of values (typeshed's own alias is private).
_Parameters = Any


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
        self.damage: str | None = None  # what quick_check or SQLite said, once known

    def connection(self) -> sqlite3.Connection:
        self._refuse_if_damaged()
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
                factory=_Connection,
            )
        except (sqlite3.Error, OSError) as exc:
            raise Unavailable(f"the embedded store at {self.path} cannot be opened: {exc}") from exc
        conn.database = self
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            with self._lock:
                if not self._ready:
                    self._prepare(conn)
                    self._ready = True
            self._refuse_if_damaged()
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise self.translate(exc) or Unavailable(
                    f"the embedded store at {self.path} cannot be opened: {exc}"
                ) from exc
            raise
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Check the file, then WAL mode (kept in the file, so once per process) and the tables.

        ``quick_check`` reads every page once (0.5 s for a 400 MB file, milliseconds for a
        usual wiki): a process that writes must know first that the file is sound.
        Switching the journal mode needs the file to itself and SQLite may answer "locked"
        at once instead of waiting, so threads opening the store together must not race
        for it, and another process doing the same is waited out here. (Statements here
        run untranslated: ``_open`` reports what fails.)
        """
        raw = sqlite3.Connection.execute
        self._check(conn)
        if self.damage is not None:
            return
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                raw(conn, "PRAGMA journal_mode = WAL")
                sqlite3.Connection.executescript(conn, "\n".join(self._schema))
                for upgrade in self._upgrades:  # files written by older versions
                    upgrade(conn)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _check(self, conn: sqlite3.Connection) -> None:
        """Record damage that ``PRAGMA quick_check`` finds (an error while checking is damage)."""
        try:
            rows = [str(row[0]) for row in sqlite3.Connection.execute(conn, "PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            if _code(exc) in (_CORRUPT, _NOTADB):
                self.damage = str(exc)
                return
            raise
        if rows != ["ok"]:
            self.damage = "; ".join(rows[:3])

    def _refuse_if_damaged(self) -> None:
        if self.damage is not None:
            raise self._damaged()

    def _damaged(self) -> Unavailable:
        return Unavailable(
            f"the embedded store {self.path} is damaged ({self.damage}): nothing is read "
            "or written until it is repaired. Restore it from a backup, or recover what "
            f"is readable (sqlite3 {self.path.name} .recover | sqlite3 repaired.sqlite3), "
            "then restart"
        )

    def translate(self, exc: sqlite3.Error) -> Unavailable | None:
        """Our error for a fault of the file, naming it; None for what is not a fault."""
        if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError):
            return None  # the adapters' business (a duplicate slug), or a bug
        code = _code(exc)
        if code in (_CORRUPT, _NOTADB):
            self.damage = str(exc)
            return self._damaged()
        if code in (_FULL, _IOERR):
            room = self._no_room()
            if code == _FULL or room is not None:
                return Unavailable(
                    f"the disk holding the embedded store {self.path} is full"
                    + (f" ({room})" if room else "")
                    + ": nothing was written; free some space and retry"
                )
            return Unavailable(
                f"the embedded store {self.path} could not be read or written ({exc}): "
                "check the disk"
            )
        if code in (_BUSY, _LOCKED):
            return Unavailable(
                f"the embedded store {self.path} stayed locked by another writer for "
                f"{BUSY_TIMEOUT_MS // 1000} s; retry"
            )
        if code in (_READONLY, _CANTOPEN):
            return Unavailable(f"the embedded store {self.path} cannot be written: {exc}")
        return None

    def _no_room(self) -> str | None:
        """Why nothing more fits beside the file, if that is why a write failed."""
        files = [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-journal")]
        largest = max((p.stat().st_size for p in files if p.exists()), default=0)
        limit = _file_size_limit()
        if limit is not None and largest + _ROOM_BYTES >= limit:
            return f"this process may not write files over {limit} bytes"
        try:
            stats = os.statvfs(self.path.parent)
        except (AttributeError, OSError):  # no statvfs (Windows), or the folder is gone
            return None
        free = stats.f_bavail * stats.f_frsize
        return f"{free} bytes free" if free < _ROOM_BYTES else None

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken up front (BEGIN IMMEDIATE): all of it or nothing."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            # A full disk or an I/O error may have rolled the transaction back already (or
            # failed the COMMIT itself): the error that got us here is the one to report.
            if conn.in_transaction:
                with suppress(sqlite3.Error, Unavailable):
                    conn.execute("ROLLBACK")
            raise

    def data_version(self) -> int:
        """Changes whenever another connection commits: a cheap "has the store changed?"."""
        row = self.connection().execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _code(exc: sqlite3.Error) -> int:
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def _file_size_limit() -> int | None:
    try:
        import resource
    except ImportError:  # not on Unix
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _fault(conn: sqlite3.Connection, exc: sqlite3.Error) -> BaseException:
    """The error to raise for ``exc`` met on ``conn``: ours when it is a fault of the file."""
    database: Database | None = getattr(conn, "database", None)
    translated = database.translate(exc) if database is not None else None
    return exc if translated is None else translated


class _Connection(sqlite3.Connection):
    """A connection whose statements (and their cursors) report faults as our errors."""

    database: Database

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or _Cursor)

    def execute(self, sql: str, parameters: _Parameters = (), /) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = self.cursor()
        cursor.execute(sql, parameters)
        return cursor

    def executemany(self, sql: str, parameters: Iterable[_Parameters], /) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = self.cursor()
        cursor.executemany(sql, parameters)
        return cursor

    def executescript(self, sql_script: str, /) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = self.cursor()
        cursor.executescript(sql_script)
        return cursor


def _translated(method: Callable[..., Any]) -> Any:
    """``method`` of ``sqlite3.Cursor``, with a fault of the file raised as our error."""

    @functools.wraps(method)
    def call(self: sqlite3.Cursor, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise _fault(self.connection, exc) from exc

    return call


class _Cursor(sqlite3.Cursor):
    """Rows are read lazily, so a damaged page may surface while fetching: translated too."""

    execute = _translated(sqlite3.Cursor.execute)
    executemany = _translated(sqlite3.Cursor.executemany)
    executescript = _translated(sqlite3.Cursor.executescript)
    fetchone = _translated(sqlite3.Cursor.fetchone)
    fetchmany = _translated(sqlite3.Cursor.fetchmany)
    fetchall = _translated(sqlite3.Cursor.fetchall)
    __next__ = _translated(sqlite3.Cursor.__next__)
