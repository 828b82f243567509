"""The JSON-RPC 2.0 and MCP messages this server sends, typed: a result or an error for a
request, a tool's definition and a tool's result. Plain dicts at run time (``json.dumps``
writes them as built), checked by mypy where they are built."""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from shared.json_value import JsonObject, JsonValue

RequestId: TypeAlias = "str | int | None"  # None: the request's own id could not be read


class RpcError(TypedDict):
    code: int
    message: str
    data: NotRequired[JsonValue]


class ErrorResponse(TypedDict):
    jsonrpc: Literal["2.0"]
    id: RequestId
    error: RpcError


class TextContent(TypedDict):
    type: Literal["text"]
    text: str


class ToolResult(TypedDict):
    """``tools/call``'s result: the response body as text, and as ``structuredContent``
    unless it is a failure (``isError``, the contract's error body as text only)."""

    content: list[TextContent]
    structuredContent: NotRequired[JsonObject]
    isError: bool


class Annotations(TypedDict):
    title: str
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ToolDefinition(TypedDict):
    """A tool as ``tools/list`` shows it; its schemas are JSON Schema documents."""

    name: str
    title: str
    description: str
    inputSchema: JsonObject
    outputSchema: JsonObject
    annotations: Annotations


class ServerInfo(TypedDict):
    name: str
    title: str
    version: str


class Initialized(TypedDict):
    """``initialize``'s result: the revision spoken, what the server offers, who it is."""

    protocolVersion: str
    capabilities: JsonObject
    serverInfo: ServerInfo
    instructions: str


class ToolList(TypedDict):
    tools: list[ToolDefinition]


class Empty(TypedDict):
    """``ping``'s result."""


Result: TypeAlias = "Initialized | Empty | ToolList | ToolResult"


class ResultResponse(TypedDict):
    jsonrpc: Literal["2.0"]
    id: RequestId
    result: Result


Response: TypeAlias = "ResultResponse | ErrorResponse"
