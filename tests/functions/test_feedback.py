"""POST /feedback on both stores, through functions-framework's test client and a real
``biblioteca serve``: ask → answer_id → vote, kept with the answer's trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from shared.bootstrap import reset_limits
from tests.fixtures.contract import assert_error
from tests.fixtures.server import Api
from tests.functions.test_ask import PAGES

OpenApi = Callable[[], Api]
QUESTION = "¿Qué controla DB_POOL_SIZE?"
SITE = "https://docs.example.com"


@pytest.fixture(autouse=True)
def fresh_limits() -> Iterator[None]:
    reset_limits()
    yield
    reset_limits()


@pytest.fixture
def wiki(store_env: str, open_api: OpenApi, monkeypatch: pytest.MonkeyPatch) -> Api:
    """ask's three pages on the test's backend; CORS allows the site's origin."""
    monkeypatch.setenv("BIBLIOTECA_ALLOWED_ORIGINS", SITE)
    api = open_api()
    for page in PAGES:
        assert api.post("wiki_create", page).status == 201
    return api


def test_a_down_vote_on_an_answer_is_recorded_with_its_trace_once(wiki: Api) -> None:
    """ask's answer_id takes a 👎 from an anonymous caller; the store holds it with the
    page version that produced the answer, and a repeat from that client counts once."""
    answer = wiki.post("ask", {"question": QUESTION}, token=None)
    assert answer.status == 200, answer.text
    vote = {"answer_id": answer.json["answer_id"], "rating": "down", "reason": "outdated"}

    first = wiki.post("feedback", vote, token=None, headers={"Origin": SITE})
    again = wiki.post("feedback", {**vote, "comment": "ya no es 10"}, token=None)

    assert first.status == 200, first.text
    assert first.json == {"recorded": True, "id": first.json["id"]}
    assert first.headers["Access-Control-Allow-Origin"] == SITE
    assert again.json["id"] == first.json["id"]
    [item] = wiki.store.feedback.list()
    assert (item.rating, item.reason, item.comment) == ("down", "outdated", "ya no es 10")
    assert item.trace is not None
    assert item.trace.answer == answer.json["answer"]
    assert item.trace.sources[0].slug == "runbook—pool"
    assert {s.version for s in item.trace.sources} == {1}


def test_unknown_answer_or_page_is_404_and_bad_input_a_field_error(wiki: Api) -> None:
    """not_found at answer_id or slug; a comment over 2,000 characters is a 400 at comment;
    nothing is recorded."""
    unknown = wiki.post("feedback", {"answer_id": "f" * 32, "rating": "up"}, token=None)
    assert_error(unknown, 404, "not_found", "answer_id")
    page = wiki.post("feedback", {"slug": "runbook—nada", "rating": "down"}, token=None)
    assert_error(page, 404, "not_found", "slug")
    long = {"slug": "runbook—pool", "rating": "down", "comment": "x" * 2001}
    assert_error(wiki.post("feedback", long, token=None), 400, "validation_error", "comment")
    assert wiki.store.feedback.list() == []


def test_an_agent_reports_a_page_by_slug(wiki: Api) -> None:
    """slug without answer_id: the report lands against the page."""
    body = {"slug": "runbook—pool", "rating": "down", "reason": "incorrect", "comment": "no"}
    reply = wiki.post("feedback", body, token=None)
    assert reply.status == 200, reply.text
    [item] = wiki.store.feedback.list()
    assert (item.slug, item.answer_id, item.trace) == ("runbook—pool", None, None)


def test_the_preflight_allows_the_sites_origin_only(wiki: Api) -> None:
    """OPTIONS answers 204 with Allow-Origin for the configured origin, none for others."""

    def preflight(origin: str) -> object:
        headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
        return wiki.post(
            "feedback", token=None, method="OPTIONS", content_type=None, headers=headers
        )

    allowed = preflight(SITE)
    assert allowed.status == 204  # type: ignore[attr-defined]
    assert allowed.headers["Access-Control-Allow-Origin"] == SITE  # type: ignore[attr-defined]
    refused = preflight("https://evil.example")
    assert "Access-Control-Allow-Origin" not in refused.headers  # type: ignore[attr-defined]


def test_closed_to_the_widget_it_needs_the_write_token(
    env: dict[str, str], open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_FEEDBACK_FROM_WIDGET=0: anonymous is 401 before the body is judged;
    the bearer token records as before."""
    monkeypatch.setenv("BIBLIOTECA_FEEDBACK_FROM_WIDGET", "0")
    api = open_api()
    assert api.post("wiki_create", PAGES[0]).status == 201
    body = {"slug": "runbook—pool", "rating": "up"}
    assert_error(api.post("feedback", body, token=None), 401, "unauthorized")
    assert_error(api.post("feedback", {"rating": 5}, token=None), 401, "unauthorized")
    assert api.post("feedback", body).status == 200


def test_closed_to_the_widget_without_a_token_set_is_a_503_naming_it(
    env: dict[str, str], open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_FEEDBACK_FROM_WIDGET=0 and no BIBLIOTECA_API_TOKEN: not_configured, so the
    operator learns which variable to set."""
    monkeypatch.setenv("BIBLIOTECA_FEEDBACK_FROM_WIDGET", "0")
    monkeypatch.delenv("BIBLIOTECA_API_TOKEN")
    api = open_api()
    reply = api.post("feedback", {"slug": "runbook—pool", "rating": "up"}, token=None)
    assert_error(reply, 503, "not_configured")
    assert "BIBLIOTECA_API_TOKEN" in reply.json["error"]


def test_feedback_is_rate_limited_per_client(
    env: dict[str, str], open_api: OpenApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Like ask: BIBLIOTECA_RATE_LIMIT per client, then 429 with Retry-After."""
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "3/minute")
    api = open_api()
    replies = [
        api.post("feedback", {"answer_id": "f" * 32, "rating": "up"}, token=None) for _ in range(4)
    ]
    assert [r.status for r in replies] == [404, 404, 404, 429]
    assert int(replies[-1].headers["Retry-After"]) >= 1
