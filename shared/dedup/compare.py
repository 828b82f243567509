"""Whether two page signatures are duplicates, and of which kind (pure).

- ``copy``: the same page, lightly edited or reworded — most of their shingles agree
  (text), or their meanings are nearly one (a paraphrase: sentences reworded, reordered).
- ``overlap``: not the same page, but a section of one restates a section of the other.
- ``translation``: two languages, one meaning (the multilingual embedder's vectors cross
  languages; shingles cannot).
- ``conflict``: both state a value for one code reference, and the values differ.

Neighbouring pages of one section share vocabulary and topic: they are the negatives the
thresholds are tuned against (``bench/duplicates.py`` measures them). ``Signals`` turns
either signal off, so the bench can measure each alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from shared.dedup.signature import Section, Signature, similarity

Kind = Literal["copy", "overlap", "translation", "conflict"]
KINDS: tuple[Kind, ...] = ("copy", "overlap", "translation", "conflict")
Signal = Literal["text", "meaning"]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where each kind starts (MinHash similarity or cosine of the page vectors)."""

    copy_text: float = 0.45  # shingles shared by a copy with small edits
    copy_meaning: float = 0.95  # cosine of a paraphrase; same-section neighbours sit below
    copy_meaning_text: float = 0.10  # ... which still shares some phrases, or
    copy_meaning_alone: float = 0.985  # one meaning, reworded so no phrase is left
    copy_length: float = 0.70  # a copy is at least this share of its original's length
    overlap_text: float = 0.55  # one section restating another
    overlap_words: int = 40  # words a restated passage holds; fewer: a phrase, boilerplate
    translation: float = 0.82  # cosine across languages
    related: float = 0.55  # a conflict needs pages about one thing (cosine), or shared text


@dataclass(frozen=True, slots=True)
class Passage:
    slug: str
    heading: str
    text: str


@dataclass(frozen=True, slots=True)
class Finding:
    """A duplicate pair, ``a`` < ``b`` by slug; ``score`` in 0..1 is how sure it is."""

    kind: Kind
    score: float
    a: str
    b: str
    passages: tuple[Passage, ...]

    @property
    def pair(self) -> tuple[str, str]:
        return (self.a, self.b)


BOTH: frozenset[Signal] = frozenset({"text", "meaning"})


def cosine(x: Signature, y: Signature) -> float | None:
    if x.vector is None or y.vector is None or x.vector.shape != y.vector.shape:
        return None
    return float(np.dot(x.vector, y.vector))


def compare(
    x: Signature,
    y: Signature,
    *,
    thresholds: Thresholds | None = None,
    signals: frozenset[Signal] = BOTH,
) -> list[Finding]:
    """The findings of one pair (none, one of copy/overlap/translation, and/or a conflict)."""
    t = thresholds or Thresholds()
    a, b = (x, y) if x.slug < y.slug else (y, x)
    text = "text" in signals
    cos = cosine(a, b) if "meaning" in signals else None
    jaccard = similarity(a.minhash, b.minhash)
    out: list[Finding] = []
    whole = (Passage(a.slug, a.title, a.opening), Passage(b.slug, b.title, b.opening))
    best = _best_sections(a, b) if text and a.lang == b.lang else None
    section = best[0] if best is not None else 0.0
    alike = _alike_in_length(a, b, t)
    if a.lang != b.lang:
        if cos is not None and cos >= t.translation:
            out.append(Finding("translation", round(cos, 3), a.slug, b.slug, whole))
    elif text and jaccard >= t.copy_text and alike:
        out.append(Finding("copy", round(jaccard, 3), a.slug, b.slug, whole))
    elif cos is not None and alike and _one_meaning(cos, text, jaccard, section, t):
        out.append(Finding("copy", round(cos, 3), a.slug, b.slug, whole))
    elif best is not None and section >= t.overlap_text and _shared_words(best) >= t.overlap_words:
        score, sa, sb = best
        out.append(
            Finding(
                "overlap",
                round(score, 3),
                a.slug,
                b.slug,
                (Passage(a.slug, sa.heading, sa.text), Passage(b.slug, sb.heading, sb.text)),
            )
        )
    conflict = _conflict(a, b, cos, jaccard, t)
    if conflict is not None:
        out.append(conflict)
    return out


def _one_meaning(cos: float, text: bool, jaccard: float, section: float, t: Thresholds) -> bool:
    """A meaning match is a copy when the pages also share text (some phrases across the
    page, or one section kept whole: a page reworded around a section it kept is the
    same page reworded), or when their meanings are one (a rewording that kept no
    phrase; neighbouring pages of one section never come that close)."""
    if cos >= t.copy_meaning_alone:
        return True
    shares = not text or jaccard >= t.copy_meaning_text or section >= t.overlap_text
    return cos >= t.copy_meaning and shares


def _alike_in_length(a: Signature, b: Signature, t: Thresholds) -> bool:
    """A copy is the same page: the shorter at least ``copy_length`` of the longer. A
    short page pasted whole into a long one, or one section of it, is an overlap."""
    return min(a.words, b.words) >= t.copy_length * max(a.words, b.words)


def _shared_words(best: tuple[float, Section, Section]) -> float:
    """About how many words two sections share: their shingle sets' Jaccard ``j`` makes
    the shared part ``j / (1 + j)`` of both together."""
    j, x, y = best
    return j / (1 + j) * (x.words + y.words)


def _best_sections(a: Signature, b: Signature) -> tuple[float, Section, Section] | None:
    """The most similar section pair (the first in order on a tie), every pair compared
    at once: agreeing MinHash values counted over an (a × b × PERMUTATIONS) array."""
    if not a.sections or not b.sections:
        return None
    agree = (a.section_matrix[:, None, :] == b.section_matrix[None, :, :]).sum(axis=2)
    i, j = divmod(int(np.argmax(agree)), agree.shape[1])
    return float(agree[i, j]) / a.section_matrix.shape[1], a.sections[i], b.sections[j]


def _conflict(
    a: Signature, b: Signature, cos: float | None, jaccard: float, t: Thresholds
) -> Finding | None:
    """Both pages give one reference values, and no value of one is the other's."""
    related = (cos is not None and cos >= t.related) or jaccard >= t.copy_meaning_text
    if not related:
        return None
    for ref in sorted(set(a.claims) & set(b.claims)):
        va, vb = a.claims[ref], b.claims[ref]
        if not set(va) & set(vb):
            return Finding(
                "conflict",
                round(max(cos or 0.0, jaccard), 3),
                a.slug,
                b.slug,
                (
                    Passage(a.slug, ref, f"{ref} = {', '.join(va)}"),
                    Passage(b.slug, ref, f"{ref} = {', '.join(vb)}"),
                ),
            )
    return None
