"""The Starlight corpus (astro-es: MDX in Spanish) imported and built: nothing raw, the tree's
structure, every construct counted. ``built_corpus`` imports it once per session."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from shared.services.importer import markdown_files, split_front_matter
from shared.site.nav import NavPage, Section
from shared.text.slugs import slug_from_path
from tests.fixtures.raw_syntax import raw_pages, site_pages, visible_text

# An MDX import or export line shown as prose (the shared scanner looks for markup).
ESM_LINE = re.compile(r"(?m)^[ \t]*(?:import|export)\s[^\n]*(?:\sfrom\s|=)")


def astro(built_corpus: Any) -> Any:
    return built_corpus("astro-es")


def test_every_file_is_imported(built_corpus: Any) -> None:
    corpus = astro(built_corpus)
    files = markdown_files(corpus.spec.docs_dir)
    assert len(files) == 283  # every .mdx of the Spanish docs (the corpus has no .md)
    report = corpus.import_report
    assert report.failed == []
    assert report.created == len(files)
    slugs = [slug_from_path(p.relative_to(corpus.spec.docs_dir).as_posix()) for p in files]
    assert all((corpus.site / slug / "index.html").is_file() for slug in slugs)


def test_no_built_page_shows_raw_syntax(built_corpus: Any) -> None:
    """The scanner over every built page (pages, listings, home) finds nothing, and no
    page shows an ESM line as prose."""
    corpus = astro(built_corpus)
    assert raw_pages(corpus.site) == {}
    esm = [p for p in site_pages(corpus.site) if ESM_LINE.search(visible_text(p.read_text()))]
    assert esm == []


def test_titles_come_from_the_front_matter(built_corpus: Any) -> None:
    corpus = astro(built_corpus)
    stored = {r.slug: r.front_matter["title"] for r in corpus.store.pages.list()}
    root = corpus.spec.docs_dir
    for path in markdown_files(root):
        front_matter, _ = split_front_matter(path.read_text(encoding="utf-8"))
        slug = slug_from_path(path.relative_to(root).as_posix())
        assert stored[slug] == " ".join(str(front_matter["title"]).split()), slug


def _section(items: Any, title: str) -> Section:
    (found,) = [i for i in items if isinstance(i, Section) and i.title == title]
    return found


def _pages(section: Section) -> list[str]:
    return [i.slug for i in section.items if isinstance(i, NavPage)]


def test_sections_nest_as_the_folders_with_index_pages_as_landing_pages(
    built_corpus: Any,
) -> None:
    corpus = astro(built_corpus)
    nav = _nav(corpus)
    reference = _section(nav.items, "Reference")
    errors = _section(reference.items, "Errors")
    assert len(_pages(errors)) == 142  # reference/errors, not one flat section of 93+
    assert all(slug.startswith("reference—errors—") for slug in _pages(errors))
    assert len(_pages(reference)) == 3
    # Each folder with an index page opens with it, wherever it sits in the tree.
    root = corpus.spec.docs_dir
    indexed = {
        PurePosixPath(p.relative_to(root).as_posix()).parent.as_posix()
        for p in markdown_files(root)
        if p.stem == "index"
    }
    landings = _landings(nav.items)
    assert {slug_from_path(f"{folder}/index.mdx") for folder in indexed} <= landings


def test_sidebar_order_and_labels_are_honoured(built_corpus: Any) -> None:
    corpus = astro(built_corpus)
    tutorial = _section(_nav(corpus).items, "Tutorial")
    units = [s for s in tutorial.items if isinstance(s, Section)]
    assert [s.index for s in units] == [f"tutorial—{n}—index" for n in (
        "0-introduction", "1-setup", "2-pages", "3-components", "4-layouts", "5-astro-api",
        "6-islands",
    )]  # fmt: skip
    assert units[0].title == "Tutorial: Crear un blog"  # the index page's sidebar label


def test_the_report_counts_mdx_constructs(built_corpus: Any) -> None:
    counts = astro(built_corpus).import_report.constructs.as_dict()
    assert counts["mdx-import"]["dropped"] > 200
    assert counts["mdx-component:Steps"]["mapped"] > 100
    assert counts["directive:note"]["mapped"] > 50
    assert counts["mdx-component:FileTree"]["mapped"] > 20
    assert all(sum(outcomes.values()) > 0 for outcomes in counts.values())


def _nav(corpus: Any) -> Any:
    from shared.services.site_build.sorting import sort_records
    from shared.site.entries import SiteView, entry_of

    published = sort_records(corpus.store.pages.list()).published
    entries = {slug: entry_of(page) for slug, page in published.items()}
    return SiteView(entries, {}, corpus.store.site.load_nav()).nav


def _landings(items: Any) -> set[str]:
    out: set[str] = set()
    for item in items:
        if isinstance(item, Section):
            if item.index:
                out.add(item.index)
            out |= _landings(item.items)
    return out


def test_a_second_import_of_the_tree_writes_nothing(built_corpus: Any) -> None:
    """The MDX pass is a function of the file: re-importing the same tree is unchanged."""
    from shared.services.importer import import_directory
    from tests.fixtures.embedder import HashingEmbedder

    corpus = astro(built_corpus)
    nav = corpus.store.site.load_nav()
    again = import_directory(
        corpus.spec.docs_dir,
        corpus.store,
        HashingEmbedder(),
        default_type="reference",
        assets=[corpus.spec.root / folder for folder in corpus.spec.assets],  # as first imported
    )
    assert (again.created, again.updated, again.unchanged) == (0, 0, 283)
    assert corpus.store.site.load_nav() == nav
