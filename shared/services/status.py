"""``biblioteca status``: the state of the library at a glance, for the curator.

Which store, pages by status and how many are stale, the last rebuild and how it ended
(a failed one is the first thing said), what waits for review (drafts and agents'
proposals), the last import (a docs-as-code sync), the feedback waiting from the last
week and the open gaps. Each part is read
on its own: one that cannot be read says so instead of hiding the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import NotRequired, TypedDict, TypeVar, final

from shared import clock
from shared.config import Settings
from shared.json_value import JsonObject
from shared.logs import get_logger
from shared.ports import Embedder, Store
from shared.services import review
from shared.services.gaps import DEFAULT_SINCE, find_gaps
from shared.services.review_views import ProposalRow
from shared.site.manifest import Manifest

FEEDBACK_WINDOW = timedelta(days=7)
_log = get_logger("status")


@final
class Unreadable(TypedDict):
    """A part of the status that could not be read, and why. (The parts are ``final``:
    ``"error" in part`` tells them apart.)"""

    error: str


class StoreLine(TypedDict):
    kind: str
    where: str


@final
class PagesPart(TypedDict):
    total: int
    by_status: dict[str, int]
    stale: list[str]


class Published(TypedDict):
    build_id: str
    built_at: str


@final
class RebuildPart(TypedDict):
    last: JsonObject | None  # the last ``rebuild_outcome`` event, as recorded
    published: Published | None
    failed: bool


@final
class ReviewPart(TypedDict):
    drafts: int
    proposals: list[ProposalRow]


@final
class SyncPart(TypedDict):
    last: JsonObject | None  # the last ``import_outcome`` event, as recorded


class DeadLetter(TypedDict):
    slug: str
    version: int
    attempts: int
    error: str


@final
class EnrichPart(TypedDict):
    mode: str
    dead_letters: int
    recent_dead: list[DeadLetter]


@final
class GapsPart(TypedDict):
    days: int
    open: int
    closed: int


@final
class FeedbackPart(TypedDict):
    days: int
    count: int
    down: int
    up: int


class Status(TypedDict):
    """``biblioteca status --json``: each part, or why it could not be read."""

    store: StoreLine
    pages: PagesPart | Unreadable
    rebuild: RebuildPart | Unreadable
    review: ReviewPart | Unreadable
    sync: SyncPart | Unreadable
    feedback: FeedbackPart | Unreadable
    enrich: EnrichPart | Unreadable
    gaps: NotRequired[GapsPart | Unreadable]  # only with an embedder


Part = TypeVar("Part")


def store_line(settings: Settings) -> StoreLine:
    if settings.store == "firestore":
        return {"kind": "firestore", "where": f"project {settings.google_cloud_project}"}
    return {"kind": "sqlite", "where": str(settings.data_dir)}


def status(
    settings: Settings,
    store: Store,
    embedder: Embedder | None = None,
    now: datetime | None = None,
) -> Status:
    """Every part of the status; a part that could not be read has ``error``. Open gaps
    need the embedder (they group questions by meaning): without one they are left out."""
    moment = now or clock.now()
    state: Status = {
        "store": store_line(settings),
        "pages": _part(lambda: _pages(store)),
        "rebuild": _part(lambda: _rebuild(store)),
        "review": _part(lambda: _review(store)),
        "sync": _part(lambda: _sync(store)),
        "feedback": _part(lambda: _feedback(store, moment)),
        "enrich": _part(lambda: _enrich(settings, store)),
    }
    if embedder is not None:
        state["gaps"] = _part(lambda: _gaps(store, embedder, moment))
    return state


def _enrich(settings: Settings, store: Store) -> EnrichPart:
    """The enrichment queue: its mode, and the changes set aside after 5 failures."""
    ledger = store.enrichment
    dead = ledger.dead(limit=5)
    return {
        "mode": settings.enrich,
        "dead_letters": ledger.dead_count(),
        "recent_dead": [
            {"slug": f.slug, "version": f.version, "attempts": f.attempts, "error": f.error}
            for f in dead
        ],
    }


def _part(read: Callable[[], Part]) -> Part | Unreadable:
    try:
        part = read()
    except Exception as exc:  # one unreadable part must not hide the others
        _log.warning("status: %s", exc)
        return {"error": str(getattr(exc, "message", exc))}
    return part


def _pages(store: Store) -> PagesPart:
    records = store.pages.list()
    counts = Counter(
        str(r.front_matter.get("status", "active")) if hasattr(r.front_matter, "get") else "?"
        for r in records
    )
    stale = sorted(
        r.slug for r in records if r.freshness is not None and r.freshness.state == "stale"
    )
    return {
        "total": sum(counts.values()),
        "by_status": dict(sorted(counts.items())),
        "stale": stale,
    }


def _rebuild(store: Store) -> RebuildPart:
    """The last run's outcome and the last publication (the manifest): when a run failed,
    the site is still the one published then."""
    last = store.events.recent("rebuild_outcome", limit=1)
    manifest = Manifest.from_json(store.site.load_manifest())
    return {
        "last": last[0] if last else None,
        "published": None
        if manifest is None
        else {"build_id": manifest.build_id, "built_at": manifest.built_at},
        "failed": bool(last) and last[0].get("status") != "ok",
    }


def _review(store: Store) -> ReviewPart:
    """What waits for a curator: drafts and open proposals (``biblioteca show``)."""
    waiting = review.waiting(store)
    return {"drafts": len(waiting["drafts"]), "proposals": waiting["proposals"]}


def _sync(store: Store) -> SyncPart:
    """The last import (what a docs-as-code job runs on each push): when, which tree, by
    whom, and what it did."""
    last = store.events.recent("import_outcome", limit=1)
    return {"last": last[0] if last else None}


def _gaps(store: Store, embedder: Embedder, now: datetime) -> GapsPart:
    report = find_gaps(store, embedder, since=now - DEFAULT_SINCE)
    return {"days": DEFAULT_SINCE.days, "open": len(report.open), "closed": len(report.closed)}


def _feedback(store: Store, now: datetime) -> FeedbackPart:
    items = store.feedback.list(since=now - FEEDBACK_WINDOW)
    return {
        "days": FEEDBACK_WINDOW.days,
        "count": len(items),
        "down": sum(i.rating == "down" for i in items),
        "up": sum(i.rating == "up" for i in items),
    }
