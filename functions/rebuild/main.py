"""rebuild: build the static site (incremental unless ``full``); the body is always the report."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import RebuildRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle


def _rebuild(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = RebuildRequest.parse(body)
    report = wiring(ctx.settings).rebuild(full=request.full)
    return report.http_status, report.response().body()


@functions_framework.http
def rebuild(request: flask.Request) -> flask.Response:
    return handle(request, "rebuild", _rebuild, write=True)
