"""Pages in Firestore (document id = slug); a page's chunks become visible in its commit.

``update`` reads the page, checks ``expected_version``, then commits with a
last-update-time precondition: a write that slipped in between fails the whole
commit, which is reported as ``VersionConflict`` (optimistic, no locks held).

A page whose chunks do not fit one commit request (10 MiB; 4 MiB on the emulator)
is written in two phases: its chunks are first staged under fresh ids with status
``staging`` (invisible to every search), then one small commit writes the page and
flips them to the page's status while deleting the old ones. Either way readers
see the old page and chunks or the new ones, never a mix.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1.base_query import FieldFilter

from shared.errors import Conflict, NotFound, PayloadTooLarge, VersionConflict
from shared.ports import Chunk, PageRecord
from shared.store.firestore import chunks as chunk_docs
from shared.store.firestore.changes import log_write
from shared.store.firestore.db import Database

COLLECTION = "pages"
STAGING = "staging"  # the status of chunks written ahead of their page's commit
_PAGE_OVERHEAD = 64 * 1024  # front matter, field names, the commit's own envelope
_FLIP_BYTES = 512  # one staged chunk's status update in the final commit


def _status(page: PageRecord) -> str:
    return str(page.front_matter.get("status", ""))


def _document(page: PageRecord, chunk_count: int, chunk_key: str) -> dict[str, Any]:
    """The page document; ``chunk_count``/``chunk_key`` name its chunk documents."""
    return {
        "slug": page.slug,
        "front_matter": dict(page.front_matter),
        "content": page.content,
        "version": page.version,
        "status": _status(page),
        "created_at": page.created_at,
        "updated_at": page.updated_at,
        "chunk_count": chunk_count,
        "chunk_key": chunk_key,
    }


def _utc(value: datetime) -> datetime:
    """A plain aware UTC ``datetime`` (not the client's nanosecond subclass)."""
    moment = value.astimezone(UTC)
    return datetime(
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        moment.microsecond,
        tzinfo=UTC,
    )


def _record(data: dict[str, Any]) -> PageRecord:
    return PageRecord(
        slug=str(data["slug"]),
        front_matter=dict(data.get("front_matter") or {}),
        content=str(data.get("content", "")),
        version=int(data["version"]),
        created_at=_utc(data["created_at"]),
        updated_at=_utc(data["updated_at"]),
    )


def _page_bytes(page: PageRecord) -> int:
    return len(page.content.encode()) + _PAGE_OVERHEAD


def _groups(chunks: Sequence[Chunk], limit: int) -> list[list[Chunk]]:
    """Consecutive chunks packed into staging commits of at most ``limit`` bytes."""
    groups: list[list[Chunk]] = [[]]
    size = 0
    for chunk in chunks:
        weight = chunk_docs.estimated_bytes([chunk])
        if groups[-1] and size + weight > limit:
            groups.append([])
            size = 0
        groups[-1].append(chunk)
        size += weight
    return groups


class FirestorePages:
    """``PageStore`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _ref(self, slug: str) -> Any:
        return self._db.collection(COLLECTION).document(slug)

    def _chunk_ref(self, slug: str, ordinal: int, key: str = "") -> Any:
        return self._db.collection(chunk_docs.COLLECTION).document(
            chunk_docs.chunk_id(slug, ordinal, key)
        )

    def get(self, slug: str) -> PageRecord | None:
        with self._db.guard(f"reading page '{slug}'"):
            snapshot = self._ref(slug).get(**self._db.options)
        return _record(snapshot.to_dict()) if snapshot.exists else None

    def create(self, page: PageRecord, chunks: Sequence[Chunk]) -> None:
        with self._db.guard(f"creating page '{page.slug}'"):
            key = self._stage_if_needed(page, chunks)
            batch = self._db.client().batch()
            batch.create(self._ref(page.slug), _document(page, len(chunks), key))
            self._put_chunks(batch, page, chunks, key)
            log_write(self._db, batch, page.slug)
            try:
                batch.commit(**self._db.options)
            except gexc.AlreadyExists as exc:
                self._discard(page.slug, key, len(chunks))
                raise Conflict(
                    f"a page with slug '{page.slug}' already exists", field="slug"
                ) from exc

    def update(
        self, page: PageRecord, chunks: Sequence[Chunk] | None, *, expected_version: int
    ) -> None:
        with self._db.guard(f"updating page '{page.slug}'"):
            snapshot = self._ref(page.slug).get(**self._db.options)
            if not snapshot.exists:
                raise NotFound(f"no page with slug '{page.slug}'", field="slug")
            stored = snapshot.to_dict() or {}
            if stored.get("version") != expected_version:
                raise VersionConflict(
                    f"page '{page.slug}' is at version {stored.get('version')}, "
                    f"not {expected_version}: read it again and retry",
                    field="expected_version",
                )
            old_count = int(stored.get("chunk_count") or 0)
            old_key = str(stored.get("chunk_key") or "")
            key = old_key if chunks is None else self._stage_if_needed(page, chunks)
            client = self._db.client()
            batch = client.batch()
            count = old_count if chunks is None else len(chunks)
            batch.update(
                self._ref(page.slug),
                _document(page, count, key),
                option=client.write_option(last_update_time=snapshot.update_time),
            )
            if chunks is None:
                fields = chunk_docs.page_fields(page)
                for ordinal in range(old_count):
                    batch.update(self._chunk_ref(page.slug, ordinal, old_key), fields)
            else:
                self._put_chunks(batch, page, chunks, key)
                for ordinal in range(len(chunks) if key == old_key else 0, old_count):
                    batch.delete(self._chunk_ref(page.slug, ordinal, old_key))
            log_write(self._db, batch, page.slug)
            try:
                batch.commit(**self._db.options)
            except (gexc.FailedPrecondition, gexc.Aborted) as exc:
                self._discard(page.slug, key if key != old_key else "", count)
                # The precondition failed: the page changed since it was read.
                raise VersionConflict(
                    f"page '{page.slug}' changed while it was being updated "
                    f"(it is no longer version {expected_version}): read it again and retry",
                    field="expected_version",
                ) from exc
            except gexc.NotFound as exc:
                self._discard(page.slug, key if key != old_key else "", count)
                raise NotFound(f"no page with slug '{page.slug}'", field="slug") from exc
            # Any other failure may have committed after all (a lost answer): staged
            # chunks stay, live if it did, invisible ("staging") if it did not.

    def list(
        self, *, status: str | None = None, updated_since: datetime | None = None
    ) -> list[PageRecord]:
        query = self._db.collection(COLLECTION)
        if status is not None:
            query = query.where(filter=FieldFilter("status", "==", status))
        if updated_since is not None:
            query = query.where(filter=FieldFilter("updated_at", ">=", updated_since))
        with self._db.guard("listing pages"):
            records = [_record(doc.to_dict()) for doc in query.stream(**self._db.stream_options)]
        return sorted(records, key=lambda r: r.slug)

    # -- chunk documents -----------------------------------------------------------

    def _put_chunks(self, batch: Any, page: PageRecord, chunks: Sequence[Chunk], key: str) -> None:
        """Into the page's commit: whole chunk documents, or the flip of staged ones."""
        fields = chunk_docs.page_fields(page)
        for chunk in chunks:
            ref = self._chunk_ref(page.slug, chunk.ordinal, key)
            if key:
                batch.update(ref, {"status": fields["status"]})
            else:
                batch.set(ref, chunk_docs.chunk_document(chunk, fields))

    def _stage_if_needed(self, page: PageRecord, chunks: Sequence[Chunk]) -> str:
        """``""`` when page and chunks fit one commit; else the key of staged chunks."""
        limit = self._db.max_commit_bytes
        if _page_bytes(page) + chunk_docs.estimated_bytes(chunks) <= limit:
            return ""
        if _page_bytes(page) + _FLIP_BYTES * len(chunks) > limit:
            raise PayloadTooLarge(
                f"page '{page.slug}' splits into {len(chunks)} chunks, more than one "
                "Firestore commit can publish at once: split the page",
                field="content",
            )
        key = uuid.uuid4().hex[:12]
        fields = {**chunk_docs.page_fields(page), "status": STAGING}
        try:
            for group in _groups(chunks, limit - _PAGE_OVERHEAD):
                batch = self._db.client().batch()
                for chunk in group:
                    batch.set(
                        self._chunk_ref(page.slug, chunk.ordinal, key),
                        chunk_docs.chunk_document(chunk, fields),
                    )
                batch.commit(**self._db.options)
        except BaseException:
            self._discard(page.slug, key, len(chunks))
            raise
        return key

    def _discard(self, slug: str, key: str, count: int) -> None:
        """Best effort: delete chunks staged for a commit that did not happen."""
        if not key:
            return
        try:
            for start in range(0, count, 500):
                batch = self._db.client().batch()
                for ordinal in range(start, min(count, start + 500)):
                    batch.delete(self._chunk_ref(slug, ordinal, key))
                batch.commit(**self._db.options)
        except gexc.GoogleAPIError:
            pass  # left with status "staging": no search ever sees them
