"""wiki_create: create a wiki page (Markdown + front matter), validated at the door."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import WikiCreateRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle


def _create(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = WikiCreateRequest.parse(body)
    result = wiring(ctx.settings).create_page(request, actor=ctx.writer(), role=ctx.role)
    return 201, result.response().body()


@functions_framework.http
def wiki_create(request: flask.Request) -> flask.Response:
    return handle(request, "wiki_create", _create, write=True)
