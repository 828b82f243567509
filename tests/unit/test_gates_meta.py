"""Gate 0, the meta-question pre-filter: a labelled set, its precision and recall.

Run ``python -m tests.unit.test_gates_meta`` to print the confusion matrix.
"""

from __future__ import annotations

import pytest

from shared.gates.meta import REASON, check_meta, is_meta_question, normalize_question

# (question, is_meta). Real questions include the hard negatives: they mention
# pages, docs, limits or "existe/hay/is there" without asking whether docs exist.
LABELLED: tuple[tuple[str, bool], ...] = (
    # -- meta, Spanish
    ("¿Existe una página sobre autenticación?", True),
    ("¿Hay documentación de Docker?", True),
    ("¿Qué slugs existen sobre seguridad?", True),
    ("existe una pagina sobre middlewares", True),
    ("¿HAY DOCUMENTACIÓN SOBRE CORS?", True),
    ("¿Tenemos alguna página acerca de las dependencias?", True),
    ("¿Hay alguna página en la wiki sobre WebSockets?", True),
    ("¿Hay algo en la wiki sobre testing?", True),
    ("¿Qué páginas hablan de OAuth2?", True),
    ("¿En qué página se explica el despliegue con Docker?", True),
    ("¿Está documentado cómo configurar HTTPS?", True),
    ("¿Dónde está documentado el manejo de errores?", True),
    ("¿Existen documentos sobre bases de datos SQL?", True),
    ("¿Hay alguna guía para desplegar en la nube?", True),
    ("¿Hay docs sobre Pydantic v2?", True),
    ("¿La wiki tiene una página sobre tareas en segundo plano?", True),
    ("¿Cuáles son las páginas sobre seguridad?", True),
    ("Hay documentacion de los eventos de inicio", True),
    ("¿Existe documentación?", True),
    ("¿Cuántas páginas hay en la wiki?", True),
    # -- meta, English
    ("Is there a page about dependency injection?", True),
    ("Do we have docs on background tasks?", True),
    ("Is there any documentation for WebSockets?", True),
    ("are there pages about security", True),
    ("Which pages cover OAuth2 scopes?", True),
    ("What slugs exist for testing?", True),
    ("Does the wiki have anything about CORS?", True),
    ("Is there anything in the wiki about middleware?", True),
    ("Where is error handling documented?", True),
    ("Do you have a guide on deploying with Docker?", True),
    ("IS THERE A DOC ABOUT SQL DATABASES?", True),
    ("List all pages about authentication", True),
    ("Is there an article covering response models?", True),
    ("Is CORS documented anywhere?", True),
    # -- real questions, Spanish
    ("¿Existe un límite de tamaño para los archivos?", False),
    ("¿Hay alguna forma de devolver un 201?", False),
    ("¿Cómo creo una página de error personalizada para el 404?", False),
    ("¿Hay una página de error por defecto para las excepciones HTTP?", False),
    ("¿Qué dice la documentación sobre CORS?", False),
    ("¿Cómo se documenta un endpoint con OpenAPI?", False),
    ("¿Existe alguna diferencia entre Path y Query?", False),
    ("¿Hay que instalar uvicorn por separado?", False),
    ("¿Cómo genero la documentación automática de mi API?", False),
    ("¿Cómo añado ejemplos a la documentación de OpenAPI?", False),
    ("¿Cuántos workers debo usar con Gunicorn?", False),
    ("¿Existen dependencias con yield?", False),
    ("¿Hay soporte para WebSockets?", False),
    ("¿Cómo pagino los resultados de una lista de items?", False),
    ("¿Puedo servir páginas HTML con Jinja2?", False),
    ("¿Tiene FastAPI soporte para GraphQL?", False),
    ("¿Cómo se desactiva la documentación en producción?", False),
    ("¿Cuántas páginas devuelve el endpoint si uso limit=10?", False),
    # -- real questions, English
    ("Is there a way to return a 201 status code?", False),
    ("Is there a limit on the request body size?", False),
    ("Is there a page size parameter for pagination?", False),
    ("How do I disable the docs page in production?", False),
    ("What does the documentation say about background tasks?", False),
    ("Are there any performance differences between async and sync endpoints?", False),
    ("How do I add a description to the OpenAPI docs?", False),
    ("Do I have to use Pydantic models for request bodies?", False),
    ("Does FastAPI support HTTP/2?", False),
    ("Can I render HTML pages with templates?", False),
    ("What docs does FastAPI generate for my API?", False),
    ("Is the response model documented in the OpenAPI schema?", False),
    # -- written after the filter, as a held-out check: before the filter learned them it
    # caught 3 of these 8 meta questions (no false positive among the 8 real ones).
    ("¿Tenemos algo documentado sobre Celery?", True),
    ("Could you tell me if there's a page on rate limiting?", True),
    ("Do docs exist for the settings module?", True),
    ("¿Alguien ha escrito una página sobre GraphQL?", True),
    ("Has anyone written a page about caching?", True),
    ("Is there a wiki entry for deployment?", True),
    ("¿Me puedes decir si hay una página sobre logging?", True),
    ("¿Hay artículos acerca de testing asíncrono?", True),
    ("¿Hay diferencia entre async def y def?", False),
    ("Is there a built-in way to handle file uploads?", False),
    ("¿Existe una forma de documentar respuestas adicionales?", False),
    ("What happens if there is no documentation string in the endpoint?", False),
    ("How do I write docs for my endpoints?", False),
    ("¿Cómo escribo la documentación de un parámetro?", False),
    ("I wrote a page for the login form, how do I serve it?", False),
    ("¿Cómo creo una página para el login?", False),
)

# Genuinely ambiguous in this domain (FastAPI generates API docs): kept out of the
# measured set; the filter's choice is pinned so a change is deliberate.
AMBIGUOUS: tuple[tuple[str, bool], ...] = (
    ("¿Hay documentación de la API automática?", True),
    ("¿Dónde está la documentación de la API?", False),
)


def confusion() -> dict[str, int]:
    """True/false positives/negatives of the filter on ``LABELLED``."""
    counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
    for question, meta in LABELLED:
        predicted = is_meta_question(question)
        key = ("t" if predicted == meta else "f") + ("p" if predicted else "n")
        counts[key] += 1
    return counts


def precision_recall() -> tuple[float, float]:
    c = confusion()
    return c["tp"] / (c["tp"] + c["fp"]), c["tp"] / (c["tp"] + c["fn"])


def test_the_set_is_large_and_balanced() -> None:
    """The labelled set has at least 40 questions, both classes, both languages."""
    meta = sum(1 for _, m in LABELLED if m)
    assert len(LABELLED) >= 40
    assert 15 <= meta <= len(LABELLED) - 15


def test_precision_and_recall_on_the_labelled_set() -> None:
    """The filter's precision and recall on the set stay at or above 0.95."""
    precision, recall = precision_recall()
    print(f"meta filter: precision={precision:.3f} recall={recall:.3f} {confusion()}")
    assert precision >= 0.95
    assert recall >= 0.95


@pytest.mark.parametrize(("question", "meta"), LABELLED + AMBIGUOUS)
def test_each_labelled_question(question: str, meta: bool) -> None:
    """Each labelled question is classified as labelled (so a regression names it)."""
    assert is_meta_question(question) is meta


def test_the_contract_examples_are_refused_with_the_reason() -> None:
    """The contract's own examples give ``pre-filter:meta-question``."""
    for question in (
        "¿existe una página sobre X?",
        "¿hay documentación de Y?",
        "¿qué slugs existen sobre Z?",
        "is there a page about X?",
        "do we have docs on Y?",
    ):
        assert check_meta(question) == REASON


def test_the_contract_counterexamples_pass() -> None:
    """The contract's two real questions are not meta-questions."""
    assert check_meta("¿Existe un límite de tamaño para los archivos?") is None
    assert check_meta("¿Hay alguna forma de devolver un 201?") is None


def test_accents_marks_and_capitals_are_optional() -> None:
    """Folding makes every spelling of one question equal."""
    spellings = [
        "¿Existe una página sobre Índices?",
        "existe una pagina sobre indices",
        "EXISTE UNA PÁGINA SOBRE ÍNDICES",
    ]
    assert {normalize_question(s) for s in spellings} == {"existe una pagina sobre indices"}
    assert all(is_meta_question(s) for s in spellings)


# -- issue 20: meta-questions by their form (a kind of document a team writes: runbook,
# tutorial, README, FAQ…; "¿dónde está la página de…", "¿tenemos…", "do we have anything
# on…"), each form beside a real question of the same shape.
FORMS: tuple[tuple[str, bool], ...] = (
    ("¿Tenemos un runbook para rotar certificados?", True),
    ("¿Tenemos página de onboarding?", True),
    ("¿Dónde está la página de despliegue?", True),
    ("¿Dónde está la guía de estilo?", True),
    ("¿Dónde encuentro el runbook de incidentes?", True),
    ("do we have a doc on retries?", True),
    ("is there any runbook for failover", True),
    ("Is there a tutorial for the CLI?", True),
    ("where can I find the runbook for database restores?", True),
    ("Where's the page on feature flags?", True),
    ("¿Tenemos algo sobre Kafka?", True),
    ("do we have anything on caching?", True),
    ("¿Hay un README del servicio de pagos?", True),
    ("Is there an FAQ about billing?", True),
    ("¿Existe un límite de tamaño?", False),
    ("¿Tenemos un límite de peticiones por minuto?", False),
    ("¿Dónde está la configuración del pool?", False),
    ("Where is the config file loaded from?", False),
    ("Is there any way to retry failed jobs?", False),
    ("do we have a rate limit on ask?", False),
    ("¿Tenemos que reiniciar el servicio tras cambiar la variable?", False),
    ("Where are the logs written?", False),
)
# Written after FORMS and before the filter was run on them; all were right at the first
# run. New phrasings belong here only if written the same way.
HELD_OUT: tuple[tuple[str, bool], ...] = (
    ("¿Tenemos una guía de migración a la versión 3?", True),
    ("¿Dónde está el manual del operador?", True),
    ("tenemos algun runbook de caidas de la base de datos", True),
    ("¿Dónde puedo encontrar la página sobre permisos?", True),
    ("¿Hay algún tutorial de la API de pagos?", True),
    ("Do we have a runbook for expired certificates?", True),
    ("is there any how-to on rotating keys", True),
    ("Where can I find the guide to onboarding?", True),
    ("Do you have anything written about the release process?", True),
    ("where's the faq for new hires", True),
    ("¿Tenemos que usar HTTPS en local?", False),
    ("¿Dónde está el límite de memoria configurado?", False),
    ("¿Hay algún modo de reintentar una tarea?", False),
    ("Do we have to restart after a deploy?", False),
    ("Is there any downside to using async everywhere?", False),
    ("Where is the cache stored on disk?", False),
    ("¿Existe un tiempo máximo por petición?", False),
    ("How do I write a runbook for the on-call team?", False),
)


@pytest.mark.parametrize(("question", "meta"), FORMS + HELD_OUT)
def test_meta_questions_are_recognised_by_their_form(question: str, meta: bool) -> None:
    """A question about whether a document exists is meta in any phrasing; one of the same
    shape asking for knowledge ("¿existe un límite…?", "do we have to…") is not."""
    assert is_meta_question(question) is meta


if __name__ == "__main__":
    p, r = precision_recall()
    print(f"{len(LABELLED)} questions: precision {p:.3f}, recall {r:.3f}, {confusion()}")
    for q, m in LABELLED:
        if is_meta_question(q) != m:
            print(f"  wrong: {q!r} labelled {m}")
