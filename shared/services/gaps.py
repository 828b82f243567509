"""Gaps, the I/O part: read the utility hits (and ``missing`` feedback), group, close.

``find_gaps`` reads the recent utility hits (``ask`` and the agents' ``search``), keeps
those since a moment, embeds the questions of the weak ones (and of the confident ones
that may close a gap) in one batch, and reads the pages written since the oldest gap
opened. ``down`` feedback with reason ``missing`` (from the widget, ``POST /feedback`` or
an agent's ``report_issue``) joins them, read from the feedback store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

from shared import clock
from shared.json_value import JsonValue
from shared.loop.gap_groups import (
    Answered,
    Gap,
    GapJson,
    Signal,
    answered_of,
    centroid,
    closure,
    group,
    rank,
    signal_of,
    signal_of_feedback,
    unpack_vector,
)
from shared.ports import Embedder, Store
from shared.records import Vector
from shared.services.rate_limit import Limiters

MAX_HITS = 5000  # the most recent utility hits read
MAX_SIGNALS = 2000  # the most recent signals grouped (the grouping is quadratic in them)
# The rebuild's curator report groups fewer: it runs after every write under ``serve`` and
# on every scheduled build, which anonymous questions must not slow (``biblioteca gaps``
# groups MAX_SIGNALS).
REPORT_SIGNALS = 500
REPORT_HITS = 2000  # ... read from this many recent hits (signals and answers that close)
MAX_ANSWERED = 1000  # confident answers embedded to check closures
DEFAULT_SINCE = timedelta(days=7)
# Gap signals (weak answers) one anonymous client adds to the log: at most 20 an hour. The
# report reads the REPORT_HITS most recent hits, so without a cap one client asking at the
# rate limit (30 a minute) would push everyone else's questions out of it within the hour.
SIGNALS_PER_CLIENT = (20, 3600)


def admits(hit: Mapping[str, Any], client: str | None, limits: Limiters) -> bool:
    """Whether a utility hit goes into the log: always, unless it is a gap signal of an
    anonymous ``client`` (None: a caller with credentials, or stdio) that has already
    added ``SIGNALS_PER_CLIENT`` of them this hour (counted by the process's ``limits``,
    like the rate limit). An answer that is not a signal never counts."""
    if client is None or signal_of(hit, clock.now()) is None:
        return True
    return limits.get(SIGNALS_PER_CLIENT, purpose="gap-signals").allow(client)


class WantedPage(TypedDict):
    """A page people want written: the latest question of an open gap."""

    question: str
    asked: int
    gap: str


class GapReportJson(TypedDict):
    since: str
    signals: int
    open: list[GapJson]
    closed: list[GapJson]
    wanted_pages: list[WantedPage]


@dataclass(frozen=True)
class GapReport:
    """Open gaps (most asked first), closed ones, and the pages people want written."""

    since: datetime
    open: list[Gap]
    closed: list[Gap]
    signals: int

    def wanted_pages(self) -> list[WantedPage]:
        """One wanted page per open gap: its most recent question names what to write."""
        return [{"question": g.samples()[0], "asked": g.count, "gap": g.id} for g in self.open]

    def body(self) -> GapReportJson:
        return {
            "since": self.since.isoformat(),
            "signals": self.signals,
            "open": [g.body() for g in self.open],
            "closed": [g.body() for g in self.closed],
            "wanted_pages": self.wanted_pages(),
        }


def _at(hit: Mapping[str, JsonValue]) -> datetime | None:
    try:
        at = datetime.fromisoformat(str(hit.get("at")))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def find_gaps(
    store: Store,
    embedder: Embedder,
    *,
    since: datetime,
    max_signals: int = MAX_SIGNALS,
    max_hits: int = MAX_HITS,
) -> GapReport:
    """The report: the signals since ``since`` (weak answers, refusals, ``down`` feedback),
    their vectors, and their groups, each open or closed by a later answer or page."""
    heard = _heard(store, since, max_hits)
    if not heard.signals:
        return GapReport(since=since, open=[], closed=[], signals=0)
    signals = sorted(heard.signals, key=lambda s: s.at)[-max_signals:]
    opened = signals[0].at
    answered = sorted((a for a in heard.answered if a.at > opened), key=lambda a: a.at)
    answered = answered[-MAX_ANSWERED:]
    vectors = _vectors([*signals, *answered], heard.hits, embedder)
    signal_vectors = [v for v in vectors[: len(signals)] if v is not None]
    answer_vectors = [v for v in vectors[len(signals) :] if v is not None]
    written = {r.slug: r.updated_at for r in store.pages.list(updated_since=opened)}
    open_gaps: list[Gap] = []
    closed_gaps: list[Gap] = []
    for members in group(signal_vectors):
        mine = [signals[i] for i in members]
        gap = Gap(signals=mine)
        ended = closure(
            centroid([signal_vectors[i] for i in members]),
            gap.first_seen,
            gap.last_seen,
            list(zip(answered, answer_vectors, strict=True)),
            written,
        )
        if ended is None:
            open_gaps.append(gap)
        else:
            closed_gaps.append(Gap(signals=mine, closed=ended))
    return GapReport(
        since=since, open=rank(open_gaps), closed=rank(closed_gaps), signals=len(signals)
    )


@dataclass
class _Heard:
    """What the store recorded since a date: gap signals, later well-answered questions,
    and the hit each came from (by ``id()``: where a vector may have been kept)."""

    signals: list[Signal] = field(default_factory=list)
    answered: list[Answered] = field(default_factory=list)
    hits: dict[int, Mapping[str, Any]] = field(default_factory=dict)


def _heard(store: Store, since: datetime, max_hits: int) -> _Heard:
    heard = _Heard()
    for hit in store.events.recent("utility_hit", max_hits):
        at = _at(hit)
        if at is None or at < since:
            continue
        signal = signal_of(hit, at)
        item: Signal | Answered | None = signal
        if signal is not None:
            heard.signals.append(signal)
        elif (item := answered_of(hit, at)) is not None:
            heard.answered.append(item)
        if item is not None:
            heard.hits[id(item)] = hit
    for record in store.feedback.list(since=since):
        if (reported := signal_of_feedback(record)) is not None:
            heard.signals.append(reported)
    return heard


def _vectors(
    items: Sequence[Signal | Answered], hits: Mapping[int, Mapping[str, Any]], embedder: Embedder
) -> list[Vector | None]:
    """Each item's question vector: the one its hit kept for this embedder, else embedded
    now (hits recorded before vectors were kept, ``missing`` feedback), all in one call."""
    kept: dict[int, Vector] = {}
    for each in items:
        source = hits.get(id(each))
        if source is not None and (vector := unpack_vector(source, embedder.name)) is not None:
            kept[id(each)] = vector
    unkept = [n for n, each in enumerate(items) if id(each) not in kept]
    fresh: dict[int, Vector] = {}
    if unkept:
        embedded = embedder.embed_documents([items[n].question for n in unkept])
        fresh = {n: embedded[k] for k, n in enumerate(unkept)}
    return [kept.get(id(each), fresh.get(n)) for n, each in enumerate(items)]
