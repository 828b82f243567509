"""wiki_create: create a wiki page (Markdown + front matter), validated at the door."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.providers.factory import embedder_for
from shared.services.wiki import create_page
from shared.store import open_store


def _create(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    result = create_page(body, open_store(ctx.settings), embedder_for(ctx.settings))
    return 201, result.body()


@functions_framework.http
def wiki_create(request: flask.Request) -> flask.Response:
    return handle(request, "wiki_create", _create, write=True)
