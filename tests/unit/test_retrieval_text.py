"""Tokens, invisible-Unicode stripping and language guessing (pure)."""

from __future__ import annotations

import pytest

from shared.retrieval.text import language, query_groups, query_tokens, strip_invisible, tokens


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


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("¿Cómo subo archivos?", "es"),
        ("como subo archivos", "es"),
        ("How do I upload files?", "en"),
        ("What is the default limit?", "en"),
        ("DB_POOL_SIZE", "es"),
    ],
)
def test_language_guess(question: str, lang: str) -> None:
    """Function words decide; Spanish wins when nothing tells."""
    assert language(question) == lang
