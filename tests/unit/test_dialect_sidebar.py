"""The nav a tree states through folders and front matter (shared.dialects.sidebar)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shared.dialects.sidebar import (
    Category,
    Hint,
    Placed,
    category_of,
    hint_of,
    merged,
    states_structure,
    tree_nav,
)
from shared.site import nav as navigation
from shared.site.entries import Entry


def placed(
    path: str, title: str = "", label: str | None = None, order: float | None = None
) -> Placed:
    slug = path.rsplit(".", 1)[0].replace("/", "—")
    return Placed(path, slug, title or slug, Hint(label, order))


def test_docusaurus_and_starlight_spell_the_same_hint() -> None:
    assert hint_of({"sidebar_position": 2, "sidebar_label": "Dos"}) == Hint("Dos", 2.0)
    assert hint_of({"sidebar": {"order": "3", "label": "Tres"}}) == Hint("Tres", 3.0)
    assert hint_of({"sidebar": "no", "sidebar_position": True}) == Hint(None, None)
    assert hint_of({}) == Hint()


def test_folders_nest_and_an_index_page_opens_its_section() -> None:
    nav = tree_nav(
        [
            placed("reference/errors/a.mdx"),
            placed("reference/errors/index.mdx", "Errores"),
            placed("reference/api.mdx"),
            placed("intro.mdx"),
        ],
        {},
    )
    assert nav == {
        "items": [
            {"slug": "intro"},
            {
                "title": "Reference",
                "items": [
                    {"slug": "reference—api"},
                    {
                        "title": "Errores",
                        "items": [
                            {"slug": "reference—errors—index"},
                            {"slug": "reference—errors—a"},
                        ],
                    },
                ],
            },
        ]
    }


def test_order_comes_first_then_file_names_with_numbers_as_numbers() -> None:
    """Pages and folders with an order come first by it; the rest by natural file name."""
    nav = tree_nav(
        [
            placed("zeta.md", order=1),
            placed("10-final.md"),
            placed("2-medio.md"),
            placed("alfa.md"),
            placed("carpeta/index.md", order=0),
        ],
        {},
    )
    assert [i.get("slug") or i["title"] for i in nav["items"]] == [
        "carpeta—index",
        "zeta",
        "2-medio",
        "10-final",
        "alfa",
    ]


def test_labels_title_the_nav_and_a_category_file_names_and_places_its_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "guias").mkdir()
    (tmp_path / "guias" / "_category_.json").write_text('{"label": "Guías", "position": 1}')
    (tmp_path / "otra").mkdir()
    (tmp_path / "otra" / "_category_.yml").write_text("label: Otra\n")
    categories = {
        name: c for name in ("guias", "otra") if (c := category_of(tmp_path / name)) is not None
    }
    assert categories == {"guias": Category("Guías", 1.0), "otra": Category("Otra", None)}
    nav = tree_nav(
        [placed("a.md", label="Inicio", order=5), placed("guias/x.md"), placed("otra/y.md")],
        categories,
    )
    assert nav["items"][0]["title"] == "Guías"
    assert nav["items"][1] == {"slug": "a", "title": "Inicio"}
    assert nav["items"][2]["title"] == "Otra"


def test_a_flat_tree_without_hints_states_nothing() -> None:
    assert not states_structure([placed("a.md"), placed("b.md")], {})
    assert states_structure([placed("a.md", order=1)], {})
    assert states_structure([placed("x/a.md")], {})


def test_another_trees_entries_survive_and_this_trees_are_replaced() -> None:
    stored: dict[str, Any] = {
        "items": [
            {"slug": "otro—a"},
            {"title": "S", "items": [{"slug": "mio—viejo"}, {"slug": "otro—b"}]},
            {"title": "Vacía", "items": [{"slug": "mio—x"}]},
        ]
    }
    new = {"items": [{"slug": "mio—x"}]}
    assert merged(stored, new, {"mio—x", "mio—viejo"}) == {
        "items": [
            {"slug": "mio—x"},
            {"slug": "otro—a"},
            {"title": "S", "items": [{"slug": "otro—b"}]},
        ]
    }


def test_the_site_places_a_tree_nav_as_sections_with_landing_pages() -> None:
    """What the import saves is what nav.build reads: nested sections, index as landing."""
    files = [placed("ref/index.md", "Referencia"), placed("ref/x/a.md"), placed("ref/b.md")]
    entries = {
        f.slug: Entry(f.slug, f.title, "reference", (), None, "2026-01-01", "es", "") for f in files
    }
    nav = navigation.build(entries, tree_nav(files, {}))
    (section,) = nav.items
    assert isinstance(section, navigation.Section)
    assert (section.title, section.index) == ("Referencia", "ref—index")
    assert [getattr(i, "title", None) for i in section.items] == ["ref—b", "X"]
    assert nav.order == ("ref—index", "ref—b", "ref—x—a")
