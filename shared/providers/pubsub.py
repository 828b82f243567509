"""The Pub/Sub side of the enrichment queue: publishing page changes to the topic, and
reading one change out of the ``enrich`` function's CloudEvent.

The client is built on first use (STYLE 2) and honours ``PUBSUB_EMULATOR_HOST`` itself,
as the tests run it against the official emulator. Vendor errors become ours here.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from shared.errors import InvalidInput, Unavailable

PUBLISH_TIMEOUT_S = 30.0


class ChangePublisher:
    """Publishes ``{"slug": ...}`` messages to one topic (attribute ``slug`` too, so a
    subscription may filter)."""

    def __init__(self, project: str, topic: str) -> None:
        self.project = project
        self.topic = topic
        self._client: Any = None
        self._lock = threading.Lock()

    def _publisher(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    from google.cloud.pubsub_v1 import PublisherClient

                    self._client = PublisherClient()
        return self._client

    @property
    def topic_path(self) -> str:
        return f"projects/{self.project}/topics/{self.topic}"

    def publish(self, slugs: Sequence[str]) -> None:
        """Publish one message per slug and wait until Pub/Sub holds every one;
        ``Unavailable`` when it does not (the caller's cursor then stays put)."""
        from google.api_core import exceptions as gexc

        client = self._publisher()
        try:
            futures = [
                client.publish(self.topic_path, change_message(slug), slug=slug) for slug in slugs
            ]
            for future in futures:
                future.result(timeout=PUBLISH_TIMEOUT_S)
        except (gexc.GoogleAPICallError, gexc.RetryError, TimeoutError) as exc:
            raise Unavailable(
                f"publishing page changes to {self.topic_path} failed: {exc}"
            ) from exc


def change_message(slug: str) -> bytes:
    return json.dumps({"slug": slug}, ensure_ascii=False).encode()


def change_of(event_data: Mapping[str, Any] | None) -> str:
    """The slug a Pub/Sub CloudEvent's message names (``InvalidInput`` when it names none:
    such a message is acknowledged and dropped, never retried)."""
    message = (event_data or {}).get("message")
    if not isinstance(message, Mapping):
        raise InvalidInput("the event carries no Pub/Sub message", field="message")
    attributes = message.get("attributes") or {}
    raw = message.get("data")
    try:
        data = json.loads(base64.b64decode(raw)) if isinstance(raw, str) and raw else {}
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput("the message's data is not base64 JSON", field="message.data") from exc
    slug = (data.get("slug") if isinstance(data, Mapping) else None) or attributes.get("slug")
    if not isinstance(slug, str) or not slug.strip():
        raise InvalidInput("the message names no page slug", field="message.data.slug")
    return slug.strip()
