"""Which retrieved chunks an answer may cite, and how strong that evidence is (pure).

The relevance gate keeps a chunk whose fused score or cosine alone is high enough.
Evidence is "low" when nothing passes or the best fused score is under HEDGE_BELOW.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from shared.retrieval.fusion import Ranked

# A chunk is relevant when its fused score or its cosine alone reaches these
# (bench/README.md: measured on answerable and off-topic questions).
MIN_FUSED = 0.24
MIN_COSINE = 0.30
# Under this best fused score the wiki does not seem to treat the question directly: the
# answer says so before giving the closest it has (chosen in bench/answers.py).
HEDGE_BELOW = 0.30

Confidence = Literal["high", "low"]


def relevant(chunk: Ranked) -> bool:
    """Whether a retrieved chunk is worth citing at all."""
    return chunk.fused >= MIN_FUSED or (chunk.dense_found and chunk.cosine >= MIN_COSINE)


def cited(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The chunks of ``ranked`` that pass the relevance gate, in order."""
    return [r for r in ranked if relevant(r)]


def best_fused(ranked: Sequence[Ranked]) -> float:
    """The best fused score among the chunks considered: how well the wiki matches at all."""
    return max((r.fused for r in ranked), default=0.0)


def confidence(ranked: Sequence[Ranked], chosen: Sequence[Ranked]) -> Confidence:
    """``low`` when nothing is cited or the best match is weak, else ``high``."""
    return "high" if chosen and best_fused(ranked) >= HEDGE_BELOW else "low"
