"""Score fusion: the dense-weighted mix, RRF and page-level ranking (pure)."""

from __future__ import annotations

from shared.records import ChunkHit, IndexedChunk, Kind
from shared.retrieval.fusion import Ranked, by_kind, by_page, mix, rrf
from shared.retrieval.lexical import LexicalHit


def hit(slug: str, score: float) -> ChunkHit:
    return ChunkHit(slug=slug, title=slug, heading="", text="t", ordinal=0, cosine=score)


def row(slug: str) -> IndexedChunk:
    return IndexedChunk(slug, 0, slug, "", "t", "guide", None, ())


DENSE = [hit("a", 0.6), hit("b", 0.5), hit("c", 0.3)]
LEXICAL = [LexicalHit(("c", 0), 9.0, 0.9), LexicalHit(("d", 0), 5.0, 0.5)]
ROWS = {("c", 0): row("c"), ("d", 0): row("d")}


def test_mix_is_the_weighted_sum_on_a_common_scale() -> None:
    """fused = w*cosine + (1-w)*coverage; a lexical-only chunk gets the dense floor."""
    ranked = {r.slug: r for r in mix(DENSE, LEXICAL, ROWS, dense_weight=0.6)}
    assert abs(ranked["c"].fused - (0.6 * 0.3 + 0.4 * 0.9)) < 1e-9
    assert abs(ranked["a"].fused - 0.36) < 1e-9
    assert abs(ranked["d"].fused - (0.6 * 0.3 + 0.4 * 0.5)) < 1e-9
    assert mix(DENSE, LEXICAL, ROWS, dense_weight=0.6)[0].slug == "c"


def test_mix_weight_one_is_dense_order() -> None:
    """With all weight on the dense side the order is the dense order."""
    assert [r.slug for r in mix(DENSE, [], {}, dense_weight=1.0)] == ["a", "b", "c"]


def test_rrf_rewards_agreement() -> None:
    """A chunk in both lists outranks chunks in one."""
    assert rrf(DENSE, LEXICAL, ROWS)[0].slug == "c"


def test_negative_cosines_are_clamped() -> None:
    """Scores stay within 0..1."""
    ranked = mix([hit("x", -0.4)], [], {})
    assert ranked[0].fused == 0.0


def test_lexical_only_chunks_say_their_dense_score_is_a_bound() -> None:
    """A chunk the dense search did not return is marked, so no gate trusts its bound."""
    ranked = {r.slug: r for r in mix(DENSE, LEXICAL, ROWS)}
    assert ranked["c"].dense_found
    assert not ranked["d"].dense_found


def ranked(slug: str, ordinal: int, score: float) -> Ranked:
    return Ranked(slug, slug, "", "t", ordinal, score, score, 0.0)


def test_by_page_lets_a_page_with_more_evidence_win() -> None:
    """A page matching in several chunks outranks a sibling whose one chunk scores a bit higher."""
    chunks = [ranked("sibling", 0, 0.50), ranked("page", 0, 0.45), ranked("page", 1, 0.40)]
    order = by_page(chunks, decay=0.5, depth=4)
    assert [(r.slug, r.ordinal) for r in order] == [("page", 0), ("sibling", 0), ("page", 1)]
    assert order[2].ranking == order[2].fused  # only the page's lead chunk is lifted
    assert abs(order[0].ranking - (0.45 + 0.5 * 0.40)) < 1e-9


def test_by_page_keeps_each_chunks_own_score() -> None:
    """``fused`` stays each chunk's own score: the relevance gate reads it unchanged."""
    chunks = [ranked("a", 0, 0.3), ranked("a", 1, 0.2), ranked("b", 0, 0.25)]
    assert sorted(r.fused for r in by_page(chunks)) == [0.2, 0.25, 0.3]


def test_by_page_counts_only_depth_chunks_with_decaying_weights() -> None:
    """The support is decay·2nd + decay²·3rd + … up to ``depth`` chunks of the page."""
    chunks = [ranked("a", i, s) for i, s in enumerate((0.8, 0.4, 0.4, 0.4, 0.4))]
    support = by_page(chunks, decay=0.5, depth=3)[0].support
    assert abs(support - (0.5 * 0.4 + 0.25 * 0.4)) < 1e-9


def test_by_page_with_no_decay_is_the_chunk_order() -> None:
    """With decay 0 the order is the fused order: pages rank by their best chunk."""
    chunks = mix(DENSE, LEXICAL, ROWS)
    assert [r.slug for r in by_page(chunks, decay=0.0)] == [r.slug for r in chunks]


def test_reported_relevance_follows_the_page_order_on_0_to_1() -> None:
    """A well-supported page leads a higher single chunk; what ask reports still descends."""
    from shared.services.ask import numbered

    order = by_page(
        [ranked("b", 0, 0.55), ranked("a", 0, 0.5), ranked("a", 1, 0.45), ranked("a", 2, 0.4)]
    )
    assert [r.slug for r in order][:1] == ["a"]
    scores = [p.relevance for p in numbered(order)]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)


def test_a_page_of_the_kind_the_question_wants_moves_up_and_its_score_gate_does_not() -> None:
    """by_kind ranks a wanted kind's page higher and an unwanted one lower, by a share of
    its ranking; each chunk carries its page's kind and keeps its own fused score."""
    reference = Ranked("api—app", "App", "App", "t", 0, 0.50, 0.5, 0.5)
    guide = Ranked("guide—app", "App", "Uso", "t", 0, 0.47, 0.5, 0.5)
    kinds: dict[str, Kind] = {"api—app": "reference", "guide—app": "guide"}

    def kind_of(r: Ranked) -> Kind:
        return kinds[r.slug]

    def how_to(kind: Kind) -> int:
        return {"reference": -1, "guide": 1}.get(kind, 0)

    out = by_kind([reference, guide], kind_of, how_to, weight=0.1)
    assert [r.slug for r in out] == ["guide—app", "api—app"]
    assert [r.kind for r in out] == ["guide", "reference"]
    assert [r.fused for r in out] == [0.47, 0.50]
    same = by_kind([reference, guide], kind_of, lambda kind: 0, weight=0.1)
    assert [r.slug for r in same] == ["api—app", "guide—app"]
