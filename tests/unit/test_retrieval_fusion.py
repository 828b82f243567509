"""Score fusion: the dense-weighted mix and RRF (pure)."""

from __future__ import annotations

from shared.ports import ChunkHit, IndexedChunk
from shared.retrieval.fusion import mix, rrf
from shared.retrieval.lexical import LexicalHit


def hit(slug: str, score: float) -> ChunkHit:
    return ChunkHit(slug=slug, title=slug, heading="", text="t", ordinal=0, score=score)


def row(slug: str) -> IndexedChunk:
    return IndexedChunk(slug, 0, slug, "", "t", "guide", None, ())


DENSE = [hit("a", 0.6), hit("b", 0.5), hit("c", 0.3)]
LEXICAL = [LexicalHit(("c", 0), 9.0, 0.9), LexicalHit(("d", 0), 5.0, 0.5)]
ROWS = {("c", 0): row("c"), ("d", 0): row("d")}


def test_mix_is_the_weighted_sum_on_a_common_scale() -> None:
    """score = w*cosine + (1-w)*coverage; a lexical-only chunk gets the dense floor."""
    ranked = {r.slug: r for r in mix(DENSE, LEXICAL, ROWS, dense_weight=0.6)}
    assert abs(ranked["c"].score - (0.6 * 0.3 + 0.4 * 0.9)) < 1e-9
    assert abs(ranked["a"].score - 0.36) < 1e-9
    assert abs(ranked["d"].score - (0.6 * 0.3 + 0.4 * 0.5)) < 1e-9
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
    assert ranked[0].score == 0.0


def test_lexical_only_chunks_say_their_dense_score_is_a_bound() -> None:
    """A chunk the dense search did not return is marked, so no gate trusts its bound."""
    ranked = {r.slug: r for r in mix(DENSE, LEXICAL, ROWS)}
    assert ranked["c"].dense_found
    assert not ranked["d"].dense_found
