"""wiki_update needs the embedder's key only when chunks must be embedded again (both stores)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from shared.bootstrap import reset
from shared.config import get_settings
from tests.fixtures.gemini import FakeGemini

Client = Callable[[str], Any]
KEY = "AIzaFAKE-update-key-0123456789"
DRAFT = {
    "slug": "concept—borrador-sin-clave",
    "content": "# Borrador\n\nUn borrador que espera al curador.",
    "front_matter": {"title": "Borrador", "type": "concept", "status": "draft"},
}


def created_with_gemini(
    client: Client, auth: dict[str, str], gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The draft is written with the Gemini embedder, then the key is taken away."""
    monkeypatch.setenv("BIBLIOTECA_EMBEDDER", "gemini")
    monkeypatch.setenv("GEMINI_BASE_URL", gemini.url)
    monkeypatch.setenv("GOOGLE_AI_API_KEY", KEY)
    get_settings.cache_clear()
    reset()
    assert client("wiki_create").post("/", json=DRAFT, headers=auth).status_code == 201
    monkeypatch.delenv("GOOGLE_AI_API_KEY")
    get_settings.cache_clear()
    reset()


def test_promoting_a_draft_needs_no_model_key(
    store_env: str,
    client: Client,
    auth: dict[str, str],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A metadata-only update (status active) re-embeds nothing, so a missing key is no 503."""
    created_with_gemini(client, auth, gemini, monkeypatch)
    calls = len(gemini.requests)
    promote = {"slug": DRAFT["slug"], "update_metadata": {"status": "active", "tags": ["ok"]}}
    reply = client("wiki_update").post("/", json=promote, headers=auth)
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["page"]["status"] == "active"
    assert len(gemini.requests) == calls


def test_new_content_without_the_key_is_a_503_naming_it(
    store_env: str,
    client: Client,
    auth: dict[str, str],
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """New text must be embedded: without GOOGLE_AI_API_KEY that is 503 not_configured."""
    created_with_gemini(client, auth, gemini, monkeypatch)
    change = {"slug": DRAFT["slug"], "content": "# Borrador\n\nOtro texto distinto."}
    reply = client("wiki_update").post("/", json=change, headers=auth)
    assert reply.status_code == 503
    assert reply.get_json()["code"] == "not_configured"
    assert "GOOGLE_AI_API_KEY" in reply.get_json()["error"]
