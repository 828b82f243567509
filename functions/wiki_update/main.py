"""wiki_update: change a page's body and/or metadata, with optimistic concurrency."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.providers.factory import embedder_for
from shared.services.wiki import update_page
from shared.store import open_store


def _update(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    result = update_page(body, open_store(ctx.settings), embedder_for(ctx.settings))
    return 200, result.body()


@functions_framework.http
def wiki_update(request: flask.Request) -> flask.Response:
    return handle(request, "wiki_update", _update, write=True)
