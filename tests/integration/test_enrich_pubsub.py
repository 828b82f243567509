"""The enrichment queue through the official Pub/Sub emulator: the change log's outbox
publishes each page change, and the ``enrich`` function (a CloudEvent function) handles
each delivery; a message delivered twice makes one set of proposals."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import functions_framework
import pytest

from shared.bootstrap import reset, wiring
from shared.config import get_settings
from shared.errors import Unavailable
from shared.providers.pubsub import ChangePublisher
from shared.services.bulk_review import open_proposals
from shared.services.enrich import OUTBOX, publish_changes
from tests.fixtures.pubsub import Topic

pytestmark = pytest.mark.pubsub
FUNCTION = Path(__file__).resolve().parents[2] / "functions" / "enrich" / "main.py"


def _write(client: Any, auth: dict[str, str], slug: str, content: str) -> None:
    response = client("wiki_create").post(
        "/",
        json={"slug": slug, "front_matter": {"title": slug, "type": "guide"}, "content": content},
        headers=auth,
    )
    assert response.status_code == 201, response.get_json()


def _deliver(message: Any, topic: Topic) -> int:
    """POST one pulled message to the ``enrich`` function as Eventarc does (a CloudEvent
    in binary mode whose data is the Pub/Sub message); the HTTP status it answers."""
    app = functions_framework.create_app("enrich", str(FUNCTION), "cloudevent")
    body = {
        "message": {
            "data": base64.b64encode(message.message.data).decode(),
            "attributes": dict(message.message.attributes),
            "messageId": message.message.message_id,
        },
        "subscription": topic.subscription_path,
    }
    headers = {
        "ce-id": message.message.message_id,
        "ce-source": f"//pubsub.googleapis.com/projects/{topic.project}/topics/{topic.topic}",
        "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
        "ce-specversion": "1.0",
    }
    return int(app.test_client().post("/", json=body, headers=headers).status_code)


def test_a_change_delivered_twice_makes_one_set_of_proposals(
    client: Any, auth: dict[str, str], pubsub_topic: Topic
) -> None:
    """A write's change goes through the outbox to the topic; the function handles it,
    the emulator delivers it again (nacked, as after a lost ack): no second proposal."""
    _write(
        client, auth, "guide—pool", "# Pool\n\nEl pool reutiliza conexiones abiertas del servidor."
    )
    store = wiring().store
    publisher = ChangePublisher(pubsub_topic.project, pubsub_topic.topic)
    assert publish_changes(store, publisher.publish) == 1

    (first,) = pubsub_topic.pull()
    assert _deliver(first, pubsub_topic) == 200
    pubsub_topic.redeliver([first.ack_id])
    (again,) = pubsub_topic.pull()
    assert again.message.message_id == first.message.message_id
    assert again.delivery_attempt in (0, 2)  # the emulator counts only with a dead-letter policy
    assert _deliver(again, pubsub_topic) == 200
    pubsub_topic.ack([again.ack_id])

    assert [p["actor"] for p in open_proposals(store)] == ["enrich:description"]
    assert publish_changes(store, publisher.publish) == 0  # the outbox moved past it


def test_the_outbox_keeps_its_place_when_publishing_fails(
    client: Any, auth: dict[str, str], pubsub_topic: Topic
) -> None:
    """A topic that does not exist: the publish fails, the cursor stays, and the next
    drain (to the real topic) publishes the change: nothing lost."""
    _write(client, auth, "guide—pool", "# Pool\n\nTexto del pool de conexiones del servidor.")
    store = wiring().store
    publish_changes(store, ChangePublisher(pubsub_topic.project, pubsub_topic.topic).publish)
    pubsub_topic.ack([m.ack_id for m in pubsub_topic.pull()])
    position = store.enrichment.position(OUTBOX)
    _write(client, auth, "guide—otra", "# Otra\n\nOtra página del pool de conexiones.")

    with pytest.raises(Unavailable):
        publish_changes(store, ChangePublisher(pubsub_topic.project, "no-such-topic").publish)
    assert store.enrichment.position(OUTBOX) == position

    assert (
        publish_changes(store, ChangePublisher(pubsub_topic.project, pubsub_topic.topic).publish)
        == 1
    )
    (message,) = pubsub_topic.pull()
    assert (
        b"guide\\u2014otra" in message.message.data or "guide—otra".encode() in message.message.data
    )


def test_a_message_naming_no_page_is_acknowledged_not_retried(
    pubsub_topic: Topic, env: Any
) -> None:
    """A message without a slug can never succeed: the function answers 200 (acknowledged)
    and logs it, instead of a retry loop."""
    pubsub_topic.publisher.publish(
        f"projects/{pubsub_topic.project}/topics/{pubsub_topic.topic}", b"not json"
    ).result(timeout=10)
    (message,) = pubsub_topic.pull()
    assert _deliver(message, pubsub_topic) == 200


@pytest.mark.firestore
def test_on_firestore_each_http_write_publishes_its_change_after_the_commit(
    client: Any,
    auth: dict[str, str],
    pubsub_topic: Topic,
    firestore_emulator: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deployed shape: a ``wiki_create`` on Firestore drains the outbox to the topic
    itself, so the change is in Pub/Sub when the write answers; the function enriches it."""
    monkeypatch.setenv("BIBLIOTECA_STORE", "firestore")
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", firestore_emulator)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", pubsub_topic.project)
    get_settings.cache_clear()
    reset()
    _write(
        client, auth, "guide—pool", "# Pool\n\nEl pool reutiliza conexiones abiertas del servidor."
    )
    slugs = {json.loads(m.message.data)["slug"] for m in pubsub_topic.pull()}
    assert "guide—pool" in slugs
    _write(client, auth, "guide—otra", "# Otra\n\nOtra página sobre otra cosa distinta.")
    (message,) = pubsub_topic.pull()
    assert json.loads(message.message.data) == {"slug": "guide—otra"}
    assert _deliver(message, pubsub_topic) == 200
    assert [p["slug"] for p in open_proposals(wiring().store)] == ["guide—otra"]
