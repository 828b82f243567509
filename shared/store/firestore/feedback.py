"""Answer traces (expiring) and feedback in Firestore.

A trace is one document under its ``answer_id`` whose ``expires_at`` timestamp a TTL
policy deletes (``gcloud firestore fields ttls update expires_at
--collection-group=answer_traces --enable-ttl``, docs/deploy.md); until the policy gets
to it, ``get`` ignores an expired trace. A vote (or report) carries ``expire_at``,
``retention_days`` (``BIBLIOTECA_TRACE_DAYS``) after it was cast, which the TTL policy
on ``feedback.expire_at`` deletes (``firestore.indexes.json``); ``list`` never returns one
past its days. Payloads are JSON text, as in the event log.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from shared import clock
from shared.config import DEFAULT_TRACE_DAYS
from shared.loop.feedback_json import feedback_dict, feedback_of, trace_dict, trace_of
from shared.records import AnswerTrace, FeedbackRecord
from shared.store.firestore import pages
from shared.store.firestore.db import Database

TRACES = "answer_traces"
FEEDBACK = "feedback"


class FirestoreTraces:
    """``AnswerTraces`` on Firestore: a save is one batched read of the pages and one write."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, trace: AnswerTrace) -> None:
        slugs = list(dict.fromkeys(s.slug for s in trace.sources))
        with self._db.guard("saving an answer's trace"):
            versions: dict[str, int] = {}
            if slugs:
                refs = [self._db.collection(pages.COLLECTION).document(s) for s in slugs]
                for snapshot in self._db.client().get_all(
                    refs, field_paths=["version"], **self._db.options
                ):
                    if snapshot.exists:
                        versions[snapshot.id] = int(snapshot.get("version"))
            kept = replace(
                trace,
                sources=tuple(replace(s, version=versions.get(s.slug)) for s in trace.sources),
            )
            self._db.collection(TRACES).document(trace.answer_id).set(
                {
                    "expires_at": trace.expires_at,
                    "data": json.dumps(trace_dict(kept), ensure_ascii=False),
                },
                **self._db.options,
            )

    def get(self, answer_id: str) -> AnswerTrace | None:
        with self._db.guard("reading an answer's trace"):
            snapshot = self._db.collection(TRACES).document(answer_id).get(**self._db.options)
        if not snapshot.exists:
            return None
        data: dict[str, Any] = snapshot.to_dict() or {}
        expires = data.get("expires_at")
        if isinstance(expires, datetime) and expires <= clock.now():
            return None  # expired; the TTL policy deletes it within a day or so
        return trace_of(json.loads(data.get("data", "{}")))


class FirestoreFeedback:
    """``FeedbackStore`` on Firestore: one document per client and answer (or page), kept
    ``retention_days``."""

    def __init__(self, db: Database, retention_days: int = DEFAULT_TRACE_DAYS) -> None:
        self._db = db
        self.retention_days = retention_days

    def record(self, item: FeedbackRecord) -> None:
        with self._db.guard("recording feedback"):
            self._db.collection(FEEDBACK).document(item.id).set(
                {
                    "at": item.at,
                    "data": json.dumps(feedback_dict(item), ensure_ascii=False),
                    "expire_at": item.at + timedelta(days=self.retention_days),
                },
                **self._db.options,
            )

    def list(self, *, since: datetime | None = None) -> list[FeedbackRecord]:
        # Past its days a vote is gone, whether or not the TTL policy got to it yet.
        floor = clock.now() - timedelta(days=self.retention_days)
        if since is not None:
            floor = max(floor, since if since.tzinfo else since.replace(tzinfo=UTC))
        query = self._db.collection(FEEDBACK).where(filter=FieldFilter("at", ">=", floor))
        query = query.order_by("at", direction="DESCENDING")
        with self._db.guard("listing feedback"):
            docs = list(query.stream(**self._db.stream_options))
        return [feedback_of(json.loads((d.to_dict() or {}).get("data", "{}"))) for d in docs]
