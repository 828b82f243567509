"""Chunks in Firestore: one document per chunk, searched with ``find_nearest``.

Chunks live in the top-level collection ``chunks`` under ``<slug>#<ordinal>``: one
collection means one set of vector indexes (no collection-group scope), and the
page's fields are copied onto each chunk so the filters are pre-filters of the query
(firestore.indexes.json holds one vector index per filter set and dimension, 512 and 768).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from google.cloud.firestore_v1.base_query import FieldFilter
from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
from google.cloud.firestore_v1.vector import Vector as FsVector

from shared.records import Chunk, ChunkHit, PageRecord, SearchFilter, Vector
from shared.store.firestore.db import Database

COLLECTION = "chunks"
MAX_NEAREST = 1000  # Firestore's cap on a nearest-neighbour query's limit
SCORE_FIELD = "_similarity"
_DISTINCT_BATCH = 10  # values one ``not-in`` filter accepts


def chunk_id(slug: str, ordinal: int, key: str = "") -> str:
    """``<slug>#<ordinal>``; chunks staged for a large page carry a key: ``<slug>#<key>#<n>``."""
    return f"{slug}#{key}#{ordinal}" if key else f"{slug}#{ordinal}"


def page_fields(page: PageRecord) -> dict[str, Any]:
    """The page's filterable fields, copied onto each of its chunks."""
    fm = page.front_matter
    return {
        "title": str(fm.get("title", "")),
        "type": fm.get("type"),
        "category": fm.get("category"),
        "tags": [str(t) for t in fm.get("tags") or []],
        "status": str(fm.get("status", "")),
    }


def chunk_document(chunk: Chunk, fields: dict[str, Any]) -> dict[str, Any]:
    vector = np.asarray(chunk.vector, dtype=np.float32)
    return {
        "slug": chunk.slug,
        "ordinal": chunk.ordinal,
        "heading": chunk.heading,
        "text": chunk.text,
        "hash": chunk.hash,
        # float32 -> float64 -> float32 is exact, so a reused vector is bit-identical.
        "vector": FsVector(vector.astype(np.float64).tolist()),
        "embedder": chunk.embedder,
        "dim": int(vector.shape[0]),
        **fields,
    }


def as_array(value: Any) -> Vector:
    return np.asarray(list(value), dtype=np.float32)


class FirestoreChunks:
    """``ChunkIndex`` on Firestore; written only by ``FirestorePages``, in its commits."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def vectors_for(self, slug: str) -> dict[str, Vector]:
        query = (
            self._db.collection(COLLECTION)
            .where(filter=FieldFilter("slug", "==", slug))
            .select(["hash", "vector"])
        )
        with self._db.guard(f"reading the vectors of '{slug}'"):
            docs = list(query.stream(**self._db.options))
        out: dict[str, Vector] = {}
        for doc in docs:
            data = doc.to_dict() or {}
            if "hash" in data and "vector" in data:
                out[str(data["hash"])] = as_array(data["vector"])
        return out

    def embedders(self) -> set[str]:
        """Distinct embedders with one single-document query each (plus one that finds none).

        No counter document: every page write would contend on it, and it drifts when
        chunks of one embedder are replaced by another's; the chunks themselves are exact.
        """
        found: set[str] = set()
        collection = self._db.collection(COLLECTION)
        with self._db.guard("listing the embedders of the index"):
            while len(found) < _DISTINCT_BATCH:
                query = collection.select(["embedder"])
                if found:
                    query = query.where(filter=FieldFilter("embedder", "not-in", sorted(found)))
                docs = list(query.limit(1).stream(**self._db.options))
                name = (docs[0].to_dict() or {}).get("embedder") if docs else None
                if not isinstance(name, str):
                    break
                found.add(name)
        return found

    def nearest(
        self,
        vector: Vector,
        *,
        embedder: str,
        filters: SearchFilter,
        limit: int,
        fingerprint: str | None = None,
    ) -> list[ChunkHit]:
        del fingerprint  # no cache here: every search is a query of the current index
        if limit <= 0:
            return []
        query = (
            self._db.collection(COLLECTION)
            .where(filter=FieldFilter("status", "==", "active"))
            .where(filter=FieldFilter("embedder", "==", embedder))
        )
        if filters.page_type is not None:
            query = query.where(filter=FieldFilter("type", "==", filters.page_type))
        if filters.category is not None:
            query = query.where(filter=FieldFilter("category", "==", filters.category))
        if filters.tag is not None:
            query = query.where(filter=FieldFilter("tags", "array_contains", filters.tag))
        probe = np.asarray(vector, dtype=np.float64)
        # DOT_PRODUCT on unit vectors is the cosine similarity, the very score the SQLite
        # scan computes (its "distance" is larger for closer vectors, and comes first).
        nearest = query.find_nearest(
            vector_field="vector",
            query_vector=FsVector(probe.tolist()),
            limit=min(limit, MAX_NEAREST),
            distance_measure=DistanceMeasure.DOT_PRODUCT,
            distance_result_field=SCORE_FIELD,
        )
        with self._db.guard("searching the chunks"):
            docs = list(nearest.stream(**self._db.options))
        hits = []
        for doc in docs:
            data = doc.to_dict() or {}
            hits.append(
                ChunkHit(
                    slug=str(data.get("slug", "")),
                    title=str(data.get("title", "")),
                    heading=str(data.get("heading", "")),
                    text=str(data.get("text", "")),
                    ordinal=int(data.get("ordinal", 0)),
                    cosine=float(data.get(SCORE_FIELD, 0.0)),
                )
            )
        hits.sort(key=lambda h: -h.cosine)
        return hits


def fields_bytes(fields: Mapping[str, Any]) -> int:
    """An upper bound of the page fields copied onto one chunk (``page_fields``): 200 tags
    of 64 characters weigh 16 KB on each chunk, more than most chunks' own text."""
    total = 0
    for name, value in fields.items():
        values = value if isinstance(value, list) else [value]
        total += len(name.encode()) + sum(len(str(v).encode()) + 16 for v in values)
    return total


def estimated_bytes(chunks: Sequence[Chunk], fields: Mapping[str, Any]) -> int:
    """An upper bound of the chunks' share of a commit request (8 bytes a coordinate,
    the text, the page fields each chunk carries, and room for field names and keys)."""
    copied = fields_bytes(fields)
    return sum(
        len(c.text.encode()) + len(c.heading.encode()) + 10 * len(c.vector) + 1024 + copied
        for c in chunks
    )
