"""The embedded store: one SQLite file in ``BIBLIOTECA_DATA_DIR``, the default backend."""

from __future__ import annotations

from pathlib import Path

from shared.store.sqlite import (
    changes,
    chunks,
    code,
    duplicates,
    enrich,
    events,
    feedback,
    pages,
    revisions,
    site,
    snapshots,
)
from shared.store.sqlite.db import Database

FILENAME = "biblioteca.sqlite3"


class SqliteStore:
    """Every port on one SQLite file."""

    def __init__(self, data_dir: Path, *, revisions_keep: int = 0) -> None:
        self.db = Database(
            data_dir / FILENAME,
            [
                pages.SCHEMA,
                chunks.SCHEMA,
                changes.SCHEMA,
                snapshots.SCHEMA,
                events.SCHEMA,
                code.SCHEMA,
                site.SCHEMA,
                feedback.SCHEMA,
                revisions.SCHEMA,
                duplicates.SCHEMA,
                enrich.SCHEMA,
            ],
            [*chunks.UPGRADES, *pages.UPGRADES, *code.UPGRADES],
        )
        self.pages = pages.SqlitePages(self.db, keep=revisions_keep)
        self.chunks = chunks.SqliteChunks(self.db)
        self.events = events.SqliteEvents(self.db)
        self.code = code.SqliteCodeIndex(self.db)
        self.site = site.SqliteSiteState(self.db)
        self.traces = feedback.SqliteTraces(self.db)
        self.feedback = feedback.SqliteFeedback(self.db)
        self.revisions = revisions.SqliteRevisions(self.db)
        self.proposals = revisions.SqliteProposals(self.db)
        self.enrichment = enrich.SqliteEnrichLedger(self.db)
        self.duplicates = duplicates.SqliteDuplicates(self.db)
