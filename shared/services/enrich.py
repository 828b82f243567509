"""The enrichment worker: each page change the store logged becomes proposals by
``enrich:<enricher>``, at most once per (page, version, enricher).

One change is one page (``enrich_change``): the worker reads the page as it is *now*, so
a burst of writes to one page is enriched once, at its latest version (a delivery for
an older version finds that version's claims taken, or proposes against the newer one:
ordering per page holds because nothing is ever proposed against a version that is not
the page's current one). The work per change is bounded: one read of the page, one of
the code index, three vector queries (at most ``NEAREST_CHUNKS`` + 2 x ``MUTUAL_CHUNKS``
documents) and two neighbour reads, one vector query per broken link (at most
``MAX_BROKEN``); never a scan of the wiki.

Where the changes come from: ``drain`` follows the change log itself (``biblioteca
enrich``, ``biblioteca serve``'s worker); in production ``publish_changes`` is the
change log's outbox publisher (each write drains it after its commit) and the ``enrich``
function handles one Pub/Sub message per change (docs/enrich.md).

A failed change is counted in the store's ledger (``EnrichLedger.fail``) and retried
after a backoff; after ``MAX_ATTEMPTS`` failures it is set aside, counted by ``status``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from shared.api.models import WikiUpdateRequest
from shared.clock import now
from shared.enrich import enrichers as en
from shared.enrich.ledger import done_key, suggested_key
from shared.errors import VersionConflict
from shared.ports import Embedder, Generator, Store
from shared.records import PageRecord, SearchFilter
from shared.text.code_paths import path_key

log = logging.getLogger(__name__)

EnrichMode = Literal["offline", "llm", "off"]
ACTOR_PREFIX = "enrich:"
WORKER = "worker"  # the ledger's cursor of the local worker
OUTBOX = "outbox"  # the ledger's cursor of the Pub/Sub publisher
# Only the page's MUTUAL_RANK nearest pages can be related (is_related), so only they
# are read: a chunk query returns several chunks per page, NEAREST_CHUNKS is enough to
# rank the nearest few pages (Firestore bills a vector query per document returned).
NEAREST_CHUNKS = 20
MUTUAL_CHUNKS = 12  # the neighbour's own nearest: only whether this page is among its two
MAX_BROKEN = 10  # broken wiki links looked up per change
MAX_CHANGES = 1000  # changes one drain handles; the rest wait for the next one


def actor_of(enricher: str) -> str:
    return f"{ACTOR_PREFIX}{enricher}"


@dataclass(slots=True)
class Enriched:
    """What one change became: the proposals made, the enrichers skipped (done before
    for this version, or whose own write this version is), or the error."""

    slug: str
    version: int | None = None
    proposals: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    error: str | None = None
    attempts: int = 0
    dead: bool = False

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"slug": self.slug, "version": self.version}
        out["proposals"] = list(self.proposals)
        if self.error is not None:
            out |= {"error": self.error, "attempts": self.attempts, "dead": self.dead}
        return out


@dataclass(slots=True)
class Drained:
    """One pass over the change log: changes read, pages enriched, proposals made."""

    changes: int = 0
    enriched: int = 0
    proposals: int = 0
    failed: int = 0
    dead: int = 0
    results: list[Enriched] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {
            "changes": self.changes,
            "enriched": self.enriched,
            "proposals": self.proposals,
            "failed": self.failed,
            "dead": self.dead,
            "results": [r.body() for r in self.results if r.proposals or r.error],
        }


Suggester = Callable[["Context"], en.Suggestion | None]


@dataclass(slots=True)
class Context:
    """One change's page and what the enrichers read about it, each read once, lazily."""

    page: PageRecord
    store: Store
    embedder: Embedder
    today: str
    _neighbours: list[en.Neighbour] | None = None

    @property
    def view(self) -> en.PageView:
        return en.PageView(self.page.slug, self.page.front_matter, self.page.content)

    def neighbours(self) -> list[en.Neighbour]:
        if self._neighbours is None:
            self._neighbours = _neighbours(self)
        return self._neighbours


def _centroid(vectors: Collection[Any]) -> Any:
    matrix = np.asarray(list(vectors), dtype=np.float32)
    mean = matrix.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).astype(np.float32) if norm else None


def _code_keys(front_matter: Mapping[str, Any]) -> set[str]:
    return {
        path_key(str(s.get("ref", "")))
        for s in front_matter.get("sources") or []
        if isinstance(s, Mapping) and s.get("type") == "code" and s.get("ref")
    }


def _nearest_pages(ctx: Context, slug: str, limit: int = NEAREST_CHUNKS) -> list[tuple[str, float]]:
    """The pages nearest ``slug`` by meaning, best first, with the cosine of ``slug``'s
    centroid (of its stored chunk vectors) to their closest chunk: one vector query."""
    vectors = ctx.store.chunks.vectors_for(slug)
    centroid = _centroid(vectors.values()) if vectors else None
    if centroid is None:
        return []
    hits = ctx.store.chunks.nearest(
        centroid, embedder=ctx.embedder.name, filters=SearchFilter(), limit=limit
    )
    best: dict[str, float] = {}
    for hit in hits:
        if hit.slug != slug:
            best[hit.slug] = max(best.get(hit.slug, -1.0), float(hit.cosine))
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))


def _neighbours(ctx: Context) -> list[en.Neighbour]:
    """The ``MUTUAL_RANK`` pages nearest this one by meaning, with the evidence that backs
    each: mutual nearness (one more vector query each), shared code sources, shared link
    targets, a link between them."""
    nearest = _nearest_pages(ctx, ctx.page.slug)[: en.MUTUAL_RANK]
    mine = _code_keys(ctx.page.front_matter)
    links_out = set(en.wiki_targets(ctx.page.content))
    found: list[en.Neighbour] = []
    for rank, (slug, cosine) in enumerate(nearest):
        other = ctx.store.pages.get(slug)
        if other is None or other.front_matter.get("status") != "active":
            continue
        theirs = set(en.wiki_targets(other.content))
        linked = slug in links_out or ctx.page.slug in theirs
        near = [s for s, _ in _nearest_pages(ctx, slug, MUTUAL_CHUNKS)[: en.MUTUAL_RANK]]
        found.append(
            en.Neighbour(
                slug,
                cosine,
                shared_sources=len(mine & _code_keys(other.front_matter)),
                linked=linked,
                tags=tuple(str(t) for t in other.front_matter.get("tags") or []),
                mutual=ctx.page.slug in near,
                shared_links=len((links_out - {slug}) & (theirs - {ctx.page.slug})),
                closest=rank == 0 and near[:1] == [ctx.page.slug],
            )
        )
    return found


def _sources(ctx: Context) -> en.Suggestion | None:
    candidates = en.named_paths(ctx.page.content)
    if not candidates:
        return None
    lookup = ctx.store.code.lookup([path_key(p) for p in candidates])
    return en.suggest_sources(ctx.view, candidates, lookup.found, ctx.today)


def _related(ctx: Context) -> en.Suggestion | None:
    return en.suggest_related(ctx.view, ctx.neighbours())


def _tags(ctx: Context) -> en.Suggestion | None:
    return en.suggest_tags(ctx.view, ctx.neighbours())


def _description(ctx: Context) -> en.Suggestion | None:
    return en.suggest_description(ctx.view)


def _links(ctx: Context) -> en.Suggestion | None:
    targets = en.wiki_targets(ctx.page.content)[: MAX_BROKEN * 5]
    broken = [t for t in targets if ctx.store.pages.get(t) is None][:MAX_BROKEN]
    fixes: dict[str, str] = {}
    for target in broken:
        words = target.replace("—", " ").replace("-", " ").replace("_", " ")
        hits = ctx.store.chunks.nearest(
            ctx.embedder.embed_query(words),
            embedder=ctx.embedder.name,
            filters=SearchFilter(),
            limit=10,
        )
        pages = {h.slug: h.title for h in hits if h.slug != ctx.page.slug}
        if (slug := en.likely_target(target, pages)) is not None:
            fixes[target] = slug
    return en.suggest_links(ctx.view, fixes)


OFFLINE: dict[str, Suggester] = {
    "sources": _sources,
    "related": _related,
    "description": _description,
    "tags": _tags,
    "links": _links,
}


def _rewritten(generator: Generator, suggest: Suggester) -> Suggester:
    """``BIBLIOTECA_ENRICH=llm``: the model rewrites the extractive description in one
    sentence of the page's language; a reply that does not fit keeps the extract."""

    def run(ctx: Context) -> en.Suggestion | None:
        found = suggest(ctx)
        if found is None:
            return None
        reply = generator.generate(
            "Rewrite the description of a documentation page as one plain sentence of at "
            "most 300 characters, in the language of the page. Reply with the sentence only.",
            f"Title: {ctx.page.front_matter.get('title')}\n\nDescription: "
            f"{found.metadata['description']}\n\nPage:\n{ctx.page.content[:4000]}",
            max_tokens=200,
        )
        text = " ".join(reply.text.split())
        if not text or len(text) > 300:
            return found
        return en.Suggestion("description", {"description": text}, found.added)

    return run


@dataclass(slots=True)
class Enrichment:
    """The worker: ``enrich_change`` for one change, ``drain`` for the change log."""

    store: Store
    embedder: Embedder
    mode: EnrichMode = "offline"
    generator: Generator | None = None
    suggesters: Mapping[str, Suggester] | None = None  # None: the offline ones (tests swap)

    def _chosen(self) -> Mapping[str, Suggester]:
        if self.suggesters is not None:
            return self.suggesters
        if self.mode == "llm" and self.generator is not None:
            return {**OFFLINE, "description": _rewritten(self.generator, _description)}
        return OFFLINE

    def enrich_change(self, slug: str) -> Enriched:
        """Enrich ``slug`` at its current version; a failure is counted (and raised by
        nobody: the caller reads ``error``/``dead``)."""
        out = Enriched(slug)
        if self.mode == "off":
            return out
        page = self.store.pages.get(slug)
        if page is None or page.front_matter.get("status") != "active":
            return out  # drafts are reviewed whole; archived pages are not read
        out.version = page.version
        ledger = self.store.enrichment
        past = ledger.failure(slug, page.version)
        if past is not None and past.dead:
            out.error, out.attempts, out.dead = past.error, past.attempts, True
            return out
        try:
            self._enrich(page, out)
        except Exception as exc:  # any failure of one change is that change's, counted
            failure = ledger.fail(slug, page.version, f"{type(exc).__name__}: {exc}")
            out.error, out.attempts, out.dead = failure.error, failure.attempts, failure.dead
            log.warning(
                "enrichment of %s v%d failed (attempt %d%s): %s",
                slug,
                page.version,
                failure.attempts,
                ", set aside" if failure.dead else "",
                failure.error,
                exc_info=not isinstance(exc, VersionConflict),
            )
            return out
        if past is not None:
            ledger.clear(slug, page.version)
        return out

    def _enrich(self, page: PageRecord, out: Enriched) -> None:
        ledger = self.store.enrichment
        ctx = Context(page, self.store, self.embedder, now().date().isoformat())
        for name, suggest in self._chosen().items():
            if page.updated_by == actor_of(name):
                out.skipped.append(name)  # its own accepted proposal: nothing to add
                continue
            key = done_key(page.slug, page.version, name)
            if not ledger.claim(key):
                out.skipped.append(name)
                continue
            try:
                proposal = self._propose(ctx, name, suggest)
            except BaseException:
                ledger.release(key)  # not done: the retry does it
                raise
            if proposal is not None:
                out.proposals.append(proposal)

    def _propose(self, ctx: Context, name: str, suggest: Suggester) -> str | None:
        from shared.services.review import propose_update

        suggestion = suggest(ctx)
        if suggestion is None:
            return None
        ledger = self.store.enrichment
        once = suggested_key(ctx.page.slug, name, suggestion.digest())
        if not ledger.claim(once):
            return None  # suggested before (and accepted, rejected, or still open)
        request = WikiUpdateRequest(
            slug=ctx.page.slug,
            update_metadata=suggestion.metadata,
            content=suggestion.content,
            expected_version=ctx.page.version,
        )
        try:
            response = propose_update(request, self.store, self.embedder, actor=actor_of(name))
        except VersionConflict:
            ledger.release(once)  # the page moved on: its next change suggests it again
            return None
        except BaseException:
            ledger.release(once)
            raise
        return response.proposal

    # -- the local queue: the change log itself -----------------------------------------

    def drain(self, *, limit: int = MAX_CHANGES, at: float | None = None) -> Drained:
        """Enrich the changes logged since the worker's cursor (each page once, at its
        latest version) and the failed changes whose backoff has passed; then move the
        cursor. A first run (or a cursor the log no longer covers) takes every active
        page once."""
        ledger = self.store.enrichment
        report = Drained()
        if self.mode == "off":
            return report
        changes = self.store.chunks.changes_since(ledger.position(WORKER))
        slugs = list(changes.slugs)
        if not changes.complete:
            slugs = [p.slug for p in self.store.pages.list(status="active")]
        retries = [f.slug for f in ledger.due(time.time() if at is None else at, limit=limit)]
        chosen = sorted(set(slugs))[:limit]
        for slug in dict.fromkeys([*chosen, *retries]):
            result = self.enrich_change(slug)
            report.changes += 1
            report.enriched += result.version is not None and result.error is None
            report.proposals += len(result.proposals)
            report.failed += result.error is not None and not result.dead
            report.dead += result.dead
            report.results.append(result)
        if len(set(slugs)) <= limit:
            ledger.move(WORKER, changes.cursor)
        return report


def publish_changes(store: Store, publish: Callable[[Sequence[str]], None]) -> int:
    """The outbox publisher: the pages written since the publisher's cursor, handed to
    ``publish`` (one message each), then the cursor moved. A failed publish moves
    nothing, so the next drain publishes them again (the consumer's claims make a second
    delivery harmless): nothing is lost if publishing fails. The first drain publishes
    every active page once."""
    ledger = store.enrichment
    changes = store.chunks.changes_since(ledger.position(OUTBOX))
    slugs = sorted(changes.slugs)
    if not changes.complete:
        slugs = sorted(p.slug for p in store.pages.list(status="active"))
    if slugs:
        publish(slugs)
    ledger.move(OUTBOX, changes.cursor)
    return len(slugs)
