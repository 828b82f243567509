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
