"""The archive's door on both stores: an answer that copies an active page becomes a
proposal on it (``duplicate-of:<slug>``), never a second page (``shared.services.archive``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from shared.clock import now
from shared.records import Proposal, new_proposal_id
from shared.schema import parse_front_matter
from shared.services import review
from shared.services.archive import archive_answer
from shared.services.wiki import create_validated
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.store_reads import counted

EMBEDDER = HashingEmbedder()
PAGE = (
    "Para desplegar el servicio crea una imagen de contenedor con el código y sus "
    "dependencias, súbela al registro del proyecto y arranca el servicio con sus variables "
    "de entorno. Cada despliegue queda etiquetado con la versión de la imagen, de modo que "
    "volver atrás es arrancar otra vez la etiqueta anterior sin reconstruir nada. Las "
    "variables secretas se leen del gestor de secretos al arrancar, nunca de la imagen. "
    "Un despliegue sin tráfico se prueba primero con una revisión sin público; cuando "
    "responde bien, se le pasa el tráfico poco a poco y se vigilan sus errores.\n"
)
COPY = PAGE.replace("Para desplegar el servicio", "Para desplegar tu servicio")
QUESTION = "¿Cómo despliego el servicio con una imagen de contenedor?"


def _page(store: Any, slug: str, status: str = "active") -> None:
    fm = parse_front_matter({"title": "Desplegar", "type": "guide", "status": status})
    create_validated(slug, fm, f"# Desplegar\n\n{PAGE}", store, EMBEDDER, actor="ana")
    registry = parse_front_matter({"title": "Registro", "type": "guide"})
    create_validated(
        "registro",
        registry,
        "# Registro\n\nEl registro guarda imágenes.\n",
        store,
        EMBEDDER,
        actor="ana",
    )


def _archive(store: Any, answer: str, question: str = QUESTION) -> dict[str, Any]:
    return archive_answer(
        question=question,
        answer=answer.rstrip() + " [1][2]\n",
        sources=["desplegar", "registro"],  # the triage wants two distinct pages
        store=store,
        embedder=EMBEDDER,
        judge=None,
        model="local:extractive",
    ).body()


def test_a_copy_of_an_active_page_is_a_proposal_on_it_and_no_draft(store: Any) -> None:
    """duplicate-of:<slug>, a proposal by the archive adding the question as a source, no
    draft written; asked again, the same open proposal; accepted, the page's next version."""
    _page(store, "desplegar")
    decision = _archive(store, COPY)
    assert decision["archived"] is False
    assert (decision["reason"], decision["slug"]) == ("duplicate-of:desplegar", "desplegar")
    proposal = store.proposals.get(decision["proposal"])
    assert (proposal.slug, proposal.actor, proposal.base_version) == ("desplegar", "archive", 1)
    assert sorted(p.slug for p in store.pages.list()) == ["desplegar", "registro"]  # no draft
    assert _archive(store, COPY)["proposal"] == proposal.id  # one proposal, not two

    review.accept(proposal.id, store, EMBEDDER, actor="cli:curator")
    page = store.pages.get("desplegar")
    assert page.version == 2
    assert {"type": "query", "ref": QUESTION} in [dict(s) for s in page.front_matter["sources"]]


def test_an_answer_on_a_new_topic_is_still_a_draft(store: Any) -> None:
    """An answer that copies no page takes the draft path as before."""
    _page(store, "desplegar")
    other = (
        "Los índices de la base de datos aceleran las consultas que filtran por una columna, "
        "a cambio de escrituras algo más lentas y de espacio en disco; conviene medir antes "
        "de crear uno y revisar el plan de la consulta con la herramienta del motor. Un "
        "índice compuesto sirve a las consultas que filtran por su primera columna, y uno "
        "que nadie usa solo cuesta: el motor dice cuáles se leen y cuáles no. Antes de "
        "borrar uno, se comprueba durante una semana que ninguna consulta lo "
        "necesita, y se guarda su definición para volver a crearlo si hiciera falta.\n"
    )
    decision = _archive(store, other, question="¿Cuándo conviene crear un índice?")
    assert (decision["archived"], decision["reason"]) == (True, "archived")
    assert "proposal" not in decision
    assert store.pages.get(decision["slug"]).front_matter["status"] == "draft"


def test_a_copy_of_a_draft_or_archived_page_is_not_the_door(store: Any) -> None:
    """Only active pages are duplicated at the door: a copy of a draft is a draft."""
    _page(store, "desplegar", status="draft")
    decision = _archive(store, COPY)
    assert (decision["archived"], decision["reason"]) == (True, "archived")
    assert store.proposals.list(status="open") == []


def test_open_proposals_are_listed_by_page_and_actor_reading_only_those(
    store: Any, store_env: str
) -> None:
    """``proposals.list(slug=, actor=)`` (the door's own-proposal lookup) returns the
    open proposals of that page by that actor, oldest first; on Firestore a query reading
    those documents, not every open proposal."""
    at = now()
    made = [
        Proposal(new_proposal_id(), slug, 1, "x", {}, actor, at + timedelta(seconds=i))
        for i, (slug, actor) in enumerate(
            [("desplegar", "archive"), ("desplegar", "ana"), ("registro", "archive")] * 4
        )
    ]
    for proposal in made:
        store.proposals.add(proposal)
    counts = counted(store) if store_env == "firestore" else None
    found = store.proposals.list(status="open", slug="desplegar", actor="archive")
    if counts is not None:
        assert counts.reads == 4, counts  # the four it returns, not the twelve open
    assert [p.id for p in found] == [
        p.id for p in made if (p.slug, p.actor) == ("desplegar", "archive")
    ]
    assert len(store.proposals.list(status="open")) == len(made)
