"""The Firestore store (``BIBLIOTECA_STORE=firestore``): the deployed backend.

Nothing does I/O until the first call; the client honours ``FIRESTORE_EMULATOR_HOST``.
Indexes it needs are declared in ``firestore.indexes.json`` at the repository root.
"""

from __future__ import annotations

from shared.store.firestore import (
    code,
    duplicates,
    enrich,
    events,
    feedback,
    pages,
    revisions,
    site,
)
from shared.store.firestore.db import DEFAULT_TIMEOUT_S, Database
from shared.store.firestore.lexical import FirestoreSearchChunks


class FirestoreStore:
    """Every port on one Firestore database."""

    def __init__(
        self, project: str, *, timeout: float = DEFAULT_TIMEOUT_S, revisions_keep: int = 0
    ) -> None:
        self.db = Database(project, timeout=timeout)
        self.pages = pages.FirestorePages(self.db, keep=revisions_keep)
        self.chunks = FirestoreSearchChunks(self.db)
        self.events = events.FirestoreEvents(self.db)
        self.code = code.FirestoreCodeIndex(self.db)
        self.site = site.FirestoreSiteState(self.db)
        self.traces = feedback.FirestoreTraces(self.db)
        self.feedback = feedback.FirestoreFeedback(self.db)
        self.revisions = revisions.FirestoreRevisions(self.db)
        self.proposals = revisions.FirestoreProposals(self.db)
        self.enrichment = enrich.FirestoreEnrichLedger(self.db)
        self.duplicates = duplicates.FirestoreDuplicates(self.db)
