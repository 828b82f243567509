"""Slug rules of the contract: the regex, the length, reserved names, derivation, paths."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deploy.stage import function_names
from shared.text.slugs import (
    FUNCTION_NAMES,
    MAX_SLUG,
    derive_slug,
    is_valid_slug,
    slug_from_path,
    slug_problem,
    slugify,
    with_suffix,
)


@pytest.mark.parametrize(
    "slug",
    ["a", "0", "concept—biblioteca", "runbook—reindexar-tras-cambiar-de-embedder", "a_b", "a--b",
     "tutorial—first-steps", "x" * MAX_SLUG, "ask-2", "archive_old", "rebuilds"],
)  # fmt: skip
def test_valid_slugs(slug: str) -> None:
    """Lowercase ASCII letters, digits, '-', '_' and '—', starting and ending alphanumeric."""
    assert slug_problem(slug) is None


@pytest.mark.parametrize(
    "slug",
    ["", "A", "Concept—x", "-a", "a-", "_a", "a_", "—a", "a—", "a b", "ñandú", "café", "a/b", "a.b",
     "a\n", "a\x00b", "ａ"],
)  # fmt: skip
def test_invalid_slugs(slug: str) -> None:
    """Anything outside the contract's regex is not a slug."""
    assert slug_problem(slug) is not None


def test_a_slug_has_at_most_200_characters() -> None:
    """201 characters is one too many, and the reason says so."""
    problem = slug_problem("x" * (MAX_SLUG + 1))
    assert problem is not None
    assert "200" in problem


@pytest.mark.parametrize("name", sorted(FUNCTION_NAMES))
def test_function_names_are_reserved(name: str) -> None:
    """The names of the functions are not slugs (they are paths of `biblioteca serve`)."""
    problem = slug_problem(name)
    assert problem is not None
    assert "reserved" in problem


def test_the_reserved_names_are_exactly_the_functions() -> None:
    """Every function (a folder of functions/; the HTTP ones are paths of serve) is
    reserved, nothing else."""
    assert set(function_names()) == set(FUNCTION_NAMES)
    assert {
        "wiki_create",
        "wiki_update",
        "ask",
        "archive",
        "index_code",
        "rebuild",
        "enrich",
        "mcp",
        "feedback",
        "wiki_history",
        "wiki_duplicates",
    } == set(FUNCTION_NAMES)


# -- derivation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page_type", "title", "slug"),
    [
        ("concept", "Biblioteca", "concept—biblioteca"),
        ("runbook", "Reindexar tras un cambio", "runbook—reindexar-tras-un-cambio"),
        ("decision", "¿Por qué Firestore + SQLite?", "decision—por-que-firestore-sqlite"),
        ("guide", "Canción del Ñandú — Año 2024", "guide—cancion-del-nandu-ano-2024"),
        ("entity", "  API_TOKEN   y   más  ", "entity—api-token-y-mas"),
        ("concept", "!!!", "concept"),
    ],
)  # fmt: skip
def test_derived_slug_is_type_em_dash_folded_title(page_type: str, title: str, slug: str) -> None:
    """type—title: lower-cased, accents folded, every other run of characters is one '-'."""
    assert derive_slug(page_type, title) == slug


def test_derived_slug_is_cut_at_200_on_a_word_boundary() -> None:
    """A long title is cut at 200 characters, never inside a word."""
    title = " ".join(f"palabra{i}" for i in range(60))
    slug = derive_slug("reference", title)
    assert len(slug) <= MAX_SLUG
    assert is_valid_slug(slug)
    words = slug.removeprefix("reference—").split("-")
    assert words == [f"palabra{i}" for i in range(len(words))]
    assert len(slug) > MAX_SLUG - len("palabra59-")  # cut at the last boundary, not earlier


def test_a_single_huge_word_is_cut_hard_at_200() -> None:
    """With no boundary to cut on, the slug is cut at exactly 200 characters."""
    slug = derive_slug("concept", "x" * 500)
    assert len(slug) == MAX_SLUG
    assert is_valid_slug(slug)


@settings(deadline=None)
@given(st.sampled_from(["concept", "guide", "runbook"]), st.text(min_size=1, max_size=400))
def test_any_title_derives_a_valid_slug(page_type: str, title: str) -> None:
    """Whatever the title, the derived slug (and its suffixed forms) is valid."""
    slug = derive_slug(page_type, title)
    assert is_valid_slug(slug)
    assert slug.startswith(page_type)
    assert is_valid_slug(with_suffix(slug, 2))
    assert is_valid_slug(with_suffix(slug, 123))


def test_suffixes_count_from_2() -> None:
    """The alternatives of a taken slug are slug-2, slug-3…"""
    assert [with_suffix("concept—hola", n) for n in (2, 3, 10)] == [
        "concept—hola-2",
        "concept—hola-3",
        "concept—hola-10",
    ]


def test_a_suffix_keeps_a_long_slug_within_200() -> None:
    """A 200-character slug is shortened so that its suffix still fits."""
    long_slug = derive_slug("concept", " ".join(["palabra"] * 40))
    for n in (2, 99, 1000):
        suffixed = with_suffix(long_slug, n)
        assert len(suffixed) <= MAX_SLUG
        assert suffixed.endswith(f"-{n}")
        assert is_valid_slug(suffixed)


# -- import paths ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("index.md", "index"),
        ("tutorial/first-steps.md", "tutorial—first-steps"),
        ("Advanced/Security/OAuth2-Scopes.md", "advanced—security—oauth2-scopes"),
        ("how-to/custom_docs_ui_assets.md", "how-to—custom_docs_ui_assets"),
        ("notas/Canción del año.markdown", "notas—cancion-del-ano"),
        ("a/b.c.md", "a—b-c"),
        ("docs\\windows\\path.md", "docs—windows—path"),
        ("README", "readme"),
    ],
)
def test_slug_from_an_imported_path(path: str, slug: str) -> None:
    """Lower-cased, folders joined with '—', extension dropped, other characters folded."""
    assert slug_from_path(path) == slug
    assert is_valid_slug(slug)


def test_slug_from_a_deep_path_stays_within_200() -> None:
    """A path deeper than 200 characters gives a valid slug of at most 200."""
    path = "/".join(["carpeta-muy-larga"] * 20) + "/pagina.md"
    slug = slug_from_path(path)
    assert len(slug) <= MAX_SLUG
    assert is_valid_slug(slug)


def test_letters_without_a_decomposition_fold_to_ascii() -> None:
    """ß, æ, ø, ł… have no accent to strip; they fold to their usual ASCII spelling."""
    assert derive_slug("entity", "Straße Æon Søren Łódź") == "entity—strasse-aeon-soren-lodz"


def test_an_archived_drafts_slug_is_at_most_60_characters_cut_on_a_word() -> None:
    """A long question's draft slugs (question's and variant) keep whole words and their
    hashes within 60 characters."""
    from shared.services.archive import MAX_DRAFT_SLUG, draft_slugs

    question = (
        "¿Cómo configuro la rotación automática de certificados TLS del balanceador de "
        "carga en producción sin cortar las conexiones abiertas?"
    )
    primary, variant = draft_slugs(question, "Con el runbook de rotación. [1]")
    assert MAX_DRAFT_SLUG == 60
    for slug in (primary, variant):
        assert len(slug) <= 60, slug
        assert slug.startswith("concept—como-configuro-la-rotacion")
    words = primary.rsplit("-", 1)[0].removeprefix("concept—").split("-")
    assert all(w in slugify(question).split("-") for w in words)  # no word cut midway
