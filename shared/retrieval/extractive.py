"""The offline answer (pure): the most relevant sentences of the sources, each cited ``[n]``.

Nothing is invented: every sentence of the answer's body is copied from a source. The
framing lines follow the question's language; the sentences stay in the wiki's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared import wikilinks
from shared.ports import Passage
from shared.retrieval.text import language, query_tokens, strip_invisible, tokens

MAX_SENTENCES = 4
MAX_SENTENCE_CHARS = 400
_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.M | re.S)
_DIRECTIVE = re.compile(r"\{\*.*?\*\}")  # MkDocs include directives: {* path hl[3] *}
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_ADMONITION = re.compile(r"^\s*(///|!!!|\?\?\?).*$", re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-ZÁÉÍÓÚÑ¿¡`*\"'(\[])")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
MIN_WORDS = 4

NOTHING = {
    "es": "No encontré información sobre esto en la wiki. Prueba a reformular la pregunta "
    "o consulta a quien mantiene la documentación.",
    "en": "I couldn't find anything about this in the wiki. Try rephrasing the question, "
    "or ask the people who maintain the documentation.",
}
_LEAD = {"es": "Según la wiki:", "en": "From the wiki:"}
_LEAD_IN_SPANISH = "From the wiki (these passages are in Spanish):"
_SEE = {"es": "Más detalles en", "en": "More in"}


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    number: int
    position: int
    overlap: int
    weight: float


def sentences(markdown: str) -> list[str]:
    """Prose sentences of a chunk that can stand alone in an answer.

    Code, include directives, HTML tags and markers are removed; ``[[slug|text]]`` reads
    as its text. Questions (a page's own rhetorical ones), sentences ending in ':' (they
    introduce a list or code that is not shown) and fragments of under four words are
    left out.
    """
    text = _FENCE.sub("\n", strip_invisible(markdown))
    text = _ADMONITION.sub("", _TAG.sub("", _DIRECTIVE.sub("", text)))
    text = wikilinks.as_text(text)
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.splitlines()
        listed = any(_BULLET.match(line) for line in lines)
        for line in lines if listed else [" ".join(block.split())]:
            line = _BULLET.sub("", line).strip()
            if line.startswith(("#", "|", "{", ">")):
                continue
            out.extend(s for s in map(str.strip, _SENTENCE_END.split(line)) if _stands_alone(s))
    return out


def _stands_alone(sentence: str) -> bool:
    # A lower-case start is the tail of a sentence cut by chunking (or a fragment).
    return (
        len(sentence) >= 25
        and not sentence[0].islower()
        and len(sentence.split()) >= MIN_WORDS
        and not sentence.endswith(("?", ":"))
    )


def _rank(question: str, passages: Sequence[Passage]) -> list[_Sentence]:
    wanted = set(query_tokens(question))
    found: list[_Sentence] = []
    for p in passages:
        for position, sentence in enumerate(sentences(p.text)):
            words = set(tokens(sentence))
            overlap = len(wanted & words)
            # Overlap with the question dominates; the passage's own rank breaks ties, and
            # long sentences pay a little so the answer stays readable.
            weight = overlap / math.sqrt(max(len(words), 4)) + 0.5 * p.relevance - 0.01 * position
            found.append(_Sentence(sentence, p.number, position, overlap, weight))
    return sorted(found, key=lambda s: -s.weight)


def compose(question: str, passages: Sequence[Passage]) -> str:
    """A Markdown answer built from ``passages`` (already judged relevant), or NOTHING."""
    lang = language(question)
    if not passages:
        return NOTHING[lang]
    chosen: list[_Sentence] = []
    seen: set[str] = set()
    for sentence in _rank(question, passages):
        if sentence.overlap == 0 and chosen:
            break  # once one sentence is in, only sentences that share words with the question
        key = sentence.text.lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(sentence)
        if len(chosen) == MAX_SENTENCES:
            break
    if not chosen:
        first = passages[0]
        return f"{_LEAD[lang]} {_SEE[lang]} **{first.title}** › {first.heading} [{first.number}]."
    chosen.sort(key=lambda s: (s.number, s.position))
    spanish_quotes = lang == "en" and language(" ".join(s.text for s in chosen)) == "es"
    lines = [_LEAD_IN_SPANISH if spanish_quotes else _LEAD[lang], ""]
    for s in chosen:
        text = s.text if len(s.text) <= MAX_SENTENCE_CHARS else s.text[:MAX_SENTENCE_CHARS] + "…"
        lines.append(f"- {text} [{s.number}]")
    cited = sorted({s.number for s in chosen})
    pages = ", ".join(
        f"**{title}** [{']['.join(str(n) for n in numbers)}]"
        for title, numbers in _by_page(passages, cited).items()
    )
    lines += ["", f"{_SEE[lang]}: {pages}."]
    return "\n".join(lines)


def _by_page(passages: Sequence[Passage], cited: Sequence[int]) -> dict[str, list[int]]:
    """Cited source numbers grouped under their page's title, in order."""
    out: dict[str, list[int]] = {}
    for p in passages:
        if p.number in cited:
            out.setdefault(p.title, []).append(p.number)
    return out
