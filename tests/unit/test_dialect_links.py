"""The link resolver of an import: relative links and site-absolute links by route."""

from __future__ import annotations

import pytest

from shared.dialects.links import Resolver, route_of

SLUGS = {
    "index.mdx": "inicio",
    "getting-started.mdx": "getting-started",
    "guides/index.md": "guides",
    "guides/routing.mdx": "guides—routing",
    "guides/deploy/netlify.md": "guides—deploy—netlify",
    "reference/README.md": "reference",
    "reference/api.md": "reference—api",
}


@pytest.fixture
def resolver() -> Resolver:
    return Resolver(SLUGS, locale="es")


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("guides/routing.mdx", "guides/routing"),
        ("guides/index.md", "guides"),
        ("index.mdx", ""),
        ("reference/README.md", "reference"),
        ("a/b.markdown", "a/b"),
    ],
)
def test_a_files_route_is_its_path_without_extension_index_meaning_the_folder(
    path: str, route: str
) -> None:
    assert route_of(path) == route


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("/es/guides/routing/", "guides—routing"),
        ("/es/guides/routing", "guides—routing"),
        ("/guides/routing/", "guides—routing"),
        ("/es/guides/routing.html", "guides—routing"),
        ("/es/guides/routing/#rutas-dinámicas", "guides—routing#rutas-dinámicas"),
        ("/es/guides/routing/?tab=1#x", "guides—routing#x"),
        ("/es/guides/", "guides"),
        ("/es/guides/index.html", "guides"),
        ("/es/", "inicio"),
        ("/", "inicio"),
        ("/es/reference/", "reference"),
        ("/ES/Guides/Routing/", "guides—routing"),
        ("/es/guides/deploy/netlify/", "guides—deploy—netlify"),
        ("/es/guides/r%C3%BAting/", None),
        ("/fr/guides/routing/", None),  # another language's page is not in this tree
        ("/es/guides/nada/", None),
        ("/images/x.png", None),
    ],
)
def test_site_absolute_links_resolve_by_route_with_or_without_locale(
    resolver: Resolver, url: str, target: str | None
) -> None:
    assert resolver.target(url, "guides/deploy/netlify.md") == target


@pytest.mark.parametrize(
    ("url", "page", "target"),
    [
        ("routing.mdx", "guides/index.md", "guides—routing"),
        ("./routing.mdx#a", "guides/index.md", "guides—routing#a"),
        ("../getting-started.mdx", "guides/routing.mdx", "getting-started"),
        ("../reference/", "guides/routing.mdx", "reference"),  # a folder with an index
        ("../../reference/api.md", "guides/deploy/netlify.md", "reference—api"),
        ("../routing/", "guides/deploy.md", "guides—routing"),  # an address from the page's URL
        ("../../../x.md", "guides/routing.mdx", None),
        ("routing.png", "guides/index.md", None),
    ],
)
def test_relative_links_resolve_to_files_folders_and_addresses(
    resolver: Resolver, url: str, page: str, target: str | None
) -> None:
    assert resolver.target(url, page) == target


@pytest.mark.parametrize(
    "url",
    ["https://astro.build/es/guides/routing/", "//cdn.example/x", "mailto:a@b.c", "#local", ""],
)
def test_links_outside_the_tree_stay_as_they_are(resolver: Resolver, url: str) -> None:
    assert resolver.target(url, "index.mdx") is None
    line = f"see [there]({url}) now"
    assert resolver.rewrite(line, "index.mdx") == line


def test_rewrite_makes_wiki_links_and_leaves_code_spans_and_images(resolver: Resolver) -> None:
    line = "[Rutas](/es/guides/routing/#a) y `[x](/es/guides/)` e ![i](/es/guides/)"
    assert resolver.rewrite(line, "index.mdx") == (
        "[[guides—routing#a|Rutas]] y `[x](/es/guides/)` e ![i](/es/guides/)"
    )


def test_an_index_file_wins_its_folders_route_over_a_sibling() -> None:
    both = Resolver({"guides.md": "sibling", "guides/index.md": "landing"})
    assert both.target("/guides/", "x.md") == "landing"


def test_without_a_locale_a_first_segment_is_never_dropped() -> None:
    plain = Resolver(SLUGS)
    assert plain.target("/es/guides/routing/", "index.mdx") is None
