"""index_code: record the file paths of a code repository for the grounding gate."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.services.code_index import index_request
from shared.store import open_store


def _index(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    return 200, index_request(body, open_store(ctx.settings))


@functions_framework.http
def index_code(request: flask.Request) -> flask.Response:
    return handle(request, "index_code", _index, write=True)
