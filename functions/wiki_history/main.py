"""wiki_history: a page's revisions, newest first: when, by whom, what changed."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import WikiHistoryRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle
from shared.services.history import history


def _history(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = WikiHistoryRequest.parse(body)
    return 200, history(request.slug, wiring(ctx.settings).store, limit=request.limit).body()


@functions_framework.http
def wiki_history(request: flask.Request) -> flask.Response:
    # Write credentials: who wrote what is the writers' business, not the widget's.
    return handle(request, "wiki_history", _history, write=True)
