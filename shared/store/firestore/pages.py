"""Pages in Firestore (document id = slug); a page and its chunks go in one commit.

``update`` reads the page, checks ``expected_version``, then commits with a
last-update-time precondition: a write that slipped in between fails the whole
commit, which is reported as ``VersionConflict`` (optimistic, no locks held).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1.base_query import FieldFilter

from shared.errors import Conflict, NotFound, PayloadTooLarge, VersionConflict
from shared.ports import Chunk, PageRecord
from shared.store.firestore import chunks as chunk_docs
from shared.store.firestore.db import Database

COLLECTION = "pages"


def _status(page: PageRecord) -> str:
    return str(page.front_matter.get("status", ""))


def _document(page: PageRecord, chunks: Sequence[Chunk] | None, stored: int) -> dict[str, Any]:
    """The page document; ``chunk_count`` tells the next update which chunk ids to delete."""
    return {
        "slug": page.slug,
        "front_matter": dict(page.front_matter),
        "content": page.content,
        "version": page.version,
        "status": _status(page),
        "created_at": page.created_at,
        "updated_at": page.updated_at,
        "chunk_count": stored if chunks is None else len(chunks),
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


def _check_size(page: PageRecord, chunks: Sequence[Chunk], limit: int) -> None:
    """Refuse, before any I/O, a page whose one atomic commit would exceed ``limit``."""
    size = len(page.content.encode()) + 64 * 1024 + chunk_docs.estimated_bytes(chunks)
    if size > limit:
        raise PayloadTooLarge(
            f"page '{page.slug}' splits into {len(chunks)} chunks, too many to store with the "
            f"page in one Firestore commit (about {size // 1024} KiB, at most "
            f"{limit // 1024} KiB): split the page",
            field="content",
        )


class FirestorePages:
    """``PageStore`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _ref(self, slug: str) -> Any:
        return self._db.collection(COLLECTION).document(slug)

    def _chunk_ref(self, slug: str, ordinal: int) -> Any:
        return self._db.collection(chunk_docs.COLLECTION).document(
            chunk_docs.chunk_id(slug, ordinal)
        )

    def get(self, slug: str) -> PageRecord | None:
        with self._db.guard(f"reading page '{slug}'"):
            snapshot = self._ref(slug).get(**self._db.options)
        return _record(snapshot.to_dict()) if snapshot.exists else None

    def create(self, page: PageRecord, chunks: Sequence[Chunk]) -> None:
        _check_size(page, chunks, self._db.max_commit_bytes)
        with self._db.guard(f"creating page '{page.slug}'"):
            batch = self._db.client().batch()
            batch.create(self._ref(page.slug), _document(page, chunks, 0))
            fields = chunk_docs.page_fields(page)
            for chunk in chunks:
                batch.set(
                    self._chunk_ref(page.slug, chunk.ordinal),
                    chunk_docs.chunk_document(chunk, fields),
                )
            try:
                batch.commit(**self._db.options)
            except gexc.AlreadyExists as exc:
                raise Conflict(
                    f"a page with slug '{page.slug}' already exists", field="slug"
                ) from exc

    def update(
        self, page: PageRecord, chunks: Sequence[Chunk] | None, *, expected_version: int
    ) -> None:
        if chunks is not None:
            _check_size(page, chunks, self._db.max_commit_bytes)
        action = f"updating page '{page.slug}'"
        with self._db.guard(action):
            snapshot = self._ref(page.slug).get(**self._db.options)
            if not snapshot.exists:
                raise NotFound(f"no page with slug '{page.slug}'", field="slug")
            stored_version = snapshot.get("version")
            if stored_version != expected_version:
                raise _stale(page.slug, stored_version, expected_version)
            stored_count = int(snapshot.to_dict().get("chunk_count") or 0)
            client = self._db.client()
            batch = client.batch()
            batch.update(
                self._ref(page.slug),
                _document(page, chunks, stored_count),
                option=client.write_option(last_update_time=snapshot.update_time),
            )
            fields = chunk_docs.page_fields(page)
            if chunks is None:
                for ordinal in range(stored_count):
                    batch.update(self._chunk_ref(page.slug, ordinal), fields)
            else:
                for chunk in chunks:
                    batch.set(
                        self._chunk_ref(page.slug, chunk.ordinal),
                        chunk_docs.chunk_document(chunk, fields),
                    )
                for ordinal in range(len(chunks), stored_count):
                    batch.delete(self._chunk_ref(page.slug, ordinal))
            try:
                batch.commit(**self._db.options)
            except (gexc.FailedPrecondition, gexc.Aborted) as exc:
                # The precondition failed: the page changed since it was read.
                raise VersionConflict(
                    f"page '{page.slug}' changed while it was being updated "
                    f"(it is no longer version {expected_version}): read it again and retry",
                    field="expected_version",
                ) from exc
            except gexc.NotFound as exc:
                raise NotFound(f"no page with slug '{page.slug}'", field="slug") from exc

    def list(
        self, *, status: str | None = None, updated_since: datetime | None = None
    ) -> list[PageRecord]:
        query = self._db.collection(COLLECTION)
        if status is not None:
            query = query.where(filter=FieldFilter("status", "==", status))
        if updated_since is not None:
            query = query.where(filter=FieldFilter("updated_at", ">=", updated_since))
        with self._db.guard("listing pages"):
            records = [_record(doc.to_dict()) for doc in query.stream(**self._db.options)]
        return sorted(records, key=lambda r: r.slug)


def _stale(slug: str, stored: object, expected: int) -> VersionConflict:
    return VersionConflict(
        f"page '{slug}' is at version {stored}, not {expected}: read it again and retry",
        field="expected_version",
    )
