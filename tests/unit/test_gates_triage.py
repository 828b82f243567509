"""Gate 2, triage: the local rules in their order, and the model's strict JSON verdict."""

from __future__ import annotations

import pytest

from shared.errors import UpstreamError
from shared.gates.triage import local_triage, model_triage, parse_verdict
from shared.records import Generation

GOOD = (
    "Para devolver un 201 declara `status_code=201` en el decorador de la operación, "
    "por ejemplo `@app.post('/items/', status_code=201)`. FastAPI usará ese código en la "
    "respuesta y lo documentará en el esquema OpenAPI, de modo que la documentación "
    "interactiva lo muestre. Si necesitas decidir el código en tiempo de ejecución, "
    "declara un parámetro `response: Response` y asigna `response.status_code`. También "
    "puedes usar las constantes de `fastapi.status`, como `status.HTTP_201_CREATED`, que "
    "evitan números mágicos y ayudan al autocompletado del editor. Las actualizaciones "
    "parciales con PATCH siguen las mismas reglas. Si no se especifica un código, "
    "FastAPI usa 200 por defecto."
)
SOURCES = ["tutorial—response-status-code", "advanced—response-change-status-code"]


def test_a_complete_answer_passes() -> None:
    """A long, sourced answer without admissions passes the local rules."""
    assert len(GOOD) >= 500
    assert local_triage("¿Cómo devuelvo un 201?", GOOD, SOURCES).reason is None


@pytest.mark.parametrize(
    "admission",
    [
        "No encontré información sobre esto en la wiki.",
        "No hay información suficiente para responder.",
        "No se menciona en los documentos.",
        "Los documentos no lo mencionan.",
        "No está documentado.",
        "No puedo responder con lo que tengo.",
        "I couldn't find anything about it.",
        "This is not mentioned in the sources.",
        "The context does not explain how to do it.",
        "There is no information about it.",
        "I don't know.",
        "La wiki no parece tratar esto directamente; lo más cercano:",
        "The wiki does not seem to cover this directly; the closest it has:",
    ],
)
def test_admitted_gaps_are_refused(admission: str) -> None:
    """An answer that admits a gap, anywhere in it, is ``triage:gap``."""
    verdict = local_triage("q", GOOD + " " + admission, SOURCES)
    assert verdict.reason == "triage:gap"


@pytest.mark.parametrize(
    "admission",
    [
        "Solo puedo responder parcialmente.",
        "Solo puedo responder a una parte: la otra parte de la pregunta queda abierta.",
        "This only partially answers it.",
        "I cannot answer the rest of your question.",
    ],
)
def test_partial_answers_are_refused(admission: str) -> None:
    """An answer that says it leaves part of the question open is ``triage:partial``."""
    assert local_triage("q", GOOD + " " + admission, SOURCES).reason == "triage:partial"


def test_topic_words_are_not_admissions() -> None:
    """'actualizaciones parciales' or 'si no se especifica' are prose, not gaps."""
    assert "parciales" in GOOD
    assert "no se especifica" in GOOD
    assert local_triage("q", GOOD, SOURCES).reason is None


def test_fewer_than_two_distinct_sources_are_refused() -> None:
    """One source, even repeated, is ``triage:sources``."""
    verdict = local_triage("q", GOOD, [SOURCES[0], SOURCES[0], " "])
    assert verdict.reason == "triage:sources"


def test_short_answers_are_refused() -> None:
    """Under 500 characters (trimmed) is ``triage:short``."""
    assert local_triage("q", "x" * 499 + "   ", SOURCES).reason == "triage:short"
    assert local_triage("q", "x" * 500, SOURCES).reason is None


def test_the_rules_apply_in_the_contracts_order() -> None:
    """A short, unsourced answer admitting a gap is refused for the gap first."""
    assert local_triage("q", "No encontré nada.", []).reason == "triage:gap"
    assert local_triage("q", "Corto.", []).reason == "triage:sources"


class Scripted:
    """A ``Generator`` that replies with fixed text (the port, not a model)."""

    name = "scripted"

    def __init__(self, text: str, finish: str = "stop", fail: bool = False) -> None:
        self.text, self.finish, self.fail = text, finish, fail
        self.prompts: list[str] = []

    def generate(self, system: str, prompt: str, *, max_tokens: int = 1024) -> Generation:
        self.prompts.append(prompt)
        if self.fail:
            raise UpstreamError("the model answered nonsense")
        return Generation(text=self.text, model=self.name, finish=self.finish)


def test_the_model_says_yes() -> None:
    """A strict JSON yes archives; the prompt carries question, sources and answer."""
    generator = Scripted('{"archive": true, "reason": "complete and grounded"}')
    verdict = model_triage("¿Cómo devuelvo un 201?", GOOD, SOURCES, generator)
    assert verdict.reason is None
    assert "¿Cómo devuelvo un 201?" in generator.prompts[0]
    assert SOURCES[1] in generator.prompts[0]


@pytest.mark.parametrize(
    ("reply", "finish"),
    [
        ('{"archive": false, "reason": "leaves the second part open"}', "stop"),
        ("Sí, archívala.", "stop"),
        ('{"archive": "yes", "reason": "x"}', "stop"),
        ('{"archive": true}', "stop"),
        ('{"archive": true, "reason": "ok", "extra": 1}', "stop"),
        ('{"archive": true, "reason": "ok"', "stop"),
        ('{"archive": true, "reason": "ok"}', "max_tokens"),
        ("", "safety"),
    ],
)
def test_anything_but_a_clean_yes_is_no(reply: str, finish: str) -> None:
    """A no, non-JSON, a wrong type, a missing or extra field, or a cut reply is a no."""
    verdict = model_triage("q", GOOD, SOURCES, Scripted(reply, finish))
    assert verdict.reason == "triage:model"


def test_a_failing_model_means_no() -> None:
    """A provider error is doubt, and doubt means no (not a 502)."""
    assert model_triage("q", GOOD, SOURCES, Scripted("", fail=True)).reason == "triage:model"


def test_a_fenced_json_reply_is_read() -> None:
    """Models often fence JSON in ```json; the fence is tolerated, nothing else."""
    verdict = parse_verdict('```json\n{"archive": true, "reason": "ok"}\n```')
    assert verdict is not None
    assert verdict.archive is True
    assert parse_verdict('Here: {"archive": true, "reason": "ok"}') is None
