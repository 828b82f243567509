"""The snapshot's dense side: 4-bit codes whose shortlist, rescored, ranks as the exact vectors,
kept current by writes."""

from __future__ import annotations

import numpy as np

from shared.records import IndexedChunk, SearchFilter, Vector
from shared.retrieval import snapshot
from shared.retrieval.dense import DenseIndex, quantize, rescored
from shared.retrieval.lexical import LexicalIndex

DIM = 64
EMBEDDER = "test:random@64"
EVERYTHING = SearchFilter()


def unit_rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.normal(size=(n, DIM)).astype(np.float32)
    return (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)


def rows(slug: str, vectors: np.ndarray, **fields: object) -> list[IndexedChunk]:
    base: dict[str, object] = {"page_type": "guide", "category": None, "tags": ()}
    base.update(fields)
    return [
        IndexedChunk(
            slug=slug,
            ordinal=i,
            title=slug,
            heading=f"{slug} {i}",
            text=f"texto {i} de {slug}",
            embedder=EMBEDDER,
            vector=v,
            **base,  # type: ignore[arg-type]
        )
        for i, v in enumerate(vectors)
    ]


def wiki(pages: int, per_page: int = 5, seed: int = 1) -> list[IndexedChunk]:
    vectors = unit_rows(pages * per_page, seed)
    out: list[IndexedChunk] = []
    for p in range(pages):
        out += rows(f"p{p:03d}", vectors[p * per_page : (p + 1) * per_page])
    return out


def exact_top(chunks: list[IndexedChunk], probe: Vector, k: int) -> list[tuple[str, int]]:
    scored = sorted(chunks, key=lambda r: -float(np.asarray(r.vector) @ probe))
    return [(r.slug, r.ordinal) for r in scored[:k]]


def unpacked(codes: np.ndarray, dims: int) -> np.ndarray:
    """The signed 4-bit codes of packed rows, one column per dimension."""
    signed = codes.view(np.int8)
    out = np.empty((len(codes), 2 * codes.shape[1]), dtype=np.int8)
    out[:, 0::2], out[:, 1::2] = signed >> 4, (signed << 4) >> 4
    return out[:, :dims]


def test_four_bit_codes_take_half_a_byte_a_dimension_and_stay_near_every_cosine() -> None:
    """Per-vector scaled 4-bit codes, two to a byte (an odd size padded), change no cosine of
    unit vectors by more than 0.08 at 64 dimensions (0.02 at the model's 512)."""
    for dims in (DIM, DIM - 1):
        vectors, probes = unit_rows(500, 2)[:, :dims], unit_rows(20, 3)[:, :dims]
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        codes, scales = quantize(vectors)
        assert codes.dtype == np.uint8
        assert codes.shape == (500, (dims + 1) // 2)
        values = unpacked(codes, dims)
        assert int(np.abs(values).max()) == 7  # each row's largest component is ±7
        approx = (values.astype(np.float32) * scales[:, None]) @ probes.T
        assert float(np.abs(approx - vectors @ probes.T).max()) < 0.08


def test_candidates_rescored_exactly_find_the_exact_top_ten() -> None:
    """The codes' top candidates, rescored from the stored vectors, are the exact top 10."""
    chunks = wiki(200)
    index = DenseIndex.build(chunks)
    by_key = {(r.slug, r.ordinal): r for r in chunks}
    for probe in unit_rows(10, 4):
        found = index.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=50)
        hits = rescored(probe, {k: by_key[k] for k, _ in found}, embedder=EMBEDDER, limit=10)
        assert [(h.slug, h.ordinal) for h in hits] == exact_top(chunks, probe, 10)
        best = by_key[(hits[0].slug, hits[0].ordinal)]
        assert hits[0].cosine == float(np.asarray(best.vector) @ probe)  # exact, not the code's


def test_a_written_page_replaces_its_rows_as_a_fresh_build_would() -> None:
    """Rewriting and archiving pages through ``with_pages`` ranks as an index built anew."""
    chunks = wiki(30)
    index = DenseIndex.build(chunks)
    rewritten = rows("p003", unit_rows(2, 9))
    index = index.with_pages({"p003", "p010"}, rewritten)  # p010 archived: no rows
    current = [r for r in chunks if r.slug not in {"p003", "p010"}] + rewritten
    fresh = DenseIndex.build(current)
    assert len(index) == len(fresh) == len(current)
    for probe in unit_rows(5, 5):
        ours = index.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=20)
        theirs = fresh.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=20)
        assert [k for k, _ in ours] == [k for k, _ in theirs]
        assert not {k[0] for k, _ in ours} & {"p010"}


def test_filters_and_another_embedder_leave_rows_out() -> None:
    """A filter keeps only its pages' rows; a question of another embedder finds none."""
    chunks = wiki(10) + rows("solo", unit_rows(3, 7), page_type="reference", tags=("api",))
    index = DenseIndex.build(chunks)
    probe = unit_rows(1, 8)[0]
    found = index.candidates(probe, embedder=EMBEDDER, filters=SearchFilter(tag="api"), limit=10)
    assert {k[0] for k, _ in found} == {"solo"}
    typed = SearchFilter(page_type="reference")
    assert len(index.candidates(probe, embedder=EMBEDDER, filters=typed, limit=10)) == 3
    assert index.candidates(probe, embedder="other@64", filters=EVERYTHING, limit=10) == []


def test_many_writes_pack_the_blocks_and_keep_the_ranking() -> None:
    """Past the block limit the rows are packed into one block, ranking unchanged."""
    chunks = wiki(40)
    index = DenseIndex.build(chunks)
    current = {r.slug: [r] for r in chunks if r.ordinal == 0}
    for n in range(40):
        slug = f"p{n:03d}"
        fresh = rows(slug, unit_rows(2, 100 + n))
        index = index.with_pages({slug}, fresh)
        current[slug] = fresh
    assert all(len(blocks) <= 17 for blocks in index.blocks.values())
    flat = [r for group in current.values() for r in group]
    probe = unit_rows(1, 11)[0]
    found = index.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10)
    fresh_found = DenseIndex.build(flat).candidates(
        probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10
    )
    assert [k for k, _ in found] == [k for k, _ in fresh_found]


def test_the_snapshot_carries_the_dense_side_or_reads_as_lexical_only() -> None:
    """encode/decode_all round-trips the codes; a payload without them is lexical only."""
    chunks = wiki(20)
    lexical, dense = LexicalIndex(chunks), DenseIndex.build(chunks)
    decoded = snapshot.decode_all(snapshot.encode(lexical, dense))
    assert decoded is not None
    assert decoded.dense is not None
    probe = unit_rows(1, 12)[0]
    before = dense.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=15)
    after = decoded.dense.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=15)
    assert before == after
    lexical_only = snapshot.decode_all(snapshot.encode(lexical))
    assert lexical_only is not None
    assert lexical_only.dense is None


def test_a_damaged_dense_side_reads_as_no_snapshot() -> None:
    """Codes naming a page the table lacks, or of another length, make the payload unreadable
    (a full read follows), never a search over rows that do not exist."""
    import io

    chunks = wiki(5)
    payload = snapshot.encode(LexicalIndex(chunks), DenseIndex.build(chunks))
    assert snapshot.decode_all(payload) is not None
    for name, damage in (
        ("dense0_page", lambda a: a + 1000),
        ("dense0_scales", lambda a: a[:-1]),
    ):
        with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
            members = {k: arrays[k] for k in arrays.files}
        members[name] = damage(members[name])
        out = io.BytesIO()
        np.savez_compressed(out, **members)
        assert snapshot.decode_all(out.getvalue()) is None, name


def test_a_vector_of_another_size_under_the_same_name_is_left_out() -> None:
    """A stray row whose vector has another size is not indexed (the build does not fail)."""
    chunks = wiki(3)
    stray = rows("a-raro", unit_rows(1, 13)[:, :32])  # sorted first
    index = DenseIndex.build(chunks + stray)
    assert len(index) == len(chunks)
    probe = unit_rows(1, 14)[0]
    found = index.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=50)
    assert "a-raro" not in {k[0] for k, _ in found}


def test_a_snapshot_of_int8_codes_is_read_as_four_bit_codes() -> None:
    """A format-6 payload (int8 codes, stored before the 4-bit ones) still serves: its codes
    are re-coded on reading and shortlist as the same vectors coded afresh would."""
    import io
    import json

    chunks = wiki(20)
    payload = snapshot.encode(LexicalIndex(chunks), DenseIndex.build(chunks))
    with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
        members = {k: arrays[k] for k in arrays.files}
    meta = json.loads(members["meta"].tobytes())
    meta["format"] = 6
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    vectors = np.stack([np.asarray(r.vector, dtype=np.float32) for r in chunks])
    scales = np.abs(vectors).max(axis=1) / 127
    members["dense0_codes"] = np.rint(vectors / scales[:, None]).astype(np.int8)
    members["dense0_scales"] = scales.astype(np.float32)
    out = io.BytesIO()
    np.savez_compressed(out, **members)
    decoded = snapshot.decode_all(out.getvalue())
    assert decoded is not None
    assert decoded.dense is not None
    (block,) = decoded.dense.blocks[EMBEDDER]
    assert block.codes.dtype == np.uint8
    assert block.codes.shape == (len(chunks), DIM // 2)
    probe = unit_rows(1, 15)[0]
    fresh = DenseIndex.build(chunks).candidates(
        probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10
    )
    recoded = decoded.dense.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10)
    assert {k for k, _ in recoded} == {k for k, _ in fresh}


def test_a_vector_longer_than_a_code_is_shortlisted_on_its_first_dimensions() -> None:
    """Past ``CODE_DIMS`` a code keeps the first dimensions only (its bytes do not grow with
    the model), and the exact rescoring over the whole vectors still finds the exact top 10."""
    from shared.retrieval import dense

    long = np.random.default_rng(16).normal(size=(300, dense.CODE_DIMS + 256))
    long = (long / np.linalg.norm(long, axis=1, keepdims=True)).astype(np.float32)
    chunks = [
        IndexedChunk(
            slug=f"p{i:03d}",
            ordinal=0,
            title="t",
            heading="h",
            text="x",
            page_type="guide",
            category=None,
            tags=(),
            embedder="test:long@768",
            vector=v,
        )
        for i, v in enumerate(long)
    ]
    index = DenseIndex.build(chunks)
    (block,) = index.blocks["test:long@768"]
    assert block.codes.shape == (300, dense.CODE_DIMS // 2)
    by_key = {(r.slug, r.ordinal): r for r in chunks}
    # Probes near stored vectors: a prefix shortlists them, the rest of the vector decides.
    for n in (3, 150, 299):
        probe = long[n] + 0.02 * np.random.default_rng(n).normal(size=long.shape[1])
        probe = (probe / np.linalg.norm(probe)).astype(np.float32)
        found = index.candidates(probe, embedder="test:long@768", filters=EVERYTHING, limit=50)
        hits = rescored(probe, {k: by_key[k] for k, _ in found}, embedder="test:long@768", limit=1)
        assert (hits[0].slug, hits[0].ordinal) == (f"p{n:03d}", 0)


def test_the_stored_codes_are_read_where_they_lie_in_the_payload() -> None:
    """The codes go uncompressed and decode as a view into the payload (no second copy of
    the largest part while a cold instance decodes), ranking as before."""
    chunks = wiki(30)
    dense = DenseIndex.build(chunks)
    payload = snapshot.encode(LexicalIndex(chunks), dense)
    decoded = snapshot.decode_all(payload)
    assert decoded is not None
    assert decoded.dense is not None
    (block,) = decoded.dense.blocks[EMBEDDER]
    assert np.shares_memory(block.codes, np.frombuffer(payload, dtype=np.uint8))
    probe = unit_rows(1, 17)[0]
    assert decoded.dense.candidates(
        probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10
    ) == dense.candidates(probe, embedder=EMBEDDER, filters=EVERYTHING, limit=10)
