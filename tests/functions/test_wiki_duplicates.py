"""POST /wiki_duplicates per route, on both stores: the contract's groups for a copied
page, the write credentials it needs, a bad min_score as a 400 naming the field."""

from __future__ import annotations

import uuid

from tests.fixtures.contract import assert_error
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import Api

TEXT = (
    "Para desplegar la aplicación en producción crea una imagen de contenedor con el "
    "código y sus dependencias, súbela al registro del proyecto y arranca el servicio con "
    "las variables de entorno que necesita. Comprueba después que responde en su dirección "
    "pública y que los registros no muestran errores antes de anunciar la nueva versión."
)


def _create(api: Api, title: str, content: str) -> str:
    created = api.post(
        "wiki_create",
        {"content": content, "front_matter": {"title": title, "type": "guide"}},
        token=TOKEN,
    )
    assert created.status == 201, created.text
    return str(created.json["slug"])


def test_a_copied_page_is_one_copy_group_with_both_pages_and_their_passages(api: Api) -> None:
    """Two pages, the second the first with one word changed: one group of kind copy,
    both pages with slug, title, lang and status, and a passage of each."""
    tag = uuid.uuid4().hex[:6]
    a = _create(api, f"Desplegar {tag}", f"# Desplegar\n\n{TEXT}")
    b = _create(api, f"Desplegar copia {tag}", f"# Desplegar\n\n{TEXT.replace('crea', 'haz')}")

    found = api.post("wiki_duplicates", {"min_score": 0.5}, token=TOKEN)

    assert found.status == 200, found.text
    groups = [g for g in found.json["groups"] if {p["slug"] for p in g["pages"]} == {a, b}]
    assert [g["kind"] for g in groups] == ["copy"]
    group = groups[0]
    assert 0.5 <= group["score"] <= 1
    assert {(p["lang"], p["status"]) for p in group["pages"]} == {("es", "active")}
    assert {p["slug"] for p in group["passages"]} == {a, b}
    assert set(group["pages"][0]) == {"slug", "title", "lang", "status"}


def test_duplicates_need_write_credentials(api: Api) -> None:
    """Without a token: 401 (a run writes the signatures it keeps)."""
    assert_error(api.post("wiki_duplicates", {}, token=None), 401, "unauthorized")


def test_a_min_score_above_one_is_a_400_naming_it(api: Api) -> None:
    """min_score 2: 400 validation_error with field min_score."""
    found = api.post("wiki_duplicates", {"min_score": 2}, token=TOKEN)
    assert_error(found, 400, "validation_error", field="min_score")
