"""Streamable HTTP as a stateless server that answers JSON: one POST, one message, one answer.

No session is issued (any instance answers any request) and no event stream is opened: a
request gets its response as ``application/json``, a notification or a response ``202``
with no body, and GET or DELETE the edge's 405. Credentials are the edge's: with
``BIBLIOTECA_AUTH=iam`` the function is private and every caller may write; with
``token`` the bearer token lets a caller write, and without it the reading tools still work.
"""

from __future__ import annotations

from shared.bootstrap import wiring
from shared.config import Settings
from shared.errors import BibliotecaError, Forbidden, NotConfigured, Unauthorized
from shared.http import RequestContext
from shared.json_value import JsonObject
from shared.mcp.messages import Response
from shared.mcp.protocol import (
    INVALID_REQUEST,
    PROTOCOL_VERSIONS,
    ProtocolError,
    handle,
    valid_id,
)
from shared.mcp.tools import MCP_ACTOR, Caller

VERSION_HEADER = "mcp-protocol-version"


def exchange(body: JsonObject, ctx: RequestContext) -> tuple[int, Response | None]:
    """Answer one POSTed message: ``(status, JSON-RPC response or None for a 202)``."""
    if ctx.origin is not None and ctx.origin.rstrip("/") not in ctx.settings.allowed_origins:
        # What a local server must refuse (DNS rebinding): a web page's request from an
        # origin nobody allowed. Agents send no Origin at all.
        raise Forbidden(
            f"requests from web pages need their origin in BIBLIOTECA_ALLOWED_ORIGINS "
            f"({ctx.origin[:100]} is not)"
        )
    version = ctx.headers.get(VERSION_HEADER)
    if version is not None and version not in PROTOCOL_VERSIONS:
        error = ProtocolError(
            INVALID_REQUEST,
            f"unsupported MCP-Protocol-Version {version[:40]!r}; this server speaks "
            + ", ".join(PROTOCOL_VERSIONS),
            data={"supported": list(PROTOCOL_VERSIONS), "requested": version[:40]},
        )
        request_id = body.get("id")
        return 400, error.response(request_id if valid_id(request_id) else None)
    caller = Caller(
        may_write=ctx.authorized,
        refusal=None if ctx.authorized else refusal(ctx.settings),
        client_id=ctx.client_id,
        # Stateless: no session remembers the client's name from its handshake, so an
        # agent over HTTP is known by the credential it writes with.
        actor=f"{MCP_ACTOR}:{ctx.writer()}" if ctx.authorized else MCP_ACTOR,
    )
    response = handle(body, wiring(ctx.settings), caller)
    return (202, None) if response is None else (200, response)


def refusal(settings: Settings) -> BibliotecaError:
    """Why a caller without credentials may not propose: no token presented, or none set."""
    if not settings.credentials():
        return NotConfigured(
            "propose_page and propose_update are disabled: set BIBLIOTECA_API_TOKENS "
            "or BIBLIOTECA_API_TOKEN (or deploy mcp private, with BIBLIOTECA_AUTH=iam)"
        )
    return Unauthorized(
        "propose_page and propose_update need write credentials: send "
        "Authorization: Bearer <a token of BIBLIOTECA_API_TOKENS or BIBLIOTECA_API_TOKEN>"
    )
