"""Score fusion of the dense and lexical rankings, and page-level ranking (pure).

One name per score: ``cosine`` (dense similarity), ``coverage`` (lexical, 0..1),
``fused`` (their mix), ``ranking`` (fused plus the page's ``support``) and ``relevance``
(``ranking`` on 0..1, what ``ask`` reports). ``rrf`` is kept for the benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from shared.records import ChunkHit, Kind
from shared.retrieval.lexical import ChunkInfo, LexicalHit

# Equal halves: the middle of the weights (0.45-0.55) with the best R@1 on the tuning
# questions once the lexical side grouped a word's forms (bench/README.md).
DENSE_WEIGHT = 0.5
RRF_K = 60
# A page's 2nd, 3rd and 4th best chunks add 0.5, 0.25 and 0.125 of their fused scores to
# the ranking of its best chunk: a page that answers in several places beats a sibling page
# matching in one (chosen on the tuning questions, bench/README.md).
PAGE_DECAY = 0.5
PAGE_DEPTH = 4
# The largest ``ranking`` a chunk can reach (all of a page's chunks at 1.0): divides it
# into the 0..1 relevance that ``ask`` reports, in the order it ranks.
PAGE_SCALE = sum(PAGE_DECAY**i for i in range(PAGE_DEPTH))


@dataclass(frozen=True, slots=True)
class Ranked:
    """A retrieved chunk with its fused score and the two scores it came from.

    ``text`` is empty for a chunk only the lexical side found until its text is read
    (``hybrid.retrieve`` reads it for the chunks it returns)."""

    slug: str
    title: str
    heading: str
    text: str
    ordinal: int
    fused: float  # the chunk's own score, 0..1: what the relevance gate reads
    cosine: float
    coverage: float
    dense_found: bool = True  # False: the dense search did not return it (cosine is a bound)
    support: float = 0.0  # on a page's best chunk: what its other chunks add (``by_page``)
    kind: Kind | None = None  # its page's kind (``shared.text.kinds``), set by ``by_kind``

    @property
    def ranking(self) -> float:
        """The ranking key: the chunk's fused score plus its page's support, if any."""
        return self.fused + self.support

    @property
    def relevance(self) -> float:
        """``ranking`` on 0..1: what ``ask`` reports, so ``sources`` read best first by it."""
        return min(1.0, self.ranking / PAGE_SCALE)


Key = tuple[str, int]


def _fused(
    dense: Sequence[ChunkHit],
    lexical: Sequence[LexicalHit],
    rows: Mapping[Key, ChunkInfo],
    fuse: Callable[[Key, float, float], float],
) -> list[Ranked]:
    """Every candidate of either side, scored by ``fuse(key, cosine, coverage)``, best first.

    A chunk the dense search did not return scores at most its last candidate's cosine.
    """
    found: dict[Key, ChunkHit | ChunkInfo] = {(h.slug, h.ordinal): h for h in dense}
    for hit in lexical:
        if hit.key not in found and hit.key in rows:
            found[hit.key] = rows[hit.key]
    cosines = {(h.slug, h.ordinal): h.cosine for h in dense}
    coverages = {h.key: h.coverage for h in lexical}
    floor = min(cosines.values()) if cosines else 0.0
    out = []
    for key, item in found.items():
        cosine = max(0.0, min(1.0, cosines.get(key, floor)))
        coverage = coverages.get(key, 0.0)
        out.append(
            Ranked(
                slug=item.slug,
                title=item.title,
                heading=item.heading,
                text=item.text if isinstance(item, ChunkHit) else "",
                ordinal=item.ordinal,
                fused=fuse(key, cosine, coverage),
                cosine=cosine,
                coverage=coverage,
                dense_found=key in cosines,
            )
        )
    out.sort(key=lambda r: (-r.fused, r.slug, r.ordinal))
    return out


def mix(
    dense: Sequence[ChunkHit],
    lexical: Sequence[LexicalHit],
    rows: Mapping[Key, ChunkInfo],
    *,
    dense_weight: float = DENSE_WEIGHT,
) -> list[Ranked]:
    """Chunks ordered by ``w * cosine + (1 - w) * coverage``, best first."""
    w = dense_weight
    return _fused(dense, lexical, rows, lambda _, cosine, cover: w * cosine + (1 - w) * cover)


def rrf(
    dense: Sequence[ChunkHit],
    lexical: Sequence[LexicalHit],
    rows: Mapping[Key, ChunkInfo],
    *,
    k: int = RRF_K,
) -> list[Ranked]:
    """Chunks ordered by equal-weight reciprocal rank fusion, best first."""
    fused: dict[Key, float] = {}
    for rank, key in enumerate([(h.slug, h.ordinal) for h in dense]):
        fused[key] = fused.get(key, 0.0) + 1 / (k + rank + 1)
    for rank, key in enumerate([h.key for h in lexical]):
        fused[key] = fused.get(key, 0.0) + 1 / (k + rank + 1)
    return _fused(dense, lexical, rows, lambda key, _, __: fused.get(key, 0.0))


def by_page(
    ranked: Sequence[Ranked], *, decay: float = PAGE_DECAY, depth: int = PAGE_DEPTH
) -> list[Ranked]:
    """``ranked`` re-ordered so that a page's evidence beyond its best chunk counts.

    A page's best chunk is ranked by ``best + decay·second + decay²·third + …`` (up to
    ``depth`` chunks), so pages come in that order; its other chunks keep their own
    fused score as their ranking, so a strong page does not push weak chunks ahead of another
    page's good ones. ``fused`` stays each chunk's own score (0..1), which the relevance
    gate reads.
    """
    by_slug: dict[str, list[Ranked]] = {}
    for r in ranked:
        by_slug.setdefault(r.slug, []).append(r)
    out: list[Ranked] = []
    for chunks in by_slug.values():
        chunks = sorted(chunks, key=lambda r: (-r.fused, r.ordinal))
        support = sum(decay**i * r.fused for i, r in enumerate(chunks[1:depth], start=1))
        out.append(replace(chunks[0], support=support))
        out.extend(chunks[1:])
    out.sort(key=lambda r: (-r.ranking, r.slug, r.ordinal))
    return out


def by_kind(
    ranked: Sequence[Ranked],
    kind_of: Callable[[Ranked], Kind],
    fit: Callable[[Kind], int],
    *,
    weight: float,
) -> list[Ranked]:
    """``ranked`` (pages in ``by_page`` order) with each chunk's page ``kind`` set, and
    each page's best chunk ranked ``weight`` higher (or lower) when ``fit(kind)`` says the
    question wants (or does not want) that kind of page: ``ranking × (1 + weight·fit)``.
    The chunks' own ``fused`` scores, which the relevance gate reads, do not move."""
    kinds: dict[str, Kind] = {}
    out: list[Ranked] = []
    for r in ranked:
        first = r.slug not in kinds
        kind = kinds.setdefault(r.slug, kind_of(r))
        bonus = weight * fit(kind) * r.ranking if first else 0.0
        out.append(replace(r, kind=kind, support=r.support + bonus))
    out.sort(key=lambda r: (-r.ranking, r.slug, r.ordinal))
    return out
