"""contents_of on both stores: the bodies of the pages asked for, in one read, none for a
slug that does not exist (an answer's sources link their headings from these)."""

from __future__ import annotations

from typing import Any

from shared.schema import parse_front_matter
from shared.services.wiki import create_validated
from tests.fixtures.embedder import HashingEmbedder


def test_contents_of_returns_each_existing_pages_body(store: Any) -> None:
    """Two pages asked with one missing slug: their bodies, exactly as stored."""
    for slug, body in (("uno", "# Uno\n\n## Sección { #s }\n\nTexto."), ("dos", "Dos.")):
        front = parse_front_matter({"title": slug, "type": "guide", "status": "active"})
        create_validated(slug, front, body, store, HashingEmbedder(), actor="test")
    assert store.pages.contents_of(["uno", "dos", "nadie"]) == {
        "uno": "# Uno\n\n## Sección { #s }\n\nTexto.",
        "dos": "Dos.",
    }
    assert store.pages.contents_of([]) == {}
