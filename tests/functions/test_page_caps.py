"""The contract's per-page caps at the door, by both routes on both stores: 413 at the field."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api

CAP = 200  # tags, sources and related per page (the contract)
MAX_CHUNKS = 2000  # chunks per page (the contract)


def fm(**extra: Any) -> dict[str, Any]:
    return {"title": f"Topes {uuid.uuid4().hex[:8]}", "type": "concept", **extra}


def test_a_page_with_201_tags_sources_or_related_is_a_413_at_the_list(api: Api) -> None:
    """Create refuses each list one past its cap at front_matter.<list>; nothing is stored."""
    cases = {
        "tags": [f"etiqueta-{i}" for i in range(CAP + 1)],
        "sources": [f"src/m{i}.py" for i in range(CAP + 1)],
        "related": [f"concept—p{i}" for i in range(CAP + 1)],
    }
    for key, values in cases.items():
        slug = f"concept—topes-{uuid.uuid4().hex[:8]}"
        body = {"slug": slug, "content": "x", "front_matter": fm(**{key: values})}
        reply = api.post("wiki_create", body)
        assert_error(reply, 413, "payload_too_large", f"front_matter.{key}")
        assert api.store.pages.get(slug) is None


def test_exactly_200_of_each_is_accepted(api: Api) -> None:
    """The caps are inclusive: 200 tags, 200 sources and 200 related make a page."""
    body = {
        "content": "x",
        "front_matter": fm(
            tags=[f"etiqueta-{i}" for i in range(CAP)],
            sources=[f"src/m{i}.py" for i in range(CAP)],
            related=[f"concept—p{i}" for i in range(CAP)],
        ),
    }
    reply = api.post("wiki_create", body)
    assert reply.status == 201, reply.text[:300]
    page = reply.json["page"]
    assert (len(page["tags"]), len(page["sources"]), len(page["related"])) == (CAP, CAP, CAP)


def test_an_update_past_a_cap_is_a_413_at_update_metadata_and_keeps_the_page(api: Api) -> None:
    """update_metadata.sources with 201 entries is refused; the stored page is unchanged."""
    created = api.post("wiki_create", {"content": "x", "front_matter": fm(tags=["a"])})
    slug = created.json["slug"]
    sources = [{"type": "doc", "ref": f"https://example.org/{i}"} for i in range(CAP + 1)]
    reply = api.post("wiki_update", {"slug": slug, "update_metadata": {"sources": sources}})
    assert_error(reply, 413, "payload_too_large", "update_metadata.sources")
    stored = api.store.pages.get(slug)
    assert (stored.version, stored.front_matter["sources"]) == (1, [])


def test_100000_tags_in_one_body_are_refused_at_the_cap(api: Api) -> None:
    """A 1 MiB body of 100,000 distinct tags is a 413 at front_matter.tags (not a 400 later)."""
    tags = [f"t{i}" for i in range(100_000)]
    reply = api.post("wiki_create", {"content": "x", "front_matter": fm(tags=tags)})
    assert_error(reply, 413, "payload_too_large", "front_matter.tags")


def test_archive_sources_past_the_cap_are_a_413_at_sources(api: Api) -> None:
    """archive takes at most 199 sources: the draft adds the question as the 200th."""
    body = {
        "question": "¿Cómo se configura el pool de conexiones?",
        "answer": "Con DB_POOL_SIZE.",
        "sources": [f"concept—p{i}" for i in range(CAP)],
    }
    reply = api.post("archive", body)
    assert_error(reply, 413, "payload_too_large", "sources")
    body["sources"] = body["sources"][: CAP - 1]
    assert api.post("archive", body).status == 200


def test_content_of_more_than_2000_chunks_is_a_413_at_content(api: Api) -> None:
    """A page of 2,001 tiny sections is refused at content before anything is embedded."""
    sections = "".join(f"## Sección {i}\n\nTexto {i}.\n\n" for i in range(MAX_CHUNKS + 1))
    slug = f"concept—secciones-{uuid.uuid4().hex[:8]}"
    reply = api.post("wiki_create", {"slug": slug, "content": sections, "front_matter": fm()})
    assert_error(reply, 413, "payload_too_large", "content")
    assert api.store.pages.get(slug) is None
    created = api.post(
        "wiki_create", {"slug": slug, "content": "# Breve\n\nx", "front_matter": fm()}
    )
    assert created.status == 201
    update = api.post("wiki_update", {"slug": slug, "content": sections})
    assert_error(update, 413, "payload_too_large", "content")
    assert api.store.pages.get(slug).version == 1


def test_a_tag_over_64_characters_is_a_413_at_that_tag_before_any_embedding(api: Api) -> None:
    """200 tags of 2,400 characters (a 480 KB body) are refused at the first tag, at once and
    alike on both stores (was: SQLite 201; Firestore 413 without field after 23 s)."""
    slug = f"concept—etiquetas-{uuid.uuid4().hex[:8]}"
    tags = [f"{i}-" + "e" * 2400 for i in range(CAP)]
    started = time.monotonic()
    reply = api.post(
        "wiki_create", {"slug": slug, "content": "x " * 5000, "front_matter": fm(tags=tags)}
    )
    assert time.monotonic() - started < 3
    assert_error(reply, 413, "payload_too_large", "front_matter.tags[0]")
    assert api.store.pages.get(slug) is None
    ok = api.post("wiki_create", {"content": "x", "front_matter": fm(tags=["t" * 64])})
    assert ok.status == 201, ok.text[:300]
    reply = api.post(
        "wiki_update", {"slug": ok.json["slug"], "update_metadata": {"tags": ["a", "b" * 65]}}
    )
    assert_error(reply, 413, "payload_too_large", "update_metadata.tags[1]")


def test_front_matter_over_64_kib_is_a_413_at_front_matter(api: Api) -> None:
    """Each list under its cap, the whole over 64 KiB (200 long source paths): 413."""
    sources = [f"src/{'d' * 400}/m{i}.py" for i in range(CAP)]
    reply = api.post("wiki_create", {"content": "x", "front_matter": fm(sources=sources)})
    assert_error(reply, 413, "payload_too_large", "front_matter")


@pytest.mark.parametrize("api", ["client"], indirect=True)  # the stores differ, not the route
def test_a_page_within_every_cap_is_accepted_alike_on_both_stores(api: Api) -> None:
    """200 tags of 64 characters and content just under its 512 KiB cap (hundreds of
    chunks, each carrying the tags for the filters): a 201 on either store, its chunks all
    searchable (was: SQLite 201, Firestore 413 with no field). The sections repeat one
    heading and text, so the page's 1,160 chunks embed two distinct texts: the sizes are
    the point here, and the real embedder took minutes over 1,160 distinct ones."""
    tags = [f"{i:03d}-" + "e" * 60 for i in range(CAP)]
    section = "## Sección\n\n" + ("Texto de relleno para la sección. " * 25) + "\n\n"
    content = section * 580
    assert 500 * 1024 < len(content.encode()) <= 512 * 1024
    body = {"content": content, "front_matter": fm(tags=tags)}
    reply = api.post("wiki_create", body)
    assert reply.status == 201, reply.text[:300]
    slug = reply.json["slug"]
    stored = api.store.pages.get(slug)
    assert stored is not None
    assert len(stored.front_matter["tags"]) == CAP
    chunks = api.store.chunks.active_chunks_of([slug])
    assert len(chunks) >= len(content) // 4000  # split into many, none left staged
    assert {len(c.tags) for c in chunks} == {CAP}
