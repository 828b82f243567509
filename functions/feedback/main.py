"""feedback: a 👍/👎 on an ask answer, or an agent's report on a page, for the curators."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import FeedbackRequest
from shared.bootstrap import rate_limit, wiring
from shared.config import Settings
from shared.http import RequestContext, handle
from shared.services.feedback import record_feedback


def _feedback(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    w = wiring(ctx.settings)
    request = FeedbackRequest.parse(body)
    return 200, record_feedback(
        request, w.store, client_id=ctx.client_id, authorized=ctx.authorized
    ).body()


def _closed(settings: Settings) -> bool:
    """BIBLIOTECA_FEEDBACK_FROM_WIDGET=0: the write token is checked before the body."""
    return not settings.feedback_from_widget


@functions_framework.http
def feedback(request: flask.Request) -> flask.Response:
    return handle(
        request, "feedback", _feedback, write=_closed, cors=True, limit=rate_limit("feedback")
    )
