"""POST /wiki_create per the contract, through the test client and a real server, on both stores."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from tests.fixtures.contract import FRONT_MATTER_KEYS, assert_error
from tests.fixtures.server import Api


def unique(prefix: str = "Página") -> str:
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def body(
    title: str | None = None, content: str = "# Hola\n\nUn texto.", **front_matter: Any
) -> dict[str, Any]:
    return {
        "content": content,
        "front_matter": {"title": title or unique(), "type": "concept", **front_matter},
    }


def test_create_answers_201_with_the_stored_page(api: Api) -> None:
    """201 {status: created, slug, version: 1, page}: normalized front matter plus bookkeeping."""
    title = unique("Arquitectura de Biblioteca")
    reply = api.post(
        "wiki_create",
        body(
            title=f"  {title} ",
            content="# Arquitectura\n\nFunciones, paquete compartido y dos almacenes.",
            sources=["shared/http.py", {"path": "shared/schema.py", "type": "DOC"}, ""],
            related=[" concept—biblioteca "],
            tags=[" Arquitectura ", "arquitectura"],
            category=" diseño ",
        ),
    )
    assert reply.status == 201, reply.text
    today = datetime.now(UTC).date().isoformat()
    slug = reply.json["slug"]
    assert reply.json["status"] == "created"
    assert reply.json["version"] == 1
    page = reply.json["page"]
    assert set(page) == set(FRONT_MATTER_KEYS) | {"slug", "version", "created_at", "updated_at"}
    assert page["slug"] == slug
    assert page["version"] == 1
    assert page["title"] == title
    assert page["status"] == "active"
    assert page["sources"] == [
        {"type": "code", "ref": "shared/http.py", "last_seen": today},
        {"type": "doc", "ref": "shared/schema.py"},
    ]
    assert page["related"] == ["concept—biblioteca"]
    assert page["tags"] == ["arquitectura"]
    assert page["category"] == "diseño"
    assert page["generated"] is None
    assert datetime.fromisoformat(page["created_at"]) == datetime.fromisoformat(page["updated_at"])
    assert reply.headers["content-type"].startswith("application/json")
    stored = api.store.pages.get(slug)
    assert stored is not None
    assert stored.version == 1
    assert stored.content == "# Arquitectura\n\nFunciones, paquete compartido y dos almacenes."
    assert dict(stored.front_matter)["sources"] == page["sources"]


def test_a_created_page_is_searchable_when_the_call_returns(api: Api) -> None:
    """The page's chunks (with vectors) are in the store as soon as the 201 arrives."""
    reply = api.post("wiki_create", body(content="# Uno\n\nPrimero.\n\n## Dos\n\nSegundo."))
    assert reply.status == 201
    vectors = api.store.chunks.vectors_for(reply.json["slug"])
    assert len(vectors) >= 2
    assert all(v.ndim == 1 and v.size > 0 for v in vectors.values())


def test_the_derived_slug_is_type_and_title_with_suffixes_when_taken(api: Api) -> None:
    """Without a slug: type—folded-title, then -2, -3 for the same title."""
    token = uuid.uuid4().hex[:8]
    title = f"Canción de Ñandú {token}"
    slugs = []
    for _ in range(3):
        reply = api.post(
            "wiki_create", {"content": "x", "front_matter": {"title": title, "type": "runbook"}}
        )
        assert reply.status == 201, reply.text
        slugs.append(reply.json["slug"])
    base = f"runbook—cancion-de-nandu-{token}"
    assert slugs == [base, f"{base}-2", f"{base}-3"]


def test_a_derived_slug_skips_a_suffix_taken_explicitly(api: Api) -> None:
    """If slug-2 was taken by an explicit create, the derived one becomes slug-3."""
    token = uuid.uuid4().hex[:8]
    base = f"guide—guia-{token}"
    assert (
        api.post("wiki_create", {**body(title=f"Guía {token}"), "slug": f"{base}-2"}).status == 201
    )
    first = api.post(
        "wiki_create", {"content": "x", "front_matter": {"title": f"Guía {token}", "type": "guide"}}
    )
    second = api.post(
        "wiki_create", {"content": "x", "front_matter": {"title": f"Guía {token}", "type": "guide"}}
    )
    assert (first.json["slug"], second.json["slug"]) == (base, f"{base}-3")


def test_an_explicit_slug_is_used_as_given(api: Api) -> None:
    """A valid explicit slug is the page's slug."""
    slug = f"decision—firestore-{uuid.uuid4().hex[:8]}"
    reply = api.post("wiki_create", {**body(), "slug": slug})
    assert reply.status == 201
    assert reply.json["slug"] == slug
    assert api.store.pages.get(slug) is not None


def test_an_invalid_explicit_slug_is_a_400_at_slug_and_not_rewritten(api: Api) -> None:
    """An explicit slug outside the regex is refused (400 at slug), never slugified (the
    other invalid and reserved slugs: tests/service)."""
    reply = api.post("wiki_create", {**body(), "slug": "Mi Página"})
    assert_error(reply, 400, "validation_error", "slug")
    assert api.store.pages.get("mi-pagina") is None


def test_an_existing_slug_is_a_409_conflict_and_the_page_is_untouched(api: Api) -> None:
    """Creating a slug twice: 409 conflict, and the first page stays as it was."""
    slug = f"entity—{uuid.uuid4().hex[:10]}"
    first = api.post("wiki_create", {**body(title="Primera", content="uno"), "slug": slug})
    assert first.status == 201
    second = api.post("wiki_create", {**body(title="Segunda", content="dos"), "slug": slug})
    assert second.status == 409
    assert second.json["code"] == "conflict"
    assert second.json["field"] == "slug"
    stored = api.store.pages.get(slug)
    assert stored is not None
    assert (stored.version, stored.front_matter["title"], stored.content) == (1, "Primera", "uno")


def test_front_matter_errors_name_the_path_in_the_request(api: Api) -> None:
    """A bad source is a 400 at front_matter.sources[i] (every other field: tests/service)."""
    reply = api.post("wiki_create", body(sources=["a.py", "b.py", True]))
    assert_error(reply, 400, "validation_error", "front_matter.sources[2]")


def test_content_over_512_kib_is_a_413_at_content(api: Api) -> None:
    """content is limited to 512 KiB (counted in UTF-8 bytes): 413 payload_too_large at content."""
    reply = api.post("wiki_create", body(content="ñ" * (256 * 1024 + 1)))
    assert reply.status == 413
    assert reply.json == {
        "error": reply.json["error"],
        "code": "payload_too_large",
        "field": "content",
    }


def test_content_of_exactly_512_kib_is_accepted(store_env: str) -> None:
    """The limit is inclusive: a 512 KiB body is a page, stored whole and searchable on return."""
    # Through the test client only: the HTTP route adds nothing here, and on the
    # emulator this one write (hundreds of chunk documents) takes seconds.
    api = Api("client")
    # Repeated paragraphs: hundreds of chunks to store, but only a few distinct texts
    # to embed, so the boundary is tested without minutes of embedding.
    paragraph = "La biblioteca guarda páginas y fragmentos en la misma escritura. " * 14
    text = "\n\n".join([paragraph] * 600).encode()[: 512 * 1024].decode("utf-8", errors="ignore")
    assert len(text.encode()) > 512 * 1024 - 2
    reply = api.post("wiki_create", body(content=text))
    assert reply.status == 201, reply.text[:500]
    stored = api.store.pages.get(reply.json["slug"])
    assert stored is not None
    assert stored.content == text
    assert api.store.chunks.vectors_for(reply.json["slug"])


def test_a_status_given_on_create_is_kept(api: Api) -> None:
    """status draft on create is stored as draft (not active)."""
    reply = api.post("wiki_create", body(status="draft"))
    assert reply.status == 201
    assert reply.json["page"]["status"] == "draft"
