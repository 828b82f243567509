"""No registered secret leaves in a response, whatever an upstream echoed, by both routes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shared.bootstrap import reset_limits
from tests.fixtures.contract import assert_error
from tests.fixtures.gemini import FakeGemini, Scripted
from tests.fixtures.server import Api

KEY = "AIzaFAKE-echoed-key-0123456789"
TUTOR = {"question": "¿Qué es un pool de conexiones?", "mode": "tutor"}


@pytest.mark.parametrize(
    ("upstream", "status", "code"),
    [(400, 502, "upstream_error"), (403, 503, "not_configured")],
)
def test_a_key_the_gemini_api_echoes_is_not_in_the_error_body(
    env: dict[str, str],
    open_api: Callable[[], Api],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    upstream: int,
    status: int,
    code: str,
) -> None:
    """Gemini (or a proxy) answers an error quoting our request, key and all: a caller with
    a token reads the upstream's words with [redacted] where the key was; an anonymous
    caller reads our words only, never the upstream's (which may quote the system prompt)."""
    reset_limits()
    monkeypatch.setenv("GOOGLE_AI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)
    monkeypatch.setenv("BIBLIOTECA_LLM", "gemini")
    api = open_api()
    gemini.script(Scripted(status=upstream, echo=True), Scripted(status=upstream, echo=True))
    quoted = api.post("ask", TUTOR)
    anonymous = api.post("ask", TUTOR, token=None)
    for reply in (quoted, anonymous):
        assert_error(reply, status, code)
        assert KEY not in reply.text
    assert gemini.requests[-1].headers["x-goog-api-key"] == KEY  # the echo quoted the key
    assert "x-goog-api-key: [redacted]" in quoted.text
    assert "cannot serve POST" not in anonymous.text
    assert "x-goog-api-key" not in anonymous.text
    assert anonymous.json["error"].startswith("the Gemini API")
