"""Gaps, the pure part: which hits are signals, grouping by vectors, closing, --since."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from shared.loop.gap_groups import (
    Answered,
    Gap,
    Signal,
    answered_of,
    closure,
    group,
    rank,
    signal_of,
)

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_refused_low_and_weak_answers_are_signals_confident_ones_are_not() -> None:
    """No source: refused; confidence low; a weak best score; tutor mode never counts."""
    base = {"question": "¿cómo subo un archivo?", "mode": "help", "best_fused": 0.9}
    assert signal_of({**base, "slugs": []}, T0).why == "refused"
    low = {**base, "slugs": ["a"], "confidence": "low"}
    assert signal_of(low, T0).why == "low_confidence"
    weak = {**base, "slugs": ["a"], "confidence": "high", "best_fused": 0.35}
    assert signal_of(weak, T0).why == "weak_score"
    good = {**base, "slugs": ["a"], "confidence": "high"}
    assert signal_of(good, T0) is None
    assert answered_of(good, T0) == Answered(base["question"], T0, ("a",))
    assert signal_of({**base, "slugs": [], "mode": "tutor"}, T0) is None


def test_close_vectors_share_a_group_in_order() -> None:
    """Greedy by centroid: near vectors join, a far one starts its own group."""
    vectors = [unit(1, 0, 0), unit(0, 1, 0), unit(0.95, 0.1, 0), unit(0, 0, 1)]
    assert group(vectors, 0.6) == [[0, 2], [1], [3]]


def test_gaps_rank_by_count_then_recency() -> None:
    """Most asked first; equal counts, the most recent first."""
    old = Gap([Signal("a", T0, "refused"), Signal("a2", T0, "refused")])
    one_new = Gap([Signal("b", T0 + timedelta(hours=2), "refused")])
    one_old = Gap([Signal("c", T0 + timedelta(hours=1), "refused")])
    assert rank([one_old, one_new, old]) == [old, one_new, one_old]


def test_a_gap_closes_only_by_a_later_confident_answer_from_a_newer_page() -> None:
    """Same topic, after the gap, citing a page written after it opened; else open."""
    center = unit(1, 0)
    near, far = unit(0.9, 0.1), unit(0, 1)
    later = T0 + timedelta(hours=3)
    new_page = {"nueva": T0 + timedelta(hours=2), "vieja": T0 - timedelta(days=3)}
    cases = [
        (Answered("q", later, ("vieja",)), near, None),
        (Answered("q", later, ("nueva",)), far, None),
        (Answered("q", T0, ("nueva",)), near, None),
        (Answered("q", later, ("vieja", "nueva")), near, "nueva"),
    ]
    for hit, vector, expected in cases:
        done = closure(center, T0, T0 + timedelta(hours=1), [(hit, vector)], new_page)
        assert (done.slug if done else None) == expected
