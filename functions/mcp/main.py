"""mcp: the agents' door — the Model Context Protocol over streamable HTTP, JSON answers."""

from __future__ import annotations

import flask
import functions_framework

from shared.http import handle
from shared.mcp.streamable_http import exchange


@functions_framework.http
def mcp(request: flask.Request) -> flask.Response:
    # Reading tools need no credentials (write=False); under BIBLIOTECA_AUTH=iam the
    # function is deployed private, so every caller passed IAM and may propose.
    return handle(request, "mcp", exchange, write=False, private=True)
