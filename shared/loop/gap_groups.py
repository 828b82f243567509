"""Gaps, the pure part: which asked questions the wiki answered badly, grouped by meaning.

A signal is a help-mode question that was refused (no source), answered with low
confidence, or whose best score was weak, or a ``down`` vote with reason ``missing``.
Signals are grouped by the cosine of their question vectors (the embedder is
multilingual, so "¿cómo subo un archivo?" and "how do I upload a file?" meet); a group
is a gap, ranked by count then recency. A gap is closed when, after it was last seen, a
question close to it got a confident answer citing a page written after it opened.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypedDict

import numpy as np

from shared.records import FeedbackRecord, Vector

Why = Literal["refused", "low_confidence", "weak_score", "feedback_missing"]
WEAK_BELOW = 0.40  # a best fused score under this is weak even when the answer was given
# Question vectors at least this close to a group's centroid join it. Measured with the
# local embedder: an ES/EN paraphrase scores 0.68-0.85, unrelated questions under 0.45;
# near topics (upload and download a file, 0.84) may share a group: samples show it.
SAME_GAP = 0.60
SAMPLES = 5
TOP_PAGES = 5


@dataclass(frozen=True, slots=True)
class Signal:
    """One question the wiki did not answer well."""

    question: str
    at: datetime
    why: Why
    slugs: tuple[str, ...] = ()  # the pages it reached


@dataclass(frozen=True, slots=True)
class Answered:
    """A confident answer: what may close a gap."""

    question: str
    at: datetime
    slugs: tuple[str, ...]


def signal_of(hit: Mapping[str, Any], at: datetime) -> Signal | None:
    """The gap signal in a utility hit, or None when it was answered well."""
    if hit.get("mode", "help") != "help":
        return None
    question = str(hit.get("question") or "").strip()
    if not question:
        return None
    slugs = tuple(str(s) for s in hit.get("slugs") or ())
    why: Why | None = None
    if not slugs:
        why = "refused"
    elif hit.get("confidence") == "low":
        why = "low_confidence"
    elif float(hit.get("best_fused", 1.0)) < WEAK_BELOW:
        why = "weak_score"
    return None if why is None else Signal(question, at, why, slugs)


def signal_of_feedback(item: FeedbackRecord) -> Signal | None:
    """A 👎 with reason ``missing`` is a gap signal: its question (the trace's when the
    vote is on an answer) and the pages that answer cited, or the page it reports."""
    if item.rating != "down" or item.reason != "missing":
        return None
    question = (item.trace.question if item.trace else item.question or "").strip()
    if not question:
        return None
    if item.trace is not None:
        slugs = tuple(s.slug for s in item.trace.sources)
    else:
        slugs = (item.slug,) if item.slug else ()
    return Signal(question, item.at, "feedback_missing", slugs)


def answered_of(hit: Mapping[str, Any], at: datetime) -> Answered | None:
    slugs = tuple(str(s) for s in hit.get("slugs") or ())
    if hit.get("mode", "help") != "help" or hit.get("confidence") != "high" or not slugs:
        return None
    return Answered(str(hit.get("question") or ""), at, slugs)


def pack_vector(vector: Vector) -> str:
    """A question's vector as kept in its utility hit: float16, base64 (1.4 KB for 512
    dimensions; grouping by cosine needs no more precision)."""
    return base64.b64encode(np.asarray(vector, dtype="<f2").tobytes()).decode("ascii")


def unpack_vector(hit: Mapping[str, Any], embedder: str) -> Vector | None:
    """The vector a hit kept, if the same embedder made it and it is whole, else None."""
    text = hit.get("vector")
    if hit.get("embedder") != embedder or not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw or len(raw) % 2:
        return None
    vector = np.frombuffer(raw, dtype="<f2").astype(np.float32)
    return vector if bool(np.isfinite(vector).all()) else None


def group(vectors: Sequence[Vector], threshold: float = SAME_GAP) -> list[list[int]]:
    """Indexes grouped by meaning: greedily in order (each joins the group whose centroid
    is closest if at least ``threshold``, else starts one), then groups whose centroids
    are that close merge, so the order questions came in does not split a topic."""
    groups: list[list[int]] = []
    if not len(vectors):
        return groups
    # The groups' sums as rows of one matrix: each question costs one product with it,
    # not one Python step per group (2,000 weak questions made 2 M of those steps).
    totals = np.zeros((len(vectors), len(vectors[0])), dtype=np.float32)
    norms = np.ones(len(vectors), dtype=np.float32)
    for i, vector in enumerate(vectors):
        best = -1
        if groups:
            cos = totals[: len(groups)] @ vector / norms[: len(groups)]
            # the last of the best, as the loop this replaced chose among equals
            top = float(cos.max())
            if top >= threshold:
                best = int(np.flatnonzero(cos == top)[-1])
        if best < 0:
            best = len(groups)
            groups.append([i])
        else:
            groups[best].append(i)
        totals[best] += vector
        norms[best] = float(np.linalg.norm(totals[best])) or 1.0
    sums: list[Vector] = [totals[g].copy() for g in range(len(groups))]
    while len(groups) > 1:
        units = np.stack([t / (float(np.linalg.norm(t)) or 1.0) for t in sums])
        similar = units @ units.T
        np.fill_diagonal(similar, -1.0)
        a, b = divmod(int(np.argmax(similar)), len(groups))
        if similar[a, b] < threshold:
            break
        a, b = min(a, b), max(a, b)
        groups[a] = sorted(groups[a] + groups.pop(b))
        sums[a] = sums[a] + sums.pop(b)
    return groups


def centroid(vectors: Sequence[Vector]) -> Vector:
    total = np.sum(np.stack(vectors), axis=0).astype(np.float32)
    norm = float(np.linalg.norm(total)) or 1.0
    unit: Vector = (total / norm).astype(np.float32)
    return unit


@dataclass(frozen=True, slots=True)
class Closure:
    """How a gap closed: a question like its own answered confidently from a new page."""

    at: datetime
    question: str
    slug: str
    written_at: datetime

    def body(self) -> ClosedJson:
        return {
            "at": self.at.isoformat(),
            "question": self.question,
            "slug": self.slug,
            "page_written_at": self.written_at.isoformat(),
        }


class PageCount(TypedDict):
    """A page the gap's questions reached, and how many of them did."""

    slug: str
    count: int


class ClosedJson(TypedDict):
    """What closed a gap: a later well-answered question, or the page written since."""

    at: str
    question: str
    slug: str
    page_written_at: str


class GapJson(TypedDict):
    id: str
    count: int
    first_seen: str
    last_seen: str
    samples: list[str]
    pages: list[PageCount]
    why: dict[str, int]
    status: str
    closed: ClosedJson | None


@dataclass(frozen=True)
class Gap:
    """Questions about one thing the wiki did not answer well."""

    signals: list[Signal]
    closed: Closure | None = None

    @property
    def id(self) -> str:
        first = min(self.signals, key=lambda s: s.at)
        return hashlib.sha256(first.question.encode()).hexdigest()[:10]

    @property
    def count(self) -> int:
        return len(self.signals)

    @property
    def first_seen(self) -> datetime:
        return min(s.at for s in self.signals)

    @property
    def last_seen(self) -> datetime:
        return max(s.at for s in self.signals)

    def samples(self) -> list[str]:
        """Distinct questions, most recent first."""
        seen: dict[str, None] = {}
        for s in sorted(self.signals, key=lambda s: s.at, reverse=True):
            seen.setdefault(s.question, None)
        return list(seen)[:SAMPLES]

    def pages(self) -> list[PageCount]:
        reached = Counter(slug for s in self.signals for slug in s.slugs)
        return [{"slug": slug, "count": n} for slug, n in reached.most_common(TOP_PAGES)]

    def body(self) -> GapJson:
        return {
            "id": self.id,
            "count": self.count,
            "first_seen": self.first_seen.isoformat(),
            "last_seen": self.last_seen.isoformat(),
            "samples": self.samples(),
            "pages": self.pages(),
            "why": dict(Counter(s.why for s in self.signals).most_common()),
            "status": "closed" if self.closed else "open",
            "closed": self.closed.body() if self.closed else None,
        }


def rank(gaps: Sequence[Gap]) -> list[Gap]:
    """Most asked first, then most recent."""
    return sorted(gaps, key=lambda g: (-g.count, -g.last_seen.timestamp(), g.id))


def closure(
    gap_centroid: Vector,
    opened: datetime,
    last_seen: datetime,
    answered: Sequence[tuple[Answered, Vector]],
    written: Mapping[str, datetime],
    threshold: float = SAME_GAP,
) -> Closure | None:
    """The first confident answer after ``last_seen`` to a question like the gap's,
    citing a page written after the gap ``opened``."""
    for hit, vector in sorted(answered, key=lambda a: a[0].at):
        if hit.at <= last_seen or float(np.dot(gap_centroid, vector)) < threshold:
            continue
        for slug in hit.slugs:
            when = written.get(slug)
            if when is not None and when > opened:
                return Closure(at=hit.at, question=hit.question, slug=slug, written_at=when)
    return None
