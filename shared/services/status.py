"""``biblioteca status``: the state of the library at a glance, for the curator.

Which store, pages by status, the last rebuild and how it ended (a failed one is
the first thing said), and the feedback waiting from the last week. Each part is read
on its own: one that cannot be read says so instead of hiding the others.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from shared.config import Settings
from shared.logs import get_logger
from shared.ports import Store
from shared.site.plan import Manifest

FEEDBACK_WINDOW = timedelta(days=7)
_log = get_logger("status")


def store_line(settings: Settings) -> dict[str, Any]:
    if settings.store == "firestore":
        return {"kind": "firestore", "where": f"project {settings.google_cloud_project}"}
    return {"kind": "sqlite", "where": str(settings.data_dir)}


def status(settings: Settings, store: Store, now: datetime | None = None) -> dict[str, Any]:
    """Every part of the status; a part that could not be read has ``error``."""
    moment = now or datetime.now(UTC)
    return {
        "store": store_line(settings),
        "pages": _part(lambda: _pages(store)),
        "rebuild": _part(lambda: _rebuild(store)),
        "feedback": _part(lambda: _feedback(store, moment)),
    }


def _part(read: Any) -> dict[str, Any]:
    try:
        part: dict[str, Any] = read()
    except Exception as exc:  # one unreadable part must not hide the others
        _log.warning("status: %s", exc)
        return {"error": str(getattr(exc, "message", exc))}
    return part


def _pages(store: Store) -> dict[str, Any]:
    counts = Counter(
        str(r.front_matter.get("status", "active")) if hasattr(r.front_matter, "get") else "?"
        for r in store.pages.list()
    )
    return {"total": sum(counts.values()), "by_status": dict(sorted(counts.items()))}


def _rebuild(store: Store) -> dict[str, Any]:
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


def _feedback(store: Store, now: datetime) -> dict[str, Any]:
    items = store.feedback.list(since=now - FEEDBACK_WINDOW)
    return {
        "days": FEEDBACK_WINDOW.days,
        "count": len(items),
        "down": sum(i.rating == "down" for i in items),
        "up": sum(i.rating == "up" for i in items),
    }
