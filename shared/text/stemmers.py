"""Snowball stemmers, one per thread and language: the only way any module gets one.

A ``snowballstemmer`` object keeps the word it is working on in its own fields, so two
threads sharing one corrupt each other's stems (an ``IndexError``, or a wrong stem that a
cache then keeps). A stemmer is cheap to build; each request thread builds its own once.
"""

from __future__ import annotations

import threading

import snowballstemmer

_stemmers_local = threading.local()


def stemmer(algorithm: str) -> snowballstemmer.Stemmer:
    """This thread's stemmer for ``algorithm`` ("spanish", "english")."""
    mine: dict[str, snowballstemmer.Stemmer] | None = getattr(_stemmers_local, "stemmers", None)
    if mine is None:
        mine = _stemmers_local.stemmers = {}
    found = mine.get(algorithm)
    if found is None:
        found = mine[algorithm] = snowballstemmer.stemmer(algorithm)
    return found
