"""archive: send a question and its answer through the gates; a pass becomes a draft page."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import ArchiveRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle


def _archive(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = ArchiveRequest.parse(body)
    return 200, wiring(ctx.settings).archive(request).body()


@functions_framework.http
def archive(request: flask.Request) -> flask.Response:
    return handle(request, "archive", _archive, write=True)
