"""BM25 over chunks with filters, identifiers and honest coverage (pure)."""

from __future__ import annotations

import pytest

from shared.ports import IndexedChunk, SearchFilter
from shared.retrieval.lexical import LexicalIndex


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


def test_rebuild_from_previous_reuses_tokens_and_ranks_the_same() -> None:
    """A rebuild after a write reuses unchanged chunks' tokens; results are identical."""
    added = chunk("new", "El servicio KRAKEN_TIMEOUT corta llamadas lentas.")
    rebuilt = LexicalIndex([*INDEX.rows, added], previous=INDEX)
    fresh = LexicalIndex([*INDEX.rows, added])
    for question in ("DB_POOL_SIZE", "KRAKEN_TIMEOUT", "subir archivos"):
        assert rebuilt.search(question, ANY, 5) == fresh.search(question, ANY, 5)
    key = (INDEX.rows[0].text, INDEX.rows[0].title, INDEX.rows[0].heading)
    assert rebuilt.documents[key] is INDEX.documents[key]
