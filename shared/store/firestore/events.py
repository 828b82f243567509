"""Append-only analytics records (utility hits, archive outcomes) in Firestore.

One document per event under an automatic id; the payload is kept as JSON text
so any JSON value round-trips (Firestore refuses arrays of arrays, for one). Each carries
``expire_at``, ``retention_days`` (``BIBLIOTECA_TRACE_DAYS``) after it was recorded, which
the TTL policy on ``events.expire_at`` deletes (``firestore.indexes.json``, applied by
``deploy/firestore_indexes.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from shared import clock
from shared.config import DEFAULT_TRACE_DAYS
from shared.json_value import JsonObject
from shared.records import EventKind
from shared.store.firestore.db import Database

COLLECTION = "events"


class FirestoreEvents:
    """``EventLog`` on Firestore."""

    def __init__(self, db: Database, retention_days: int = DEFAULT_TRACE_DAYS) -> None:
        self._db = db
        self.retention_days = retention_days

    def record(self, kind: EventKind, data: Mapping[str, Any]) -> None:
        at = clock.now()
        payload = json.dumps({**data, "at": at.isoformat()}, ensure_ascii=False, default=str)
        with self._db.guard(f"recording a {kind} event"):
            self._db.collection(COLLECTION).document().set(
                {
                    "kind": kind,
                    "at": at,
                    "data": payload,
                    "expire_at": at + timedelta(days=self.retention_days),
                },
                **self._db.options,
            )

    def recent(self, kind: EventKind, limit: int = 100) -> list[JsonObject]:
        if limit <= 0:
            return []
        query = (
            self._db.collection(COLLECTION)
            .where(filter=FieldFilter("kind", "==", kind))
            .order_by("at", direction="DESCENDING")
            .limit(limit)
        )
        with self._db.guard(f"reading recent {kind} events"):
            docs = list(query.stream(**self._db.options))
        return [json.loads((doc.to_dict() or {}).get("data", "{}")) for doc in docs]
