"""Components, ``<script>``/``<style>``, void tags and comments: none swallows the text
after it."""

from __future__ import annotations

import pytest

from tests.unit.importing_helpers import stored


@pytest.mark.parametrize("dialect", ["vitepress", "react", "docusaurus"])
def test_a_script_setup_with_imports_and_a_br_keep_every_word_after_them(dialect: str) -> None:
    """Issue 30 item 12: ``<script setup>`` + ``import`` + a bare ``<br>`` lost the rest."""
    body = (
        "<script setup>\nimport X from './x.vue'\nconst n = 1\n</script>\n\n"
        "# Título\n\nUno<br>dos tres.\n\n## Segunda sección\n\nCuatro cinco seis.\n"
    )
    out, counts = stored(body, dialect, page="a.md")
    for word in ("Título", "dos tres", "Segunda sección", "Cuatro cinco seis"):
        assert word in out, (dialect, out)
    assert "const n" not in out
    assert "import X" not in out
    assert counts["script-block"]["dropped"] == 1


@pytest.mark.parametrize(
    "opening", ["<style>\n.a { color: red }\n", "<!-- sin cerrar\n", "<details>\n"]
)
def test_an_unclosed_block_keeps_the_text_after_it(opening: str) -> None:
    body = f"Antes.\n\n{opening}\nDespués vienen veinte palabras que deben llegar a la página.\n"
    for page in ("a.md", "a.mdx"):
        out, _ = stored(body, "markdown", page=page)
        assert "Después vienen veinte palabras" in out, (page, out)


def test_an_import_line_before_prose_ends_at_the_prose() -> None:
    out, counts = stored("import Home from './Home.mdx'\n# Inicio\nTexto.\n", "mdx", page="i.mdx")
    assert "# Inicio" in out
    assert "Texto." in out
    assert counts["mdx-import"]["dropped"] == 1


def test_a_badge_in_a_heading_is_its_text() -> None:
    out, _ = stored('## Opción <Badge type="info" text="beta" />\n\nX.\n', "vitepress")
    assert out.split("\n")[0] == "## Opción beta"


def test_an_unknown_component_keeps_its_children_and_is_counted_by_name() -> None:
    out, counts = stored("<ScrimbaLink href='x'>Mira el curso</ScrimbaLink>\n", "vitepress")
    assert out.strip() == "Mira el curso"
    assert counts["mdx-component:ScrimbaLink"]["dropped"] == 1


def test_vue_braces_are_text_and_interpolation_goes() -> None:
    out, _ = stored("Un objeto { a: 1 } y {{ $frontmatter.title }}.\n", "vitepress")
    assert "{ a: 1 }" in out
    assert "$frontmatter" not in out


def test_a_react_diagram_is_its_image_and_keeps_its_caption() -> None:
    """react.dev's ``<Diagram name>`` shows ``/images/docs/diagrams/NAME.png`` (a row of
    the react dialect's own component map), its caption kept, the text after it too."""
    body = (
        '<Diagram name="tree" width={500} alt="Un árbol">\n\nEl árbol.\n\n</Diagram>\n\nDespués.\n'
    )
    out, counts = stored(body, "react")
    assert out.startswith("![Un árbol](/images/docs/diagrams/tree.png)")
    assert "El árbol." in out
    assert "Después." in out
    assert counts["mdx-component:Diagram"]["mapped"] == 1


def test_a_diagram_outside_react_is_an_unknown_component() -> None:
    """The react dialect's rows apply to it only: elsewhere ``<Diagram>`` is unknown."""
    out, counts = stored('<Diagram name="tree">\n\nEl árbol.\n\n</Diagram>\n', "mdx", page="a.mdx")
    assert out.strip() == "El árbol."
    assert counts["mdx-component:Diagram"]["dropped"] == 1


def test_an_illustration_is_its_image_inline_or_as_a_block() -> None:
    body = (
        '<Illustration src="/i/a.png" alt="Uno" />\n\n'
        'Y <Illustration src="/i/b.png" alt="b">Pie</Illustration> fin.\n'
    )
    out, counts = stored(body, "react")
    assert out.startswith("![Uno](/i/a.png)")
    assert "Y ![b](/i/b.png) Pie fin." in out
    assert counts["mdx-component:Illustration"]["mapped"] == 2


def test_vitepress_own_components_are_mapped() -> None:
    out, _ = stored(
        'Versión <VPBadge text="beta" /> y <ClientOnly>en cliente</ClientOnly>.\n', "vitepress"
    )
    assert out.strip() == "Versión beta y en cliente."
