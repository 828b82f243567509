"""``ask``: validate the question, retrieve (help mode), answer, record the hit, maybe archive.

``tutor`` mode touches neither the embedder nor the store. A store built with another
embedder than the configured one is a 503 ``reindex_required``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from shared.api.models import AskRequest
from shared.config import Settings
from shared.errors import BibliotecaError, ReindexRequired
from shared.gates.grounding import check_grounding
from shared.logs import get_logger
from shared.ports import Answerer, Embedder, Generator, Passage, SearchFilter, Store
from shared.retrieval import hybrid
from shared.retrieval.extractive import sentences
from shared.retrieval.fusion import Ranked
from shared.retrieval.text import strip_invisible
from shared.services.archive import archive_answer

# A chunk is relevant when its fused score or its dense similarity alone reaches these
# (bench/README.md: measured on answerable and off-topic questions).
MIN_SCORE = 0.24
MIN_DENSE = 0.30
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
) -> dict[str, Any]:
    """Answer one checked ``ask`` request; the store is touched only in help mode.

    ``judge`` is the archive gates' triage model (None: their local rules only).
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
    expected = embedder.name
    state = hybrid.snapshot(store.chunks)
    held = state.embedders
    if held and expected not in held:
        raise ReindexRequired(
            f"the wiki's index was built with {', '.join(sorted(held))} but the configured "
            f"embedder is {expected}: run `biblioteca reindex`"
        )
    t0 = time.perf_counter()
    vector = embedder.embed_query(question.text)
    t1 = time.perf_counter()
    found = hybrid.retrieve(
        store.chunks,
        question.text,
        vector,
        embedder=expected,
        filters=question.filters,
        limit=question.limit,
        state=state,
    )
    passages = numbered([r for r in found.ranked if relevant(r)])
    t2 = time.perf_counter()
    generation = answerer.answer(question.text, passages, mode="help")
    t3 = time.perf_counter()

    response: dict[str, Any] = {
        "answer": generation.text,
        "sources": [source(p) for p in passages],
        "model": generation.model,
        "chunks_used": len(passages),
        "duration_ms": _ms(started, t3),
        "mode": "help",
        "archive": {"attempted": False, "reason": "not-requested"},
        "timings": {"embed_ms": _ms(t0, t1), "search_ms": _ms(t1, t2), "generate_ms": _ms(t2, t3)},
    }
    slugs = list(dict.fromkeys(p.slug for p in passages))
    grounding: dict[str, Any] | None = None
    if question.archive:
        if authorized or settings.archive_from_widget:
            decision = archive_answer(
                question=question.text,
                answer=generation.text,
                sources=slugs,
                store=store,
                embedder=embedder,
                judge=judge,
                model=generation.model,
            )
            grounding = decision.pop("grounding", None)
            response["archive"] = {"attempted": True, **decision}
        else:
            response["archive"] = {"attempted": False, "reason": "unauthorized"}
    if grounding is None:  # the archive gates ran it already when they got that far
        grounding = grounding_of(generation.text, store)
    if grounding is not None:
        response["grounding"] = grounding
    record_hit(store, question, passages, generation.model, response["duration_ms"])
    return response


def relevant(ranked: Ranked) -> bool:
    """Whether a retrieved chunk is worth citing at all."""
    return ranked.score >= MIN_SCORE or (ranked.dense_found and ranked.dense >= MIN_DENSE)


def numbered(ranked: Sequence[Ranked]) -> list[Passage]:
    """Retrieved chunks as the answerer's numbered sources, best first from [1]."""
    return [
        Passage(
            number=i,
            slug=r.slug,
            title=r.title,
            heading=r.heading,
            text=strip_invisible(r.text),
            score=r.relevance,
        )
        for i, r in enumerate(ranked, start=1)
    ]


def source(passage: Passage) -> dict[str, Any]:
    """One entry of the response's ``sources``."""
    return {
        "slug": passage.slug,
        "title": passage.title,
        "heading": passage.heading,
        "score": round(passage.score, 4),
        "snippet": snippet(passage.text),
    }


def snippet(text: str) -> str:
    """The start of a chunk's prose (code and markup left out), cut on a word."""
    prose = " ".join(sentences(text)) or re.sub(r"\s+", " ", text).strip()
    if len(prose) <= SNIPPET_CHARS:
        return prose
    cut = prose.rfind(" ", 0, SNIPPET_CHARS)
    return prose[: cut if cut > SNIPPET_CHARS // 2 else SNIPPET_CHARS].rstrip(" ,;:") + "…"


def record_hit(
    store: Store, question: Question, passages: Sequence[Passage], model: str, duration_ms: float
) -> None:
    """The utility hit for gap analytics; a failure is logged, never the caller's problem."""
    try:
        store.events.record(
            "utility_hit",
            {
                "question": question.text,
                "mode": question.mode,
                "slugs": [p.slug for p in passages],
                "scores": [round(p.score, 4) for p in passages],
                "duration_ms": duration_ms,
                "model": model,
            },
        )
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
