"""The store contract: one suite run against the SQLite store and the Firestore emulator.

Every behaviour the services rely on is checked on both backends through ``store``,
so the embedded store stays a faithful stand-in for the deployed one.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from shared.errors import BibliotecaError, Conflict, NotFound, VersionConflict
from shared.records import Chunk, PageRecord, SearchFilter, Vector

DIM = 8
EMBEDDER = "test:axes@8"
T0 = datetime(2025, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)


def unit(*weights: float) -> Vector:
    """A unit vector from its first coordinates (the rest are zero)."""
    raw = np.zeros(DIM, dtype=np.float32)
    raw[: len(weights)] = weights
    return (raw / np.linalg.norm(raw)).astype(np.float32)


def page(
    slug: str,
    *,
    version: int = 1,
    status: str = "active",
    page_type: str = "guide",
    category: str | None = "backend",
    tags: tuple[str, ...] = ("python",),
    updated_at: datetime = T0,
    title: str | None = None,
) -> PageRecord:
    return PageRecord(
        slug=slug,
        front_matter={
            "title": title or f"Title of {slug}",
            "type": page_type,
            "status": status,
            "sources": [{"type": "doc", "ref": "docs/a.md", "last_seen": "2025-01-02"}],
            "related": ["other-page"],
            "tags": list(tags),
            "category": category,
            "generated": {"by": "tester", "at": "2025-01-01T00:00:00+00:00"},
        },
        content=f"# {slug}\n\nCuerpo con acentos: canción, pingüino.\n",
        version=version,
        created_at=T0,
        updated_at=updated_at,
    )


def chunks_of(slug: str, *vectors: Vector, embedder: str = EMBEDDER) -> list[Chunk]:
    return [
        Chunk(
            slug=slug,
            ordinal=i,
            heading=f"{slug} › part {i}",
            text=f"text {i} of {slug}",
            hash=f"{embedder}-{slug}-{i}-{float(v[0]):.3f}",
            vector=v,
            embedder=embedder,
        )
        for i, v in enumerate(vectors)
    ]


def search(store: Any, probe: Vector, limit: int = 10, **filters: str) -> list[tuple[str, int]]:
    hits = store.chunks.nearest(
        probe, embedder=EMBEDDER, filters=SearchFilter(**filters), limit=limit
    )
    return [(h.slug, h.ordinal) for h in hits]


# -- pages -------------------------------------------------------------------------


def test_create_then_get_round_trips_everything(store: Any) -> None:
    """A created page reads back equal: front matter, content, version, aware UTC datetimes."""
    record = page("round-trip")

    store.pages.create(record, chunks_of("round-trip", unit(1)))
    got = store.pages.get("round-trip")

    assert got == record
    assert got.created_at.tzinfo is not None
    assert got.updated_at.utcoffset() == timedelta(0)
    assert store.pages.get("absent") is None


def test_create_on_existing_slug_is_a_conflict(store: Any) -> None:
    """Creating a slug twice raises Conflict on ``slug`` and keeps the first page."""
    store.pages.create(page("taken"), chunks_of("taken", unit(1)))

    with pytest.raises(Conflict) as caught:
        store.pages.create(page("taken", title="Second"), chunks_of("taken", unit(0, 1)))

    assert caught.value.field == "slug"
    assert not isinstance(caught.value, VersionConflict)
    assert store.pages.get("taken").front_matter["title"] == "Title of taken"


def test_update_with_the_expected_version_replaces_the_page(store: Any) -> None:
    """An update naming the stored version is written whole."""
    store.pages.create(page("upd"), chunks_of("upd", unit(1)))
    newer = page("upd", version=2, status="draft", updated_at=T0 + timedelta(hours=1))

    store.pages.update(newer, chunks_of("upd", unit(0, 1)), expected_version=1)

    assert store.pages.get("upd") == newer


def test_update_with_a_stale_version_is_a_version_conflict(store: Any) -> None:
    """An update naming an old version raises VersionConflict and changes nothing."""
    store.pages.create(page("stale"), chunks_of("stale", unit(1)))
    store.pages.update(page("stale", version=2), None, expected_version=1)

    with pytest.raises(VersionConflict) as caught:
        store.pages.update(page("stale", version=2, title="Lost"), None, expected_version=1)

    assert caught.value.field == "expected_version"
    assert store.pages.get("stale").front_matter["title"] == "Title of stale"


def test_update_of_a_missing_page_is_not_found(store: Any) -> None:
    """Updating a slug that was never created raises NotFound on ``slug``."""
    with pytest.raises(NotFound) as caught:
        store.pages.update(page("ghost", version=2), None, expected_version=1)

    assert caught.value.field == "slug"


def test_list_filters_by_status_and_updated_since(store: Any) -> None:
    """``list`` narrows by status and by updated_at (inclusive), ordered by slug."""
    later = T0 + timedelta(days=2)
    store.pages.create(page("b-active", updated_at=later), [])
    store.pages.create(page("a-active"), [])
    store.pages.create(page("c-draft", status="draft", updated_at=later), [])

    everything = [r.slug for r in store.pages.list()]
    active = [r.slug for r in store.pages.list(status="active")]
    recent = [r.slug for r in store.pages.list(updated_since=later)]
    recent_active = [r.slug for r in store.pages.list(status="active", updated_since=later)]

    assert everything == ["a-active", "b-active", "c-draft"]
    assert active == ["a-active", "b-active"]
    assert recent == ["b-active", "c-draft"]
    assert recent_active == ["b-active"]
    assert store.pages.list(status="archived") == []


# -- chunks ------------------------------------------------------------------------


def test_count_is_every_page_of_any_status(store: Any) -> None:
    assert store.pages.count() == 0
    store.pages.create(page("concept—a"), [])
    store.pages.create(page("concept—b", status="draft"), [])
    assert store.pages.count() == 2


def test_chunks_are_written_with_the_page_and_replaced_on_update(store: Any) -> None:
    """Chunks arrive with the page; an update with fewer chunks leaves no stale ordinal."""
    first = chunks_of("ch", unit(1), unit(0, 1), unit(0, 0, 1))
    store.pages.create(page("ch"), first)

    before = store.chunks.vectors_for("ch")
    replacement = chunks_of("ch", unit(1, 1))
    store.pages.update(page("ch", version=2), replacement, expected_version=1)
    after = store.chunks.vectors_for("ch")

    assert set(before) == {c.hash for c in first}
    assert np.array_equal(before[first[1].hash], first[1].vector)
    assert before[first[1].hash].dtype == np.float32
    assert set(after) == {replacement[0].hash}
    assert search(store, unit(0, 0, 1)) == [("ch", 0)]
    assert store.chunks.vectors_for("nobody") == {}


def test_metadata_only_update_keeps_chunks_and_refreshes_their_fields(store: Any) -> None:
    """With chunks=None the vectors stay, but status/type/tags changes reach the search."""
    store.pages.create(page("meta"), chunks_of("meta", unit(1), unit(1, 1)))

    store.pages.update(
        page("meta", version=2, page_type="concept", tags=("nuevo",)), None, expected_version=1
    )
    retyped = search(store, unit(1), page_type="concept", tag="nuevo")
    store.pages.update(page("meta", version=3, status="archived"), None, expected_version=2)

    assert sorted(retyped) == [("meta", 0), ("meta", 1)]
    assert search(store, unit(1)) == []
    assert len(store.chunks.vectors_for("meta")) == 2


def test_nearest_orders_by_similarity_and_scores_like_cosine(store: Any) -> None:
    """Hits come best first with the cosine similarity as score, cut at ``limit``."""
    store.pages.create(page("near"), chunks_of("near", unit(1), unit(1, 1), unit(0, 1)))
    store.pages.create(page("far"), chunks_of("far", unit(-1)))

    hits = store.chunks.nearest(unit(1), embedder=EMBEDDER, filters=SearchFilter(), limit=3)

    assert [(h.slug, h.ordinal) for h in hits] == [("near", 0), ("near", 1), ("near", 2)]
    assert [round(h.cosine, 5) for h in hits] == [1.0, round(float(np.sqrt(0.5)), 5), 0.0]
    assert hits[0].title == "Title of near"
    assert hits[0].heading == "near › part 0"
    assert hits[0].text == "text 0 of near"
    assert search(store, unit(1), limit=0) == []


def test_nearest_honours_status_type_category_tag_and_embedder(store: Any) -> None:
    """Only active chunks of the query's embedder that match every given filter are found."""
    store.pages.create(page("p-guide"), chunks_of("p-guide", unit(1)))
    store.pages.create(
        page("p-concept", page_type="concept", category="frontend", tags=("js", "css")),
        chunks_of("p-concept", unit(1, 0.1)),
    )
    store.pages.create(page("p-draft", status="draft"), chunks_of("p-draft", unit(1)))
    store.pages.create(
        page("p-other-model"), chunks_of("p-other-model", unit(1), embedder="other@8")
    )
    probe = unit(1)

    assert sorted(search(store, probe)) == [("p-concept", 0), ("p-guide", 0)]
    assert search(store, probe, page_type="concept") == [("p-concept", 0)]
    assert search(store, probe, category="backend") == [("p-guide", 0)]
    assert search(store, probe, tag="css") == [("p-concept", 0)]
    assert search(store, probe, page_type="guide", category="backend", tag="python") == [
        ("p-guide", 0)
    ]
    assert search(store, probe, page_type="guide", tag="css") == []


def test_embedders_lists_the_embedders_present(store: Any) -> None:
    """``embedders`` is empty at first, then names exactly the embedders with chunks."""
    assert store.chunks.embedders() == set()
    store.pages.create(page("e1"), chunks_of("e1", unit(1)))
    store.pages.create(page("e2"), chunks_of("e2", unit(1), embedder="new@8"))
    both = store.chunks.embedders()

    store.pages.update(
        page("e1", version=2), chunks_of("e1", unit(1), embedder="new@8"), expected_version=1
    )

    assert both == {EMBEDDER, "new@8"}
    assert store.chunks.embedders() == {"new@8"}


# -- events ------------------------------------------------------------------------


def test_events_are_recorded_and_read_back_newest_first(store: Any) -> None:
    """``recent`` returns one kind's payloads, newest first, each stamped with ``at``."""
    for n in range(3):
        store.events.record("utility_hit", {"n": n, "nested": {"list": [[1, 2], "x"]}})
    store.events.record("archive_outcome", {"decision": "kept"})

    hits = store.events.recent("utility_hit")
    latest = store.events.recent("utility_hit", limit=1)

    assert [e["n"] for e in hits] == [2, 1, 0]
    assert hits[0]["nested"] == {"list": [[1, 2], "x"]}
    assert datetime.fromisoformat(hits[0]["at"]).tzinfo is not None
    assert [e["n"] for e in latest] == [2]
    assert [e["decision"] for e in store.events.recent("archive_outcome")] == ["kept"]


# -- concurrency -------------------------------------------------------------------


def test_concurrent_updates_of_one_version_have_exactly_one_winner(store: Any) -> None:
    """Two threads updating version 1 at once: one succeeds, the other gets VersionConflict."""
    store.pages.create(page("race"), chunks_of("race", unit(1)))
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def writer(title: str) -> None:
        start.wait()
        try:
            store.pages.update(
                page("race", version=2, title=title),
                chunks_of("race", unit(0, 1)),
                expected_version=1,
            )
            outcomes.append("won")
        except VersionConflict:
            outcomes.append("conflict")
        except BibliotecaError as exc:  # anything else is a failure of the contract
            outcomes.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=writer, args=(f"Writer {i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(outcomes) == ["conflict", "won"]
    assert store.pages.get("race").version == 2
