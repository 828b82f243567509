"""Firestore's change log: one small document per page write, in the write's own commit.

``changes/<random id>`` holds the page's slug and ``at``, the commit's own timestamp
(``SERVER_TIMESTAMP``), so a reader that brought its index up to date asks only for the
log after its high-water mark, not for every chunk. Firestore reads are strongly
consistent and commit timestamps follow real time: a log entry that becomes visible
after a read has a later timestamp than anything that read saw. The reader still looks
back ``OVERLAP_S`` before its last look (an emulator or a clock that orders commits
otherwise) and skips the entries it already applied, by id; once ``OVERLAP_S`` has passed
since the last write, a question reads the one latest entry.

Entries carry ``expire_at`` (``RETENTION_S`` ahead) for a TTL policy on ``changes``
(docs/scale.md). A reader that has not looked for half that long cannot trust the log
(entries of its window may be gone); it reads instead which pages were written since its
last look by their own ``written_at``, the same commit time stamped on the page document
by every page write: an ordered read of the pages written, not of every chunk. So a
stored snapshot days old still starts a cold instance on a quiet wiki.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from google.cloud.firestore_v1 import SERVER_TIMESTAMP
from google.cloud.firestore_v1.base_query import FieldFilter

from shared import clock
from shared.records import ChunkChanges
from shared.store.firestore.db import Database

COLLECTION = "changes"
# How far before its last look a reader looks again. Firestore itself needs none (see
# above); it is insurance, paid as re-reading the log entries of the last OVERLAP_S
# (after a burst of writes, for OVERLAP_S only; one read per question otherwise).
OVERLAP_S = 5.0
RETENTION_S = 7 * 24 * 3600.0  # the TTL of an entry; a reader idle for half of it asks pages
WRITTEN_AT = "written_at"  # on each page document: its last write's commit time


def log_write(db: Database, batch: Any, slug: str) -> None:
    """Add to ``batch`` the log entry of a write of ``slug``'s chunks (same commit)."""
    ref = db.collection(COLLECTION).document(uuid.uuid4().hex)
    expire = clock.now() + timedelta(seconds=RETENTION_S)
    batch.set(ref, {"slug": slug, "at": SERVER_TIMESTAMP, "expire_at": expire})


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a reader is: the latest ``at`` applied, the ids applied at or after the next
    query's lower bound, and when it last looked (its own clock, epoch seconds)."""

    at: datetime | None
    seen: frozenset[str]
    checked: float

    def encode(self) -> str:
        return json.dumps(
            {
                "at": self.at.isoformat() if self.at else None,
                "seen": sorted(self.seen),
                "checked": self.checked,
            }
        )

    @staticmethod
    def decode(text: str | None) -> Cursor | None:
        if not text:
            return None
        try:
            data = json.loads(text)
            at = datetime.fromisoformat(data["at"]) if data["at"] else None
            return Cursor(at, frozenset(str(s) for s in data["seen"]), float(data["checked"]))
        except (ValueError, KeyError, TypeError):
            return None

    def lower_bound(self) -> datetime | None:
        """The next query's ``at >=``: the mark, or the overlap before the last look."""
        if self.at is None:
            return None
        looked = datetime.fromtimestamp(self.checked, UTC) - timedelta(seconds=OVERLAP_S)
        return min(self.at, looked)


_PAGES = "pages"  # shared.store.firestore.pages.COLLECTION (which imports this module)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _moment(value: Any) -> datetime:
    moment: datetime = value
    return moment.astimezone(UTC)


class ChangeLog:
    """Reads of the log (its writes are ``log_write`` inside each page commit)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def since(self, cursor_text: str | None) -> ChunkChanges:
        now = time.time()
        cursor = Cursor.decode(cursor_text)
        if cursor is None:
            return ChunkChanges(self._start(now).encode(), frozenset(), complete=False)
        if now - cursor.checked > RETENTION_S / 2:
            return self._from_pages(cursor, now)
        query = self._db.collection(COLLECTION).select(["slug", "at"])
        low = cursor.lower_bound()
        if low is not None:
            query = query.where(filter=FieldFilter("at", ">=", low))
        with self._db.guard("reading the change log"):
            docs = list(query.order_by("at").stream(**self._db.stream_options))
        entries = [(doc.id, doc.to_dict() or {}) for doc in docs]
        entries = [(i, d) for i, d in entries if d.get("at") is not None]
        fresh = [(i, d) for i, d in entries if i not in cursor.seen]
        latest = max([_moment(d["at"]) for _, d in entries], default=None)
        mark = cursor.at if latest is None else max(latest, cursor.at or latest)
        following = Cursor(mark, frozenset(), now)
        bound = following.lower_bound()
        seen = frozenset(i for i, d in entries if bound is None or _moment(d["at"]) >= bound)
        following = Cursor(mark, seen, now)
        slugs = frozenset(str(d.get("slug", "")) for _, d in fresh)
        return ChunkChanges(following.encode(), slugs, complete=True)

    def _from_pages(self, cursor: Cursor, now: float) -> ChunkChanges:
        """The pages written since ``cursor``'s last look, by their ``written_at``: the
        cursor at the log's end is taken first, so a write in between is applied again
        next time, never missed. Pages written before ``written_at`` existed have none;
        if the page count says some do, the log cannot be replaced: incomplete."""
        following = self._start(now)
        since = datetime.fromtimestamp(cursor.checked, UTC) - timedelta(seconds=OVERLAP_S)
        pages = self._db.collection(_PAGES)
        with self._db.guard("reading the pages written since the last look"):
            written = list(
                pages.where(filter=FieldFilter(WRITTEN_AT, ">=", since))
                .select([WRITTEN_AT])
                .stream(**self._db.stream_options)
            )
            stamped = pages.where(filter=FieldFilter(WRITTEN_AT, ">", _EPOCH)).count()
            unstamped = pages.count().get(**self._db.options)[0][0].value - (
                stamped.get(**self._db.options)[0][0].value
            )
        slugs = frozenset(doc.id for doc in written)
        return ChunkChanges(following.encode(), slugs, complete=not unstamped)

    def _start(self, now: float) -> Cursor:
        """A cursor at the log's end, taken before the caller reads everything: the entries
        of the last ``OVERLAP_S`` are marked applied (the full read that follows sees
        them), so a cold start after a burst of writes does not read those pages again."""
        collection = self._db.collection(COLLECTION).select(["at"])
        since = datetime.fromtimestamp(now, UTC) - timedelta(seconds=OVERLAP_S)
        with self._db.guard("reading the change log"):
            docs = list(
                collection.where(filter=FieldFilter("at", ">=", since))
                .order_by("at")
                .stream(**self._db.stream_options)
            )
            if not docs:
                docs = list(
                    collection.order_by("at", direction="DESCENDING")
                    .limit(1)
                    .stream(**self._db.options)
                )
        stamped: list[tuple[str, datetime]] = []
        for doc in docs:
            at = (doc.to_dict() or {}).get("at")
            if at is not None:
                stamped.append((doc.id, _moment(at)))
        if not stamped:
            return Cursor(None, frozenset(), now)
        return Cursor(max(at for _, at in stamped), frozenset(i for i, _ in stamped), now)


def slugs_in_batches(slugs: Collection[str], size: int) -> list[list[str]]:
    chosen = sorted(set(slugs))
    return [chosen[i : i + size] for i in range(0, len(chosen), size)]
