"""rebuild: build the static site (incremental unless ``full``); the body is always the report."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.services.site_build import build_site, parse_request


def _rebuild(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    report = build_site(ctx.settings, full=parse_request(body))
    return report.http_status, report.body()


@functions_framework.http
def rebuild(request: flask.Request) -> flask.Response:
    return handle(request, "rebuild", _rebuild, write=True)
