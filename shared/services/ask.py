"""``ask``: validate the question, retrieve (help mode), answer, keep its trace, record the
hit, maybe archive.

``tutor`` mode touches neither the embedder nor the store. A store built with another
embedder than the configured one is a 503 ``reindex_required``. A question with a
``history`` is first read as a standalone one (``standalone_question``). ``ask_stream``
is the same answer as server-sent events: everything that can fail before the first
piece of text fails before the stream starts, as the usual error.
"""

from __future__ import annotations

import collections.abc
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypedDict

from shared.api.models import (
    MAX_QUESTION_CHARS,
    AskArchive,
    AskRequest,
    AskResponse,
    AskSource,
    SearchHit,
    SearchResponse,
)
from shared.api.models import Grounding as GroundingBody
from shared.config import Settings
from shared.errors import BibliotecaError, ReindexRequired
from shared.gates.grounding import check_grounding
from shared.gates.staleness import all_gone, demote_gone, state_of
from shared.json_value import JsonObject, JsonValue
from shared.logs import get_logger, scrub
from shared.loop.gap_groups import pack_vector
from shared.ports import Answerer, Embedder, Generator, Store
from shared.records import (
    Confidence,
    Freshness,
    FreshnessState,
    Generation,
    Passage,
    SearchFilter,
    TextStream,
    Vector,
)
from shared.retrieval import answer_checks, evidence, followup, hybrid, prompts
from shared.retrieval.evidence import Section
from shared.retrieval.extractive import sentences
from shared.retrieval.fusion import Ranked
from shared.retrieval.hybrid import IndexCache
from shared.retrieval.tokens import strip_invisible
from shared.services.archive import archive_answer
from shared.services.gaps import admits
from shared.services.rate_limit import Limiters
from shared.services.traces import keep_trace, new_answer_id
from shared.site.anchors import plain_heading, section_anchor
from shared.site.markdown import heading_anchors
from shared.site.paths import page_url
from shared.text import plaintext, wikilinks
from shared.text.code_paths import cited_paths
from shared.text.language import language

SNIPPET_CHARS = 240
# Pages outside the passages an answer may link to that are read for their titles.
MAX_LINKED_PAGES = 10
_log = get_logger("ask")


@dataclass(frozen=True, slots=True)
class Question:
    """A validated ``ask`` request. ``text`` is what is searched and answered: the
    question as asked, or a follow-up read as a standalone question (``asked`` keeps
    the words the caller used, ``thread`` the earlier questions, oldest first)."""

    text: str
    mode: Literal["help", "tutor"]
    filters: SearchFilter
    limit: int
    archive: bool
    asked: str = ""
    thread: tuple[str, ...] = ()

    @property
    def standalone(self) -> str | None:
        """The standalone reading of a follow-up; None for a question asked on its own."""
        return self.text if self.thread and self.text != self.asked else None


def as_question(request: AskRequest, condenser: Generator | None = None) -> Question:
    """The checked request as the service uses it: the filters as one ``SearchFilter``,
    a follow-up read as a standalone question (``condenser``: the model that rewrites
    it; None: the offline rule of ``retrieval.followup``)."""
    thread = tuple(turn.question for turn in request.history)
    return Question(
        text=standalone_question(request, condenser),
        mode=request.mode,
        filters=SearchFilter(
            page_type=request.source_type, category=request.category, tag=request.tag
        ),
        limit=request.limit,
        archive=request.archive,
        asked=request.question,
        thread=thread,
    )


def standalone_question(request: AskRequest, condenser: Generator | None = None) -> str:
    """The question a follow-up asks, read with its ``history``: rewritten by the model
    when there is one (its reply kept only when it is a plausible question), else the
    earlier question's subject carried over by the offline rule."""
    if not request.history:
        return request.question
    if condenser is None:
        return followup.standalone(request.question, [t.question for t in request.history])
    generation = condenser.generate(
        prompts.CONDENSE_SYSTEM,
        prompts.condense_prompt(
            request.question, [(t.question, t.answer) for t in request.history]
        ),
        max_tokens=prompts.CONDENSE_MAX_TOKENS,
    )
    rewritten = strip_invisible(generation.text).strip().strip('"').strip()
    if generation.finish != "stop" or not rewritten or len(rewritten) > MAX_QUESTION_CHARS:
        _log.warning("the condensed follow-up was unusable; the offline rule reads it")
        return followup.standalone(request.question, [t.question for t in request.history])
    return rewritten


@dataclass(frozen=True, slots=True)
class Prepared:
    """A question made ready to answer, the step ``ask`` and ``ask_stream`` share: read
    (a follow-up as a standalone question) and, in help mode, its evidence gathered
    (``found`` is None in tutor mode, which touches neither the embedder nor the store)."""

    question: Question
    found: Evidence | None
    started: float
    generating: float  # when the answerer was handed the question

    def answer(self, answerer: Answerer) -> Generation:
        passages, how = self._inputs()
        return answerer.answer(self.question.text, passages, **how)

    def stream(self, answerer: Answerer) -> TextStream:
        passages, how = self._inputs()
        return answerer.stream(self.question.text, passages, **how)

    def _inputs(self) -> tuple[list[Passage], _How]:
        """What the answerer is given besides the question: a tutor no passages."""
        if self.found is None:
            return [], {"mode": "tutor", "confidence": "high", "unmentioned": ()}
        how: _How = {
            "mode": "help",
            "confidence": self.found.confidence,
            "unmentioned": self.found.unmentioned,
        }
        return self.found.passages, how


class _How(TypedDict):
    mode: Literal["help", "tutor"]
    confidence: Confidence
    unmentioned: Sequence[str]


@dataclass(frozen=True, slots=True)
class Asking:
    """What answering uses: the settings and the process's collaborators (the wiring
    makes one per question). ``judge`` is the archive gates' triage model (None: their
    local rules only); ``condenser`` the model that reads a follow-up as a standalone
    question (None: the offline rule); ``index`` the process's search index; ``limits``
    its per-client limits (the widget's own, lower limit on archiving; gap signals)."""

    settings: Settings
    store: Store
    embedder: Embedder
    answerer: Answerer
    index: IndexCache
    limits: Limiters
    judge: Generator | None = None
    condenser: Generator | None = None


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks: with write credentials or not, from which client (the HTTP edge's
    client address, what per-client limits count), by which door (``ask``, or ``mcp``
    for an agent: the utility hit's ``origin``)."""

    authorized: bool
    client_id: str = ""
    origin: str = "ask"


def _prepare(request: AskRequest, using: Asking) -> Prepared:
    started = time.perf_counter()
    question = as_question(request, using.condenser)
    found = None
    if question.mode == "help":
        found = gather(
            question.text,
            question.filters,
            question.limit,
            using.store,
            using.embedder,
            using.index,
        )
    return Prepared(question, found, started, time.perf_counter())


def ask(request: AskRequest, using: Asking, asker: Asker) -> AskResponse:
    """Answer one checked ``ask`` request; the store is touched only in help mode."""
    prepared = _prepare(request, using)
    return _finish(prepared, prepared.answer(using.answerer), using, asker)


def _finish(prepared: Prepared, generation: Generation, using: Asking, asker: Asker) -> AskResponse:
    """The response to a written answer: a tutor's as it is, a help answer ``complete``d."""
    if prepared.found is None:
        return _tutor_response(generation, prepared.started, prepared.generating)
    return complete(
        prepared.question,
        prepared.found,
        generation,
        using,
        asker,
        started=prepared.started,
        generating=prepared.generating,
    )


# One event of ``ask``'s stream: its name and its data (a JSON object; ``done``'s is the
# whole response, which the edge serialises as ``ask``'s body).
Event = tuple[str, Mapping[str, JsonValue] | AskResponse]


def ask_stream(request: AskRequest, using: Asking, asker: Asker) -> Iterator[Event]:
    """``ask`` as events: ``sources`` (the sources the answer may cite), ``delta``
    (``{"text": …}``, as it is written), then ``done`` with the whole body ``ask``
    returns; a failure once the stream is under way is an ``error`` event with the
    contract's error body.

    Everything up to the first piece of text runs before this returns (retrieval, the
    model's status line): a refused key or a model that is down is then the usual
    error, raised here, not an event.
    """
    prepared = _prepare(request, using)
    pieces = prepared.stream(using.answerer)
    first, finished = _first_piece(pieces)
    found = prepared.found

    def events() -> Iterator[Event]:
        sources = (
            []
            if found is None
            else [
                source(p, found.state(p.slug), using.settings.site_url).body()
                for p in found.passages
            ]
        )
        yield "sources", {"sources": sources}
        try:
            if first:
                yield "delta", {"text": first}
            generation = finished
            if generation is None:
                generation = yield from _deltas(pieces)
            body = _finish(prepared, generation, using, asker)
            yield "done", body
        except BibliotecaError as exc:
            _log.warning("the answer's stream failed: %s", scrub(exc.full_message))
            yield "error", exc.body()

    return events()


def _first_piece(pieces: TextStream) -> tuple[str, Generation | None]:
    """The first piece of text (its call is where a model's errors surface), or the
    whole ``Generation`` when the answer ended without any."""
    try:
        return next(pieces), None
    except StopIteration as stop:
        generation: Generation = stop.value
        return "", generation


def _deltas(pieces: TextStream) -> collections.abc.Generator[Event, None, Generation]:
    """Each further piece as a ``delta`` event; returns the whole ``Generation``."""
    while True:
        try:
            piece = next(pieces)
        except StopIteration as stop:
            generation: Generation = stop.value
            return generation
        if piece:
            yield "delta", {"text": piece}


def _titled_links(text: str, passages: Sequence[Passage], store: Store) -> str:
    """The answer's wiki links named by their pages' titles, never their slugs: the
    passages' titles, and one read each for the few other pages it links to."""
    titles = {p.slug: p.title for p in passages}
    for slug in sorted(wikilinks.targets(text) - titles.keys())[:MAX_LINKED_PAGES]:
        try:
            page = store.pages.get(slug)
        except BibliotecaError:  # the answer goes out all the same, its link as written
            continue
        title = page.front_matter.get("title") if page is not None else None
        if isinstance(title, str) and title.strip():
            titles[slug] = title.strip()
    return wikilinks.titled(text, titles)


def _tutor_response(generation: Generation, started: float, generated: float) -> AskResponse:
    done = time.perf_counter()
    return AskResponse(
        answer=generation.text,
        sources=[],
        model=generation.model,
        chunks_used=0,
        duration_ms=_ms(started, done),
        mode="tutor",
        archive=AskArchive(attempted=False, reason="tutor-mode"),
        timings={"embed_ms": 0.0, "search_ms": 0.0, "generate_ms": _ms(generated, done)},
    )


def complete(
    question: Question,
    found: Evidence,
    generation: Generation,
    using: Asking,
    asker: Asker,
    *,
    started: float,
    generating: float,
) -> AskResponse:
    """The help-mode response of a written answer: checked against its passages, its
    trace kept, its hit recorded, archived if asked (whole or streamed alike)."""
    settings, passages = using.settings, found.passages
    t3 = time.perf_counter()
    # Whatever wrote it, the answer cites only passages it was given and says so when weak.
    checked = answer_checks.review(
        generation.text,
        passages,
        found.confidence,
        language(question.text),
        unmentioned=found.unmentioned,
    )
    if checked.dropped:
        _log.warning("the answer cited passages it was not given: %s", list(checked.dropped))
    checked = replace(checked, text=_titled_links(checked.text, passages, using.store))
    archive, grounding = _archived(question, checked.text, passages, generation, using, asker)
    if grounding is None:  # the archive gates ran it already when they got that far
        grounding = grounding_of(checked.text, using.store)
    unsupported = _unsupported(checked.text, passages, grounding)
    answer_id = new_answer_id()
    response = AskResponse(
        answer_id=answer_id,
        answer=checked.text,
        sources=[source(p, found.state(p.slug), settings.site_url) for p in passages],
        model=generation.model,
        chunks_used=len(passages),
        duration_ms=_ms(started, t3),
        mode="help",
        confidence=checked.confidence,
        archive=archive,
        timings={
            "embed_ms": found.embed_ms,
            "search_ms": found.search_ms,
            "generate_ms": _ms(generating, t3),
        },
        standalone_question=question.standalone,
        grounding=grounding,
        unsupported=unsupported or None,  # present only when there are some
    )
    _remember(question, found, answer_id, checked, response, using, asker)
    return response


def _archived(
    question: Question,
    answer: str,
    passages: Sequence[Passage],
    generation: Generation,
    using: Asking,
    asker: Asker,
) -> tuple[AskArchive, GroundingBody | None]:
    """Whether the answer went to the archive gates (asked for, and by whom), what they
    decided, and the grounding they computed on the way (None: they did not get there)."""
    if not question.archive:
        return AskArchive(attempted=False, reason="not-requested"), None
    anonymous_ok = using.settings.archive_from_widget and not asker.authorized
    if asker.authorized or (anonymous_ok and using.limits.widget_may_archive(asker.client_id)):
        decision = archive_answer(
            question=question.text,
            answer=answer,
            sources=[p.slug for p in passages],  # [n] cites passage n's page
            store=using.store,
            embedder=using.embedder,
            judge=using.judge,
            model=generation.model,
        )
        archive = AskArchive(
            attempted=True,
            archived=decision.archived,
            reason=decision.reason,
            slug=decision.slug,
            proposal=decision.proposal,
        )
        return archive, decision.grounding
    if anonymous_ok:  # the answer still goes out; only the draft waits
        return AskArchive(attempted=False, reason="rate-limited"), None
    return AskArchive(attempted=False, reason="unauthorized"), None


def _unsupported(
    answer: str, passages: Sequence[Passage], grounding: GroundingBody | None
) -> list[str]:
    """The paths the answer names that neither its passages nor the code index hold. The
    grounding check's one read of the code index also says which paths it holds; when
    the index could not say, the answer is judged by the passages alone."""
    if grounding is not None and grounding.checked:
        not_indexed = list(grounding.unresolved)
    else:
        not_indexed = cited_paths(answer)
    return answer_checks.unsupported(answer, passages, not_indexed)


def _remember(
    question: Question,
    found: Evidence,
    answer_id: str,
    checked: answer_checks.Reviewed,
    response: AskResponse,
    using: Asking,
    asker: Asker,
) -> None:
    """The answer's trace (for the curator's feedback) and its hit (for the gaps)."""
    keep_trace(
        using.store,
        answer_id=answer_id,
        question=question.asked or question.text,
        answer=checked.text,
        passages=found.passages,
        model=response.model,
        confidence=checked.confidence,
        origin=asker.origin,
        days=using.settings.trace_days,
        thread=question.thread,
        standalone=question.standalone,
    )
    record_hit(
        using.store,
        question,
        found.passages,
        response.model,
        response.duration_ms,
        confidence=checked.confidence,
        best_fused=found.best_fused,
        origin=asker.origin,
        vector=found.vector,
        embedder=found.embedder,
        limits=using.limits,
        client_id=None if asker.authorized or not asker.client_id else asker.client_id,
    )


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the wiki holds for a question: the passages an answer may cite, best first
    from [1], how strong they are, and what finding them cost."""

    passages: list[Passage]
    confidence: Confidence
    best_fused: float  # the best fused score of every chunk considered, cited or not
    embed_ms: float
    search_ms: float
    freshness: Mapping[str, Freshness] = field(default_factory=dict)  # of the cited pages
    unmentioned: tuple[str, ...] = ()  # names of the question the wiki never mentions
    # Chunks the gate left out that share words with the question, numbered after the
    # passages: what an agent's search still shows, marked by their low score.
    matched: list[Passage] = field(default_factory=list)
    vector: Vector | None = None  # the question's, kept with its utility hit (gaps)
    embedder: str | None = None  # the name of the embedder that made ``vector``

    def state(self, slug: str) -> FreshnessState:
        return state_of(self.freshness.get(slug))


def gather(
    text: str,
    filters: SearchFilter,
    limit: int,
    store: Store,
    embedder: Embedder,
    index: IndexCache,
) -> Evidence:
    """Retrieve for ``text`` and keep what passes the relevance gate (``ask``'s sources,
    and the results of the agents' ``search``); ``ReindexRequired`` when the index was
    built by another embedder than the configured one."""
    expected = embedder.name
    state = index.snapshot(store.chunks)
    held = state.embedders
    if held and expected not in held:
        raise ReindexRequired(
            f"the wiki's index was built with {', '.join(sorted(held))} but the configured "
            f"embedder is {expected}: run `biblioteca reindex`"
        )
    t0 = time.perf_counter()
    vector = embedder.embed_query(text)
    t1 = time.perf_counter()
    found = hybrid.retrieve(
        store.chunks,
        text,
        vector,
        embedder=expected,
        filters=filters,
        limit=limit,
        state=state,
    )
    cited = evidence.cited(found.ranked)
    freshness = freshness_of(cited, store)
    gone = {slug for slug, f in freshness.items() if all_gone(f)}
    ordered = demote_gone(cited, gone, lambda r: r.slug, lambda r: r.relevance)
    passages = with_anchors(numbered(ordered, found.sections), store)
    judgement = evidence.judge(text, found.ranked, ordered, found.vocabulary)
    sharing = [r for r in found.ranked if r.coverage > 0 and not evidence.relevant(r)]
    matched = numbered(sharing, found.sections, start=len(passages) + 1)
    t2 = time.perf_counter()
    return Evidence(
        passages=passages,
        matched=matched,
        confidence=judgement.confidence,
        unmentioned=judgement.unmentioned,
        best_fused=evidence.best_fused(found.ranked),
        embed_ms=_ms(t0, t1),
        search_ms=_ms(t1, t2),
        freshness=freshness,
        vector=vector,
        embedder=expected,
    )


def search(
    request: AskRequest,
    settings: Settings,
    *,
    store: Store,
    embedder: Embedder,
    index: IndexCache,
    limits: Limiters,
    client_id: str | None = None,
    origin: str = "mcp",
) -> SearchResponse:
    """The agents' ``search``: the passages ``ask`` would cite, then those that only share
    words with the query (an agent judges a weak match by its score and the confidence,
    it is not told "nothing"), recorded as ``ask``'s hits are, so gap analytics sees what
    agents did not find (an anonymous ``client_id``'s weak ones capped like the widget's)."""
    question = as_question(request)
    found = gather(question.text, question.filters, question.limit, store, embedder, index)
    record_hit(
        store,
        question,
        found.passages,
        embedder.name,
        round(found.embed_ms + found.search_ms, 1),
        confidence=found.confidence,
        best_fused=found.best_fused,
        origin=origin,
        tool="search",
        vector=found.vector,
        embedder=found.embedder,
        limits=limits,
        client_id=client_id,
    )
    shown = [*found.passages, *found.matched][: question.limit]
    return SearchResponse(
        results=[
            SearchHit(**source(p, found.state(p.slug), settings.site_url).model_dump())
            for p in shown
        ],
        confidence=found.confidence,
    )


def freshness_of(cited: Sequence[Ranked], store: Store) -> dict[str, Freshness]:
    """The stored freshness of the cited pages, in one read; none when it cannot be read
    (an answer is worth more than its freshness marks: they read ``unknown``)."""
    slugs = list(dict.fromkeys(r.slug for r in cited))
    if not slugs:
        return {}
    try:
        return store.pages.freshness_of(slugs)
    except BibliotecaError as exc:
        _log.warning("freshness not read (sources say unknown): %s", exc)
        return {}


def with_anchors(passages: list[Passage], store: Store) -> list[Passage]:
    """The passages with the anchor the site gives their heading, from one read of their
    pages' bodies; without anchors (the page's top) when the bodies cannot be read."""
    slugs = list(dict.fromkeys(p.slug for p in passages))
    if not slugs:
        return passages
    try:
        bodies = store.pages.contents_of(slugs)
    except BibliotecaError as exc:
        _log.warning("headings not read (sources link their page's top): %s", exc)
        return passages
    headings = {slug: heading_anchors(body) for slug, body in bodies.items()}
    return [
        replace(p, anchor=section_anchor(headings.get(p.slug, ()), p.heading)) for p in passages
    ]


def numbered(
    ranked: Sequence[Ranked],
    rows: Mapping[tuple[str, int], Section] | None = None,
    *,
    start: int = 1,
) -> list[Passage]:
    """Retrieved chunks as the answerer's numbered sources, best first from [start]; with
    the retrieval's ``sections``, each runs on into the rest of its section
    (``evidence.section_text``). A link to a heading of the chunk's own page becomes a
    wiki link to that page's heading: quoted elsewhere, it still leads there."""
    return [
        Passage(
            number=i,
            slug=r.slug,
            title=r.title,
            heading=r.heading,
            text=wikilinks.anchor_links(
                strip_invisible(
                    r.text
                    if rows is None
                    else evidence.section_text(r, rows, ranked, lead=i == start == 1)
                ),
                r.slug,
            ),
            relevance=r.relevance,
            kind=r.kind,
        )
        for i, r in enumerate(ranked, start=start)
    ]


def source(
    passage: Passage, freshness: FreshnessState = "unknown", site_url: str | None = None
) -> AskSource:
    """One entry of the response's ``sources``: ``url`` opens the page at the passage's
    heading (absolute under ``BIBLIOTECA_SITE_URL``, else relative to the site's root)."""
    return AskSource(
        slug=passage.slug,
        title=passage.title,
        heading=plain_heading(passage.heading),
        url=page_url(site_url, passage.slug, passage.anchor),
        score=round(passage.relevance, 4),
        snippet=snippet(passage.text),
        freshness=freshness,
        kind=passage.kind,
    )


def snippet(text: str) -> str:
    """The start of a chunk's prose as plain text (code and markup left out: the widget
    shows it as text), cut on a word."""
    prose = plaintext.inline(" ".join(sentences(text)) or text)
    if len(prose) <= SNIPPET_CHARS:
        return prose
    cut = prose.rfind(" ", 0, SNIPPET_CHARS)
    return prose[: cut if cut > SNIPPET_CHARS // 2 else SNIPPET_CHARS].rstrip(" ,;:") + "…"


def record_hit(
    store: Store,
    question: Question,
    passages: Sequence[Passage],
    model: str,
    duration_ms: float,
    *,
    confidence: Confidence,
    best_fused: float,
    origin: str = "ask",
    tool: str | None = None,
    vector: Vector | None = None,
    embedder: str | None = None,
    limits: Limiters | None = None,
    client_id: str | None = None,
) -> None:
    """The utility hit for gap analytics (``confidence`` "low" and the best fused score
    mark what the wiki answered weakly); ``origin`` is the door (``ask``, ``mcp``) and
    ``tool`` the agent's tool; ``client_id``, an anonymous caller, whose gap signals are
    capped (``gaps.SIGNALS_PER_CLIENT``). A failure is logged, never the caller's problem."""
    data: JsonObject = {
        "question": question.text,
        "mode": question.mode,
        "origin": origin,
        "slugs": [p.slug for p in passages],
        "scores": [round(p.relevance, 4) for p in passages],
        "confidence": confidence,
        "best_fused": round(best_fused, 4),
        "duration_ms": duration_ms,
        "model": model,
    }
    if tool is not None:
        data["tool"] = tool
    if vector is not None and embedder is not None:
        # The question's vector, computed for the search anyway, goes with the hit: the
        # gap report then embeds nothing (docs/limits.md, "Gap signals").
        data["vector"] = pack_vector(vector)
        data["embedder"] = embedder
    if limits is not None and not admits(data, client_id, limits):
        return  # this client's weak questions already filled its share of the gap log
    try:
        store.events.record("utility_hit", data)
    except Exception:  # analytics must never cost an answer
        _log.exception("could not record the utility hit")


def grounding_of(answer: str, store: Store) -> GroundingBody | None:
    """The grounding check of an answer's cited code paths; None if it cannot run."""
    try:
        return GroundingBody.model_validate(check_grounding(answer, store.code).body())
    except BibliotecaError as exc:  # an answer is worth more than its grounding report
        _log.warning("grounding not reported: %s", exc)
        return None


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 1)
