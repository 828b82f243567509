"""Hybrid retrieval: the store's dense search plus an in-memory lexical index, fused.

The lexical index is rebuilt only when the store's ``fingerprint`` moves (one small
read per question), so several processes sharing a store always see each other's writes.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from shared.ports import ChunkHit, ChunkIndex, SearchFilter, Vector
from shared.retrieval.fusion import Ranked, by_page, mix
from shared.retrieval.lexical import LexicalHit, LexicalIndex

CANDIDATES = 40  # per ranking, before fusion: enough for limit 20 and then some


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What one search found: fused chunks, best page first, and each side's raw candidates."""

    ranked: list[Ranked]
    dense: list[ChunkHit]
    lexical: list[LexicalHit]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The in-memory side of the index as of one fingerprint: lexical index and embedders."""

    index: LexicalIndex
    embedders: frozenset[str]
    fingerprint: str = ""


class _Cached:
    def __init__(self) -> None:
        self.fingerprint: str | None = None
        self.snapshot = Snapshot(LexicalIndex([]), frozenset())
        self.lock = threading.Lock()


_cache: weakref.WeakKeyDictionary[object, _Cached] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def snapshot(chunks: ChunkIndex) -> Snapshot:
    """The current snapshot of ``chunks``: one fingerprint read, a rebuild only if it moved.

    A request takes one snapshot and uses it for everything (the reindex check and the
    search), so it pays the store's "has anything changed?" read once.
    """
    with _cache_lock:
        cached = _cache.get(chunks)
        if cached is None:
            cached = _cache[chunks] = _Cached()
    fingerprint = chunks.fingerprint()
    if cached.fingerprint == fingerprint:
        return cached.snapshot
    with cached.lock:
        if cached.fingerprint != fingerprint:
            # Read the fingerprint before the rows: a write in between only costs a rebuild.
            cached.snapshot = Snapshot(
                LexicalIndex(chunks.active_chunks(), previous=cached.snapshot.index),
                frozenset(chunks.embedders()),
                fingerprint,
            )
            cached.fingerprint = fingerprint
        return cached.snapshot


def lexical_index(chunks: ChunkIndex) -> LexicalIndex:
    """The lexical index of ``chunks``, rebuilt when its fingerprint has changed."""
    return snapshot(chunks).index


def retrieve(
    chunks: ChunkIndex,
    question: str,
    vector: Vector,
    *,
    embedder: str,
    filters: SearchFilter,
    limit: int,
    state: Snapshot | None = None,
) -> Retrieval:
    """The ``limit`` best active chunks for ``question`` (embedded as ``vector``).

    ``state`` is the caller's snapshot of ``chunks`` when it already took one; the dense
    search is told its fingerprint, so the whole question reads it once.
    """
    state = state or snapshot(chunks)
    dense = chunks.nearest(
        vector,
        embedder=embedder,
        filters=filters,
        limit=max(CANDIDATES, limit),
        fingerprint=state.fingerprint,
    )
    lexical = state.index.search(question, filters, max(CANDIDATES, limit))
    ranked = by_page(mix(dense, lexical, state.index.by_key))[:limit]
    return Retrieval(ranked=ranked, dense=dense, lexical=lexical)
