"""Page kinds from a page's place in its tree, its type and its body (shared.text.kinds)."""

import pytest

from shared.text.kinds import page_kind


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("blog/2024-05-01-release.md", "changelog"),
        ("2023-01-02-hola.md", "changelog"),
        ("CHANGELOG.md", "changelog"),
        ("es/novedades/v5.md", "changelog"),
        ("api/app.md", "reference"),
        ("es/referencia/configuracion.md", "reference"),
        ("tutorial/first-steps.md", "tutorial"),
        ("es/primeros-pasos/instalar.md", "tutorial"),
        ("index.md", "landing"),
        ("README.md", "landing"),
        ("guides/routing.md", "guide"),
        ("guide—testing", "guide"),
        ("reference—react—usestate", "reference"),
    ],
)
def test_the_folders_and_the_file_name_tell_the_kind(path: str, kind: str) -> None:
    assert page_kind(path) == kind


def test_an_api_directive_makes_a_reference_wherever_the_file_is() -> None:
    assert page_kind("guide/widgets.md", body="# Button\n\n::: textual.widgets.Button\n") == (
        "reference"
    )


def test_a_folder_index_of_prose_is_a_guide_but_one_of_links_a_landing() -> None:
    prose = "Esta guía explica cómo configurar el enrutado con muchas palabras de prosa. " * 5
    links = "- [Uno](uno.md)\n- [Dos](dos.md)\n- [Tres ejemplos](tres.md)\n"
    assert page_kind("guides/index.md", body=prose) == "guide"
    assert page_kind("guides/index.md", body=links) == "landing"


def test_a_wiki_reference_page_stays_a_reference() -> None:
    assert page_kind("reference—limites", page_type="reference") == "reference"
    assert page_kind("runbook—promover", page_type="runbook") == "guide"
