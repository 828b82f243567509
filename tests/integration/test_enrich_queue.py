"""The enrichment queue on both stores: the ledger's claims and failures, and the worker
that follows the change log (``shared.services.enrich``): at most once per (page,
version, enricher), no loops, retries with backoff, dead letters, coalesced bursts."""

from __future__ import annotations

import threading
import time
from typing import Any

from shared.enrich import enrichers as en
from shared.enrich.ledger import MAX_ATTEMPTS, backoff_s
from shared.schema import parse_front_matter
from shared.services import review
from shared.services.bulk_review import accept_by, open_proposals
from shared.services.enrich import Context, Enrichment
from shared.services.wiki import create_validated, update_validated
from tests.fixtures.embedder import HashingEmbedder

EMBEDDER = HashingEmbedder()
LATER = time.time() + 10 * 24 * 3600  # past every backoff


def _page(store: Any, slug: str, content: str, **front: Any) -> None:
    create_validated(
        slug,
        parse_front_matter({"title": slug.split("—")[-1].title(), "type": "guide", **front}),
        content,
        store,
        EMBEDDER,
        actor="ana",
    )


def _actors(store: Any) -> list[str]:
    return sorted(p["actor"] for p in open_proposals(store))


def test_a_claim_is_taken_once_and_given_back_by_release(store: Any) -> None:
    """Of two claims of one key only the first holds; released, it can be taken again."""
    ledger = store.enrichment
    assert (ledger.claim("k1"), ledger.claim("k1")) == (True, False)
    ledger.release("k1")
    assert ledger.claim("k1") is True


def test_failures_count_up_to_a_dead_letter_with_growing_backoff(store: Any) -> None:
    """Each failure counts one more attempt and waits longer; the fifth sets the change
    aside: never due again, counted, and a sixth failure counts nothing more."""
    ledger = store.enrichment
    for attempt in range(1, MAX_ATTEMPTS):
        failure = ledger.fail("guide—x", 3, "boom")
        assert (failure.attempts, failure.dead) == (attempt, False)
        assert failure.next_at >= time.time() + backoff_s(attempt) - 5
    assert [f.slug for f in ledger.due(LATER)] == ["guide—x"]
    assert ledger.due(time.time()) == []  # the backoff has not passed
    dead = ledger.fail("guide—x", 3, "boom")
    assert (dead.attempts, dead.dead) == (MAX_ATTEMPTS, True)
    assert ledger.fail("guide—x", 3, "boom").attempts == MAX_ATTEMPTS
    assert ledger.due(LATER) == []
    assert ledger.dead_count() == 1
    assert [(f.slug, f.version) for f in ledger.dead()] == [("guide—x", 3)]


def test_a_write_is_enriched_once_and_an_accepted_proposal_suggests_nothing_new(
    store: Any,
) -> None:
    """A page naming an indexed path gets a sources and a description proposal; a second
    drain proposes nothing; accepting them (in bulk) makes new versions, and enriching
    those suggests nothing again: no loops."""
    store.code.put_paths("app", ["shared/store/pool.py", "shared/other.py"], replace=True)
    _page(
        store,
        "guide—pool",
        "# Pool\n\nEl pool vive en `shared/store/pool.py` y reutiliza conexiones.",
    )
    worker = Enrichment(store, EMBEDDER)

    first = worker.drain()
    assert _actors(store) == ["enrich:description", "enrich:sources"]
    assert first.proposals == 2
    assert worker.drain().proposals == 0

    for actor in ("enrich:sources", "enrich:description"):
        done = accept_by(actor, store, EMBEDDER, curator="cli:cura")
        assert (len(done.accepted), done.refused) == (1, [])
    page = store.pages.get("guide—pool")
    assert page.version == 3
    assert [s["ref"] for s in page.front_matter["sources"]] == ["shared/store/pool.py"]
    assert page.front_matter["description"].startswith("El pool vive en")
    again = worker.drain()
    assert (again.changes, again.proposals) == (1, 0)
    assert open_proposals(store) == []


def test_a_rejected_suggestion_is_not_proposed_again_after_the_next_write(store: Any) -> None:
    """The curator rejected the description; the page is edited (a new version): the same
    sentence is not suggested a second time."""
    _page(store, "guide—pool", "# Pool\n\nEl pool reutiliza conexiones abiertas del servidor.")
    worker = Enrichment(store, EMBEDDER)
    worker.drain()
    (proposal,) = open_proposals(store, "enrich:description")
    review.reject(proposal["id"], store, EMBEDDER, actor="cli:cura", reason="no")
    update_validated("guide—pool", {"tags": ["db"]}, None, 1, store, EMBEDDER, actor="ana")
    assert worker.drain().proposals == 0


def test_two_workers_on_one_change_make_one_set_of_proposals(store: Any) -> None:
    """Two deliveries of one change at once (two instances): the claims let one through."""
    _page(store, "guide—pool", "# Pool\n\nEl pool reutiliza conexiones abiertas del servidor.")
    results: list[Any] = []

    def run() -> None:
        results.append(Enrichment(store, EMBEDDER).enrich_change("guide—pool"))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(len(r.proposals) for r in results) == [0, 1]
    assert _actors(store) == ["enrich:description"]


def test_a_poison_change_is_retried_then_set_aside_after_five_failures(store: Any) -> None:
    """An enricher that always fails: the change is retried only once its backoff has
    passed, set aside at the fifth failure (counted), and never tried again; the other
    enrichers' work on it is not repeated."""
    _page(store, "guide—pool", "# Pool\n\nEl pool reutiliza conexiones abiertas del servidor.")
    calls: list[str] = []

    def poison(ctx: Context) -> None:
        calls.append(ctx.page.slug)
        raise ValueError("the enricher cannot read this page")

    worker = Enrichment(store, EMBEDDER, suggesters={"poison": poison})
    first = worker.drain()
    assert (first.failed, first.dead) == (1, 0)
    assert worker.drain().changes == 0  # not due yet: the backoff holds it
    for _ in range(MAX_ATTEMPTS - 1):
        worker.drain(at=LATER)
    assert len(calls) == MAX_ATTEMPTS
    assert store.enrichment.dead_count() == 1
    assert worker.drain(at=LATER).changes == 0
    assert worker.enrich_change("guide—pool").dead is True
    assert len(calls) == MAX_ATTEMPTS


def test_a_burst_of_writes_is_enriched_once_per_page_at_its_latest_version(
    store: Any, store_env: str
) -> None:
    """1,000 writes to 50 pages (50 on the emulator, which is slower), then one drain:
    one enrichment per page, each at the page's latest version."""
    pages, rounds = (50, 20) if store_env == "sqlite" else (5, 10)
    for i in range(pages):
        _page(store, f"guide—p{i}", f"# P{i}\n\nLa página {i} explica el pool de conexiones.")
    worker = Enrichment(store, EMBEDDER)
    worker.drain()
    for n in range(rounds):
        for i in range(pages):
            update_validated(
                f"guide—p{i}", {"tags": [f"t{n}"]}, None, n + 1, store, EMBEDDER, actor="ana"
            )
    drained = worker.drain()
    assert drained.changes == pages
    assert sorted(r.version for r in drained.results) == [rounds + 1] * pages
    assert all(r.error is None for r in drained.results)


def test_related_are_each_others_nearest_page_read_through_the_store(store: Any) -> None:
    """Two pages of different folders on one topic are each other's nearest (``closest``)
    and related; a third page, whose nearest is one of them but not the other way, is
    not; a sibling of the same folder is never suggested even when nearest."""
    cookies = "Las cookies de la petición se leen con el parámetro Cookie y se validan."
    _page(store, "tutorial—cookies", f"# Cookies\n\n{cookies}")
    _page(store, "advanced—cookies", f"# Cookies\n\n{cookies} También en la respuesta.")
    _page(store, "guide—docker", "# Docker\n\nDocker empaqueta la aplicación en una imagen.")
    page = store.pages.get("tutorial—cookies")
    ctx = Context(page, store, EMBEDDER, "2026-12-07")
    closest = {n.slug: n.closest for n in ctx.neighbours()}
    assert closest == {"advanced—cookies": True, "guide—docker": False}
    suggestion = en.suggest_related(ctx.view, ctx.neighbours())
    assert suggestion is not None
    assert suggestion.added == ("advanced—cookies",)

    sockets = "Un websocket abre una conexión que envía y recibe mensajes sin cerrarse."
    _page(store, "advanced—websockets", f"# Websockets\n\n{sockets}")
    _page(store, "advanced—testing-websockets", f"# Websockets\n\n{sockets} En los tests.")
    sibling = Context(store.pages.get("advanced—websockets"), store, EMBEDDER, "2026-12-07")
    nearest = sibling.neighbours()[0]
    assert (nearest.slug, nearest.closest) == ("advanced—testing-websockets", True)
    assert en.suggest_related(sibling.view, sibling.neighbours()) is None
