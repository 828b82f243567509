"""Spanish alphabetical order without the operating system's locales.

``sort_key`` orders as a Spanish reader expects: accents do not move a word (``Índice``
sorts with the ``I``), ``ñ`` is a letter of its own after ``n``, and case does not
matter. Ties are then broken by accents (unaccented first) and case, so the order is
total and the same on every machine (``locale.strxfrm`` depends on installed locales).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_TILDE = "\u0303"  # combining tilde: n + tilde is ñ, a letter of its own
_AFTER_N = "n\U0010ffff"  # sorts after every "n…" and before "o"


def _primary(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.casefold())
    out: list[str] = []
    for char in decomposed:
        if unicodedata.combining(char):
            if char == _TILDE and out and out[-1] == "n":
                out[-1] = _AFTER_N
            continue
        out.append(char)
    return "".join(out)


@lru_cache(maxsize=65536)  # a build sorts the same titles for the nav and the listings
def sort_key(text: str) -> tuple[str, str, str]:
    """Key for ``sorted``: letters first, then accents, then case (see the module)."""
    return (_primary(text), unicodedata.normalize("NFD", text.casefold()), text.swapcase())
