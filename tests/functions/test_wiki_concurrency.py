"""Racing writes: without expected_version both land; with it exactly one does."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

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
