"""BM25 over chunks with filters, identifiers and honest coverage (pure)."""

from __future__ import annotations

import pytest

from shared.records import IndexedChunk, SearchFilter
from shared.retrieval.lexical import LexicalIndex, text_digest


def chunk(slug: str, text: str, **fields: object) -> IndexedChunk:
    return IndexedChunk(
        slug=slug,
        ordinal=0,
        title=str(fields.get("title", slug)),
        heading=str(fields.get("heading", "")),
        text=text,
        page_type=fields.get("page_type", "guide"),  # type: ignore[arg-type]
        category=fields.get("category"),  # type: ignore[arg-type]
        tags=tuple(fields.get("tags", ())),  # type: ignore[arg-type]
    )


INDEX = LexicalIndex(
    [
        chunk("pool", "La variable DB_POOL_SIZE fija el tamaño del pool.", category="datos"),
        chunk("cache", "El comando cache:invalidate vacía la caché.", page_type="decision"),
        chunk("files", "Para subir archivos usa UploadFile.", tags=("http",)),
        chunk("pool-size", "El tamaño de la ropa depende de la talla."),
    ]
)
ANY = SearchFilter()


def test_exact_identifier_ranks_its_chunk_first() -> None:
    """DB_POOL_SIZE beats a chunk sharing only the word 'size'."""
    hits = INDEX.search("¿qué hace DB_POOL_SIZE?", ANY, 5)
    assert hits[0].key == ("pool", 0)


def test_colon_identifier_matches_exactly() -> None:
    """cache:invalidate finds its chunk."""
    assert INDEX.search("cache:invalidate", ANY, 5)[0].key == ("cache", 0)


def test_english_question_matches_spanish_text() -> None:
    """'upload files' reaches 'subir archivos' through the glossary."""
    assert INDEX.search("how to upload files", ANY, 5)[0].key == ("files", 0)


def test_spanish_question_matches_english_jargon_in_spanish_text() -> None:
    """Spanish docs keep "request body" in English: 'cuerpo de la petición' reaches it."""
    index = LexicalIndex(
        [
            chunk("body", "Para declarar un request body usas modelos de Pydantic."),
            chunk("query", "Los parámetros de query son opcionales."),
        ]
    )
    assert index.search("¿Cómo leo el cuerpo de la petición?", ANY, 5)[0].key == ("body", 0)


def test_a_word_scores_once_whichever_of_its_forms_a_chunk_uses() -> None:
    """A chunk saying both 'cuerpo' and 'body' is not worth twice one saying 'cuerpo'."""
    index = LexicalIndex(
        [
            chunk("both", "cuerpo body xx", title=""),
            chunk("english", "body yy zz", title=""),
            chunk("spanish", "cuerpo ww vv", title=""),
        ]
    )
    scores = {h.key[0]: h.bm25 for h in index.search("cuerpo", ANY, 5)}
    assert scores["both"] == pytest.approx(scores["spanish"])
    assert scores["both"] == pytest.approx(scores["english"])


def test_camel_case_identifiers_match_their_words() -> None:
    """'redirect' finds `RedirectResponse`, and the identifier itself still matches whole."""
    index = LexicalIndex(
        [
            chunk("redirect", "Devuelve una `RedirectResponse` con la URL."),
            chunk("other", "Devuelve un `JSONResponse` con los datos."),
        ]
    )
    assert index.search("how do I redirect the client?", ANY, 5)[0].key == ("redirect", 0)
    assert index.search("RedirectResponse", ANY, 5)[0].key == ("redirect", 0)
    assert index.search("redirectresponse", ANY, 5)[0].key == ("redirect", 0)


def test_accents_do_not_matter() -> None:
    """'cache' in the question matches 'caché' in the text."""
    assert ("cache", 0) in [h.key for h in INDEX.search("vaciar la cache", ANY, 5)]


def test_filters_restrict_and_unknown_values_match_nothing() -> None:
    """type, category and tag filters; an unknown value gives no hit."""
    assert [
        h.key[0]
        for h in INDEX.search(
            "cache:invalidate DB_POOL_SIZE", SearchFilter(page_type="decision"), 5
        )
    ] == ["cache"]
    assert [
        h.key[0]
        for h in INDEX.search("DB_POOL_SIZE cache:invalidate", SearchFilter(category="datos"), 5)
    ] == ["pool"]
    assert [h.key[0] for h in INDEX.search("subir archivos", SearchFilter(tag="http"), 5)] == [
        "files"
    ]
    assert INDEX.search("subir archivos", SearchFilter(tag="nope"), 5) == []


def test_coverage_counts_words_the_wiki_never_uses() -> None:
    """A question whose other words appear nowhere covers little, however rare its one match."""
    full = INDEX.search("subir archivos", ANY, 1)[0].coverage
    partial = INDEX.search("subir receta paella valenciana tradicional", ANY, 1)[0].coverage
    assert 0 < partial < full <= 1.0
    assert partial < 0.4


def test_empty_index_and_empty_question() -> None:
    """Nothing to search or nothing asked: no hits."""
    assert LexicalIndex([]).search("hola", ANY, 5) == []
    assert INDEX.search("¿qué?", ANY, 5) == []


def test_the_index_keeps_no_text_but_its_size_and_digest() -> None:
    """What a passage needs besides its text is in memory; the text itself is not."""
    row = chunk("pool", "La variable DB_POOL_SIZE fija el tamaño del pool.", category="datos")
    info = INDEX.info(("pool", 0))
    assert info is not None
    assert (info.title, info.category, info.chars) == ("pool", "datos", len(row.text))
    assert info.digest == text_digest(row.text)
    assert not hasattr(info, "text")
    assert INDEX.info(("pool", 1)) is None
    assert INDEX.info(("nada", 0)) is None
    assert INDEX.labels[("cache", 0)].page_type == "decision"
    assert ("nada", 0) not in INDEX.labels


def test_following_names_the_chunks_a_passage_may_run_on_into() -> None:
    """The next chunks under the same heading, while their size could still fit."""
    rows = [
        IndexedChunk("p", n, "P", heading, "x" * size, "guide", None, ())
        for n, (heading, size) in enumerate(
            [("A", 300), ("A", 300), ("A", 500), ("A", 500), ("A", 100), ("B", 100)]
        )
    ]
    index = LexicalIndex(rows)
    assert index.following(("p", 0), 1200) == [("p", 1), ("p", 2), ("p", 3)]
    assert index.following(("p", 3), 1200) == [("p", 4)]  # the next heading ends it
    assert index.following(("p", 0), 1200, limit=1) == [("p", 1)]
    assert index.following(("p", 5), 1200) == []
    assert index.with_pages({"p"}, []).following(("p", 0), 1200) == []
