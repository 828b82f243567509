"""The ports: what the services need from storage and from model providers.

Each is a ``typing.Protocol`` defined once here; the values they carry are in
``shared.records``. Adapters live in ``shared.store`` (SQLite, Firestore),
``shared.providers`` (local, Gemini) and ``shared.publish`` (a folder, a bucket);
``shared.bootstrap`` builds them. The embedded SQLite store is a real implementation,
and one contract suite runs against both stores.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from shared.json_value import JsonObject
from shared.records import (
    AnswerTrace,
    Chunk,
    ChunkChanges,
    ChunkHit,
    CitingRecord,
    Confidence,
    EventKind,
    Failure,
    FeedbackRecord,
    Freshness,
    Generation,
    IndexedChunk,
    KeyLookup,
    Lease,
    Origin,
    PageRecord,
    Passage,
    PathChanges,
    Proposal,
    ProposalStatus,
    Publication,
    Revision,
    SearchFilter,
    StoredFinding,
    StoredNav,
    StoredSignature,
    StoredSnapshot,
    TextStream,
    Vector,
)

# -- pages -----------------------------------------------------------------------------


class RevisionLog(Protocol):
    """The revisions ``PageStore`` keeps, newest first (the newest N per page, see
    ``BIBLIOTECA_REVISIONS_KEEP``)."""

    def history(self, slug: str, *, limit: int = 20) -> list[Revision]:
        """The page's newest ``limit`` revisions, newest first ([] for an unknown page)."""

    def get(self, slug: str, version: int) -> Revision | None:
        """One version's revision; None when unknown or no longer kept."""


class ProposalStore(Protocol):
    """Proposals by id; closing one is conditional on it being still open."""

    def add(self, proposal: Proposal) -> None: ...

    def get(self, proposal_id: str) -> Proposal | None: ...

    def list(
        self,
        *,
        status: ProposalStatus | None = "open",
        slug: str | None = None,
        actor: str | None = None,
    ) -> list[Proposal]:
        """Proposals of one status (every one with None), oldest first; with ``slug``
        and/or ``actor``, only that page's or that actor's (a query reading those)."""

    def close(self, closed: Proposal) -> bool:
        """Store ``closed`` (accepted or rejected) if the stored one is still open; False
        when another curator closed it first (nothing written)."""


class PageStore(Protocol):
    """Pages by slug, with optimistic concurrency on ``version``."""

    def get(self, slug: str) -> PageRecord | None: ...

    def create(
        self, page: PageRecord, chunks: Sequence[Chunk], revision: Revision | None = None
    ) -> None:
        """Write a new page and its chunks at once; ``Conflict`` if the slug exists.
        ``revision`` is kept in the same commit (the services always give one)."""

    def update(
        self,
        page: PageRecord,
        chunks: Sequence[Chunk] | None,
        *,
        expected_version: int,
        revision: Revision | None = None,
        closes: Proposal | None = None,
    ) -> None:
        """Replace the page (and its chunks unless None) if its stored version is
        ``expected_version``; else ``VersionConflict``. ``NotFound`` if it is gone.
        ``revision`` is kept in the same commit, and revisions past the retention
        dropped there too (None: a write that is no new version, such as a reindex).
        ``closes``: an accepted proposal, closed in the same commit (its ``version`` set
        to the page's) only if it is still open; else ``Conflict`` and nothing written."""

    def list(
        self, *, status: str | None = None, updated_since: datetime | None = None
    ) -> list[PageRecord]:
        """Pages, optionally of one status and/or updated at or after a moment."""

    def count(self) -> int:
        """How many pages the store holds, any status (an aggregate, not a read of each)."""

    def citing(self, keys: Sequence[str] | None) -> Sequence[CitingRecord]:
        """Pages whose checked paths have one of ``keys`` (``path_key`` of a cited path),
        through the path index written with each page; None: every page citing a path."""

    def set_freshness(self, slug: str, freshness: Freshness, *, version: int) -> bool:
        """Store a recomputed freshness if the page is still at ``version`` (no new
        version, no ``updated_at`` change); False when it changed or is gone."""

    def set_freshness_many(self, updates: Sequence[tuple[str, int, Freshness]]) -> int:
        """``set_freshness`` for (slug, version, freshness) triples, batched; how many held."""

    def freshness_of(self, slugs: Sequence[str]) -> dict[str, Freshness]:
        """The stored freshness of each of ``slugs`` that has one, in one read."""

    def set_origins(self, origins: Mapping[str, Origin]) -> None:
        """Record where each page (by slug) was imported from, batched; no new version, no
        ``updated_at`` change (a page that is gone is skipped)."""

    def origins(self, tree: str) -> dict[str, str]:
        """Slug -> path in the tree, for every page whose origin is ``tree``."""

    def contents_of(self, slugs: Sequence[str]) -> dict[str, str]:
        """The Markdown body of each of ``slugs`` that exists, in one read (an answer's
        sources link their heading's anchor, which the body's headings decide)."""


# -- retrieval -------------------------------------------------------------------------


class ChunkIndex(Protocol):
    """The searchable chunks of every page (written by ``PageStore``)."""

    def fingerprint(self) -> str:
        """A cheap token that changes whenever a page (hence its chunks) is written.

        In-memory caches of the index (the lexical index, a vector matrix) compare it on
        every request, so it must cost one small indexed read."""

    def active_chunks(self) -> list[IndexedChunk]:
        """Every chunk of every ``active`` page, with its embedder and vector (for the
        search snapshot's lexical and dense sides)."""

    def changes_since(self, cursor: str | None) -> ChunkChanges:
        """The pages written (created, updated, archived, re-tagged) after ``cursor``.

        Every chunk write logs its page in the same commit, so a page written after the
        cursor is never missed, whatever order concurrent writes commit in. Costs reads
        proportional to the writes since the cursor (one when there were none)."""

    def active_chunks_of(self, slugs: Collection[str]) -> list[IndexedChunk]:
        """The active chunks of ``slugs`` only (a page no longer active has none), with
        their vectors as ``active_chunks``."""

    def chunks_by_key(
        self, keys: Collection[tuple[str, int]], *, vectors: bool = False
    ) -> dict[tuple[str, int], IndexedChunk]:
        """The active chunks at ``keys`` (slug, ordinal), with their text, in one read:
        the lexical index holds no text, so a question reads the passages it shows;
        ``vectors``: with their embedder and stored vector too (the dense rescoring)."""

    def load_snapshot(self) -> StoredSnapshot | None:
        """The last saved snapshot of the lexical index, or None (none saved, or unreadable).

        A cold instance starts from it plus the changes since its cursor, instead of
        reading every chunk (docs/scale.md)."""

    def save_snapshot(self, snapshot: StoredSnapshot) -> None:
        """Keep ``snapshot`` for the next cold instance (replaces the previous one)."""

    def vectors_for(self, slug: str) -> dict[str, Vector]:
        """Chunk hash -> stored vector for one page, so unchanged text is not re-embedded."""

    def embedders(self) -> set[str]:
        """The embedders whose vectors the index holds (to detect a needed reindex)."""

    def nearest(
        self,
        vector: Vector,
        *,
        embedder: str,
        filters: SearchFilter,
        limit: int,
        fingerprint: str | None = None,
    ) -> list[ChunkHit]:
        """The ``limit`` active chunks most similar to ``vector``, best first.

        ``fingerprint`` is the one the caller read for this request: an adapter that
        searches a cache checks it against that instead of reading it again."""


# -- duplicates ------------------------------------------------------------------------


class DuplicateIndex(Protocol):
    """What ``duplicates`` keeps between runs: each page's signature under its band keys,
    the pairs found, the pairs a curator dismissed, and the change-log cursor it reached
    (so the next run compares only what changed since with the rest)."""

    def cursor(self) -> str | None:
        """The chunk change-log cursor of the last run (None: never ran)."""

    def signatures(self, slugs: Collection[str] | None) -> list[StoredSignature]:
        """The stored signatures of ``slugs`` (every one with None)."""

    def sharing(self, bands: Collection[str]) -> set[str]:
        """The slugs whose signature has one of ``bands`` (reads what matches, no more)."""

    def findings(self) -> list[StoredFinding]:
        """Every pair found (the listing ``duplicates`` answers from)."""

    def save(
        self,
        *,
        signatures: Sequence[StoredSignature],
        removed: Collection[str],
        findings: Sequence[StoredFinding],
        touched: Collection[str] | None,
        cursor: str,
    ) -> None:
        """Store a run: replace the signatures given, drop those of ``removed``, drop the
        findings naming a slug of ``touched`` (every finding with None) and add
        ``findings``, then move the cursor (last, so a failed run is redone)."""

    def dismiss(self, a: str, b: str, *, by: str, reason: str | None) -> None:
        """Remember that a curator said ``a`` and ``b`` are not duplicates."""

    def dismissed(self) -> set[tuple[str, str]]:
        """The dismissed pairs, each ordered (smaller slug first)."""


# -- the code index (grounding gate) ---------------------------------------------------


class CodeIndex(Protocol):
    """File paths of code repositories, keyed so a grounding check is one read."""

    def put_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> int:
        """Record ``paths`` of ``repo``; returns the distinct paths of that repo now indexed."""

    def lookup(self, keys: Sequence[str]) -> KeyLookup:
        """Which of ``keys`` exist, and the indexed roots, in one read of the store."""

    def apply_paths(self, repo: str, paths: Sequence[str], *, replace: bool) -> PathChanges:
        """``put_paths``, also saying which paths it added and removed and whether the
        indexed roots changed (each repository's are recomputed from its full path set)."""

    def paths_named(self, names: Sequence[str], *, limit: int = 20) -> dict[str, list[str]]:
        """Indexed paths by case-folded file name (``wiki.py``); a name more than ``limit``
        paths have is left out (too common for a suggestion to be sure)."""


# -- events (utility hits, archive and rebuild outcomes) -------------------------------


class EventLog(Protocol):
    """Append-only records for analytics: what was asked, what the gates decided."""

    def record(self, kind: EventKind, data: Mapping[str, Any]) -> None: ...

    def recent(self, kind: EventKind, limit: int = 100) -> list[JsonObject]: ...


# -- answer traces and feedback (the curator's side of ``ask``) ------------------------


class AnswerTraces(Protocol):
    """The traces of recent answers, by ``answer_id``; expired ones are never returned."""

    def save(self, trace: AnswerTrace) -> None:
        """Keep ``trace``, with each source's page version as stored now (one batched read
        of the pages; a source's own ``version`` is ignored). SQLite also deletes a bounded
        number of expired traces here; Firestore's TTL policy on ``expires_at`` does that."""

    def get(self, answer_id: str) -> AnswerTrace | None: ...


class FeedbackStore(Protocol):
    """Votes and reports for curators (and the gaps analysis); they never change ranking."""

    def record(self, item: FeedbackRecord) -> None:
        """Keep ``item``, replacing the one with its ``id`` if any."""

    def list(self, *, since: datetime | None = None) -> list[FeedbackRecord]:
        """Every item recorded at or after ``since`` (all when None), newest first."""


# -- site build state ------------------------------------------------------------------


class SiteState(Protocol):
    """The rebuild's lease (single flight), its manifest (incremental builds) and the
    navigation an import read (order and sections of the pages)."""

    def acquire_lease(self, owner: str, ttl_seconds: float) -> bool: ...

    def release_lease(self, owner: str) -> None: ...

    def read_lease(self) -> Lease | None:
        """The lease as stored (expired or not), None when nobody took it or it was released."""

    def load_manifest(self) -> JsonObject | None: ...

    def save_manifest(self, manifest: Mapping[str, Any]) -> None: ...

    def load_nav(self) -> StoredNav | None:
        """The navigation the last import read from ``mkdocs.yml`` (order and sections)."""

    def save_nav(self, nav: Mapping[str, Any] | None) -> None:
        """Replace the navigation (None removes it)."""

    def load_imports(self) -> dict[str, Any] | None:
        """What imports said of their trees for the site: ``{"trees": {tree: {"routes":
        {slug: [address, …]}, "site_name": str | None}}}`` (``importer``)."""

    def save_imports(self, imports: Mapping[str, Any]) -> None:
        """Replace what ``load_imports`` answers."""

    def put_assets(self, assets: Mapping[str, bytes]) -> None:
        """Keep the files pages link (images, downloads) by their published path, which
        names their content (``_assets/<hash>/<name>``): putting one again is a no-op."""

    def held_assets(self, paths: Collection[str]) -> set[str]:
        """Which of ``paths`` the store holds (no bytes read)."""

    def get_assets(self, paths: Collection[str]) -> dict[str, bytes]:
        """The bytes of each of ``paths`` the store holds."""


# -- publishing the site ---------------------------------------------------------------


class StalePublication(Exception):
    """The published site is not the one the manifest describes: rebuild in full."""


class SitePublisher(Protocol):
    """Where ``rebuild`` puts the public site: a folder swapped atomically, or a bucket."""

    location: str

    @property
    def public_url(self) -> str | None:
        """The absolute base URL the site is served at, when the location implies one."""

    def current_build(self) -> str | None:
        """The build id of what is published now (None when nothing, or unknown)."""

    def publish(self, publication: Publication) -> None: ...

    def cleanup(self) -> None:
        """Housekeeping after a publication (old generations); readers never wait for it."""


class ReportWriter(Protocol):
    """Where ``rebuild`` writes the private curator report (never inside the public site)."""

    location: str

    def check(self) -> None:
        """``NotConfigured`` when the location is unusable or the public could read it."""

    def write(self, files: Mapping[str, bytes]) -> None:
        """Replace the report's files (relative name -> bytes)."""


# -- enrichment (the worker's ledger) --------------------------------------------------


class EnrichLedger(Protocol):
    """What makes enrichment a queue that keeps its promises: the worker's position in
    the change log, claims that make it at most once (per page, version and enricher, and
    per suggestion), and the changes that failed, dead once they failed ``MAX_ATTEMPTS``."""

    def position(self, name: str) -> str | None:
        """The change-log cursor the reader ``name`` last finished at (None: never ran)."""

    def move(self, name: str, cursor: str) -> None:
        """Record that ``name`` finished everything up to ``cursor``."""

    def claim(self, key: str) -> bool:
        """Take ``key`` if nobody has (atomic: of two claimants exactly one is True)."""

    def release(self, key: str) -> None:
        """Give ``key`` back (the work it guarded failed and will be retried)."""

    def fail(self, slug: str, version: int, error: str) -> Failure:
        """Count one more failed attempt of the change; dead at ``MAX_ATTEMPTS``."""

    def clear(self, slug: str, version: int) -> None:
        """The change succeeded: forget its failures (a dead one stays dead)."""

    def failure(self, slug: str, version: int) -> Failure | None: ...

    def due(self, now: float, *, limit: int = 100) -> list[Failure]:
        """Failed changes, not dead, whose backoff has passed, oldest first."""

    def dead(self, *, limit: int = 100) -> list[Failure]:
        """The changes set aside, newest first."""

    def dead_count(self) -> int: ...


# -- one backend -----------------------------------------------------------------------


class Store(Protocol):
    """One backend's adapters, opened together (read-only members, so each adapter
    class satisfies its port structurally)."""

    @property
    def pages(self) -> PageStore: ...

    @property
    def chunks(self) -> ChunkIndex: ...

    @property
    def code(self) -> CodeIndex: ...

    @property
    def events(self) -> EventLog: ...

    @property
    def site(self) -> SiteState: ...

    @property
    def traces(self) -> AnswerTraces: ...

    @property
    def feedback(self) -> FeedbackStore: ...

    @property
    def revisions(self) -> RevisionLog: ...

    @property
    def proposals(self) -> ProposalStore: ...

    @property
    def enrichment(self) -> EnrichLedger: ...

    @property
    def duplicates(self) -> DuplicateIndex: ...


# -- model providers -------------------------------------------------------------------


class Embedder(Protocol):
    """Text -> unit vectors; documents and queries may be embedded differently."""

    name: str  # recorded with every vector, e.g. "local:use-m3@512"

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    def embed_query(self, text: str) -> Vector: ...


class Generator(Protocol):
    """Prompt -> text from a language model (``gemini``, ``openai``); answers and triage."""

    name: str

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation: ...


@runtime_checkable
class StreamingGenerator(Generator, Protocol):
    """A ``Generator`` that can also hand its text over as the model writes it."""

    def stream(self, system: str, prompt: str, *, max_tokens: int = 1024) -> TextStream: ...


class Answerer(Protocol):
    """Question (+ numbered passages in ``help`` mode) -> a cited answer.

    ``local`` composes extractively from the passages, offline; the model answerer
    builds the ``help``/``tutor`` prompt and calls a ``Generator``. With ``confidence``
    "low" (weak evidence) the answer opens by saying the wiki does not seem to cover it,
    naming ``unmentioned`` (the question's names the wiki never mentions) when given."""

    model: str

    def answer(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> Generation: ...

    def stream(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> TextStream:
        """The same answer as ``answer``, handed over in pieces as it is written."""
