"""Lexical ranking: BM25 over chunks, held in memory as arrays, without the chunks' text (pure).

Titles and heading paths count twice (they name what a section is about); identifiers
are exact tokens, so ``DB_POOL_SIZE`` finds the one chunk that mentions it.

What the index keeps per chunk is a few numbers (its page, ordinal, heading, size, token
count) and per page its filterable fields; the postings are one array of chunk numbers and
one of frequencies, sliced per token. The text stays in the store: the few lexical hits
that become passages are read by key (``ChunkIndex.chunks_by_key``). That is what lets an
instance hold a 100,000-page wiki (docs/scale.md, "Memory").
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from shared.records import IndexedChunk, SearchFilter
from shared.retrieval.filters import FilterColumns
from shared.retrieval.tokens import query_groups, tokens

K1 = 1.2
B = 0.75
FIELD_REPEAT = 2  # how many times a chunk's title and heading are counted
MAX_TF = np.iinfo(np.uint16).max  # frequencies are kept as uint16; BM25 saturates long before

Key = tuple[str, int]
Ints = npt.NDArray[np.int32]
# A token's postings: the slots of the chunks holding it (int32: two billion chunks is
# far past any wiki) and its frequency in each.
Postings = tuple[Ints, npt.NDArray[np.uint16]]


@dataclass(frozen=True, slots=True)
class LexicalHit:
    """A chunk's BM25 score and the share of the question's weight it matched (0..1)."""

    key: Key
    bm25: float
    coverage: float


@dataclass(frozen=True, slots=True)
class PageFields:
    """A page as the index filters and labels its chunks."""

    slug: str
    title: str
    page_type: str | None
    category: str | None
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChunkInfo:
    """What the index knows of a chunk: everything but its text, with the text's length
    and a CRC-32 of it (to tell whether a text read later is the one indexed)."""

    slug: str
    ordinal: int
    title: str
    heading: str
    page_type: str | None
    category: str | None
    tags: tuple[str, ...]
    chars: int
    digest: int


@dataclass(frozen=True, slots=True)
class Packed:
    """An index as plain tables and arrays, dead slots dropped (what a snapshot stores).

    Slot ``i`` is chunk ``ordinal[i]`` of page ``pages[page_of[i]]`` under heading
    ``headings[heading[i]]``; token ``vocabulary[t]``'s postings are
    ``docs[offsets[t]:offsets[t + 1]]`` with frequencies ``tf[...]``.
    """

    pages: list[PageFields]
    headings: list[str]
    vocabulary: list[str]
    page_of: Ints
    ordinal: Ints
    heading: Ints
    chars: Ints
    digest: npt.NDArray[np.uint32]
    lengths: npt.NDArray[np.float32]
    offsets: npt.NDArray[np.int64]
    docs: Ints
    tf: npt.NDArray[np.uint16]


@dataclass(frozen=True, slots=True)
class _Columns:
    """The per-chunk numbers of rows being appended, filled row by row."""

    page_of: Ints
    ordinal: Ints
    heading: Ints
    chars: Ints
    digest: npt.NDArray[np.uint32]
    lengths: npt.NDArray[np.float32]

    @classmethod
    def empty(cls, n: int) -> _Columns:
        return cls(
            page_of=np.empty(n, dtype=np.int32),
            ordinal=np.empty(n, dtype=np.int32),
            heading=np.empty(n, dtype=np.int32),
            chars=np.empty(n, dtype=np.int32),
            digest=np.empty(n, dtype=np.uint32),
            lengths=np.empty(n, dtype=np.float32),
        )

    def put(self, offset: int, row: IndexedChunk, *, page: int, heading: int, length: int) -> None:
        self.page_of[offset] = page
        self.ordinal[offset] = row.ordinal
        self.heading[offset] = heading
        self.chars[offset] = len(row.text)
        self.digest[offset] = text_digest(row.text)
        self.lengths[offset] = length

    def after(self, base: Packed, pages: list[PageFields], headings: list[str]) -> Packed:
        """``base`` with these rows' numbers after its own; its postings unchanged."""
        return Packed(
            pages=pages,
            headings=headings,
            vocabulary=base.vocabulary,  # the new tokens are in the index's ``new_terms``
            page_of=np.concatenate([base.page_of, self.page_of]),
            ordinal=np.concatenate([base.ordinal, self.ordinal]),
            heading=np.concatenate([base.heading, self.heading]),
            chars=np.concatenate([base.chars, self.chars]),
            digest=np.concatenate([base.digest, self.digest]),
            lengths=np.concatenate([base.lengths, self.lengths]),
            offsets=base.offsets,
            docs=base.docs,
            tf=base.tf,
        )


def _merged_postings(
    extra: Mapping[int, Postings], added: Mapping[int, tuple[list[int], list[int]]]
) -> dict[int, Postings]:
    """The appended postings of each term after the ones it already had."""
    merged = dict(extra)
    for term, (slots, counts) in added.items():
        docs = np.asarray(slots, dtype=np.int32)
        tf = np.minimum(np.asarray(counts), MAX_TF).astype(np.uint16)
        if term in merged:
            old_docs, old_tf = merged[term]
            docs, tf = np.concatenate([old_docs, docs]), np.concatenate([old_tf, tf])
        merged[term] = (docs, tf)
    return merged


class LexicalIndex:
    """An inverted index over chunks with their filterable page fields.

    Chunks live in slots, a page's slots side by side. ``with_pages`` retires the slots of
    the pages written (they stay in the postings, masked out as dead) and appends the new
    chunks; their postings go beside the packed ones, per token, so the cost of applying
    a write follows the write, not the wiki. When dead slots pass a quarter of all, the
    index is packed anew from its own arrays (no text needed).
    """

    def __init__(self, rows: Iterable[IndexedChunk] = ()) -> None:
        """Index ``rows`` (tokenizing each: most of the cost of a build)."""
        self._install(_EMPTY, np.zeros(0, dtype=bool), {}, {}, [], [], {}, {})
        built = self._appended(sorted(rows, key=lambda r: (r.slug, r.ordinal)), gone=set())
        self._adopt(built.packed())

    @classmethod
    def from_packed(cls, packed: Packed) -> LexicalIndex:
        """An index from its packed form (a snapshot): nothing is tokenized."""
        index = cls.__new__(cls)
        index._adopt(packed)
        return index

    def _adopt(self, packed: Packed) -> None:
        vocab = {t: i for i, t in enumerate(packed.vocabulary)}
        live = np.ones(len(packed.page_of), dtype=bool)
        # A page's slots are side by side: its range runs from its first slot to the next page's.
        edges = np.flatnonzero(np.diff(packed.page_of)) + 1
        starts = [0, *edges.tolist()] if len(live) else []
        stops = [*edges.tolist(), len(live)] if len(live) else []
        spans = {
            packed.pages[int(packed.page_of[a])].slug: (int(packed.page_of[a]), a, b)
            for a, b in zip(starts, stops, strict=True)
        }
        self._install(packed, live, vocab, {}, packed.pages, packed.headings, {}, spans)

    def _install(
        self,
        base: Packed,
        live: npt.NDArray[np.bool_],
        vocab: dict[str, int],
        new_terms: dict[str, int],
        pages: list[PageFields],
        headings: list[str],
        extra: dict[int, Postings],
        spans: dict[str, tuple[int, int, int]],
    ) -> None:
        self._base = base  # slot columns of every slot (live or dead), postings as packed
        self._live = live
        self._vocab = vocab  # the base's tokens: shared by every index grown from it
        self._new_terms = new_terms  # tokens first seen after the base, by term id
        self._extra = extra  # postings appended after the base, by term id
        self._pages = pages
        self._headings = headings
        self._spans = spans  # each live page's id and slots [start, stop), by slug
        self._n = int(live.sum())
        lengths = base.lengths
        self._avgdl = float(lengths[live].mean()) if self._n else 1.0
        self._norm = K1 * (1 - B + B * lengths / max(self._avgdl, 1.0))
        self._max_idf = math.log(1 + (self._n + 0.5) / 0.5)

    # -- what other modules read -----------------------------------------------------

    def __len__(self) -> int:
        return self._n

    @property
    def rows(self) -> list[ChunkInfo]:
        """The live chunks, by slug and ordinal."""
        return sorted(
            (self._info(int(i)) for i in np.flatnonzero(self._live)),
            key=lambda r: (r.slug, r.ordinal),
        )

    @cached_property
    def labels(self) -> Mapping[Key, ChunkInfo]:
        """The live chunks by key, as a read-only mapping (built on demand, not stored)."""
        return _Labels(self)

    def info(self, key: Key) -> ChunkInfo | None:
        """The live chunk at ``key``, or None."""
        slot = self._slot(key)
        return None if slot is None else self._info(slot)

    def following(
        self, key: Key, chars: int, *, limit: int = 4, same_heading: bool = True
    ) -> list[Key]:
        """The chunks after ``key`` under the same heading (of the same page, with
        ``same_heading`` False) while their text (less the ``OVERLAP_SLACK`` each repeats)
        could still fit ``chars``: those a passage may run on into
        (``evidence.section_text``), at most ``limit``."""
        slot = self._slot(key)
        if slot is None:
            return []
        base = self._base
        out: list[Key] = []
        budget = chars - int(base.chars[slot])
        page, heading = base.page_of[slot], base.heading[slot]
        for after in range(slot + 1, min(slot + 1 + limit, len(base.page_of))):
            other_heading = same_heading and base.heading[after] != heading
            if base.page_of[after] != page or other_heading or budget <= 0:
                break
            out.append((key[0], int(base.ordinal[after])))
            budget -= int(base.chars[after]) - OVERLAP_SLACK
        return out

    def knows(self, token: str) -> bool:
        """Whether any live chunk holds ``token`` (an index token: a stem or an
        identifier): the wiki's vocabulary, read from the postings, not from the store."""
        return self.idf(token) is not None

    def idf(self, token: str) -> float | None:
        """BM25's idf of ``token`` over the live chunks; None when no live chunk has it."""
        postings = self._postings(token)
        return None if postings is None else self._idf(postings)

    def mask(self, filters: SearchFilter) -> npt.NDArray[np.bool_]:
        """Which slots pass the filters (only active chunks are ever in the index)."""
        return self._page_columns.mask(filters)[self._base.page_of]

    def search(self, question: str, filters: SearchFilter, limit: int) -> list[LexicalHit]:
        """The ``limit`` best chunks for ``question`` among those passing ``filters``."""
        groups = query_groups(question)
        postings = {t: p for g in groups for t in g if (p := self._postings(t)) is not None}
        idf = {t: self._idf(p) for t, p in postings.items()}
        known = [[t for t in g if idf.get(t) is not None] for g in groups]
        if not any(known) or not self._n:
            return []
        # A group is one word in its several forms (`cuerpo`, `body`): a chunk scores the
        # best of its forms, not their sum, so a page using both is not counted twice.
        slots = len(self._live)
        bm25 = np.zeros(slots, dtype=np.float32)
        best = np.empty(slots, dtype=np.float32)
        for forms in filter(None, known):
            best.fill(0.0)
            for term in forms:
                docs, counts = postings[term]
                tf = counts.astype(np.float32)
                term_bm25 = (idf[term] or 0.0) * tf * (K1 + 1) / (tf + self._norm[docs])
                best[docs] = np.maximum(best[docs], term_bm25)
            bm25 += best
        bm25[~(self.mask(filters) & self._live)] = 0.0
        # The best a chunk could score: every word of the question (a word the wiki never
        # uses counts as the rarest), at a saturated frequency. Coverage is the share of it.
        ceiling = (K1 + 1) * sum(
            max(self._max_idf if (v := idf.get(t)) is None else v for t in g) for g in groups
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

    # -- writes ----------------------------------------------------------------------

    def with_pages(self, slugs: Collection[str], rows: Sequence[IndexedChunk]) -> LexicalIndex:
        """This index with the chunks of ``slugs`` replaced by ``rows`` (their active chunks
        now: none for a page archived); other chunks and their postings are shared."""
        gone = set(slugs) | {r.slug for r in rows}
        index = self._appended(sorted(rows, key=lambda r: (r.slug, r.ordinal)), gone=gone)
        retired = len(index._live) - index._n
        if retired > max(_MIN_COMPACT, len(index._live) // 4):
            return LexicalIndex.from_packed(index.packed())
        return index

    def _appended(self, rows: Sequence[IndexedChunk], *, gone: set[str]) -> LexicalIndex:
        """This index with the pages ``gone`` retired and ``rows`` (sorted) appended."""
        base = self._base
        live = np.concatenate([self._live, np.ones(len(rows), dtype=bool)])
        spans = dict(self._spans)
        for slug in gone:
            if (span := spans.pop(slug, None)) is not None:
                live[span[1] : span[2]] = False
        pages = list(self._pages)
        headings = list(self._headings)
        heading_ids: dict[str, int] = {}
        start = len(self._live)
        columns = _Columns.empty(len(rows))
        new_terms = dict(self._new_terms)
        added: dict[int, tuple[list[int], list[int]]] = {}
        for offset, row in enumerate(rows):
            if offset == 0 or rows[offset - 1].slug != row.slug:
                pages.append(
                    PageFields(row.slug, row.title, row.page_type, row.category, tuple(row.tags))
                )
                spans[row.slug] = (len(pages) - 1, start + offset, start + offset)
            page_id, first, _ = spans[row.slug]
            spans[row.slug] = (page_id, first, start + offset + 1)
            if (hid := heading_ids.get(row.heading)) is None:
                hid = heading_ids[row.heading] = len(headings)
                headings.append(row.heading)
            doc = tokens(row.text) + tokens(f"{row.title} {row.heading}") * FIELD_REPEAT
            columns.put(offset, row, page=len(pages) - 1, heading=hid, length=len(doc))
            for token, n in Counter(doc).items():
                term = self._term(token)
                if term is None:
                    term = new_terms.get(token)
                    if term is None:
                        term = new_terms[token] = len(base.vocabulary) + len(new_terms)
                slots, counts = added.setdefault(term, ([], []))
                slots.append(start + offset)
                counts.append(n)
        extra = _merged_postings(self._extra, added)
        grown = columns.after(base, pages, headings)
        index = LexicalIndex.__new__(LexicalIndex)
        index._install(grown, live, self._vocab, new_terms, pages, headings, extra, spans)
        return index

    def packed(self) -> Packed:
        """The live slots renumbered in order, every token's postings in one run."""
        base = self._base
        order = np.flatnonzero(self._live)
        renumber = np.full(len(self._live), -1, dtype=np.int32)
        renumber[order] = np.arange(len(order), dtype=np.int32)
        # Every (term, slot, tf) of the base and the extras, live ones kept, grouped by term.
        base_terms = np.repeat(
            np.arange(len(base.offsets) - 1, dtype=np.int32), np.diff(base.offsets)
        )
        extra_terms = sorted(self._extra)
        terms = np.concatenate(
            [base_terms, *(np.full(len(self._extra[t][0]), t, np.int32) for t in extra_terms)]
        )
        docs = np.concatenate([base.docs, *(self._extra[t][0] for t in extra_terms)])
        tf = np.concatenate([base.tf, *(self._extra[t][1] for t in extra_terms)])
        keep = self._live[docs] if len(docs) else np.zeros(0, dtype=bool)
        terms, docs, tf = terms[keep], renumber[docs[keep]], tf[keep]
        vocabulary = [*base.vocabulary, *self._new_terms]  # new ones in the order of their ids
        used = np.unique(terms)
        term_ids = np.full(len(vocabulary), -1, dtype=np.int32)
        term_ids[used] = np.arange(len(used), dtype=np.int32)
        by_term = np.argsort(terms, kind="stable")
        terms, docs, tf = term_ids[terms[by_term]], docs[by_term], tf[by_term]
        counts = np.bincount(terms, minlength=len(used)) if len(terms) else np.zeros(0, np.int64)
        offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(counts)])
        # Pages and headings that live slots still use, renumbered in order.
        page_ids, page_of = np.unique(base.page_of[order], return_inverse=True)
        heading_ids, heading = np.unique(base.heading[order], return_inverse=True)
        return Packed(
            pages=[self._pages[i] for i in page_ids.tolist()],
            headings=[self._headings[i] for i in heading_ids.tolist()],
            vocabulary=[vocabulary[i] for i in used.tolist()],
            page_of=page_of.astype(np.int32),
            ordinal=base.ordinal[order],
            heading=heading.astype(np.int32),
            chars=base.chars[order],
            digest=base.digest[order],
            lengths=base.lengths[order],
            offsets=offsets.astype(np.int64),
            docs=docs.astype(np.int32),
            tf=tf.astype(np.uint16),
        )

    # -- internals -------------------------------------------------------------------

    def _term(self, token: str) -> int | None:
        term = self._vocab.get(token)
        return term if term is not None else self._new_terms.get(token)

    def _postings(self, token: str) -> Postings | None:
        term = self._term(token)
        if term is None:
            return None
        base = self._base
        parts: list[Postings] = []
        if term < len(base.offsets) - 1:
            lo, hi = int(base.offsets[term]), int(base.offsets[term + 1])
            parts.append((base.docs[lo:hi], base.tf[lo:hi]))
        if term in self._extra:
            parts.append(self._extra[term])
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def _idf(self, postings: Postings) -> float | None:
        """BM25's idf of a term over the live chunks; None when no live chunk has it."""
        df = int(np.count_nonzero(self._live[postings[0]]))
        if df == 0:
            return None
        return math.log(1 + (self._n - df + 0.5) / (df + 0.5))

    @cached_property
    def _page_columns(self) -> FilterColumns:
        return FilterColumns(self._pages)

    def _slot(self, key: Key) -> int | None:
        span = self._spans.get(key[0])
        if span is None:
            return None
        _, start, stop = span
        ordinals = self._base.ordinal[start:stop]
        at = int(np.searchsorted(ordinals, key[1]))
        if at < len(ordinals) and int(ordinals[at]) == key[1]:
            return start + at
        return None

    def _key(self, slot: int) -> Key:
        return (self._pages[int(self._base.page_of[slot])].slug, int(self._base.ordinal[slot]))

    def _info(self, slot: int) -> ChunkInfo:
        base = self._base
        page = self._pages[int(base.page_of[slot])]
        return ChunkInfo(
            slug=page.slug,
            ordinal=int(base.ordinal[slot]),
            title=page.title,
            heading=self._headings[int(base.heading[slot])],
            page_type=page.page_type,
            category=page.category,
            tags=page.tags,
            chars=int(base.chars[slot]),
            digest=int(base.digest[slot]),
        )


class _Labels(Mapping[Key, ChunkInfo]):
    def __init__(self, index: LexicalIndex) -> None:
        self._index = index

    def __getitem__(self, key: Key) -> ChunkInfo:
        found = self._index.info(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Key]:
        return iter((r.slug, r.ordinal) for r in self._index.rows)

    def __len__(self) -> int:
        return len(self._index)


def text_digest(text: str) -> int:
    """CRC-32 of a chunk's text, as the index keeps it."""
    return zlib.crc32(text.encode())


_EMPTY = Packed(
    pages=[],
    headings=[],
    vocabulary=[],
    page_of=np.zeros(0, dtype=np.int32),
    ordinal=np.zeros(0, dtype=np.int32),
    heading=np.zeros(0, dtype=np.int32),
    chars=np.zeros(0, dtype=np.int32),
    digest=np.zeros(0, dtype=np.uint32),
    lengths=np.zeros(0, dtype=np.float32),
    offsets=np.zeros(1, dtype=np.int64),
    docs=np.zeros(0, dtype=np.int32),
    tf=np.zeros(0, dtype=np.uint16),
)


# What each following chunk repeats of the one before (the chunker's overlap), so a
# passage's run-on may still take it whole: ``following`` reads a little more than fits.
OVERLAP_SLACK = 100
_MIN_COMPACT = 1000  # dead slots tolerated before packing anew, however small the index
