"""Merging a duplicate on both stores: proposed, shown, accepted, reverted; rejected
and remembered; the pairs a merge refuses (``shared.services.merge``)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.errors import Conflict, InvalidInput
from shared.schema import parse_front_matter
from shared.services import duplicates, history, merge, review
from shared.services.wiki import create_validated, update_validated
from tests.fixtures.embedder import HashingEmbedder

EMBEDDER = HashingEmbedder()
SHARED = (
    "Para desplegar crea una imagen de contenedor con el código y sus dependencias, "
    "súbela al registro del proyecto y arranca el servicio con sus variables de entorno."
)
KEEP = f"# Desplegar\n\n{SHARED}\n\n## Requisitos\n\nUna cuenta del proyecto y Docker.\n"
OTHER = (
    f"# Despliegue\n\n{SHARED}\n\n## Requisitos\n\nDocker y una cuenta.\n\n"
    "## Revertir un despliegue\n\nVuelve a la imagen anterior con su etiqueta y arranca"
    " el servicio de nuevo.\n"
)


def _page(store: Any, slug: str, content: str, **front: Any) -> None:
    fm = parse_front_matter({"title": slug.title(), "type": "guide", **front})
    create_validated(slug, fm, content, store, EMBEDDER, actor="ana")


def _state(store: Any, *slugs: str) -> list[tuple[str, dict[str, Any]]]:
    return [(store.pages.get(s).content, dict(store.pages.get(s).front_matter)) for s in slugs]


def _two(store: Any) -> None:
    _page(store, "desplegar", KEEP, tags=["ops"], related=["despliegue"])
    _page(
        store,
        "despliegue",
        OTHER,
        tags=["ops", "docker"],
        related=["imagenes"],
        sources=[{"type": "code", "ref": "deploy/run.sh"}],
    )
    _page(store, "imagenes", "# Imágenes\n\nCómo se construye una imagen.\n")


def test_an_accepted_merge_gives_keep_what_only_other_had_and_revert_undoes_it(
    store: Any,
) -> None:
    """KEEP gains OTHER's own section, source, tag and related page as a version by the
    proposer noted with the curator; OTHER is archived redirecting to KEEP and out of the
    searchable chunks; reverting both pages restores the wiki as it was."""
    _two(store)
    before = _state(store, "desplegar", "despliegue")

    proposed = merge.propose("desplegar", "despliegue", store, actor="cli:ana", reason="dup")
    shown = review.show(proposed["proposal"], store)
    assert shown["proposal"]["merge"] == {"other": "despliegue", "other_version": 1}
    assert "+## Revertir un despliegue" in shown["proposal"]["diff"]

    accepted = review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:curator")

    kept, gone = store.pages.get("desplegar"), store.pages.get("despliegue")
    assert accepted["merged"] == {"slug": "despliegue", "version": 2}
    assert "## Revertir un despliegue" in kept.content
    assert kept.content.count("## Requisitos") == 1  # a restated section is not appended
    assert list(kept.front_matter["tags"]) == ["ops", "docker"]
    assert list(kept.front_matter["related"]) == ["imagenes"]
    assert [s["ref"] for s in kept.front_matter["sources"]] == ["deploy/run.sh"]
    newest = store.revisions.history("desplegar", limit=1)[0]
    assert newest.actor == "cli:ana"
    assert newest.note.startswith(f"accepted {proposed['proposal']} (by cli:curator)")
    assert (gone.front_matter["status"], gone.front_matter["redirect_to"]) == (
        "archived",
        "desplegar",
    )
    assert "despliegue" not in {c.slug for c in store.chunks.active_chunks()}

    history.revert("desplegar", 1, store, EMBEDDER, actor="cli:curator")
    history.revert("despliegue", 1, store, EMBEDDER, actor="cli:curator")
    assert _state(store, "desplegar", "despliegue") == before
    assert "despliegue" in {c.slug for c in store.chunks.active_chunks()}


def test_a_rejected_merge_dismisses_the_pair_for_good(store: Any) -> None:
    """Rejecting a merge of a listed copy closes it and the pair is never listed again."""
    _page(store, "a", f"# A\n\n{SHARED}\n")
    _page(store, "b", f"# B\n\n{SHARED}\n")
    duplicates.refresh(store)
    assert [g.kind for g in duplicates.listing(store).groups] == ["copy"]

    proposed = merge.propose("a", "b", store, actor="cli:ana")
    rejected = review.reject(proposed["proposal"], store, EMBEDDER, actor="cli:cu", reason="no")

    assert rejected["dismissed"] == ["a", "b"]
    assert store.proposals.get(proposed["proposal"]).status == "rejected"
    duplicates.refresh(store, full=True)
    assert duplicates.listing(store).groups == []


def test_merges_that_cannot_be_are_400s_naming_why(store: Any) -> None:
    """Into itself, into an archived page, into or from a page that already redirects."""
    _two(store)
    with pytest.raises(InvalidInput, match="into itself"):
        merge.propose("desplegar", "desplegar", store, actor="cli:ana")
    accepted = merge.propose("desplegar", "despliegue", store, actor="cli:ana")
    review.accept(accepted["proposal"], store, EMBEDDER, actor="cli:cu")
    with pytest.raises(InvalidInput, match="chain of redirects"):
        merge.propose("despliegue", "imagenes", store, actor="cli:ana")
    with pytest.raises(InvalidInput, match="already merged into 'desplegar' \\(a cycle\\)"):
        merge.propose("desplegar", "despliegue", store, actor="cli:ana")
    update_validated("imagenes", {"status": "archived"}, None, 1, store, EMBEDDER, actor="ana")
    with pytest.raises(InvalidInput, match="'imagenes' is archived: merge into a page"):
        merge.propose("imagenes", "desplegar", store, actor="cli:ana")


def test_a_merge_whose_page_moved_on_is_a_conflict_and_writes_nothing(store: Any) -> None:
    """OTHER edited after the proposal: accepting it is a conflict, both pages unchanged."""
    _two(store)
    proposed = merge.propose("desplegar", "despliegue", store, actor="cli:ana")
    update_validated("despliegue", {"tags": ["x"]}, None, 1, store, EMBEDDER, actor="ana")
    before = _state(store, "desplegar", "despliegue")
    with pytest.raises(Conflict, match="'despliegue' is at version 2"):
        review.accept(proposed["proposal"], store, EMBEDDER, actor="cli:cu")
    assert _state(store, "desplegar", "despliegue") == before
