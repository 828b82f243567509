"""wiki_update: change a page's body and/or metadata, with optimistic concurrency."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import WikiUpdateRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle


def _update(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = WikiUpdateRequest.parse(body)
    result = wiring(ctx.settings).update_page(request, actor=ctx.writer(), role=ctx.role)
    return 200, result.response().body()


@functions_framework.http
def wiki_update(request: flask.Request) -> flask.Response:
    return handle(request, "wiki_update", _update, write=True)
