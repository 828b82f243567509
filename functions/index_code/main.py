"""index_code: record the file paths of a code repository for the grounding gate."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import IndexCodeRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle
from shared.services.code_index import index_paths


def _index(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = IndexCodeRequest.parse(body)
    store = wiring(ctx.settings).store
    return 200, index_paths(request.repo, request.paths, store, replace=request.replace).body()


@functions_framework.http
def index_code(request: flask.Request) -> flask.Response:
    return handle(request, "index_code", _index, write=True)
