"""rebuild: build the static site (incremental unless ``full``); the body is always the report."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import RebuildRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle
from shared.services.site_build import build_site


def _rebuild(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = RebuildRequest.parse(body)
    w = wiring(ctx.settings)
    report = build_site(
        ctx.settings,
        full=request.full,
        store=w.store,
        publisher=w.publisher(),
        curator_report=w.curator_report(),
        embedder=w.embedder,  # the report's gaps: loaded only when there are some
    )
    return report.http_status, report.body()


@functions_framework.http
def rebuild(request: flask.Request) -> flask.Response:
    return handle(request, "rebuild", _rebuild, write=True)
