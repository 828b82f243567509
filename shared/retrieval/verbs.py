"""Spanish verb forms whose stem is not their infinitive's, back to it: one rule per class.

Pure. A question says "¿cómo sirvo…?" where the page says "servir": the stemmer leaves
``sirv`` and ``serv`` apart. These rules undo the present tense's stem changes by class,
not by word list; a caller keeps only the stems its index knows.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Forms that carry the stress on the root, where stem-changing verbs change it: the
# singular and the third plural (cierro, cierras, cierra, cierran; subjunctive too).
_STRESSED = ("o", "a", "as", "an", "e", "es", "en")
_GO = ("go", "ga", "gas", "gan")

# (class, word endings that mark the form, stem pattern, replacement), on snowball stems.
_CONSONANT: tuple[tuple[str, tuple[str, ...], re.Pattern[str], str], ...] = (
    ("-ngo/-lgo: poner, tener, venir, salir, valer", _GO, re.compile(r"(?<=[nl])g$"), ""),
    ("-aigo: traer, caer", _GO, re.compile(r"(?<=a)ig$"), ""),
    ("-ago: hacer, satisfacer", _GO, re.compile(r"ag$"), "ac"),
    ("-digo: decir, predecir", _GO, re.compile(r"(?<=d)ig$"), "ec"),
    (
        "-zco: conocer, establecer, producir",
        ("zco", "zca", "zcas", "zcan"),
        re.compile(r"zc$"),
        "c",
    ),
    ("-jo: exigir, proteger, elegir, corregir", ("jo", "ja", "jas", "jan"), re.compile(r"j$"), "g"),
)
# The root's last vowel, followed only by consonants to the end of the stem.
_VOWEL: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("e>ie: cerrar, entender, preferir, desplegar", re.compile(r"ie(?=[^aeiou]+$)"), "e"),
    ("o>ue: devolver, mostrar, probar, resolver", re.compile(r"(?<![gq])ue(?=[^aeiou]+$)"), "o"),
    ("e>i: servir, pedir, repetir, medir", re.compile(r"(?<![aeiou])i(?=[^aeiou]+$)"), "e"),
)
MIN_STEM = 3  # shorter stems are too ambiguous to rewrite


@lru_cache(maxsize=4096)
def infinitive_stems(word: str, stem: str) -> tuple[str, ...]:
    """Stems the infinitive of ``word`` (folded) may have, ``stem`` being the word's own.

    Several classes may fit one form (``elijo``: -jo, then e>i): each candidate is kept,
    and the caller keeps those its vocabulary holds. Empty when no class fits.
    """
    if len(stem) < MIN_STEM:
        return ()
    roots = {stem}
    for _, endings, pattern, replacement in _CONSONANT:
        if word.endswith(endings) and pattern.search(stem):
            roots.add(pattern.sub(replacement, stem))
    found: list[str] = []
    for root in roots:
        if root != stem:
            found.append(root)
        if word.endswith(_STRESSED) or root != stem:
            for _, pattern, replacement in _VOWEL:
                if pattern.search(root):
                    found.append(pattern.sub(replacement, root, count=1))
    return tuple(dict.fromkeys(s for s in found if s != stem and len(s) >= MIN_STEM))
