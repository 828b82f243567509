"""``biblioteca reindex``: re-chunk and re-embed every page with the configured embedder.

Each page is rewritten through the page store's update path, so its chunks change
atomically with it; its version stays (the content did not change) and vectors whose
text and embedder are unchanged are reused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from shared.clock import now
from shared.errors import BibliotecaError, VersionConflict
from shared.ports import Embedder, Store
from shared.records import PageRecord
from shared.services.indexing import build_chunks
from shared.services.wiki import to_page

_RETRIES = 3


class ReindexJson(TypedDict):
    reindexed: int
    unchanged: int
    failed: list[dict[str, str]]  # each {slug, error}


@dataclass
class ReindexReport:
    """How many pages were rewritten, already up to date, or failed (with why)."""

    reindexed: int = 0
    unchanged: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> ReindexJson:
        return {"reindexed": self.reindexed, "unchanged": self.unchanged, "failed": self.failed}


def reindex(
    store: Store,
    embedder: Embedder,
    *,
    progress: Callable[[Iterable[PageRecord]], Iterable[PageRecord]] = lambda pages: pages,
) -> ReindexReport:
    """Bring every page's chunks to the current chunking and ``embedder``."""
    report = ReindexReport()
    for record in progress(store.pages.list()):
        try:
            changed = _reindex_page(record.slug, store, embedder)
        except BibliotecaError as exc:
            report.failed.append({"slug": record.slug, "error": exc.message})
            continue
        if changed:
            report.reindexed += 1
        else:
            report.unchanged += 1
    return report


def _reindex_page(slug: str, store: Store, embedder: Embedder) -> bool:
    for _ in range(_RETRIES):
        record = store.pages.get(slug)
        if record is None:
            return False  # gone since the listing
        previous = store.chunks.vectors_for(slug)
        chunks = build_chunks(to_page(record), embedder, previous)
        if {c.hash for c in chunks} == set(previous) and len(chunks) == len(previous):
            return False
        # updated_at moves so every cache of the index (fingerprints) sees the change.
        page = dataclasses.replace(record, updated_at=max(now(), record.updated_at))
        try:
            store.pages.update(page, chunks, expected_version=record.version)
        except VersionConflict:
            continue  # written meanwhile: read it again
        return True
    raise VersionConflict(f"page '{slug}' kept changing during the reindex; run it again")
