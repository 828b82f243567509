"""One fold for every place that compares words: ask's index, the site's search, slugs."""

from __future__ import annotations

import unicodedata

import pytest

from shared.retrieval.tokens import stem, tokens
from shared.site.search import words
from shared.text.fold import fold, unaccent
from shared.text.slugs import slugify


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Canción Ñandú", "cancion nandu"),
        ("Straße", "strasse"),
        ("STRAẞE", "strasse"),
        ("Ærøskøbing", "aeroskobing"),
        ("Łódź", "lodz"),
        ("ﬁle x²", "file x2"),
    ],
)
def test_fold_lowers_strips_accents_and_spells_out_whole_letters(text: str, folded: str) -> None:
    """NFKD's accents go, and the letters it keeps whole (ß, æ, ø, ł) become ASCII."""
    assert fold(text) == folded


def test_unaccent_keeps_the_case_camel_case_splitting_needs() -> None:
    assert unaccent("RedirectResponse Straße Æ") == "RedirectResponse Strasse AE"


def test_ask_site_search_and_slugs_fold_strasse_alike() -> None:
    """``Straße`` is ``strasse`` for ask's lexical index, the site's search and slugs
    (ask's index used to cut it at the ``ß`` into ``stra``)."""
    assert tokens("Straße") == tokens("strasse") == [stem("strasse")]
    assert words("Straße") == words("STRASSE") == ("strasse",)
    assert slugify("Straße") == "strasse"


def test_every_combining_mark_unicode_knows_is_stripped() -> None:
    """Each mark, after a letter, between ASCII and not, leaves nothing of itself."""
    marks = [chr(c) for c in range(0x110000) if unicodedata.combining(chr(c))]
    assert unaccent("".join(f"a{m}ñ" for m in marks)) == "an" * len(marks)
