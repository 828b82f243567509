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


def test_related_needs_mutual_nearness_backed_by_what_the_authors_wrote() -> None:
    """Mutual nearest neighbours with a shared source, a shared link target or a link are
    related; mutual nearness alone, or evidence without it, is not; a page already
    related, and the page itself, are never suggested."""
    page = _page("x", related=["guide—old"])
    neighbours = [
        en.Neighbour("guide—sourced", 0.7, shared_sources=1, mutual=True),
        en.Neighbour("guide—cited", 0.7, shared_links=2, mutual=True),
        en.Neighbour("guide—linked", 0.6, linked=True, mutual=True),
        en.Neighbour("guide—twin", 0.95, mutual=True),
        en.Neighbour("guide—one-way", 0.9, shared_sources=3),
        en.Neighbour("guide—far", 0.4, linked=True, mutual=True),
        en.Neighbour("guide—old", 0.95, linked=True, mutual=True),
        en.Neighbour("guide—pool", 0.99, linked=True, mutual=True),
    ]
    suggestion = en.suggest_related(page, neighbours)
    assert suggestion is not None
    assert set(suggestion.added) == {"guide—sourced", "guide—cited", "guide—linked"}
    assert suggestion.metadata["related"][0] == "guide—old"


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


def test_description_never_cuts_a_sentence_longer_than_300_characters() -> None:
    """A first sentence over the limit is no description: the next one that fits is."""
    long = "Una frase " + "muy " * 100 + "larga."
    suggestion = en.suggest_description(_page(f"{long} Otra frase corta y completa aquí."))
    assert suggestion is not None
    assert suggestion.metadata["description"] == "Otra frase corta y completa aquí."


def test_tags_come_from_related_neighbours_and_must_be_named_by_the_page() -> None:
    """A neighbour's tag the title names is suggested; one the page never names, or one of
    an unrelated neighbour, is not: nothing is invented."""
    page = _page("# Conexiones\n\ntexto", tags=["db"])
    neighbours = [
        en.Neighbour("guide—a", 0.9, tags=("db", "pool", "kubernetes"), mutual=True, linked=True),
        en.Neighbour("guide—b", 0.2, tags=("conexiones",)),
    ]
    suggestion = en.suggest_tags(page, neighbours)
    assert suggestion is not None
    assert suggestion.added == ("pool",)


def test_links_point_a_broken_link_at_the_one_close_page_keeping_anchor_and_text() -> None:
    """``[[guide—conection-pool#uso]]`` becomes ``[[guide—connection-pool#uso|…]]``; a
    link with two equally close targets is left alone."""
    pages = {"guide—connection-pool": "Connection pool", "guide—other": "Other"}
    assert en.likely_target("guide—conection-pool", pages) == "guide—connection-pool"
    assert en.likely_target("guide—a", {"guide—b": "B", "guide—c": "C"}) is None

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
