"""The stdio transport of ``biblioteca mcp``: one JSON-RPC message per line, both ways.

Responses go to stdout and nothing else does (logs go to stderr); a line that is not
JSON is answered with a parse error and the server reads on.
"""

from __future__ import annotations

import json
from typing import IO, Any

from shared.bootstrap import Wiring
from shared.http import has_lone_surrogate
from shared.logs import scrub
from shared.mcp.protocol import INVALID_REQUEST, PARSE_ERROR, ProtocolError, handle
from shared.mcp.tools import Caller


def serve(stdin: IO[str], stdout: IO[str], wiring: Wiring, caller: Caller) -> int:
    """Answer every message on ``stdin`` until it closes; the exit status."""
    for line in stdin:
        if not line.strip():
            continue
        response: dict[str, Any] | None
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
                response = handle(message, wiring, caller)
        if response is not None:
            # One line per message: json.dumps escapes every newline inside strings.
            stdout.write(scrub(json.dumps(response, ensure_ascii=False)) + "\n")
            stdout.flush()
    return 0
