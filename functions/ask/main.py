"""ask: the help widget's backend — a question in, an answer with its wiki sources out."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.services.ask import ask as answer_question
from shared.services.rate_limit import limiter
from shared.store import open_store


def _ask(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    limiter(ctx.settings.rate_limit_window).check(ctx.client_id)
    return 200, answer_question(
        body,
        ctx.settings,
        authorized=ctx.authorized,
        open_store=lambda: open_store(ctx.settings),
        client_id=ctx.client_id,
    )


@functions_framework.http
def ask(request: flask.Request) -> flask.Response:
    return handle(request, "ask", _ask, write=False, cors=True)
