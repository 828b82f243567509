"""Sections, reading order and Spanish sort of the site (pure functions)."""

from __future__ import annotations

from shared.site import nav
from shared.site.collate import sort_key
from shared.site.entries import Entry
from shared.site.nav import NavLink, NavPage, Section


def entry(slug: str, title: str, *, type: str = "guide", category: str | None = None) -> Entry:
    return Entry(slug, title, type, (), category, "2026-01-01", "es", "")


def entries(*items: Entry) -> dict[str, Entry]:
    return {e.slug: e for e in items}


def test_spanish_sort_ignores_accents_and_puts_enye_after_n() -> None:
    words = ["ñandú", "Índice", "nube", "zeta", "oso", "imagen", "Ávila", "azul", "nzz", "ir"]
    assert sorted(words, key=sort_key) == [
        "Ávila", "azul", "imagen", "Índice", "ir", "nube", "nzz", "ñandú", "oso", "zeta",
    ]  # fmt: skip


def test_spanish_sort_is_total_unaccented_and_lower_case_first() -> None:
    assert sorted(["índice", "Indice", "indice"], key=sort_key) == ["indice", "Indice", "índice"]


def test_sections_come_from_the_folders_of_slugs_with_the_index_page_first() -> None:
    site = nav.build(
        entries(
            entry("index", "Inicio"),
            entry("async", "Concurrencia"),
            entry("tutorial—index", "Tutorial - Guía"),
            entry("tutorial—body", "Cuerpo"),
            entry("tutorial—security—index", "Seguridad"),
            entry("tutorial—security—oauth2", "OAuth2"),
            entry("tutorial—path-params", "Parámetros de ruta"),
            entry("how-to—general", "General"),
        )
    )
    top = list(site.items)
    assert top[:2] == [NavPage("index", "Inicio"), NavPage("async", "Concurrencia")]
    assert [s.title for s in top[2:] if isinstance(s, Section)] == ["How to", "Tutorial - Guía"]
    tutorial = top[3]
    assert isinstance(tutorial, Section)
    assert tutorial.index == "tutorial—index"
    assert [getattr(i, "title", None) for i in tutorial.items] == [
        "Cuerpo",
        "Parámetros de ruta",
        "Seguridad",
    ]
    assert site.order == (
        "index",
        "async",
        "how-to—general",
        "tutorial—index",
        "tutorial—body",
        "tutorial—path-params",
        "tutorial—security—index",
        "tutorial—security—oauth2",
    )
    assert [c.title for c in site.trails["tutorial—security—oauth2"]] == [
        "Tutorial - Guía",
        "Seguridad",
    ]
    assert site.trails["tutorial—index"] == ()
    assert site.neighbours("tutorial—body") == ("tutorial—index", "tutorial—path-params")
    assert site.neighbours("index") == (None, "async")
    assert site.neighbours("tutorial—security—oauth2") == ("tutorial—security—index", None)


def test_derived_slugs_go_by_category_else_by_type_label() -> None:
    site = nav.build(
        entries(
            entry("concept—cache", "Caché", type="concept"),
            entry("concept—indice", "Índice", type="concept", category="Datos"),
            entry("guide—alta", "Alta", type="guide"),
        )
    )
    assert [(s.title, [p.slug for p in s.items]) for s in site.items if isinstance(s, Section)] == [
        ("Conceptos", ["concept—cache"]),
        ("Datos", ["concept—indice"]),
        ("Guías", ["guide—alta"]),
    ]


def test_a_slug_of_three_parts_is_folders_even_when_the_first_names_a_type() -> None:
    """``reference—errors—x`` came from reference/errors/x.md: a derived slug has two parts."""
    site = nav.build(
        entries(
            entry("reference—errors—x", "X", type="reference"),
            entry("reference—errors—index", "Errores", type="reference"),
            entry("reference—api", "API", type="reference"),
        )
    )
    (types,) = [s for s in site.items if isinstance(s, Section) and s.title == "Referencias"]
    assert [p.slug for p in types.items] == ["reference—api"]
    (folder,) = [s for s in site.items if isinstance(s, Section) and s.title == "Reference"]
    (errors,) = folder.items
    assert isinstance(errors, Section)
    assert (errors.title, errors.index) == ("Errores", "reference—errors—index")


def test_a_stored_nav_gives_order_and_sections_and_unlisted_pages_follow() -> None:
    stored = {
        "items": [
            {"slug": "index"},
            {"title": "Externo", "url": "https://example.org/"},
            {"title": "Tutorial", "items": [{"slug": "tutorial—b"}, {"slug": "tutorial—a"}]},
            {"slug": "draft-or-gone"},
            {"title": "Vacía", "items": [{"slug": "nada"}]},
            {"title": "", "items": [{"slug": "suelta", "title": "Suelta (nav)"}]},
            {"slug": "tutorial—a"},  # a page is placed once, where the nav first names it
        ]
    }
    site = nav.build(
        entries(
            entry("index", "Inicio"),
            entry("tutorial—a", "A"),
            entry("tutorial—b", "B"),
            entry("suelta", "Suelta"),
            entry("extra—x", "X"),
        ),
        stored,
    )
    assert site.items[:3] == (
        NavPage("index", "Inicio"),
        NavLink("Externo", "https://example.org/"),
        Section("Tutorial", None, [NavPage("tutorial—b", "B"), NavPage("tutorial—a", "A")]),
    )
    assert site.items[3] == NavPage("suelta", "Suelta (nav)")
    assert site.order == ("index", "tutorial—b", "tutorial—a", "suelta", "extra—x")
    assert site.to_json()[2] == {
        "t": "Tutorial",
        "c": [{"t": "B", "s": "tutorial—b"}, {"t": "A", "s": "tutorial—a"}],
    }


def test_chrome_hash_changes_only_for_pages_whose_neighbours_or_crumbs_change() -> None:
    base = [entry("t—index", "T"), entry("t—a", "A"), entry("t—c", "C"), entry("t—e", "E")]
    before = nav.build(entries(*base))
    after = nav.build(entries(*base, entry("t—d", "D")))
    titles = {e.slug: e.title for e in base} | {"t—d": "D"}
    changed = {
        slug
        for slug in ("t—index", "t—a", "t—c", "t—e")
        if nav.chrome_hash(before, slug, titles) != nav.chrome_hash(after, slug, titles)
    }
    assert changed == {"t—c", "t—e"}
    renamed = nav.build(entries(entry("t—index", "Otro"), *base[1:]))
    titles2 = titles | {"t—index": "Otro"}
    assert nav.chrome_hash(before, "t—e", titles) != nav.chrome_hash(renamed, "t—e", titles2)
