"""Hybrid retrieval: the store's dense search plus an in-memory lexical index, fused.

The lexical index follows the store's change log (one small read per question, then
the chunks of the pages written since), so several processes sharing a store always
see each other's writes and pay for them in proportion to what was written.
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
    """The in-memory side of the index as of one change-log cursor: lexical index and
    embedders (``fingerprint`` is the cursor, which the dense search may compare)."""

    index: LexicalIndex
    embedders: frozenset[str]
    fingerprint: str = ""


class _Cached:
    def __init__(self) -> None:
        self.cursor: str | None = None
        self.snapshot = Snapshot(LexicalIndex([]), frozenset())
        self.lock = threading.Lock()


_cache: weakref.WeakKeyDictionary[object, _Cached] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def snapshot(chunks: ChunkIndex) -> Snapshot:
    """The current snapshot of ``chunks``: one read of the change log, then only what changed.

    A warm instance reads the chunks of the pages written since its cursor and applies
    them (reads proportional to the writes, not to the wiki); a cold one, or one the log
    cannot bring up to date, takes the cursor first and then reads every active chunk, so
    a write in between is applied again next time, never missed. A request takes one
    snapshot and uses it for everything (the reindex check and the search).
    """
    with _cache_lock:
        cached = _cache.get(chunks)
        if cached is None:
            cached = _cache[chunks] = _Cached()
    cursor = cached.cursor
    changes = chunks.changes_since(cursor) if cursor is not None else None
    if changes is not None and changes.complete and not changes.slugs:
        with cached.lock:
            if cached.cursor == cursor:
                cached.cursor = changes.cursor
            return cached.snapshot
    with cached.lock:
        if cached.cursor != cursor or changes is None:
            # Another request moved the cursor meanwhile (or none was ever taken).
            changes = chunks.changes_since(cached.cursor)
            if changes.complete and not changes.slugs:
                cached.cursor = changes.cursor
                return cached.snapshot
        previous = cached.snapshot.index
        if changes.complete:
            index = previous.with_pages(changes.slugs, chunks.active_chunks_of(changes.slugs))
        else:
            index = LexicalIndex(chunks.active_chunks(), previous=previous)
        cached.snapshot = Snapshot(index, frozenset(chunks.embedders()), changes.cursor)
        cached.cursor = changes.cursor
        return cached.snapshot


def lexical_index(chunks: ChunkIndex) -> LexicalIndex:
    """The lexical index of ``chunks``, brought up to date with the change log."""
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
