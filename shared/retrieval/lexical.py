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
B = 0.75
FIELD_REPEAT = 2  # how many times a chunk's title and heading are counted


@dataclass(frozen=True, slots=True)
class LexicalHit:
    """A chunk's BM25 score and the share of the question's weight it matched (0..1)."""

    key: tuple[str, int]
    bm25: float
    coverage: float


class LexicalIndex:
    """An inverted index over chunks with their filterable page fields."""

    def __init__(
        self,
        rows: Sequence[IndexedChunk],
        previous: LexicalIndex | None = None,
        *,
        known: Mapping[tuple[str, str, str], list[str]] | None = None,
    ) -> None:
        """Index ``rows``; the tokens of chunks unchanged since ``previous`` (or found in
        ``known``, by text, title and heading) are reused: tokenizing is most of the cost
        of a rebuild after one page was written, and of loading a stored snapshot."""
        self.rows = list(rows)
        self.keys = [(r.slug, r.ordinal) for r in self.rows]
        self.by_key = dict(zip(self.keys, self.rows, strict=True))
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        lengths = np.zeros(len(self.rows), dtype=np.float32)
        known = previous.documents if previous is not None else (known or {})
        self.documents: dict[tuple[str, str, str], list[str]] = {}
        for i, row in enumerate(self.rows):
            key = (row.text, row.title, row.heading)
            doc = known.get(key) or self.documents.get(key)
            if doc is None:
                doc = tokens(row.text) + tokens(f"{row.title} {row.heading}") * FIELD_REPEAT
            self.documents[key] = doc
            lengths[i] = len(doc)
            for token in doc:
                postings[token][i] = postings[token].get(i, 0) + 1
        n = max(len(self.rows), 1)
        self._avgdl = float(lengths.mean()) if len(self.rows) else 1.0
        self._norm = K1 * (1 - B + B * lengths / max(self._avgdl, 1.0))
        self._postings = {
            t: (np.fromiter(d.keys(), dtype=np.int64), np.fromiter(d.values(), dtype=np.float32))
            for t, d in postings.items()
        }
        self._idf = {
            t: math.log(1 + (n - len(d) + 0.5) / (len(d) + 0.5)) for t, d in postings.items()
        }
        self._max_idf = math.log(1 + (n + 0.5) / 0.5)
        self._columns = FilterColumns(self.rows)

    def with_pages(self, slugs: Collection[str], rows: Sequence[IndexedChunk]) -> LexicalIndex:
        """This index with the chunks of ``slugs`` replaced by ``rows`` (their active chunks
        now: none for a page archived or deleted); other chunks keep their tokens."""
        gone = set(slugs)
        kept = [r for r in self.rows if r.slug not in gone]
        merged = sorted([*kept, *rows], key=lambda r: (r.slug, r.ordinal))
        return LexicalIndex(merged, previous=self)

    def __len__(self) -> int:
        return len(self.rows)

    def mask(self, filters: SearchFilter) -> npt.NDArray[np.bool_]:
        """Which chunks pass the filters (only active chunks are ever in the index)."""
        return self._columns.mask(filters)

    def search(self, question: str, filters: SearchFilter, limit: int) -> list[LexicalHit]:
        """The ``limit`` best chunks for ``question`` among those passing ``filters``."""
        groups = query_groups(question)
        known = [[t for t in g if t in self._idf] for g in groups]
        if not any(known) or not self.rows:
            return []
        # A group is one word in its several forms (`cuerpo`, `body`): a chunk scores the
        # best of its forms, not their sum, so a page using both is not counted twice.
        bm25 = np.zeros(len(self.rows), dtype=np.float32)
        best = np.empty(len(self.rows), dtype=np.float32)
        for forms in filter(None, known):
            best.fill(0.0)
            for term in forms:
                docs, tf = self._postings[term]
                term_bm25 = self._idf[term] * tf * (K1 + 1) / (tf + self._norm[docs])
                best[docs] = np.maximum(best[docs], term_bm25)
            bm25 += best
        bm25[~self.mask(filters)] = 0.0
        # The best a chunk could score: every word of the question (a word the wiki never
        # uses counts as the rarest), at a saturated frequency. Coverage is the share of it.
        ceiling = (K1 + 1) * sum(max(self._idf.get(t, self._max_idf) for t in g) for g in groups)
        count = int(np.count_nonzero(bm25))
        if count == 0:
            return []
        top = np.argpartition(-bm25, min(limit, count) - 1)[: min(limit, count)]
        top = top[np.argsort(-bm25[top], kind="stable")]
        return [
            LexicalHit(
                key=self.keys[i],
                bm25=float(bm25[i]),
                coverage=min(1.0, float(bm25[i]) / ceiling) if ceiling else 0.0,
            )
            for i in top
        ]
