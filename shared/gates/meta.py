"""Gate 0: refuse questions that ask whether pages or docs exist, before any model runs.

Pure regular expressions, Spanish and English, over a folded question: accents,
inverted marks, punctuation and capitals are optional. Precision matters as much
as recall, so a document noun must be followed by a topic preposition (``sobre``,
``about``…): "¿Existe un límite de tamaño…?" or "is there a page size limit?" pass.
"""

from __future__ import annotations

import re

from shared.text.fold import fold

REASON = "pre-filter:meta-question"

# -- Spanish --------------------------------------------------------------------------

_ES_LEAD = (
    r"(?:existe|existen|hay|tenemos|tienen|tiene|tienes|teneis"
    r"|contamos\s+con|cuenta\s+con|cuentas\s+con)"
)
_ES_DET = (
    r"(?:(?:un|una|unos|unas|algun|alguna|alguno|algunos|algunas|la|el|las|los|mas|otra|otro"
    r"|otras|otros|ya|ningun|ninguna)\s+)*"
)
# Kinds of document a team writes: a question whether one exists names one of them.
_ES_KIND = r"(?:runbooks?|tutorial(?:es)?|manual(?:es)?|readmes?|faqs?|playbooks?|guias?)"
_ES_NOUN = (
    r"(?:paginas?|documentacion(?:es)?|docs?|documentos?|articulos?|entradas?|notas?"
    rf"|{_ES_KIND}|slugs?|secciones|seccion)"
)
# "de" is enough after these: "¿hay documentación de Y?", "¿hay un runbook de Y?"
_ES_DOC_NOUN = rf"(?:documentacion|docs?|documentos|articulos|slugs|{_ES_KIND})"
_ES_PAGE_NOUN = rf"(?:paginas?|articulos?|entradas?|{_ES_KIND})"  # what a reader looks for
_ES_WHERE = (
    r"(?:\s+(?:en|de|dentro\s+de)\s+(?:la|el|esta|este|nuestra|nuestro)\s+"
    r"(?:wiki|biblioteca|documentacion|docs|base\s+de\s+conocimiento))?"
)
_ES_TOPIC = (
    r"(?:sobre|acerca\s+de|de\s+como|respecto\s+(?:a|de)|referente\s+a|relacionad[ao]s?\s+con"
    r"|para|que\s+(?:hablen?|traten?|expliquen?|cubran?|mencionen?|describan?|documenten?))"
)
_ES_CORPUS = r"(?:wiki|biblioteca|base\s+de\s+conocimiento)"

_SPANISH = (
    # ¿existe una página sobre X? ¿hay docs? ¿tenemos alguna guía para Y?
    rf"\b{_ES_LEAD}\s+{_ES_DET}{_ES_NOUN}{_ES_WHERE}(?:\s+{_ES_TOPIC}\b|$)",
    # ¿hay documentación de Y? ¿tenemos página de Z? (a team "has" pages: "tenemos")
    rf"\b{_ES_LEAD}\s+{_ES_DET}{_ES_DOC_NOUN}\s+del?\b",
    rf"\b(?:tenemos|teneis|tienes)\s+{_ES_DET}{_ES_PAGE_NOUN}\s+(?:de|del)\b",
    # ¿dónde está la página de X? ¿dónde encuentro el runbook de Y?
    r"\bdonde\s+(?:esta|estan|encuentro|encuentra|puedo\s+encontrar|se\s+encuentra"
    rf"|se\s+encuentran|hay|tenemos)\s+{_ES_DET}{_ES_PAGE_NOUN}{_ES_WHERE}\s+"
    r"(?:de|del|sobre|para|acerca\s+de)\b",
    # ¿tenemos algo sobre X? ¿hay algo escrito acerca de Y?
    r"\b(?:tenemos|teneis|tienes|hay)\s+algo\s+(?:escrito\s+|documentado\s+)?"
    r"(?:sobre|acerca\s+de)\b",
    # ¿qué slugs existen sobre Z? ¿cuáles son las páginas sobre X?
    r"\b(?:que|cual|cuales)\s+(?:son\s+)?(?:las\s+|los\s+)?(?:paginas|slugs|documentos|docs"
    r"|articulos|entradas|secciones|guias)\b(?:\s+\S+){0,3}?\s+(?:existen|hay|tenemos|tiene"
    r"|tienen|cubren|hablan|mencionan|tratan|explican|sobre|acerca)\b",
    # ¿en qué página se explica X?
    r"\ben\s+que\s+(?:paginas?|documentos?|secciones|seccion|articulos?"
    r"|parte\s+de\s+la\s+(?:wiki|documentacion))\b",
    # ¿está documentado X? ¿dónde está documentado Y?
    r"^(?:ya\s+)?(?:esta|estan)\s+documentad[oa]s?\b",
    r"\bdonde\s+(?:se\s+documenta|(?:esta|estan|se\s+encuentra|se\s+encuentran|aparece|aparecen)"
    r"(?:\s+\S+){0,6}?\s+documentad[oa]s?)\b",
    # ¿hay algo en la wiki sobre X?
    r"\b(?:hay|existe|tenemos)\s+(?:algo|nada|informacion|contenido)(?:\s+\S+){0,2}?\s+"
    r"(?:en|dentro\s+de)\s+(?:la|el|nuestra|nuestro|esta)\s+"
    rf"(?:{_ES_CORPUS}|documentacion|docs)\b",
    # ¿la wiki tiene/menciona/cubre X? ¿la documentación menciona Y?
    rf"\b(?:la|el|nuestra|nuestro|esta)\s+{_ES_CORPUS}\s+(?:tiene|habla|menciona|cubre|incluye"
    r"|contiene|trata|explica|documenta)\b",
    r"\b(?:la|los)\s+(?:documentacion|docs)\s+(?:habla|hablan|menciona|mencionan|cubre|cubren"
    r"|incluye|incluyen|contiene|contienen)\b",
    # ¿tenemos algo documentado sobre X? ¿alguien ha escrito una página sobre Y?
    r"\b(?:algo|nada)\s+documentad[oa]\s+(?:sobre|acerca\s+de|de)\b",
    r"\b(?:escrito|escribio|redactado)\s+(?:un|una|algun|alguna)\s+"
    rf"{_ES_NOUN}{_ES_WHERE}\s+(?:sobre|acerca\s+de)\b",
    # lista las páginas…, ¿cuántas páginas hay?
    r"\b(?:lista|listame|listar|enumera|enumerame|muestrame|dame)\s+(?:todas\s+|todos\s+)?"
    r"(?:las\s+|los\s+)?(?:paginas|slugs|documentos|articulos|entradas)\b",
    r"\bcuant[ao]s\s+(?:paginas|documentos|slugs|articulos|entradas)\s+(?:hay|existen|tiene"
    r"|tenemos)\b",
)

# -- English --------------------------------------------------------------------------

_EN_DET = r"(?:(?:a|an|any|some|already|the|other|more|another|existing)\s+)*"
_EN_KIND = (
    r"(?:runbooks?|tutorials?|manuals?|readmes?|faqs?|how-?tos?|playbooks?|cheat-?sheets?"
    r"|guides?|write-?ups?)"
)
_EN_NOUN = (
    r"(?:wiki\s+)?(?:pages?|docs?|documentation|documents?|articles?|entry|entries|notes?"
    rf"|{_EN_KIND}|slugs?|sections?)"
)
_EN_PAGE_NOUN = rf"(?:wiki\s+)?(?:pages?|docs?|articles?|entry|entries|{_EN_KIND})"
_EN_WHERE = (
    r"(?:\s+(?:in|on)\s+(?:the|our|this)\s+(?:wiki|docs|documentation|library"
    r"|knowledge\s+base))?"
)
_EN_TOPIC = (
    r"(?:about|on|for|covering|regarding|concerning|explaining|describing|discussing"
    r"|documenting|related\s+to|that\s+(?:covers?|explains?|describes?|talks?\s+about"
    r"|mentions?|discuss(?:es)?|documents?))"
)
_EN_THERE = r"(?:(?:is|are)\s+there|there\s+(?:is|s|are))"
_EN_HAVE = r"(?:(?:do|does|did)\s+(?:we|you|i|they|the\s+wiki|this\s+wiki)\s+have|have\s+we\s+got)"
_EN_CORPUS = r"(?:wiki|library|knowledge\s+base)"

_ENGLISH = (
    # is there a page about X? are there docs? do we have docs on Y?
    rf"\b(?:{_EN_THERE}|{_EN_HAVE})\s+{_EN_DET}{_EN_NOUN}{_EN_WHERE}(?:\s+{_EN_TOPIC}\b|$)",
    rf"\b(?:{_EN_THERE}|{_EN_HAVE})\s+{_EN_DET}(?:docs|documentation)\s+of\b",
    # do docs exist for X? has anyone written a page about Y? anything documented on Z?
    rf"\b(?:do|does)\s+(?:any\s+)?{_EN_NOUN}\s+exist\b",
    rf"\b(?:written|wrote)\s+(?:a|an|any)\s+{_EN_NOUN}{_EN_WHERE}\s+(?:about|on|regarding)\b",
    r"\banything\s+documented\s+(?:about|on|for|regarding)\b",
    # is there anything in the wiki about X?
    rf"\b(?:{_EN_THERE}|{_EN_HAVE})\s+anything\s+(?:\S+\s+){{0,2}}?(?:in|on)\s+"
    rf"(?:the|our|this)\s+(?:{_EN_CORPUS}|docs|documentation)\b",
    # does the wiki have/cover X? does the documentation mention Y?
    rf"\b(?:does|do)\s+(?:the\s+|our\s+|this\s+)?{_EN_CORPUS}\s+(?:have|cover|mention|include"
    r"|contain|talk\s+about|say\s+anything|document)\b",
    r"\b(?:does|do)\s+(?:the\s+|our\s+)?(?:docs|documentation)\s+(?:cover|mention|include"
    r"|contain|talk\s+about|say\s+anything|have\s+(?:a|an|any)\s+(?:page|section|article"
    r"|entry))\b",
    # which pages cover X? what slugs exist for Y?
    r"\b(?:which|what)\s+(?:wiki\s+)?(?:pages|slugs|docs|documents|articles|entries|sections"
    r"|guides)\s+(?:\S+\s+){0,2}?(?:exist|are\s+there|do\s+we\s+have|do\s+you\s+have|cover"
    r"|covers|mention|talk|discuss|explain|about|on)\b",
    # where is X documented? is X documented anywhere?
    r"\bwhere\s+(?:is|are)\b.*\bdocumented\b",
    r"\bdocumented\s+(?:anywhere|somewhere|in\s+the\s+(?:wiki|docs|library))\b",
    rf"\bwhere\s+(?:can\s+i|do\s+i|to|could\s+i)\s+find\s+(?:the\s+|a\s+)?{_EN_NOUN}\s+"
    rf"{_EN_TOPIC}\b",
    rf"\bin\s+which\s+{_EN_NOUN}\b",
    # where is the page on X? where can I find the runbook for Y? where's the guide to Z?
    r"\bwhere\s+(?:is|s|are|can\s+i\s+find|do\s+i\s+find|would\s+i\s+find|could\s+i\s+find"
    rf"|do\s+we\s+keep)\s+{_EN_DET}(?:our\s+)?{_EN_PAGE_NOUN}{_EN_WHERE}\s+"
    r"(?:for|on|about|of|to|covering|regarding)\b",
    # do we have anything on X? is there anything written about Y?
    rf"\b(?:{_EN_THERE}|{_EN_HAVE})\s+anything\s+(?:written\s+|documented\s+)?"
    r"(?:on|about|regarding|covering)\b",
    # list the pages…, how many pages are there?
    r"\b(?:list|show\s+me|give\s+me)\s+(?:all\s+)?(?:the\s+)?(?:wiki\s+)?(?:pages|slugs"
    r"|documents|articles)\b",
    r"\bhow\s+many\s+(?:wiki\s+)?(?:pages|docs|documents|slugs|articles)\s+(?:are\s+there"
    r"|do\s+we\s+have|exist|does)\b",
)

_PATTERNS = tuple(re.compile(p) for p in (*_SPANISH, *_ENGLISH))
_NOT_WORD = re.compile(r"[^\w-]+")


def normalize_question(question: str) -> str:
    """Folded, lower-case words separated by single spaces: marks and accents are gone."""
    return " ".join(_NOT_WORD.sub(" ", fold(question)).split())


def is_meta_question(question: str) -> bool:
    """True when ``question`` asks whether pages or docs exist rather than for knowledge."""
    text = normalize_question(question)
    return any(pattern.search(text) for pattern in _PATTERNS)


def check_meta(question: str) -> str | None:
    """The gate: its refusal reason, or None when the question passes."""
    return REASON if is_meta_question(question) else None
