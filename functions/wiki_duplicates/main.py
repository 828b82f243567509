"""wiki_duplicates: the duplicate groups of the wiki (copies, overlaps, translations,
conflicts), brought up to date with what changed since the last run."""

from __future__ import annotations

from typing import Any

import flask
import functions_framework

from shared.api.models import DuplicatesRequest
from shared.bootstrap import wiring
from shared.http import RequestContext, handle


def _duplicates(body: dict[str, Any], ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    request = DuplicatesRequest.parse(body)
    return 200, wiring(ctx.settings).duplicates(min_score=request.min_score).body()


@functions_framework.http
def wiki_duplicates(request: flask.Request) -> flask.Response:
    # Write credentials: a run writes the signatures it keeps, and lists drafts too.
    return handle(request, "wiki_duplicates", _duplicates, write=True)
