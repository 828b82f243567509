"""Racing writes: without expected_version all land (last writer wins); with it one does."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from shared.errors import Unavailable
from tests.fixtures.server import Api, Reply


def race(calls: list[Callable[[], Reply]]) -> list[Reply]:
    """Run the calls at the same moment, each in its own thread; replies in call order."""
    barrier = threading.Barrier(len(calls))
    replies: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        replies[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return replies


def fresh_page(api: Api) -> str:
    reply = api.post(
        "wiki_create",
        {
            "content": "# Carrera\n\nv1",
            "front_matter": {"title": f"Carrera {uuid.uuid4().hex[:8]}", "type": "concept"},
        },
    )
    assert reply.status == 201
    return str(reply.json["slug"])


def test_two_racing_updates_without_expected_version_both_land(api: Api) -> None:
    """Each update is applied: the versions are 2 and 3, and the final page has one of them."""
    slug = fresh_page(api)
    replies = race(
        [
            lambda: api.post("wiki_update", {"slug": slug, "content": "# Carrera\n\nde A"}),
            lambda: api.post("wiki_update", {"slug": slug, "update_metadata": {"tags": ["b"]}}),
        ]
    )
    assert [r.status for r in replies] == [200, 200], [r.text for r in replies]
    assert sorted(r.json["version"] for r in replies) == [2, 3]
    stored = api.store.pages.get(slug)
    assert stored.version == 3
    # both changes are in the final page: neither update overwrote the other's field
    assert stored.content == "# Carrera\n\nde A"
    assert list(stored.front_matter["tags"]) == ["b"]


def test_two_racing_updates_with_the_same_expected_version_one_wins(api: Api) -> None:
    """With expected_version both racers read version 1: one 200 (version 2), one 409."""
    slug = fresh_page(api)
    replies = race(
        [
            lambda: api.post("wiki_update", {"slug": slug, "content": "A", "expected_version": 1}),
            lambda: api.post("wiki_update", {"slug": slug, "content": "B", "expected_version": 1}),
        ]
    )
    statuses = sorted(r.status for r in replies)
    assert statuses == [200, 409], [r.text for r in replies]
    won = 0 if replies[0].status == 200 else 1
    assert replies[won].json["version"] == 2
    assert replies[1 - won].json["code"] == "version_conflict"
    stored = api.store.pages.get(slug)
    assert (stored.version, stored.content) == (2, "AB"[won])


def test_racing_creates_of_one_title_get_distinct_slugs(api: Api) -> None:
    """Concurrent creates without a slug never collide: each gets its own derived slug."""
    title = f"Simultánea {uuid.uuid4().hex[:8]}"
    sent = {"content": "x", "front_matter": {"title": title, "type": "concept"}}
    replies = race([lambda: api.post("wiki_create", sent) for _ in range(3)])
    assert [r.status for r in replies] == [201, 201, 201], [r.text for r in replies]
    slugs = sorted(r.json["slug"] for r in replies)
    assert len(set(slugs)) == 3


def test_racing_creates_of_one_explicit_slug_give_one_201_and_409s(api: Api) -> None:
    """Concurrent creates of one explicit slug: exactly one is created, the others conflict."""
    slug = f"concept—unico-{uuid.uuid4().hex[:8]}"
    sent = {"slug": slug, "content": "x", "front_matter": {"title": "Único", "type": "concept"}}
    replies = race([lambda: api.post("wiki_create", sent) for _ in range(3)])
    assert sorted(r.status for r in replies) == [201, 409, 409]


WRITERS = 50


def test_fifty_concurrent_unversioned_updates_all_land(api: Api) -> None:
    """50 writers of one page at once, none versioned: 50 × 200, versions 2..51, and the
    final page holds the last content and the last tags written (last writer wins)."""
    slug = fresh_page(api)

    def update(i: int) -> Reply:
        change: dict[str, Any] = (
            {"content": f"# Carrera\n\nescritor {i}"}
            if i % 2
            else {"update_metadata": {"tags": [f"escritor-{i}"]}}
        )
        return api.post("wiki_update", {"slug": slug, **change})

    replies = race([lambda i=i: update(i) for i in range(WRITERS)])
    statuses = [r.status for r in replies]
    assert statuses == [200] * WRITERS, Counter(statuses)
    versions = {i: r.json["version"] for i, r in enumerate(replies)}
    assert sorted(versions.values()) == list(range(2, WRITERS + 2))
    stored = api.store.pages.get(slug)
    assert stored.version == WRITERS + 1
    last_content = max((i for i in versions if i % 2), key=versions.__getitem__)
    last_tags = max((i for i in versions if not i % 2), key=versions.__getitem__)
    assert stored.content == f"# Carrera\n\nescritor {last_content}"
    assert list(stored.front_matter["tags"]) == [f"escritor-{last_tags}"]
    # Each write kept its own revision, in its own commit: 50 of them besides the first,
    # each holding what its writer wrote and naming only what that writer changed.
    kept = {r.version: r for r in api.store.revisions.history(slug, limit=WRITERS + 10)}
    assert sorted(kept) == list(range(1, WRITERS + 2))
    for i, version in versions.items():
        revision = kept[version]
        assert revision.actor == "default"
        if i % 2:
            assert revision.content == f"# Carrera\n\nescritor {i}"
            assert "content" in revision.changed
        else:
            assert list(revision.front_matter["tags"]) == [f"escritor-{i}"]
            assert "tags" in revision.changed


def test_an_update_that_keeps_losing_gives_up_at_its_deadline_with_a_503(store: Any) -> None:
    """Each attempt loses to a real write slipped in before it: at the deadline, 503, not
    409, and nothing of the update is stored (the pauses run on an injected clock)."""
    from shared.api.models import WikiCreateRequest
    from shared.providers.local_embedder import shared_local_embedder
    from shared.services.wiki import RaceRetry, create_page, update_validated

    slug = create_page(
        WikiCreateRequest.parse(
            {
                "content": "# Carrera\n\nv1",
                "front_matter": {"title": "Perdedora", "type": "concept"},
            }
        ),
        store,
        shared_local_embedder(),
        actor="test",
    ).page.slug
    pages = store.pages

    class SomeoneWritesFirst:
        def __getattr__(self, name: str) -> Any:
            return getattr(pages, name)

        def update(
            self,
            page: Any,
            chunks: Any,
            *,
            expected_version: int,
            revision: Any = None,
            closes: Any = None,
        ) -> None:
            now = pages.get(slug)
            pages.update(replace(now, version=now.version + 1), None, expected_version=now.version)
            pages.update(
                page, chunks, expected_version=expected_version, revision=revision, closes=closes
            )

    class Racing:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        pages = SomeoneWritesFirst()

    moment = [0.0]
    retry = RaceRetry(
        deadline_s=2.0,
        clock=lambda: moment[0],
        sleep=lambda s: moment.__setitem__(0, moment[0] + s),
        jitter=lambda: 1.0,
    )
    with pytest.raises(Unavailable) as caught:
        update_validated(
            slug,
            {},
            "# Carrera\n\nla mía",
            None,
            Racing(),
            shared_local_embedder(),
            actor="t",
            retry=retry,
        )
    assert caught.value.status == 503
    assert "kept changing" in caught.value.message
    assert 1.5 < moment[0] <= 2.0  # it paused until its deadline, and no further
    assert store.pages.get(slug).content == "# Carrera\n\nv1"


def test_fifty_writers_of_one_page_in_one_process_take_turns_and_lose_no_race(
    store: Any,
) -> None:
    """50 unversioned updates at once in one process: each reads the version it writes in
    its page's turn (the process's ``PageTurns``, as ``Wiring.turns`` hands it to every
    update), so the store sees 50 writes and refuses none (racing on the version check
    alone took 75-350 attempts, and up to 30 s, for the same 50)."""
    from shared.api.models import WikiCreateRequest
    from shared.providers.local_embedder import shared_local_embedder
    from shared.services.wiki import PageTurns, create_page, update_validated

    embedder = shared_local_embedder()
    slug = create_page(
        WikiCreateRequest.parse(
            {"content": "# Carrera\n\nv1", "front_matter": {"title": "Turnos", "type": "concept"}}
        ),
        store,
        embedder,
        actor="test",
    ).page.slug
    pages = store.pages
    tries = Counter[str]()
    lock = threading.Lock()

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(pages, name)

        def update(self, *args: Any, **kwargs: Any) -> None:
            try:
                pages.update(*args, **kwargs)
            except Exception:
                with lock:
                    tries["lost"] += 1
                raise
            with lock:
                tries["landed"] += 1

    class Store:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        pages = Counting()

    turns = PageTurns()

    def update(i: int) -> Any:
        metadata = {} if i % 2 else {"tags": [f"escritor-{i}"]}
        content = f"# Carrera\n\nescritor {i}" if i % 2 else None
        return update_validated(
            slug, metadata, content, None, Store(), embedder, actor="t", turns=turns
        )

    results: list[Any] = race([lambda i=i: update(i) for i in range(WRITERS)])  # type: ignore[misc]
    assert sorted(r.page.version for r in results) == list(range(2, WRITERS + 2))
    assert tries == Counter({"landed": WRITERS}), tries
    assert store.pages.get(slug).version == WRITERS + 1
