"""POST /wiki_update per the contract, through the test client and a real server, on both stores."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from shared.bootstrap import build_embedder
from shared.config import get_settings
from shared.records import SearchFilter
from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api


def create(
    api: Api, content: str = "# Título\n\nCuerpo inicial.", **front_matter: Any
) -> dict[str, Any]:
    fm = {"title": f"Página {uuid.uuid4().hex[:10]}", "type": "guide", **front_matter}
    reply = api.post("wiki_create", {"content": content, "front_matter": fm})
    assert reply.status == 201, reply.text
    return reply.json


def update(api: Api, slug: str, **body: Any) -> Any:
    return api.post("wiki_update", {"slug": slug, **body})


def snapshot(api: Api, slug: str) -> tuple[Any, dict[str, bytes]]:
    """The stored page and its chunk vectors, as bytes: to prove nothing changed."""
    record = api.store.pages.get(slug)
    vectors = {
        h: np.asarray(v, dtype=np.float32).tobytes()
        for h, v in api.store.chunks.vectors_for(slug).items()
    }
    return record, vectors


def retrievable(api: Api, slug: str, title: str) -> bool:
    """Whether ask's index would return a chunk of ``slug`` for a query on its title."""
    embedder = build_embedder(get_settings())
    hits = api.store.chunks.nearest(
        embedder.embed_query(title), embedder=embedder.name, filters=SearchFilter(), limit=50
    )
    return any(hit.slug == slug for hit in hits)


def test_an_update_answers_200_with_version_plus_one(api: Api) -> None:
    """200 {status: updated, slug, version: n+1, page}; created_at kept, updated_at moves."""
    created = create(api)
    slug = created["slug"]
    reply = update(
        api, slug, content="# Título\n\nCuerpo nuevo.", update_metadata={"category": "ops"}
    )
    assert reply.status == 200, reply.text
    assert reply.json["status"] == "updated"
    assert reply.json["slug"] == slug
    assert reply.json["version"] == 2
    page = reply.json["page"]
    assert page["version"] == 2
    assert page["category"] == "ops"
    assert page["title"] == created["page"]["title"]  # metadata not given is kept
    assert page["created_at"] == created["page"]["created_at"]
    assert datetime.fromisoformat(page["updated_at"]) > datetime.fromisoformat(page["created_at"])
    stored = api.store.pages.get(slug)
    assert (stored.version, stored.content) == (2, "# Título\n\nCuerpo nuevo.")
    again = update(api, slug, update_metadata={"category": "dev"})
    assert again.json["version"] == 3


def test_an_update_that_changes_nothing_keeps_the_version(api: Api) -> None:
    """Same content and metadata: {status: unchanged}, same version, nothing rewritten."""
    created = create(api, tags=["a"])
    slug = created["slug"]
    before = snapshot(api, slug)
    for sent in (
        {"content": "# Título\n\nCuerpo inicial."},
        {"update_metadata": {"tags": [" A "], "type": "guide"}},
        {},
        {"update_metadata": {}, "expected_version": 1},
    ):
        reply = update(api, slug, **sent)
        assert reply.status == 200, reply.text
        assert reply.json["status"] == "unchanged"
        assert reply.json["version"] == 1
    assert snapshot(api, slug) == before


def test_an_unknown_slug_is_a_404(api: Api) -> None:
    """Updating a page that does not exist is a 404 not_found."""
    reply = update(api, f"guide—no-existe-{uuid.uuid4().hex[:8]}", content="x")
    assert reply.status == 404
    assert reply.json["code"] == "not_found"


def test_a_stale_expected_version_is_a_409_version_conflict(api: Api) -> None:
    """expected_version older than the stored one: 409 version_conflict, nothing written."""
    slug = create(api)["slug"]
    assert update(api, slug, content="v2", expected_version=1).json["version"] == 2
    before = snapshot(api, slug)
    reply = update(api, slug, content="v3", expected_version=1)
    assert reply.status == 409
    assert reply.json["code"] == "version_conflict"
    assert snapshot(api, slug) == before
    assert update(api, slug, content="v3", expected_version=2).json["version"] == 3


def test_update_errors_name_update_metadata_paths(api: Api) -> None:
    """A normalization error on update says update_metadata.sources[i] (the other fields,
    unknown keys, expected_version and malformed bodies: tests/service)."""
    slug = create(api)["slug"]
    reply = update(api, slug, update_metadata={"sources": ["a.py", "", {"type": "doc"}]})
    assert_error(reply, 400, "validation_error", "update_metadata.sources[2]")


def test_content_over_512_kib_on_update_is_a_413(api: Api) -> None:
    """The 512 KiB content limit holds on update too."""
    slug = create(api)["slug"]
    reply = update(api, slug, content="a" * (512 * 1024 + 1))
    assert reply.status == 413
    assert reply.json["field"] == "content"


def test_lists_in_update_metadata_replace_the_stored_ones(api: Api) -> None:
    """tags, sources and related are replaced, not merged."""
    slug = create(
        api, tags=["uno", "dos"], sources=[{"type": "doc", "ref": "a"}], related=["concept—x"]
    )["slug"]
    reply = update(
        api,
        slug,
        update_metadata={
            "tags": ["tres"],
            "sources": [{"type": "wiki", "ref": "b"}],
            "related": [],
        },
    )
    page = reply.json["page"]
    assert page["tags"] == ["tres"]
    assert page["sources"] == [{"type": "wiki", "ref": "b"}]
    assert page["related"] == []
    assert dict(api.store.pages.get(slug).front_matter)["tags"] == ["tres"]


def test_null_in_update_metadata_clears_a_nullable_field(api: Api) -> None:
    """category: null and sources: null clear the stored values."""
    slug = create(api, category="ops", sources=["a.py"])["slug"]
    page = update(api, slug, update_metadata={"category": None, "sources": None}).json["page"]
    assert page["category"] is None
    assert page["sources"] == []


def test_promoting_a_draft_makes_it_retrievable(api: Api) -> None:
    """status: active on a draft is how a curator promotes it; only active pages are searched."""
    created = create(
        api, content="# Promoción\n\nLos borradores esperan al curador.", status="draft"
    )
    slug, title = created["slug"], created["page"]["title"]
    assert not retrievable(api, slug, title)
    assert slug not in {p.slug for p in api.store.pages.list(status="active")}
    reply = update(api, slug, update_metadata={"status": "active"})
    assert reply.json["page"]["status"] == "active"
    assert reply.json["version"] == 2
    assert retrievable(api, slug, title)
    assert slug in {p.slug for p in api.store.pages.list(status="active")}


def test_archiving_unpublishes_a_page(api: Api) -> None:
    """status: archived takes an active page out of retrieval and of the active listing."""
    created = create(api, content="# Archivo\n\nEsta página se va a archivar.")
    slug, title = created["slug"], created["page"]["title"]
    assert retrievable(api, slug, title)
    reply = update(api, slug, update_metadata={"status": "archived"})
    assert reply.json["page"]["status"] == "archived"
    assert not retrievable(api, slug, title)
    assert slug in {p.slug for p in api.store.pages.list(status="archived")}
    assert api.store.pages.get(slug) is not None  # archived, not deleted


def test_new_content_is_searchable_when_the_update_returns(api: Api) -> None:
    """An update's chunks replace the old ones in the same write."""
    slug = create(api, content="# Uno\n\nTexto viejo.")["slug"]
    old = set(api.store.chunks.vectors_for(slug))
    update(api, slug, content="# Uno\n\nTexto nuevo.\n\n## Dos\n\nOtra sección.")
    new = set(api.store.chunks.vectors_for(slug))
    assert len(new) == 2
    assert not old & new


def test_a_metadata_only_update_keeps_the_vectors(api: Api) -> None:
    """Changing only tags does not re-embed: the chunk vectors stay byte-identical."""
    slug = create(api)["slug"]
    _, before = snapshot(api, slug)
    update(api, slug, update_metadata={"tags": ["nueva"]})
    _, after = snapshot(api, slug)
    assert after == before


def test_updated_since_finds_a_write_whatever_the_offset_of_the_moment(api: Api) -> None:
    """list(updated_since=…) compares moments, not their text: +02:00 and -05:00 agree with UTC."""
    slug = create(api)["slug"]
    written = datetime.fromisoformat(update(api, slug, content="v2").json["page"]["updated_at"])
    before, after = written - timedelta(minutes=30), written + timedelta(minutes=30)
    for offset in (timedelta(hours=2), timedelta(hours=-5), timedelta(0)):
        zone = timezone(offset)
        since_before = {p.slug for p in api.store.pages.list(updated_since=before.astimezone(zone))}
        since_after = {p.slug for p in api.store.pages.list(updated_since=after.astimezone(zone))}
        assert slug in since_before, offset
        assert slug not in since_after, offset
