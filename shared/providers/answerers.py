"""The ``Answerer`` implementations: offline extractive, and a language model behind prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from shared.ports import Confidence, Generation, Generator, Passage
from shared.retrieval import extractive, prompts
from shared.retrieval.text import language

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
        lang = language(question)
        if mode == "help" and not passages:
            return Generation(text=extractive.NOTHING[lang], model=LOCAL_MODEL)
        if mode == "tutor":
            system, prompt = prompts.TUTOR_SYSTEM, prompts.tutor_prompt(question)
        else:
            system = prompts.HELP_SYSTEM
            prompt = prompts.help_prompt(question, passages, confidence, unmentioned)
        generation = self._generator.generate(system, prompt, max_tokens=self._max_tokens)
        if generation.finish == "stop" and generation.text.strip():
            return generation
        note = _FINISH_NOTES[lang].get(generation.finish, _FINISH_NOTES[lang]["other"])
        text = f"{generation.text.rstrip()}\n\n{note}" if generation.text.strip() else note
        return Generation(
            text=text, model=generation.model, finish=generation.finish, usage=generation.usage
        )
