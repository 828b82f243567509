"""Tokens and invisible-Unicode stripping (pure)."""

from __future__ import annotations

import pytest

from shared.retrieval.tokens import (
    query_groups,
    query_tokens,
    stem,
    strip_invisible,
    tokens,
)


@pytest.mark.parametrize(
    "hidden",
    ["\U000e0049\U000e0047\U000e004e", "\u200b", "\u200d", "\ufe0f", "\u202e", "\u2066", "\ufeff"],
    ids=["tag-block", "zwsp", "zwj", "variation-selector", "rlo", "lri", "bom"],
)
def test_strip_invisible_removes_smuggling_characters(hidden: str) -> None:
    """Tag characters, zero-width, variation selectors and bidi controls are dropped."""
    assert strip_invisible(f"ho{hidden}la") == "hola"


def test_strip_invisible_keeps_visible_text_and_accents() -> None:
    """Spanish letters, emoji bases and punctuation survive."""
    assert strip_invisible("¿Cómo está Ñandú? ✓") == "¿Cómo está Ñandú? ✓"


def test_tokens_fold_accents_and_stem_spanish() -> None:
    """'Parámetros' and 'parametro' share a stem; stopwords are gone."""
    assert tokens("Los Parámetros")[-1] == tokens("parametro")[0]
    assert "los" not in tokens("Los Parámetros")


@pytest.mark.parametrize(
    ("text", "identifier"),
    [
        ("usa `DB_POOL_SIZE=20`", "db_pool_size"),
        ("ejecuta cache:invalidate tras el despliegue", "cache:invalidate"),
        ("ver docs_src/app/main.py.", "docs_src/app/main.py"),
        ("arranca con --forwarded-allow-ips", "forwarded-allow-ips"),
    ],
)
def test_identifiers_are_kept_whole_beside_their_parts(text: str, identifier: str) -> None:
    """Compound identifiers are one exact token, and their parts are tokens too."""
    found = tokens(text)
    assert identifier in found
    assert identifier in query_tokens(identifier.upper() if "_" in identifier else identifier)


def test_english_words_bring_their_spanish_translations() -> None:
    """'upload files' also asks for the stems of 'subir' and 'archivos', grouped per word."""
    groups = query_groups("upload files")
    assert tokens("subir")[0] in groups[0]
    assert tokens("archivos")[0] in groups[1]
    assert len(groups) == 2


def test_spanish_words_bring_the_english_forms_spanish_docs_keep() -> None:
    """'cuerpo' also asks for 'body' and 'petición' for 'request', in the same group."""
    groups = query_groups("cuerpo de la petición")
    assert groups == [(tokens("cuerpo")[0], "body"), (tokens("peticion")[0], "request")]


@pytest.mark.parametrize(
    ("text", "whole", "words"),
    [
        ("RedirectResponse", "redirectresponse", ["redirect", "response"]),
        ("OAuth2PasswordBearer", "oauth2passwordbearer", ["oauth2", "password", "bearer"]),
        ("HTTPException", None, ["httpexception"]),
        ("jsonable_encoder", "jsonable_encoder", ["jsonable", "encoder"]),
    ],
)
def test_camel_case_identifiers_are_kept_whole_and_split_into_words(
    text: str, whole: str | None, words: list[str]
) -> None:
    """A lower-to-upper boundary splits a word; a run of capitals stays one word. A camelCase
    identifier is also one stemmed word, which is how a lower-case query types it."""
    kept = [] if whole is None else [stem(whole) if whole.isalnum() else whole]
    assert tokens(text) == kept + [stem(w) for w in words]
