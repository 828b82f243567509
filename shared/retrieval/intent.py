"""What a question asks for — steps, a definition, one parameter, an error, a migration —
from its words alone, in Spanish and English (pure), and which page kinds answer it.

Retrieval reads it to decide which kind of page should lead (``shared.text.kinds``): a
how-to wants the guide first and the reference second, "what does parameter X do" the
reverse. The rules are few and ordered; the first that matches wins. The two shapes the
extractive answerer reads too live here, once: ``asks_how`` (steps or code wanted) and
``asks_what_is`` (a definition wanted).
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from shared.records import Kind
from shared.text.fold import fold

Intent = Literal["error", "migration", "parameter", "how-to", "what-is", "other"]
INTENTS: tuple[str, ...] = get_args(Intent)

# A name written as code: `x`, snake_case, dotted, a call, an --option, or CamelCase.
_CODE_NAME = r"(?:`[^`]+`|\S+_\S+|\w+\.\w+\S*|\w+\(\)|--?[a-z][\w-]+|[A-Z][a-z]+[A-Z]\w*)"
_ERROR = re.compile(
    r"\b(?:error|errores|exception|excepcion|traceback|falla|fallo|fails?|failing|crash\w*|"
    r"\w+(?:error|exception))\b|\b(?:i get|me (?:sale|aparece|da)|aparece)\b.*[\"'`]",
    re.IGNORECASE,
)
_MIGRATION = re.compile(
    r"\b(?:migrat\w*|migra\w*|upgrad\w*|breaking changes?|deprecat\w*|obsolet\w*|"
    r"(?:actualiz\w*|pasar|move|moving|update|updating) (?:de|from) (?:la )?(?:v(?:ersion|ersión)?"
    r" ?)?\d)",
    re.IGNORECASE,
)
_PARAMETER = re.compile(
    r"\b(?:parameters?|parametros?|options?|opcion(?:es)?|arguments?|argumentos?|flags?|"
    r"settings?|ajustes?|attributes?|atributos?|fields?|campos?|props?|default (?:value)?|"
    r"valor por defecto|por defecto)\b",
    re.IGNORECASE,
)
_DOES = re.compile(
    r"\b(?:what does|what is the|which values?|what values?|que hace|que valores?|"
    r"para que sirve|que significa|what do(?:es)? .* mean|cual es el valor)\b",
    re.IGNORECASE,
)
_WHAT_IS = re.compile(
    r"^\W*(?:what (?:is|are)|que (?:es|son)|explain|explica\w*|difference between|"
    r"diferencias? entre|why|por que)\b",
    re.IGNORECASE,
)
_NAMED = re.compile(_CODE_NAME)

# A question asks how when it says so, or asks for a command, or is an instruction.
_HOW = re.compile(
    r"(?:^|[¿\s])(?:c[oó]mo|de qu[eé] (?:manera|forma)|qu[eé] comandos?|"
    r"how|what commands?|which commands?)\b",
    re.IGNORECASE,
)
# A definition question: what something is, not what it does or how it compares (narrower
# than the "what-is" intent's ``_WHAT_IS``, which also takes "why" and "difference
# between": the extractive answerer leads such a question with the page's defining
# sentence, and retrieval with the page's opening).
_DEFINITION = re.compile(
    r"^\W*(?:what(?:'s| is| are)|qu[eé] (?:es|son)|define|definici[oó]n de)\s+(?!the "
    r"(?:difference|best|default)|la diferencia|el mejor)",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"^\s*¿|\?\s*$|^\s*(?:what|which|who|when|where|why|is|are|can|could|should|does|do|"
    r"qu[eé]|cu[aá]l|cu[aá]ndo|d[oó]nde|por qu[eé]|para qu[eé]|qui[eé]n)\b",
    re.IGNORECASE,
)


def asks_how(question: str) -> bool:
    """Whether the question wants steps or code: "¿cómo…?", "how do I…", "what command…",
    or an instruction of a few words ("Validate a query string with a pattern")."""
    if _HOW.search(question):
        return True
    return not _ASKING.search(question) and len(question.split()) >= 3


def asks_what_is(question: str) -> bool:
    """Whether the question asks what something is ("¿Qué es X?", "What are X?"): a
    definition, which the page about X gives in its opening paragraph. One that also asks
    how ("¿Qué es X y cómo declaro uno?") wants the steps as well: not a definition."""
    return bool(_DEFINITION.match(question)) and not _HOW.search(question)


# Which kinds answer each intent, best first; a kind not listed neither helps nor hurts.
_PREFERRED: dict[str, tuple[Kind, ...]] = {
    "how-to": ("guide", "tutorial"),
    "parameter": ("reference",),
    "migration": ("changelog", "guide"),
    "error": ("guide", "tutorial"),
    "what-is": ("guide", "tutorial"),
    "other": (),
}
# ...and which lose ground: the reference for steps, a changelog for what is current.
_DISFAVOURED: dict[str, tuple[Kind, ...]] = {
    "how-to": ("reference", "changelog", "landing"),
    "parameter": ("changelog", "landing"),
    "migration": ("landing",),
    "error": ("changelog", "landing"),
    "what-is": ("changelog", "landing"),
    "other": ("landing",),
}


def intent(question: str) -> Intent:
    """The question's intent (see the module docstring); "other" when no rule matches."""
    folded = fold(question)
    if _ERROR.search(folded):
        return "error"
    if _MIGRATION.search(folded):
        return "migration"
    if _DOES.search(folded) and (_PARAMETER.search(folded) or _NAMED.search(question)):
        return "parameter"
    if _PARAMETER.search(folded) and _NAMED.search(question) and not asks_how(question):
        return "parameter"
    if _WHAT_IS.search(folded):
        return "what-is"
    if asks_how(question):
        return "how-to"
    return "other"


def kind_fit(wanted: Intent, kind: str) -> int:
    """+1 when a page of ``kind`` is what ``wanted`` asks for, -1 when it is what it does
    not, 0 otherwise."""
    if kind in _PREFERRED[wanted]:
        return 1
    if kind in _DISFAVOURED[wanted]:
        return -1
    return 0
