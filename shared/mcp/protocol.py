"""The Model Context Protocol's JSON-RPC 2.0 core, shared by both transports.

The subset a tools-only server needs: ``initialize``, ``ping``, ``tools/list``,
``tools/call`` and the client's notifications, for every protocol revision reached by
the ``initialize`` handshake. Anything else is "method not found" (a client that probes
newer methods first, as the official SDK's ``server/discover``, then falls back to the
handshake). A tool's failure is a tool result with ``isError`` and the contract's error
body, so the agent reads which field to fix; protocol faults are JSON-RPC errors.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from functools import cache
from typing import Any, TypeGuard

from shared.bootstrap import Wiring
from shared.errors import BibliotecaError
from shared.json_value import JsonValue
from shared.logs import get_logger
from shared.mcp.messages import (
    ErrorResponse,
    RequestId,
    Response,
    Result,
    RpcError,
    ToolDefinition,
    ToolResult,
)
from shared.mcp.tools import BY_NAME, TOOLS, Caller

# Newest first: the answer to a client that asks for a revision we do not know.
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SERVER_NAME = "biblioteca"
SERVER_VERSION = "1"
INSTRUCTIONS = (
    "Biblioteca is this team's wiki (pages mostly in Spanish). Search it before answering "
    "questions about the team's code, decisions and runbooks; read a page with get_page; "
    "use pages_citing before changing a file, to know which pages describe it. New "
    "knowledge goes in with propose_page (a draft a curator reviews) and corrections "
    "with propose_update (read the page first: expected_version is its version)."
)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_log = get_logger("mcp")


class ProtocolError(Exception):
    """A JSON-RPC error: the request itself is wrong (not a tool's failure)."""

    def __init__(self, code: int, message: str, data: JsonValue = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def response(self, request_id: RequestId) -> ErrorResponse:
        error: RpcError = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": request_id, "error": error}


def negotiate(requested: object) -> str:
    """The revision to speak: the client's when we know it, else our newest (the client
    then decides whether it can)."""
    if isinstance(requested, str) and requested in PROTOCOL_VERSIONS:
        return requested
    return PROTOCOL_VERSIONS[0]


def valid_id(value: object) -> TypeGuard[str | int]:
    """Whether ``value`` may be a request's id: a string or an integer (never null)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def handle(message: object, wiring: Wiring, caller: Caller) -> Response | None:
    """The response to one JSON-RPC message, or None for a notification or a response."""
    if not isinstance(message, dict):
        return ProtocolError(INVALID_REQUEST, "a message is a JSON object").response(None)
    request_id = message.get("id")
    if message.get("jsonrpc") != "2.0":
        return ProtocolError(INVALID_REQUEST, 'jsonrpc must be "2.0"').response(_echo(request_id))
    method = message.get("method")
    if method is None:
        # A client's response to a request of ours: we send none, so there is nothing to do.
        return None
    if not isinstance(method, str):
        return ProtocolError(INVALID_REQUEST, "method must be a string").response(_echo(request_id))
    if "id" not in message:
        return None  # a notification (initialized, cancelled…): nothing to answer
    if not valid_id(request_id):
        return ProtocolError(INVALID_REQUEST, "id must be a string or an integer").response(None)
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return ProtocolError(INVALID_PARAMS, "params must be an object").response(request_id)
    try:
        result = _dispatch(method, params or {}, wiring, caller)
    except ProtocolError as exc:
        return exc.response(request_id)
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _echo(request_id: object) -> RequestId:
    return request_id if valid_id(request_id) else None


def _dispatch(method: str, params: Mapping[str, Any], wiring: Wiring, caller: Caller) -> Result:
    if method == "initialize":
        return {
            "protocolVersion": negotiate(params.get("protocolVersion")),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "title": "Biblioteca", "version": SERVER_VERSION},
            "instructions": INSTRUCTIONS,
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": definitions()}
    if method == "tools/call":
        return call_tool(params, wiring, caller)
    raise ProtocolError(METHOD_NOT_FOUND, f"method not found: {method[:100]}")


@cache
def definitions() -> list[ToolDefinition]:
    """Every tool as ``tools/list`` shows it (their schemas are built once per process)."""
    return [tool.definition() for tool in TOOLS]


def call_tool(params: Mapping[str, Any], wiring: Wiring, caller: Caller) -> ToolResult:
    """``tools/call``: the tool's result, or its failure as a result with ``isError``."""
    name = params.get("name")
    tool = BY_NAME.get(name) if isinstance(name, str) else None
    if tool is None:
        raise ProtocolError(
            INVALID_PARAMS, f"unknown tool: {str(name)[:100]}; the tools are {', '.join(BY_NAME)}"
        )
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise ProtocolError(INVALID_PARAMS, "arguments must be an object")
    started = time.perf_counter()
    code: str | None = None
    result: ToolResult
    try:
        structured = tool.call(arguments, wiring, caller)
    except BibliotecaError as exc:
        code = exc.code
        result = _failure(exc.body())
    except Exception:
        _log.exception("the tool %s failed", tool.name, extra={"tool": tool.name})
        code = "internal_error"
        result = _failure({"error": "internal error: the failure was logged", "code": code})
    else:
        result = {
            "content": [{"type": "text", "text": _text(structured)}],
            "structuredContent": structured,
            "isError": False,
        }
    # Which tools agents use and how they fail: the name and the code, never the arguments.
    _log.info(
        "tool %s %s",
        tool.name,
        code or "ok",
        extra={
            "tool": tool.name,
            "code": code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )
    return result


def _failure(body: Mapping[str, JsonValue]) -> ToolResult:
    # The contract's error body, as text: no structuredContent, which would have to match
    # the tool's output schema.
    return {"content": [{"type": "text", "text": _text(body)}], "isError": True}


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
