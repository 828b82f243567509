"""Archiving answers as draft pages: the gates cheapest first, then one idempotent write.

Entry points (the ``ask`` service calls the first when a request has ``archive: true``):

- ``archive_answer(*, question, answer, sources, store, embedder, judge, model,
  origin="ask") -> ArchiveResponse`` — the decision (archived, reason, the slug and
  the grounding check when there are some);
  ``sources`` are slugs, ``model`` the name of the model that wrote the answer,
  ``judge`` the triage model (None: the local rules only).
- ``archive_request(request, store, embedder, judge, default_model) -> ArchiveResponse`` —
  ``POST /archive`` (an ``ArchiveRequest``, checked at the door), then the above;
  ``default_model`` is who wrote an answer posted without one.

Order: meta-question, grounding, local triage, then the store (``rejected-before``,
``duplicate``), then the model triage (a model call costs more than a read), then
the door: an answer that would copy an *active* page (``duplicate_of``, the check MCP
``propose_page`` asks) writes no draft but a proposal on that page, by the archive's
actor, holding what the answer adds (its own sections, the question as a ``query``
source, the pages it cited): ``duplicate-of:<slug>``. It runs after the model triage
so a curator never reviews a proposal the judge would have refused. Then the draft.
A draft's slug is derived from its question (plus a hash), so the same question and
answer always land on one slug and concurrent duplicates meet at ``create``'s conflict:
one page. Every attempt is an ``archive_outcome`` event.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shared.api.models import ArchiveRequest, ArchiveResponse
from shared.api.models import Grounding as GroundingBody
from shared.clock import now
from shared.dedup.merge import merged_content, merged_metadata
from shared.dedup.signature import shingles, words
from shared.errors import Conflict
from shared.gates.grounding import Grounding, check_grounding
from shared.gates.meta import check_meta
from shared.gates.triage import Verdict, local_triage, model_triage
from shared.logs import get_logger
from shared.ports import Embedder, Generator, Store
from shared.records import PageRecord, Proposal, new_proposal_id
from shared.retrieval.answer_page import as_page, cite_distinct
from shared.schema import FrontMatter, parse_front_matter
from shared.services.duplicates import duplicate_of
from shared.services.wiki import create_validated, merge_update
from shared.text.slugs import cut, derive_slug

# A draft's slug is its address and the curator types it (show, accept): a question's
# words cut on a word boundary, with its hash, keep it at most this long.
MAX_DRAFT_SLUG = 60

MAX_TITLE = 200
ARCHIVE_ACTOR = "archive"  # the actor of every draft the archive writes
# The door: an answer copying an active page is a proposal on it only when at most this
# share of its word shingles are not on that page (more is another page's worth).
NEW_AT_MOST = 0.25
_ATTEMPTS = 3  # a create that loses a race re-reads and decides again
_log = get_logger("archive")


def same_text(text: str) -> str:
    """The contract's comparison form: trimmed, whitespace collapsed, case-folded."""
    return " ".join(text.split()).casefold()


def draft_title(question: str) -> str:
    """'¿Cómo devuelvo un 201?' -> 'Cómo devuelvo un 201' (at most 200 chars, on a word)."""
    collapsed = " ".join(question.split())
    text = collapsed.lstrip("¿¡ ").rstrip("?!.:;, ") or collapsed
    text = text[:1].upper() + text[1:]
    if len(text) > MAX_TITLE:
        head = text[: MAX_TITLE - 1]
        space = head.rfind(" ")
        text = (head[:space] if space > MAX_TITLE // 2 else head).rstrip() + "…"
    return text


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def draft_slugs(question: str, answer: str) -> tuple[str, str]:
    """(the question's slug, this answer's variant slug): both deterministic.

    The first answer to a question takes the question's slug; another answer to the
    same question takes its own variant, so a curator who archives the question's draft
    is remembered (``rejected-before``) and no two answers ever share a page.
    """
    q = _digest(same_text(question))[:8]
    a = _digest(same_text(question), same_text(answer))[:6]
    base = derive_slug("concept", draft_title(question))
    return f"{cut(base, MAX_DRAFT_SLUG - 9)}-{q}", f"{cut(base, MAX_DRAFT_SLUG - 16)}-{q}-{a}"


@dataclass
class _Attempt:
    """What one attempt decided, for the response and the outcome record."""

    archived: bool = False
    reason: str = ""
    slug: str | None = None
    proposal: str | None = None  # duplicate-of:<slug>: the proposal on that page
    grounding: Grounding | None = None
    detail: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def response(self) -> ArchiveResponse:
        return ArchiveResponse(
            archived=self.archived,
            reason=self.reason,
            slug=self.slug,
            proposal=self.proposal,
            grounding=(
                None
                if self.grounding is None
                else GroundingBody.model_validate(self.grounding.body())
            ),
        )


class _Clock:
    """Milliseconds per step, summed when a step runs twice (the store's reads and write)."""

    def __init__(self, timings: dict[str, float]) -> None:
        self._timings = timings
        self._last = self._start = time.perf_counter()

    def lap(self, name: str) -> None:
        moment = time.perf_counter()
        self._timings[name] = round(self._timings.get(name, 0.0) + (moment - self._last) * 1000, 2)
        self._last = moment

    def total(self) -> None:
        self._timings["total_ms"] = round((time.perf_counter() - self._start) * 1000, 2)


def archive_answer(
    *,
    question: str,
    answer: str,
    sources: Sequence[str],
    store: Store,
    embedder: Embedder,
    judge: Generator | None,
    model: str,
    origin: str = "ask",
) -> ArchiveResponse:
    """Send one answer through the gates; a pass creates a draft (see the module docstring).

    ``sources[n-1]`` is the page the answer's ``[n]`` cites (an answer's passages, so a
    page may come more than once): the draft cites its distinct pages, ``[k]`` its k-th
    wiki source, which is how an accepted draft links them (``shared.retrieval.answer_page``)."""
    numbered = [s.strip() for s in sources if s.strip()]
    answer, distinct = cite_distinct(answer, numbered)
    run = _Run(
        question=question,
        answer=answer,
        slugs=distinct,
        store=store,
        model=model,
        judge=judge,
        embedder=embedder,
    )
    try:
        run.decide()
    finally:
        run.clock.total()
        _record(store, run.attempt, question, run.slugs, origin)
    return run.attempt.response()


@dataclass
class _Run:
    """One archive attempt: its inputs, what it decided, how long each step took."""

    question: str
    answer: str
    slugs: list[str]
    store: Store
    model: str
    judge: Generator | None
    embedder: Embedder
    attempt: _Attempt = field(default_factory=_Attempt)

    def __post_init__(self) -> None:
        self.clock = _Clock(self.attempt.timings)
        self.primary, self.variant = draft_slugs(self.question, self.answer)

    def decide(self) -> None:
        reason = check_meta(self.question)
        self.clock.lap("meta_ms")
        if reason is not None:
            self.attempt.reason = reason
            return
        grounding = check_grounding(self.answer, self.store.code)
        self.attempt.grounding = grounding
        self.clock.lap("grounding_ms")
        if grounding.refused:
            self.attempt.reason = grounding.reason or ""
            return
        refused = self._refused(local_triage(self.question, self.answer, self.slugs))
        self.clock.lap("triage_ms")
        if refused:
            return
        target = self._target()
        self.clock.lap("store_ms")
        if target is None:
            return
        if self.judge is not None:
            verdict = model_triage(self.question, self.answer, self.slugs, self.judge)
            refused = self._refused(verdict)
            self.clock.lap("model_ms")
            if refused:
                return
        body = self._body()
        same = duplicate_of(draft_title(self.question), body, self.store, self.embedder)
        self.clock.lap("duplicates_ms")
        if same is not None and _adds_little(body, same, self.store):
            self._propose(same, body)
        else:
            self._create(target)
        self.clock.lap("store_ms")

    def _refused(self, verdict: Verdict) -> bool:
        self.attempt.detail = verdict.detail
        if verdict.reason is None:
            return False
        self.attempt.reason = verdict.reason
        return True

    def _target(self) -> str | None:
        """The free slug this answer's draft goes to; None when the store already decided.

        Decided: the question's draft was archived by a curator (``rejected-before``), or
        this very answer already has a page (``duplicate``).
        """
        first = self.store.pages.get(self.primary)
        if first is None:
            return self.primary
        if first.front_matter.get("status") == "archived":
            self.attempt.reason, self.attempt.slug = "rejected-before", self.primary
            return None
        if same_text(first.content) == same_text(self.answer):
            self.attempt.reason, self.attempt.slug = "duplicate", self.primary
            return None
        other = self.store.pages.get(self.variant)
        if other is None:
            return self.variant
        rejected = other.front_matter.get("status") == "archived"
        self.attempt.reason = "rejected-before" if rejected else "duplicate"
        self.attempt.slug = self.variant
        return None

    def _body(self) -> str:
        """The answer as the page it would become (``as_page``: no framing, [n] linked)."""
        titles = {
            slug: str(record.front_matter.get("title") or slug)
            for slug in self.slugs
            if (record := self.store.pages.get(slug)) is not None
        }
        return as_page(self.answer, self.slugs, titles)

    def _propose(self, slug: str, body: str) -> None:
        """``duplicate-of:<slug>``: a proposal on that page of what the answer adds, or
        none when it adds nothing or the same proposal is already open."""
        self.attempt.reason, self.attempt.slug = f"duplicate-of:{slug}", slug
        page = self.store.pages.get(slug)
        if page is None:  # archived or deleted since the check: nothing to propose on
            return
        mine = dict(self._front_matter().dump())
        sources = mine.get("sources")
        listed = sources if isinstance(sources, list) else []
        mine["sources"] = [s for s in listed if isinstance(s, dict) and s.get("ref") != slug]
        metadata = merged_metadata(slug, page.front_matter, "", mine)
        content = merged_content(page.content, body)
        if content is None and not metadata:
            return
        merge_update(page, metadata, content, "update_metadata")  # refused now, not at accept
        self.attempt.proposal = _open_proposal(page, metadata, content, self.store)

    def _front_matter(self) -> FrontMatter:
        return parse_front_matter(
            {
                "title": draft_title(self.question),
                "type": "concept",
                "status": "draft",
                "sources": [{"type": "wiki", "ref": s} for s in self.slugs]
                + [{"type": "query", "ref": " ".join(self.question.split())}],
                "generated": {
                    "by": self.model,
                    "at": now().isoformat(),
                },
            },
            "",
        )

    def _create(self, target: str) -> None:
        front_matter = self._front_matter()
        for _ in range(_ATTEMPTS):
            try:
                content = self.answer.strip()
                create_validated(
                    target, front_matter, content, self.store, self.embedder, actor=ARCHIVE_ACTOR
                )
            except Conflict:
                # Another request created a page there first: decide again against it.
                again = self._target()
                if again is None:
                    return
                target = again
                continue
            self.attempt.archived, self.attempt.reason = True, "archived"
            self.attempt.slug = target
            return
        raise Conflict("the draft's slug kept changing under this request; retry")


def _adds_little(body: str, slug: str, store: Store) -> bool:
    """Whether at most ``NEW_AT_MOST`` of the answer's word shingles are not on page
    ``slug``: an answer that quotes the page and adds another page's facts is a new
    page's worth (a draft), one that restates it is a proposal on it."""
    page = store.pages.get(slug)
    if page is None:
        return False
    mine = shingles(words(body))
    if not len(mine):
        return False
    theirs = shingles(words(page.content))
    new = float(np.mean(~np.isin(mine, theirs)))
    return new <= NEW_AT_MOST


def _open_proposal(
    page: PageRecord, metadata: dict[str, Any], content: str | None, store: Store
) -> str:
    """The id of the archive's open proposal of this change to ``page``: the one already
    open (the same question asked twice is one proposal), else a new one."""
    for open_ in store.proposals.list(status="open", slug=page.slug, actor=ARCHIVE_ACTOR):
        if open_.base_version == page.version and (open_.content, dict(open_.metadata)) == (
            content,
            metadata,
        ):
            return open_.id
    proposal = Proposal(
        id=new_proposal_id(),
        slug=page.slug,
        base_version=page.version,
        content=content,
        metadata=metadata,
        actor=ARCHIVE_ACTOR,
        created_at=now(),
        reason=None,
    )
    store.proposals.add(proposal)
    return proposal.id


def _record(store: Store, attempt: _Attempt, question: str, slugs: list[str], origin: str) -> None:
    """The outcome record that lets the gates' effect be counted; never the caller's problem."""
    data: dict[str, Any] = {
        "origin": origin,
        "archived": attempt.archived,
        "reason": attempt.reason or "error",
        "slug": attempt.slug,
        "proposal": attempt.proposal,
        "question": question[:300],
        "sources": len(slugs),
        "detail": attempt.detail[:300],
        "grounding": attempt.grounding.body() if attempt.grounding else None,
        "timings": attempt.timings,
    }
    try:
        store.events.record("archive_outcome", data)
    except Exception:  # analytics must never cost a decision
        _log.exception("could not record the archive outcome")
    _log.info(
        "archive %s: %s", "created" if attempt.archived else "refused", data["reason"], extra=data
    )


# -- POST /archive ----------------------------------------------------------------------


def archive_request(
    request: ArchiveRequest,
    store: Store,
    embedder: Embedder,
    judge: Generator | None,
    default_model: str,
) -> ArchiveResponse:
    """``POST /archive``: every decision is a 200 body (the request is already checked)."""
    return archive_answer(
        question=request.question,
        answer=request.answer,
        sources=request.sources,
        store=store,
        embedder=embedder,
        judge=judge,
        model=request.model or default_model,
        origin="archive",
    )
