"""wiki_create and wiki_update end to end, on the SQLite store and on the Firestore emulator.

Real requests through functions-framework's test client; the store behind them is
whatever ``store_env`` configured, so both backends answer the contract identically.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared.bootstrap import build_embedder, open_store
from shared.config import get_settings
from shared.records import SearchFilter

FRONT_MATTER = {
    "title": "Instalar FastAPI",
    "type": "guide",
    "tags": ["instalación"],
    "category": "inicio",
    "sources": [{"type": "doc", "ref": "docs/es/docs/index.md"}],
}
CONTENT = "# Instalar\n\nUsa pip install fastapi dentro de un entorno virtual.\n"


def _found(slug: str, **filters: str) -> bool:
    embedder = build_embedder(get_settings())
    hits = open_store(get_settings()).chunks.nearest(
        embedder.embed_query("cómo instalo fastapi"),
        embedder=embedder.name,
        filters=SearchFilter(**filters),
        limit=5,
    )
    return any(h.slug == slug for h in hits)


def test_wiki_create_answers_the_contract(
    store_env: str, client: Callable[[str], Any], auth: dict[str, str]
) -> None:
    """201 with the created page, searchable at once; the same slug again is a 409 conflict."""
    create = client("wiki_create")
    body = {"slug": "instalar", "content": CONTENT, "front_matter": FRONT_MATTER}

    first = create.post("/", json=body, headers=auth)
    again = create.post("/", json=body, headers=auth)

    assert first.status_code == 201
    assert first.get_json()["status"] == "created"
    assert first.get_json()["slug"] == "instalar"
    assert first.get_json()["version"] == 1
    assert first.get_json()["page"]["title"] == "Instalar FastAPI"
    assert first.get_json()["page"]["created_at"].endswith("+00:00")
    assert _found("instalar", tag="instalación")
    assert again.status_code == 409
    assert again.get_json() == {
        "error": "a page with slug 'instalar' already exists",
        "code": "conflict",
        "field": "slug",
    }


def test_wiki_update_answers_the_contract(
    store_env: str, client: Callable[[str], Any], auth: dict[str, str]
) -> None:
    """200 updated with a new version; unchanged keeps it; stale 409; unknown slug 404."""
    body = {"slug": "instalar", "content": CONTENT, "front_matter": FRONT_MATTER}
    assert client("wiki_create").post("/", json=body, headers=auth).status_code == 201
    update = client("wiki_update")

    updated = update.post(
        "/",
        json={"slug": "instalar", "update_metadata": {"status": "archived"}, "expected_version": 1},
        headers=auth,
    )
    unchanged = update.post(
        "/", json={"slug": "instalar", "update_metadata": {"status": "archived"}}, headers=auth
    )
    stale = update.post(
        "/", json={"slug": "instalar", "content": "# Otro\n", "expected_version": 1}, headers=auth
    )
    missing = update.post("/", json={"slug": "no-existe", "content": "# x\n"}, headers=auth)

    assert updated.status_code == 200
    assert updated.get_json()["status"] == "updated"
    assert updated.get_json()["version"] == 2
    assert updated.get_json()["page"]["status"] == "archived"
    assert not _found("instalar")  # archived pages leave the search at once
    assert unchanged.status_code == 200
    assert unchanged.get_json()["status"] == "unchanged"
    assert unchanged.get_json()["version"] == 2
    assert stale.status_code == 409
    assert stale.get_json()["code"] == "version_conflict"
    assert stale.get_json()["field"] == "expected_version"
    assert missing.status_code == 404
    assert missing.get_json()["code"] == "not_found"
    assert open_store(get_settings()).pages.get("instalar").version == 2


def test_a_description_is_stored_and_read_back_on_both_stores(
    store_env: str, client: Callable[[str], Any], auth: dict[str, str]
) -> None:
    """The schema's optional description survives the store; an update can clear it."""
    front_matter = {**FRONT_MATTER, "description": "Cómo se instala FastAPI."}
    body = {"slug": "instalar", "content": CONTENT, "front_matter": front_matter}
    assert client("wiki_create").post("/", json=body, headers=auth).status_code == 201
    stored = open_store(get_settings()).pages.get("instalar")
    assert stored is not None
    assert stored.front_matter["description"] == "Cómo se instala FastAPI."
    update = {"slug": "instalar", "update_metadata": {"description": None}}
    reply = client("wiki_update").post("/", json=update, headers=auth)
    assert reply.status_code == 200
    assert "description" not in reply.get_json()["page"]
