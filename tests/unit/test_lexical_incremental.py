"""Applying a write to the lexical index costs the write, and ranks as a fresh build (pure).

``with_pages`` retires a page's old slots and appends its new chunks, sharing every
posting the new chunks do not touch; a snapshot stores the postings as arrays. Both must
answer exactly as an index built afresh from the same chunks.
"""

from __future__ import annotations

import random

import pytest

from shared.records import IndexedChunk, SearchFilter
from shared.retrieval import snapshot
from shared.retrieval.lexical import LexicalIndex
from shared.retrieval.tokens import tokens

WORDS = [
    "parámetro",
    "consulta",
    "opcional",
    "cuerpo",
    "petición",
    "respuesta",
    "modelo",
    "validación",
    "dependencia",
    "seguridad",
    "token",
    "cabecera",
    "cookie",
    "middleware",
    "despliegue",
    "docker",
    "servidor",
    "base",
    "datos",
    "prueba",
    "cliente",
    "archivo",
    "formulario",
    "error",
    "excepción",
    "ruta",
    "enrutador",
    "asíncrono",
    "tarea",
]
QUESTIONS = (
    "parámetro de consulta opcional",
    "¿cómo valido el cuerpo de la petición?",
    "desplegar con docker",
    "DB_POOL_SIZE",
    "zorro ártico",
)
FILTERS = (SearchFilter(), SearchFilter(tag="t1"), SearchFilter(category="c2"))


def page_rows(slug: str, seed: int, extra: str = "") -> list[IndexedChunk]:
    rng = random.Random(seed)
    return [
        IndexedChunk(
            slug=slug,
            ordinal=n,
            title=f"Página {slug}",
            heading=rng.choice(WORDS),
            text=" ".join(rng.choices(WORDS, k=30)) + (f" {extra}" if extra else ""),
            page_type="guide",
            category=f"c{seed % 3}",
            tags=(f"t{seed % 4}",),
        )
        for n in range(3)
    ]


def wiki(pages: int) -> dict[str, list[IndexedChunk]]:
    out = {f"p{i:03d}": page_rows(f"p{i:03d}", i) for i in range(pages)}
    out["p007"] = page_rows("p007", 7, "DB_POOL_SIZE")
    return out


def flat(pages: dict[str, list[IndexedChunk]]) -> list[IndexedChunk]:
    return [r for slug in sorted(pages) for r in pages[slug]]


def assert_ranks_as_fresh(index: LexicalIndex, pages: dict[str, list[IndexedChunk]]) -> None:
    fresh = LexicalIndex(flat(pages))
    assert index.rows == fresh.rows
    assert len(index) == len(fresh)
    for question in QUESTIONS:
        for filters in FILTERS:
            got, want = index.search(question, filters, 10), fresh.search(question, filters, 10)
            assert [h.key for h in got] == [h.key for h in want], (question, filters)
            for a, b in zip(got, want, strict=True):
                assert a.bm25 == pytest.approx(b.bm25, rel=1e-5)
                assert a.coverage == pytest.approx(b.coverage, rel=1e-5)


def test_updates_creates_and_archivals_rank_as_a_fresh_build() -> None:
    pages = wiki(60)
    index = LexicalIndex(flat(pages))
    pages["p003"] = page_rows("p003", 103, "zorro ártico")  # update
    index = index.with_pages({"p003"}, pages["p003"])
    assert_ranks_as_fresh(index, pages)
    pages["nueva"] = page_rows("nueva", 200, "DB_POOL_SIZE")  # create
    index = index.with_pages({"nueva"}, pages["nueva"])
    assert_ranks_as_fresh(index, pages)
    del pages["p007"]  # archival: the page has no active chunk any more
    index = index.with_pages({"p007"}, [])
    assert_ranks_as_fresh(index, pages)


def test_a_write_shares_every_posting_it_does_not_touch() -> None:
    """What a write costs: postings of its own tokens beside the packed arrays, which
    every later index shares (no copy); the page's old slots are only masked out."""
    pages = wiki(40)
    index = LexicalIndex(flat(pages))
    written = page_rows("p001", 1, "zorro")
    after = index.with_pages({"p001"}, written)
    assert after._base.docs is index._base.docs
    assert after._base.tf is index._base.tf
    touched = {t for r in written for t in tokens(r.text) + tokens(f"{r.title} {r.heading}")}
    assert {after._term(t) for t in touched} == set(after._extra)
    assert list(after._new_terms) == tokens("zorro")  # the only word the wiki lacked
    assert len(after) == len(index)
    assert len(after._live) == len(index._live) + len(written)


def test_many_writes_compact_and_still_rank_as_fresh() -> None:
    """Past a quarter of dead slots the index is packed anew, from its own arrays."""
    pages = wiki(500)
    index = LexicalIndex(flat(pages))
    for round_ in range(700):
        slug = f"p{round_ % 500:03d}"
        pages[slug] = page_rows(slug, 1000 + round_)
        index = index.with_pages({slug}, pages[slug])
    assert len(index._live) < 1.5 * len(index)
    assert_ranks_as_fresh(index, pages)


def test_a_snapshot_loads_an_index_that_ranks_the_same() -> None:
    pages = wiki(60)
    index = LexicalIndex(flat(pages)).with_pages({"p002"}, [])
    del pages["p002"]
    loaded = snapshot.decode(snapshot.encode(index))
    assert loaded is not None
    assert_ranks_as_fresh(loaded, pages)
    pages["p005"] = page_rows("p005", 305, "zorro ártico")
    assert_ranks_as_fresh(loaded.with_pages({"p005"}, pages["p005"]), pages)


@pytest.mark.parametrize("payload", [b"", b"not a snapshot", b"PK\x03\x04broken"])
def test_an_unreadable_snapshot_is_none(payload: bytes) -> None:
    assert snapshot.decode(payload) is None


def test_a_snapshot_keeps_odd_values_exactly() -> None:
    """Absent type and category, no tags, and separators inside values (then JSON)."""
    rows = [
        IndexedChunk("a", 0, "Título", "", "texto uno", None, None, ()),
        IndexedChunk("b", 1, "T \x00", "h\x00", "con \x00 dentro", "guide", "c", ("x", "y\x1f")),
    ]
    for chosen in (rows[:1], rows):
        index = LexicalIndex(chosen)
        loaded = snapshot.decode(snapshot.encode(index))
        assert loaded is not None
        assert loaded.rows == index.rows
        assert [(r.slug, r.ordinal, r.page_type, r.tags) for r in loaded.rows] == [
            (r.slug, r.ordinal, r.page_type, r.tags) for r in chosen
        ]
