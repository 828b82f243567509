"""Hybrid retrieval: an in-memory dense index and an in-memory lexical index, fused.

Both follow the store's change log (one small read per question, then the chunks of the
pages written since), so several processes sharing a store always see each other's
writes and pay for them in proportion to what was written. The dense side scans the
snapshot's compressed vectors and reads only its few candidates, to rescore them
exactly (``shared.retrieval.dense``); without it (a snapshot too large for the
instance, or stored before it had one) the store's own vector search answers, logged.
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from shared.errors import BibliotecaError
from shared.logs import get_logger
from shared.ports import ChunkIndex
from shared.records import ChunkChanges, ChunkHit, Kind, SearchFilter, StoredSnapshot, Vector
from shared.retrieval import dense as dense_side
from shared.retrieval import evidence
from shared.retrieval import snapshot as stored_index
from shared.retrieval.dense import DenseIndex
from shared.retrieval.evidence import Section
from shared.retrieval.fusion import Ranked, by_kind, by_page, mix
from shared.retrieval.intent import asks_what_is, intent, kind_fit
from shared.retrieval.lexical import LexicalHit, LexicalIndex
from shared.retrieval.reading import may_open_on_tail
from shared.text.kinds import page_kind

CANDIDATES = 40  # per ranking, before fusion: enough for limit 20 and then some
# A page of the kind the question's intent wants ranks this share higher, one of a kind
# it does not want this share lower (``retrieval.intent``): 0.05 of 0, 0.05, 0.10, 0.15 on
# the tuning splits (bench/README.md, issue 31).
KIND_WEIGHT = 0.05
REFRESH_PAGES = 200  # pages an instance applies past the stored snapshot before it saves one
# The compressed vectors an instance holds at most (4-bit codes of 512 dimensions: 269 bytes
# a chunk, whatever the model's size; ~101,000 pages): beside the lexical index of 100,000
# pages (414 MiB) and the interpreter with its clients (~150 MiB), what ask's 1 GiB holds.
# Past it the dense side is dropped and the store's vector search answers, logged
# (docs/scale.md, "Memory"). A wiring's index takes BIBLIOTECA_DENSE_MAX_MB.
DENSE_MAX_BYTES = 416 * 2**20
_log = get_logger("retrieval")


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What one search found: fused chunks, best page first, and each side's raw candidates;
    ``sections`` holds the chunks a cited passage may run on into (``evidence.section_text``)."""

    ranked: list[Ranked]
    dense: list[ChunkHit]
    lexical: list[LexicalHit]
    sections: Mapping[tuple[str, int], Section]
    vocabulary: LexicalIndex  # the index searched: what words the wiki uses (evidence.judge)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The in-memory side of the index as of one change-log cursor: lexical index,
    compressed vectors (None: the store's vector search answers) and embedders
    (``fingerprint`` is the cursor, which the store's dense search may compare)."""

    index: LexicalIndex
    embedders: frozenset[str]
    fingerprint: str = ""
    dense: DenseIndex | None = None


class _Cached:
    def __init__(self, saves: IndexCache) -> None:
        self.cursor: str | None = None
        self.snapshot = Snapshot(LexicalIndex([]), frozenset(), dense=DenseIndex.build(()))
        self.lock = threading.Lock()
        self.unsaved = 0  # pages applied since the stored snapshot
        self.saves = saves  # who waits for the snapshot saves this index starts


class IndexCache:
    """A process's in-memory indexes (one per chunk index it searches) and the snapshot
    saves they started in threads of their own. The composition root holds one
    (``Wiring.index``) and ``close()``s it before the process exits or forgets it."""

    def __init__(self, dense_max_bytes: int | None = None) -> None:
        # None: ``DENSE_MAX_BYTES`` (the composition root passes BIBLIOTECA_DENSE_MAX_MB)
        self.dense_max_bytes = dense_max_bytes
        self._cached: weakref.WeakKeyDictionary[object, _Cached] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._saves: weakref.WeakSet[threading.Thread] = weakref.WeakSet()

    def snapshot(self, chunks: ChunkIndex) -> Snapshot:
        """The current snapshot of ``chunks`` (``snapshot``)."""
        return snapshot(chunks, self)

    def started(self, thread: threading.Thread) -> None:
        with self._lock:
            self._saves.add(thread)

    def settle(self, timeout: float | None = None) -> None:
        """Wait for the snapshot saves under way (tests, and a process about to exit)."""
        with self._lock:
            pending = list(self._saves)
        for thread in pending:
            thread.join(timeout)

    def close(self, timeout: float | None = 120) -> None:
        """Let the saves under way finish, then forget every index."""
        self.settle(timeout)
        with self._lock:
            self._cached.clear()


def snapshot(chunks: ChunkIndex, cache: IndexCache) -> Snapshot:
    """The current snapshot of ``chunks`` as ``cache`` holds it: one read of the change
    log, then only what changed.

    A warm instance reads the chunks of the pages written since its cursor and applies
    them (reads proportional to the writes, not to the wiki). A cold one starts from the
    stored snapshot plus the changes since; without one (or when the log cannot say), it
    takes the cursor first and then reads every active chunk, so a write in between is
    applied again next time, never missed, and stores a snapshot for the next cold start.
    A request takes one snapshot and uses it for everything (the reindex check, the search).
    """
    with cache._lock:
        cached = cache._cached.get(chunks)
        if cached is None:
            cached = cache._cached[chunks] = _Cached(cache)
    cursor = cached.cursor
    changes = chunks.changes_since(cursor) if cursor is not None else None
    if changes is not None and changes.complete and not changes.slugs:
        with cached.lock:
            if cached.cursor == cursor:
                cached.cursor = changes.cursor
            return cached.snapshot
    with cached.lock:
        if cached.cursor is None:
            _start(chunks, cached)
            return cached.snapshot
        if cached.cursor != cursor or changes is None:  # another request moved it meanwhile
            changes = chunks.changes_since(cached.cursor)
        if changes.complete:
            _apply(chunks, cached, cached.snapshot.index, changes, cached.snapshot.dense)
        else:
            _read_everything(chunks, cached)
        return cached.snapshot


def _start(chunks: ChunkIndex, cached: _Cached) -> None:
    """A cold start: the stored snapshot and the changes since it, else everything."""
    stored = chunks.load_snapshot()
    decoded = stored_index.decode_all(stored.payload) if stored is not None else None
    if stored is not None and decoded is not None:
        changes = chunks.changes_since(stored.cursor)
        if changes.complete:
            _apply(chunks, cached, decoded.index, changes, decoded.dense)
            return
    _read_everything(chunks, cached)


def _apply(
    chunks: ChunkIndex,
    cached: _Cached,
    base: LexicalIndex,
    changes: ChunkChanges,
    dense: DenseIndex | None,
) -> None:
    index = base
    if changes.slugs:
        rows = chunks.active_chunks_of(changes.slugs)
        index = base.with_pages(changes.slugs, rows)
        if dense is not None:
            dense = _within_bounds(dense.with_pages(changes.slugs, rows), cached.saves)
    _install(chunks, cached, index, changes.cursor, dense)
    cached.unsaved += len(changes.slugs)
    if cached.unsaved >= REFRESH_PAGES:
        _save(chunks, cached)


def _read_everything(chunks: ChunkIndex, cached: _Cached) -> None:
    # The cursor before the rows: a write in between is applied again, never missed.
    cursor = chunks.changes_since(None).cursor
    rows = chunks.active_chunks()
    index = LexicalIndex(rows)
    wanted = sum(len(r.vector) for r in rows if r.vector is not None)
    fits = wanted <= _dense_cap(cached.saves)
    dense = _within_bounds(DenseIndex.build(rows) if fits else None, cached.saves)
    del rows  # the vectors as read (float32) are four times the compressed ones
    _install(chunks, cached, index, cursor, dense)
    _save(chunks, cached)


def _dense_cap(cache: IndexCache) -> int:
    return DENSE_MAX_BYTES if cache.dense_max_bytes is None else cache.dense_max_bytes


def _within_bounds(dense: DenseIndex | None, cache: IndexCache) -> DenseIndex | None:
    """``dense`` if it fits the cache's cap; None (logged) otherwise."""
    cap = _dense_cap(cache)
    if dense is None or dense.nbytes > cap:
        _log.warning(
            "the compressed vectors pass %d MiB: dense search falls back to the store's",
            cap // 2**20,
        )
        return None
    return dense


def _install(
    chunks: ChunkIndex,
    cached: _Cached,
    index: LexicalIndex,
    cursor: str,
    dense: DenseIndex | None,
) -> None:
    cached.snapshot = Snapshot(index, frozenset(chunks.embedders()), cursor, dense)
    cached.cursor = cursor


def _save(chunks: ChunkIndex, cached: _Cached) -> None:
    """Store this instance's index for the next cold start, off the request's path
    (encoding takes about 0.2 s per 1,000 pages); a failure costs that save only. Inside
    ``store_snapshot`` nothing starts: that caller stores it itself, in its own thread."""
    cached.unsaved = 0
    if _storing_here.get():
        return
    state = cached.snapshot  # immutable: later writes install another one

    def save() -> None:
        try:
            payload = stored_index.encode(state.index, state.dense)
            chunks.save_snapshot(StoredSnapshot(state.fingerprint, payload))
        except BibliotecaError as exc:
            _log.warning("could not store the index snapshot: %s", exc.message)
        except Exception:  # a thread of its own: nothing above it would report this
            _log.exception("could not store the index snapshot")

    thread = threading.Thread(target=save, name="index-snapshot", daemon=True)
    cached.saves.started(thread)
    thread.start()


def store_snapshot(chunks: ChunkIndex, cache: IndexCache) -> int:
    """Bring the index up to date and store it now, in this thread; the chunks it holds.

    A bulk ``import`` or a ``reindex`` calls this, so the next cold ``ask`` instance loads
    a snapshot instead of reading every chunk inside a question (383 s at 10,000 pages on
    the emulator: past the function's timeout). Errors are the caller's to report.
    """
    token = _storing_here.set(True)
    try:
        state = snapshot(chunks, cache)
        if state.dense is None:  # a snapshot stored before it carried vectors: build them
            with cache._lock:
                cached = cache._cached[chunks]
            with cached.lock:
                _read_everything(chunks, cached)
                state = cached.snapshot
    finally:
        _storing_here.reset(token)
    payload = stored_index.encode(state.index, state.dense)
    chunks.save_snapshot(StoredSnapshot(state.fingerprint, payload))
    return len(state.index)


# Set while ``store_snapshot`` brings the index up to date: a save it would start in the
# background would encode the same index twice and outlive a command about to exit.
_storing_here: contextvars.ContextVar[bool] = contextvars.ContextVar("storing", default=False)


def retrieve(
    chunks: ChunkIndex,
    question: str,
    vector: Vector,
    *,
    embedder: str,
    filters: SearchFilter,
    limit: int,
    state: Snapshot,
) -> Retrieval:
    """The ``limit`` best active chunks for ``question`` (embedded as ``vector``).

    ``state`` is the caller's snapshot of ``chunks`` (``IndexCache.snapshot``); the dense
    search is told its fingerprint, so the whole question reads it once.
    """
    dense = _nearest(chunks, state, vector, embedder, filters, max(CANDIDATES, limit))
    lexical = state.index.search(question, filters, max(CANDIDATES, limit))
    wanted = intent(question)
    mixed = mix(dense, lexical, state.index.labels)
    ranked = by_kind(
        by_page(mixed),
        lambda r: _kind(state.index, r),
        lambda kind: kind_fit(wanted, kind),
        weight=KIND_WEIGHT,
    )[:limit]
    if asks_what_is(question):
        ranked = _opening_first(state.index, ranked, mixed)[:limit]
    ranked, sections = _with_texts(chunks, state.index, ranked, dense)
    return Retrieval(
        ranked=ranked, dense=dense, lexical=lexical, sections=sections, vocabulary=state.index
    )


def _opening_first(
    index: LexicalIndex, ranked: Sequence[Ranked], candidates: Sequence[Ranked]
) -> list[Ranked]:
    """For a definition question ("¿Qué es X?"): the lead page's opening chunk (its first,
    under the title alone: where a page says what its subject is) leads in its page's
    place, its best chunk next. The opening keeps its own scores when the search found
    it; else it stands on the lead's (it is the same page's answer to the same question),
    its text read with the others'. Nothing changes when the lead is the opening."""
    if not ranked or ranked[0].ordinal == 0:
        return list(ranked)
    lead = ranked[0]
    info = index.info((lead.slug, 0))
    if info is None or info.heading not in ("", info.title):
        return list(ranked)
    found = next((c for c in candidates if (c.slug, c.ordinal) == (lead.slug, 0)), None)
    opening = replace(
        found or replace(lead, ordinal=0, text="", dense_found=False),
        title=info.title,
        heading=info.heading,
        support=lead.support,
        kind=lead.kind,
    )
    rest = [r for r in ranked[1:] if (r.slug, r.ordinal) != (lead.slug, 0)]
    return [opening, replace(lead, support=0.0), *rest]


def _kind(index: LexicalIndex, chunk: Ranked) -> Kind:
    """The kind of the chunk's page, from its slug (its path in the tree) and its type."""
    info = index.info((chunk.slug, chunk.ordinal))
    return page_kind(chunk.slug, page_type=None if info is None else info.page_type)


def _nearest(
    chunks: ChunkIndex,
    state: Snapshot,
    vector: Vector,
    embedder: str,
    filters: SearchFilter,
    limit: int,
) -> list[ChunkHit]:
    """The dense side: the snapshot's compressed vectors pick ``dense.RESCORE`` candidates,
    read by key with their stored vectors and rescored exactly (no vector query); without
    a dense side, the store's own vector search (logged: it is billed by the index)."""
    if state.dense is None:
        _log.info("no compressed vectors in the snapshot: the store's vector search answers")
        return chunks.nearest(
            vector, embedder=embedder, filters=filters, limit=limit, fingerprint=state.fingerprint
        )
    found = state.dense.candidates(
        vector, embedder=embedder, filters=filters, limit=max(dense_side.RESCORE, limit)
    )
    rows = chunks.chunks_by_key([key for key, _ in found], vectors=True) if found else {}
    return dense_side.rescored(vector, rows, embedder=embedder, limit=limit)


def _with_texts(
    chunks: ChunkIndex, index: LexicalIndex, ranked: Sequence[Ranked], dense: Sequence[ChunkHit]
) -> tuple[list[Ranked], dict[tuple[str, int], Section]]:
    """The texts the in-memory index does not hold, in one read: of the chunks only the
    lexical side found, of those a cited passage may run on into, and of the chunk before
    one that opens inside a sentence (``evidence.whole_opening``). A chunk gone since
    the index's snapshot is dropped; one rewritten since shows its current text."""
    known: dict[tuple[str, int], Section] = {(h.slug, h.ordinal): h for h in dense}
    wanted = {(r.slug, r.ordinal) for r in ranked if not r.dense_found}
    cited = evidence.cited(ranked)
    for chunk in cited:
        wanted.update(index.following((chunk.slug, chunk.ordinal), evidence.SECTION_CHARS))
        wanted.update(_opening_of(index, chunk))
    if cited:  # the lead passage runs on into the page's next sections
        lead = (cited[0].slug, cited[0].ordinal)
        wanted.update(index.following(lead, evidence.LEAD_RUN_CHARS, same_heading=False))
    read = chunks.chunks_by_key(wanted - known.keys())
    out = []
    for r in ranked:
        if r.dense_found:
            out.append(r)
        elif (row := read.get((r.slug, r.ordinal))) is not None:
            out.append(replace(r, text=row.text, heading=row.heading))
    return out, {**known, **read}


def _opening_of(index: LexicalIndex, chunk: Ranked) -> list[tuple[str, int]]:
    """The chunk before ``chunk`` in its section when ``chunk`` opens inside a sentence
    (its text known: only the lexical side's chunks are read later)."""
    before = (chunk.slug, chunk.ordinal - 1)
    info = index.info(before)
    if info is None or info.heading != chunk.heading or not may_open_on_tail(chunk.text):
        return []
    return [before]
