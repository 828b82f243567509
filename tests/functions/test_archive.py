"""POST /archive per the contract, through the test client and a real server, on both stores."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from shared.services.archive import same_text
from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api

BODY = (
    "Para devolver un 201 declara `status_code=201` en el decorador de la operación, por "
    "ejemplo `@app.post('/items/', status_code=201)`. FastAPI usa ese código en la respuesta "
    "y lo documenta en el esquema OpenAPI, de modo que la documentación interactiva lo "
    "muestra. Si el código depende de la petición, declara un parámetro `response: Response` "
    "y asigna `response.status_code`. Las constantes de `fastapi.status`, como "
    "`status.HTTP_201_CREATED`, evitan números mágicos y ayudan al autocompletado. "
)


PROMOTED = (
    "Los índices de la base de datos aceleran las consultas que filtran por una columna, a "
    "cambio de escrituras algo más lentas y de espacio en disco; conviene medir antes de "
    "crear uno y revisar el plan de la consulta con la herramienta del motor. Un índice "
    "compuesto sirve a las consultas que filtran por su primera columna, y uno que nadie usa "
    "solo cuesta: el motor dice cuáles se leen y cuáles no. Antes de borrar uno, se comprueba "
    "durante una semana que ninguna consulta lo necesita. Referencia "
)


def unique() -> str:
    return uuid.uuid4().hex[:10]


def question() -> str:
    return f"¿Cómo devuelvo un 201 en el caso {unique()}?"


def answer(extra: str = "") -> str:
    return BODY + extra + f" Referencia interna {unique()}."


def sources() -> list[Any]:
    return [f"tutorial—status-{unique()}", {"slug": f"advanced—response-{unique()}"}]


def archive(api: Api, q: str, a: str, srcs: list[Any] | None = None, **extra: Any) -> Any:
    reply = api.post("archive", {"question": q, "answer": a, "sources": srcs or sources(), **extra})
    assert reply.status == 200, reply.text
    return reply.json


def test_a_good_answer_becomes_a_draft(api: Api) -> None:
    """Passing every gate creates a draft concept with wiki + query sources and provenance."""
    q, a, srcs = question(), answer(), sources()
    decision = archive(api, f"  {q} ", a, srcs, model="gemini:gemini-2.5-flash")

    assert decision["archived"] is True
    assert decision["reason"] == "archived"
    assert decision["slug"].startswith("concept—como-devuelvo-un-201")
    assert decision["grounding"] == {"checked": True, "cited": 0, "resolved": 0, "unresolved": []}
    page = api.store.pages.get(decision["slug"])
    fm = page.front_matter
    assert (fm["type"], fm["status"]) == ("concept", "draft")
    assert fm["title"] == q.strip().lstrip("¿").rstrip("?")
    assert fm["sources"] == [
        {"type": "wiki", "ref": srcs[0]},
        {"type": "wiki", "ref": srcs[1]["slug"]},
        {"type": "query", "ref": q},
    ]
    assert fm["generated"]["by"] == "gemini:gemini-2.5-flash"
    assert fm["generated"]["at"]
    assert page.content == a.strip()


def test_the_same_question_and_answer_again_is_a_duplicate(api: Api) -> None:
    """Same question and answer (trimmed, spaces collapsed, case-folded): duplicate, one page."""
    q, a = question(), answer()
    first = archive(api, q, a)
    again = archive(api, "  " + q.upper().replace(" ", "   "), "\n" + a.lower() + "  ")
    assert first["archived"] is True
    assert again == {
        "archived": False,
        "reason": "duplicate",
        "slug": first["slug"],
        "grounding": again["grounding"],
    }
    drafts = [
        p for p in api.store.pages.list(status="draft") if same_text(p.content) == same_text(a)
    ]
    assert len(drafts) == 1


def test_another_answer_to_the_same_question_is_its_own_draft(api: Api) -> None:
    """Duplicate means same question AND answer: a different answer gets its own draft,
    whose slug carries the same question hash (then the answer's), both within 60
    characters."""
    q = question()
    first = archive(api, q, answer())
    second = archive(api, q, answer(" Otra variante."))
    assert second["archived"] is True
    assert second["slug"] != first["slug"]
    question_hash = first["slug"].rsplit("-", 1)[1]
    assert second["slug"].rsplit("-", 2)[1] == question_hash
    assert max(len(first["slug"]), len(second["slug"])) <= 60


def test_concurrent_duplicates_make_one_page(api: Api) -> None:
    """Four identical requests at once: one archives, the others are duplicates of it."""
    q, a, srcs = question(), answer(), sources()
    archive(api, "¿Existe una página sobre esto?", a)  # builds the route's client first
    results: list[Any] = []

    def post() -> None:
        results.append(api.post("archive", {"question": q, "answer": a, "sources": srcs}))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    decisions = [r.json for r in results]
    assert all(r.status == 200 for r in results), [r.text for r in results]
    assert sorted(d["reason"] for d in decisions) == ["archived"] + ["duplicate"] * 3
    assert len({d["slug"] for d in decisions}) == 1


def test_a_question_rejected_by_a_curator_is_not_proposed_again(api: Api) -> None:
    """After the curator archives the draft, the question gives rejected-before."""
    q = question()
    first = archive(api, q, answer())
    rejected = api.post(
        "wiki_update", {"slug": first["slug"], "update_metadata": {"status": "archived"}}
    )
    assert rejected.status == 200, rejected.text
    again = archive(api, q, answer(" Con otras palabras."))
    assert (again["archived"], again["reason"], again["slug"]) == (
        False,
        "rejected-before",
        first["slug"],
    )


def test_promotion_is_wiki_update_with_status_active(api: Api) -> None:
    """The curator promotes a draft with wiki_update status active; it is then active."""
    # Its own text: an active copy of BODY in the server's shared store would send the
    # other tests' answers through the door (duplicate-of) instead of the draft path.
    first = archive(api, question(), PROMOTED + unique())
    promoted = api.post(
        "wiki_update", {"slug": first["slug"], "update_metadata": {"status": "active"}}
    )
    assert promoted.status == 200, promoted.text
    assert promoted.json["page"]["status"] == "active"
    assert promoted.json["version"] == 2


def test_meta_questions_are_refused_before_any_other_gate(api: Api) -> None:
    """A question about whether pages exist: pre-filter:meta-question, no grounding ran."""
    decision = archive(api, "¿Existe una página sobre autenticación?", answer())
    assert decision == {"archived": False, "reason": "pre-filter:meta-question"}


def test_invented_code_paths_are_refused(api: Api) -> None:
    """Fewer than half of the cited paths in the index: grounding:unresolved_code_refs."""
    tag = unique()
    real = [f"svc{tag}/api/handlers/wiki.py", f"svc{tag}/api/models.py"]
    assert api.post("index_code", {"repo": f"r{tag}", "paths": real}).status == 200

    invented = archive(
        api,
        question(),
        answer(f"Ver `handlers/wiki.py`, `signage{tag}/services/deployment.py` y `x{tag}/y.py`."),
    )
    assert invented["archived"] is False
    assert invented["reason"] == "grounding:unresolved_code_refs"
    assert invented["grounding"] == {
        "checked": True,
        "cited": 3,
        "resolved": 1,
        "unresolved": [f"signage{tag}/services/deployment.py", f"x{tag}/y.py"],
    }
    grounded = archive(
        api,
        question(),
        answer(f"Ver handlers/wiki.py:40, ./api/models.py y andlers{tag}/wiki.py."),
    )
    assert grounded["archived"] is True
    assert (grounded["grounding"]["cited"], grounded["grounding"]["resolved"]) == (3, 2)


def test_every_attempt_is_an_outcome_record(api: Api) -> None:
    """Each decision leaves an archive_outcome event with its reason and timings."""
    q = question()
    archive(api, q, answer())
    archive(api, q, "corto")
    mine = [e for e in api.store.events.recent("archive_outcome", 500) if e["question"] == q]
    assert sorted(e["reason"] for e in mine) == ["archived", "triage:short"]
    assert all(e["origin"] == "archive" for e in mine)
    assert all(e["timings"]["total_ms"] >= 0 for e in mine)
    assert "grounding_ms" in mine[0]["timings"]


def test_malformed_input_is_an_error_at_the_field(api: Api) -> None:
    """A bad field is a 400, a too large answer a 413, each naming the field (every other
    field, and the local triage's refusals: tests/service)."""
    missing = api.post("archive", {"answer": "a"})
    assert_error(missing, 400, "validation_error", "question")
    huge = api.post("archive", {"question": "q", "answer": "a" * (512 * 1024 + 1)})
    assert_error(huge, 413, "payload_too_large", "answer")


def test_archive_needs_credentials(api: Api) -> None:
    """A write endpoint: 401 without the token, 405 for GET, 415 for non-JSON."""
    assert api.post("archive", {"question": "q", "answer": "a"}, token=None).status == 401
    assert api.post("archive", method="GET").status == 405
    assert api.post("archive", data="{}", content_type="text/plain").status == 415


def test_an_empty_index_passes_unchecked_and_warns(
    store_env: str, client: Any, auth: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """With nothing indexed, cited paths are not checked: checked false, a WARNING says why."""
    del store_env  # a fresh store of each backend: its code index is empty
    text = answer(" Ver `signage/services/deployment.py` y `x/y.py`.")
    with caplog.at_level("WARNING", logger="biblioteca"):
        reply = client("archive").post(
            "/", json={"question": question(), "answer": text, "sources": sources()}, headers=auth
        )
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.json["archived"] is True
    assert reply.json["grounding"] == {
        "checked": False,
        "cited": 2,
        "resolved": 0,
        "unresolved": [],
    }
    assert any(
        "code index is empty" in r.getMessage() for r in caplog.records if r.levelname == "WARNING"
    )
