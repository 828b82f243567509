"""An answer checked against the passages it was given (pure): citations that exist, a hedge
when the evidence is weak or nothing is cited, and code names that nothing supports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shared.records import Confidence, Passage
from shared.retrieval import framing
from shared.retrieval.reading import CODE_SPAN, FENCED_BLOCK, outside_code
from shared.text.code_paths import cited_paths

MAX_UNSUPPORTED = 20  # names listed in a response
_CITATION = re.compile(r"([ \t]*)\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_NAME = re.compile(
    r"(?<![\w./\\:-])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![\w/\\-])"
)
_SNAKE = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# Names every Python reader knows: never worth flagging when an answer's code uses them.
_COMMON = frozenset(
    " ".join(
        (
            "and as assert async await class def del elif else except finally for from global",
            "if import in is lambda nonlocal not or pass raise return try while with yield",
            "True False None self cls print len str int float bool dict list set tuple range",
            "open type super isinstance getattr setattr object Exception main app",
        )
    ).split()
)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """The answer as sent: unknown citations dropped, the hedge added when it is owed."""

    text: str
    confidence: Confidence
    dropped: tuple[int, ...]  # citation numbers that named no passage


def review(
    text: str,
    passages: Sequence[Passage],
    confidence: Confidence,
    lang: str,
    *,
    unmentioned: Sequence[str] = (),
) -> Reviewed:
    """Drop citations of passages that were not sent; an answer that cites none of the
    passages it had is low confidence; a low-confidence answer opens with the hedge (which
    names ``unmentioned``, the question's names the wiki never mentions)."""
    cleaned, kept, dropped = _citations(text, len(passages))
    if passages and not kept:
        confidence = "low"
    if passages and confidence == "low" and not _hedged(cleaned):
        cleaned = f"{framing.hedge(lang, unmentioned)}\n\n{cleaned.lstrip()}"
    return Reviewed(text=cleaned, confidence=confidence, dropped=tuple(dropped))


def _hedged(text: str) -> bool:
    opening = text.lstrip().casefold()
    return any(opening.startswith(h.casefold()) for h in framing.hedge_openings())


def _citations(text: str, count: int) -> tuple[str, list[int], list[int]]:
    """``text`` with every ``[n]`` outside code kept only when 1 <= n <= count."""
    kept: list[int] = []
    dropped: list[int] = []

    def fix(match: re.Match[str]) -> str:
        numbers = [int(n) for n in match.group(2).split(",")]
        good = [n for n in numbers if 1 <= n <= count]
        kept.extend(good)
        dropped.extend(n for n in numbers if n not in good)
        return f"{match.group(1)}[{', '.join(map(str, good))}]" if good else ""

    return outside_code(text, lambda part: _CITATION.sub(fix, part)), kept, dropped


def unsupported(
    text: str, passages: Sequence[Passage], unresolved_paths: Iterable[str]
) -> list[str]:
    """Code paths and identifiers the answer names that no passage contains: a path only
    when the code index does not hold it either (``unresolved_paths``, from the grounding
    check); an identifier when it has a code's shape (``snake_case``, ``CamelCase``, a
    dotted or called name inside code) and none of its parts is in the passages."""
    sources = "\n".join(f"{p.title}\n{p.heading}\n{p.text}" for p in passages)
    folded = sources.casefold()
    not_indexed = {p.casefold() for p in unresolved_paths}
    found: dict[str, None] = {}
    paths = cited_paths(text)
    for path in paths:
        if path.casefold() not in folded and path.casefold() in not_indexed:
            found[path] = None
    prose = _URL.sub(" ", text)
    for path in paths:
        prose = prose.replace(path, " ")
    for name in _names(prose):
        parts = [p for p in name.split(".") if p]
        if name not in sources and not all(p in sources for p in parts):
            found[name] = None
    return list(found)[:MAX_UNSUPPORTED]


def _names(text: str) -> list[str]:
    """Identifiers with a code's shape: anywhere when snake_case or CamelCase; inside code
    also dotted names and called names."""
    code = " ".join(
        [m.group() for m in FENCED_BLOCK.finditer(text)]
        + [m.group(2) for m in CODE_SPAN.finditer(text)]
    )
    names: dict[str, None] = {}
    for match in _NAME.finditer(text):
        name = match.group()
        if _SNAKE.search(name) or _CAMEL.search(name):
            names[name] = None
    for match in _NAME.finditer(code):
        name = match.group()
        called = code[match.end() : match.end() + 1] == "("
        dotted = "." in name and all(len(p) > 1 for p in name.split("."))
        if (dotted or (called and len(name) > 2)) and name.split(".")[0] not in _COMMON:
            names[name] = None
    return [n for n in names if n not in _COMMON]
