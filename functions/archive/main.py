"""archive: send a question and its answer through the gates; a pass becomes a draft page."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.http import RequestContext, handle
from shared.services.archive import archive_request
from shared.store import open_store


def _archive(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    return 200, archive_request(body, open_store(ctx.settings), ctx.settings)


@functions_framework.http
def archive(request: flask.Request) -> flask.Response:
    return handle(request, "archive", _archive, write=True)
