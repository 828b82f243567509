"""ask: the help widget's backend — a question in, an answer with its wiki sources out."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import AskRequest
from shared.bootstrap import rate_limit, wiring
from shared.http import EventStream, RequestContext, handle


def _ask(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any] | EventStream]:
    w = wiring(ctx.settings)
    request = AskRequest.parse(body)
    if request.stream:
        streamed = w.ask_stream(request, authorized=ctx.authorized, client_id=ctx.client_id)
        return 200, EventStream(streamed)
    return 200, w.ask(request, authorized=ctx.authorized, client_id=ctx.client_id).body()


@functions_framework.http
def ask(request: flask.Request) -> flask.Response:
    return handle(request, "ask", _ask, write=False, cors=True, limit=rate_limit("ask"))
