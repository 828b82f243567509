"""The ports: what the services need from storage and from model providers.

Each is a ``typing.Protocol`` defined once here. Adapters live in ``shared.store``
(SQLite, Firestore), ``shared.providers`` (local, Gemini) and ``shared.publish`` (a
folder, a bucket); ``shared.bootstrap`` builds them. The embedded SQLite store is a
real implementation, and one contract suite runs against both stores.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


# -- pages ----------------------------------------------------------------------------


FreshnessState = Literal["fresh", "stale", "unknown"]


@dataclass(frozen=True, slots=True)
class Freshness:
    """Whether the code paths a page cites still exist in the code index.

    Kept beside the front matter, not in it: the server derives it (an author never
    writes it) and recomputes it after ``index_code`` without a new page version.
    ``cited`` is what was checked (so a recheck needs no page text); ``suggestions``
    maps a missing path to the indexed path it was probably moved to; ``outside`` are
    the cited paths not found whose top-level folder no indexed repository has (another
    project's code, an example layout): not judged, so neither missing nor found.
    """

    state: FreshnessState
    checked_at: datetime
    cited: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    suggestions: Mapping[str, str] = field(default_factory=dict)
    outside: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PageRecord:
    """A page exactly as stored: the front matter is raw and validated by the reader."""

    slug: str
    front_matter: Mapping[str, Any]
    content: str
    version: int
    created_at: datetime
    updated_at: datetime
    freshness: Freshness | None = None  # None: never checked (written before it existed)
    # The actor of the version's revision, kept on the page by the store (the site's
    # "edited by" costs no read); None: written before revisions were kept.
    updated_by: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an imported page came from: the docs tree (``importer.tree_name``) and the
    file's path in it. Kept beside the page, never in its front matter: the import
    records it, no caller writes it, and ``import --sync`` reads it."""

    tree: str
    path: str


@dataclass(frozen=True, slots=True)
class CitingPage:
    """A page found by the path index: what a freshness recheck needs, without its text."""

    slug: str
    version: int
    freshness: Freshness


@dataclass(frozen=True, slots=True)
class Chunk:
    """One searchable piece of a page, written in the same write as the page."""

    slug: str
    ordinal: int
    heading: str  # heading path, "Intro › Instalación"
    text: str
    hash: str  # of the embedder and the text: an equal hash means the vector is reusable
    vector: Vector
    embedder: str  # e.g. "local:use-m3@512"; the dimension is len(vector)


@dataclass(frozen=True, slots=True)
class Revision:
    """One version of a page as it was written: who wrote it, when, what it changed, and
    its whole text and front matter (what ``diff`` and ``revert`` read).

    Written by ``PageStore.create``/``update`` in the page's own transaction (commit), so
    a version and its revision exist together or not at all. ``changed`` names
    ``content`` and the front-matter keys whose value differs from the version before
    (every key set, on a page's first version); ``note`` says why, when a review step
    wrote it ("accepted p-…", "reverted to 3", "rejected: …")."""

    slug: str
    version: int
    at: datetime
    actor: str
    changed: tuple[str, ...]
    front_matter: Mapping[str, Any]
    content: str
    note: str | None = None


class RevisionLog(Protocol):
    """The revisions ``PageStore`` keeps, newest first (the newest N per page, see
    ``BIBLIOTECA_REVISIONS_KEEP``)."""

    def history(self, slug: str, *, limit: int = 20) -> list[Revision]:
        """The page's newest ``limit`` revisions, newest first ([] for an unknown page)."""

    def get(self, slug: str, version: int) -> Revision | None:
        """One version's revision; None when unknown or no longer kept."""


ProposalStatus = Literal["open", "accepted", "rejected"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """A change an agent proposed to an ``active`` page, waiting for a curator.

    ``base_version`` is the page version it was written against: accepting it once the
    page moved on is a conflict, never an overwrite. ``metadata`` is the proposed
    ``update_metadata`` (validated when proposed), ``content`` the new body or None."""

    id: str  # "p-" and 12 hex digits
    slug: str
    base_version: int
    content: str | None
    metadata: Mapping[str, Any]
    actor: str
    created_at: datetime
    status: ProposalStatus = "open"
    closed_at: datetime | None = None
    closed_by: str | None = None
    reason: str | None = None  # why it was rejected
    version: int | None = None  # the page version it became, when accepted


class ProposalStore(Protocol):
    """Proposals by id; closing one is conditional on it being still open."""

    def add(self, proposal: Proposal) -> None: ...

    def get(self, proposal_id: str) -> Proposal | None: ...

    def list(self, *, status: ProposalStatus | None = "open") -> list[Proposal]:
        """Proposals of one status (every one with None), oldest first."""

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
    ) -> None:
        """Replace the page (and its chunks unless None) if its stored version is
        ``expected_version``; else ``VersionConflict``. ``NotFound`` if it is gone.
        ``revision`` is kept in the same commit, and revisions past the retention
        dropped there too (None: a write that is no new version, such as a reindex)."""

    def list(
        self, *, status: str | None = None, updated_since: datetime | None = None
    ) -> list[PageRecord]:
        """Pages, optionally of one status and/or updated at or after a moment."""

    def count(self) -> int:
        """How many pages the store holds, any status (an aggregate, not a read of each)."""

    def citing(self, keys: Sequence[str] | None) -> Sequence[CitingPage]:
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


# -- retrieval ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """The ``ask`` filters; None means any. Only ``active`` pages are ever searched."""

    page_type: str | None = None
    category: str | None = None
    tag: str | None = None


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A chunk found by the dense search, with its cosine similarity to the query."""

    slug: str
    title: str
    heading: str
    text: str
    ordinal: int
    cosine: float


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """An active chunk as the lexical ranking sees it: its text and its page's filter fields."""

    slug: str
    ordinal: int
    title: str
    heading: str
    text: str
    page_type: str | None
    category: str | None
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChunkChanges:
    """The pages whose chunks changed after a cursor (docs/scale.md).

    ``cursor`` is what to pass next time; ``complete`` is False when the log cannot say
    what changed since the cursor given (none given, or one older than the log keeps):
    the caller then reads every active chunk, having taken ``cursor`` first."""

    cursor: str
    slugs: frozenset[str]
    complete: bool


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """A saved image of the in-memory lexical index: the change-log cursor it is up to
    date with, and its bytes (``shared.retrieval.snapshot``)."""

    cursor: str
    payload: bytes


class ChunkIndex(Protocol):
    """The searchable chunks of every page (written by ``PageStore``)."""

    def fingerprint(self) -> str:
        """A cheap token that changes whenever a page (hence its chunks) is written.

        In-memory caches of the index (the lexical index, a vector matrix) compare it on
        every request, so it must cost one small indexed read."""

    def active_chunks(self) -> list[IndexedChunk]:
        """Every chunk of every ``active`` page, without vectors (for the lexical index)."""

    def changes_since(self, cursor: str | None) -> ChunkChanges:
        """The pages written (created, updated, archived, re-tagged) after ``cursor``.

        Every chunk write logs its page in the same commit, so a page written after the
        cursor is never missed, whatever order concurrent writes commit in. Costs reads
        proportional to the writes since the cursor (one when there were none)."""

    def active_chunks_of(self, slugs: Collection[str]) -> list[IndexedChunk]:
        """The active chunks of ``slugs`` only (a page no longer active has none)."""

    def chunks_by_key(
        self, keys: Collection[tuple[str, int]]
    ) -> dict[tuple[str, int], IndexedChunk]:
        """The active chunks at ``keys`` (slug, ordinal), with their text, in one read:
        the lexical index holds no text, so a question reads the passages it shows."""

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


# -- the code index (grounding gate) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyLookup:
    """The answer of the code index's one read: which keys exist, whether any path does,
    and the top-level folders of every repository indexed (``root_names``).

    ``roots`` None: the index does not record them (a Firestore index written before it
    did, until its next put); freshness then judges every cited path, as it used to."""

    found: frozenset[str]
    indexed_paths: int
    roots: frozenset[str] | None = None
    # The asked keys the index holds or once held (a replace-mode put moves the keys of
    # removed paths to a "seen" set); None: it does not remember, and roots decide.
    seen: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class PathChanges:
    """What one put of a repository's paths changed (the freshness recheck's input)."""

    indexed: int  # the repository's distinct paths now indexed
    added: tuple[str, ...]
    removed: tuple[str, ...]
    total_before: int  # every repository's paths, before and after
    total_after: int
    roots_changed: bool = False  # the union of every repository's top-level folders


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


# -- events (utility hits, archive and rebuild outcomes) -----------------------------

EventKind = Literal["utility_hit", "archive_outcome", "rebuild_outcome", "import_outcome"]


class EventLog(Protocol):
    """Append-only records for analytics: what was asked, what the gates decided."""

    def record(self, kind: EventKind, data: Mapping[str, Any]) -> None: ...

    def recent(self, kind: EventKind, limit: int = 100) -> list[dict[str, Any]]: ...


# -- answer traces and feedback (the curator's side of ``ask``) -------------------------

Rating = Literal["up", "down"]
FeedbackReason = Literal["incorrect", "outdated", "missing", "unclear", "other"]


@dataclass(frozen=True, slots=True)
class TracedSource:
    """A page an answer was given, its relevance, and its version when the answer was
    written (None: the page was gone by then)."""

    slug: str
    score: float
    version: int | None = None


@dataclass(frozen=True, slots=True)
class AnswerTrace:
    """What produced one help-mode answer, kept until ``expires_at`` for its feedback."""

    answer_id: str
    question: str
    answer: str
    sources: tuple[TracedSource, ...]
    model: str
    confidence: str
    origin: str  # the door it came by: ask, mcp
    created_at: datetime
    expires_at: datetime
    # A follow-up's conversation: the earlier questions, oldest first, and the standalone
    # question it was read as (None when it was asked on its own).
    thread: tuple[str, ...] = ()
    standalone: str | None = None


class AnswerTraces(Protocol):
    """The traces of recent answers, by ``answer_id``; expired ones are never returned."""

    def save(self, trace: AnswerTrace) -> None:
        """Keep ``trace``, with each source's page version as stored now (one batched read
        of the pages; a source's own ``version`` is ignored). SQLite also deletes a bounded
        number of expired traces here; Firestore's TTL policy on ``expires_at`` does that."""

    def get(self, answer_id: str) -> AnswerTrace | None: ...


@dataclass(frozen=True, slots=True)
class FeedbackRecord:
    """One vote on an answer (``answer_id``) or a report on a page (``slug``).

    ``id`` is the same for every repeat of one client on one answer (or page), so a repeat
    replaces the vote instead of adding one. ``trace`` is the answer's trace as it was when
    the vote came: it outlives the trace's retention."""

    id: str
    rating: Rating
    reason: FeedbackReason | None
    comment: str | None
    answer_id: str | None
    slug: str | None
    question: str | None
    origin: str  # http (the widget, any caller of /feedback) or mcp (report_issue)
    at: datetime
    trace: AnswerTrace | None = None


class FeedbackStore(Protocol):
    """Votes and reports for curators (and the gaps analysis); they never change ranking."""

    def record(self, item: FeedbackRecord) -> None:
        """Keep ``item``, replacing the one with its ``id`` if any."""

    def list(self, *, since: datetime | None = None) -> list[FeedbackRecord]:
        """Every item recorded at or after ``since`` (all when None), newest first."""


# -- site build state -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lease:
    """Who holds the rebuild lease and until when (seconds since the epoch)."""

    owner: str
    expires_at: float


class SiteState(Protocol):
    """The rebuild's lease (single flight), its manifest (incremental builds) and the
    navigation an import read (order and sections of the pages)."""

    def acquire_lease(self, owner: str, ttl_seconds: float) -> bool: ...

    def release_lease(self, owner: str) -> None: ...

    def read_lease(self) -> Lease | None:
        """The lease as stored (expired or not), None when nobody took it or it was released."""

    def load_manifest(self) -> dict[str, Any] | None: ...

    def save_manifest(self, manifest: Mapping[str, Any]) -> None: ...

    def load_nav(self) -> dict[str, Any] | None:
        """The navigation the last import read from ``mkdocs.yml`` (order and sections)."""

    def save_nav(self, nav: Mapping[str, Any] | None) -> None:
        """Replace the navigation (None removes it)."""

    def put_assets(self, assets: Mapping[str, bytes]) -> None:
        """Keep the files pages link (images, downloads) by their published path, which
        names their content (``_assets/<hash>/<name>``): putting one again is a no-op."""

    def held_assets(self, paths: Collection[str]) -> set[str]:
        """Which of ``paths`` the store holds (no bytes read)."""

    def get_assets(self, paths: Collection[str]) -> dict[str, bytes]:
        """The bytes of each of ``paths`` the store holds."""


# -- publishing the site ---------------------------------------------------------------

# Publication stages: what a reader reaches first is written last (GCS has no swap).
STAGE_PAGES = 0  # pages and static files
STAGE_LISTINGS = 1  # type listings, sitemap, search index
STAGE_INDEX = 2  # index.html


@dataclass(frozen=True, slots=True)
class Output:
    """One file of the site: its path under the root, its bytes, and its stage."""

    path: str
    data: bytes
    stage: int = STAGE_PAGES


@dataclass(frozen=True)
class Publication:
    """What one build changes: files to write, unchanged files to keep, files to delete."""

    build_id: str
    full: bool
    writes: Sequence[Output]
    keep: Sequence[str] = field(default_factory=tuple)
    delete: Sequence[str] = field(default_factory=tuple)


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


# -- model providers ------------------------------------------------------------------


class Embedder(Protocol):
    """Text -> unit vectors; documents and queries may be embedded differently."""

    name: str  # recorded with every vector, e.g. "local:use-m3@512"

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    def embed_query(self, text: str) -> Vector: ...


@dataclass(frozen=True, slots=True)
class Generation:
    """A model's answer; ``finish`` says why it stopped (``stop``, ``safety``…)."""

    text: str
    model: str
    finish: str = "stop"
    usage: Mapping[str, int] = field(default_factory=dict)


class Generator(Protocol):
    """Prompt -> text from a language model (``gemini``, ``openai``); answers and triage."""

    name: str

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation: ...


# Text as it is written, piece by piece; the generator's return value is the whole
# ``Generation`` (``answer = yield from stream``).
TextStream = collections.abc.Generator[str, None, Generation]


@runtime_checkable
class StreamingGenerator(Generator, Protocol):
    """A ``Generator`` that can also hand its text over as the model writes it."""

    def stream(self, system: str, prompt: str, *, max_tokens: int = 1024) -> TextStream: ...


# How well the wiki's passages answer a question: "low" makes the answer say so first.
Confidence = Literal["high", "low"]


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered source handed to an answerer: cited in the answer as ``[number]``."""

    number: int
    slug: str
    title: str
    heading: str
    text: str
    relevance: float  # 0..1, the ranking key ``ask`` reports as ``sources[].score``
    anchor: str = ""  # the id the site gives the passage's heading ("" : the page's top)


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
