"""The official MCP SDK's client against both doors — ``biblioteca mcp`` spawned over stdio,
and a real ``biblioteca serve`` answering ``/mcp`` — on both stores.

The client negotiates as it does for any server (its default ``auto`` mode: it probes the
newest revision, then falls back to the ``initialize`` handshake), so these tests prove a
stock client connects, not only that our messages parse.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from shared.api.models import WikiCreateRequest
from shared.bootstrap import wiring
from shared.config import get_settings
from shared.services.wiki import create_page
from tests.fixtures.contract import MCP_TOOLS
from tests.fixtures.secrets import TOKEN
from tests.fixtures.server import ROOT, ServerFactory

TIMEOUT_S = 120


@dataclass
class Door:
    """One way in: ``stdio`` (a ``biblioteca mcp`` child per session) or ``http``."""

    transport: str
    url: str = ""

    @asynccontextmanager
    async def session(self, *, writer: bool) -> AsyncIterator[Client]:
        """A connected SDK client; ``writer``: with write credentials (the bearer token,
        or ``--allow-writes`` for the local process)."""
        if self.transport == "stdio":
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "shared", "mcp", *(["--allow-writes"] if writer else [])],
                env=dict(os.environ),
                cwd=str(ROOT),
            )
            async with Client(params, read_timeout_seconds=TIMEOUT_S) as client:
                yield client
            return
        headers = {"Authorization": f"Bearer {TOKEN}"} if writer else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT_S) as http,
            Client(streamable_http_client(f"{self.url}/mcp", http_client=http)) as client,
        ):
            yield client


@pytest.fixture(params=["stdio", "http"])
def door(request: pytest.FixtureRequest, store_env: str, serve: ServerFactory) -> Door:
    """Each test once per transport and per store (the test's own store, token and data)."""
    del store_env
    if request.param == "http":
        return Door("http", serve())
    return Door("stdio")


def run(door: Door, writer: bool, act: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with door.session(writer=writer) as client:
            return await act(client)

    return asyncio.run(main())


def seed(title: str) -> str:
    """A published runbook, written as wiki_create writes it; its slug."""
    w = wiring(get_settings())
    request = WikiCreateRequest.parse(
        {
            "content": f"# {title}\n\nPara rotar el certificado TLS ejecuta "
            "`deploy/certs/rotate.sh` y reinicia el balanceador.",
            "front_matter": {"title": title, "type": "runbook", "tags": ["tls"]},
        }
    )
    return create_page(request, w.store, w.embedder, actor="test").page.slug


def drafts() -> list[dict[str, Any]]:
    """``biblioteca drafts --json``, run as a curator would, on the test's store."""
    done = subprocess.run(
        [sys.executable, "-m", "shared", "drafts", "--json"],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    )
    rows: list[dict[str, Any]] = json.loads(done.stdout)["drafts"]
    return rows


def said(result: Any) -> dict[str, Any]:
    """What a tool call said: its structured result, or its error body."""
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


def test_the_client_lists_exactly_the_contracts_tools(door: Door) -> None:
    """A stock client connects and lists the contract's tools, each with its input schema."""

    async def act(client: Client) -> Any:
        return client.protocol_version, (await client.list_tools()).tools

    version, tools = run(door, False, act)
    assert version == "2025-11-25"
    assert {t.name for t in tools} == MCP_TOOLS
    assert all(t.input_schema["type"] == "object" and t.description for t in tools)


def test_search_finds_a_page_and_get_page_reads_it_with_its_version(door: Door) -> None:
    """search returns the seeded page (freshness, url) and get_page reads it back whole."""
    slug = seed(f"Rotar el certificado {uuid.uuid4().hex[:8]}")

    async def act(client: Client) -> Any:
        found = await client.call_tool("search", {"query": "rotar el certificado TLS"})
        page = await client.call_tool("get_page", {"slug": slug})
        return found, page

    found, page = run(door, False, act)
    assert not found.is_error, said(found)
    hits = found.structured_content["results"]
    assert slug in [h["slug"] for h in hits]
    hit = next(h for h in hits if h["slug"] == slug)
    # The page's address, at the passage's heading when it has one (a deep link).
    assert (hit["freshness"], hit["url"].split("#")[0].endswith("/index.html")) == (
        "unknown",
        True,
    )
    assert not page.is_error, said(page)
    assert page.structured_content["version"] == 1
    assert "deploy/certs/rotate.sh" in page.structured_content["content"]


def test_a_proposed_page_appears_in_biblioteca_drafts(door: Door) -> None:
    """propose_page with credentials lands as a draft that `biblioteca drafts` lists."""
    title = f"Reiniciar el balanceador {uuid.uuid4().hex[:8]}"
    content = "# Reiniciar\n\n1. Drena el tráfico.\n2. Reinicia."

    async def act(client: Client) -> Any:
        arguments = {"content": content, "front_matter": {"title": title, "type": "runbook"}}
        return await client.call_tool("propose_page", arguments)

    result = run(door, True, act)
    assert not result.is_error, said(result)
    created = result.structured_content
    assert (created["status"], created["page"]["status"]) == ("created", "draft")
    listed = {row["slug"]: row for row in drafts()}
    assert listed[created["slug"]]["title"] == title
    assert listed[created["slug"]]["generated_by"] == "mcp"


def test_a_validation_error_names_its_field(door: Door) -> None:
    """A bad front matter comes back as a tool error whose field names the culprit."""

    async def act(client: Client) -> Any:
        arguments = {"content": "x", "front_matter": {"title": "T", "type": "recipe"}}
        return await client.call_tool("propose_page", arguments)

    result = run(door, True, act)
    assert result.is_error
    assert said(result)["field"] == "front_matter.type"
    assert said(result)["code"] == "validation_error"
    assert drafts() == []


def test_propose_without_credentials_is_refused(door: Door) -> None:
    """No bearer token (HTTP) or no --allow-writes (stdio): unauthorized, nothing written."""

    async def act(client: Client) -> Any:
        arguments = {"content": "x", "front_matter": {"title": "T", "type": "guide"}}
        return await client.call_tool("propose_page", arguments)

    result = run(door, False, act)
    assert result.is_error
    assert said(result)["code"] == "unauthorized"
    assert drafts() == []


def test_report_issue_lands_in_the_feedback_store_as_a_down_vote(door: Door) -> None:
    """A reader (no credentials) reports a page: the curators' feedback store has it."""
    slug = seed(f"Rotar el certificado {uuid.uuid4().hex[:8]}")

    async def act(client: Client) -> Any:
        arguments = {"slug": slug, "reason": "outdated", "comment": "rotate.sh se movió a ops/"}
        return await client.call_tool("report_issue", arguments)

    result = run(door, False, act)
    assert not result.is_error, said(result)
    assert result.structured_content["recorded"] is True
    [item] = wiring(get_settings()).store.feedback.list()
    assert (item.slug, item.rating, item.reason, item.origin) == (slug, "down", "outdated", "mcp")
    assert item.id == result.structured_content["id"]
