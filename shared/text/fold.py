"""The one accent fold: how two spellings of a word are found to be the same word.

Lower case, accents stripped, and the letters NFKD does not decompose written as ASCII
(``Straße`` -> ``strasse``, ``Æsir`` -> ``aesir``). The lexical index of ``ask``, the
site's search (and its copy in ``static/site.js``), slugs and heading anchors all fold
with it, so a word typed one way finds the page written the other.
"""

from __future__ import annotations

import re
import unicodedata

# Letters that NFKD does not decompose into a base letter plus an accent, in both cases
# (``unaccent`` keeps case: camelCase splitting needs it).
_UNDECOMPOSABLE = str.maketrans(
    {
        "ß": "ss",
        "ẞ": "SS",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "þ": "th",
        "Þ": "TH",
        "ı": "i",
    }
)


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def unaccent(text: str) -> str:
    """``text`` without accents, case kept: 'Canción Straße' -> 'Cancion Strasse'."""
    if text.isascii():  # most lines of most pages, and nothing to strip
        return text
    # Only runs of non-ASCII characters change: each is read in Python, the ASCII between
    # them copied in C (reading every character was most of a duplicates run's reading
    # of default values). NFKD is the same a run at a time: an ASCII character is a
    # starter, which no decomposition or reordering of marks crosses.
    return _NON_ASCII.sub(_unaccented_run, text)


def _unaccented_run(run: re.Match[str]) -> str:
    decomposed = unicodedata.normalize("NFKD", run.group().translate(_UNDECOMPOSABLE))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower-case and strip accents: 'Canción Ñandú' -> 'cancion nandu', 'Straße' -> 'strasse'."""
    return unaccent(text.lower())
