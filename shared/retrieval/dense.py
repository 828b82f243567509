"""Dense search on the instance's own snapshot: chunk vectors as int4, rescored exactly (pure).

Each active chunk's vector is kept as signed 4-bit codes, two to a byte, with one float32
scale per vector (``code = round(v / scale)``, ``scale = max|v| / 7``), of its first
``CODE_DIMS`` dimensions at most: an eighth of float32's bytes at 512 dimensions (269 a
chunk with its scale, page and ordinal, whatever the model's size), so a 100,000-page
wiki's vectors fit an ``ask`` instance beside its lexical index (docs/scale.md, "Memory").
Gemini's embeddings are trained so that a prefix is itself an embedding (Matryoshka): its
768 dimensions are shortlisted on their first 512 and rescored on all of them.

The scan's cosines are coarse (within about 0.02 of the exact ones at 512 dimensions),
which is why they only shortlist: a question scans every code (a matrix product, in
blocks so no float copy of the whole matrix is ever made), keeps the ``RESCORE`` best,
and the caller reads those few chunks with their stored vectors
(``ChunkIndex.chunks_by_key(..., vectors=True)``) to rescore them exactly: the ranking
returned is the exact one among the candidates, and no vector index is queried.

Rows are kept per embedder (a reindex runs with two for a while), in blocks: applying a
written page retires its rows (masked out as dead) and appends a block of its new rows,
so the cost of a write follows the write; past a quarter of dead rows, or too many
blocks, the blocks are packed into one from their own arrays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shared.records import ChunkHit, IndexedChunk, SearchFilter, Vector
from shared.retrieval.filters import FilterColumns
from shared.retrieval.lexical import PageFields

Key = tuple[str, int]
RESCORE = 50  # rescored exactly: recall@10 1.000 on fastapi-es, 4-bit (bench/dense_recall)
MAX_BLOCKS = 16  # blocks before they are packed into one
SCAN_ROWS = 4096  # rows converted to float per step of a scan (8 MiB at 512 dimensions: cached)
CODE_DIMS = 512  # dimensions a code keeps at most (a longer vector's first ones)
_QMAX = 7.0  # signed 4-bit codes: -7..7 (-8 unused, so a code and its negation both exist)


@dataclass(frozen=True, slots=True)
class Block:
    """Rows of one embedder: chunk ``ordinal[i]`` of page ``pages[page_of[i]]``; ``codes``
    holds a row's 4-bit codes two to a byte (dimension ``2j`` in the high nibble, ``2j + 1``
    in the low one; an odd size ends with a zero)."""

    codes: npt.NDArray[np.uint8]
    scales: npt.NDArray[np.float32]
    page_of: npt.NDArray[np.int32]
    ordinal: npt.NDArray[np.int32]
    live: npt.NDArray[np.bool_] = field(compare=False)

    @property
    def dead(self) -> int:
        return int(len(self.live) - np.count_nonzero(self.live))


def quantize(
    vectors: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """Packed 4-bit codes and per-vector scales of ``vectors`` (one row each; of its first
    ``CODE_DIMS`` dimensions)."""
    vectors = vectors[:, :CODE_DIMS]
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peak > 0, peak / _QMAX, 1.0).astype(np.float32)
    codes = np.rint(vectors / scales[:, None]).clip(-_QMAX, _QMAX).astype(np.int8)
    if codes.shape[1] % 2:
        codes = np.pad(codes, ((0, 0), (0, 1)))
    high, low = codes[:, 0::2].view(np.uint8), codes[:, 1::2].view(np.uint8)
    return ((high << 4) | (low & 0x0F)).astype(np.uint8), scales


def width(dims: int) -> int:
    """Bytes of codes a row of ``dims`` dimensions takes."""
    return (dims + 1) // 2


class DenseIndex:
    """Every active chunk's vector, compressed, by embedder; immutable (writes make another)."""

    def __init__(
        self,
        pages: list[PageFields],
        blocks: Mapping[str, Sequence[Block]],
    ) -> None:
        self.pages = pages
        self.blocks: dict[str, tuple[Block, ...]] = {e: tuple(b) for e, b in blocks.items()}
        self._page_ids = {p.slug: i for i, p in enumerate(pages)}

    @classmethod
    def build(cls, rows: Iterable[IndexedChunk]) -> DenseIndex:
        """The index of ``rows`` (each with its vector: rows without one are left out)."""
        return cls([], {}).with_pages((), rows)

    def __len__(self) -> int:
        return sum(int(np.count_nonzero(b.live)) for bs in self.blocks.values() for b in bs)

    @property
    def nbytes(self) -> int:
        """What the arrays hold in memory."""
        return sum(
            b.codes.nbytes + b.scales.nbytes + b.page_of.nbytes + b.ordinal.nbytes + b.live.nbytes
            for bs in self.blocks.values()
            for b in bs
        )

    def embedders(self) -> frozenset[str]:
        return frozenset(e for e, bs in self.blocks.items() if any(b.live.any() for b in bs))

    def with_pages(self, slugs: Collection[str], rows: Iterable[IndexedChunk]) -> DenseIndex:
        """This index with the rows of ``slugs`` replaced by ``rows`` (the pages' active
        chunks now); other blocks are shared, only their live masks are copied."""
        fresh = sorted((r for r in rows if r.vector is not None), key=lambda r: (r.slug, r.ordinal))
        gone = set(slugs) | {r.slug for r in fresh}
        gone_ids = np.array(
            sorted(self._page_ids[s] for s in gone if s in self._page_ids), np.int32
        )
        pages = list(self.pages)
        blocks: dict[str, list[Block]] = {}
        for embedder, existing in self.blocks.items():
            kept = blocks.setdefault(embedder, [])
            for block in existing:
                if len(gone_ids) and np.isin(block.page_of, gone_ids).any():
                    live = block.live & ~np.isin(block.page_of, gone_ids)
                    block = Block(block.codes, block.scales, block.page_of, block.ordinal, live)
                kept.append(block)
        ids: dict[str, int] = {}
        by_embedder: dict[str, list[IndexedChunk]] = {}
        for row in fresh:
            if row.slug not in ids:
                ids[row.slug] = len(pages)
                pages.append(
                    PageFields(row.slug, row.title, row.page_type, row.category, tuple(row.tags))
                )
            by_embedder.setdefault(row.embedder, []).append(row)
        for embedder, rows_of in by_embedder.items():
            # One size per embedder name (its name carries it): a stray row is left out.
            dims = Counter(map(_dims, rows_of)).most_common(1)[0][0]
            group = [r for r in rows_of if _dims(r) == dims]
            codes, scales = _quantized(group)
            blocks.setdefault(embedder, []).append(
                Block(
                    codes,
                    scales,
                    np.array([ids[r.slug] for r in group], np.int32),
                    np.array([r.ordinal for r in group], np.int32),
                    np.ones(len(group), dtype=bool),
                )
            )
        index = DenseIndex(pages, blocks)
        # Pages of the new rows shadow their older entries: the last id of a slug wins.
        index._page_ids = {**self._page_ids, **ids}
        for slug in gone - ids.keys():
            index._page_ids.pop(slug, None)
        return index._packed_if_due()

    def _packed_if_due(self) -> DenseIndex:
        rows = sum(len(b.live) for bs in self.blocks.values() for b in bs)
        dead = sum(b.dead for bs in self.blocks.values() for b in bs)
        many = any(len(bs) > MAX_BLOCKS for bs in self.blocks.values())
        return self.packed() if many or dead > max(1000, rows // 4) else self

    def packed(self) -> DenseIndex:
        """One block per embedder, live rows only, and only the pages they use."""
        used = sorted(
            {int(p) for bs in self.blocks.values() for b in bs for p in b.page_of[b.live]}
        )
        renumber = np.full(len(self.pages) + 1, -1, dtype=np.int32)
        renumber[used] = np.arange(len(used), dtype=np.int32)
        blocks: dict[str, list[Block]] = {}
        for embedder, existing in self.blocks.items():
            live = [b for b in existing if b.live.any()]
            if not live:
                continue
            blocks[embedder] = [
                Block(
                    np.concatenate([b.codes[b.live] for b in live]),
                    np.concatenate([b.scales[b.live] for b in live]),
                    renumber[np.concatenate([b.page_of[b.live] for b in live])],
                    np.concatenate([b.ordinal[b.live] for b in live]),
                    np.ones(sum(int(np.count_nonzero(b.live)) for b in live), dtype=bool),
                )
            ]
        return DenseIndex([self.pages[i] for i in used], blocks)

    def candidates(
        self, vector: Vector, *, embedder: str, filters: SearchFilter, limit: int
    ) -> list[tuple[Key, float]]:
        """The ``limit`` chunks of ``embedder`` passing ``filters`` whose codes score best
        against ``vector``, best first, with the approximate cosine."""
        probe = np.asarray(vector, dtype=np.float32)[:CODE_DIMS]
        probe = np.pad(probe, (0, len(probe) % 2))  # an odd size's codes end with a zero
        allowed = FilterColumns(self.pages).mask(filters) if _filtered(filters) else None
        found: list[tuple[float, str, int]] = []
        # One step's codes, unpacked: nibbles side by side as int8, then as float32 for one
        # product (1.4x int8's scan; two products over the halves took 2.4x).
        nibbles = np.empty((SCAN_ROWS, len(probe) // 2, 2), dtype=np.int8)
        floats = np.empty((SCAN_ROWS, len(probe)), dtype=np.float32)
        for block in self.blocks.get(embedder, ()):
            if block.codes.shape[1] != len(probe) // 2:
                continue  # another dimension under the same name: nothing to compare
            # (two sizes past CODE_DIMS share a width: the exact rescoring drops the other's)
            keep = block.live if allowed is None else block.live & allowed[block.page_of]
            scores = np.full(len(keep), -np.inf, dtype=np.float32)
            for start in range(0, len(keep), SCAN_ROWS):
                signed = block.codes[start : start + SCAN_ROWS].view(np.int8)
                rows = len(signed)
                high, low = nibbles[:rows, :, 0], nibbles[:rows, :, 1]
                np.right_shift(signed, 4, out=high)  # arithmetic shifts keep the signs
                np.left_shift(signed, 4, out=low)
                np.right_shift(low, 4, out=low)
                np.copyto(floats[:rows], nibbles[:rows].reshape(rows, -1))
                part = floats[:rows] @ probe
                scores[start : start + rows] = part * block.scales[start : start + rows]
            scores[~keep] = -np.inf
            count = min(limit, int(np.count_nonzero(keep)))
            if count <= 0:
                continue
            top = np.argpartition(-scores, count - 1)[:count]
            found.extend(
                (float(scores[i]), self.pages[int(block.page_of[i])].slug, int(block.ordinal[i]))
                for i in top.tolist()
            )
        found.sort(key=lambda f: (-f[0], f[1], f[2]))
        return [((slug, ordinal), score) for score, slug, ordinal in found[:limit]]


def _dims(row: IndexedChunk) -> int:
    return 0 if row.vector is None else len(row.vector)


def _quantized(
    rows: Sequence[IndexedChunk],
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """The codes and scales of ``rows``' vectors, quantized ``SCAN_ROWS`` at a time: a full
    read of 160,000 chunks never holds a second float32 copy of all their vectors."""
    dims = min(_dims(rows[0]), CODE_DIMS) if rows else 0
    codes = np.empty((len(rows), width(dims)), dtype=np.uint8)
    scales = np.empty(len(rows), dtype=np.float32)
    for start in range(0, len(rows), SCAN_ROWS):
        part = rows[start : start + SCAN_ROWS]
        vectors = np.stack([np.asarray(r.vector, dtype=np.float32)[:dims] for r in part])
        codes[start : start + len(part)], scales[start : start + len(part)] = quantize(vectors)
    return codes, scales


def rescored(
    vector: Vector, rows: Mapping[Key, IndexedChunk], *, embedder: str, limit: int
) -> list[ChunkHit]:
    """The ``limit`` best of ``rows`` (read with their vectors) by exact cosine, best first:
    a row rewritten since the snapshot scores as it is now, one of another embedder not."""
    probe = np.asarray(vector, dtype=np.float32)
    hits = [
        ChunkHit(
            slug=row.slug,
            title=row.title,
            heading=row.heading,
            text=row.text,
            ordinal=row.ordinal,
            cosine=float(np.asarray(row.vector, dtype=np.float32) @ probe),
        )
        for row in rows.values()
        if row.vector is not None and row.embedder == embedder and len(row.vector) == len(probe)
    ]
    hits.sort(key=lambda h: (-h.cosine, h.slug, h.ordinal))
    return hits[:limit]


def _filtered(filters: SearchFilter) -> bool:
    return any(v is not None for v in (filters.page_type, filters.category, filters.tag))
