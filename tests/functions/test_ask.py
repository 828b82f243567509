"""POST /ask through functions-framework's test client, on both stores."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from shared.config import get_settings
from shared.services.rate_limit import reset_limiters
from shared.store import forget_stores, open_store

Client = Callable[[str], Any]

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
    reset_limiters()
    yield
    reset_limiters()


@pytest.fixture
def wiki(store_env: str, client: Client, auth: dict[str, str]) -> Client:
    """The three pages above, written through wiki_create on the test's backend."""
    create = client("wiki_create")
    for page in PAGES:
        reply = create.post("/", json=page, headers=auth)
        assert reply.status_code == 201, reply.get_json()
    return client


def ask(client: Client, body: dict[str, Any], **headers: str) -> Any:
    return client("ask").post("/", json=body, headers=headers)


def test_answer_has_every_field_and_cites_the_page(wiki: Client) -> None:
    """An identifier question finds its page first; the response has the contract's fields."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?"})
    assert reply.status_code == 200, reply.get_json()
    body = reply.get_json()
    assert body["sources"][0]["slug"] == "runbook—pool"
    assert set(body["sources"][0]) == {"slug", "title", "heading", "score", "snippet"}
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


def test_english_question_over_spanish_page(wiki: Client) -> None:
    """An English question finds the Spanish page and is framed in English."""
    body = ask(wiki, {"question": "How do I request vacation days?"}).get_json()
    assert body["sources"][0]["slug"] == "guide—vacaciones"
    assert body["answer"].startswith("From the wiki")


def test_colon_identifier_is_found_exactly(wiki: Client) -> None:
    """``cache:invalidate`` is one token: its page comes first."""
    body = ask(wiki, {"question": "cache:invalidate"}).get_json()
    assert body["sources"][0]["slug"] == "decision—cache"


@pytest.mark.parametrize(
    ("filters", "allowed"),
    [
        ({"source_type": "decision"}, "decision—cache"),
        ({"category": "datos"}, "runbook—pool"),
        ({"tag": "deploy"}, "decision—cache"),
        ({"source_type": "runbook", "tag": "postgres"}, "runbook—pool"),
    ],
)
def test_filters_keep_only_matching_pages(
    wiki: Client, filters: dict[str, str], allowed: str
) -> None:
    """source_type (page type), category and tag restrict the sources to matching pages."""
    questions = {
        "runbook—pool": "¿Qué controla DB_POOL_SIZE?",
        "decision—cache": "¿Cuándo se ejecuta cache:invalidate?",
        "guide—vacaciones": "¿Cómo pido vacaciones?",
    }
    for slug, question in questions.items():
        body = ask(wiki, {"question": question, **filters}).get_json()
        found = {s["slug"] for s in body["sources"]}
        assert found <= {allowed}
        if slug == allowed:
            assert found == {allowed}


def test_unknown_filter_value_matches_nothing(wiki: Client) -> None:
    """An unknown tag is not an error: no sources, and the answer says nothing was found."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "tag": "no-such-tag"})
    assert reply.status_code == 200
    body = reply.get_json()
    assert body["sources"] == []
    assert body["chunks_used"] == 0
    assert "No encontré" in body["answer"]


def test_limit_caps_the_sources(wiki: Client) -> None:
    """limit=1 gives at most one source."""
    body = ask(wiki, {"question": "DB_POOL_SIZE cache:invalidate", "limit": 1}).get_json()
    assert len(body["sources"]) == 1


def test_only_active_pages_are_retrieved(wiki: Client, auth: dict[str, str]) -> None:
    """A draft is invisible; promoted, it is found at once (caches see the write)."""
    draft = {
        "slug": "concept—borrador",
        "content": "# Zeppelin\n\nEl zeppelin interno `ZEPPELIN_MODE` activa el modo dirigible.",
        "front_matter": {"title": "Zeppelin", "type": "concept", "status": "draft"},
    }
    assert wiki("wiki_create").post("/", json=draft, headers=auth).status_code == 201
    question = {"question": "¿Qué hace ZEPPELIN_MODE?"}
    assert "concept—borrador" not in {s["slug"] for s in ask(wiki, question).get_json()["sources"]}
    promote = {"slug": "concept—borrador", "update_metadata": {"status": "active"}}
    assert wiki("wiki_update").post("/", json=promote, headers=auth).status_code == 200
    assert ask(wiki, question).get_json()["sources"][0]["slug"] == "concept—borrador"
    archive = {"slug": "concept—borrador", "update_metadata": {"status": "archived"}}
    assert wiki("wiki_update").post("/", json=archive, headers=auth).status_code == 200
    assert "concept—borrador" not in {s["slug"] for s in ask(wiki, question).get_json()["sources"]}


def test_answered_question_is_recorded_as_a_utility_hit(wiki: Client) -> None:
    """The hit carries question, mode, slugs, scores, duration and model."""
    body = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?"}).get_json()
    hits = open_store(get_settings()).events.recent("utility_hit")
    assert hits[0]["question"] == "¿Qué controla DB_POOL_SIZE?"
    assert hits[0]["slugs"] == [s["slug"] for s in body["sources"]]
    assert hits[0]["scores"] == [s["score"] for s in body["sources"]]
    assert hits[0]["mode"] == "help"
    assert hits[0]["model"] == "local-extractive"
    assert hits[0]["duration_ms"] >= 0


def test_archive_from_an_anonymous_caller_is_unauthorized(wiki: Client) -> None:
    """archive: true without credentials is reported, not attempted."""
    body = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}).get_json()
    assert body["archive"] == {"attempted": False, "reason": "unauthorized"}


def test_archive_with_credentials_goes_through_the_gates(
    wiki: Client, auth: dict[str, str]
) -> None:
    """archive: true with the write token is attempted; grounding is reported."""
    reply = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}, **auth)
    body = reply.get_json()
    assert reply.status_code == 200, body
    assert body["archive"]["attempted"] is True
    assert isinstance(body["archive"]["archived"], bool)
    assert body["archive"]["reason"]
    assert body["grounding"]["cited"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "question"),
        ({"question": "   "}, "question"),
        ({"question": 42}, "question"),
        ({"question": "\u200b\u200d"}, "question"),
        ({"question": "x" * 2001}, "question"),
        ({"question": "hola", "limit": 0}, "limit"),
        ({"question": "hola", "limit": 21}, "limit"),
        ({"question": "hola", "limit": "6"}, "limit"),
        ({"question": "hola", "limit": True}, "limit"),
        ({"question": "hola", "limit": 2.5}, "limit"),
        ({"question": "hola", "source_type": 5}, "source_type"),
        ({"question": "hola", "category": ["a"]}, "category"),
        ({"question": "hola", "tag": {"a": 1}}, "tag"),
    ],
)
def test_invalid_input_is_a_400_at_the_field(
    env: dict[str, str], client: Client, body: dict[str, Any], field: str
) -> None:
    """Each contract limit is a 400 validation_error naming the field."""
    reply = ask(client, body)
    assert reply.status_code == 400
    assert reply.get_json()["code"] == "validation_error"
    assert reply.get_json()["field"] == field


def test_question_of_exactly_2000_chars_is_accepted(env: dict[str, str], client: Client) -> None:
    """The limit is inclusive."""
    assert ask(client, {"question": "a" * 2000}).status_code == 200


def test_get_is_405_and_text_is_415(env: dict[str, str], client: Client) -> None:
    """Method first, then media type, as everywhere."""
    assert client("ask").get("/").status_code == 405
    reply = client("ask").post("/", data="question", content_type="text/plain")
    assert reply.status_code == 415


def test_tutor_needs_neither_store_nor_embedder(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Firestore selected but no project, tutor still answers; help cannot."""
    monkeypatch.setenv("BIBLIOTECA_STORE", "firestore")
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    get_settings.cache_clear()
    forget_stores()
    reply = ask(client, {"question": "¿Qué es un índice?", "mode": "tutor", "archive": True})
    assert reply.status_code == 200
    body = reply.get_json()
    assert body["mode"] == "tutor"
    assert body["sources"] == []
    assert body["chunks_used"] == 0
    assert body["archive"] == {"attempted": False, "reason": "tutor-mode"}
    help_reply = ask(client, {"question": "¿Qué es un índice?", "mode": "anything"})
    assert help_reply.status_code == 503
    assert "GOOGLE_CLOUD_PROJECT" in help_reply.get_json()["error"]


def test_gemini_without_key_is_503_naming_the_variable(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_LLM=gemini and no GOOGLE_AI_API_KEY: 503 not_configured, in either mode."""
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    get_settings.cache_clear()
    for mode in ("help", "tutor"):
        reply = ask(client, {"question": "hola", "mode": mode})
        assert reply.status_code == 503
        assert reply.get_json()["code"] == "not_configured"
        assert "GOOGLE_AI_API_KEY" in reply.get_json()["error"]


def test_cors_allows_only_configured_origins(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Preflight and answers carry Allow-Origin for allowed origins only."""
    monkeypatch.setenv("BIBLIOTECA_ALLOWED_ORIGINS", "https://docs.example.com")
    get_settings.cache_clear()
    good = {"Origin": "https://docs.example.com", "Access-Control-Request-Method": "POST"}
    preflight = client("ask").options("/", headers=good)
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://docs.example.com"
    bad = client("ask").options("/", headers={**good, "Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in bad.headers
    answer = ask(client, {"question": "hola", "mode": "tutor"}, Origin="https://docs.example.com")
    assert answer.headers["Access-Control-Allow-Origin"] == "https://docs.example.com"


def test_rate_limit_is_429_with_retry_after(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over BIBLIOTECA_RATE_LIMIT per client: 429 rate_limited with Retry-After."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "2/minute")
    get_settings.cache_clear()
    body = {"question": "hola", "mode": "tutor"}
    assert [ask(client, body).status_code for _ in range(2)] == [200, 200]
    limited = ask(client, body)
    assert limited.status_code == 429
    assert limited.get_json()["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    other = ask(client, body, **{"X-Forwarded-For": "203.0.113.9"})
    assert other.status_code == 200


def test_a_write_by_another_process_is_seen_on_the_next_question(wiki: Client) -> None:
    """A second store object on the same backend (another process) writes; ask sees it."""
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
    create_page(page, other, shared_local_embedder())
    body = ask(wiki, {"question": "¿Qué hace KRAKEN_TIMEOUT?"}).get_json()
    assert body["sources"][0]["slug"] == "runbook—kraken"


def test_archive_from_the_widget_when_allowed(
    wiki: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_ARCHIVE_FROM_WIDGET=1: an anonymous archive request is attempted."""
    monkeypatch.setenv("BIBLIOTECA_ARCHIVE_FROM_WIDGET", "1")
    get_settings.cache_clear()
    body = ask(wiki, {"question": "¿Qué controla DB_POOL_SIZE?", "archive": True}).get_json()
    assert body["archive"]["attempted"] is True
    assert "grounding" in body


class _CountingStore:
    """The real store, with its chunk index's fingerprint reads counted (not a mock)."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.fingerprints = 0
        outer = self

        class Chunks:
            def __getattr__(self, name: str) -> Any:
                return getattr(real.chunks, name)

            def fingerprint(self) -> str:
                outer.fingerprints += 1
                return str(real.chunks.fingerprint())

        self.chunks = Chunks()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_a_question_checks_whether_the_index_changed_once(wiki: Client) -> None:
    """One fingerprint read per question: the reindex check and the search share a snapshot."""
    from shared.services.ask import ask as answer

    counting = _CountingStore(open_store(get_settings()))
    body = answer(
        {"question": "¿Qué hace cache:invalidate?"},
        get_settings(),
        authorized=False,
        open_store=lambda: counting,
    )
    assert body["sources"]
    assert counting.fingerprints == 1


def test_sources_are_ordered_best_first_by_their_score(wiki: Client) -> None:
    """The contract's "best first": scores never increase along sources, and stay on 0..1."""
    reply = ask(wiki, {"question": "¿Cómo se invalida la caché con cache:invalidate?", "limit": 20})
    scores = [s["score"] for s in reply.get_json()["sources"]]
    assert scores
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 for s in scores)
