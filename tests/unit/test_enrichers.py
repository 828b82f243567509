"""The offline enrichers with plain values: each adds only what is missing and invents
nothing (``shared.enrich.enrichers``)."""

from __future__ import annotations

from typing import Any

from shared.enrich import enrichers as en


def _page(content: str, slug: str = "guide—pool", **front: Any) -> en.PageView:
    return en.PageView(slug, {"title": "Pool de conexiones", "type": "guide", **front}, content)


def test_named_paths_reads_prose_paths_and_dotted_symbols_but_not_fenced_examples() -> None:
    """A path in prose and a ``pkg.mod.Name`` symbol are named; a path inside a fence is
    the reader's example, not a source."""
    content = (
        "El pool vive en `shared/store/pool.py` y se usa con `shared.normalize.clean`.\n\n"
        "```python\n# tu_app/main.py\nimport x\n```\n"
    )
    assert en.named_paths(content) == [
        "shared/store/pool.py",
        "shared/normalize.py",
        "shared/normalize/clean.py",
    ]


def test_sources_suggests_indexed_paths_the_page_lacks_with_last_seen() -> None:
    """Only paths the code index holds, not already a code source, each seen today; a
    symbol's longer resolved guess wins over its module."""
    page = _page("x", sources=[{"type": "code", "ref": "shared/store/pool.py"}])
    candidates = ["shared/store/pool.py", "shared/normalize.py", "nowhere/gone.py"]
    found = {"shared/store/pool.py", "shared/normalize.py"}

    suggestion = en.suggest_sources(page, candidates, found, "2026-12-07")

    assert suggestion is not None
    assert suggestion.added == ("shared/normalize.py",)
    assert suggestion.metadata["sources"][-1] == {
        "type": "code",
        "ref": "shared/normalize.py",
        "last_seen": "2026-12-07",
    }
    assert en.suggest_sources(page, ["shared/store/pool.py"], found, "2026-12-07") is None


def test_related_are_each_others_nearest_page_in_another_folder() -> None:
    """Two pages that are each other's nearest by meaning, in different folders, are
    related; a mutual near neighbour backed by shared sources or links but not each
    other's nearest, a sibling of the same folder, a far one, a page already related, and
    the page itself are not."""
    page = _page("x", slug="tutorial—cookies", related=["advanced—old"])
    neighbours = [
        en.Neighbour("advanced—cookies", 0.8, closest=True, mutual=True),
        en.Neighbour("advanced—sourced", 0.9, shared_sources=2, shared_links=3, mutual=True),
        en.Neighbour("tutorial—cookie-models", 0.9, closest=True, mutual=True),
        en.Neighbour("advanced—far", 0.4, closest=True, mutual=True),
        en.Neighbour("advanced—old", 0.95, closest=True, mutual=True),
        en.Neighbour("tutorial—cookies", 0.99, closest=True, mutual=True),
    ]
    suggestion = en.suggest_related(page, neighbours)
    assert suggestion is not None
    assert suggestion.added == ("advanced—cookies",)
    assert suggestion.metadata["related"] == ["advanced—old", "advanced—cookies"]
    assert en.folder_of("a—b—c") == "a—b"
    assert en.folder_of("index") == ""


def test_steps_of_a_numbered_series_and_two_landing_pages_are_never_related() -> None:
    """A step of a numbered series (``tutorial—1-setup—3``, ``01-intro``) is related to
    no page by meaning, nor any page to it: the series' order links it; two landing pages
    are not related to each other, a landing page and another page may be."""
    near = {"closest": True, "mutual": True}
    step = _page("x", slug="tutorial—1-setup—3")
    assert en.suggest_related(step, [en.Neighbour("tutorial—2-pages—1", 0.8, **near)]) is None
    assert en.suggest_related(step, [en.Neighbour("guides—install", 0.8, **near)]) is None
    guide = _page("x", slug="guides—install")
    for other in ("tutorial—1-setup—2", "docs—01-intro", "learn—2"):
        assert en.suggest_related(guide, [en.Neighbour(other, 0.8, **near)]) is None
    assert en.is_step("docs—01-intro")
    assert not en.is_step("guides—http2-server")

    hub = _page("x", slug="styles—index")
    assert en.suggest_related(hub, [en.Neighbour("widgets—index", 0.9, **near)]) is None
    one_hub = en.suggest_related(hub, [en.Neighbour("guides—styling", 0.9, **near)])
    assert one_hub is not None
    assert one_hub.added == ("guides—styling",)


def test_description_is_the_first_standalone_sentence_as_plain_text() -> None:
    """Marks removed, a question skipped; none when the page already has a description."""
    content = (
        "# Pool\n\n¿Qué es un pool?\n\nEl **pool** reutiliza conexiones con `asyncpg` abiertas.\n"
    )
    suggestion = en.suggest_description(_page(content))
    assert suggestion is not None
    assert suggestion.metadata == {
        "description": "El pool reutiliza conexiones con asyncpg abiertas."
    }
    assert en.suggest_description(_page(content, description="Ya tiene una.")) is None


def test_description_comes_from_the_introduction_only() -> None:
    """A page whose introduction has no sentence that stands alone gets no description
    from a later section: that sentence says what the section is about."""
    content = "# Pool\n\n```py\npool()\n```\n\n## Uso\n\nEsta sección explica el uso del pool.\n"
    assert en.suggest_description(_page(content)) is None
    intro = "# Pool\n\nEl pool reutiliza conexiones abiertas.\n\n## Uso\n\nOtra frase del uso.\n"
    suggestion = en.suggest_description(_page(intro))
    assert suggestion is not None
    assert suggestion.added == ("El pool reutiliza conexiones abiertas.",)


def test_description_never_cuts_a_sentence_longer_than_300_characters() -> None:
    """A first sentence over the limit is no description: the next one that fits is."""
    long = "Una frase " + "muy " * 100 + "larga."
    suggestion = en.suggest_description(_page(f"{long} Otra frase corta y completa aquí."))
    assert suggestion is not None
    assert suggestion.metadata["description"] == "Otra frase corta y completa aquí."


def test_tags_are_those_both_nearest_siblings_of_the_page_folder_carry() -> None:
    """A tag both nearest pages carry, when both sit in the page's folder, is suggested;
    one only one of them carries is not, even when the title names it; nor anything when
    a nearest page sits in another folder, even a related one whose tag the title names."""
    page = _page("# Conexiones\n\ntexto", tags=["db"])
    siblings = [
        en.Neighbour("guide—a", 0.9, tags=("db", "pool", "conexiones"), closest=True),
        en.Neighbour("guide—b", 0.8, tags=("pool", "db")),
    ]
    suggestion = en.suggest_tags(page, siblings)
    assert suggestion is not None
    assert suggestion.added == ("pool",)
    assert suggestion.metadata["tags"] == ["db", "pool"]

    elsewhere = [
        en.Neighbour("howto—a", 0.9, tags=("pool", "conexiones"), closest=True),
        en.Neighbour("guide—b", 0.8, tags=("pool",)),
    ]
    assert en.suggest_tags(page, elsewhere) is None
    assert en.suggest_tags(page, siblings[:1]) is None  # one neighbour is no agreement


def test_links_point_a_broken_link_at_the_one_close_page_keeping_anchor_and_text() -> None:
    """``[[guide—conection-pool#uso]]`` becomes ``[[guide—connection-pool#uso|…]]``; a
    link with two equally close targets is left alone."""
    pages = {"guide—connection-pool": "Connection pool", "guide—other": "Other"}
    assert en.likely_target("guide—conection-pool", pages) == "guide—connection-pool"
    assert en.likely_target("guide—a", {"guide—b": "B", "guide—c": "C"}) is None
    # A target that reads almost as well as two pages names neither (not only a tie).
    alike = {"guide—connection-pool": "Pool", "guide—connection-tools": "Tools"}
    assert en.likely_target("guide—connection-pools", alike) is None
    assert en.likely_target("guide—connection-pools", {"guide—connection-pool": "Pool"}) == (
        "guide—connection-pool"
    )

    page = _page("Ver [[guide—conection-pool#uso]] y [[guide—other|otra]].")
    suggestion = en.suggest_links(page, {"guide—conection-pool": "guide—connection-pool"})
    assert suggestion is not None
    assert suggestion.content == (
        "Ver [[guide—connection-pool#uso|guide—conection-pool#uso]] y [[guide—other|otra]]."
    )


def test_a_suggestion_digest_does_not_depend_on_order() -> None:
    """The same things added in another order are the same suggestion (never proposed twice)."""
    a = en.Suggestion("related", {}, ("x", "y"))
    b = en.Suggestion("related", {}, ("y", "x"))
    assert a.digest() == b.digest()
