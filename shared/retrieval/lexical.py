"""Lexical ranking: BM25 over chunks, built in memory from the index's rows (pure).

Titles and heading paths count twice (they name what a section is about); identifiers
are exact tokens, so ``DB_POOL_SIZE`` finds the one chunk that mentions it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from shared.ports import IndexedChunk, SearchFilter
from shared.retrieval.filters import FilterColumns
from shared.retrieval.text import query_groups, tokens

K1 = 1.2
# A token's postings: the slots of the chunks holding it (int32: two billion chunks is
# far past any wiki) and its frequency in each.
Postings = tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]
B = 0.75
FIELD_REPEAT = 2  # how many times a chunk's title and heading are counted


@dataclass(frozen=True, slots=True)
class LexicalHit:
    """A chunk's BM25 score and the share of the question's weight it matched (0..1)."""

    key: tuple[str, int]
    bm25: float
    coverage: float


class LexicalIndex:
    """An inverted index over chunks with their filterable page fields.

    Chunks live in slots. ``with_pages`` retires the slots of the pages written (they stay
    in the postings, masked out as dead) and appends the new chunks, copying only the
    postings of the tokens those chunks use: the cost of applying a write follows the
    write, not the wiki. When dead slots pass a quarter of all, the index is built anew.
    """

    def __init__(
        self,
        rows: Sequence[IndexedChunk],
        previous: LexicalIndex | None = None,
        *,
        known: Mapping[tuple[str, str, str], list[str]] | None = None,
    ) -> None:
        """Index ``rows``; the tokens of chunks unchanged since ``previous`` (or found in
        ``known``, by text, title and heading) are reused: tokenizing is most of the cost
        of a full build."""
        reuse = previous.documents if previous is not None else (known or {})
        docs: list[list[str]] = []
        for row in rows:
            key = (row.text, row.title, row.heading)
            doc = reuse.get(key)
            if doc is None:
                doc = tokens(row.text) + tokens(f"{row.title} {row.heading}") * FIELD_REPEAT
            docs.append(doc)
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        for i, doc in enumerate(docs):
            for token in doc:
                postings[token][i] = postings[token].get(i, 0) + 1
        arrays = {t: _arrays(d) for t, d in postings.items()}
        lengths = np.fromiter((len(d) for d in docs), dtype=np.float32, count=len(docs))
        self._install(list(rows), list(docs), arrays, lengths, np.ones(len(rows), dtype=bool))

    @classmethod
    def from_parts(
        cls,
        rows: Sequence[IndexedChunk],
        postings: dict[str, Postings],
        lengths: npt.NDArray[np.float32],
    ) -> LexicalIndex:
        """An index from stored postings (a snapshot): no chunk is tokenized."""
        index = cls.__new__(cls)
        index._install(
            list(rows), [None] * len(rows), postings, lengths, np.ones(len(rows), dtype=bool)
        )
        return index

    def _install(
        self,
        slots: list[IndexedChunk | None],
        docs: list[list[str] | None],
        postings: dict[str, Postings],
        lengths: npt.NDArray[np.float32],
        live: npt.NDArray[np.bool_],
    ) -> None:
        self._slots = slots
        self._docs = docs  # tokens per slot when known (None: loaded from a snapshot)
        self._postings = postings
        self._lengths = lengths
        self._live = live
        self.keys: list[tuple[str, int] | None] = [
            (r.slug, r.ordinal) if r is not None else None for r in slots
        ]
        self.by_key = {k: r for k, r in zip(self.keys, slots, strict=True) if k and r}
        self._by_slug: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(slots):
            if r is not None:
                self._by_slug[r.slug].append(i)
        self._n = int(live.sum())
        self._avgdl = float(lengths[live].mean()) if self._n else 1.0
        self._norm = K1 * (1 - B + B * lengths / max(self._avgdl, 1.0))
        self._max_idf = math.log(1 + (self._n + 0.5) / 0.5)
        self._columns = FilterColumns([r or _RETIRED for r in slots])

    @property
    def rows(self) -> list[IndexedChunk]:
        """The live chunks, by slug and ordinal."""
        live = [r for r in self._slots if r is not None]
        return sorted(live, key=lambda r: (r.slug, r.ordinal))

    @property
    def documents(self) -> dict[tuple[str, str, str], list[str]]:
        """The tokens of the live chunks whose tokens are known, by text, title, heading."""
        return {
            (r.text, r.title, r.heading): d
            for r, d in zip(self._slots, self._docs, strict=True)
            if r is not None and d is not None
        }

    def parts(
        self,
    ) -> tuple[
        list[IndexedChunk],
        dict[str, Postings],
        npt.NDArray[np.float32],
    ]:
        """Rows, postings and lengths with dead slots dropped (what a snapshot stores)."""
        order = np.flatnonzero(self._live)
        renumber = np.full(len(self._slots), -1, dtype=np.int32)
        renumber[order] = np.arange(len(order))
        postings = {}
        for token, (docs, tf) in self._postings.items():
            keep = self._live[docs]
            if keep.any():
                postings[token] = (renumber[docs[keep]], tf[keep])
        rows = [r for r in (self._slots[i] for i in order) if r is not None]
        return rows, postings, self._lengths[order]

    def with_pages(self, slugs: Collection[str], rows: Sequence[IndexedChunk]) -> LexicalIndex:
        """This index with the chunks of ``slugs`` replaced by ``rows`` (their active chunks
        now: none for a page archived); other chunks and their postings are shared."""
        dead = [i for slug in set(slugs) for i in self._by_slug.get(slug, ())]
        retired = len(self._slots) - self._n + len(dead)
        if retired > max(_MIN_COMPACT, (len(self._slots) + len(rows)) // 4):
            gone = set(slugs)
            kept = [r for r in self._slots if r is not None and r.slug not in gone]
            return LexicalIndex([*kept, *rows], previous=self)
        slots = list(self._slots)
        docs = list(self._docs)
        live = np.concatenate([self._live, np.ones(len(rows), dtype=bool)])
        for i in dead:
            slots[i] = None
            docs[i] = None
            live[i] = False
        start = len(slots)
        added: dict[str, dict[int, int]] = defaultdict(dict)
        lengths = np.concatenate([self._lengths, np.zeros(len(rows), dtype=np.float32)])
        lengths[dead] = 0.0
        for offset, row in enumerate(rows):
            doc = tokens(row.text) + tokens(f"{row.title} {row.heading}") * FIELD_REPEAT
            slots.append(row)
            docs.append(doc)
            lengths[start + offset] = len(doc)
            for token in doc:
                added[token][start + offset] = added[token].get(start + offset, 0) + 1
        postings = dict(self._postings)
        for token, counts in added.items():
            new_docs, new_tf = _arrays(counts)
            if token in postings:
                old_docs, old_tf = postings[token]
                postings[token] = (
                    np.concatenate([old_docs, new_docs]),
                    np.concatenate([old_tf, new_tf]),
                )
            else:
                postings[token] = (new_docs, new_tf)
        index = LexicalIndex.__new__(LexicalIndex)
        index._install(slots, docs, postings, lengths, live)
        return index

    def _idf(self, term: str) -> float | None:
        """BM25's idf of ``term`` over the live chunks; None when no live chunk has it."""
        found = self._postings.get(term)
        if found is None:
            return None
        df = int(np.count_nonzero(self._live[found[0]]))
        if df == 0:
            return None
        return math.log(1 + (self._n - df + 0.5) / (df + 0.5))

    def __len__(self) -> int:
        return self._n

    def mask(self, filters: SearchFilter) -> npt.NDArray[np.bool_]:
        """Which chunks pass the filters (only active chunks are ever in the index)."""
        return self._columns.mask(filters)

    def search(self, question: str, filters: SearchFilter, limit: int) -> list[LexicalHit]:
        """The ``limit`` best chunks for ``question`` among those passing ``filters``."""
        groups = query_groups(question)
        idf = {t: self._idf(t) for g in groups for t in g}
        known = [[t for t in g if idf[t] is not None] for g in groups]
        if not any(known) or not self._n:
            return []
        # A group is one word in its several forms (`cuerpo`, `body`): a chunk scores the
        # best of its forms, not their sum, so a page using both is not counted twice.
        bm25 = np.zeros(len(self._slots), dtype=np.float32)
        best = np.empty(len(self._slots), dtype=np.float32)
        for forms in filter(None, known):
            best.fill(0.0)
            for term in forms:
                docs, tf = self._postings[term]
                term_bm25 = (idf[term] or 0.0) * tf * (K1 + 1) / (tf + self._norm[docs])
                best[docs] = np.maximum(best[docs], term_bm25)
            bm25 += best
        bm25[~(self.mask(filters) & self._live)] = 0.0
        # The best a chunk could score: every word of the question (a word the wiki never
        # uses counts as the rarest), at a saturated frequency. Coverage is the share of it.
        ceiling = (K1 + 1) * sum(
            max(self._max_idf if idf[t] is None else float(idf[t] or 0.0) for t in g)
            for g in groups
        )
        count = int(np.count_nonzero(bm25))
        if count == 0:
            return []
        wanted = min(limit, count)
        cut = bm25[np.argpartition(-bm25, wanted - 1)[:wanted]].min()
        # Ties broken by key, not by slot: an index that applied writes ranks as one built
        # afresh (the ties at the cut included, so which of them make it is decided too).
        tied = np.flatnonzero(bm25 >= cut)
        top = sorted(tied.tolist(), key=lambda i: (-float(bm25[i]), self._key(i)))[:wanted]
        return [
            LexicalHit(
                key=self._key(i),
                bm25=float(bm25[i]),
                coverage=min(1.0, float(bm25[i]) / ceiling) if ceiling else 0.0,
            )
            for i in top
        ]

    def _key(self, slot: int) -> tuple[str, int]:
        key = self.keys[slot]
        assert key is not None  # dead slots score zero: never among the hits
        return key


def _arrays(counts: Mapping[int, int]) -> Postings:
    return (
        np.fromiter(counts.keys(), dtype=np.int32, count=len(counts)),
        np.fromiter(counts.values(), dtype=np.float32, count=len(counts)),
    )


# What a retired slot shows the filter columns (it is masked out as dead anyway).
_RETIRED = IndexedChunk("", -1, "", "", "", None, None, ())
_MIN_COMPACT = 1000  # dead slots tolerated before a rebuild, however small the index
