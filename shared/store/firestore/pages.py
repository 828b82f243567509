"""Pages in Firestore (document id = slug); a page's chunks become visible in its commit.

``update`` reads the page, checks ``expected_version``, then commits with a
last-update-time precondition: a write that slipped in between fails the whole
commit, which is reported as ``VersionConflict`` (optimistic, no locks held).

A page whose chunks do not fit one commit request (10 MiB; 4 MiB on the emulator)
is written in two phases: its chunks are first staged under fresh ids with status
``staging`` (invisible to every search), then one small commit writes the page and
flips them to the page's status while deleting the old ones. Either way readers
see the old page and chunks or the new ones, never a mix. The page's revision
(``revisions``) is one more document of that same commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1 import SERVER_TIMESTAMP
from google.cloud.firestore_v1.base_query import FieldFilter

from shared.errors import Conflict, NotFound, PayloadTooLarge, VersionConflict, proposal_closed
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
from shared.store.firestore import chunks as chunk_docs
from shared.store.firestore import revisions as revision_docs
from shared.store.firestore.changes import WRITTEN_AT, log_write
from shared.store.firestore.db import Database, plain_utc
from shared.store.proposals import proposal_data

COLLECTION = "pages"
# The path index: one document per cited-path key (id: its hash) with the set of pages
# citing it (``slugs``, a map), merged without a read in each page's own commit, so
# ``citing`` is two batched gets (keys, then pages) whatever the number of pages.
PATH_INDEX = "page_paths"
STAGING = "staging"  # the status of chunks written ahead of their page's commit
_PAGE_OVERHEAD = 64 * 1024  # front matter, field names, the commit's own envelope
_FLIP_BYTES = 512  # one staged chunk's status update in the final commit
_FRESHNESS_BATCH = 100  # freshness updates per commit (with their path index entries)
_ORIGIN_BATCH = 400  # origin updates per commit (one write each)
_GET_BATCH = 300  # documents per batched get


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
        # The commit's own time, as the change log's entry has it: what a reader whose
        # log entries may have expired reads instead (``changes.ChangeLog``).
        WRITTEN_AT: SERVER_TIMESTAMP,
        "chunk_count": chunk_count,
        "chunk_key": chunk_key,
        **_freshness_fields(page.freshness),
    }


def _freshness_fields(freshness: Freshness | None) -> dict[str, Any]:
    """The freshness, and the keys the page has in the path index (``PATH_INDEX``), kept
    on the page so its next write knows which index entries to drop."""
    keys = cited_keys(freshness)
    return {
        "freshness": None if freshness is None else to_stored(freshness),
        "cited_keys": keys,
        "cites_code": bool(keys),
    }


def _key_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:40]


def _index_entries(
    db: Database, batch: Any, slug: str, old: Sequence[str], new: Sequence[str]
) -> None:
    """Into a page's commit: the path index entries it gains and loses."""
    from google.cloud import firestore

    gained, lost = set(new) - set(old), set(old) - set(new)
    for key in sorted(gained | lost):
        mark: Any = True if key in gained else firestore.DELETE_FIELD
        batch.set(
            db.collection(PATH_INDEX).document(_key_id(key)),
            {"key": key, "slugs": {slug: mark}},
            merge=True,
        )


def _record(data: dict[str, Any]) -> PageRecord:
    return PageRecord(
        slug=str(data["slug"]),
        front_matter=dict(data.get("front_matter") or {}),
        content=str(data.get("content", "")),
        version=int(data["version"]),
        created_at=plain_utc(data["created_at"]),
        updated_at=plain_utc(data["updated_at"]),
        freshness=from_stored(data.get("freshness")),
        updated_by=data.get("updated_by"),
    )


def _page_bytes(page: PageRecord) -> int:
    # Twice the text: the page and its revision travel in one commit.
    return 2 * len(page.content.encode()) + _PAGE_OVERHEAD


def _groups(chunks: Sequence[Chunk], fields: Mapping[str, Any], limit: int) -> list[list[Chunk]]:
    """Consecutive chunks packed into staging commits of at most ``limit`` bytes."""
    groups: list[list[Chunk]] = [[]]
    size = 0
    for chunk in chunks:
        weight = chunk_docs.estimated_bytes([chunk], fields)
        if groups[-1] and size + weight > limit:
            groups.append([])
            size = 0
        groups[-1].append(chunk)
        size += weight
    return groups


class FirestorePages:
    """``PageStore`` on Firestore; ``keep``: revisions kept per page (0: all)."""

    def __init__(self, db: Database, *, keep: int = 0) -> None:
        self._db = db
        self._keep = keep

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

    def create(
        self, page: PageRecord, chunks: Sequence[Chunk], revision: Revision | None = None
    ) -> None:
        with self._db.guard(f"creating page '{page.slug}'"):
            key = self._stage_if_needed(page, chunks)
            batch = self._db.client().batch()
            document = _document(page, len(chunks), key)
            if revision is not None:
                document["updated_by"] = revision.actor
            batch.create(self._ref(page.slug), document)
            _index_entries(self._db, batch, page.slug, [], cited_keys(page.freshness))
            self._put_chunks(batch, page, chunks, key)
            if revision is not None:
                revision_docs.keep(self._db, batch, revision, self._keep)
            log_write(self._db, batch, page.slug)
            try:
                batch.commit(**self._db.options)
            except gexc.AlreadyExists as exc:
                self._discard(page.slug, key, len(chunks))
                raise Conflict(
                    f"a page with slug '{page.slug}' already exists", field="slug"
                ) from exc

    def update(
        self,
        page: PageRecord,
        chunks: Sequence[Chunk] | None,
        *,
        expected_version: int,
        revision: Revision | None = None,
        closes: Proposal | None = None,
    ) -> None:
        with self._db.guard(f"updating page '{page.slug}'"):
            proposal = None
            if closes is not None:
                # Read before the page: its update time is the close's precondition, so a
                # reject committed after this read fails the whole batch below.
                proposal = revision_docs.open_proposal(self._db, closes.id)
                if proposal is None:
                    raise proposal_closed(closes.id)
            snapshot = self._current(page.slug, expected_version)
            stored = snapshot.to_dict() or {}
            old_count = int(stored.get("chunk_count") or 0)
            old_key = str(stored.get("chunk_key") or "")
            key = old_key if chunks is None else self._stage_if_needed(page, chunks)
            client = self._db.client()
            batch = client.batch()
            count = old_count if chunks is None else len(chunks)
            document = _document(page, count, key)
            if revision is not None:
                document["updated_by"] = revision.actor
            batch.update(
                self._ref(page.slug),
                document,
                option=client.write_option(last_update_time=snapshot.update_time),
            )
            old_keys = [str(k) for k in stored.get("cited_keys") or []]
            _index_entries(self._db, batch, page.slug, old_keys, cited_keys(page.freshness))
            self._replace_chunks(batch, page, chunks, (old_key, old_count), key)
            if revision is not None:
                revision_docs.keep(self._db, batch, revision, self._keep)
            if closes is not None and proposal is not None:
                batch.update(
                    proposal.reference,
                    proposal_data(replace(closes, version=page.version)),
                    option=client.write_option(last_update_time=proposal.update_time),
                )
            log_write(self._db, batch, page.slug)
            try:
                batch.commit(**self._db.options)
            except (gexc.FailedPrecondition, gexc.Aborted, gexc.NotFound) as exc:
                self._discard(page.slug, key if key != old_key else "", count)
                raise self._update_failure(page.slug, expected_version, closes, exc) from exc
            # Any other failure may have committed after all (a lost answer): staged
            # chunks stay, live if it did, invisible ("staging") if it did not.

    def _current(self, slug: str, expected_version: int) -> Any:
        """The page's snapshot, read for an update at ``expected_version``."""
        snapshot = self._ref(slug).get(**self._db.options)
        if not snapshot.exists:
            raise NotFound(f"no page with slug '{slug}'", field="slug")
        version = (snapshot.to_dict() or {}).get("version")
        if version != expected_version:
            raise VersionConflict(
                f"page '{slug}' is at version {version}, "
                f"not {expected_version}: read it again and retry",
                field="expected_version",
            )
        return snapshot

    def _replace_chunks(
        self,
        batch: Any,
        page: PageRecord,
        chunks: Sequence[Chunk] | None,
        old: tuple[str, int],
        key: str,
    ) -> None:
        """The page's chunks in the batch: its new fields on the old chunks (``chunks`` None),
        or the new chunks written and the old ones past them deleted."""
        old_key, old_count = old
        if chunks is None:
            fields = chunk_docs.page_fields(page)
            for ordinal in range(old_count):
                batch.update(self._chunk_ref(page.slug, ordinal, old_key), fields)
            return
        self._put_chunks(batch, page, chunks, key)
        for ordinal in range(len(chunks) if key == old_key else 0, old_count):
            batch.delete(self._chunk_ref(page.slug, ordinal, old_key))

    def _update_failure(
        self, slug: str, expected_version: int, closes: Proposal | None, exc: Exception
    ) -> Exception:
        """Our error for an update's commit the store refused."""
        if isinstance(exc, gexc.NotFound):
            return NotFound(f"no page with slug '{slug}'", field="slug")
        if closes is not None and revision_docs.open_proposal(self._db, closes.id) is None:
            return proposal_closed(closes.id)
        # The precondition failed: the page changed since it was read.
        return VersionConflict(
            f"page '{slug}' changed while it was being updated "
            f"(it is no longer version {expected_version}): read it again and retry",
            field="expected_version",
        )

    def count(self) -> int:
        with self._db.guard("counting pages"):
            counted = self._db.collection(COLLECTION).count().get(**self._db.options)
        return int(counted[0][0].value) if counted and counted[0] else 0

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

    # -- freshness ------------------------------------------------------------------

    def citing(self, keys: Sequence[str] | None) -> Sequence[CitingRecord]:
        client = self._db.client()
        with self._db.guard("reading the pages citing changed code paths"):
            if keys is None:
                query = self._db.collection(COLLECTION).where(
                    filter=FieldFilter("cites_code", "==", True)
                )
                slugs = {doc.id for doc in query.select([]).stream(**self._db.stream_options)}
            else:
                slugs = set()
                wanted = sorted(set(keys))
                for start in range(0, len(wanted), _GET_BATCH):
                    refs = [
                        self._db.collection(PATH_INDEX).document(_key_id(k))
                        for k in wanted[start : start + _GET_BATCH]
                    ]
                    for snapshot in client.get_all(refs, **self._db.options):
                        if snapshot.exists:
                            slugs |= set((snapshot.to_dict() or {}).get("slugs") or {})
            found: list[CitingRecord] = []
            ordered = sorted(slugs)
            for start in range(0, len(ordered), _GET_BATCH):
                refs = [self._ref(slug) for slug in ordered[start : start + _GET_BATCH]]
                for snapshot in client.get_all(
                    refs, field_paths=["version", "freshness"], **self._db.options
                ):
                    data = snapshot.to_dict() or {}
                    freshness = from_stored(data.get("freshness"))
                    if snapshot.exists and freshness is not None:
                        found.append(CitingRecord(snapshot.id, int(data["version"]), freshness))
        return sorted(found, key=lambda p: p.slug)

    def set_freshness(self, slug: str, freshness: Freshness, *, version: int) -> bool:
        return self.set_freshness_many([(slug, version, freshness)]) == 1

    def set_freshness_many(self, updates: Sequence[tuple[str, int, Freshness]]) -> int:
        # Per batch: one read of the versions, one commit whose every update is guarded
        # by the update time read; a batch refused because a page changed meanwhile is
        # retried page by page (that page's own write checked it).
        done = 0
        with self._db.guard("storing the freshness of pages"):
            for start in range(0, len(updates), _FRESHNESS_BATCH):
                part = updates[start : start + _FRESHNESS_BATCH]
                committed = self._commit_freshness(part)
                if committed is None:
                    committed = sum(self._commit_freshness([u]) or 0 for u in part)
                done += committed
        return done

    def _commit_freshness(self, part: Sequence[tuple[str, int, Freshness]]) -> int | None:
        """How many of ``part`` were stored (pages gone or at another version are
        skipped); None when the commit was refused (one changed after the read)."""
        client = self._db.client()
        refs = [self._ref(slug) for slug, _version, _f in part]
        snapshots = {
            s.id: s
            for s in client.get_all(refs, field_paths=["version", "cited_keys"], **self._db.options)
        }
        batch = client.batch()
        written = 0
        for slug, version, freshness in part:
            snapshot = snapshots.get(slug)
            if snapshot is None or not snapshot.exists or snapshot.get("version") != version:
                continue
            batch.update(
                self._ref(slug),
                _freshness_fields(freshness),
                option=client.write_option(last_update_time=snapshot.update_time),
            )
            old_keys = [str(k) for k in (snapshot.to_dict() or {}).get("cited_keys") or []]
            _index_entries(self._db, batch, slug, old_keys, cited_keys(freshness))
            written += 1
        writes = written
        if writes == 0:
            return 0
        try:
            batch.commit(**self._db.options)
        except (gexc.FailedPrecondition, gexc.NotFound):
            return None
        return writes

    def freshness_of(self, slugs: Sequence[str]) -> dict[str, Freshness]:
        refs = [self._ref(s) for s in sorted(set(slugs))]
        if not refs:
            return {}
        with self._db.guard("reading the freshness of pages"):
            snapshots = list(
                self._db.client().get_all(refs, field_paths=["freshness"], **self._db.options)
            )
        found: dict[str, Freshness] = {}
        for snapshot in snapshots:
            freshness = from_stored((snapshot.to_dict() or {}).get("freshness"))
            if snapshot.exists and freshness is not None:
                found[snapshot.id] = freshness
        return found

    # -- origins ----------------------------------------------------------------------

    def set_origins(self, origins: Mapping[str, Origin]) -> None:
        # A field of the page document that page writes never list (``update`` sets the
        # fields it names), so an edit through the API keeps it.
        items = sorted(origins.items())
        with self._db.guard("storing where pages were imported from"):
            for start in range(0, len(items), _ORIGIN_BATCH):
                part = items[start : start + _ORIGIN_BATCH]
                try:
                    self._commit_origins(part)
                except gexc.NotFound:  # a page deleted meanwhile: the others one by one
                    for item in part:
                        with contextlib.suppress(gexc.NotFound):
                            self._commit_origins([item])

    def _commit_origins(self, part: Sequence[tuple[str, Origin]]) -> None:
        batch = self._db.client().batch()
        for slug, origin in part:
            batch.update(self._ref(slug), {"origin": {"tree": origin.tree, "path": origin.path}})
        batch.commit(**self._db.options)

    def origins(self, tree: str) -> dict[str, str]:
        query = (
            self._db.collection(COLLECTION)
            .where(filter=FieldFilter("origin.tree", "==", tree))
            .select(["origin"])
        )
        with self._db.guard("reading where pages were imported from"):
            docs = list(query.stream(**self._db.stream_options))
        return {
            doc.id: str((doc.to_dict() or {}).get("origin", {}).get("path", "")) for doc in docs
        }

    def contents_of(self, slugs: Sequence[str]) -> dict[str, str]:
        refs = [self._ref(s) for s in sorted(set(slugs))]
        if not refs:
            return {}
        with self._db.guard("reading the content of pages"):
            snapshots = list(
                self._db.client().get_all(refs, field_paths=["content"], **self._db.options)
            )
        return {
            snapshot.id: str((snapshot.to_dict() or {}).get("content", ""))
            for snapshot in snapshots
            if snapshot.exists
        }

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
        fields = {**chunk_docs.page_fields(page), "status": STAGING}
        if _page_bytes(page) + chunk_docs.estimated_bytes(chunks, fields) <= limit:
            return ""
        if _page_bytes(page) + _FLIP_BYTES * len(chunks) > limit:
            raise PayloadTooLarge(
                f"page '{page.slug}' splits into {len(chunks)} chunks, more than one "
                "Firestore commit can publish at once: split the page",
                field="content",
            )
        key = uuid.uuid4().hex[:12]
        try:
            for group in _groups(chunks, fields, limit - _PAGE_OVERHEAD):
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
