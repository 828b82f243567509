"""What hybrid retrieval adds to Firestore's chunk index: a change check and the chunk texts.

``fingerprint`` is two small indexed reads (the page count and the latest ``updated_at``);
``active_chunks`` streams the active chunks without their vectors for the lexical index;
``changes_since`` and ``active_chunks_of`` let a warm index read only what was written.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from shared.records import ChunkChanges, IndexedChunk, StoredSnapshot
from shared.store.firestore import chunks, pages
from shared.store.firestore.changes import ChangeLog, slugs_in_batches
from shared.store.firestore.snapshots import Snapshots

_FIELDS = ["slug", "ordinal", "heading", "text", "title", "type", "category", "tags"]
# The same with the stored vector, for the dense side of the search snapshot: a read is
# billed per document, not per field, so the vectors cost bytes, no reads.
_WITH_VECTORS = [*_FIELDS, "embedder", "vector"]
_IN_VALUES = 30  # values one ``in`` filter accepts
_PAGE = 5000  # chunks per query of a full read


class FirestoreSearchChunks(chunks.FirestoreChunks):
    """``FirestoreChunks`` plus the two reads the in-memory lexical index needs."""

    def fingerprint(self) -> str:
        # Every chunk write is part of a page write that sets the page's updated_at (or
        # creates a page): the count and the latest moment move with every write.
        collection = self._db.collection(pages.COLLECTION)
        with self._db.guard("checking whether the index changed"):
            counted = collection.count().get(**self._db.options)
            latest = list(
                collection.select(["updated_at"])
                .order_by("updated_at", direction="DESCENDING")
                .limit(1)
                .stream(**self._db.options)
            )
        count = int(counted[0][0].value) if counted and counted[0] else 0
        moment = (latest[0].to_dict() or {}).get("updated_at") if latest else None
        return f"firestore:{count}:{_iso(moment)}"

    def active_chunks(self) -> list[IndexedChunk]:
        # In pages, each its own call and deadline: one stream of every chunk outlives any
        # deadline past some size (159,533 chunks took over 45 s on the emulator).
        query = (
            self._db.collection(chunks.COLLECTION)
            .where(filter=FieldFilter("status", "==", "active"))
            .select(_WITH_VECTORS)
            .order_by("__name__")
            .limit(_PAGE)
        )
        rows: list[IndexedChunk] = []
        last = None
        while True:
            current = query.start_after(last) if last is not None else query
            with self._db.guard("reading the chunk texts"):
                docs = list(current.stream(**self._db.stream_options))
            rows.extend(_indexed(doc.to_dict() or {}) for doc in docs)
            if len(docs) < _PAGE:
                break
            last = docs[-1]
        rows.sort(key=lambda r: (r.slug, r.ordinal))
        return rows

    def changes_since(self, cursor: str | None) -> ChunkChanges:
        return ChangeLog(self._db).since(cursor)

    def load_snapshot(self) -> StoredSnapshot | None:
        return Snapshots(self._db).load()

    def save_snapshot(self, snapshot: StoredSnapshot) -> None:
        Snapshots(self._db).save(snapshot)

    def active_chunks_of(self, slugs: Collection[str]) -> list[IndexedChunk]:
        # By slug alone (the automatic single-field index); a page's chunks that are not
        # active (a draft's, staged ones) are read and dropped: still that page's cost.
        rows: list[IndexedChunk] = []
        for batch in slugs_in_batches(slugs, _IN_VALUES):
            query = (
                self._db.collection(chunks.COLLECTION)
                .where(filter=FieldFilter("slug", "in", batch))
                .select([*_WITH_VECTORS, "status"])
            )
            with self._db.guard("reading the chunks of written pages"):
                docs = list(query.stream(**self._db.stream_options))
            rows.extend(
                _indexed(data)
                for data in (doc.to_dict() or {} for doc in docs)
                if data.get("status") == "active"
            )
        rows.sort(key=lambda r: (r.slug, r.ordinal))
        return rows

    def chunks_by_key(
        self, keys: Collection[tuple[str, int]], *, vectors: bool = False
    ) -> dict[tuple[str, int], IndexedChunk]:
        # By document id (``slug#ordinal``) in one batched get (the vectors when asked). A
        # page written in two phases keeps its chunks under keyed ids: what is not found
        # is looked up by slug and ordinal (one query per such page: large pages only).
        wanted = set(keys)
        if not wanted:
            return {}
        collection = self._db.collection(chunks.COLLECTION)
        fields = [*(_WITH_VECTORS if vectors else _FIELDS), "status"]
        refs = [collection.document(chunks.chunk_id(slug, n)) for slug, n in sorted(wanted)]
        with self._db.guard("reading the chunks of the passages"):
            found = [
                snapshot.to_dict() or {}
                for snapshot in self._db.client().get_all(
                    refs, field_paths=fields, **self._db.options
                )
                if snapshot.exists
            ]
            keyed = {(str(d.get("slug")), d.get("ordinal")) for d in found}
            missing: dict[str, list[int]] = {}
            for slug, n in sorted(wanted - keyed):
                missing.setdefault(slug, []).append(n)
            for slug, ordinals in missing.items():
                for start in range(0, len(ordinals), _IN_VALUES):
                    query = (
                        collection.where(filter=FieldFilter("slug", "==", slug))
                        .where(
                            filter=FieldFilter(
                                "ordinal", "in", ordinals[start : start + _IN_VALUES]
                            )
                        )
                        .select(fields)
                    )
                    found.extend(d.to_dict() or {} for d in query.stream(**self._db.stream_options))
        rows = (_indexed(data) for data in found if data.get("status") == "active")
        return {(r.slug, r.ordinal): r for r in rows if (r.slug, r.ordinal) in wanted}


def _iso(moment: Any) -> str:
    return moment.isoformat() if hasattr(moment, "isoformat") else str(moment)


def _indexed(data: dict[str, Any]) -> IndexedChunk:
    category = data.get("category")
    page_type = data.get("type")
    return IndexedChunk(
        slug=str(data.get("slug", "")),
        ordinal=int(data.get("ordinal", 0)),
        title=str(data.get("title", "")),
        heading=str(data.get("heading", "")),
        text=str(data.get("text", "")),
        page_type=page_type if isinstance(page_type, str) else None,
        category=category if isinstance(category, str) else None,
        tags=tuple(str(t) for t in data.get("tags") or []),
        embedder=str(data.get("embedder", "")),
        vector=chunks.as_array(data["vector"]) if "vector" in data else None,
    )
