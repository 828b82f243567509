"""Which retrieved chunks an answer may cite, with the rest of their section, and how
strong that evidence is: "low" when nothing passes the gate or the best match is weak (pure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from shared.ports import Confidence
from shared.retrieval.fusion import Ranked

# A chunk is relevant when its fused score or its cosine alone reaches these
# (bench/README.md: measured on answerable and off-topic questions).
MIN_FUSED = 0.24
MIN_COSINE = 0.30
# A cited chunk runs on into the next chunks of its section up to this length, so a chunk
# cut before its code or the rest of its list still carries them (bench/answers.py).
SECTION_CHARS = 1200
# Under this best fused score the wiki does not seem to treat the question directly: the
# answer says so before giving the closest it has (chosen in bench/answers.py).
HEDGE_BELOW = 0.30


class Section(Protocol):
    """A chunk as a passage runs on into it: its heading and its text."""

    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...


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


def section_text(
    chunk: Ranked, rows: Mapping[tuple[str, int], Section], cited: Sequence[Ranked]
) -> str:
    """The chunk's text run on into the following chunks of its section that are not
    cited themselves, up to SECTION_CHARS; the overlap chunking carried over is dropped."""
    text = chunk.text
    taken = {(c.slug, c.ordinal) for c in cited}
    ordinal = chunk.ordinal + 1
    while (chunk.slug, ordinal) not in taken and len(text) < SECTION_CHARS:
        following = rows.get((chunk.slug, ordinal))
        if following is None or following.heading != chunk.heading:
            break
        head, _, rest = following.text.partition("\n\n")
        added = rest if rest and text.rstrip().endswith(head.strip()) else following.text
        if len(text) + len(added) > SECTION_CHARS:
            break
        text = f"{text}\n\n{added}"
        ordinal += 1
    return text
