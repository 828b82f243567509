"""enrich: one page change from the Pub/Sub topic (a CloudEvent of Cloud Functions gen2)
becomes the enrichers' proposals (``shared.services.enrich``).

Raising makes Pub/Sub deliver the message again, with the subscription's backoff; so a
failed change raises until the store's ledger sets it aside (its 5th failure), then the
message is acknowledged. A message that names no page is acknowledged and logged: no
retry can fix it.
"""

from __future__ import annotations

import logging

import functions_framework
from cloudevents.http import CloudEvent

from shared.bootstrap import wiring
from shared.errors import InvalidInput
from shared.providers.pubsub import change_of

log = logging.getLogger("biblioteca.enrich")


class EnrichmentFailed(RuntimeError):
    """The change failed and will be retried (Pub/Sub redelivers an unacknowledged one)."""


@functions_framework.cloud_event
def enrich(event: CloudEvent) -> None:
    try:
        slug = change_of(event.get_data())
    except InvalidInput as exc:
        log.error("enrich: message %s dropped: %s", event.get("id"), exc.message)
        return
    result = wiring().enrichment().enrich_change(slug)
    log.info("enrich: %s", result.body())
    if result.error is not None and not result.dead:
        raise EnrichmentFailed(f"{slug} v{result.version}: {result.error}")
