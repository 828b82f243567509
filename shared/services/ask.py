"""``ask``: validate the question, retrieve (help mode), answer, keep its trace, record the
hit, maybe archive.

``tutor`` mode touches neither the embedder nor the store. A store built with another
embedder than the configured one is a 503 ``reindex_required``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from shared import plaintext
from shared.api.models import AskRequest
from shared.config import Settings
from shared.errors import BibliotecaError, ReindexRequired
from shared.freshness import all_gone, demote_gone, state_of
from shared.gaps import pack_vector
from shared.gates.code_paths import cited_paths
from shared.gates.grounding import check_grounding
from shared.logs import get_logger
from shared.ports import (
    Answerer,
    Confidence,
    Embedder,
    Freshness,
    FreshnessState,
    Generator,
    Passage,
    SearchFilter,
    Store,
    Vector,
)
from shared.retrieval import answer_checks, evidence, hybrid
from shared.retrieval.evidence import Section
from shared.retrieval.extractive import sentences
from shared.retrieval.fusion import Ranked
from shared.retrieval.text import language, strip_invisible
from shared.services.archive import archive_answer
from shared.services.rate_limit import widget_may_archive
from shared.services.traces import keep_trace, new_answer_id

SNIPPET_CHARS = 240
_log = get_logger("ask")


@dataclass(frozen=True, slots=True)
class Question:
    """A validated ``ask`` request."""

    text: str
    mode: Literal["help", "tutor"]
    filters: SearchFilter
    limit: int
    archive: bool


def as_question(request: AskRequest) -> Question:
    """The checked request as the service uses it: the filters as one ``SearchFilter``."""
    return Question(
        text=request.question,
        mode=request.mode,
        filters=SearchFilter(
            page_type=request.source_type, category=request.category, tag=request.tag
        ),
        limit=request.limit,
        archive=request.archive,
    )


def ask(
    request: AskRequest,
    settings: Settings,
    *,
    authorized: bool,
    store: Store,
    embedder: Embedder,
    answerer: Answerer,
    judge: Generator | None = None,
    client_id: str = "",
    origin: str = "ask",
) -> dict[str, Any]:
    """Answer one checked ``ask`` request; the store is touched only in help mode.

    ``judge`` is the archive gates' triage model (None: their local rules only);
    ``client_id`` is who asks (the HTTP edge's client address), for the widget's own,
    lower limit on archiving; ``origin`` names the door it came by in the utility hit
    (``ask``, or ``mcp`` for an agent).
    """
    started = time.perf_counter()
    question = as_question(request)
    if question.mode == "tutor":
        generated = time.perf_counter()
        generation = answerer.answer(question.text, [], mode="tutor")
        done = time.perf_counter()
        return {
            "answer": generation.text,
            "sources": [],
            "model": generation.model,
            "chunks_used": 0,
            "duration_ms": _ms(started, done),
            "mode": "tutor",
            "archive": {"attempted": False, "reason": "tutor-mode"},
            "timings": {"embed_ms": 0.0, "search_ms": 0.0, "generate_ms": _ms(generated, done)},
        }
    found = gather(question.text, question.filters, question.limit, store, embedder)
    passages, confidence = found.passages, found.confidence
    t2 = time.perf_counter()
    generation = answerer.answer(question.text, passages, mode="help", confidence=confidence)
    t3 = time.perf_counter()
    # Whatever wrote it, the answer cites only passages it was given and says so when weak.
    checked = answer_checks.review(generation.text, passages, confidence, language(question.text))
    if checked.dropped:
        _log.warning("the answer cited passages it was not given: %s", list(checked.dropped))

    answer_id = new_answer_id()
    response: dict[str, Any] = {
        "answer_id": answer_id,
        "answer": checked.text,
        "sources": [source(p, found.state(p.slug)) for p in passages],
        "model": generation.model,
        "chunks_used": len(passages),
        "duration_ms": _ms(started, t3),
        "mode": "help",
        "confidence": checked.confidence,
        "archive": {"attempted": False, "reason": "not-requested"},
        "timings": {
            "embed_ms": found.embed_ms,
            "search_ms": found.search_ms,
            "generate_ms": _ms(t2, t3),
        },
    }
    slugs = list(dict.fromkeys(p.slug for p in passages))
    grounding: dict[str, Any] | None = None
    if question.archive:
        anonymous_ok = settings.archive_from_widget and not authorized
        if authorized or (anonymous_ok and widget_may_archive(client_id)):
            decision = archive_answer(
                question=question.text,
                answer=checked.text,
                sources=slugs,
                store=store,
                embedder=embedder,
                judge=judge,
                model=generation.model,
            )
            grounding = decision.pop("grounding", None)
            response["archive"] = {"attempted": True, **decision}
        elif anonymous_ok:  # the answer still goes out; only the draft waits
            response["archive"] = {"attempted": False, "reason": "rate-limited"}
        else:
            response["archive"] = {"attempted": False, "reason": "unauthorized"}
    if grounding is None:  # the archive gates ran it already when they got that far
        grounding = grounding_of(checked.text, store)
    if grounding is not None:
        response["grounding"] = grounding
    # The grounding check's one read of the code index also says which paths it holds.
    if grounding is not None and grounding["checked"]:
        not_indexed = list(grounding["unresolved"])
    else:  # the index could not say: judged by the passages alone
        not_indexed = cited_paths(checked.text)
    unsupported = answer_checks.unsupported(checked.text, passages, not_indexed)
    if unsupported:
        response["unsupported"] = unsupported
    keep_trace(
        store,
        answer_id=answer_id,
        question=question.text,
        answer=checked.text,
        passages=passages,
        model=generation.model,
        confidence=checked.confidence,
        origin=origin,
        days=settings.trace_days,
    )
    record_hit(
        store,
        question,
        passages,
        generation.model,
        response["duration_ms"],
        confidence=checked.confidence,
        best_fused=found.best_fused,
        origin=origin,
        vector=found.vector,
        embedder=found.embedder,
    )
    return response


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
    vector: Vector | None = None  # the question's, kept with its utility hit (gaps)
    embedder: str | None = None  # the name of the embedder that made ``vector``

    def state(self, slug: str) -> FreshnessState:
        return state_of(self.freshness.get(slug))


def gather(
    text: str, filters: SearchFilter, limit: int, store: Store, embedder: Embedder
) -> Evidence:
    """Retrieve for ``text`` and keep what passes the relevance gate (``ask``'s sources,
    and the results of the agents' ``search``); ``ReindexRequired`` when the index was
    built by another embedder than the configured one."""
    expected = embedder.name
    state = hybrid.snapshot(store.chunks)
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
    passages = numbered(ordered, found.sections)
    t2 = time.perf_counter()
    return Evidence(
        passages=passages,
        confidence=evidence.confidence(found.ranked, cited),
        best_fused=evidence.best_fused(found.ranked),
        embed_ms=_ms(t0, t1),
        search_ms=_ms(t1, t2),
        freshness=freshness,
        vector=vector,
        embedder=expected,
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


def numbered(
    ranked: Sequence[Ranked], rows: Mapping[tuple[str, int], Section] | None = None
) -> list[Passage]:
    """Retrieved chunks as the answerer's numbered sources, best first from [1]; with the
    retrieval's ``sections``, each runs on into the rest of its section
    (``evidence.section_text``)."""
    return [
        Passage(
            number=i,
            slug=r.slug,
            title=r.title,
            heading=r.heading,
            text=strip_invisible(
                r.text if rows is None else evidence.section_text(r, rows, ranked)
            ),
            relevance=r.relevance,
        )
        for i, r in enumerate(ranked, start=1)
    ]


def source(passage: Passage, freshness: FreshnessState = "unknown") -> dict[str, Any]:
    """One entry of the response's ``sources``."""
    return {
        "slug": passage.slug,
        "title": passage.title,
        "heading": passage.heading,
        "score": round(passage.relevance, 4),
        "snippet": snippet(passage.text),
        "freshness": freshness,
    }


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
) -> None:
    """The utility hit for gap analytics (``confidence`` "low" and the best fused score
    mark what the wiki answered weakly); ``origin`` is the door (``ask``, ``mcp``) and
    ``tool`` the agent's tool. A failure is logged, never the caller's problem."""
    data: dict[str, Any] = {
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
    try:
        store.events.record("utility_hit", data)
    except Exception:  # analytics must never cost an answer
        _log.exception("could not record the utility hit")


def grounding_of(answer: str, store: Store) -> dict[str, Any] | None:
    """The grounding check of an answer's cited code paths; None if it cannot run."""
    try:
        return check_grounding(answer, store.code).body()
    except BibliotecaError as exc:  # an answer is worth more than its grounding report
        _log.warning("grounding not reported: %s", exc)
        return None


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 1)
