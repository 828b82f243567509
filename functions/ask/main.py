"""ask: the help widget's backend — a question in, an answer with its wiki sources out."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import AskRequest
from shared.bootstrap import wiring
from shared.http import EventStream, RequestContext, handle
from shared.services.ask import ask as answer_question
from shared.services.ask import ask_stream
from shared.services.rate_limit import limiter


def _ask(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any] | EventStream]:
    limiter(ctx.settings.rate_limit_window).check(ctx.client_id)
    request = AskRequest.parse(body)
    w = wiring(ctx.settings)
    service = ask_stream if request.stream else answer_question
    answered = service(
        request,
        ctx.settings,
        authorized=ctx.authorized,
        store=w.store,
        embedder=w.embedder,
        answerer=w.answerer(),
        judge=w.judge,
        condenser=w.condenser,
        client_id=ctx.client_id,
    )
    return 200, EventStream(answered) if request.stream else answered


@functions_framework.http
def ask(request: flask.Request) -> flask.Response:
    return handle(request, "ask", _ask, write=False, cors=True)
