"""What a question asks for, from its words, in Spanish and English (``retrieval.intent``)."""

from __future__ import annotations

import pytest

from shared.retrieval.intent import intent, kind_fit


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("¿Cómo subo archivos en un endpoint?", "how-to"),
        ("How do I let my model accept keys that aren't declared?", "how-to"),
        ("deploy my astro site to github pages", "how-to"),
        ("¿Qué hace el parámetro `max_length`?", "parameter"),
        ("What does the option --root-path do?", "parameter"),
        ("¿Cuál es el valor por defecto de response_model_exclude_unset?", "parameter"),
        ("I get \"ModuleNotFoundError: No module named 'app'\" when starting", "error"),
        ("¿Por qué me sale el error 422 al enviar el formulario?", "error"),
        ("How do I migrate from Pydantic v1 to v2?", "migration"),
        ("¿Cómo actualizo de la versión 4 a la 5?", "migration"),
        ("¿Cómo actualizo un registro en la base de datos?", "how-to"),
        ("Actualizar de v4 a v5: ¿qué cambia?", "migration"),
        ("¿Qué es la inyección de dependencias?", "what-is"),
        ("What is a reactive attribute?", "what-is"),
        ("Diferencia entre def y async def", "what-is"),
        ("paella valenciana", "other"),
    ],
)
def test_the_intent_of_a_question_in_either_language(question: str, expected: str) -> None:
    """Each question reads as the intent a person asking it has."""
    assert intent(question) == expected


def test_a_how_to_prefers_the_guide_and_a_parameter_question_the_reference() -> None:
    """The two intents the issue names rank the guide and the reference the other way round."""
    assert kind_fit("how-to", "guide") > kind_fit("how-to", "reference")
    assert kind_fit("parameter", "reference") > kind_fit("parameter", "guide")
    assert kind_fit("migration", "changelog") == 1
    assert kind_fit("other", "guide") == 0
