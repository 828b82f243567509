"""ask's per-client limits hold against a client that forges its address, by both routes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shared.bootstrap import reset_limits
from shared.services.rate_limit import WIDGET_ARCHIVE_WINDOW
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import Api

TUTOR = {"question": "¿Qué es un pool de conexiones?", "mode": "tutor"}


@pytest.fixture
def limited(
    env: dict[str, str], open_api: Callable[[], Api], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Api]:
    """``limited(**variables)``: a route whose ask allows 3 questions a minute per client."""

    def make(**variables: str) -> Api:
        reset_limits()
        monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "3/minute")
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        return open_api()

    return make


def statuses(api: Api, forwarded: list[str]) -> list[int]:
    return [
        api.post("ask", TUTOR, token=None, headers={"X-Forwarded-For": f}).status for f in forwarded
    ]


def test_a_forged_x_forwarded_for_does_not_escape_the_rate_limit(
    limited: Callable[..., Api],
) -> None:
    """With no trusted proxy (the default), a new X-Forwarded-For per request is one client."""
    api = limited()
    assert statuses(api, [f"203.0.113.{i}" for i in range(6)]) == [200] * 3 + [429] * 3


def test_behind_trusted_proxies_the_client_is_the_hop_they_appended(
    limited: Callable[..., Api],
) -> None:
    """BIBLIOTECA_TRUSTED_PROXIES=2 (a load balancer in front): what the client wrote before
    its own address changes nothing; distinct clients behind one balancer count apart."""
    api = limited(BIBLIOTECA_TRUSTED_PROXIES="2")
    forged = [f"198.51.100.{i}, 203.0.113.7, 10.0.0.1" for i in range(4)]
    assert statuses(api, forged) == [200, 200, 200, 429]
    others = [f"203.0.113.{20 + i}, 10.0.0.1" for i in range(4)]
    assert statuses(api, others) == [200] * 4


def test_archiving_from_the_widget_has_its_own_much_lower_limit(
    env: dict[str, str], open_api: Callable[[], Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anonymous archive requests reach the gates 5 times an hour per client; then the
    answer still comes, with archive reason rate-limited. A token is not limited by it."""
    reset_limits()
    monkeypatch.setenv("BIBLIOTECA_ARCHIVE_FROM_WIDGET", "1")
    api = open_api()
    allowed = WIDGET_ARCHIVE_WINDOW[0]
    replies = [
        api.post("ask", {"question": f"¿Cómo se ajusta el pool {i}?", "archive": True}, token=None)
        for i in range(allowed + 2)
    ]
    assert [r.status for r in replies] == [200] * (allowed + 2)
    assert [r.json["archive"]["attempted"] for r in replies] == [True] * allowed + [False] * 2
    assert {r.json["archive"]["reason"] for r in replies[allowed:]} == {"rate-limited"}
    trusted = api.post("ask", {"question": "¿Cómo se ajusta el pool?", "archive": True})
    assert trusted.json["archive"]["attempted"] is True


def test_one_anonymous_client_cannot_fill_the_gap_log(
    store_env: str, open_api: Callable[[], Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an empty wiki every help question is a gap signal: one anonymous client's first
    SIGNALS_PER_CLIENT are kept, the rest are answered but not logged; another client and
    a caller with the write token still add theirs (both stores, both routes)."""
    from shared.bootstrap import open_store
    from shared.config import get_settings
    from shared.services.gaps import SIGNALS_PER_CLIENT

    reset_limits()
    monkeypatch.setenv("BIBLIOTECA_RATE_LIMIT", "1000/minute")
    monkeypatch.setenv("BIBLIOTECA_TRUSTED_PROXIES", "1")
    api = open_api()
    cap = SIGNALS_PER_CLIENT[0]

    def ask(question: str, client: str, token: str | None = None) -> None:
        headers = {"X-Forwarded-For": client}
        reply = api.post("ask", {"question": question}, token=token, headers=headers)
        assert reply.status == 200, reply.text

    for i in range(cap + 5):
        ask(f"¿Cómo se cocina la paella {i}?", "198.51.100.1")
    ask("¿Cómo se hace el gazpacho?", "198.51.100.2")
    ask("¿Dónde está la guía de la tortilla?", "198.51.100.1", token=TOKEN)
    hits = open_store(get_settings()).events.recent("utility_hit", 1000)
    questions = [h["question"] for h in hits]
    assert sum("paella" in q for q in questions) == cap, questions
    assert "¿Cómo se hace el gazpacho?" in questions
    assert "¿Dónde está la guía de la tortilla?" in questions
