"""ask with archive: true runs the archive gates end to end, by both routes, on both stores."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from shared.bootstrap import reset, reset_limits
from shared.config import get_settings
from tests.fixtures.server import Api
from tests.functions.test_ask import PAGES as BACKGROUND


def pool_pages(var: str) -> list[dict[str, Any]]:
    """Two pages about one (unique) setting, so an answer can draw on both, and three others.

    The others matter: in a two-page wiki the ranking has no background to score against
    and sometimes keeps no source at all (3 of 8 fresh stores in a trial).
    """
    others = [{**p, "slug": f"{p['slug']}-{var.lower()}"} for p in BACKGROUND]
    return [
        *others,
        {
            "slug": f"runbook—conexiones-{var.lower()}",
            "content": f"# Pool de conexiones\n\n## Ajustes\n\nLa variable `{var}` fija cuántas "
            "conexiones abiertas mantiene el servicio con la base de datos. El valor por "
            "defecto es 10. Cada worker de Gunicorn abre su propio pool, así que el total de "
            f"conexiones es `{var}` por el número de workers. Si el total supera "
            "`max_connections` de Postgres, las peticiones fallan.",
            "front_matter": {"title": f"Pool de conexiones {var}", "type": "runbook"},
        },
        {
            "slug": f"decision—tamano-{var.lower()}",
            "content": f"# Tamaño del pool\n\nDecidimos fijar `{var}` a 20 en producción después "
            "del incidente de marzo, cuando los workers agotaron las conexiones de Postgres. "
            f"La regla es que `{var}` multiplicado por los workers quede por debajo del 80 % "
            f"de `max_connections`. Cualquier cambio de `{var}` se revisa con el equipo de "
            "datos antes del despliegue.",
            "front_matter": {"title": f"Tamaño del pool {var}", "type": "decision"},
        },
    ]


def setting_name(request: pytest.FixtureRequest) -> str:
    """A setting name unique to the test (the server route's store is shared) and the same
    on every run: the answer's sources depend on how the embedder reads the name, and a
    random one let about 1 run in 100 cite a single page (fewer than triage asks for)."""
    return f"POOL_{hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:8].upper()}"


def good_question(var: str) -> str:
    """A question both pages answer in part: the offline answer quotes one and adds the
    other, long enough for triage (a quote of a single page is not a new page's worth).
    It names Gunicorn, which only the runbook says, so the runbook leads clearly (the
    second page's relevance is ~0.78 of its, under the toss-up margin that hedges an
    answer, evidence.LEAD_MARGIN; without it the two pages came within 0.89–0.92)."""
    return (
        f"¿Cuántas conexiones abre cada worker de Gunicorn con {var} y a qué valor se fijó "
        "en producción tras el incidente?"
    )


@pytest.fixture
def var(api: Api, request: pytest.FixtureRequest) -> str:
    """A unique setting name, with its two pages written through wiki_create."""
    reset_limits()
    name = setting_name(request)
    for page in pool_pages(name):
        reply = api.post("wiki_create", page)
        assert reply.status == 201, reply.text
    return name


def test_a_good_answer_is_archived_as_a_draft(api: Api, var: str) -> None:
    """The answer becomes a draft with the answer's sources, the question and the model."""
    question = good_question(var)
    reply = api.post("ask", {"question": question, "archive": True})
    assert reply.status == 200, reply.text
    body = reply.json
    assert body["archive"]["attempted"] is True
    assert body["archive"]["reason"] == "archived", body
    assert body["grounding"] == {"checked": True, "cited": 0, "resolved": 0, "unresolved": []}

    draft = api.store.pages.get(body["archive"]["slug"])
    fm = draft.front_matter
    assert (fm["status"], fm["type"]) == ("draft", "concept")
    assert draft.content == body["answer"].strip()
    assert fm["generated"]["by"] == body["model"]
    slugs = list(dict.fromkeys(s["slug"] for s in body["sources"]))
    assert fm["sources"] == [{"type": "wiki", "ref": s} for s in slugs] + [
        {"type": "query", "ref": question}
    ]
    outcomes = [
        e for e in api.store.events.recent("archive_outcome", 500) if e["question"] == question
    ]
    assert [(e["origin"], e["reason"]) for e in outcomes] == [("ask", "archived")]

    again = api.post("ask", {"question": question, "archive": True}).json
    assert again["archive"] == {
        "attempted": True,
        "archived": False,
        "reason": "duplicate",
        "slug": body["archive"]["slug"],
    }


def test_a_meta_question_is_refused_and_still_grounded(api: Api, var: str) -> None:
    """The pre-filter refuses before grounding; ask still reports grounding itself."""
    body = api.post("ask", {"question": f"¿Existe una página sobre {var}?", "archive": True}).json
    assert body["archive"] == {
        "attempted": True,
        "archived": False,
        "reason": "pre-filter:meta-question",
    }
    assert body["grounding"]["checked"] is True


def test_the_widget_may_archive_when_allowed(
    store_env: str,
    client: Any,
    auth: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """BIBLIOTECA_ARCHIVE_FROM_WIDGET=1 lets an anonymous ask go through the gates."""
    reset_limits()
    monkeypatch.setenv("BIBLIOTECA_ARCHIVE_FROM_WIDGET", "1")
    get_settings.cache_clear()
    reset()
    name = setting_name(request)
    for page in pool_pages(name):
        assert client("wiki_create").post("/", json=page, headers=auth).status_code == 201
    body = (
        client("ask").post("/", json={"question": good_question(name), "archive": True}).get_json()
    )
    assert body["archive"]["attempted"] is True
    assert body["archive"]["reason"] == "archived"
