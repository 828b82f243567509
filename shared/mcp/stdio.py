"""The stdio transport of ``biblioteca mcp``: one JSON-RPC message per line, both ways.

Responses go to stdout and nothing else does (logs go to stderr); a line that is not
JSON is answered with a parse error and the server reads on. A line is read at most
``MAX_LINE_CHARS`` at a time: a longer one is refused (a JSON-RPC error) and the rest of it
skipped in pieces of that size, never held whole (a 200 MiB line took the process from
69 to 495 MB).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import IO

from shared.bootstrap import Wiring
from shared.http import has_lone_surrogate
from shared.logs import scrub
from shared.mcp.messages import Response
from shared.mcp.protocol import INVALID_REQUEST, PARSE_ERROR, ProtocolError, handle
from shared.mcp.tools import MCP_ACTOR, Caller
from shared.request_body import MAX_BODY_BYTES

# A message over stdio may be as large as a request body over HTTP (1 MiB).
MAX_LINE_CHARS = MAX_BODY_BYTES

_CLIENT_NAME = re.compile(r"[^A-Za-z0-9._@+-]+")


def client_actor(message: object) -> str | None:
    """``mcp:<client name>`` from an ``initialize`` request's ``clientInfo`` (None for any
    other message): over stdio one process is one session, so the name holds for it."""
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    info = params.get("clientInfo") if isinstance(params, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    cleaned = _CLIENT_NAME.sub("-", name.strip())[:64].strip("-") if isinstance(name, str) else ""
    return f"{MCP_ACTOR}:{cleaned or 'stdio'}"


def _lines(stdin: IO[str]) -> Iterator[str | None]:
    """Each line of ``stdin``, or None for one past ``MAX_LINE_CHARS`` (skipped, unheld)."""
    while line := stdin.readline(MAX_LINE_CHARS + 1):
        if len(line) <= MAX_LINE_CHARS or line.endswith("\n"):
            yield line
            continue
        while (rest := stdin.readline(MAX_LINE_CHARS)) and not rest.endswith("\n"):
            pass  # the rest of the long line, a piece at a time
        yield None


def serve(stdin: IO[str], stdout: IO[str], wiring: Wiring, caller: Caller) -> int:
    """Answer every message on ``stdin`` until it closes; the exit status."""
    if caller.actor == MCP_ACTOR:
        caller = dataclasses.replace(caller, actor=f"{MCP_ACTOR}:stdio")
    for line in _lines(stdin):
        response: Response | None
        if line is None:
            response = ProtocolError(
                INVALID_REQUEST, f"a message is at most {MAX_LINE_CHARS} characters on one line"
            ).response(None)
            stdout.write(json.dumps(response) + "\n")
            stdout.flush()
            continue
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            response = ProtocolError(PARSE_ERROR, "a line is one JSON-RPC message").response(None)
        else:
            if has_lone_surrogate(message):
                response = ProtocolError(
                    INVALID_REQUEST, "the message escapes a lone UTF-16 surrogate: not text"
                ).response(None)
            else:
                actor = client_actor(message)
                if actor is not None:
                    caller = dataclasses.replace(caller, actor=actor)
                response = handle(message, wiring, caller)
        if response is not None:
            # One line per message: json.dumps escapes every newline inside strings.
            stdout.write(scrub(json.dumps(response, ensure_ascii=False)) + "\n")
            stdout.flush()
    return 0
