"""An archived answer made into a page (pure): its framing taken off, its citations linked.

An answer speaks to someone who asked ("Según la wiki:", a hedge, "Más detalles en: …
[1][2]."); a page speaks for itself. The framing is the answerers' own words
(``extractive.FRAMING``), so this module never guesses at phrasing. A draft's ``[n]``
cites its n-th wiki source (the archive numbers them so); each run of markers becomes
links to those pages (``([[slug|Title]])``), and a marker citing nothing is dropped.
Code (fenced blocks, inline spans) is left exactly as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from shared.mkdocs import fenced
from shared.retrieval.extractive import FRAMING, Framing

# One or more [n] in a row (spaces between allowed), not a Markdown link's text ("[1](…)").
_MARKERS = re.compile(r"[ \t]*((?:\[\d{1,3}\][ \t]*)*\[\d{1,3}\])(?![(\[:])")
_NUMBER = re.compile(r"\[(\d{1,3})\]")
# The same, with the sentence's end just before it ("…texto. [1]"): on a page the link
# goes inside the sentence ("…texto ([[…]]).").
_ENDED_MARKERS = re.compile(r"([.!?])?" + _MARKERS.pattern)


def as_page(
    answer: str,
    cited: Sequence[str],
    titles: Mapping[str, str],
    framing: Framing = FRAMING,
) -> str:
    """``answer`` as a page's body: ``cited[n-1]`` is the slug ``[n]`` cites; ``titles``
    names each (its slug when unknown)."""
    paragraphs = _paragraphs(answer.strip())
    if paragraphs and _is_opening(paragraphs[0], framing):
        paragraphs = paragraphs[1:]
    elif paragraphs:
        paragraphs[0] = _without_opening(paragraphs[0], framing)
    if paragraphs and _is_closing(paragraphs[-1], framing):
        paragraphs = paragraphs[:-1]
    paragraphs = [_without_label(p, framing) for p in paragraphs]
    text = "\n\n".join(p for p in paragraphs if p.strip())
    return _linked(text, cited, titles).strip() + "\n"


def cite_distinct(answer: str, numbered: Sequence[str]) -> tuple[str, list[str]]:
    """(``answer`` with each ``[n]`` renumbered to cite its page's place among the
    distinct pages, those distinct pages): ``numbered[n-1]`` is the page ``[n]`` cites
    (an answer's passages: several may be one page's). Markers in code are left alone,
    and so is a number beyond ``numbered``."""
    distinct = list(dict.fromkeys(numbered))
    place = {n: distinct.index(slug) + 1 for n, slug in enumerate(numbered, start=1)}

    def renumber(markers: str) -> str:
        return _NUMBER.sub(lambda m: f"[{place.get(int(m.group(1)), m.group(1))}]", markers)

    return _in_prose(answer, lambda m: m.group(0).replace(m.group(1), renumber(m.group(1)))), (
        distinct
    )


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks; a fenced block is one block whatever it holds."""
    blocks: list[list[str]] = [[]]
    for line, code in fenced(text.splitlines()):
        if not code and not line.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(line)
    return ["\n".join(b) for b in blocks if b]


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _named_opening(paragraph: str, framing: Framing) -> str | None:
    """The opening that names things ("La wiki no menciona Kafka; lo más cercano:") this
    paragraph starts with, up to its first colon, or None."""
    text = paragraph.strip()
    folded = _fold(text)
    if not any(folded.startswith(_fold(p)) for p in framing.prefixes if p.strip()):
        return None
    end = text.find(":")
    return text[: end + 1] if end != -1 and "\n" not in text[:end] else None


def _is_opening(paragraph: str, framing: Framing) -> bool:
    if _fold(paragraph) in {_fold(o) for o in framing.openings}:
        return True
    named = _named_opening(paragraph, framing)
    return named is not None and _fold(named) == _fold(paragraph)


def _without_opening(paragraph: str, framing: Framing) -> str:
    """A first paragraph that starts with an opening and goes on: the rest of it."""
    folded = _fold(paragraph)
    for opening in sorted(framing.openings, key=len, reverse=True):
        if folded.startswith(_fold(opening) + " "):
            return paragraph.strip()[len(opening) :].lstrip()
    named = _named_opening(paragraph, framing)
    if named is not None:
        return paragraph.strip()[len(named) :].lstrip()
    return paragraph


def _is_closing(paragraph: str, framing: Framing) -> bool:
    folded = _fold(paragraph)
    return any(folded.startswith(_fold(c)) for c in framing.closings)


def _without_label(paragraph: str, framing: Framing) -> str:
    """A block that opens with a label line ("También:") keeps what the label introduced."""
    first, _, rest = paragraph.partition("\n")
    if rest and _fold(first) in {_fold(label) for label in framing.labels}:
        return rest
    return paragraph


def _linked(text: str, cited: Sequence[str], titles: Mapping[str, str]) -> str:
    def link(match: re.Match[str]) -> str:
        end = match.group(1) or ""
        return _links(match.group(2), cited, titles) + end

    return _in_prose(text, link, _ENDED_MARKERS)


def _in_prose(
    text: str, replace: Callable[[re.Match[str]], str], markers: re.Pattern[str] = _MARKERS
) -> str:
    """``text`` with every run of markers outside code replaced by ``replace``."""
    out: list[str] = []
    for line, code in fenced(text.split("\n")):
        if code:
            out.append(line)
            continue
        # Inline code spans are odd-numbered pieces between backticks: left alone.
        pieces = line.split("`")
        for i in range(0, len(pieces), 2):
            pieces[i] = markers.sub(replace, pieces[i])
        out.append("`".join(pieces))
    return "\n".join(out)


def _links(markers: str, cited: Sequence[str], titles: Mapping[str, str]) -> str:
    slugs: list[str] = []
    for number in (int(n) for n in _NUMBER.findall(markers)):
        if 1 <= number <= len(cited) and cited[number - 1] not in slugs:
            slugs.append(cited[number - 1])
    if not slugs:
        return ""
    links = ", ".join(f"[[{slug}|{_link_text(titles.get(slug) or slug)}]]" for slug in slugs)
    return f" ({links})"


def _link_text(title: str) -> str:
    # A wiki link's text holds no brackets, pipes or newlines (``shared.text.wikilinks``).
    return " ".join(re.sub(r"[\[\]|\n]+", " ", title).split()) or "?"
