"""The composition root: the one place that builds stores, model providers and publishers.

Entry points (functions, CLI, MCP tools) take what a request needs from ``wiring()``
and hand each service only that; the use cases with many collaborators or with state of
the process (``ask``, ``ask_stream``, ``search``, ``archive``, ``pages_citing``,
``rebuild``, ``create_page``, ``update_page``, ``propose_update``) are assembled here,
by ``Wiring``'s methods, and nowhere else. Everything is built on first use and
kept for the process (STYLE 2): the store a tutor answer never touches is never opened,
and the embedder a metadata-only update never calls never asks for its key. The state
kept between requests (search index, citations index, rate limits, snapshot saves, the
page turns of concurrent writers) is the wiring's too: ``close()`` ends it before the
process exits, and tests reset it all with ``reset()``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from shared.config import Role, Settings, get_settings
from shared.ports import (
    Answerer,
    AnswerTraces,
    ChunkIndex,
    CodeIndex,
    DuplicateIndex,
    Embedder,
    EnrichLedger,
    EventLog,
    FeedbackStore,
    Generator,
    PageStore,
    ProposalStore,
    ReportWriter,
    RevisionLog,
    SitePublisher,
    SiteState,
    Store,
)
from shared.providers.table import EMBEDDERS, GENERATORS
from shared.records import Generation, Vector

# Provider modules are imported where a provider is built: a function configured for
# the local models never loads httpx or the Gemini client (a cold start pays for less).
if TYPE_CHECKING:
    import httpx

    from shared.api.models import (
        ArchiveRequest,
        ArchiveResponse,
        AskRequest,
        AskResponse,
        DuplicatesResponse,
        PagesCitingResponse,
        ProposeResponse,
        SearchResponse,
        WikiCreateRequest,
        WikiUpdateRequest,
    )
    from shared.providers.pubsub import ChangePublisher
    from shared.retrieval.hybrid import IndexCache
    from shared.services.ask import Asking, Event
    from shared.services.citations import CitationCache
    from shared.services.enrich import Enrichment
    from shared.services.rate_limit import Limiters, SlidingWindow
    from shared.services.site_build import BuildReport
    from shared.services.wiki import PageTurns, WriteResult

_lock = threading.RLock()
_stores: dict[tuple[str, str], Store] = {}
_http: httpx.Client | None = None
_current: Wiring | None = None


# -- the store --------------------------------------------------------------------------


def open_store(settings: Settings) -> Store:
    """The store the settings name, opened once per process (its clients connect lazily)."""
    key = (settings.store, settings.google_cloud_project or str(settings.data_dir.resolve()))
    with _lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = _build_store(settings)
            store.events.retention_days = settings.trace_days  # type: ignore[attr-defined]
            store.feedback.retention_days = settings.trace_days  # type: ignore[attr-defined]
        return store


def _build_store(settings: Settings) -> Store:
    if settings.store == "firestore":
        from shared.store.firestore import FirestoreStore

        return FirestoreStore(
            project=settings.require_project(), revisions_keep=settings.revisions_keep
        )
    from shared.store.sqlite import SqliteStore

    return SqliteStore(settings.data_dir, revisions_keep=settings.revisions_keep)


class _LazyStore:
    """The configured store, opened when one of its ports is first used.

    A missing setting (``GOOGLE_CLOUD_PROJECT``) is then the 503 of the request that
    reads or writes, not of one that never touches the store (a tutor answer).
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    def _opened(self) -> Store:
        return open_store(self._settings)

    @property
    def pages(self) -> PageStore:
        return self._opened().pages

    @property
    def chunks(self) -> ChunkIndex:
        return self._opened().chunks

    @property
    def code(self) -> CodeIndex:
        return self._opened().code

    @property
    def events(self) -> EventLog:
        return self._opened().events

    @property
    def site(self) -> SiteState:
        return self._opened().site

    @property
    def traces(self) -> AnswerTraces:
        return self._opened().traces

    @property
    def feedback(self) -> FeedbackStore:
        return self._opened().feedback

    @property
    def revisions(self) -> RevisionLog:
        return self._opened().revisions

    @property
    def proposals(self) -> ProposalStore:
        return self._opened().proposals

    @property
    def enrichment(self) -> EnrichLedger:
        return self._opened().enrichment

    @property
    def duplicates(self) -> DuplicateIndex:
        return self._opened().duplicates


# -- model providers --------------------------------------------------------------------


def http_client() -> httpx.Client:
    """One pooled HTTP client per process (connections to the model API are reused)."""
    global _http
    with _lock:
        if _http is None:
            import httpx

            from shared.providers.model_http import DEFAULT_DEADLINE_S

            _http = httpx.Client(timeout=DEFAULT_DEADLINE_S, follow_redirects=False)
        return _http


def embedder_name(settings: Settings) -> str:
    """The name the configured embedder records with its vectors, without building it."""
    return EMBEDDERS[settings.embedder].recorded_as(settings)


def build_embedder(settings: Settings) -> Embedder:
    """The configured embedder, built now (``NotConfigured`` if it needs a missing key)."""
    return EMBEDDERS[settings.embedder].build(settings, http_client)


def build_generator(settings: Settings) -> Generator | None:
    """The configured language model (``BIBLIOTECA_LLM=gemini`` or ``openai``), or None
    when offline; ``NotConfigured`` naming the variable a model needs and lacks. Its
    calls share the process's model slots (``shared.providers.model_slots``)."""
    return GENERATORS[settings.llm].build(settings, http_client)


def answerer_name(settings: Settings) -> str:
    """Who writes this deployment's answers, without building it (an archived answer's
    provenance when the caller did not say)."""
    return GENERATORS[settings.llm].answerer(settings)


class _LazyEmbedder:
    """An ``Embedder`` whose provider is built on the first text it must embed.

    Its ``name`` is known without building, so chunk hashes can be compared and vectors
    reused: an update that re-embeds nothing needs no key and makes no call.
    """

    def __init__(self, name: str, build: Callable[[], Embedder]) -> None:
        self.name = name
        self._build = build
        self._built: Embedder | None = None

    def _embedder(self) -> Embedder:
        with _lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._embedder().embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        return self._embedder().embed_query(text)


class _LazyGenerator:
    """A ``Generator`` built on its first call (the triage model runs after cheaper gates)."""

    def __init__(self, name: str, build: Callable[[], Generator | None]) -> None:
        self.name = name
        self._build = build
        self._built: Generator | None = None

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        with _lock:
            if self._built is None:
                self._built = self._build()
        assert self._built is not None  # only made when a model is configured
        return self._built.generate(system, prompt, max_tokens=max_tokens)


# -- the wiring of one configuration ----------------------------------------------------


class Wiring:
    """The collaborators one ``Settings`` configures, each built on first use, and the
    process's state they keep between requests: the search index (``index``, with the
    snapshot saves it starts in threads of their own), the citations index
    (``citations``), the per-client rate limits (``limits``) and the turns the writers
    of one page take (``turns``). ``close()`` lets the saves finish and forgets the
    rest; nothing of it lives in a module global."""

    def __init__(
        self, settings: Settings, *, store: Store | None = None, embedder: Embedder | None = None
    ) -> None:
        """``store`` and ``embedder`` replace the configured ones (the service test tier
        wires a temporary SQLite store and a deterministic embedder)."""
        self.settings = settings
        self.store: Store = store or _LazyStore(settings)
        self.embedder: Embedder = embedder or _LazyEmbedder(
            embedder_name(settings), lambda: build_embedder(settings)
        )
        # None: the archive gates use their local rules only (BIBLIOTECA_LLM=local).
        self.judge: Generator | None = (
            _LazyGenerator(answerer_name(settings), lambda: build_generator(settings))
            if settings.llm != "local"
            else None
        )
        # The same model reads a follow-up as a standalone question (None: the offline rule).
        self.condenser: Generator | None = self.judge
        self.answerer_name = answerer_name(settings)
        self._index: IndexCache | None = None
        self._citations: CitationCache | None = None
        self._limits: Limiters | None = None
        self._turns: PageTurns | None = None
        self._changes: ChangePublisher | None = None

    # The process's state, made on first use (a function that never searches never
    # imports the search index).

    @property
    def index(self) -> IndexCache:
        """The in-memory search index of each chunk index, and its snapshot saves."""
        with _lock:
            if self._index is None:
                from shared.retrieval.hybrid import IndexCache

                self._index = IndexCache(self.settings.dense_max_mb * 2**20)
            return self._index

    @property
    def citations(self) -> CitationCache:
        """The code paths the published pages cite (``pages_citing``)."""
        with _lock:
            if self._citations is None:
                from shared.services.citations import CitationCache

                self._citations = CitationCache()
            return self._citations

    @property
    def limits(self) -> Limiters:
        """The per-client rate limits, one per purpose and window."""
        with _lock:
            if self._limits is None:
                from shared.services.rate_limit import Limiters

                self._limits = Limiters()
            return self._limits

    @property
    def turns(self) -> PageTurns:
        """The writers of one page take turns in this process (``update_validated``); a
        page's lock lives while a writer holds or waits for it, so nothing to close."""
        with _lock:
            if self._turns is None:
                from shared.services.wiki import PageTurns

                self._turns = PageTurns()
            return self._turns

    def close(self, timeout: float | None = 120) -> None:
        """Wait for the index snapshot saves under way (a process about to exit must not
        tear the interpreter down under one), then forget every cache and count (what
        was never made is not made now)."""
        with _lock:
            index, citations, limits = self._index, self._citations, self._limits
        if index is not None:
            index.close(timeout)
        if citations is not None:
            citations.clear()
        if limits is not None:
            limits.clear()

    def limiter(self, purpose: Literal["ask", "feedback"] = "ask") -> SlidingWindow:
        """The per-client limit of ``purpose`` (``BIBLIOTECA_RATE_LIMIT``; each counts
        apart): ``ask``'s also counts the agents' tools that run a model."""
        return self.limits.get(self.settings.rate_limit_window, purpose)

    def answerer(self) -> Answerer:
        """Who writes ``ask``'s answers, built now: a missing key is a 503 before any work."""
        from shared.providers.answerers import LocalAnswerer, ModelAnswerer

        generator = build_generator(self.settings)
        if generator is None:
            return LocalAnswerer()
        return ModelAnswerer(generator, max_tokens=self.settings.llm_max_tokens)

    def publisher(self) -> SitePublisher:
        """Where ``rebuild`` publishes: a bucket for ``gs://``, else a local folder."""
        location = self.settings.site_location
        if location.startswith("gs://"):
            from shared.publish.gcs import GcsPublisher

            return GcsPublisher(location)
        from shared.publish.local import LocalPublisher

        return LocalPublisher(location)

    def curator_report(self) -> ReportWriter:
        """Where ``rebuild`` writes the private report (checked by the build itself)."""
        from shared.publish.report import CuratorReport

        return CuratorReport(self.settings.report_location, self.settings.site_location)

    # -- the use cases, assembled here and nowhere else ---------------------------------

    def ask(
        self,
        request: AskRequest,
        *,
        authorized: bool,
        client_id: str = "",
        origin: str = "ask",
    ) -> AskResponse:
        """One answer (``shared.services.ask.ask``) with every collaborator it uses; the
        answerer is built first, so a missing key is a 503 before any work."""
        from shared.services.ask import Asker, ask

        return ask(request, self._asking(), Asker(authorized, client_id, origin))

    def ask_stream(
        self,
        request: AskRequest,
        *,
        authorized: bool,
        client_id: str = "",
        origin: str = "ask",
    ) -> Iterator[Event]:
        """``ask`` as server-sent events (``shared.services.ask.ask_stream``)."""
        from shared.services.ask import Asker, ask_stream

        return ask_stream(request, self._asking(), Asker(authorized, client_id, origin))

    def _asking(self) -> Asking:
        from shared.services.ask import Asking

        return Asking(
            settings=self.settings,
            store=self.store,
            embedder=self.embedder,
            answerer=self.answerer(),
            index=self.index,
            limits=self.limits,
            judge=self.judge,
            condenser=self.condenser,
        )

    def search(self, request: AskRequest, client_id: str | None = None) -> SearchResponse:
        """The agents' ``search``: the passages ``ask`` would cite, and the near misses
        (``client_id``: an anonymous caller, whose gap signals are capped)."""
        from shared.services.ask import search

        return search(
            request,
            self.settings,
            store=self.store,
            embedder=self.embedder,
            index=self.index,
            limits=self.limits,
            client_id=client_id,
        )

    def pages_citing(self, path: str) -> PagesCitingResponse:
        """The agents' ``pages_citing``: the published pages citing a code path."""
        from shared.services.citations import citing_report

        return citing_report(path, self.store, self.citations, self.settings.site_url)

    def archive(self, request: ArchiveRequest) -> ArchiveResponse:
        """``POST /archive``: an answer through the gates (``archive_request``)."""
        from shared.services.archive import archive_request

        return archive_request(request, self.store, self.embedder, self.judge, self.answerer_name)

    def create_page(
        self, request: WikiCreateRequest, *, actor: str, role: Role = "writer"
    ) -> WriteResult:
        """``POST /wiki_create`` (``shared.services.wiki.create_page``)."""
        from shared.services.wiki import create_page

        result = create_page(request, self.store, self.embedder, actor=actor, role=role)
        self.publish_changes()
        return result

    def update_page(
        self, request: WikiUpdateRequest, *, actor: str, role: Role = "writer"
    ) -> WriteResult:
        """``POST /wiki_update`` (``shared.services.wiki.update_page``), in its page's turn
        among this process's writers (``turns``)."""
        from shared.services.wiki import update_page

        result = update_page(
            request, self.store, self.embedder, actor=actor, turns=self.turns, role=role
        )
        self.publish_changes()
        return result

    def enrichment(self) -> Enrichment:
        """The enrichment worker (``shared.services.enrich``) on this store and embedder."""
        from shared.services.enrich import Enrichment

        return Enrichment(self.store, self.embedder, self.settings.enrich, self.judge)

    def publish_changes(self, *, anywhere: bool = False) -> int:
        """Drain the change log's outbox to the Pub/Sub topic: called after each HTTP
        write's commit, on Firestore with enrichment on, where Pub/Sub is there (a
        deployed function, ``K_SERVICE``, or the emulator, ``PUBSUB_EMULATOR_HOST``).
        A failure is logged, never the writer's: the change stays in the log and the
        next drain publishes it. ``anywhere``: from any machine with credentials
        (``biblioteca enrich --publish``)."""
        if not self.publishes(anywhere=anywhere):
            return 0
        from shared.services.enrich import publish_changes

        try:
            with _lock:
                if self._changes is None:
                    from shared.providers.pubsub import ChangePublisher

                    project = self.settings.require_project()
                    self._changes = ChangePublisher(project, self.settings.enrich_topic)
                publisher = self._changes
            return publish_changes(self.store, publisher.publish)
        except Exception as exc:  # the write is committed: publishing is the outbox's job
            logging.getLogger(__name__).warning("page changes not published yet: %s", exc)
            return 0

    def publishes(self, *, anywhere: bool = False) -> bool:
        """Whether writes publish their changes to Pub/Sub (see ``publish_changes``)."""
        settings = self.settings
        if settings.store != "firestore" or settings.enrich == "off":
            return False
        return anywhere or bool(
            os.environ.get("K_SERVICE") or os.environ.get("PUBSUB_EMULATOR_HOST")
        )

    def propose_update(self, request: WikiUpdateRequest, *, actor: str) -> ProposeResponse:
        """The agents' ``propose_update`` (``shared.services.review``): an edit of a draft
        takes its page's turn as ``update_page`` does."""
        from shared.services.review import propose_update

        return propose_update(request, self.store, self.embedder, actor=actor, turns=self.turns)

    def duplicates(self, *, min_score: float) -> DuplicatesResponse:
        """``POST /wiki_duplicates`` and ``biblioteca duplicates``: refresh, then list
        (``shared.services.duplicates``)."""
        from shared.services.duplicates import find_duplicates

        return find_duplicates(self.store, min_score=min_score)

    def store_index_snapshot(self) -> int:
        """Store the search index's snapshot now (after a bulk write); the chunks it holds."""
        from shared.retrieval.hybrid import store_snapshot

        return store_snapshot(self.store.chunks, self.index)

    def warm(self) -> None:
        """Load now what a first question would load: ``ask``'s modules, the offline model
        (a Gemini embedder is left alone: a call costs), and the search snapshot. For a
        long-lived server (``serve``), before its first request: that question then costs
        what any other does. A function's cold start does not call it (nothing is loaded
        that its request may not need)."""
        import shared.services.ask  # noqa: F401  (its imports: most of a first question)
        from shared.retrieval.hybrid import snapshot

        if self.settings.embedder == "local":
            self.embedder.embed_query("¿Cómo? How?")
        snapshot(self.store.chunks, self.index)

    def rebuild(self, full: bool = False) -> BuildReport:
        """One build of the configured site (incremental unless ``full``), with every
        collaborator the build uses: the curator report's gaps need the embedder, which
        is loaded only when there are gaps to group."""
        from shared.services.site_build import build_site

        return build_site(
            self.settings,
            full,
            store=self.store,
            publisher=self.publisher(),
            curator_report=self.curator_report(),
            embedder=self.embedder,
        )


def rate_limit(purpose: Literal["ask", "feedback"]) -> Callable[[Settings, str], None]:
    """The check ``shared.http.handle`` runs once it has read a body: a client over its
    limit of ``purpose`` is a 429, and every request that gets as far as its body counts,
    a body that is not JSON too."""

    def check(settings: Settings, client_id: str) -> None:
        wiring(settings).limiter(purpose).check(client_id)

    return check


def wiring(settings: Settings | None = None) -> Wiring:
    """The process's wiring of ``settings`` (default: ``get_settings()``), made once."""
    global _current
    chosen = settings if settings is not None else get_settings()
    with _lock:
        replaced = None
        if _current is None or _current.settings is not chosen:
            replaced, _current = _current, Wiring(chosen)
        made = _current
    if replaced is not None:  # other settings (tests): what it started ends first
        replaced.close()
    return made


def install(chosen: Wiring) -> None:
    """Make ``chosen`` the process's wiring of its settings (tests that wire by hand)."""
    global _current
    with _lock:
        replaced, _current = _current, chosen
    if replaced is not None and replaced is not chosen:
        replaced.close()


def close() -> None:
    """Close the process's wiring, if one was made (``Wiring.close``): a process about to
    exit calls this, so no snapshot save is cut off."""
    with _lock:
        current = _current
    if current is not None:
        current.close()


def settle() -> None:
    """Wait for the snapshot saves the process's wiring started (tests, between tests)."""
    with _lock:
        current = _current
    if current is not None and current._index is not None:
        current._index.settle()


def reset_limits() -> None:
    """Forget the per-client counts of the process's wiring (tests that change the window)."""
    with _lock:
        current = _current
    if current is not None and current._limits is not None:
        current._limits.clear()


def reset() -> None:
    """Close the wiring and forget every store, provider and wiring (tests that change
    the environment)."""
    global _current
    with _lock:
        current, _current = _current, None
        _stores.clear()
    if current is not None:
        current.close()
