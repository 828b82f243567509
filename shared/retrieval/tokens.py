"""Text handling shared by ranking and answering: invisible-Unicode stripping, tokens.

Pure functions. Tokens are accent-folded, Spanish-stemmed words plus exact identifiers
(``cache:invalidate``, ``db_pool_size``, ``app/main.py``, ``RedirectResponse``) kept whole
beside their parts (``redirect``, ``response``). A question's words are grouped with the
forms a page may use for them instead: the Spanish of an English word, and the English of
a Spanish one (Spanish technical writing keeps "request body" or "path" in English).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from shared.text.fold import unaccent
from shared.text.glossary import EN_TO_ES
from shared.text.stemmers import stemmer

# Characters that render as nothing (or reorder text) and can smuggle instructions past a
# reader: the tag block, zero-width characters, variation selectors, bidi controls.
_INVISIBLE = re.compile(
    "["
    "\U000e0000-\U000e007f"  # tag block
    "\u200b-\u200f"  # zero-width space/joiners, LRM, RLM
    "\u202a-\u202e"  # bidi embeddings and overrides
    "\u2060-\u2064"  # word joiner, invisible operators
    "\u2066-\u2069"  # bidi isolates
    "\u061c\u00ad\u180e\ufeff"  # Arabic letter mark, soft hyphen, Mongolian vowel sep., BOM
    "\ufe00-\ufe0f"  # variation selectors
    "\U000e0100-\U000e01ef"  # variation selectors supplement
    "]"
)
# A run of letters/digits/underscores, optionally joined by ':', '.', '/', '-' into one
# identifier: `cache:invalidate`, `db_pool_size`, `docs_src/app/main.py`, `--reload`.
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[:./\-][A-Za-z0-9_]+)*")
_PART = re.compile(r"[A-Za-z0-9]+")
# Where a camelCase word splits: before a capital that follows a lower-case letter or a
# digit (`RedirectResponse`, `OAuth2PasswordBearer`); `HTTPException` stays one word.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

_STOPWORDS = """
    a al algo algun alguna algunas alguno algunos ante antes aqui asi aun cada como con contra
    cual cuales cuando de del desde donde dos el ella ellas ello ellos en entre era eres es esa
    esas ese eso esos esta estan estas este esto estos fue ha hace hacer hay hasta la las le les
    lo los mas me mi mis mucho muy ni no nos o os otra otro para pero poco por porque puede puedo
    que quien se sea ser si sin sobre son su sus tambien tan te tengo tiene tienen todo todos tu
    tus un una unas uno unos usar uso y ya yo debo debe quiero cosa cosas forma manera
    the of to and in is it that for on with as by be are this an or from at how do does can i my
    me we you your what when which why where who should would could will using use get into
    there their them then than its not no yes so if about way ways instead only one two all any
    some each every other make want need have has had was were been being just also like
"""
STOPWORDS = frozenset(_STOPWORDS.split())


def strip_invisible(text: str) -> str:
    """``text`` without invisible or direction-changing characters (NFC-normalized)."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFC", text))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Spanish stem of a folded word (cached: the vocabulary is small)."""
    return str(stemmer("spanish").stemWord(word))


def _words(text: str) -> list[tuple[str | None, list[str]]]:
    """Each word of ``text`` as (the identifier kept whole, or None; its folded parts)."""
    out: list[tuple[str | None, list[str]]] = []
    for raw in _TOKEN.findall(unaccent(text)):
        parts = [p.lower() for piece in _PART.findall(raw) for p in _CAMEL.split(piece)]
        whole = raw.lower().strip(".:/-") if len(parts) > 1 or "_" in raw else None
        if whole is not None and whole.isalnum():
            # A camelCase word is also one word, stemmed as any other: `RedirectResponse`
            # matches `redirectresponse` typed in lower case.
            whole = stem(whole)
        out.append((whole, parts))
    return out


def _indexed(part: str) -> bool:
    return part not in STOPWORDS and (len(part) > 1 or part.isdigit())


def tokens(text: str) -> list[str]:
    """Index tokens of a document: stems of its words and its identifiers kept whole."""
    out: list[str] = []
    for whole, parts in _words(text):
        if whole:
            out.append(whole)
        out.extend(stem(part) for part in parts if _indexed(part))
    return out


@lru_cache(maxsize=1)
def _english_forms() -> dict[str, tuple[str, ...]]:
    """Spanish stem -> stems of the English words the glossary translates to that word."""
    english: dict[str, list[str]] = {}
    for word, translations in EN_TO_ES.items():
        for spanish in translations:
            kept = [w for w in spanish.split() if w not in STOPWORDS]
            if len(kept) == 1 and kept[0] != word:
                english.setdefault(stem(kept[0]), []).append(stem(word))
    return {key: tuple(dict.fromkeys(forms)) for key, forms in english.items()}


def query_groups(text: str) -> list[tuple[str, ...]]:
    """A question's tokens grouped per word: the word's stem, its identifier form, the
    stems of its Spanish translations when it is an English word and of its English
    forms when it is a Spanish one. One group is one thing the question asks for,
    whichever of its forms a page uses (the lexical ranking scores a group once)."""
    groups: list[tuple[str, ...]] = []
    for whole, parts in _words(text):
        if whole:
            groups.append((whole,))
        for part in parts:
            if not _indexed(part):
                continue
            own = stem(part)
            forms = [own, *_english_forms().get(own, ())]
            for spanish in EN_TO_ES.get(part, ()):
                forms.extend(stem(w) for w in spanish.split() if w not in STOPWORDS)
            groups.append(tuple(dict.fromkeys(forms)))
    return list(dict.fromkeys(groups))


def query_tokens(text: str) -> list[str]:
    """Every token of a question's groups, once."""
    return list(dict.fromkeys(t for group in query_groups(text) for t in group))


# A word as written, accents and joiners kept: `Next.js`, `client:load`, `getServerSideProps`.
_WRITTEN = re.compile(r"\w(?:[\w]|[.:/\-](?=\w))*")
_OPENS = re.compile(r"(?:^|[.!?:;¿¡\n])[\s\"'(«“*_]*$")
_NAMING = re.compile(r"_|[a-z][A-Z]|[A-Za-z][.:/][A-Za-z]|[A-Za-z]\d|\d[A-Za-z]")


def named_terms(text: str) -> list[str]:
    """The words of ``text`` that name a thing (a technology, an API, an identifier), as
    written: those with a code's shape (``snake_case``, ``camelCase``, ``Next.js``,
    ``client:load``, ``PySide6``) and capitalised words that do not open a sentence
    (``Kafka``, ``Django``). Plain lower-case words are left out: a word the wiki does
    not use may just be an inflection it happens not to use."""
    out: dict[str, None] = {}
    for match in _WRITTEN.finditer(strip_invisible(text)):
        word = match.group()
        if len(word) < 2 or word.isdigit():
            continue
        shaped = bool(_NAMING.search(word))
        capital = word[0].isupper() and not _OPENS.search(text[: match.start()])
        if shaped or capital:
            out[word] = None
    return list(out)


def name_tokens(word: str) -> tuple[str, ...]:
    """The index tokens under which a page mentions the thing ``word`` names: an
    identifier only whole (``getServerSideProps`` is not mentioned by a page that says
    "server" and "props"), a plain word by its stem or a glossary translation of it."""
    groups = query_groups(word)
    whole = [w for w, parts in _words(word) if w]
    if whole:
        return (whole[0],)
    return tuple(dict.fromkeys(t for group in groups for t in group))
