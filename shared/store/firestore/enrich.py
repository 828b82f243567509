"""The enrichment ledger on Firestore: ``enrich_cursors/{name}``, ``enrich_claims/{key}``
and ``enrich_failures/{slug-version}``.

A claim is a document ``create``: of two deliveries of one message exactly one creates it,
the other gets ``AlreadyExists``. A failure's count is written against the
``update_time`` it read, so two failing workers never lose a count. Every query here
uses single-field indexes only (``retry_at`` is set on changes still to retry, removed
once dead), so nothing is added to ``firestore.indexes.json``.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.firestore_v1 import DELETE_FIELD
from google.cloud.firestore_v1.base_query import FieldFilter

from shared.clock import now
from shared.enrich.ledger import MAX_ATTEMPTS, backoff_s
from shared.errors import Conflict
from shared.records import Failure
from shared.store.firestore.db import Database

CURSORS = "enrich_cursors"
CLAIMS = "enrich_claims"
FAILURES = "enrich_failures"
_TRIES = 5  # a count written against what it read: lost races before giving up


def _failure_id(slug: str, version: int) -> str:
    return hashlib.sha256(f"{slug}\x1f{version}".encode()).hexdigest()[:40]


def _failure(data: dict[str, Any]) -> Failure:
    return Failure(
        slug=str(data["slug"]),
        version=int(data["version"]),
        attempts=int(data["attempts"]),
        error=str(data.get("error", "")),
        at=datetime.fromisoformat(str(data["at"])),
        next_at=float(data.get("next_at", 0.0)),
        dead=bool(data.get("dead")),
    )


class FirestoreEnrichLedger:
    """``EnrichLedger`` on Firestore."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def position(self, name: str) -> str | None:
        with self._db.guard("reading the enrichment cursor"):
            snapshot = self._db.collection(CURSORS).document(name).get(**self._db.options)
        return str((snapshot.to_dict() or {}).get("cursor")) if snapshot.exists else None

    def move(self, name: str, cursor: str) -> None:
        with self._db.guard("moving the enrichment cursor"):
            self._db.collection(CURSORS).document(name).set(
                {"cursor": cursor, "at": now().isoformat()}, **self._db.options
            )

    def claim(self, key: str) -> bool:
        ref = self._db.collection(CLAIMS).document(key)
        with self._db.guard("claiming an enrichment"):
            try:
                ref.create({"at": now().isoformat()}, **self._db.options)
            except gexc.AlreadyExists:
                return False
        return True

    def release(self, key: str) -> None:
        with self._db.guard("releasing an enrichment claim"):
            self._db.collection(CLAIMS).document(key).delete(**self._db.options)

    def fail(self, slug: str, version: int, error: str) -> Failure:
        ref = self._db.collection(FAILURES).document(_failure_id(slug, version))
        client = self._db.client()
        for _ in range(_TRIES):
            with self._db.guard("counting a failed enrichment"):
                snapshot = ref.get(**self._db.options)
                old = (snapshot.to_dict() or {}) if snapshot.exists else {}
                attempts = int(old.get("attempts", 0)) + (0 if old.get("dead") else 1)
                dead = attempts >= MAX_ATTEMPTS
                next_at = time.time() + backoff_s(attempts)
                data: dict[str, Any] = {
                    "slug": slug,
                    "version": version,
                    "attempts": attempts,
                    "error": error[:1000],
                    "at": now().isoformat(),
                    "next_at": next_at,
                    "dead": dead,
                }
                try:
                    if snapshot.exists:
                        written = {**data, "retry_at": DELETE_FIELD if dead else next_at}
                        ref.update(
                            written,
                            option=client.write_option(last_update_time=snapshot.update_time),
                            **self._db.options,
                        )
                    else:
                        ref.create(
                            {**data, **({} if dead else {"retry_at": next_at})}, **self._db.options
                        )
                except (gexc.FailedPrecondition, gexc.Aborted, gexc.AlreadyExists):
                    continue  # another worker counted meanwhile: count on top of it
            return _failure(data)
        raise Conflict(f"the failures of '{slug}' v{version} kept changing: not counted")

    def clear(self, slug: str, version: int) -> None:
        ref = self._db.collection(FAILURES).document(_failure_id(slug, version))
        with self._db.guard("clearing a failed enrichment"):
            snapshot = ref.get(**self._db.options)
            if snapshot.exists and not (snapshot.to_dict() or {}).get("dead"):
                ref.delete(**self._db.options)

    def failure(self, slug: str, version: int) -> Failure | None:
        ref = self._db.collection(FAILURES).document(_failure_id(slug, version))
        with self._db.guard("reading a failed enrichment"):
            snapshot = ref.get(**self._db.options)
        return _failure(snapshot.to_dict() or {}) if snapshot.exists else None

    def due(self, now: float, *, limit: int = 100) -> list[Failure]:
        query = (
            self._db.collection(FAILURES)
            .where(filter=FieldFilter("retry_at", "<=", now))
            .order_by("retry_at")
            .limit(limit)
        )
        with self._db.guard("reading the enrichments to retry"):
            return [_failure(d.to_dict() or {}) for d in query.stream(**self._db.options)]

    def dead(self, *, limit: int = 100) -> list[Failure]:
        query = self._db.collection(FAILURES).where(filter=FieldFilter("dead", "==", True))
        with self._db.guard("reading the dead letters"):
            found = [_failure(d.to_dict() or {}) for d in query.stream(**self._db.options)]
        return sorted(found, key=lambda f: f.at, reverse=True)[:limit]

    def dead_count(self) -> int:
        query = self._db.collection(FAILURES).where(filter=FieldFilter("dead", "==", True))
        with self._db.guard("counting the dead letters"):
            return int(query.count().get(**self._db.options)[0][0].value)
