"""Reading a build's pages from the store: every page, or only those written since the
last build (the manifest remembers the rest), and the unchanged ones it must render again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from shared import clock
from shared.ports import Store
from shared.schema import Page
from shared.services.site_build.sorting import Sorted, remember, sort_records
from shared.site.manifest import UNRENDERED, Manifest, PageState, page_hash


@dataclass
class Reading:
    """What one build read: every page, or those written since the last build."""

    sorted: Sorted
    read_at: str  # just before the read, for the next build's ``updated_since``
    everything: bool
    read: set[str] = field(default_factory=set)  # slugs read (when not everything)


class ReadAgain(Exception):
    """An unchanged page to render again is not what the manifest says: the build's plan
    was made on an old picture, and it reads every page instead."""


def read_all(store: Store) -> Reading:
    read_at = _now()
    return Reading(sort_records(store.pages.list()), read_at, everything=True)


def read_since(store: Store, since: datetime, previous: Manifest) -> Reading:
    """The pages written since the last build (and those that failed to render), the
    rest as the manifest remembers them."""
    read_at = _now()
    records = {r.slug: r for r in store.pages.list(updated_since=since)}
    for slug, held in previous.held.items():
        if held.kind == UNRENDERED and slug not in records:
            record = store.pages.get(slug)  # tried again on every build
            if record is not None:
                records[slug] = record
    pages = sort_records(records.values())
    remember(pages, records.keys(), previous.held)
    return Reading(pages, read_at, everything=False, read=set(records))


def read_unchanged(
    store: Store, slugs: Collection[str], before: Mapping[str, PageState]
) -> dict[str, Page]:
    """Read the unchanged pages that must be rendered again (they show a changed one).

    One that is not what the manifest says (written after this build's read) raises
    ``ReadAgain``.
    """
    out: dict[str, Page] = {}
    for slug in sorted(slugs):
        record = store.pages.get(slug)
        outcome = sort_records([record]) if record is not None else None
        page = outcome.published.get(slug) if outcome is not None else None
        if page is None or page_hash(page) != before[slug].hash:
            raise ReadAgain(f"page '{slug}' changed while the build read the store")
        out[slug] = page
    return out


def _now() -> str:
    return clock.now().isoformat()
