"""An answer names the pages it links to by their titles, never by their slugs (issue 32
item 6): ``[[slug]]`` in a quoted passage reaches the response as ``[[slug|Title]]``."""

from __future__ import annotations

from tests.service.conftest import Call


def test_a_wiki_link_in_the_answer_carries_the_linked_pages_title(call: Call) -> None:
    """The page the passage links to is not among the sources: its title is read."""
    status, target = call(
        "wiki_create",
        {
            "content": "# Las puertas del archivo\n\nMeta, grounding y triaje.",
            "front_matter": {"title": "Las puertas del archivo", "type": "concept"},
        },
    )
    assert status == 201, target
    slug = target["slug"]
    status, _ = call(
        "wiki_create",
        {
            "content": (
                "# Archivar respuestas\n\n"
                "- Con credenciales de escritura, la respuesta del asistente pasa por las "
                f"puertas de la biblioteca ([[{slug}]]) antes de guardarse como borrador.\n"
            ),
            "front_matter": {"title": "Archivar respuestas", "type": "guide"},
        },
    )
    assert status == 201
    status, body = call(
        "ask",
        {"question": "¿Por dónde pasa la respuesta del asistente antes de guardarse?"},
    )
    assert status == 200, body
    assert f"[[{slug}|Las puertas del archivo]]" in body["answer"], body["answer"]
    assert f"({slug})" not in body["answer"]
    assert f"[[{slug}]]" not in body["answer"]
