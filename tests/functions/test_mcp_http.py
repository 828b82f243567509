"""The mcp function's HTTP edge: streamable HTTP's statuses, the version header, Origin,
and who may propose under each BIBLIOTECA_AUTH (through functions-framework's client)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from shared.bootstrap import open_store
from shared.config import get_settings
from shared.schema import parse_front_matter
from shared.services.wiki import create_validated
from tests.fixtures.contract import assert_error
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.secrets import NAMED_TOKENS, NAMED_TOKENS_VALUE, TOKEN
from tests.fixtures.server import Reply

Client = Callable[[str], Any]
PROPOSAL = {
    "name": "propose_page",
    "arguments": {
        "content": "# Hola\n\nTexto.",
        "front_matter": {"title": "Hola", "type": "guide"},
    },
}


def post(
    client: Client, message: Any, headers: dict[str, str] | None = None, *, token: str | None = None
) -> Reply:
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    result = client("mcp").post("/", data=json.dumps(message), headers={**sent, **(headers or {})})
    text = result.get_data(as_text=True)
    return Reply(result.status_code, httpx.Headers(list(result.headers.items())), text, result.json)


def call(name: str, arguments: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def tool_said(reply: Reply) -> tuple[bool, dict[str, Any]]:
    assert reply.status == 200, reply.text
    result = reply.json["result"]
    return result["isError"], json.loads(result["content"][0]["text"])


def test_a_request_is_answered_in_json_and_a_notification_with_an_empty_202(
    env: dict[str, str], client: Client
) -> None:
    """A request gets its JSON-RPC response as application/json, with no session id; a
    notification gets 202 and no body (streamable HTTP, stateless)."""
    reply = post(client, {"jsonrpc": "2.0", "id": "a", "method": "ping"})
    assert (reply.status, reply.headers["content-type"]) == (200, "application/json")
    assert reply.json == {"jsonrpc": "2.0", "id": "a", "result": {}}
    assert "mcp-session-id" not in reply.headers
    reply = post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert (reply.status, reply.text) == (202, "")


def test_an_unsupported_protocol_version_header_is_a_400_naming_the_supported(
    env: dict[str, str], client: Client
) -> None:
    """MCP-Protocol-Version outside what the server speaks: 400 with a JSON-RPC error
    listing the supported revisions; a supported one is served."""
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    reply = post(client, message, {"MCP-Protocol-Version": "2026-07-28"})
    assert reply.status == 400
    assert reply.json["id"] == 3
    assert "2025-11-25" in reply.json["error"]["data"]["supported"]
    reply = post(client, message, {"MCP-Protocol-Version": "2025-06-18"})
    assert reply.status == 200
    assert len(reply.json["result"]["tools"]) == 7  # the contract's tools


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_are_405_naming_post(
    env: dict[str, str], client: Client, method: str
) -> None:
    """No event stream and no session to end: GET and DELETE are the edge's 405."""
    result = client("mcp").open("/", method=method)
    assert result.status_code == 405
    assert result.headers["Allow"] == "POST"
    assert result.json["code"] == "method_not_allowed"


def test_a_web_pages_origin_must_be_allowed(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request with an Origin nobody allowed is 403 (DNS rebinding of a local server);
    an origin in BIBLIOTECA_ALLOWED_ORIGINS is served."""
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    reply = post(client, ping, {"Origin": "http://evil.example"})
    assert_error(reply, 403, "unauthorized")
    monkeypatch.setenv("BIBLIOTECA_ALLOWED_ORIGINS", "http://localhost:6274")
    get_settings.cache_clear()
    assert post(client, ping, {"Origin": "http://localhost:6274"}).status == 200


def test_a_batch_is_refused_with_the_contract_body(env: dict[str, str], client: Client) -> None:
    """One POST is one message: a JSON array is a 400 validation_error."""
    reply = post(client, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert_error(reply, 400, "validation_error")


def test_in_token_mode_propose_needs_the_bearer_token(env: dict[str, str], client: Client) -> None:
    """Reading needs no token; propose_page is refused without it or with a wrong one
    (unauthorized, nothing written) and creates a draft with it."""
    search = call("search", {"query": "hola"})
    assert tool_said(post(client, search))[0] is False
    for token in (None, "wrong-token"):
        is_error, said = tool_said(post(client, call(**PROPOSAL), token=token))
        assert is_error
        assert said["code"] == "unauthorized"
        assert "Authorization: Bearer" in said["error"]
    is_error, said = tool_said(post(client, call(**PROPOSAL), token=TOKEN))
    assert not is_error
    assert said["page"]["status"] == "draft"


def test_without_a_configured_token_propose_is_not_configured(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No BIBLIOTECA_API_TOKEN: proposals are disabled, and the error names the variable."""
    monkeypatch.delenv("BIBLIOTECA_API_TOKEN")
    get_settings.cache_clear()
    is_error, said = tool_said(post(client, call(**PROPOSAL), token="anything"))
    assert is_error
    assert said["code"] == "not_configured"
    assert "BIBLIOTECA_API_TOKEN" in said["error"]


def test_under_iam_every_caller_of_the_private_function_may_propose(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BIBLIOTECA_AUTH=iam: mcp is deployed private, the platform checked the caller, so a
    proposal needs no token of ours (and drafts are readable)."""
    monkeypatch.setenv("BIBLIOTECA_AUTH", "iam")
    monkeypatch.delenv("BIBLIOTECA_API_TOKEN")
    get_settings.cache_clear()
    is_error, said = tool_said(post(client, call(**PROPOSAL)))
    assert not is_error, said
    is_error, page = tool_said(post(client, call("get_page", {"slug": said["slug"]})))
    assert (is_error, page["status"]) == (False, "draft")


def test_an_agent_over_http_is_named_by_its_credential(
    env: dict[str, str], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proposal with a named token of BIBLIOTECA_API_TOKENS is written by mcp:<name>, with
    BIBLIOTECA_API_TOKEN by mcp:default (the HTTP door keeps no session to remember a
    client's handshake); a change to the published page waits as a proposal."""
    monkeypatch.setenv("BIBLIOTECA_API_TOKENS", NAMED_TOKENS_VALUE)
    get_settings.cache_clear()
    _, made = tool_said(post(client, call(**PROPOSAL), token=NAMED_TOKENS["ana"]))
    store = open_store(get_settings())
    assert [r.actor for r in store.revisions.history(made["slug"])] == ["mcp:ana"]
    create_validated(
        "guide—publicada",
        parse_front_matter({"title": "Publicada", "type": "guide"}),
        "# Publicada\n\nTexto.",
        store,
        HashingEmbedder(),
        actor="ana",
    )
    change = call(
        "propose_update", {"slug": "guide—publicada", "expected_version": 1, "content": "Otro."}
    )
    _, proposed = tool_said(post(client, change, token=TOKEN))
    assert proposed["status"] == "proposed"
    [waiting] = store.proposals.list()
    assert (waiting.id, waiting.actor) == (proposed["proposal"], "mcp:default")
    assert store.pages.get("guide—publicada").content == "# Publicada\n\nTexto."
