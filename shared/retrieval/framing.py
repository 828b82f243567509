"""The sentences that frame an answer, in the question's language (pure): the opening of a
confident answer, the hedge of a weak one (naming what the wiki never mentions), and the
note that the quotes are in another language than the question.

One module for them because three writers use them: the offline answerer opens with
them, the answer check adds the hedge to any answer that lacks it, and the model's
prompt tells Gemini the exact sentence to begin with.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

HEDGE = {
    "es": "La wiki no parece tratar esto directamente; lo más cercano:",
    "en": "The wiki does not seem to cover this directly; the closest it has:",
}
# When the question names something the wiki's vocabulary never contains, the hedge says
# what: a reader learns at once that the wiki is silent on Kafka, not that it is unsure.
_UNMENTIONED = {
    "es": "La wiki no menciona {names}; lo más cercano:",
    "en": "The wiki doesn't mention {names}; the closest:",
}
_AND = {"es": " ni ", "en": " or "}
LEAD = {"es": "Según la wiki:", "en": "From the wiki:"}
# The language the quotes are in, named in the question's language.
_LANGUAGES = {
    "es": {"es": "español", "en": "inglés"},
    "en": {"es": "Spanish", "en": "English"},
}
_IN = {"es": " (estos pasajes están en {language})", "en": " (these passages are in {language})"}


def hedge(lang: str, unmentioned: Sequence[str] = (), quotes_lang: str | None = None) -> str:
    """The opening of a low-confidence answer; it names the question's terms the wiki
    never mentions when there are some, and the quotes' language when it differs."""
    if unmentioned:
        names = ", ".join(f"`{n}`" if _code_like(n) else n for n in unmentioned[:-1])
        last = f"`{unmentioned[-1]}`" if _code_like(unmentioned[-1]) else unmentioned[-1]
        joined = f"{names}{_AND[lang]}{last}" if names else last
        text = _UNMENTIONED[lang].format(names=joined)
    else:
        text = HEDGE[lang]
    return _with_language_note(text, lang, quotes_lang)


def lead(lang: str, quotes_lang: str | None = None) -> str:
    """The opening of a confident answer, with the language note when it is owed."""
    return _with_language_note(LEAD[lang], lang, quotes_lang)


def hedge_openings() -> tuple[str, ...]:
    """How every hedge begins, in both languages (to tell whether an answer has one)."""
    return (
        *(h.removesuffix(":") for h in HEDGE.values()),
        *(u.split("{", 1)[0] for u in _UNMENTIONED.values()),
    )


def _with_language_note(text: str, lang: str, quotes_lang: str | None) -> str:
    if quotes_lang is None or quotes_lang == lang or quotes_lang not in _LANGUAGES[lang]:
        return text
    note = _IN[lang].format(language=_LANGUAGES[lang][quotes_lang])
    return f"{text.removesuffix(':')}{note}:"


def _code_like(name: str) -> bool:
    return any(c in name for c in "_.:/") or any(
        a.islower() and b.isupper() for a, b in itertools.pairwise(name)
    )
