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


class _Cached:
    def __init__(self) -> None:
        self.fingerprint: str | None = None
        self.index = LexicalIndex([])
        self.embedders: frozenset[str] = frozenset()
        self.lock = threading.Lock()


_cache: weakref.WeakKeyDictionary[object, _Cached] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def _state(chunks: ChunkIndex) -> _Cached:
    """The cached state of ``chunks``, rebuilt when its fingerprint has changed."""
    with _cache_lock:
        cached = _cache.get(chunks)
        if cached is None:
            cached = _cache[chunks] = _Cached()
    fingerprint = chunks.fingerprint()
    if cached.fingerprint == fingerprint:
        return cached
    with cached.lock:
        if cached.fingerprint != fingerprint:
            # Read the fingerprint before the rows: a write in between only costs a rebuild.
            cached.index = LexicalIndex(chunks.active_chunks(), previous=cached.index)
            cached.embedders = frozenset(chunks.embedders())
            cached.fingerprint = fingerprint
    return cached


def lexical_index(chunks: ChunkIndex) -> LexicalIndex:
    """The lexical index of ``chunks``, rebuilt when its fingerprint has changed."""
    return _state(chunks).index


def indexed_embedders(chunks: ChunkIndex) -> frozenset[str]:
    """The embedders of the active chunks, cached like the lexical index."""
    return _state(chunks).embedders


def retrieve(
    chunks: ChunkIndex,
    question: str,
    vector: Vector,
    *,
    embedder: str,
    filters: SearchFilter,
    limit: int,
) -> Retrieval:
    """The ``limit`` best active chunks for ``question`` (embedded as ``vector``)."""
    dense = chunks.nearest(vector, embedder=embedder, filters=filters, limit=max(CANDIDATES, limit))
    index = lexical_index(chunks)
    lexical = index.search(question, filters, max(CANDIDATES, limit))
    ranked = by_page(mix(dense, lexical, index.by_key))[:limit]
    return Retrieval(ranked=ranked, dense=dense, lexical=lexical)
