"""Each generator's routes for a file: Docusaurus id/slug, VitePress rewrites, locales."""

from __future__ import annotations

from pathlib import Path

from shared.dialects.links import Resolver
from shared.dialects.routes import facts_of
from tests.fixtures.files import write


def test_docusaurus_serves_docs_under_docs_with_id_and_slug(tmp_path: Path) -> None:
    """``id`` replaces the file name, a relative ``slug`` sits beside the file, an absolute
    one from the docs root; the site's title is the config's."""
    write(
        tmp_path,
        "website/docusaurus.config.js",
        "module.exports = { title: 'Mi Doc', tagline: 'x' }",
    )
    facts = facts_of(tmp_path / "website" / "docs")
    assert (facts.generator, facts.base, facts.site_name) == ("docusaurus", "docs", "Mi Doc")
    assert facts.routes_of("guias/Timeouts.md", "timeouts")[0] == "docs/guias/timeouts"
    assert facts.routes_of("guias/a.md", None, "otra")[0] == "docs/guias/otra"
    assert facts.routes_of("guias/a.md", None, "/")[0] == "docs"
    assert facts.routes_of("guias/index.md")[:2] == ["docs/guias", "guias"]


def test_vitepress_rewrites_apply_from_the_source_root(tmp_path: Path) -> None:
    """``'en/:rest*': ':rest*'`` serves ``docs/en/guide/routing.md`` at ``guide/routing``,
    whether DIR is ``docs`` or ``docs/en``; ``:name`` matches one segment."""
    config = (
        "export default { title: 'VP', "
        "rewrites: { 'en/:rest*': ':rest*', 'pkg/:p/README.md': ':p/index.md' } }"
    )
    write(tmp_path, "docs/.vitepress/config.mts", config)
    (tmp_path / "docs" / "en").mkdir(parents=True)
    whole, english = facts_of(tmp_path / "docs"), facts_of(tmp_path / "docs" / "en")
    assert whole.routes_of("en/guide/routing.md")[0] == "guide/routing"
    assert english.routes_of("guide/routing.md")[0] == "guide/routing"
    assert whole.routes_of("pkg/uno/README.md")[0] == "uno"
    assert whole.routes_of("otra/x.md")[0] == "otra/x"


def test_vitepress_rewrites_written_as_code_fall_back_and_say_so(tmp_path: Path) -> None:
    write(tmp_path, ".vitepress/config.ts", "export default { rewrites(id) { return id } }")
    facts = facts_of(tmp_path)
    assert facts.routes_of("a/b.md")[0] == "a/b"
    assert facts.notes
    assert "code" in facts.notes[0]


def test_a_locale_folder_and_starlight_serve_under_the_locale(tmp_path: Path) -> None:
    """``…/docs/es`` of a Starlight site: ``/es/guias/x``; its ``slug`` from the content root."""
    write(
        tmp_path,
        "astro.config.mjs",
        "export default defineConfig({ integrations: [starlight({ title: 'Astro ES' })] })",
    )
    docs = tmp_path / "src" / "content" / "docs" / "es"
    docs.mkdir(parents=True)
    facts = facts_of(docs)
    assert (facts.generator, facts.base, facts.site_name) == ("starlight", "es", "Astro ES")
    assert facts.routes_of("guias/x.mdx")[0] == "es/guias/x"
    assert facts.routes_of("guias/x.mdx", None, "es/otra/ruta")[0] == "es/otra/ruta"


def test_plain_trees_and_mkdocs_keep_the_path_route(tmp_path: Path) -> None:
    facts = facts_of(tmp_path, {"site_name": "Textual"})
    assert (facts.generator, facts.site_name) == ("", "Textual")
    assert facts.routes_of("api/app.md") == ["api/app"]


def test_a_link_written_against_the_sites_routes_resolves_to_its_page() -> None:
    """``/docs/guias/timeouts`` for ``guias/Timeouts.md`` with ``id: timeouts`` (an alias
    the routes gave) resolves, with its anchor; a file route still does."""
    resolver = Resolver(
        {"guias/Timeouts.md": "guias—timeouts"},
        locale="docs",
        aliases={"docs/guias/limites": "guias—timeouts"},
        base="docs",
    )
    assert resolver.target("/docs/guias/limites#x", "a.md") == "guias—timeouts#x"
    assert resolver.target("/docs/guias/Timeouts", "a.md") == "guias—timeouts"
    assert resolver.target("/docs/guias/nada", "a.md") is None
