"""The ``Answerer`` implementations: offline extractive, and a language model behind prompts.

Each answers whole (``answer``) or in pieces as written (``stream``), the same text both
ways: offline the composed answer is handed over sentence by sentence (composing takes
milliseconds; what a reader waits for is the model), a model's as it streams it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Literal

from shared.ports import Generator, StreamingGenerator
from shared.records import Confidence, Generation, Passage, TextStream
from shared.retrieval import extractive, prompts
from shared.retrieval.reading import FENCED_BLOCK
from shared.text.language import language

LOCAL_MODEL = "local-extractive"
_TUTOR_OFFLINE = {
    "es": "El modo tutor necesita un modelo de lenguaje, y este servicio funciona sin él "
    "(BIBLIOTECA_LLM=local). Pregunta en modo ayuda para recibir los fragmentos de la wiki "
    "que tratan el tema.",
    "en": "Tutor mode needs a language model, and this service runs without one "
    "(BIBLIOTECA_LLM=local). Ask in help mode to get the wiki passages on the subject.",
}
# How a model's refusal or cut-off reaches the reader: plainly, never as an error.
_FINISH_NOTES = {
    "es": {
        "blocked": "El modelo no respondió a esta pregunta por sus filtros de seguridad.",
        "safety": "El modelo interrumpió la respuesta por sus filtros de seguridad.",
        "recitation": "El modelo interrumpió la respuesta porque repetía un texto protegido.",
        "max_tokens": "(La respuesta se cortó por su longitud.)",
        "other": "El modelo no terminó la respuesta.",
    },
    "en": {
        "blocked": "The model declined to answer this question (safety filters).",
        "safety": "The model stopped its answer (safety filters).",
        "recitation": "The model stopped its answer because it was reciting protected text.",
        "max_tokens": "(The answer was cut short by its length limit.)",
        "other": "The model did not finish its answer.",
    },
}


class LocalAnswerer:
    """Offline: the most relevant sentences of the passages, cited; no model involved."""

    model = LOCAL_MODEL

    def answer(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> Generation:
        if mode == "tutor":
            return Generation(text=_TUTOR_OFFLINE[language(question)], model=self.model)
        text = extractive.compose(question, passages, confidence, unmentioned)
        return Generation(text=text, model=self.model)

    def stream(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> TextStream:
        generation = self.answer(
            question, passages, mode=mode, confidence=confidence, unmentioned=unmentioned
        )
        yield from sentence_pieces(generation.text)
        return generation


class ModelAnswerer:
    """A ``Generator`` given the ``help`` or ``tutor`` prompt; refusals become plain notes."""

    def __init__(self, generator: Generator, max_tokens: int = 1024) -> None:
        self._generator = generator
        self._max_tokens = max_tokens
        self.model = generator.name

    def answer(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> Generation:
        if mode == "help" and not passages:
            return Generation(text=extractive.NOTHING[language(question)], model=LOCAL_MODEL)
        system, prompt = self._prompt(question, passages, mode, confidence, unmentioned)
        generation = self._generator.generate(system, prompt, max_tokens=self._max_tokens)
        return _noted(generation, language(question))

    def stream(
        self,
        question: str,
        passages: Sequence[Passage],
        *,
        mode: Literal["help", "tutor"],
        confidence: Confidence = "high",
        unmentioned: Sequence[str] = (),
    ) -> TextStream:
        if mode == "help" and not passages:
            text = extractive.NOTHING[language(question)]
            yield text
            return Generation(text=text, model=LOCAL_MODEL)
        system, prompt = self._prompt(question, passages, mode, confidence, unmentioned)
        if isinstance(self._generator, StreamingGenerator):
            written = yield from self._generator.stream(system, prompt, max_tokens=self._max_tokens)
        else:  # a model that cannot stream answers in one piece
            written = self._generator.generate(system, prompt, max_tokens=self._max_tokens)
            yield written.text
        generation = _noted(written, language(question))
        if generation.text != written.text:  # the note on a refusal or a cut-off
            yield generation.text.removeprefix(written.text.rstrip())
        return generation

    @staticmethod
    def _prompt(
        question: str,
        passages: Sequence[Passage],
        mode: Literal["help", "tutor"],
        confidence: Confidence,
        unmentioned: Sequence[str] = (),
    ) -> tuple[str, str]:
        if mode == "tutor":
            return prompts.TUTOR_SYSTEM, prompts.tutor_prompt(question)
        return prompts.HELP_SYSTEM, prompts.help_prompt(question, passages, confidence, unmentioned)


def _noted(generation: Generation, lang: str) -> Generation:
    """A refusal or a cut-off answer with its plain note; a finished answer as it is."""
    if generation.finish == "stop" and generation.text.strip():
        return generation
    note = _FINISH_NOTES[lang].get(generation.finish, _FINISH_NOTES[lang]["other"])
    text = f"{generation.text.rstrip()}\n\n{note}" if generation.text.strip() else note
    return Generation(
        text=text, model=generation.model, finish=generation.finish, usage=generation.usage
    )


# A sentence ends at . ! ? … (and the citations right after it) followed by space, or at a
# line break; a fenced code block is one piece, never cut.
_SENTENCE_END = re.compile(r"[.!?…](?:\s*\[\d+(?:,\s*\d+)*\])*(?=\s)\s*|\n\s*")


def sentence_pieces(text: str) -> Iterator[str]:
    """``text`` in pieces of one sentence (or one code block) each; they join to ``text``."""
    at = 0
    for block in FENCED_BLOCK.finditer(text):
        yield from _sentences(text[at : block.start()])
        yield block.group()
        at = block.end()
    yield from _sentences(text[at:])


def _sentences(prose: str) -> Iterator[str]:
    start = 0
    for end in _SENTENCE_END.finditer(prose):
        if end.end() > start:
            yield prose[start : end.end()]
            start = end.end()
    if start < len(prose):
        yield prose[start:]
