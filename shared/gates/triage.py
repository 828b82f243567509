"""Gate 2, triage: is this answer worth a draft page? Doubt means no.

``local_triage`` (default) is rule-based and pure: it refuses answers that admit a gap,
answer only part of the question, rest on fewer than 2 distinct sources or are under
500 characters. ``model_triage`` asks a ``Generator`` for strict JSON
``{"archive": bool, "reason": str}``; anything else (or a provider failure) is a no.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from shared.errors import BibliotecaError
from shared.gates.meta import normalize_question
from shared.logs import get_logger
from shared.ports import Generator

MIN_CHARS = 500
MIN_SOURCES = 2

_log = get_logger("gates.triage")

# Phrases, folded like ``normalize_question`` (no accents, marks or capitals). Only
# first-person or source-subject forms: "si no se especifica, el valor es None" is
# ordinary technical prose, "los documentos no lo mencionan" is a gap.
_SOURCES_ES = (
    r"(?:el contexto|los documentos|la documentacion|la wiki|las paginas|las fuentes"
    r"|los fragmentos)"
)
_SOURCES_EN = (
    r"(?:the|these|your|our) (?:context|documents|docs|documentation|wiki|pages|sources|passages)"
)
_GAP = (
    r"\bno (?:he |hemos )?(?:encontre|encontramos|encontrado|encuentro|halle|hallado)\b",
    r"\bno (?:hay|tengo|tenemos|dispongo de|disponemos de) (?:suficiente |mas )?"
    r"(?:informacion|contexto|documentacion)\b",
    r"\bno se (?:menciona|mencionan)\b",
    rf"\b{_SOURCES_ES} no (?:lo |la |los |las )?(?:dice|dicen|menciona|mencionan|incluye|incluyen"
    r"|contiene|contienen|cubre|cubren|explica|explican|habla|hablan|detalla|detallan"
    r"|especifica|especifican)\b",
    rf"\bno se (?:detalla|especifica|explica|indica|describe) en {_SOURCES_ES}\b",
    r"\bno (?:esta|estan) documentad[oa]s?\b",
    r"\bno (?:puedo|podemos|sabria|sabriamos) (?:responder|contestar|confirmar|decir)\b",
    r"\bno lo se\b|\bdesconozco\b",
    r"\bi (?:could not|couldn t|cannot|can t|did not|didn t|was unable to) find\b",
    r"\bnot mentioned\b|\b(?:is|are) not documented\b",
    rf"\bnot (?:covered|described|explained|specified) (?:in|by) {_SOURCES_EN}\b",
    r"\b(?:there is|there s|i have|i ve got) no (?:information|mention|documentation)\b",
    rf"\b{_SOURCES_EN} (?:do not|don t|does not|doesn t) (?:say|mention|include|contain|cover"
    r"|explain|describe|specify)\b",
    r"\bi (?:do not|don t) know\b|\bunable to (?:answer|find|determine)\b",
    # ask's own hedge on weak evidence ("La wiki no parece tratar esto directamente").
    rf"\b{_SOURCES_ES} no parecen? (?:tratar|cubrir|mencionar|explicar)\b",
    rf"\b{_SOURCES_EN} (?:do not|don t|does not|doesn t) seem to (?:cover|mention|explain)\b",
)
# "Actualizaciones parciales" and "partial updates" are FastAPI topics, not admissions.
_PARTIAL = (
    r"\b(?:respuesta|responder|respondo|contestar|contesto) (?:solo |solamente )?"
    r"(?:parcial|parcialmente|en parte)\b",
    r"\bsolo (?:puedo |podemos )?(?:responder|contestar|cubrir) (?:a )?(?:una |la primera )?"
    r"parte\b",
    r"\bsolo parcialmente\b",
    r"\bno (?:puedo|podemos|es posible) (?:responder|contestar) (?:a )?(?:la segunda|el resto"
    r"|la otra|toda la|todas las)\b",
    r"\b(?:la otra|la segunda|el resto de la) (?:parte de (?:la|tu|su) )?pregunta\b",
    r"\b(?:answer|answers|answering|answered) (?:only |just )?(?:partially|in part)\b",
    r"\bpartial answer\b|\bonly partially\b",
    r"\b(?:only|just) (?:answer|address|cover) (?:part|some)\b",
    r"\b(?:the rest|the second part|the other part) of (?:the|your) question\b",
    r"\bcannot answer (?:the rest|the second|all|every|that part)\b",
)
_GAP_RE = tuple(re.compile(p) for p in _GAP)
_PARTIAL_RE = tuple(re.compile(p) for p in _PARTIAL)

SYSTEM = """You are the strict archivist of a team wiki. You decide whether an answer that
an assistant gave should become a draft wiki page for a curator to review.

Say yes ONLY if all of these hold:
- the answer fully answers the question (no part left unanswered);
- it does not admit missing information, guess, or hedge;
- it is grounded in the listed wiki sources and cites no invented files;
- it is useful to other readers beyond the person who asked.
If you are in doubt, say no.

Reply with ONLY one JSON object and nothing else:
{"archive": true or false, "reason": "<one short sentence>"}"""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A triage decision: ``reason`` is None when the answer may be archived."""

    reason: str | None
    detail: str = ""


class ModelVerdict(BaseModel):
    """The only shape a triage model's reply may have."""

    model_config = ConfigDict(extra="forbid")

    archive: StrictBool
    reason: str = Field(min_length=1, max_length=500)


def distinct_sources(sources: Sequence[str]) -> int:
    return len({s.strip() for s in sources if s.strip()})


def local_triage(question: str, answer: str, sources: Sequence[str]) -> Verdict:
    """The rule-based triage: gap, partial, sources, short, in that order."""
    del question  # the rules read the answer; the question matters to the model triage
    text = normalize_question(answer)
    for pattern in _GAP_RE:
        if match := pattern.search(text):
            return Verdict("triage:gap", f"admits a gap: '{match.group(0)}'")
    for pattern in _PARTIAL_RE:
        if match := pattern.search(text):
            return Verdict("triage:partial", f"answers in part: '{match.group(0)}'")
    count = distinct_sources(sources)
    if count < MIN_SOURCES:
        return Verdict("triage:sources", f"{count} distinct source(s), at least {MIN_SOURCES}")
    length = len(answer.strip())
    if length < MIN_CHARS:
        return Verdict("triage:short", f"{length} characters, at least {MIN_CHARS}")
    return Verdict(None, "local rules passed")


def _prompt(question: str, answer: str, sources: Sequence[str]) -> str:
    listed = "\n".join(f"- {s}" for s in dict.fromkeys(sources)) or "- (none)"
    return f"Question:\n{question}\n\nWiki sources used:\n{listed}\n\nAnswer:\n{answer}\n"


def parse_verdict(text: str) -> ModelVerdict | None:
    """The model's JSON verdict, or None when the reply is anything but that object."""
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1)
    try:
        return ModelVerdict.model_validate(json.loads(body))
    except (ValueError, ValidationError):
        return None


def model_triage(
    question: str, answer: str, sources: Sequence[str], generator: Generator
) -> Verdict:
    """Ask the model; a no, an unparseable reply or a failure is ``triage:model``."""
    try:
        generation = generator.generate(SYSTEM, _prompt(question, answer, sources), max_tokens=200)
    except BibliotecaError as exc:
        _log.warning("triage model failed, refusing: %s", exc.message)
        return Verdict("triage:model", f"the triage model failed: {exc.message}")
    verdict = parse_verdict(generation.text) if generation.finish == "stop" else None
    if verdict is None:
        return Verdict("triage:model", f"unparseable triage reply: {generation.text[:200]!r}")
    if not verdict.archive:
        return Verdict("triage:model", verdict.reason)
    return Verdict(None, verdict.reason)
