"""POST /ask on both stores, through functions-framework's test client and through a real
``biblioteca serve`` process over HTTP (``open_api``: four runs of each contract point)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from shared.bootstrap import open_store, reset_limits
from shared.config import get_settings
from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api, Reply

OpenApi = Callable[[], Api]

PAGES = [
    {
        "slug": "runbook—pool",
        "content": "# Pool de conexiones\n\n## Ajustes\n\nLa variable `DB_POOL_SIZE` fija cuántas "
        "conexiones abiertas mantiene el servicio con la base de datos. El valor por defecto "
        "es 10 y conviene subirlo cuando hay muchos workers.",
        "front_matter": {
            "title": "Pool de conexiones",
            "type": "runbook",
            "category": "datos",
            "tags": ["postgres"],
        },
    },
    {
        "slug": "decision—cache",
        "content": "# Invalidación de caché\n\nEl comando `cache:invalidate` borra las entradas "
        "de la caché de páginas tras un despliegue. Decidimos ejecutarlo siempre al final del "
        "pipeline para que nadie vea contenido viejo.",
        "front_matter": {"title": "Invalidación de caché", "type": "decision", "tags": ["deploy"]},
    },
    {
        "slug": "guide—vacaciones",
        "content": "# Vacaciones\n\nPara pedir vacaciones se rellena el formulario de recursos "
        "humanos con dos semanas de antelación y lo aprueba el responsable del equipo.",
        "front_matter": {"title": "Vacaciones", "type": "guide", "category": "personas"},
    },
]


@pytest.fixture(autouse=True)
def fresh_limits() -> Iterator[None]:
    """Each test starts with empty rate-limit windows (they are per process)."""
    reset_limits()
    yield
    reset_limits()


@pytest.fixture
def wiki(store_env: str, open_api: OpenApi) -> Api:
    """The three pages above, written through wiki_create on the test's backend."""
    api = open_api()
    for page in PAGES:
        reply = api.post("wiki_create", page)
        assert reply.status == 201, reply.text
    return api


def ask(api: Api, body: Any, **headers: str) -> Reply:
    """An anonymous question (the widget's call); ``Authorization`` may come in ``headers``."""
    return api.post("ask", body, token=None, headers=headers)


def test_answer_has_every_field_and_cites_the_page(wiki: Api) -> None:
    """An identifier question finds its page first; the response has the contract's fields."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?"})
    assert reply.status == 200, reply.text
    body = reply.json
    assert reply.headers["Content-Type"].startswith("application/json")
    assert body["sources"][0]["slug"] == "runbook—pool"
    assert set(body["sources"][0]) == {
        "slug",
        "title",
        "heading",
        "score",
        "snippet",
        "freshness",
        "url",
        "kind",
    }
    assert body["sources"][0]["title"] == "Pool de conexiones"
    assert "DB_POOL_SIZE" in body["answer"]
    assert "[1]" in body["answer"]
    assert body["model"] == "local-extractive"
    assert body["mode"] == "help"
    assert body["chunks_used"] == len(body["sources"])
    assert body["archive"] == {"attempted": False, "reason": "not-requested"}
    assert set(body["timings"]) == {"embed_ms", "search_ms", "generate_ms"}
    assert isinstance(body["duration_ms"], int | float)
    scores = [s["score"] for s in body["sources"]]
    assert scores == sorted(scores, reverse=True)


def test_english_question_over_spanish_page(wiki: Api) -> None:
    """An English question finds the Spanish page and is framed in English, saying the
    passages are Spanish (no word of the question is on the page: the evidence is weak)."""
    body = ask(wiki, {"question": "How do I request vacation days?"}).json
    assert body["sources"][0]["slug"] == "guide—vacaciones"
    opening = body["answer"].split("\n")[0]
    assert opening.startswith(("From the wiki", "The wiki does not seem to cover this"))
    assert "in Spanish" in opening


def test_colon_identifier_is_found_exactly(wiki: Api) -> None:
    """``cache:invalidate`` is one token: its page comes first."""
    body = ask(wiki, {"question": "cache:invalidate"}).json
    assert body["sources"][0]["slug"] == "decision—cache"


FILTERS = [
    ({"source_type": "decision"}, "decision—cache"),
    ({"category": "datos"}, "runbook—pool"),
    ({"tag": "deploy"}, "decision—cache"),
    ({"source_type": "runbook", "tag": "postgres"}, "runbook—pool"),
]


def test_filters_keep_only_matching_pages(wiki: Api) -> None:
    """source_type (page type), category and tag restrict the sources to matching pages."""
    questions = {
        "runbook—pool": "¿Qué controla DB_POOL_SIZE?",
        "decision—cache": "¿Cuándo se ejecuta cache:invalidate?",
        "guide—vacaciones": "¿Cómo pido vacaciones?",
    }
    for filters, allowed in FILTERS:
        for slug, question in questions.items():
            body = ask(wiki, {"question": question, **filters}).json
            found = {s["slug"] for s in body["sources"]}
            assert found <= {allowed}, (filters, question)
            if slug == allowed:
                assert found == {allowed}, (filters, question)


def test_unknown_filter_value_matches_nothing(wiki: Api) -> None:
    """An unknown tag is not an error: no sources, and the answer says nothing was found."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "tag": "no-such-tag"})
    assert reply.status == 200
    body = reply.json
    assert body["sources"] == []
    assert body["chunks_used"] == 0
    assert "No encontré" in body["answer"]


def test_limit_caps_the_sources(wiki: Api) -> None:
    """limit=1 gives at most one source."""
    body = ask(wiki, {"question": "DB_POOL_SIZE cache:invalidate", "limit": 1}).json
    assert len(body["sources"]) == 1


def test_only_active_pages_are_retrieved(wiki: Api) -> None:
    """A draft is invisible; promoted, it is found at once (caches see the write)."""
    draft = {
        "slug": "concept—borrador",
        "content": "# Zeppelin\n\nEl zeppelin interno `ZEPPELIN_MODE` activa el modo dirigible.",
        "front_matter": {"title": "Zeppelin", "type": "concept", "status": "draft"},
    }
    assert wiki.post("wiki_create", draft).status == 201
    question = {"question": "¿Qué hace ZEPPELIN_MODE?"}
    assert "concept—borrador" not in {s["slug"] for s in ask(wiki, question).json["sources"]}
    promote = {"slug": "concept—borrador", "update_metadata": {"status": "active"}}
    assert wiki.post("wiki_update", promote).status == 200
    assert ask(wiki, question).json["sources"][0]["slug"] == "concept—borrador"
    archive = {"slug": "concept—borrador", "update_metadata": {"status": "archived"}}
    assert wiki.post("wiki_update", archive).status == 200
    assert "concept—borrador" not in {s["slug"] for s in ask(wiki, question).json["sources"]}


def test_answered_question_is_recorded_as_a_utility_hit(wiki: Api) -> None:
    """The hit carries question, mode, slugs, scores, duration and model."""
    body = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?"}).json
    hits = open_store(get_settings()).events.recent("utility_hit")
    assert hits[0]["question"] == "¿Qué controla DB_POOL_SIZE?"
    assert hits[0]["slugs"] == [s["slug"] for s in body["sources"]]
    assert hits[0]["scores"] == [s["score"] for s in body["sources"]]
    assert hits[0]["mode"] == "help"
    assert hits[0]["model"] == "local-extractive"
    assert hits[0]["duration_ms"] >= 0


def test_archive_from_an_anonymous_caller_is_unauthorized(wiki: Api) -> None:
    """archive: true without credentials is reported, not attempted."""
    body = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}).json
    assert body["archive"] == {"attempted": False, "reason": "unauthorized"}


def test_archive_with_credentials_goes_through_the_gates(wiki: Api, auth: dict[str, str]) -> None:
    """archive: true with the write token is attempted; grounding is reported."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}, **auth)
    body = reply.json
    assert reply.status == 200, reply.text
    assert body["archive"]["attempted"] is True
    assert isinstance(body["archive"]["archived"], bool)
    assert body["archive"]["reason"]
    assert body["grounding"]["cited"] == 0


def test_each_error_status_has_the_contracts_body(api: Api) -> None:
    """One check per status at the edge: 400 at the field, 400 invalid_json, 413, 405 and 415,
    in the contract's order (each field's limits: tests/service)."""
    assert_error(ask(api, {"question": "hola", "limit": 21}), 400, "validation_error", "limit")
    assert_error(api.post("ask", data=b'{"question": "hola"', token=None), 400, "invalid_json")
    huge = api.post("ask", data=b'{"question": "' + b"a" * 2_000_000 + b'"}', token=None)
    assert_error(huge, 413, "payload_too_large")
    get = api.post("ask", token=None, method="GET", content_type=None)
    assert_error(get, 405, "method_not_allowed", None)
    text = api.post("ask", data="question", token=None, content_type="text/plain")
    assert_error(text, 415, "unsupported_media_type", None)


def test_tutor_needs_neither_store_nor_embedder(
    env: dict[str, str], open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Firestore selected but no project, tutor still answers; help cannot."""
    monkeypatch.setenv("BIBLIOTECA_STORE", "firestore")
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    api = open_api()
    reply = ask(api, {"question": "¿Qué es un índice?", "mode": "tutor", "archive": True})
    assert reply.status == 200
    body = reply.json
    assert body["mode"] == "tutor"
    assert body["sources"] == []
    assert body["chunks_used"] == 0
    assert body["archive"] == {"attempted": False, "reason": "tutor-mode"}
    help_reply = ask(api, {"question": "¿Qué es un índice?", "mode": "anything"})
    assert_error(help_reply, 503, "not_configured")
    assert "GOOGLE_CLOUD_PROJECT" in help_reply.json["error"]


def test_gemini_without_key_is_503_naming_the_variable(
    store_env: str, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_LLM=gemini and no GOOGLE_AI_API_KEY: 503 not_configured, in either mode."""
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    api = open_api()
    for mode in ("help", "tutor"):
        reply = ask(api, {"question": "hola", "mode": mode})
        assert_error(reply, 503, "not_configured")
        assert "GOOGLE_AI_API_KEY" in reply.json["error"]


def test_cors_allows_only_configured_origins(
    store_env: str, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Preflight and answers carry Allow-Origin for allowed origins only."""
    monkeypatch.setenv("BIBLIOTECA_ALLOWED_ORIGINS", "https://docs.example.com")
    api = open_api()
    good = {"Origin": "https://docs.example.com", "Access-Control-Request-Method": "POST"}

    def preflight(headers: dict[str, str]) -> Reply:
        return api.post("ask", token=None, method="OPTIONS", content_type=None, headers=headers)

    allowed = preflight(good)
    assert allowed.status == 204
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://docs.example.com"
    refused = preflight({**good, "Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in refused.headers
    answer = ask(api, {"question": "hola", "mode": "tutor"}, Origin="https://docs.example.com")
    assert answer.headers["Access-Control-Allow-Origin"] == "https://docs.example.com"
    other = ask(api, {"question": "hola", "mode": "tutor"}, Origin="https://evil.example")
    assert "Access-Control-Allow-Origin" not in other.headers


def test_rate_limit_is_429_with_retry_after(
    store_env: str, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over BIBLIOTECA_RATE_LIMIT per client: 429 rate_limited with Retry-After."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "2/minute")
    api = open_api()
    body = {"question": "hola", "mode": "tutor"}
    assert [ask(api, body).status for _ in range(2)] == [200, 200]
    limited = ask(api, body)
    assert_error(limited, 429, "rate_limited", None)
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    forged = ask(api, body, **{"X-Forwarded-For": "203.0.113.9"})
    assert forged.status == 429  # a header the client wrote does not make it another client


def test_bodies_that_are_not_json_count_against_the_rate_limit(
    store_env: str, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every POST that reaches its body counts, valid or not: two bodies that are not JSON
    use the client's 2/minute, and the next question is a 429 (was: invalid JSON was
    refused before the limit was counted, so a client could flood for free)."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "2/minute")
    api = open_api()
    for _ in range(2):
        assert_error(api.post("ask", data=b"{no es json", token=None), 400, "invalid_json", None)
    limited = api.post("ask", {"question": "hola", "mode": "tutor"}, token=None)
    assert_error(limited, 429, "rate_limited", None)
    assert_error(api.post("ask", data=b"{", token=None), 429, "rate_limited", None)


def test_a_write_by_another_process_is_seen_on_the_next_question(wiki: Api) -> None:
    """A second store object on the same backend writes (through the server route, this
    test's own process is another process); the next question sees the page."""
    from shared.api.models import WikiCreateRequest
    from shared.providers.local_embedder import shared_local_embedder
    from shared.services.wiki import create_page

    settings = get_settings()
    ask(wiki, {"question": "calienta las cachés"})  # the caches now hold three pages
    if settings.store == "sqlite":
        from shared.store.sqlite import SqliteStore

        other: Any = SqliteStore(settings.data_dir)
    else:
        from shared.store.firestore import FirestoreStore

        other = FirestoreStore(settings.require_project())
    page = {
        "slug": "runbook—kraken",
        "content": "# Kraken\n\nEl servicio `KRAKEN_TIMEOUT` corta las llamadas lentas al kraken.",
        "front_matter": {"title": "Kraken", "type": "runbook"},
    }
    create_page(WikiCreateRequest.parse(page), other, shared_local_embedder(), actor="test")
    body = ask(wiki, {"question": "¿Qué hace KRAKEN_TIMEOUT?"}).json
    assert body["sources"][0]["slug"] == "runbook—kraken"


def test_archive_from_the_widget_when_allowed(
    wiki: Api, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_ARCHIVE_FROM_WIDGET=1: an anonymous archive request is attempted."""
    monkeypatch.setenv("BIBLIOTECA_ARCHIVE_FROM_WIDGET", "1")
    api = open_api()  # a route that sees the variable, on the same store
    body = ask(api, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}).json
    assert body["archive"]["attempted"] is True
    assert "grounding" in body


def test_sources_are_ordered_best_first_by_their_score(wiki: Api) -> None:
    """The contract's "best first": scores never increase along sources, and stay on 0..1."""
    reply = ask(wiki, {"question": "¿Cómo se invalida la caché con cache:invalidate?", "limit": 20})
    scores = [s["score"] for s in reply.json["sources"]]
    assert scores
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)


def test_a_question_checks_whether_the_index_changed_once(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One change-log read per question: the reindex check and the search share a snapshot.

    Counted at the adapter (every call of its ``changes_since`` and of its ``fingerprint``,
    from the service or from inside the adapter) and, on SQLite, as the statements that
    read the generation."""
    from shared.api.models import AskRequest, WikiCreateRequest
    from shared.bootstrap import wiring
    from shared.providers.local_embedder import shared_local_embedder
    from shared.services.wiki import create_page
    from shared.store.sqlite.db import Database as SqliteDatabase

    for page in PAGES:
        create_page(WikiCreateRequest.parse(page), store, shared_local_embedder(), actor="test")
    adapter = type(store.chunks)
    calls: list[str] = []
    for name in ("fingerprint", "changes_since"):
        real = getattr(adapter, name)

        def counted(self: Any, *args: Any, _real: Any = real, _name: str = name) -> Any:
            calls.append(_name)
            return _real(self, *args)

        monkeypatch.setattr(adapter, name, counted)
    statements: list[str] = []
    on_sqlite = isinstance(store.db, SqliteDatabase)
    if on_sqlite:  # the service runs in this thread, on this thread's connection
        store.db.connection().set_trace_callback(statements.append)
    w = wiring(get_settings())
    body = w.ask(AskRequest.parse({"question": "¿Qué hace cache:invalidate?"}), authorized=False)
    assert body.sources
    assert calls == ["changes_since"]
    if on_sqlite:
        generation_reads = [s for s in statements if "chunk_generation" in s]
        assert len(generation_reads) == 1, generation_reads
