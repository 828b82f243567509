"""SiteState on both stores: the rebuild lease and the build manifest."""

from __future__ import annotations

import os
import threading
from typing import Any


def test_the_lease_is_exclusive_until_released(store: Any) -> None:
    """One owner at a time; the holder may extend it; release frees it for others."""
    assert store.site.acquire_lease("a", 60)
    assert not store.site.acquire_lease("b", 60)
    assert store.site.acquire_lease("a", 60)  # the holder extends
    store.site.release_lease("b")  # not the holder: no effect
    assert not store.site.acquire_lease("b", 60)
    store.site.release_lease("a")
    assert store.site.acquire_lease("b", 60)


def test_an_expired_lease_can_be_taken(store: Any) -> None:
    """A lease left by a crashed run blocks until its TTL has passed, then no longer.

    The adapter's clock is injected: the lease's expiry is a point on that clock."""
    now = [1_000_000.0]
    site = type(store.site)(store.db, clock=lambda: now[0])
    assert site.acquire_lease("crashed", 60)
    now[0] += 59.9
    assert not site.acquire_lease("next", 60)
    now[0] += 0.2
    assert site.acquire_lease("next", 60)


def test_concurrent_acquires_have_exactly_one_winner(store: Any) -> None:
    """Eight runs racing for the lease: exactly one gets it."""
    barrier = threading.Barrier(8)
    wins: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def race(owner: str) -> None:
        barrier.wait()
        try:
            won = store.site.acquire_lease(owner, 60)
        except BaseException as exc:  # a loser must hear "held", not an outage
            with lock:
                errors.append(exc)
            return
        if won:
            with lock:
                wins.append(owner)

    threads = [threading.Thread(target=race, args=(f"run-{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(wins) == 1


def test_the_manifest_round_trips(store: Any) -> None:
    """What is saved is what is loaded; nothing saved loads as None; a save replaces."""
    assert store.site.load_manifest() is None
    manifest = {"format": 1, "pages": {"concept—á": {"t": "Título ñ", "l": ["x"]}}, "n": 1.5}
    store.site.save_manifest(manifest)
    assert store.site.load_manifest() == manifest
    store.site.save_manifest({"format": 1, "pages": {}})
    assert store.site.load_manifest() == {"format": 1, "pages": {}}


def test_a_manifest_larger_than_a_document_round_trips(store: Any) -> None:
    """A 10,000-page manifest does not fit one Firestore document: it is stored in parts."""
    noise = os.urandom(1_500_000).hex()  # incompressible, so it needs several parts
    manifest = {"format": 1, "pages": {f"concept—p{i}": {"h": f"{i:020d}"} for i in range(10_000)}}
    manifest["noise"] = noise
    store.site.save_manifest(manifest)
    assert store.site.load_manifest() == manifest
    store.site.save_manifest({"format": 1})
    assert store.site.load_manifest() == {"format": 1}


def test_the_navigation_is_saved_replaced_and_removed(store: Any) -> None:
    """save_nav stores the nav whole (accents, order kept), a second save replaces it,
    None removes it."""
    assert store.site.load_nav() is None
    nav = {
        "items": [{"slug": "index"}, {"title": "Guía", "items": [{"slug": "a—b", "title": "Año"}]}]
    }
    store.site.save_nav(nav)
    assert store.site.load_nav() == nav
    store.site.save_nav({"items": []})
    assert store.site.load_nav() == {"items": []}
    store.site.save_nav(None)
    assert store.site.load_nav() is None


def test_what_imports_said_of_their_trees_is_kept_whole_and_replaced(store: Any) -> None:
    """save_imports keeps each tree's routes (case and accents kept) and site name; a
    second save replaces the first; nothing saved reads as None."""
    assert store.site.load_imports() is None
    facts = {
        "trees": {
            "github.com/org/web/docs": {
                "routes": {"reference—react—usestate": ["reference/react/useState"]},
                "site_name": "Documentación",
            }
        }
    }
    store.site.save_imports(facts)
    assert store.site.load_imports() == facts
    store.site.save_imports({"trees": {}})
    assert store.site.load_imports() == {"trees": {}}
