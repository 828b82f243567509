"""The one language guess: is a text (a question, a page, an answer's quotes) Spanish or
English? Answers are framed, and the site's pages labelled and stemmed, by it.

Function words decide; ``¿``, ``¡`` or ``ñ`` say Spanish; when neither tells (a short
instruction, a page that is mostly code), the glossary's English words count against
Spanish endings. Spanish wins ties: it is the wiki's language. Only the first
``SAMPLE`` characters are read: enough to tell, cheap for a 10,000-page build.
"""

from __future__ import annotations

import re

from shared.text.fold import fold
from shared.text.glossary import EN_TO_ES

SAMPLE = 1500
_WORD = re.compile(r"[A-Za-z0-9]+")
# Function words only one of the two languages has ("a" and "no" are both, left out).
_EN = """the an of to in on at for with from by is are be was how what when which why where
who should would could does do did can i my you your it its this that these those and or
not instead into without so never only than then there their them our we"""
_ES = """el la los las lo un una unos unas de del al en que y o como con sin por para se su sus
es son mi mis tu cual cuando donde hay puedo esta este esto estos entre pero mas muy
tambien ya le les nos"""
_ES_ENDINGS = ("cion", "ciones", "mente", "dad", "ar", "er", "ir")
_EN_MARKERS = frozenset(_EN.split())
_ES_MARKERS = frozenset(_ES.split())


def language(text: str) -> str:
    """``"en"`` or ``"es"`` (see the module docstring)."""
    text = text[:SAMPLE]
    if any(c in text for c in "¿¡ñÑ"):
        return "es"
    folded = fold(text)
    words = _WORD.findall(folded)
    english = sum(w in _EN_MARKERS for w in words)
    spanish = sum(w in _ES_MARKERS for w in words)
    if english == spanish:
        # No function word decides: the glossary's English words against Spanish
        # endings, plain words only (an identifier's parts say nothing of the language
        # around it).
        plain = [w for w in (x.strip(".,;:!?()\"'") for x in folded.split()) if w.isalpha()]
        english = sum(w in EN_TO_ES for w in plain)
        spanish = sum(w.endswith(_ES_ENDINGS) for w in plain)
    return "en" if english > spanish else "es"
